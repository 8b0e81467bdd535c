"""`pack_batch`: many samples, one graph evaluation per path.

Samples are grouped first by layout (what a pack fixes: strings, enum
values, nulls, lengths), then by path: the first sample not yet placed is
packed, its guard is evaluated on all the others of its layout at once, and
those it holds for join its group. Each group's inputs are stacked into
tensors and its GraphModule runs once on them.

With `merge=True`, the groups of one layout whose outputs have the same
shape (same fields, same lengths, numeric leaves) become one graph: each
path's guard gives a mask, each path computes on *safe* inputs (its own
sample's values on the rows it does not own, so no NaN or inf from a path a
row did not take reaches the chain rule: `0 * nan` would be `nan`), and
nested `torch.where` selects per row.

Outputs come back in sample order: a tensor when they are scalars, a dict
of tensors for class instances (one tensor per field), a list for arrays
when all samples agree on the lengths; otherwise one output per sample.
Guards may depend on host results (learnable tensors): `BatchPlan.evaluate`
re-checks every group's guard and re-plans when a row left its path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
import torch.fx as fx

from ingot.pack.lower import emit_tree
from ingot.pack.residual import Pack, pack, sample_layout, stack_inputs
from ingot.pack.trace import Layout
from ingot.symbolic.expr import Expr

if TYPE_CHECKING:
    from ingot.api import Program

__all__ = ["BatchPlan", "Group", "pack_batch"]


@dataclass
class Group:
    """Samples (indices into the batch) that take the path of `pack`."""

    pack: Pack
    rows: list[int]
    graph: fx.GraphModule


@dataclass
class Merged:
    """Groups of one layout evaluated by one masked graph."""

    groups: list[Group]
    rows: list[int]
    graph: fx.GraphModule


class BatchPlan:
    """Groups, graphs and stacked inputs for one batch of samples; evaluate as often as needed."""

    def __init__(self, program: Program, function: str, samples: Sequence[Mapping[str, Any]], *,
                 merge: bool = False, dtype: torch.dtype | None = None) -> None:
        self.program, self.function, self.merge = program, function, merge
        self.dtype = dtype or torch.get_default_dtype()
        self.samples = list(samples)
        self.layouts: dict[Layout, list[int]] = {}
        self.numbers: list[dict[str, Any]] = []
        for i, s in enumerate(self.samples):
            layout, numbers = sample_layout(program, function, s)
            self.layouts.setdefault(layout, []).append(i)
            self.numbers.append(numbers)
        self.inputs: dict[Layout, list[torch.Tensor]] = {
            layout: stack_inputs(layout, [self.numbers[i] for i in rows], self.dtype)
            for layout, rows in self.layouts.items()}
        self.plan()

    # -- grouping ----------------------------------------------------------------------------
    def plan(self) -> None:
        self.groups: list[Group] = []
        self.merged: list[Merged] = []
        for layout, rows in self.layouts.items():
            groups, exact = self.group_layout(layout, rows)
            if self.merge and len(groups) > 1 and exact and mergeable([g.pack for g in groups]):
                self.merged.append(Merged(groups, rows, merged_graph([g.pack for g in groups])))
            else:
                self.groups.extend(groups)

    def group_layout(self, layout: Layout, rows: list[int]) -> tuple[list[Group], bool]:
        """Split one layout's rows by path; `exact` is False when a sample failed its own guard."""
        columns = self.inputs[layout]
        position = {row: k for k, row in enumerate(rows)}
        pending = list(rows)
        groups, exact = [], True
        while pending:
            first = pending[0]
            try:
                p = pack(self.program, self.function, self.samples[first], dtype=self.dtype)
            except Exception as e:
                e.add_note(f"while packing sample {first} of {len(self.samples)}")
                raise
            mask = guard_mask(p, [c[[position[r] for r in pending]] for c in columns], len(pending))
            exact = exact and bool(mask[0])
            mask[0] = True  # float rounding aside, a sample takes its own path
            members = [r for r, m in zip(pending, mask.tolist()) if m]
            pending = [r for r, m in zip(pending, mask.tolist()) if not m]
            groups.append(Group(p, members, p.to_fx()))
        return groups, exact

    @property
    def paths(self) -> int:
        return len(self.groups) + sum(len(m.groups) for m in self.merged)

    # -- evaluation ----------------------------------------------------------------------------
    def evaluate(self) -> Any:
        """The outputs for every sample, in sample order (re-planning if a guard no longer holds)."""
        if not self.guards_hold():
            self.plan()
        parts: list[tuple[list[int], Any]] = []
        for g in self.groups:
            parts.append((g.rows, g.graph(*self.rows_inputs(g.pack.layout, g.rows))))
        for m in self.merged:
            parts.append((m.rows, m.graph(*self.rows_inputs(m.groups[0].pack.layout, m.rows))))
        return assemble(parts, len(self.samples))

    def rows_inputs(self, layout: Layout, rows: list[int]) -> list[torch.Tensor]:
        all_rows = self.layouts[layout]
        if rows == all_rows:
            return self.inputs[layout]
        position = {row: k for k, row in enumerate(all_rows)}
        index = torch.tensor([position[r] for r in rows], dtype=torch.long)
        return [c[index] for c in self.inputs[layout]]

    def guards_hold(self) -> bool:
        """Whether every row still takes its group's path (guards over host tensors can change)."""
        if not any(_depends_on_hosts(g.pack) for g in self.all_groups()):
            return True
        with torch.no_grad():
            return all(bool(guard_mask(g.pack, self.rows_inputs(g.pack.layout, g.rows), len(g.rows)).all())
                       for g in self.all_groups())

    def all_groups(self) -> list[Group]:
        return self.groups + [g for m in self.merged for g in m.groups]


