"""Which `catch` handlers can never see a panic: their panic tests' rethrow edges are dead.

A catch-all arm (`_ => ...`, `let e`) does not catch a panic: the lowering tests the caught
value first (`is_panic(e)`) and rethrows a panic. When nothing the catch protects can panic
(`int.parse(c) catch (e) { _ => -1 }`, a call of an LLM function), that test's true edge is
unreachable by construction, like the `otherwise` of an exhaustive match, so it is not a
branch edge: coverage could never reach it, and a search would go on looking for it.

The analysis is conservative: a protected block may panic unless every statement is a plain
copy or a comparison into a local and its terminator is a jump, a branch, a return or a call
that cannot panic (an LLM function: its failures are thrown errors, never panics; one of the
parsing and lookup built-ins in `PANIC_FREE_BUILTINS`).
"""

from __future__ import annotations

from collections.abc import Set

from ingot.mir import ir

# Built-ins that report bad input by a thrown error (`ParseError`) or a null, never by a panic.
PANIC_FREE_BUILTINS = frozenset({"int.parse", "float.parse", "map.get", "map.has"})
_COMPARISONS = frozenset({ir.BinOp.EQ, ir.BinOp.NE, ir.BinOp.LT, ir.BinOp.LE, ir.BinOp.GT, ir.BinOp.GE})


def dead_panic_tests(fn: ir.MirFunction, llm_functions: Set[str]) -> frozenset[tuple[int, int]]:
    """(block, target) of each `is_panic` test's true edge in a handler whose region cannot panic."""
    out: set[tuple[int, int]] = set()
    for region in fn.catch_regions:
        if any(_may_panic(fn.blocks[b], llm_functions) for b in region.blocks):
            continue
        for i, block in enumerate(fn.blocks):
            target = _panic_test(block, region.error_local)
            if target is not None:
                out.add((i, target))
    return frozenset(out)


def _panic_test(block: ir.BasicBlock, error: int) -> int | None:
    """The true target of `branch is_panic(error)` ending this block, if it is one."""
    t = block.terminator
    if not isinstance(t, ir.Branch) or not isinstance(t.cond, ir.Copy) or not block.statements:
        return None
    last = block.statements[-1]
    if not isinstance(last, ir.Assign) or not isinstance(last.place, ir.LocalPlace) \
            or last.place.local != t.cond.local:
        return None
    v = last.value
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
