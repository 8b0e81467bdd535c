"""A name looked up among a split's parts, past the parts this run had; only true unsat claims.

`header.split(",").index_of(name)` on a run whose header has one field: a longer header
is another input, and the solver must be able to ask for it in one query ("the name is the
third field, and a two-field row is too short for it"), not one more field per run. The
split's parts past this run's are variables of its definition already; `index_of` ranges
over them (`string_models.parts_beyond`), and the straight-line cases of the nested splits
answer the query at a header of three parts rather than giving up at the fewest.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ingot.runtime.errors import BamlRaise
from ingot.stdlib import REGISTRY
from ingot.stdlib.string_models import parts_beyond
from ingot.symbolic import straight_line
from ingot.symbolic.expr import Expr, Interner, Op, Sort
from ingot.symbolic.runtime import TrackerRuntime
from ingot.symbolic.shadow import Opt
from ingot.symbolic.solver import DEFAULT_STRING_MODEL_UNITS, Solver

FRAME = SimpleNamespace(fn=SimpleNamespace(name="T", index=0), pc=1, ctx=0)


def model(t: TrackerRuntime, key: str, args: list[Any], shadows: list[Any]) -> tuple[Any, Any]:
    spec = REGISTRY[key]
    assert spec.model is not None, key
    return spec.model(t, FRAME, spec.impl, args, shadows)


def column_after_split(csv: str, column: str) -> tuple[TrackerRuntime, Opt, Expr, list[str]]:
    """Track `rows = csv.lines(); header = rows[0].split(","); col = header.index_of(column);
    f = rows[1].split(",")` and return the tracker, `col`'s shadow and `f.length()`'s."""
    t = TrackerRuntime(Interner(), None)
    x = t.x
    rows, _ = model(t, "string.lines", [csv], [x.var("csv", Sort.STRING)])
    header, _ = model(t, "string.split", [rows[0], ","], [t.hget(rows, 0), None])
    _, col = model(t, "array.index_of", [header, column], [None, x.var("column", Sort.STRING)])
    fields, _ = model(t, "string.split", [rows[1], ","], [t.hget(rows, 1), None])
    lines, n = t.hget(rows, "$len"), t.hget(fields, "$len")
    assert isinstance(col, Opt) and isinstance(lines, Expr) and isinstance(n, Expr)
    t.assume(FRAME, x.le(x.const(2), lines))  # the path: the program read `rows[1]`
    return t, col, n, header


def header_and_row(csv: str) -> tuple[list[str], list[str]]:
    rows = REGISTRY["string.lines"].impl(csv)
    return REGISTRY["string.split"].impl(rows[0], ","), REGISTRY["string.split"].impl(rows[1], ",")


def panics(csv: str, column: str) -> bool:
    """Does `f[col]` panic on these values?"""
    header, fields = header_and_row(csv)
    try:
        REGISTRY["array.get_index"].impl(fields, REGISTRY["array.index_of"].impl(header, column))
    except BamlRaise:
        return True
    return False


def test_a_name_past_the_runs_fields_is_one_query_away() -> None:
    t, col, n, header = column_after_split("a\n1,2", "z")
    x = t.x
    assert len(header) == 1 and len(parts_beyond(t, header)) == t.max_parts - 1
    # a row of two fields or more (the program skips shorter ones), and the name found at or
    # past its end: the index read panics, so the name is a third field or later
    goal = x.and_(x.le(x.const(2), n), col.present, x.le(n, col.payload))
    solver = Solver(model_units_cap=DEFAULT_STRING_MODEL_UNITS)  # the explorer's per-query limits
    result = solver.solve([e.observed for e in t.trace.path] + [goal])
    assert result.status == "sat", result.status
    assert result.model is not None
    csv, column = result.model["csv"], result.model["column"]
    header, fields = header_and_row(csv)
    assert column in header[2:] and len(fields) <= header.index(column), (csv, column)
    assert panics(csv, column)


def test_a_changed_length_drops_the_parts_beyond() -> None:
    """After a push the parts past the run's end no longer follow the array's elements."""
    t = TrackerRuntime(Interner(), None)
    x = t.x
    parts, _ = model(t, "string.split", ["a,b", ","], [x.var("s", Sort.STRING), None])
    assert parts_beyond(t, parts)
    model(t, "array.push", [parts, "c"], [None, x.var("c", Sort.STRING)])
    assert parts_beyond(t, parts) == []


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
    result = straight_line.solve(Solver(), [e.observed for e in t.trace.path] + goal, {}, 10_000)
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
    assert straight_line.solve(Solver(), query, {}, 10_000) is None
    whole = Solver().solve(query)
    assert whole.status == "sat" and whole.model is not None
    assert whole.model["a"].count(",") + whole.model["b"].count(",") + 2 >= 9


def test_the_search_over_parts_beyond_is_exact_on_the_run() -> None:
    """With the cut string fixed to the run's value, the search's shadow can only be its result:
    the parts past the run's end are below the count there, never a match."""
    for text, item in [("a,b", "b"), ("a", "z"), ("", ""), ("x,,y", ""), ("p,q,r", "r")]:
        t = TrackerRuntime(Interner(), None)
        x = t.x
        _, _, parts = split_of(t, text, "s")
        result, found = model(t, "array.index_of", [parts, item], [None, x.var("item", Sort.STRING)])
        assert isinstance(found, Opt) and parts_beyond(t, parts)
        fixed = [x.eq(x.var("s", Sort.STRING), x.const(text)), x.eq(x.var("item", Sort.STRING), x.const(item))]
        known = fixed + [e.observed for e in t.trace.path]
        solver = Solver(timeout_ms=20000, rlimit=0)
        assert solver.solve(known).status == "sat"
        present = x.const(result is not None)
        assert solver.solve(known + [x.not_(x.eq(found.present, present))]).status == "unsat", (text, item)
        if result is not None:
            other = x.not_(x.eq(found.payload, x.const(result)))
            assert solver.solve(known + [found.present, other]).status == "unsat", (text, item)
