"""Every solver query has a deterministic budget (Z3's resource limit): a query stopped by it is
unknown, counted and never taken as unsat, and the same seed gives the same report whatever the
wall clock or the machine's load, as long as the resource limit, not the clock, stops queries."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import ingot
from ingot.concolic.checkpoint import StateDir
from ingot.concolic.explore import Exploration, Explorer, Options
from ingot.concolic.report import as_json
from ingot.symbolic.expr import Expr, Interner, Op, Sort
from ingot.symbolic.solver import NO_TIMEOUT, Solver

ROUTE = """
function Route(cmd: string) -> int {
  let parts = cmd.trim().split(" ");
  if (parts.length() == 2 && parts[0] == "get") {
    if (parts[1].starts_with("/admin") && parts[1].ends_with(".json")) {
      return 2;
    }
    return 1;
  }
  if (parts.length() == 3 && parts[2] == "now") {
    return 3;
  }
  0
}
"""


def hard_query(x: Interner) -> list:
    """A word equation Z3 needs a few hundred thousand resource units to answer."""
    a, b = x.var("a", Sort.STRING), x.var("b", Sort.STRING)
    left = x.concat(x.concat(a, x.const("a=")), b)
    right = x.concat(x.concat(b, x.const("=a")), a)
    return [x.eq(left, right), x.lt(x.const(3), x.length(b)), x.lt(x.length(a), x.const(30))]


def z3_only(solver: Solver) -> Solver:
    """`solver` asking Z3's string solver alone: the arithmetic form of a string query
    (`char_arrays`) answers `hard_query` in under 2 k units, and these tests are about Z3's limits."""
    solver.by_characters = lambda query, timeout: None  # type: ignore[method-assign]
    return solver


def test_a_query_over_its_resource_limit_is_unknown_and_counted() -> None:
    x = Interner()
    capped = z3_only(Solver(timeout_ms=600_000, rlimit=2_000))
    assert capped.solve(hard_query(x)).status == "unknown"
    stats = capped.stats.as_dict()
    assert (stats["unknown"], stats["unknown_rlimit"], stats["unknown_timeout"], stats["unsat"]) == (1, 1, 0, 0)
    free = Solver(timeout_ms=600_000, rlimit=0)
    assert free.solve(hard_query(Interner())).status == "sat"


def test_without_a_clock_only_the_resource_limit_stops_a_query() -> None:
    clocked = Solver(timeout_ms=600_000, rlimit=0)
    clocked.deadline = time.perf_counter() + 1
    assert clocked.solve(hard_query(Interner())).status == "sat"
    assert clocked.z3_log[0][0] == 600_000  # Z3's timeout is the same on every query: the deadline interrupts
    unclocked = Solver(timeout_ms=0, rlimit=0)
    unclocked.deadline = time.perf_counter() + 1
    assert unclocked.solve(hard_query(Interner())).status == "sat"
    assert unclocked.z3_log[0][0] == NO_TIMEOUT  # ...and not one without a clock
    capped = z3_only(Solver(timeout_ms=0, rlimit=2_000))
    assert capped.solve(hard_query(Interner())).status == "unknown"
    assert (capped.stats.unknown_rlimit, capped.stats.unknown_timeout) == (1, 0)


def cubes(x: Interner) -> list:
    """a^3 + b^3 = c^3 + 33 over positive ints: Z3 does not answer it within minutes."""
    a, b, c = (x.var(n, Sort.INT) for n in "abc")

    def cube(v: Expr) -> Expr:
        return x.arith(Op.MUL, x.arith(Op.MUL, v, v), v)

    return [x.eq(x.arith(Op.ADD, cube(a), cube(b)), x.arith(Op.ADD, cube(c), x.const(33))),
            *(x.lt(x.const(0), v) for v in (a, b, c))]


def test_the_deadline_interrupts_a_query_that_runs_past_it() -> None:
    solver = Solver(timeout_ms=600_000, rlimit=0)
    solver.deadline = time.perf_counter() + 0.3
    x = Interner()  # (one per solver: it keys its terms by node)
    start = time.perf_counter()
    assert solver.solve(cubes(x)).status == "unknown"
    assert time.perf_counter() - start < 3  # (the deadline is 0.3 s away; the bound is loose)
    assert (solver.stats.unknown_timeout, solver.stats.z3_calls) == (1, 1)
    assert solver.solve([x.lt(x.const(3), x.var("n", Sort.INT))]).status == "unknown"
    assert solver.stats.z3_calls == 1  # past the deadline, Z3 is not asked
    solver.deadline = None
    assert solver.solve([x.lt(x.const(4), x.var("n", Sort.INT))]).status == "sat"  # the interrupt does not stay
    assert solver.stats.z3_calls == 2