def pack_batch(program: Program, function: str, samples: Sequence[Mapping[str, Any]], *,
               merge: bool = False, dtype: torch.dtype | None = None) -> Any:
    """Evaluate `function` on every sample through packed graphs; outputs in sample order."""
    return BatchPlan(program, function, samples, merge=merge, dtype=dtype).evaluate()


def guard_mask(p: Pack, columns: list[torch.Tensor], n: int) -> torch.Tensor:
    """The pack's guard on stacked inputs, as a bool tensor of `n` rows."""
    return torch.as_tensor(p.guard_fx()(*columns)).expand(n).clone()


def _depends_on_hosts(p: Pack) -> bool:
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
    """One graph for several paths of one layout: guards as masks, safe inputs, `torch.where`."""
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
    return base.module(result, f"{packs[0].function}Merged")


def select(b: Any, mask: Any, a: Any, other: Any) -> Any:
    if isinstance(a, dict):
        return {k: select(b, mask, a[k], other[k]) for k in a}
    if isinstance(a, list):
        return [select(b, mask, x, y) for x, y in zip(a, other)]
    return b.graph.call_function(torch.where, (mask, a, other))


# -- assembling outputs ---------------------------------------------------------------------------
def assemble(parts: list[tuple[list[int], Any]], n: int) -> Any:
    """Scatter each part's rows back into sample order."""
    if not parts:
        return []
    shapes = [skeleton(out) for _, out in parts]
    if all(s == shapes[0] for s in shapes) and shapes[0] is not None:
        order = torch.tensor([r for rows, _ in parts for r in rows], dtype=torch.long)
        inverse = torch.empty_like(order)
        inverse[order] = torch.arange(n)
        return gather(parts, inverse, lambda out: out)
    results: list[Any] = [None] * n
    for rows, out in parts:
        for k, r in enumerate(rows):
            results[r] = row_of(out, k)
    return results


def gather(parts: list[tuple[list[int], Any]], inverse: torch.Tensor, pick: Any) -> Any:
    sample = pick(parts[0][1])
    if isinstance(sample, dict):
        return {k: gather(parts, inverse, lambda out, k=k: pick(out)[k]) for k in sample}
    if isinstance(sample, list):
        return [gather(parts, inverse, lambda out, i=i: pick(out)[i]) for i in range(len(sample))]
    columns = [torch.as_tensor(pick(out)).expand(len(rows)) for rows, out in parts]
    return torch.cat(columns)[inverse]


def row_of(out: Any, k: int) -> Any:
    if isinstance(out, dict):
        return {key: row_of(v, k) for key, v in out.items()}
    if isinstance(out, list):
        return [row_of(v, k) for v in out]
    if isinstance(out, torch.Tensor) and out.dim() > 0:
        return out[k]
    return out
