"""`pack(program, "F", sample)`: one path of F as a guarded residual over tensor leaves.

A `Pack` holds what one concolic run of F on the sample found:

- `output`: F's result as a tree (dicts for class instances and maps, lists
  for arrays) whose leaves are expressions over the sample's numeric inputs
  and the host calls' tensor leaves, or constants;
- `guard`: the path condition, one expression per decision that depended on
  an input or a tensor (branches, panic checks, concretizations), plus the
  sample's `layout` (strings, enum values, nulls, lengths: fixed);
- `host_calls`: the host calls the residual makes, in order.

`to_fx()` lowers the output to a `torch.fx.GraphModule` whose arguments are
the numeric inputs in `input_names` order; `guard_fx()` lowers the guard to
one returning a bool (a bool tensor on a batch); `matches(sample)` says
whether another sample takes the same path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch
import torch.fx as fx

from ingot.pack.lower import GraphBuilder, emit_tree, placeholder_name
from ingot.pack.trace import HostCall, Layout, PackError, PackVM, shadow_sample
from ingot.runtime.errors import BamlError, BamlRaise
from ingot.runtime.values import Instance, Variant
from ingot.symbolic.expr import Expr, Interner, Sort
from ingot.symbolic.shadow import Shadow
from ingot.symbolic.tracker import TrackedVM

if TYPE_CHECKING:
    from ingot.api import Program

__all__ = ["Pack", "pack", "stack_inputs"]


@dataclass(eq=False)
class Pack:
    """One path of a function: residual outputs, guard, host calls (see the module docstring)."""

    program: Program = field(repr=False)
    function: str
    layout: Layout
    output: Any
    guard: tuple[Expr, ...]
    host_calls: tuple[HostCall, ...]
    sample_inputs: dict[str, Any] = field(repr=False)  # the numeric inputs of the sample packed
    dtype: torch.dtype = torch.float64  # BAML's float
    input_names: tuple[str, ...] = ()  # placeholder names, one per layout input
    _graph: fx.GraphModule | None = field(default=None, init=False, repr=False)
    _guard_graph: fx.GraphModule | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        taken: set[str] = set()
        self.input_names = tuple(placeholder_name(path, taken) for path, _ in self.layout.inputs)

    @property
    def inputs(self) -> tuple[str, ...]:
        """The sample paths the graphs take as arguments, in order (`s.width`, ...)."""
        return tuple(path for path, _ in self.layout.inputs)

    def builder(self) -> GraphBuilder:
        b = GraphBuilder(dict(zip(self.inputs, self.input_names)), self.program.bound, self.dtype)
        b.add_host_calls(self.host_calls)
        return b

    def to_fx(self) -> fx.GraphModule:
        """The residual of F's output as a GraphModule over the inputs (host calls included); built once."""
        if self._graph is None:
            self._graph = self._lower_output()
        return self._graph

    def _lower_output(self) -> fx.GraphModule:
        b = self.builder()
        return b.module(emit_tree(b, self.output), f"{self.function}Pack")

    def guard_fx(self) -> fx.GraphModule:
        """The path condition as a GraphModule returning a bool (a bool tensor on a batch); built once."""
        if self._guard_graph is None:
            self._guard_graph = self._lower_guard()
        return self._guard_graph

    def guard_on(self, columns: Sequence[torch.Tensor]) -> Any:
        """The path condition evaluated directly on stacked inputs (no graph generated: for masks
        computed once, such as a plan's grouping)."""
        b = GraphBuilder.eager(dict(zip(self.inputs, columns)), self.program.bound, self.dtype)
        b.add_host_calls(self.host_calls)
        return b.conjunction(self.guard)

    def _lower_guard(self) -> fx.GraphModule:
        b = self.builder()
        return b.module(b.conjunction(self.guard), f"{self.function}Guard")

    def arguments(self, samples: Sequence[Mapping[str, Any]]) -> list[torch.Tensor]:
        """The graphs' arguments for samples of this pack's layout, stacked (one row per sample)."""
        rows = []
        for s in samples:
            layout, numbers = sample_layout(self.program, self.function, s)
            if layout != self.layout:
                raise PackError(f"the sample's layout differs from the pack's ({_first_difference(layout, self.layout)})")
            rows.append(numbers)
        return stack_inputs(self.layout, rows, self.dtype)

    def matches(self, sample: Mapping[str, Any]) -> bool:
        """Whether `sample` takes this pack's path (same layout, guard holds)."""
        layout, numbers = sample_layout(self.program, self.function, sample)
        if layout != self.layout:
            return False
        args = [a.squeeze(0) for a in stack_inputs(self.layout, [numbers], self.dtype)]
        return bool(torch.as_tensor(self.guard_fx()(*args)).all())

    def __call__(self, sample: Mapping[str, Any]) -> Any:
        """The residual evaluated on one sample of this path (checked with `matches`)."""
        if not self.matches(sample):
            raise PackError(f"the sample does not take the path of this pack of `{self.function}`")
        layout, numbers = sample_layout(self.program, self.function, sample)
        args = [a.squeeze(0) for a in stack_inputs(self.layout, [numbers], self.dtype)]
        return self.to_fx()(*args)


