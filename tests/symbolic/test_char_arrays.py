"""String queries asked as arithmetic once every string's length is chosen (`ingot.symbolic.char_arrays`).

A date cut at "-" into parts of 4, 2 and 2 characters, each parsed as `int.parse` parses (its
sign included) and range-checked, is a query Z3's string solver leaves unknown at the search's
limits; with the lengths fixed first, each character is a number and the query is arithmetic.
The tests check that such queries are answered within a small resource limit, that every model
the lowering gives satisfies the query as `evaluate` (BAML's semantics) reads it, on random
queries over every string operator, and that an exploration reaches the edges behind them.
"""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

import ingot
from ingot.concolic.edges import edge_key
from ingot.concolic.explore import Explorer, Options
from ingot.stdlib.string_models import PREDICATES, _Parts
from ingot.symbolic import string_ops as so
from ingot.symbolic.expr import Expr, Interner, Op, Sort, evaluate
from ingot.symbolic.solver import Solver


def signed_parse(x: Interner, p: Expr) -> Expr:
    """`int.parse`'s value as the string models write it: "-12" is -(12), "+7" is 7."""
    digits = x.str_op(Op.SUBSTR, p, x.const(1), x.arith(Op.SUB, x.length(p), x.const(1)))
    unsigned = x.str_op(Op.TO_INT, digits)
    return x.ite(x.str_pred(Op.PREFIX, p, x.const("-")), x.neg(unsigned),
                 x.ite(x.str_pred(Op.PREFIX, p, x.const("+")), unsigned, x.str_op(Op.TO_INT, p)))


def leap_day(x: Interner) -> tuple[Expr, list[Expr]]:
    """A date "YYYY-MM-DD" cut at "-", its fields parsed: 29 February of a year past 2024."""
    date = x.var("date", Sort.STRING)
    parts = _Parts(SimpleNamespace(x=x), date, "-", 4)
    y, m, d = (signed_parse(x, parts.parts[j]) for j in range(3))
    widths = [x.eq(x.length(parts.parts[j]), x.const(w)) for j, w in enumerate((4, 2, 2))]
    return date, [parts.definition, parts.bounded, x.eq(parts.count, x.const(3)), *widths,
                  x.lt(x.const(2024), y), x.eq(m, x.const(2)), x.eq(d, x.const(29))]


def holds(query: list[Expr], model: dict[str, Any]) -> bool:
    memo: dict[int, Any] = {}
    return all(evaluate(c, model, memo) is True for c in query)


def test_a_parsed_date_is_answered_within_a_small_limit() -> None:
    x = Interner()
    date, query = leap_day(x)
    solver = Solver(rlimit=60_000, timeout_ms=0)
    result = solver.solve(query)
    assert result.status == "sat" and result.model is not None
    assert solver.stats.by_characters == 1
    text = result.model["date"]
    assert re.fullmatch(r"[+-]?\d+-[+]?0?2-[+]?29", text) and holds(query, result.model)


def test_z3_s_string_solver_alone_gives_up_on_it() -> None:
    # the reason for the lowering: the same query, asked of Z3's string solver directly
    x = Interner()
    _, query = leap_day(x)
    solver = Solver(rlimit=60_000, timeout_ms=0)
    solver.by_characters = lambda query, timeout: None  # type: ignore[method-assign]
    assert solver.solve(query).status == "unknown"


def test_an_unsat_query_is_never_answered_by_the_lowering() -> None:
    # the characters' question only finds models, and here lengths fit (a month both 2 and 3):
    # "unsat" can only come from Z3
    x = Interner()
    date, query = leap_day(x)
    parts = _Parts(SimpleNamespace(x=x), date, "-", 4)
    solver = Solver(timeout_ms=0)
    result = solver.solve([*query, x.eq(signed_parse(x, parts.parts[1]), x.const(3))])
    assert result.status != "sat" and solver.stats.by_characters == 0


