"""Residual expressions to `torch.fx` graphs.

One `GraphBuilder` emits into one `fx.Graph`: placeholders for a pack's
inputs, one node per expression node (shared sub-expressions once, because
expressions are hash-consed), and one `call_function` node per host call on
the bound Python callable. Constants that are not Python literals (a tensor
or an opaque object no input influences) become attributes of the module,
read with `get_attr`.

The operators keep BAML's semantics on tensors: `/` and `%` on ints truncate
toward zero, `%` on floats is `fmod`, an int meets a float by conversion to
the pack's float dtype.
"""

from __future__ import annotations

import inspect
import operator
import re
from collections.abc import Callable, Mapping
from typing import Any

import torch
import torch.fx as fx

from ingot.pack.trace import HostCall, PackError
from ingot.symbolic.expr import Expr, Op, Sort, post_order


def to_float(t: Any, dtype: torch.dtype) -> Any:
    """BAML's int-to-float conversion in the pack's dtype."""
    return t.to(dtype) if isinstance(t, torch.Tensor) else float(t)


def trunc_div(a: Any, b: Any) -> Any:
    return torch.div(torch.as_tensor(a), b, rounding_mode="trunc")


def all_of(*parts: Any) -> Any:
    out = parts[0]
    for p in parts[1:]:
        out = torch.logical_and(torch.as_tensor(out), p)
    return out


def any_of(*parts: Any) -> Any:
    out = parts[0]
    for p in parts[1:]:
        out = torch.logical_or(torch.as_tensor(out), p)
    return out


def logical_not(a: Any) -> Any:
    return torch.logical_not(torch.as_tensor(a))


_BINARY: dict[Op, Callable[..., Any]] = {
    Op.ADD: operator.add, Op.SUB: operator.sub, Op.MUL: operator.mul,
    Op.EQ: operator.eq, Op.LT: operator.lt, Op.LE: operator.le,
}


def nameable(function: str, target: Callable[..., Any]) -> Callable[..., Any]:
    """`target`, or a named function calling it where fx could not name it in generated code.

    fx names a `call_function` target by its qualified name, and a lambda by its
    source text (which code typed at a prompt or built by `exec` does not have);
    callable objects have no name at all.
    """
    if inspect.isfunction(target) and target.__name__ != "<lambda>" or inspect.isbuiltin(target):
        return target

    def host(*args: Any) -> Any:
        return target(*args)

    host.__name__ = host.__qualname__ = f"host_{function}"
    return host


def placeholder_name(path: str, taken: set[str]) -> str:
    """A Python identifier for a sample path (`s.items[0]` -> `s_items_0`), unique in `taken`."""
    base = re.sub(r"\W+", "_", path).strip("_") or "input"
    if base[0].isdigit():
        base = "_" + base
    name, n = base, 1
    while name in taken:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


class EagerGraph:
    """Stands in for an `fx.Graph` and runs each call as it is emitted: an expression evaluated
    once (a guard's mask while planning) needs no generated code."""

    def __init__(self, root: torch.nn.Module) -> None:
        self.root = root

    def call_function(self, target: Callable[..., Any], args: tuple[Any, ...] = ()) -> Any:
        return target(*args)

    def get_attr(self, name: str) -> Any:
        return getattr(self.root, name)