def pack(program: Program, function: str, sample: Mapping[str, Any], *, dtype: torch.dtype | None = None) -> Pack:
    """Run `function` concolically on `sample` (its arguments by name) and keep its residual.

    Raises `ArgumentError` (naming the field) for a sample that does not fit the
    signature, `BamlError` when the function panics on the sample, and
    `PackError` for what packing cannot express.
    """
    fn = program.function(function)
    values = program.convert_args(function, dict(sample))
    dtype = dtype or torch.float64  # BAML's float: results equal the VM's
    interner = Interner()
    vm = PackVM(program.view, interner, dtype, hosts=program.bound)
    names = [n for n, _ in program.view.function(function).params]
    layout, shadows, numbers = shadow_sample(vm, interner, names, values)
    try:
        result = vm.run_tracked(fn, values, shadows)
    except BamlRaise as e:
        raise BamlError(e.value, e.trace) from None
    output = residual_tree(vm, result, vm.result_shadow)
    guard = tuple(entry.observed for entry in vm.trace.path)  # type: ignore[attr-defined]  # TrackedVM.trace is its RunTrace
    return Pack(program, function, layout, output, guard, tuple(vm.host_calls), numbers, dtype)


def residual_tree(vm: TrackedVM, value: Any, shadow: Shadow, depth: int = 0) -> Any:
    """The returned value with every symbolic scalar replaced by its expression."""
    if depth > 64:
        raise PackError("the result nests too deeply to pack")
    e = vm.scalar(shadow, value)
    if e is not None:
        return e
    if isinstance(value, Instance):
        return {name: residual_tree(vm, v, vm.hget(value, i), depth + 1)
                for i, (name, v) in enumerate(zip(value.cls.field_names, value.fields))}
    if isinstance(value, list):
        return [residual_tree(vm, v, vm.hget(value, i), depth + 1) for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: residual_tree(vm, v, vm.hget(value, ("k", k)), depth + 1) for k, v in value.items()}
    if isinstance(value, Variant):
        return value.name
    return value


def sample_layout(program: Program, function: str, sample: Mapping[str, Any]) -> tuple[Layout, dict[str, Any]]:
    """A sample's layout and numeric inputs, without running anything."""
    values = program.convert_args(function, dict(sample))
    names = [n for n, _ in program.view.function(function).params]
    layout, _, numbers = shadow_sample(None, Interner(), names, values)
    return layout, numbers


def stack_inputs(layout: Layout, rows: Sequence[Mapping[str, Any]], dtype: torch.dtype) -> list[torch.Tensor]:
    """One tensor per input: the rows' values stacked (ints as int64, bools as bool)."""
    out = []
    for path, sort in layout.inputs:
        kind = torch.bool if sort is Sort.BOOL else torch.int64 if sort is Sort.INT else dtype
        out.append(torch.tensor([r[path] for r in rows], dtype=kind))
    return out


def _first_difference(a: Layout, b: Layout) -> str:
    for x, y in zip(a.fixed, b.fixed):
        if x != y:
            return f"`{x[0]}`: {x[1:]} vs {y[1:]}"
    return "different numeric inputs" if a.inputs != b.inputs else "different layouts"
