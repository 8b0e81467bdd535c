"""The compiled tier's int ranges: what a dominating branch or an earlier operation proves about an int.

An interval `(lo, hi)` per int local at each block start (a must-analysis over the blocks),
(`range_exits`: a transfer function for `stack_walk.walk_block`), and the arithmetic the
code generator applies to its operands inside a block. Sources of
facts: int constants, `+ - * / %` of known ranges (an overflow panics, so a result is always
in range), lengths (never negative, below the maximum: nothing in memory has 2^62 items),
the edges of a branch on `a < b` / `a <= b` / `a > b` / `a >= b` / `a == b` / `a != b`
between ints (`not (n < 2)` gives `n >= 2` on its way), and an array index that did not
panic (it is in `[-len, len)`). A branch on a copy (`t = k`, neither stored since, even
across blocks) bounds both. A store into a local replaces its interval; facts meet by the
hull of the intervals, widened at a loop's header after a few rounds (a moving bound jumps to
the next of a few steps towards the int bound) so that loops settle; the entry
and handler targets start with nothing known. The code generator drops an overflow test
where the operands' ranges rule it out, and a sign test where the operand is never negative.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ingot.bex.compiled.stack_walk import Transfer
from ingot.bex.opcodes import ENDS_BLOCK, Op
from ingot.runtime.values import INT_MAX, INT_MIN

if TYPE_CHECKING:
    from ingot.bex.program import BexFunction

Interval = tuple[int, int]
FULL: Interval = (INT_MIN, INT_MAX)
LENGTH: Interval = (0, INT_MAX - 1)  # a length, or an index that did not panic (less one bound)
_WIDEN_AFTER = 3  # changes of a loop header's facts before its intervals widen to the int bounds
# where a widened bound stops (nearest first): near the int bounds, `+ 1` / `- 1` stays exact
_HIGH_STEPS = (-1, 0, INT_MAX - 2, INT_MAX - 1, INT_MAX)
_LOW_STEPS = (INT_MIN, INT_MIN + 1, INT_MIN + 2, -1, 0, 1)
_NEGATED = {Op.LT: Op.GE, Op.LE: Op.GT, Op.GT: Op.LE, Op.GE: Op.LT, Op.EQ: Op.NE, Op.NE: Op.EQ}
COMPARISONS = frozenset(_NEGATED)


def clip(lo: int, hi: int) -> Interval:
    """The part of `[lo, hi]` an int can be (FULL when none: code that always panics before)."""
    lo, hi = max(lo, INT_MIN), min(hi, INT_MAX)
    return (lo, hi) if lo <= hi else FULL


def arith(op: Op, a: Interval, b: Interval) -> Interval:
    """The exact range of `a op b` for `+ - *` (may leave the int range: then a test is needed)."""
    if op == Op.ADD:
        return (a[0] + b[0], a[1] + b[1])
    if op == Op.SUB:
        return (a[0] - b[1], a[1] - b[0])
    products = [x * y for x in a for y in b]
    return (min(products), max(products))


def fits(r: Interval) -> bool:
    return INT_MIN <= r[0] and r[1] <= INT_MAX


def quotient(op: Op, a: Interval, b: Interval) -> Interval:
    """The range of BAML's `a / b` or `a % b` (truncating), when the divisor is positive."""
    if b[0] <= 0:
        return FULL
    if op == Op.MOD:
        m = b[1] - 1
        return (max(-m, min(a[0], 0)), min(m, max(a[1], 0)))
    if a[0] >= 0:
        return (a[0] // b[1], a[1] // b[0])
    return FULL


def refine(op: Op, a: Interval, b: Interval, holds: bool) -> tuple[Interval, Interval]:
    """The ranges of two ints after `a op b` was found to hold (or not)."""
    if not holds:
        op = _NEGATED[op]
    (alo, ahi), (blo, bhi) = a, b
    if op == Op.LT:
        ahi, blo = min(ahi, bhi - 1), max(blo, alo + 1)
    elif op == Op.LE:
        ahi, blo = min(ahi, bhi), max(blo, alo)
    elif op == Op.GT:
        alo, bhi = max(alo, blo + 1), min(bhi, ahi - 1)
    elif op == Op.GE:
        alo, bhi = max(alo, blo), min(bhi, ahi)
    elif op == Op.EQ:
        alo = blo = max(alo, blo)
        ahi = bhi = min(ahi, bhi)
    if alo > ahi or blo > bhi:
        return a, b  # (an edge never taken: nothing to learn)
    return (alo, ahi), (blo, bhi)


def _interval(v: Any) -> Interval | None:
    if v is None or v[0] not in ("slot", "iv"):
        return None
    return v[-1]  # type: ignore[no-any-return]


class IntRanges:
    """Per block start, the intervals of int locals (a mixin of the translator: it reads `fn`,
    `code`, `block_end`, `lists` and `walk`)."""

    fn: BexFunction
    code: list[tuple[Op, Any]]
    block_end: dict[int, int]
    lists: set[int]

    def walk(self, b: int, stack: list[Any], transfer: Transfer) -> list[Any]:
        raise NotImplementedError

    def int_ranges(self, kinds: dict[int, str]) -> dict[int, dict[int, Interval]]:
        """Per reachable block start: int local -> its interval there (absent: nothing known)."""
        entry = [0, *(h.target for h in self.fn.handlers)]
        # per block: the intervals, and the copies (`t = k`, neither changed since) that hold there
        facts: dict[int, tuple[dict[int, Interval], dict[int, int]]] = {b: ({}, {}) for b in entry}
        changes: dict[int, int] = {}
        work = list(entry)
        while work:
            b = work.pop()
            for target, out, copies in self.range_exits(b, *facts[b], kinds):
                # (every cycle has a backward edge: widening at their targets lets loops settle)
                widen = target <= b and changes.get(target, 0) >= _WIDEN_AFTER
                old = facts.get(target)
                if old is None:
                    new = (out, copies)
                elif target in entry:
                    new = ({}, {})
                else:
                    new = (_meet(old[0], out, widen),
                           {t: k for t, k in old[1].items() if copies.get(t) == k})
                if new != old:
                    facts[target] = new
                    changes[target] = changes.get(target, 0) + 1
                    work.append(target)
        return {b: f[0] for b, f in facts.items()}

    def range_exits(self, b: int, start: dict[int, Interval], start_copies: dict[int, int],
                    kinds: dict[int, str]) -> list[tuple[int, dict[int, Interval], dict[int, int]]]:
        """The intervals (and copies) block `b` passes along each of its edges."""
        code, fn = self.code, self.fn
        live = dict(start)
        # ("slot", locals, iv): an int local's value (with the locals holding a copy of it),
        # ("iv", iv): another int, ("cmp", op, x, y): a comparison, ("list", k), None: other values
        temps: dict[int, Any] = {}  # a test stored into a temporary, then loaded for the branch
        copies = dict(start_copies)  # `t = k` with neither changed since: a test of t is one of k
        out: list[tuple[int, dict[int, Interval], dict[int, int]]] = []
        end = self.block_end[b]

        def step(pc: int, op: Op, arg: Any, args: list[Any], stack: list[Any]) -> Any:
            nonlocal temps, copies
            value: Any = None
            if op == Op.LOAD_LOCAL:
                if arg in temps:
                    value = temps[arg]
                elif kinds.get(arg) == "int":
                    value = ("slot", (arg, copies[arg]) if arg in copies else (arg,), live.get(arg, FULL))
                elif arg in self.lists:
                    value = ("list", arg)
            elif op == Op.LOAD_CONST:
                c = fn.consts[arg]
                value = ("iv", (c, c)) if type(c) is int else None
            elif op in (Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.MOD):
                x, y = _interval(args[0]), _interval(args[1])
                if x is not None and y is not None:
                    r = clip(*arith(op, x, y)) if op in (Op.ADD, Op.SUB, Op.MUL) else quotient(op, x, y)
                    value = ("iv", r)
            elif op == Op.LEN:
                value = ("iv", LENGTH)
            elif op in COMPARISONS:
                if _interval(args[0]) is not None and _interval(args[1]) is not None:
                    value = ("cmp", op, args[0], args[1])
            elif op in (Op.READ_INDEX, Op.WRITE_INDEX):
                base, index = args[0], args[1]
                if index is not None and index[0] == "slot" and base is not None and base[0] == "list":
                    for k in index[1]:  # (it did not panic: the index is in [-len, len))
                        live[k] = _within(live.get(k, FULL), (INT_MIN + 1, INT_MAX - 1))
            elif op == Op.STORE_LOCAL:
                iv = _interval(args[0])
                if iv is not None and iv != FULL and kinds.get(arg) == "int":
                    live[arg] = iv
                else:
                    live.pop(arg, None)
                stack[:] = [_forget(v, arg) for v in stack]
                temps = {t: _forget(v, arg) for t, v in temps.items() if t != arg}
                copies = {t: k for t, k in copies.items() if arg not in (t, k)}
                if args[0] is not None and args[0][0] == "cmp":
                    temps[arg] = args[0]
                elif args[0] is not None and args[0][0] == "slot" and kinds.get(arg) == "int":
                    copies[arg] = args[0][1][0]
            elif op == Op.JUMP:
                out.append((arg, dict(live), copies))
            elif op == Op.POP_JUMP_IF_FALSE:
                out.append((arg, self.branch_ranges(live, args[0], False), copies))
                out.append((pc + 1, self.branch_ranges(live, args[0], True), copies))  # (falling through: the test held)
            elif op == Op.SWITCH:
                table, otherwise = fn.switch_tables[arg]
                out.extend((t, dict(live), copies) for t in [*table.values(), otherwise])
            return value

        self.walk(b, [], step)
        last = code[end - 1][0]
        if last not in ENDS_BLOCK and last != Op.POP_JUMP_IF_FALSE and end < len(code):
            out.append((end, dict(live), copies))
        return out

    @staticmethod
    def branch_ranges(live: dict[int, Interval], test: Any, holds: bool) -> dict[int, Interval]:
        """The intervals along one edge of a branch on `test`."""
        out = dict(live)
        if test is not None and test[0] == "cmp":
            _, op, x, y = test
            rx, ry = refine(op, x[-1], y[-1], holds)
            for v, r in ((x, rx), (y, ry)):
                if v[0] == "slot":
                    for k in v[1]:
                        out[k] = _within(out.get(k, FULL), r)
        return out


def _within(a: Interval, b: Interval) -> Interval:
    return (max(a[0], b[0]), min(a[1], b[1]))


def _forget(v: Any, slot: int) -> Any:
    """An abstract value after a store into `slot`: loads of it no longer name the local."""
    if v is None:
        return None
    if v[0] == "slot" and slot in v[1]:
        rest = tuple(k for k in v[1] if k != slot)
        return ("slot", rest, v[2]) if rest else ("iv", v[2])
    if v[0] == "cmp":
        return ("cmp", v[1], _forget(v[2], slot), _forget(v[3], slot))
    return v


def _meet(old: dict[int, Interval], new: dict[int, Interval], widen: bool) -> dict[int, Interval]:
    """What holds on both ways in: the hull of both intervals (widened: a bound that moves goes
    on to the next of a few steps towards the int bound, so that a loop's facts settle)."""
    out: dict[int, Interval] = {}
    for k in old.keys() & new.keys():
        (a, b), (c, d) = old[k], new[k]
        lo, hi = min(a, c), max(b, d)
        if widen:
            lo = max(t for t in _LOW_STEPS if t <= lo) if lo < a else lo
            hi = min(t for t in _HIGH_STEPS if t >= hi) if hi > b else hi
        if (lo, hi) != FULL:
            out[k] = (lo, hi)
    return out
