"""MIR cleanup after lowering: drop unreachable blocks and renumber, then validate.

Lowering leaves dead blocks behind `return`, `break` and `throw`; removing
them keeps the branch-edge set (the unit of coverage) free of edges no input
can take.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import replace

from ingot.mir import ir


def successors(t: ir.Terminator | None) -> list[ir.BlockId]:
    if isinstance(t, ir.Goto):
        return [t.target]
    if isinstance(t, ir.Branch):
        return [t.then_bb, t.else_bb]
    if isinstance(t, ir.Switch):
        return [b for _, b in t.arms] + [t.otherwise]
    if isinstance(t, ir.Call):
        return [t.target]
    return []


def reachable(fn: ir.MirFunction, cut: Set[tuple[ir.BlockId, ir.BlockId]] = frozenset()) -> list[ir.BlockId]:
    """Blocks reachable from the entry or from a reachable catch handler, in discovery order,
    never through an edge (block, target) in `cut`."""
    seen: list[ir.BlockId] = []
    marked: set[ir.BlockId] = set()
    work = [0]
    while True:
        while work:
            b = work.pop()
            if b in marked:
                continue
            marked.add(b)
            seen.append(b)
            work.extend(reversed([t for t in successors(fn.blocks[b].terminator) if (b, t) not in cut]))
        handlers = [r.handler for r in fn.catch_regions if r.blocks & marked and r.handler not in marked]
        if not handlers:
            break
        work.extend(handlers)
    return seen


def remove_unreachable(fn: ir.MirFunction) -> None:
    order = sorted(reachable(fn))
    remap = {old: new for new, old in enumerate(order)}

    def fix(t: ir.Terminator | None) -> ir.Terminator | None:
        if isinstance(t, ir.Goto):
            return replace(t, target=remap[t.target])
        if isinstance(t, ir.Branch):
            return replace(t, then_bb=remap[t.then_bb], else_bb=remap[t.else_bb])
        if isinstance(t, ir.Switch):
            return replace(t, arms=tuple((k, remap[b]) for k, b in t.arms), otherwise=remap[t.otherwise])
        if isinstance(t, ir.Call):
            return replace(t, target=remap[t.target])
        return t

    blocks = []
    for old in order:
        block = fn.blocks[old]
        blocks.append(ir.BasicBlock(block.statements, fix(block.terminator)))
    regions = []
    for r in fn.catch_regions:
        kept = frozenset(remap[b] for b in r.blocks if b in remap)
        if kept and r.handler in remap:
            regions.append(ir.CatchRegion(kept, remap[r.handler], r.error_local))
    fn.blocks = blocks
    fn.catch_regions = regions


class InvalidMir(AssertionError):
    pass


def validate(fn: ir.MirFunction) -> None:
    """Structural invariants every pass must keep (run after lowering and cleanup)."""
    n = len(fn.blocks)
    for i, block in enumerate(fn.blocks):
        if block.terminator is None:
            raise InvalidMir(f"{fn.name}: bb{i} has no terminator")
        for s in successors(block.terminator):
            if not 0 <= s < n:
                raise InvalidMir(f"{fn.name}: bb{i} jumps to missing bb{s}")
    for r in fn.catch_regions:
        if not 0 <= r.handler < n or any(not 0 <= b < n for b in r.blocks):
            raise InvalidMir(f"{fn.name}: catch region refers to a missing block")
    if fn.arity + 1 > len(fn.locals):
        raise InvalidMir(f"{fn.name}: fewer locals than parameters")


def cleanup_program(prog: ir.MirProgram) -> None:
    for fn in prog.functions.values():
        remove_unreachable(fn)
        validate(fn)
