"""Queries over splits answered in their straight-line cases, and only true unsat claims.

A split's definition is a disjunction over its count of parts; `straight_line` asks one count
at a time (fewest parts first) and may claim unsat only when every count was tried.
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

from ingot.stdlib import REGISTRY
from ingot.symbolic import straight_line
from ingot.symbolic.expr import Expr, Interner, Op, Sort
from ingot.symbolic.runtime import TrackerRuntime
from ingot.symbolic.solver import Solver

FRAME = SimpleNamespace(fn=SimpleNamespace(name="T", index=0), pc=1, ctx=0)


def model(t: TrackerRuntime, key: str, args: list[Any], shadows: list[Any]) -> tuple[Any, Any]:
    spec = REGISTRY[key]
    assert spec.model is not None, key
    return spec.model(t, FRAME, spec.impl, args, shadows)


def split_of(t: TrackerRuntime, text: str, name: str) -> tuple[Expr, Expr, list[Any]]:
    """`name.split(",")` on a run where `name` is `text`: the string's variable, the count, the parts."""
    s = t.x.var(name, Sort.STRING)
    parts, _ = model(t, "string.split", [text, ","], [s, None])
    count = t.hget(parts, "$len")
    assert isinstance(count, Expr)
    return s, count, parts


def test_unsat_in_every_case_is_unsat() -> None:
    """Every count of parts the query allows was tried, each unsat: the whole query is unsat."""
    t = TrackerRuntime(Interner(), None)
    x = t.x
    s, count, parts = split_of(t, "a,b", "s")
    first = t.hget(parts, 0)
    assert isinstance(first, Expr)
    goal = [x.le(count, x.const(3)), x.eq(first, x.const("x")), x.str_pred(Op.PREFIX, s, x.const("y"))]
    result = straight_line.solve(Solver(), [e.observed for e in t.trace.path] + goal, {}, 10_000, time.perf_counter())
    assert result is not None and result.status == "unsat"


def test_unsat_cases_are_no_proof_while_others_remain() -> None:
    """Past `MAX_CASES` combinations, all unsat, the answer is left to the whole query: the
    counts not tried (here, nine parts in all or more) may hold a model."""
    t = TrackerRuntime(Interner(), None)
    x = t.x
    _, a, _ = split_of(t, "p", "a")
    _, b, _ = split_of(t, "q", "b")
    goal = x.le(x.const(9), x.arith(Op.ADD, a, b))
    query = [e.observed for e in t.trace.path] + [goal]
    assert straight_line.solve(Solver(), query, {}, 10_000, time.perf_counter()) is None
    whole = Solver().solve(query)
    assert whole.status == "sat" and whole.model is not None
    assert whole.model["a"].count(",") + whole.model["b"].count(",") + 2 >= 9
