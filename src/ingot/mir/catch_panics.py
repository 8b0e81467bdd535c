"""What a `catch` handler can see: the panic tests and error-type tests its code decides.

A catch-all arm (`_ => ...`, `let e`) does not catch a panic: the lowering tests the caught
value first (`is_panic(e)`) and rethrows a panic. When nothing the catch protects can panic
(`int.parse(c) catch (e) { _ => -1 }`, a call of an LLM function), that test's true edge is
unreachable by construction, like the `otherwise` of an exhaustive match, so it is not a
branch edge: coverage could never reach it, and a search would go on looking for it.

Likewise an arm's test of the error's class, when the protected code can throw only errors of
known classes: `int.parse(s) catch (e) { baml.errors.ParseError => -1 }` tests
`is_type(e, baml.errors.ParseError)`, and `int.parse` throws nothing else, so the rethrow on
the test's false edge is unreachable (and an arm naming a class the code cannot throw is).

The analysis is conservative: a protected block may panic unless every statement is a plain
copy or a comparison into a local and its terminator is a jump, a branch, a return or a call
that cannot panic (an LLM function: its failures are thrown errors, never panics; a built-in
whose registry row says it never panics, `PANIC_FREE_BUILTINS`: `int.parse`, `s.trim()`,
`s.slice(a, b)`, `m.get(k)`, ...). The classes thrown are known only where
every call is one of those built-ins (`THROWN_BY_BUILTINS`): an LLM call, a user function or a
`throw` leaves them unknown, and then no error test is decided.
"""

from __future__ import annotations

from collections.abc import Set

from ingot.mir import ir
from ingot.semantics.types import ClassT
from ingot.stdlib import REGISTRY

# Built-ins that never panic (`BuiltinSpec.never_panics`: the string members that limit no size,
# the parsers, map lookups, lengths), under every spelling (`baml.Int.parse` too), and the class
# of the one error each throws, if any (the others throw nothing)
PANIC_FREE_BUILTINS = frozenset(key for key, spec in REGISTRY.items() if spec.never_panics)
THROWN_BY_BUILTINS = {key: spec.throws for key, spec in REGISTRY.items() if spec.throws is not None}
_COMPARISONS = frozenset({ir.BinOp.EQ, ir.BinOp.NE, ir.BinOp.LT, ir.BinOp.LE, ir.BinOp.GT, ir.BinOp.GE})


def dead_catch_edges(fn: ir.MirFunction, llm_functions: Set[str]) -> frozenset[tuple[int, int]]:
    """(block, target) of the handler tests no caught value can pass, for each region whose code
    cannot panic: every `is_panic` test's true edge, and each error-class test's edge the classes
    the region can throw rule out (the false edge when they are all that class, the true edge
    when none is)."""
    out: set[tuple[int, int]] = set()
    for region in fn.catch_regions:
        if any(_may_panic(fn.blocks[b], llm_functions) for b in region.blocks):
            continue
        thrown = _thrown(fn, region)  # (empty: nothing thrown, the handler never entered; None: unknown)
        for i, block in enumerate(fn.blocks):
            target = _panic_test(block, region.error_local)
            if target is not None:
                out.add((i, target))
            test = _class_test(block, region.error_local)
            if test is None or not thrown:
                continue
            name, branch = test
            if thrown == {name}:
                out.add((i, branch.else_bb))
            elif name not in thrown:
                out.add((i, branch.then_bb))
    return frozenset(out)


def _thrown(fn: ir.MirFunction, region: ir.CatchRegion) -> set[str] | None:
    """The classes of the errors the region's calls can throw; None when unknown."""
    out: set[str] = set()
    for b in region.blocks:
        t = fn.blocks[b].terminator
        if isinstance(t, ir.Call):
            c = t.callee
            if not isinstance(c, ir.BuiltinCallee) or c.key not in PANIC_FREE_BUILTINS:
                return None
            if c.key in THROWN_BY_BUILTINS:
                out.add(THROWN_BY_BUILTINS[c.key])
        elif isinstance(t, (ir.Throw, ir.Rethrow)):
            return None
    return out


def _branch_test(block: ir.BasicBlock) -> tuple[ir.Rvalue, ir.Branch] | None:
    """(the value tested, the branch) when the block ends in a branch on what its last
    statement computed."""
    t = block.terminator
    if not isinstance(t, ir.Branch) or not isinstance(t.cond, ir.Copy) or not block.statements:
        return None
    last = block.statements[-1]
    if not isinstance(last, ir.Assign) or not isinstance(last.place, ir.LocalPlace) \
            or last.place.local != t.cond.local:
        return None
    return last.value, t


def _class_test(block: ir.BasicBlock, error: int) -> tuple[str, ir.Branch] | None:
    """(the class, the branch) when the block ends in `branch is_type(error, Class)`."""
    test = _branch_test(block)
    if test is None:
        return None
    v, t = test
    if isinstance(v, ir.IsType) and isinstance(v.operand, ir.Copy) and v.operand.local == error \
            and isinstance(v.ty, ClassT):
        return v.ty.name, t
    return None


def _panic_test(block: ir.BasicBlock, error: int) -> int | None:
    """The true target of `branch is_panic(error)` ending this block, if it is one."""
    test = _branch_test(block)
    if test is None:
        return None
    v, t = test
    if isinstance(v, ir.UnaryOp) and v.op is ir.UnOp.IS_PANIC and isinstance(v.operand, ir.Copy) \
            and v.operand.local == error:
        return t.then_bb
    return None


def _may_panic(block: ir.BasicBlock, llm_functions: Set[str]) -> bool:
    for s in block.statements:
        if not isinstance(s, ir.Assign):
            continue  # storage markers
        if not isinstance(s.place, ir.LocalPlace):
            return True  # a field or an index written
        v = s.value
        if isinstance(v, ir.Use) and _plain(v.operand):
            continue
        if isinstance(v, ir.BinaryOp) and v.op in _COMPARISONS and _plain(v.left) and _plain(v.right):
            continue
        return True
    t = block.terminator
    if isinstance(t, (ir.Goto, ir.Branch, ir.Switch, ir.Return, ir.Unreachable)):
        return False
    if isinstance(t, ir.Call) and all(_plain(a) for a in t.args):
        c = t.callee
        return not (isinstance(c, ir.FnCallee) and c.name in llm_functions
                    or isinstance(c, ir.BuiltinCallee) and c.key in PANIC_FREE_BUILTINS)
    return True


def _plain(operand: object) -> bool:
    return isinstance(operand, (ir.Copy, ir.Const))
