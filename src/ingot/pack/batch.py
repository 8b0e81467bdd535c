"""`pack_batch`: many samples, one graph evaluation per path, no per-sample Python on the hot path.

Samples (rows, or columns: see `pack.columns`) are split by layout (what a pack fixes:
strings, enum values, nulls, lengths) column-wise, and each layout's numeric inputs are
stacked once. Within a layout, rows are split by path with index tensors: the first row not
yet placed is packed, its guard is evaluated on all the pending rows at once as a bool mask,
and the rows it holds for join its group.

With `merge=True`, the groups of one layout whose outputs have the same shape (same fields,
same lengths, numeric leaves) become one graph: each path's guard gives a mask, each path
computes on *safe* inputs (its own sample's values on the rows it does not own, so no NaN or
inf from a path a row did not take reaches the chain rule: `0 * nan` would be `nan`), and
nested `torch.where` selects per row. The merged graph also returns which rows some path's
guard holds for.

Outputs come back in sample order, gathered with one precomputed permutation: a tensor when
they are scalars, a dict of tensors for class instances (one tensor per field), a list for
arrays when all samples agree on the lengths; otherwise one output per sample.

A plan is built once per data set and evaluated every epoch. Guards that depend on host
results (learnable tensors) are re-checked on each evaluation, as masks; only the rows whose
guard no longer holds are placed again (on the layout's other paths first, then on new packs).

Numbers are stacked as float64 (BAML's `float`) unless `dtype` says otherwise; `device` puts
the stacked inputs, index tensors and graph constants there (host tensors are the caller's).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch
import torch.fx as fx

from ingot.pack.columns import Extracted, LayoutRows, extract
from ingot.pack.lower import emit_tree
from ingot.pack.residual import Pack, pack
from ingot.pack.trace import Layout
from ingot.symbolic.expr import Expr

if TYPE_CHECKING:
    from ingot.api import Program

__all__ = ["BatchPlan", "Group", "PackCache", "pack_batch"]

BAML_FLOAT = torch.float64


@dataclass
class Group:
    """The rows of one layout (local indices into its columns) that take the path of `pack`."""

    pack: Pack
    members: torch.Tensor
    prepare: Callable[[Pack], Callable[..., Any]] = field(repr=False)

    @property
    def graph(self) -> Callable[..., Any]:
        """The path's graph, built when first needed (a merged layout never needs it)."""
        return self.prepare(self.pack)


@dataclass
class LayoutPlan:
    """One layout's paths: separate groups, or one merged graph over all its rows."""

    part: LayoutRows
    groups: list[Group] = field(default_factory=list)
    merged: Callable[..., Any] | None = None
    depends_on_hosts: bool = False


class PackCache:
    """Packs and graphs shared by the plans of many batches (one data loader, many epochs).

    A batch's rows try the packs already made for their layout before any new concolic run,
    and a merged layout's graph covers every pack known for the layout, so it is built (and
    compiled) once, not once per batch.
    """

    def __init__(self) -> None:
        self.packs: dict[Layout, list[Pack]] = {}
        self.graphs: dict[tuple[int, ...], Callable[..., Any]] = {}  # by the packs' ids: a group's or a merge's


