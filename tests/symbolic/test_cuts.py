"""A string cut at a separator `index_of` found: exact expressions, and queries Z3 answers cheaply.

`let colon = line.index_of(":")` then `line.slice(0, colon)` and `line.slice(colon + 1,
line.length())`: the position is the length of the part before the separator, present where
the line holds it, and the two slices are that part and the one after it
(`ingot.symbolic.cuts`). The tests check the expressions against the members themselves on
any line (not only the run's), and that a parser's query ("the field is `id` and its value
a number above 5"), which cost Z3 more than a query may spend as `indexof` and `substr`, is
answered within a small resource limit.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from ingot.stdlib import REGISTRY
from ingot.symbolic import cuts
from ingot.symbolic.expr import Expr, Interner, Op, Sort, evaluate
from ingot.symbolic.runtime import TrackerRuntime
from ingot.symbolic.shadow import Opt
from ingot.symbolic.solver import Solver

FRAME = SimpleNamespace(fn=SimpleNamespace(name="T", index=0), pc=1, ctx=0)
LINES = st.text(alphabet=":ab \n", max_size=8)


def model(t: TrackerRuntime, key: str, args: list[Any], shadows: list[Any]) -> tuple[Any, Any]:
    spec = REGISTRY[key]
    assert spec.model is not None, key
    return spec.model(t, FRAME, spec.impl, args, shadows)


def parse(line: str, search: str = "index_of") -> tuple[TrackerRuntime, Opt, Expr, Expr]:
    """Track `at = line.<search>(":")`, `line.slice(0, at)`, `line.slice(at + 1, line.length())`
    on a line holding ":" and return the tracker, `at`'s shadow and the two slices'."""
    t = TrackerRuntime(Interner(), None)
    x = t.x
    s = x.var("line", Sort.STRING)
    at, position = model(t, f"string.{search}", [line, ":"], [s, None])
    assert isinstance(position, Opt)
    n = x.length(s)
    _, before = model(t, "string.slice", [line, 0, at], [s, None, position.payload])
    _, after = model(t, "string.slice", [line, at + 1, len(line)], [s, x.arith(Op.ADD, position.payload, x.const(1)), n])
    return t, position, before, after


def env_of(t: TrackerRuntime, line: str) -> dict[str, Any]:
    """`line` and the cut's variables as the definition on the path makes them."""
    env: dict[str, Any] = {"line": line}
    for entry in t.trace.path:
        c = cuts.cut_of(entry.observed)
        if c is not None:
            env.update(c.derive(line))
    return env


@given(line=LINES, search=st.sampled_from(["index_of", "last_index_of"]))
def test_the_position_and_the_slices_are_exact_on_every_line(line: str, search: str) -> None:
    t, position, before, after = parse("id:7", search)
    env = env_of(t, line)
    at = line.find(":") if search == "index_of" else line.rfind(":")
    assert evaluate(position.present, env) == (at >= 0)
    if at >= 0:
        assert evaluate(position.payload, env) == at
    # where ":" is absent the position is -1 as far as the slices go (they run only where it is present)
    at = at if at >= 0 else -1
    assert evaluate(before, env) == line[0:at]
    assert evaluate(after, env) == line[at + 1:len(line)]


@given(line=LINES)
def test_the_definition_holds_for_the_parts_derived_from_any_line(line: str) -> None:
    t, *_ = parse("id:7")
    definitions = [e.observed for e in t.trace.path if cuts.cut_of(e.observed) is not None]
    assert definitions
    assert all(evaluate(d, env_of(t, line)) is True for d in definitions)


def test_a_field_and_a_number_after_the_colon_are_solved_cheaply() -> None:
    t, position, before, after = parse("data:x")
    x = t.x
    definitions = [e.observed for e in t.trace.path]
    value = model(t, "int.parse", ["7"], [after])[1]
    query = [*definitions, position.present, x.eq(before, x.const("id")), x.lt(x.const(5), value)]
    # 40,000 units, no clock: the cut needs under 20,000; `indexof` and `substr` needed 160,000 (z3 5.4)
    solver = Solver(rlimit=40_000, timeout_ms=0)
    result = solver.solve(query)
    assert result.status == "sat"
    line = result.model["line"]
    field, _, number = line.partition(":")
    assert field == "id" and int(number) > 5