class GraphBuilder:
    """Emits expressions into one graph over shared placeholders."""

    def __init__(self, input_names: Mapping[str, str], hosts: Mapping[str, Callable[..., Any]],
                 dtype: torch.dtype) -> None:
        self.graph = fx.Graph()
        self.root = torch.nn.Module()
        self.dtype = dtype
        self.hosts = hosts
        self.env: dict[str, Any] = {var: self.graph.placeholder(name) for var, name in input_names.items()}
        self.nodes: dict[int, Any] = {}
        self.calls: dict[str, HostCall] = {}
        self._consts = [0]  # shared with sub-builders: constant attribute names stay unique

    @classmethod
    def eager(cls, values: Mapping[str, Any], hosts: Mapping[str, Callable[..., Any]],
              dtype: torch.dtype) -> GraphBuilder:
        """A builder that computes instead of recording: each expression is its value on `values`."""
        b = object.__new__(cls)
        b.root = torch.nn.Module()
        b.graph = EagerGraph(b.root)  # type: ignore[assignment]  # duck-types the two methods emission uses
        b.dtype, b.hosts, b.env, b.nodes, b.calls, b._consts = dtype, hosts, dict(values), {}, {}, [0]
        return b

    def sub(self, env: Mapping[str, Any]) -> GraphBuilder:
        """A builder emitting into the same graph with inputs bound to other nodes (one path of a merge)."""
        other = object.__new__(GraphBuilder)
        other.graph, other.root, other.dtype, other.hosts = self.graph, self.root, self.dtype, self.hosts
        other.env, other.nodes, other.calls, other._consts = dict(env), {}, {}, self._consts
        return other

    def add_host_calls(self, calls: tuple[HostCall, ...], rename: Mapping[str, str] | None = None) -> None:
        for c in calls:
            self.calls[c.leaf if rename is None else rename[c.leaf]] = c

    def constant(self, value: Any) -> Any:
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        name = f"_const{self._consts[0]}"
        self._consts[0] += 1
        if isinstance(value, torch.Tensor):
            self.root.register_buffer(name, value)
        else:
            setattr(self.root, name, value)
        return self.graph.get_attr(name)

    def emit(self, e: Expr) -> Any:
        for node in post_order(e, self.nodes):
            self.nodes[node.id] = self._node(node)
        return self.nodes[e.id]

    def conjunction(self, conditions: tuple[Expr, ...]) -> Any:
        """A guard: the node that all `conditions` hold (True when there are none)."""
        parts = [self.emit(c) for c in conditions]
        if not parts:
            return True
        return parts[0] if len(parts) == 1 else self.graph.call_function(all_of, tuple(parts))

    def term(self, t: Any) -> Any:
        """A host call argument or an output leaf: an expression, else a constant."""
        return self.emit(t) if isinstance(t, Expr) else self.constant(t)

    def _node(self, e: Expr) -> Any:  # noqa: C901 - one row per operator
        g, op = self.graph, e.op
        args = [self.nodes[a.id] for a in e.args]
        if op is Op.CONST:
            return e.value
        if op is Op.VAR:
            if e.value in self.env:
                return self.env[e.value]
            call = self.calls.get(e.value)
            if call is None:
                raise PackError(f"no input or host call named `{e.value}`")
            target = self.hosts.get(call.function)
            if target is None:
                raise PackError(f"host function `{call.function}` is not bound")
            node = g.call_function(nameable(call.function, target), tuple(self.term(a) for a in call.args))
            self.env[e.value] = node
            return node
        if op in _BINARY:
            return g.call_function(_BINARY[op], tuple(args))
        if op is Op.DIV:
            return g.call_function(trunc_div if e.sort is Sort.INT else operator.truediv, tuple(args))
        if op is Op.MOD:
            return g.call_function(torch.fmod, (g.call_function(torch.as_tensor, (args[0],)), args[1]))
        if op is Op.NEG:
            return g.call_function(operator.neg, tuple(args))
        if op is Op.TO_FLOAT:
            return g.call_function(to_float, (args[0], self.dtype))
        if op is Op.AND:
            return g.call_function(all_of, tuple(args))
        if op is Op.OR:
            return g.call_function(any_of, tuple(args))
        if op is Op.NOT:
            return g.call_function(logical_not, tuple(args))
        if op is Op.ITE:
            return g.call_function(torch.where, tuple(args))
        raise PackError(f"the residual uses the string operation `{op.value}`; packs compute with numbers only")

    def module(self, output: Any, class_name: str) -> fx.GraphModule:
        self.graph.output(output)
        self.graph.lint()
        return fx.GraphModule(self.root, self.graph, class_name=class_name)


def emit_tree(builder: GraphBuilder, tree: Any) -> Any:
    """An output tree (dicts, lists, expression or constant leaves) as fx arguments."""
    if isinstance(tree, dict):
        return {k: emit_tree(builder, v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [emit_tree(builder, v) for v in tree]
    return builder.term(tree)