class BatchPlan:
    """Layouts, paths, graphs and stacked inputs for one data set; evaluate as often as needed.

    `samples` are rows or columns (see `pack.columns`), or the `LayoutRows` a data loader's
    workers extracted (`pack.data`). `cache` shares packs and graphs with other plans.
    """

    def __init__(self, program: Program, function: str, samples: Any, *, merge: bool = False,
                 dtype: torch.dtype | None = None, device: torch.device | str | None = None,
                 compile: Mapping[str, Any] | bool | None = None,  # noqa: A002 - torch's word
                 cache: PackCache | None = None) -> None:
        self.program, self.function, self.merge = program, function, merge
        self.dtype = dtype or BAML_FLOAT
        self.device = torch.device(device) if device is not None else torch.device("cpu")
        self.compile_options = ({} if compile is True else dict(compile)) if compile else None
        self.cache = cache if cache is not None else PackCache()
        if isinstance(samples, Extracted):
            self.size, parts = samples.size, [p.to(self.device, self.dtype) for p in samples.parts]
        else:
            self.size, parts = extract(program, function, samples, self.dtype, self.device)
        self.layouts = [self.plan_layout(part) for part in parts]
        self._order: torch.Tensor | None = None
        self._inverse: torch.Tensor | None = None

    # -- planning ---------------------------------------------------------------------------------
    def plan_layout(self, part: LayoutRows) -> LayoutPlan:
        plan = LayoutPlan(part)
        empty = torch.zeros(0, dtype=torch.long, device=self.device)
        for p in self.cache.packs.get(part.layout, ()):
            plan.groups.append(Group(p, empty, self.group_graph))
            plan.depends_on_hosts = plan.depends_on_hosts or depends_on_hosts(p)
        everything = torch.arange(len(part.rows), device=self.device)
        exact = self.place(plan, everything)
        self.finish(plan, exact)
        return plan

    def place(self, plan: LayoutPlan, pending: torch.Tensor) -> bool:
        """Put rows (local indices) on the layout's paths: existing ones first, then new packs.

        Returns False when a sample failed its own pack's guard (float rounding: it is kept on
        its own path, but then the layout is not merged).
        """
        columns = plan.part.columns
        for g in plan.groups:
            if not len(pending):
                return True
            mask = guard_mask(g.pack, take(columns, pending), len(pending), self.device)
            g.members = torch.cat([g.members, pending.masked_select(mask)])
            pending = pending.masked_select(~mask)
        exact = True
        while len(pending):
            first = int(pending[0])
            p = self.pack_row(plan.part, first)
            mask = guard_mask(p, take(columns, pending), len(pending), self.device)
            exact = exact and bool(mask[0])
            mask[0] = True  # float rounding aside, a sample takes its own path
            plan.groups.append(Group(p, pending.masked_select(mask), self.group_graph))
            self.cache.packs.setdefault(plan.part.layout, []).append(p)
            plan.depends_on_hosts = plan.depends_on_hosts or depends_on_hosts(p)
            pending = pending.masked_select(~mask)
        return exact

    def pack_row(self, part: LayoutRows, local: int) -> Pack:
        index = int(part.rows[local])
        try:
            return pack(self.program, self.function, part.sample(index), dtype=self.dtype)
        except Exception as e:
            e.add_note(f"while packing sample {index} of {self.size}")
            raise

    def finish(self, plan: LayoutPlan, exact: bool) -> None:
        packs = [g.pack for g in plan.groups]
        if self.merge and len(packs) > 1 and exact and mergeable(packs):
            plan.merged = self.cached_graph(packs, lambda: merged_graph(packs))
        else:
            plan.merged = None

    def group_graph(self, p: Pack) -> Callable[..., Any]:
        return self.cached_graph([p], p.to_fx)

    def cached_graph(self, packs: list[Pack], build: Callable[[], fx.GraphModule]) -> Callable[..., Any]:
        key = tuple(id(p) for p in packs)
        if key not in self.cache.graphs:
            gm = build().to(self.device)
            self.cache.graphs[key] = gm if self.compile_options is None else \
                torch.compile(gm, **{"dynamic": True, **self.compile_options})
        return self.cache.graphs[key]

    @property
    def paths(self) -> int:
        return sum(len(plan.groups) for plan in self.layouts)

    @property
    def groups(self) -> list[Group]:
        """The groups evaluated on their own (not merged)."""
        return [g for plan in self.layouts if plan.merged is None for g in plan.groups]

    @property
    def merged(self) -> list[Callable[..., Any]]:
        """The merged graphs, one per merged layout."""
        return [plan.merged for plan in self.layouts if plan.merged is not None]

    # -- evaluation -------------------------------------------------------------------------------
    def evaluate(self) -> Any:
        """The outputs for every sample, in sample order (re-placing rows whose guard no longer holds)."""
        parts: list[tuple[torch.Tensor, Any]] = []
        for plan in self.layouts:
            parts.extend(self.evaluate_layout(plan))
        if not parts:
            return []
        return assemble(parts, self.size, self.dtype, self.device, self.inverse(parts))

    def inverse(self, parts: list[tuple[torch.Tensor, Any]]) -> torch.Tensor | None:
        """The permutation from the parts' rows, concatenated, to sample order (None: the identity).

        Cached: it changes only when rows move between groups."""
        order = torch.cat([rows for rows, _ in parts]) if len(parts) > 1 else parts[0][0]
        if self._order is not None and self._order.shape == order.shape and torch.equal(self._order, order):
            return self._inverse
        self._order = order
        if torch.equal(order, torch.arange(self.size, device=self.device)):
            self._inverse = None
        else:
            self._inverse = torch.empty_like(order).scatter_(0, order, torch.arange(self.size, device=self.device))
        return self._inverse

    def evaluate_layout(self, plan: LayoutPlan, replanned: bool = False) -> list[tuple[torch.Tensor, Any]]:
        columns, rows = plan.part.columns, plan.part.rows
        if plan.merged is not None:
            out, covered = plan.merged(*columns)
            if not plan.depends_on_hosts or bool(covered.all()):
                return [(rows, out)]
            if replanned:  # rounding: a row no path holds for even after packing its own
                plan.merged = None
                return self.evaluate_layout(plan, replanned)
            # Learnable tensors moved some rows to paths not packed yet.
            uncovered = torch.nonzero(~covered).squeeze(1)
            self.finish(plan, self.place(plan, uncovered))
            return self.evaluate_layout(plan, replanned=True)
        if plan.depends_on_hosts:
            self.recheck(plan)
        return [(rows.index_select(0, g.members), g.graph(*take(columns, g.members)))
                for g in plan.groups if len(g.members)]

    def recheck(self, plan: LayoutPlan) -> None:
        """Move the rows whose group's guard no longer holds (vectorised per group)."""
        columns = plan.part.columns
        left: list[torch.Tensor] = []
        for g in plan.groups:
            if not len(g.members) or not depends_on_hosts(g.pack):
                continue
            mask = guard_mask(g.pack, take(columns, g.members), len(g.members), self.device)
            if not bool(mask.all()):
                left.append(g.members.masked_select(~mask))
                g.members = g.members.masked_select(mask)
        if left:
            self.place(plan, torch.cat(left))


