"""The range an int expression can take, to drop the checks a path cannot fail.

`s.length() - 1` is checked against overflow like any subtraction, and the explorer aims at
the check's failing side: a query over the string model that is always unsat, and slow (tens
of milliseconds each, once per loop iteration over `split` parts). So is `n * 3600` after
`if (n < 0 || n > 100000) { return -1; }`, and `parts[i]` inside `if (i < parts.length())`.
A check whose safe condition the ranges prove (`always`) cannot fail on the path and is not
recorded (`TrackerRuntime.check`).

A range holds for every value the solver may give the variables on a path with this run's
conditions so far, so dropping such a check never hides a reachable overflow:

- an int variable holds a BAML int (the solver's domain constraints);
- a string's length, and a position in it, is at most `STRING_LENGTH_MAX`: no string that
  long fits in memory;
- a condition the path has taken narrows its side's range (`learn`), for the rest of the run;
- anything else (`to_int` of a digit string, a quotient) is unbounded.
"""

from __future__ import annotations

import math

from ingot.symbolic.expr import INT_MAX, INT_MIN, Expr, Op, Sort

# No string a run builds is this long (2^48 characters: 256 TiB as Latin-1), so lengths and
# positions are below it. Far below INT_MAX: a length minus anything small stays in range.
STRING_LENGTH_MAX = 1 << 48
CODE_POINT_MAX = 0x10FFFF

Bound = int | float  # an int, or -inf / inf for no bound on that side
Range = tuple[Bound, Bound]  # inclusive
UNBOUNDED: Range = (-math.inf, math.inf)


class IntRanges:
    """Bounds of int expressions, remembered by node, for one run (what its path has learned included)."""

    def __init__(self) -> None:
        self._known: dict[int, Range] = {}  # computed ranges (learned bounds applied)
        self._learned: dict[int, Range] = {}  # bounds the path's conditions gave, by node
        # node -> the nodes whose known range was computed from its range (forgotten when it narrows)
        self._users: dict[int, list[int]] = {}

    def of(self, e: Expr) -> Range:
        known = self._known.get(e.id)
        if known is None:
            known = self._compute(e)
            learned = self._learned.get(e.id)
            if learned is not None:
                known = (max(known[0], learned[0]), min(known[1], learned[1]))
            self._known[e.id] = known
        return known

    def always(self, cond: Expr) -> bool:
        """Does `cond` hold whatever values its variables take on this path (ranges alone decide:
        `0 <= i and i < n` for `i` a loop's index below a learned `n`)?"""
        if cond.op is Op.AND:
            return all(self.always(part) for part in cond.args)
        if cond.op is Op.NOT and cond.args[0].op is Op.EQ:  # `-n` overflows only for n == INT_MIN
            a, b = cond.args[0].args
            return self._ordered(a, b, strict=True) or self._ordered(b, a, strict=True)
        order = _order(cond)
        return order is not None and self._ordered(*order)

    def _ordered(self, a: Expr, b: Expr, strict: bool) -> bool:
        if a.sort is not Sort.INT or b.sort is not Sort.INT:
            return False
        a_hi, b_lo = self.of(a)[1], self.of(b)[0]
        return a_hi < b_lo if strict else a_hi <= b_lo

    def fixes(self, e: Expr, value: int) -> bool:
        """Did the conditions learned on this path fix `e` to `value` (`parts.length() != 3`
        taken false)? Only what was learned of `e` itself is read: no range is computed."""
        return self._learned.get(e.id) == (value, value)

    def learn(self, cond: Expr) -> None:
        """Narrow the ranges by a condition that holds on this run's path from here on (`n <= 100000`
        after `if (n > 100000) { return -1; }`); the ranges computed from a narrowed node are
        computed again when next asked for. A comparison of two non-constants teaches nothing here."""
        if cond.op is Op.AND:
            for part in cond.args:
                self.learn(part)
        elif cond.op is Op.EQ and cond.args[0].sort is Sort.INT:
            self._below(cond.args[0], cond.args[1], strict=False)
            self._below(cond.args[1], cond.args[0], strict=False)
        elif (order := _order(cond)) is not None:
            self._below(*order)

    def _below(self, a: Expr, b: Expr, strict: bool) -> None:
        """Learn `a < b` (or `a <= b`) where one side is an int constant."""
        gap = 1 if strict else 0
        if b.is_const and type(b.value) is int and not a.is_const:
            self._narrow(a, -math.inf, b.value - gap)
        elif a.is_const and type(a.value) is int and not b.is_const:
            self._narrow(b, a.value + gap, math.inf)

    def _narrow(self, e: Expr, lo: Bound, hi: Bound) -> None:
        # Kept aside and applied when the range is asked for: most conditions a path takes are
        # never under a check, and computing their ranges here would cost every run.
        old = self._learned.get(e.id)
        self._learned[e.id] = (lo, hi) if old is None else (max(old[0], lo), min(old[1], hi))
        # The ranges computed from this node's are computed again when next asked for.
        stale = [e.id]
        while stale:
            node = stale.pop()
            self._known.pop(node, None)
            stale.extend(self._users.pop(node, ()))

    def _compute(self, e: Expr) -> Range:
        op = e.op
        if op in (Op.ITE, Op.NEG, Op.ADD, Op.SUB, Op.MUL):
            for a in e.args[1:] if op is Op.ITE else e.args:
                self._users.setdefault(a.id, []).append(e.id)
        if op is Op.CONST:
            return (e.value, e.value) if type(e.value) is int else UNBOUNDED
        if op is Op.VAR:
            return (INT_MIN, INT_MAX) if e.sort is Sort.INT else UNBOUNDED
        if op is Op.LENGTH:
            return (0, STRING_LENGTH_MAX)
        if op is Op.INDEX_OF or op is Op.LAST_INDEX_OF:
            return (-1, STRING_LENGTH_MAX)
        if op is Op.TO_CODE:
            return (-1, CODE_POINT_MAX)
        if op is Op.TO_INT:
            return (-1, math.inf)
        if op is Op.ITE:
            (a_lo, a_hi), (b_lo, b_hi) = self.of(e.args[1]), self.of(e.args[2])
            return (min(a_lo, b_lo), max(a_hi, b_hi))
        if op is Op.NEG:
            lo, hi = self.of(e.args[0])
            return (-hi, -lo)
        if op in (Op.ADD, Op.SUB, Op.MUL):
            return self._arith(op, self.of(e.args[0]), self.of(e.args[1]))
        return UNBOUNDED

    @staticmethod
    def _arith(op: Op, a: Range, b: Range) -> Range:
        if op is Op.ADD:
            return (a[0] + b[0], a[1] + b[1])
        if op is Op.SUB:
            return (a[0] - b[1], a[1] - b[0])
        corners = [p * q for p in a for q in b]
        if any(math.isnan(c) for c in corners):  # 0 * inf: a factor may be 0 and the other unbounded
            return UNBOUNDED
        return (min(corners), max(corners))


def _order(cond: Expr) -> tuple[Expr, Expr, bool] | None:
    """`cond` as (a, b, strict) for `a < b` (strict) or `a <= b`; None if it is no such comparison."""
    if cond.op in (Op.LT, Op.LE):
        return cond.args[0], cond.args[1], cond.op is Op.LT
    if cond.op is Op.NOT and cond.args[0].op in (Op.LT, Op.LE):
        later, earlier = cond.args[0].args  # not (x < y) is y <= x; not (x <= y) is y < x
        return earlier, later, cond.args[0].op is Op.LE
    return None
