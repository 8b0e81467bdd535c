"""Where Z3 answers unknown, the solver searches for a model near the run's own values
(`ingot.symbolic.nearby`): what it returns satisfies the whole query by BAML's semantics, a
split's parts follow the string they are cut from, and the search is bounded and repeatable."""

from __future__ import annotations

import random
from types import SimpleNamespace

from ingot.stdlib.string_models import _Parts
from ingot.symbolic import nearby
from ingot.symbolic.expr import Expr, Interner, Op, Sort, evaluate
from ingot.symbolic.solver import Solver


def capped(tokens: nearby.Tokens | None) -> Solver:
    """A solver whose Z3 gives up on any string query: only the search can answer."""
    s = Solver(timeout_ms=600_000, rlimit=2_000)
    s.nearby_tokens = tokens
    return s


def parsed_below_ten(x: Interner) -> tuple[Expr, list[Expr]]:
    s = x.var("s", Sort.STRING)
    n = x.str_op(Op.TO_INT, s)
    # a word equation every string satisfies: at 2,000 units Z3 gives up on the query all the same
    words = x.eq(x.concat(x.concat(s, x.const("a=")), s), x.concat(x.concat(s, x.const("a")), x.concat(x.const("="), s)))
    return s, [words, x.le(x.const(0), n), x.lt(n, x.const(10)), x.eq(x.length(s), x.const(2))]


def holds(query: list[Expr], env: dict) -> bool:
    memo: dict = {}
    return all(evaluate(e, env, memo) is True for e in query)


def test_an_unknown_query_is_answered_by_a_model_near_the_run_that_satisfies_it() -> None:
    x = Interner()
    _, query = parsed_below_ten(x)
    assert capped(None).solve(query, near={"s": "43"}).status == "unknown"
    solver = capped(nearby.Tokens(strings=["total"], separators=[","], ints=[10]))
    assert solver.solve(query).status == "unknown"  # nothing to search near
    result = solver.solve(query, near={"s": "43"})
    assert result.status == "sat" and result.model is not None
    assert holds(query, result.model)
    stats = solver.stats.as_dict()
    assert stats["nearby_sat"] == 1 and 0 < stats["nearby_evaluations"] <= 2 * nearby.EVALUATIONS_PER_QUERY


def test_a_splits_parts_are_computed_from_the_string_they_are_cut_from() -> None:
    x = Interner()
    text = x.var("text", Sort.STRING)
    parts = _Parts(SimpleNamespace(x=x), text, ",", 4)
    query = [parts.definition, parts.bounded, x.lt(x.const(2), parts.count), x.eq(parts.parts[2], x.const("go"))]
    model, spent = nearby.search(query, {"text": "a,b"}, nearby.Tokens(["go"], [","], []),
                                 random.Random(0), 2_000, 32)
    assert model is not None and set(model) == {"text"}  # the parts are not inputs
    cut = model["text"].split(",")
    assert len(cut) > 2 and cut[2] == "go"
    env = dict(model)
    assert nearby.Query.of(query).score(env)[0] == len(query) and holds(query, env)
    assert spent <= 2_000


def test_the_search_draws_the_same_way_for_the_same_seed_and_stops_at_its_budget() -> None:
    x = Interner()
    _, query = parsed_below_ten(x)
    tokens = nearby.Tokens(["total"], [","], [10])
    runs = [nearby.search(query, {"s": "43"}, tokens, random.Random(7), 300, 32) for _ in range(2)]
    assert runs[0] == runs[1]
    impossible = [*query, x.eq(x.var("s", Sort.STRING), x.const("zz"))]
    assert nearby.search(impossible, {"s": "43"}, tokens, random.Random(7), 50, 32) == (None, 50)
    solver = capped(tokens)
    solver.stats.nearby_evaluations = nearby.TOTAL_EVALUATIONS  # the exploration's share is spent
    assert solver.solve(query, near={"s": "43"}).status == "unknown"
    assert solver.stats.nearby_evaluations == nearby.TOTAL_EVALUATIONS