def test_a_digit_int_parse_rejects_is_found_past_ascii_and_ascii_is_tried_first() -> None:
    # `is_numeric` holds of every script's digits, `int.parse` reads ASCII ones only: "digits
    # that do not parse" needs a character past ASCII, which the class names (U+0660 ...);
    # "digits that parse" is answered in ASCII.
    x = Interner()
    s = x.var("s", Sort.STRING)
    numeric = x.str_op(Op.IN_RE, s, value=so.star(PREDICATES["is_numeric"]))
    two = x.eq(x.length(s), x.const(2))
    for parses in (False, True):
        query = [numeric, two, x.lt(x.str_op(Op.TO_INT, s), x.const(0))]
        if parses:
            query[-1] = x.not_(query[-1])
        solver = Solver(rlimit=60_000, timeout_ms=0)
        result = solver.solve(query)
        assert result.status == "sat" and result.model is not None and solver.stats.by_characters == 1
        text = result.model["s"]
        assert text.isascii() == parses and all(c.isnumeric() for c in text) and holds(query, result.model)


# -- every operator: a model the lowering gives holds under BAML's own evaluation -------------

WORDS = st.text(alphabet="ab-1 ", max_size=5)


def facts(x: Interner, s: Expr, t: Expr, w: str, v: str, pick: list[int]) -> list[Expr]:
    """Predicates over two variables, each stated as it is on the strings `w` and `v`: a
    query with a model (w, v) the lowering must be able to find."""
    k = x.const
    candidates = [
        x.str_pred(Op.CONTAINS, s, k(v[:2])), x.str_pred(Op.PREFIX, s, k(v[:1])),
        x.str_pred(Op.SUFFIX, x.concat(s, t), k(w[-1:])), x.eq(x.length(x.concat(s, t)), k(len(w) + len(v))),
        x.lt(k(0), x.str_op(Op.TO_INT, t)), x.eq(x.str_op(Op.INDEX_OF, s, k("-"), k(0)), k(so.index_of(w, "-", 0))),
        x.eq(x.str_op(Op.LAST_INDEX_OF, s, k("a")), k(so.last_index_of(w, "a"))),
        x.str_op(Op.IN_RE, s, value=so.star(so.chars(("a", "b")))),
        x.str_op(Op.IN_RE, t, value=so.seq(so.opt(so.lit("-")), so.plus(so.chars(("0", "9"))))),
        x.eq(x.str_op(Op.SUBSTR, s, k(1), k(2)), k(so.substr(w, 1, 2))),
        x.eq(x.str_op(Op.TO_CODE, x.str_op(Op.SUBSTR, t, k(0), k(1))), k(so.to_code(v[:1]))),
        x.lt(s, t), x.eq(s, t), x.caseless(s, "upper"),
    ]
    env = {"s": w, "t": v}
    out = []
    for j in pick:
        c = candidates[j % len(candidates)]
        out.append(c if evaluate(c, env) is True else x.not_(c))
    return out


@settings(max_examples=60, deadline=None)
@given(WORDS, WORDS, st.lists(st.integers(0, 100), min_size=1, max_size=5))
def test_every_model_of_the_lowering_holds(w: str, v: str, pick: list[int]) -> None:
    x = Interner()
    s, t = x.var("s", Sort.STRING), x.var("t", Sort.STRING)
    query = [*facts(x, s, t, w, v, pick), x.eq(x.length(s), x.const(len(w))), x.eq(x.length(t), x.const(len(v)))]
    solver = Solver(timeout_ms=0)
    for c in query:
        solver.to_z3(c)  # (the variables' sorts)
    model = solver._char_arrays.solve(query, lambda: solver.fresh_z3(0, 0), lambda z: z.check(), 32)
    assert model is not None  # (w, v) is one, with the lengths the query fixes
    assert holds(query, model), model


# -- an exploration --------------------------------------------------------------------------

LEAP = """
function Field(text: string) -> int {
  int.parse(text) catch (e) { _ => -1 }
}

function Booking(date: string) -> string {
  let parts = date.trim().split("-");
  if (parts.length() != 3 || parts[0].length() != 4 || parts[1].length() != 2 || parts[2].length() != 2) {
    return "ask: date";
  }
  let y = Field(parts[0]);
  let m = Field(parts[1]);
  let d = Field(parts[2]);
  if (y < 2025 || m < 1 || m > 12 || d < 1 || d > 31) {
    return "ask: date";
  }
  if (m == 2 && d == 29 && y % 4 != 0) {
    return "no such day";
  }
  "booked"
}
"""


def test_an_exploration_reaches_the_day_that_does_not_exist() -> None:
    program = ingot.load_source(LEAP)
    report = Explorer(program.view, "Booking", Options(seed=0, timeout_s=60)).explore()
    assert report.covered == {edge_key(e) for e in report.edges}
    assert any(t.outcome.get("value") == "no such day" for t in report.tests)