def pack_batch(program: Program, function: str, samples: Any, *, merge: bool = False,
               dtype: torch.dtype | None = None, device: torch.device | str | None = None) -> Any:
    """Evaluate `function` on every sample (rows or columns) through packed graphs; outputs in sample order."""
    return BatchPlan(program, function, samples, merge=merge, dtype=dtype, device=device).evaluate()


def guard_mask(p: Pack, columns: list[torch.Tensor], n: int, device: torch.device) -> torch.Tensor:
    """The pack's guard on stacked inputs, as a bool tensor of `n` rows (no autograd: masks only select)."""
    with torch.no_grad():
        return torch.as_tensor(p.guard_on(columns), device=device).expand(n).clone()


def take(columns: list[torch.Tensor], index: torch.Tensor) -> list[torch.Tensor]:
    """The rows `index` of each column (`index_select`: `t[index]` is many times slower on CPU)."""
    return [c.index_select(0, index) for c in columns]


def depends_on_hosts(p: Pack) -> bool:
    return any(any(v.startswith("$host") for v in g.vars) for g in p.guard)


# -- merging ------------------------------------------------------------------------------------
def skeleton(tree: Any) -> Any:
    """The shape of an output tree (of expressions, or of evaluated tensors); None if a leaf
    is not numeric (strings cannot be masked or stacked)."""
    if isinstance(tree, dict):
        parts = {k: skeleton(v) for k, v in tree.items()}
        return None if any(v is None for v in parts.values()) else ("dict", tuple(parts.items()))
    if isinstance(tree, list):
        items = [skeleton(v) for v in tree]
        return None if any(v is None for v in items) else ("list", tuple(items))
    if isinstance(tree, (Expr, torch.Tensor)) or type(tree) in (int, float, bool):
        return "leaf"
    return None


def mergeable(packs: list[Pack]) -> bool:
    first = skeleton(packs[0].output)
    return first is not None and all(skeleton(p.output) == first for p in packs[1:])


