"""Branches the program's constants and types decide: their other edge is dead by construction.

`true || x` lowers to `branch const true`, and a `match` on a value whose static type is the
class its patterns name tests that type first (`is_type(s, Shape)` on `s: Shape`, `[]` on an
`int[]` tests `is_type(xs, unknown[])`). No input can take the other edge, just as none takes
the `otherwise` of an exhaustive match, so it is not a branch edge; nor is any edge out of a
block that only such edges lead to. Coverage could never reach them, and a search would go on
looking for them to its budget.

A test is decided only where the answer follows from the type of the local tested, which every
value it holds has (the compiler checks assignments, and inputs, replies and arguments are
validated against the declared types): a class or enum tested against itself, an array or a
map tested against any array or map. Unions, optionals and aliases are never decided here.
"""

from __future__ import annotations

from ingot.mir import ir
from ingot.mir.cleanup import reachable, successors
from ingot.semantics.types import ClassT, EnumT, ListT, MapT, Special, Ty

Edge = tuple[int, int]  # (block, target block)


def static_dead_edges(fn: ir.MirFunction, known: frozenset[Edge] = frozenset()) -> frozenset[Edge]:
    """(block, target) of every branch edge no input can take: those `known` already (a catch's
    tests, `ingot.mir.catch_panics`), the other side of a decided branch, and every edge out of
    a block only such edges reach."""
    dead: set[Edge] = set(known)
    for i, block in enumerate(fn.blocks):
        t = block.terminator
        if isinstance(t, ir.Branch):
            answer = _decided(fn, block, t.cond)
            if answer is not None and t.then_bb != t.else_bb:
                dead.add((i, t.else_bb if answer else t.then_bb))
    if not dead:
        return frozenset()
    live = set(reachable(fn, cut=dead))  # a catch's handler counts when a protected block is live
    for i, block in enumerate(fn.blocks):
        if i not in live:
            dead.update((i, target) for target in successors(block.terminator))
    return frozenset(dead)


def _decided(fn: ir.MirFunction, block: ir.BasicBlock, cond: ir.Operand) -> bool | None:
    """The condition's value on every run, when the constant or the types decide it."""
    if isinstance(cond, ir.Const):
        return cond.value if isinstance(cond.value, bool) else None
    if not isinstance(cond, ir.Copy):
        return None
    test = _last_assignment(block, cond.local)
    if test is None:
        return None
    if isinstance(test, ir.Use) and isinstance(test.operand, ir.Const) and isinstance(test.operand.value, bool):
        return bool(test.operand.value)
    if isinstance(test, ir.IsType) and isinstance(test.operand, ir.Copy) \
            and not _assigned_after(block, test, test.operand.local) \
            and _always_has_type(fn.locals[test.operand.local].ty, test.ty):
        return True
    return None


def _last_assignment(block: ir.BasicBlock, local: int) -> ir.Rvalue | None:
    """What the block last assigns to `local`, if it assigns it at all."""
    for s in reversed(block.statements):
        if isinstance(s, ir.Assign) and isinstance(s.place, ir.LocalPlace) and s.place.local == local:
            return s.value
    return None


def _assigned_after(block: ir.BasicBlock, value: ir.Rvalue, local: int) -> bool:
    """Is `local` assigned after the statement computing `value`? (Then the test read an older value.)"""
    after = False
    for s in block.statements:
        if isinstance(s, ir.Assign) and s.value is value:
            after = True
        elif after and isinstance(s, ir.Assign) and isinstance(s.place, ir.LocalPlace) and s.place.local == local:
            return True
    return False


def _always_has_type(static: Ty, tested: Ty) -> bool:
    """Does every value of type `static` pass the test for `tested`?"""
    if isinstance(static, (ClassT, EnumT)):
        return static == tested
    if isinstance(static, ListT):
        return isinstance(tested, ListT) and _any(tested.elem)
    if isinstance(static, MapT):
        return isinstance(tested, MapT) and _any(tested.key) and _any(tested.value)
    return False


def _any(ty: Ty) -> bool:
    return isinstance(ty, Special) and ty.name == "any"