def test_a_timeout_that_never_binds_leaves_the_report_as_it_was() -> None:
    """A search ending in under a second gave another report with `--timeout 9` than with 11: its
    queries' Z3 timeout was the time left, and setting it anew changed the models."""
    program = ingot.load(Path(__file__).resolve().parents[2] / "bench/explore/apps/heldout/tool_router.baml")
    reports = [as_json(program.view, Explorer(program.view, "RouteTool", Options(seed=0, timeout_s=t)).explore())
               for t in (9, 60)]
    assert reports[0] == reports[1]


def test_string_model_queries_count_their_resource_units() -> None:
    x = Interner()
    solver = Solver(timeout_ms=600_000, rlimit=0)
    s = x.var("s", Sort.STRING)
    solver.solve([x.lt(x.const(2), x.length(s))])
    assert solver.stats.model_units == 0  # no string model's term
    at = x.str_op(Op.INDEX_OF, s, x.const("="), x.const(0))
    solver.solve([x.eq(at, x.const(3))])
    assert solver.stats.model_units > 0


def explore(program: ingot.Program, **options: object) -> dict:
    # Most runs are fuzz turns the string queries earned: 80 runs ask enough queries for one to
    # hit the resource limit.
    ex = Explorer(program.view, "Route", Options(seed=1, max_runs=80, timeout_s=3600, **options)).explore()  # type: ignore[arg-type]
    return as_json(program.view, ex)


def test_the_same_seed_gives_the_same_report_under_any_clock_and_load() -> None:
    program = ingot.load_source(ROUTE)
    budget = {"solver_rlimit": 15_000, "string_model_units": 1_500_000}
    quiet = explore(program, solver_timeout_ms=300_000, **budget)
    assert quiet["solver"]["unknown_rlimit"] > 0  # the resource limit decided some queries
    assert quiet["solver"]["unknown_timeout"] == 0
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        loaded = explore(program, solver_timeout_ms=600_000, **budget)
    finally:
        burner.kill()
        burner.wait()
    assert loaded == quiet


def test_a_resumed_search_asks_its_string_queries_again_and_gives_the_same_report(tmp_path: Path) -> None:
    path = tmp_path / "route.baml"
    path.write_text(ROUTE)
    program = ingot.load(path)
    sources = {str(f): f.read_text() for f in program.files}
    # a budget the search spends part-way: the models are on before the stop and off after it
    options = Options(seed=1, max_runs=140, timeout_s=3600, solver_timeout_ms=300_000, solver_rlimit=200_000,
                      string_model_units=600_000)
    expected = as_json(program.view, Explorer(program.view, "Route", options).explore())
    assert expected["limits"].get("string-models-off", 0) > 0
    state = StateDir(tmp_path / "state", sources)
    state.create()
    explorer: Explorer

    def stop(ex: Exploration) -> None:
        if ex.runs >= 3:
            explorer.request_stop()

    explorer = Explorer(program.view, "Route", options, progress=stop, state=state)
    partial = explorer.explore()
    assert partial.stopped_by == "interrupted" and partial.runs < expected["runs"]
    assert partial.limits.get("string-models-off", 0) == 0
    resumed = Explorer.resume(program.view, "Route", options, StateDir(state.path, sources)).explore()
    assert as_json(program.view, resumed) == expected


RATIO = """
function Ratio(s: string, d: int) -> int {
  let parts = s.split(",");
  if (parts.length() == 3) {
    return 10 / d;
  }
  0
}
"""


def test_a_child_that_leaves_its_predicted_path_still_counts_what_it_covered_and_found() -> None:
    # The first query over `split`'s parts spends the whole string-model budget: the child it
    # solved runs with the models off, so its path has a concretization where the prediction
    # has a branch (a divergence), but it does take the `true` edge and divide by zero.
    program = ingot.load_source(RATIO)
    ex = Explorer(program.view, "Ratio", Options(seed=0, max_runs=2, string_model_units=1)).explore()
    assert ex.limits.get("divergence") == 1
    assert ex.covered == {(e.site.function, e.site.block, e.target) for e in ex.edges}
    assert [(f.kind, f.run, f.args["s"].count(",")) for f in ex.findings] == [("DivisionByZero", 2, 2)]
