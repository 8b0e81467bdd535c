"""One concolic run in pack mode: the residual of a function over one sample.

`PackVM` is the tracker with three changes:

- a host function's call runs its Python callable (arguments that inputs
  decide arrive as 0-d tensors, as they will in the graph); a tensor it returns gets a
  fresh leaf variable (`$host0`, `$host1`, ...) and the call is recorded with
  its argument expressions, so the graph can make the call again on a batch.
  A non-tensor result is fixed: its symbolic arguments are concretized, so
  the guard pins them.
- float products and quotients of two symbolic values stay symbolic (the
  explorer keeps its queries linear for the solver; a pack is never solved).
- a tensor compared with a number is a float comparison (the runtime's
  type-strict equality would call it "never equal").

The sample's numeric scalars (`int`, `float`, `bool` anywhere in the
arguments) are input variables named by their path (`s.width`,
`s.items[2]`); everything else in the sample (strings, enum values, nulls,
array lengths, map keys, class names) is its *layout*, fixed for the pack.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from ingot.bex.api import BexFunction, runs_host
from ingot.bex.api import Op as B
from ingot.pack.tensors import is_tensor
from ingot.runtime.values import Instance, Variant
from ingot.symbolic.expr import Expr, Interner, Op, Sort
from ingot.symbolic.runtime import SiteFrame
from ingot.symbolic.shadow import Shadow
from ingot.symbolic.tracker import Frame, TrackedVM
from ingot.view import ProgramView


class PackError(Exception):
    """A function or sample that cannot be packed (named in the message)."""


@dataclass(frozen=True, slots=True)
class HostCall:
    """One host call of the residual: `leaf = function(*args)`.

    Each argument is an `Expr` over the inputs (and earlier leaves) or a Python
    constant (a value no input influences: an opaque object, a string, ...).
    """

    leaf: str
    function: str
    args: tuple[Any, ...]


class _NoEnvironment:
    """Packing runs no LLM functions: their results are not tensors of the sample."""

    def llm_result(self, fn: BexFunction, site: str, occurrence: int) -> Any:
        raise PackError(f"`{fn.name}` is an LLM function; a packed function may call host functions only")

    def llm_failure(self, fn: BexFunction, site: str, occurrence: int) -> Any:
        return self.llm_result(fn, site, occurrence)


class PackVM(TrackedVM):
    """The tracker with host calls as tensor leaves (see the module docstring)."""

    def __init__(self, view: ProgramView, interner: Interner, dtype: torch.dtype, **options: Any) -> None:
        super().__init__(view, interner, _NoEnvironment(), **options)
        self.dtype = dtype
        self.host_calls: list[HostCall] = []

    def external_call(self, frame: Frame, fn: BexFunction, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
        if not runs_host(fn, self.hosts):
            return super().external_call(frame, fn, args, shadows)
        # A host call gets what its graph node will get: tensors for the arguments inputs decide.
        value = self.call_host(fn, [self._as_graph_value(s, a) for s, a in zip(shadows, args)])
        if not is_tensor(value):
            for a, s in zip(args, shadows):
                self.concretize(frame, s, a)
            return value, None
        arg_terms = tuple(self._term(s, a) for s, a in zip(shadows, args))
        leaf = self.x.var(f"$host{len(self.host_calls)}", Sort.FLOAT)
        self.host_calls.append(HostCall(leaf.value, fn.name, arg_terms))
        return value, leaf

    def concretize(self, frame: SiteFrame, shadow: Shadow, value: Any, modelled: Expr | None = None) -> None:
        # A 0-d tensor fixed to its value (string interpolation, a built-in the tracker
        # does not model): the guard pins it like any scalar.
        super().concretize(frame, shadow, float(value) if is_tensor(value) and value.numel() == 1 else value,
                           modelled)

    def _as_graph_value(self, shadow: Shadow, value: Any) -> Any:
        e = self.scalar(shadow, value)
        if e is None or is_tensor(value) or type(value) not in (int, float, bool):
            return value
        kind = torch.bool if e.sort is Sort.BOOL else torch.int64 if e.sort is Sort.INT else self.dtype
        return torch.tensor(value, dtype=kind)

    def _term(self, shadow: Shadow, value: Any) -> Any:
        e = self.scalar(shadow, value)
        return e if e is not None else value

    def arith(self, frame: Frame, op: B, a: Any, b: Any, sa: Shadow, sb: Shadow, ea: Expr, eb: Expr) -> Shadow:
        if type(a) is int and type(b) is int:
            return super().arith(frame, op, a, b, sa, sb, ea, eb)
        kind = {B.ADD: Op.ADD, B.SUB: Op.SUB, B.MUL: Op.MUL, B.DIV: Op.DIV, B.MOD: Op.MOD}[op]
        return self.x.arith(kind, ea, eb)

    def equality(self, frame: Frame, a: Any, b: Any, sa: Shadow, sb: Shadow) -> Expr | None:
        if is_tensor(a) or is_tensor(b):
            ea, eb = self.lift(sa, a), self.lift(sb, b)
            if ea is None:
                ea = self.x.const(float(a))  # a tensor no input influences
            if eb is None:
                eb = self.x.const(float(b))
            return self.x.eq(self.x.to_float(ea), self.x.to_float(eb))
        return super().equality(frame, a, b, sa, sb)


# -- the sample -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Layout:
    """What a pack fixes about a sample, and its numeric inputs in order."""

    inputs: tuple[tuple[str, Sort], ...]  # (variable = sample path, sort)
    fixed: tuple[Any, ...]  # hashable: every non-numeric part of the sample, by path


def shadow_sample(vm: TrackedVM | None, interner: Interner, names: list[str], values: list[Any]
                  ) -> tuple[Layout, list[Shadow], dict[str, Any]]:
    """Make the numeric scalars of the arguments input variables.

    Returns the layout, the argument shadows (fields and elements are
    shadowed in `vm`'s heap) and the inputs' values. With `vm=None` only the
    layout and the values are computed (to group samples).
    """
    inputs: list[tuple[str, Sort]] = []
    fixed: list[Any] = []
    numbers: dict[str, Any] = {}

    def walk(value: Any, path: str, depth: int) -> Shadow:
        if depth > 64:
            raise PackError(f"`{path}` nests too deeply to pack")
        t = type(value)
        if t is bool or t is int or t is float:
            sort = Sort.BOOL if t is bool else Sort.INT if t is int else Sort.FLOAT
            inputs.append((path, sort))
            numbers[path] = value
            return interner.var(path, sort)
        container = members(value, path)
        if container is not None:
            entry, children = container
            fixed.append(entry)
            for key, child_path, child in children:
                s = walk(child, child_path, depth + 1)
                if vm is not None and s is not None:
                    vm.hset(value, key, s)  # the tracker's heap key for this field, element or entry
            return None
        if isinstance(value, Variant):
            fixed.append((path, "enum", value.enum.name, value.name))
            return None
        if value is None or t is str:
            fixed.append((path, "value", value))
            return None
        raise PackError(f"`{path}`: a {t.__name__} cannot be part of a packed sample "
                        "(samples hold BAML data; tensors come from host functions)")

    shadows = [walk(v, n, 0) for n, v in zip(names, values)]
    return Layout(tuple(inputs), tuple(fixed)), shadows, numbers


def members(value: Any, path: str) -> tuple[tuple[Any, ...], list[tuple[Any, str, Any]]] | None:
    """A container's layout entry and its members as (heap key, path, value); None for a scalar."""
    if isinstance(value, Instance):
        return ((path, "class", value.cls.name),
                [(i, f"{path}.{name}", v) for i, (name, v) in enumerate(zip(value.cls.field_names, value.fields))])
    if type(value) is list:
        return (path, "len", len(value)), [(i, f"{path}[{i}]", v) for i, v in enumerate(value)]
    if type(value) is dict:
        return (path, "keys", tuple(value)), [(("k", k), f"{path}[{k!r}]", v) for k, v in value.items()]
    return None
