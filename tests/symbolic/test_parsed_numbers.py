"""Where Z3's string solver gives up on a query that parses numbers out of text, the nearby walk
first solves the arithmetic with the text held at the run's value and writes the numbers in
(`ingot.symbolic.parsed_numbers`, `nearby.Query.numbers_written`): a window "3:3" past a day is
"24:1" in one step, where random moves of the digits take hundreds."""

from __future__ import annotations

import random
from types import SimpleNamespace

from ingot.stdlib.string_models import _Parts
from ingot.symbolic import nearby, parsed_numbers
from ingot.symbolic.expr import Expr, Interner, Op, Sort
from ingot.symbolic.solver import Solver

TOKENS = nearby.Tokens(strings=["-"], separators=[":"], ints=[24, 59, 60])


def capped() -> Solver:
    """A solver whose Z3 gives up on any string query: only the nearby walk can answer."""
    s = Solver(timeout_ms=600_000, rlimit=2_000)
    s.nearby_tokens = TOKENS
    return s


def solved(entries: list[Expr], env: dict) -> dict | None:
    """The walk's number step, with a solver of its own."""
    return parsed_numbers.solve(capped(), entries, env)


def clock_past_a_day(x: Interner) -> list[Expr]:
    """"H:M" cut at ":", both fields parsed, an hour of at most 24 and minutes of at most 59,
    and more minutes than a day has."""
    text = x.var("t", Sort.STRING)
    parts = _Parts(SimpleNamespace(x=x), text, ":", 4)
    h, m = (x.str_op(Op.TO_INT, parts.parts[j]) for j in (0, 1))
    return [parts.definition, parts.bounded, x.eq(parts.count, x.const(2)),
            x.le(x.const(0), h), x.le(h, x.const(24)), x.le(x.const(0), m), x.le(m, x.const(59)),
            x.lt(x.const(1440), x.arith(Op.ADD, x.arith(Op.MUL, h, x.const(60)), m))]


def signed_parse(x: Interner, p: Expr) -> Expr:
    """`int.parse`'s sign, as the string models write it: "-12" is -(12)."""
    digits = x.str_op(Op.SUBSTR, p, x.const(1), x.arith(Op.SUB, x.length(p), x.const(1)))
    return x.ite(x.str_pred(Op.PREFIX, p, x.const("-")), x.neg(x.str_op(Op.TO_INT, digits)), x.str_op(Op.TO_INT, p))


def test_the_numbers_are_solved_and_written_where_their_fields_were_read() -> None:
    x = Interner()
    query = clock_past_a_day(x)
    model, spent = nearby.search(query, {"t": "3:3"}, TOKENS, random.Random(0), 2, 32,
                                 solve_numbers=solved)
    assert model is not None and spent == 2  # the run's own text, then the numbers written in
    hour, minute = model["t"].split(":")
    assert int(hour) == 24 and 0 < int(minute) <= 59
    assert nearby.Query.of(query).score(dict(model))[0] == len(query)  # (its parts derived from "t")


def test_without_the_numbers_most_walks_of_a_query_s_budget_find_nothing() -> None:
    x = Interner()
    query = clock_past_a_day(x)
    found = sum(nearby.search(query, {"t": "3:3"}, TOKENS, random.Random(seed), nearby.EVALUATIONS_PER_QUERY, 32)[0]
                is not None for seed in range(20))
    assert found < 10  # (7 of 20 as measured; every one of them with the numbers, in two candidates)


def test_the_solver_writes_the_numbers_when_z3_gives_up_on_the_strings() -> None:
    x = Interner()
    query = clock_past_a_day(x)
    solver = capped()
    result = solver.solve(query, near={"t": "3:3"})
    assert result.status == "sat" and result.model is not None
    assert nearby.Query.of(query).score(dict(result.model))[0] == len(query)
    assert solver.stats.nearby_evaluations == 2  # the run's text, then the numbers written in


def dated(x: Interner) -> tuple[list[Expr], list[Expr]]:
    """"YYYY-MM-DD" cut at "-": three parts of 4, 2 and 2 characters, and each part's number
    (`int.parse` with its sign); the query's entries without the numbers' conditions."""
    text = x.var("d", Sort.STRING)
    parts = _Parts(SimpleNamespace(x=x), text, "-", 4)
    shape = [parts.definition, parts.bounded, x.eq(parts.count, x.const(3)),
             *[x.eq(x.length(parts.parts[j]), x.const(n)) for j, n in enumerate((4, 2, 2))]]
    return shape, [signed_parse(x, parts.parts[j]) for j in range(3)]


def test_a_number_keeps_its_field_s_width_where_the_query_checks_it() -> None:
    """A month that must be 1..12 in a two-character field: "1" would make the date "2025-1-xy",
    one character short; "01" parses to 1 and keeps it."""
    x = Interner()
    shape, (year, month, _) = dated(x)
    query = [*shape, x.le(x.const(0), year), x.le(x.const(1), month), x.le(month, x.const(12))]
    model, spent = nearby.search(query, {"d": "2025-ab-xy"}, TOKENS, random.Random(0), 3, 32, solve_numbers=solved)
    assert model is not None and holds_all(query, model)
    assert spent == 3  # the run's text, the numbers as they read ("2025-1-xy"), then with the widths kept
    y, m, rest = model["d"].split("-")
    assert (y, rest) == ("2025", "xy") and len(m) == 2 and 1 <= int(m) <= 12


def holds_all(query: list[Expr], model: dict) -> bool:
    env = dict(model)
    return nearby.Query.of(query).score(env)[0] == len(query)


def test_the_sign_the_text_has_decides_which_number_is_solved() -> None:
    x = Interner()
    p = x.var("p", Sort.STRING)
    value = signed_parse(x, p)
    below = [x.lt(value, x.const(-100))]
    numbers = solved(below, {"p": "-5"})
    assert numbers is not None and len(numbers) == 1  # the unsigned reading was dropped with its branch
    (number,) = numbers.values()
    assert number > 100
    model, _ = nearby.search(below, {"p": "-5"}, TOKENS, random.Random(0), 2, 32,
                             solve_numbers=solved)
    assert model is not None and model["p"].startswith("-") and int(model["p"]) < -100
    # A positive text cannot go below -100 by its digits alone: nothing is solved.
    assert parsed_numbers.solve(capped(), below, {"p": "5"}) is None


def test_a_query_without_parsed_numbers_asks_nothing() -> None:
    x = Interner()
    s = x.var("s", Sort.STRING)
    assert parsed_numbers.solve(capped(), [x.eq(x.length(s), x.const(3))], {"s": "ab"}) is None