def merged_graph(packs: list[Pack]) -> fx.GraphModule:
    """One graph for several paths of one layout: guards as masks, safe inputs, `torch.where`.

    Returns `(output, covered)`: `covered` is the rows some path's guard holds for.
    """
    base = packs[0].builder()
    inputs = dict(base.env)
    masks, outputs = [], []
    for p in packs:
        path = base.sub(inputs)
        path.add_host_calls(p.host_calls)
        mask = path.conjunction(p.guard)
        masks.append(mask)
        # On rows this path does not own, compute it on its own sample's values (finite by construction).
        safe = {v: base.graph.call_function(torch.where, (mask, node, p.sample_inputs[v]))
                for v, node in inputs.items()}
        body = base.sub(safe)
        body.add_host_calls(p.host_calls)
        outputs.append(emit_tree(body, p.output))
    result = outputs[-1]
    for mask, out in zip(reversed(masks[:-1]), reversed(outputs[:-1])):
        result = select(base, mask, out, result)
    column = next(iter(inputs.values()), None)
    covered = base.graph.call_function(any_mask, (column, *masks))
    return base.module((result, covered), f"{packs[0].function}Merged")


def any_mask(column: Any, *masks: Any) -> torch.Tensor:
    """The rows any mask holds for, one per row of `column` (a mask may be a plain bool)."""
    n = column.shape[0] if isinstance(column, torch.Tensor) and column.dim() else 1
    out = torch.zeros(n, dtype=torch.bool, device=column.device if isinstance(column, torch.Tensor) else None)
    for m in masks:
        out = out | torch.as_tensor(m, device=out.device)
    return out


def select(b: Any, mask: Any, a: Any, other: Any) -> Any:
    if isinstance(a, dict):
        return {k: select(b, mask, a[k], other[k]) for k in a}
    if isinstance(a, list):
        return [select(b, mask, x, y) for x, y in zip(a, other)]
    if not isinstance(a, fx.Node) and not isinstance(other, fx.Node):
        # torch.where of two Python floats would pick the default dtype (float32).
        a = b.graph.call_function(scalar_tensor, (a, b.dtype, mask))
    return b.graph.call_function(torch.where, (mask, a, other))


def scalar_tensor(value: Any, dtype: torch.dtype, like: Any) -> Any:
    """A Python number as a 0-d tensor of its BAML type (floats in the pack's dtype)."""
    device = like.device if isinstance(like, torch.Tensor) else None
    kind = torch.bool if type(value) is bool else torch.int64 if type(value) is int else dtype
    return torch.tensor(value, dtype=kind, device=device)


# -- assembling outputs ---------------------------------------------------------------------------
def assemble(parts: list[tuple[torch.Tensor, Any]], n: int, dtype: torch.dtype, device: torch.device,
             inverse: torch.Tensor | None) -> Any:
    """Put each part's rows back into sample order (`inverse`: from the parts' order to sample order)."""
    shapes = [skeleton(out) for _, out in parts]
    if all(s == shapes[0] for s in shapes) and shapes[0] is not None:
        return gather([(len(rows), out) for rows, out in parts], inverse, dtype, device)
    results: list[Any] = [None] * n
    for rows, out in parts:
        for k, r in enumerate(rows.tolist()):
            results[r] = row_of(out, k)
    return results


def gather(parts: list[tuple[int, Any]], inverse: torch.Tensor | None, dtype: torch.dtype,
           device: torch.device) -> Any:
    sample = parts[0][1]
    if isinstance(sample, dict):
        return {k: gather([(m, out[k]) for m, out in parts], inverse, dtype, device) for k in sample}
    if isinstance(sample, list):
        return [gather([(m, out[i]) for m, out in parts], inverse, dtype, device) for i in range(len(sample))]
    columns = [as_column(out, m, dtype, device) for m, out in parts]
    column = torch.cat(columns) if len(columns) > 1 else columns[0]
    return column if inverse is None else column.index_select(0, inverse)


def as_column(value: Any, n: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A part's output leaf as `n` rows (a constant or a 0-d host tensor is repeated)."""
    if not isinstance(value, torch.Tensor):
        value = scalar_tensor(value, dtype, None).to(device)
    return value.expand(n) if value.dim() == 0 else value


def row_of(out: Any, k: int) -> Any:
    if isinstance(out, dict):
        return {key: row_of(v, k) for key, v in out.items()}
    if isinstance(out, list):
        return [row_of(v, k) for v in out]
    if isinstance(out, torch.Tensor) and out.dim() > 0:
        return out[k]
    return out
