"""Ranges of int expressions (`ingot.symbolic.intervals`): what they prove (a length minus one
is an int, a parsed number under a bound the path took times 3600 too) and what they do not (an
int input plus one), and that every value an expression takes lies in its range
(`tests/concolic/test_range_checks.py`: the checks the tracker drops with them)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ingot.runtime.values import INT_MAX, INT_MIN
from ingot.symbolic.expr import Expr, Interner, Op, Sort, evaluate
from ingot.symbolic.intervals import IntRanges


def in_range(r: IntRanges, e: Expr) -> bool:
    lo, hi = r.of(e)
    return INT_MIN <= lo and hi <= INT_MAX


def test_a_length_or_a_position_minus_a_small_number_cannot_overflow() -> None:
    x = Interner()
    s, part = x.var("s", Sort.STRING), x.var("p", Sort.STRING)
    r = IntRanges()
    assert in_range(r, x.arith(Op.SUB, x.length(s), x.const(1)))
    assert in_range(r, x.arith(Op.ADD, x.str_op(Op.INDEX_OF, s, part, x.const(0)), x.const(1)))
    assert in_range(r, x.neg(x.length(s)))
    assert r.of(x.length(s))[0] == 0


def test_an_int_input_plus_one_or_a_parsed_number_may_overflow() -> None:
    x = Interner()
    n, s = x.var("n", Sort.INT), x.var("s", Sort.STRING)
    r = IntRanges()
    assert not in_range(r, x.arith(Op.ADD, n, x.const(1)))
    assert not in_range(r, x.arith(Op.MUL, x.str_op(Op.TO_INT, s), x.const(3600)))
    assert not r.always(x.not_(x.eq(n, x.const(INT_MIN))))  # -n overflows for n == INT_MIN


def test_the_conditions_a_path_took_bound_what_follows() -> None:
    """`if (n < 0 || n > 100000) { return -1; }` and then `n * 3600`: no overflow on this path."""
    x = Interner()
    n = x.str_op(Op.TO_INT, x.var("digits", Sort.STRING))
    product = x.arith(Op.MUL, n, x.const(3600))
    r = IntRanges()
    r.learn(x.not_(x.lt(n, x.const(0))))
    assert not in_range(r, product)  # bounded below only
    r.learn(x.not_(x.lt(x.const(100000), n)))
    assert in_range(r, product)  # the range asked before is asked again with the new bound
    assert r.of(product) == (0, 360_000_000)
    assert r.of(x.arith(Op.ADD, product, x.length(x.var("s", Sort.STRING))))[0] == 0


def test_an_index_below_a_learned_count_is_proven_in_bounds() -> None:
    x = Interner()
    count = x.var("xs.$len", Sort.INT)
    r = IntRanges()
    in_bounds = x.and_(x.le(x.neg(count), x.const(1)), x.lt(x.const(1), count))
    assert not r.always(in_bounds)
    r.learn(x.lt(x.const(1), count))  # the loop went on: 1 < count
    assert r.always(in_bounds)


def test_a_comparison_of_two_unknowns_teaches_nothing() -> None:
    x = Interner()
    a, b = x.var("a", Sort.INT), x.var("b", Sort.INT)
    r = IntRanges()
    r.learn(x.lt(a, b))
    assert r.of(a) == (INT_MIN, INT_MAX) and r.of(b) == (INT_MIN, INT_MAX)


# -- soundness: every value an expression takes lies in its range ---------------------------

INTS = st.integers(INT_MIN, INT_MAX)
SMALL = st.integers(-5, 5)


@st.composite
def int_exprs(draw: Any, x: Interner, depth: int = 3) -> Expr:
    leaves = [x.var("a", Sort.INT), x.var("b", Sort.INT), x.length(x.var("s", Sort.STRING)),
              x.str_op(Op.INDEX_OF, x.var("s", Sort.STRING), x.const("a"), x.const(0)),
              x.str_op(Op.TO_INT, x.var("s", Sort.STRING)), x.const(draw(st.integers(-10**6, 10**6)))]
    if depth == 0 or draw(st.booleans()):
        return draw(st.sampled_from(leaves))
    op = draw(st.sampled_from([Op.ADD, Op.SUB, Op.MUL, Op.NEG, Op.ITE]))
    a, b = draw(int_exprs(x, depth - 1)), draw(int_exprs(x, depth - 1))
    if op is Op.NEG:
        return x.neg(a)
    if op is Op.ITE:
        return x.ite(x.lt(a, b), a, b)
    return x.arith(op, a, b)


@settings(max_examples=300, deadline=None)
@given(data=st.data(), a=INTS, b=SMALL, s=st.text(alphabet="a0123456789-", max_size=6),
       bound=st.integers(-10**7, 10**7))
def test_every_value_lies_in_its_range_before_and_after_a_condition_that_held(
        data: Any, a: int, b: int, s: str, bound: int) -> None:
    x = Interner()
    exprs = [data.draw(int_exprs(x)) for _ in range(4)]
    env = {"a": a, "b": b, "s": s}
    r = IntRanges()
    for e in exprs:
        lo, hi = r.of(e)
        assert lo <= evaluate(e, env) <= hi
    # a condition this assignment satisfies, as a path that took it would learn it
    e = exprs[0]
    cond = x.lt(e, x.const(bound)) if evaluate(e, env) < bound else x.not_(x.lt(e, x.const(bound)))
    r.learn(cond)
    for e in exprs + [x.arith(Op.MUL, exprs[0], x.const(3))]:
        lo, hi = r.of(e)
        assert lo <= evaluate(e, env) <= hi
