"""The coverage model: line hits come from replaying the generated tests, branches from the explorations."""

from __future__ import annotations

from collections import Counter
from typing import Any

import ingot
from ingot.concolic.edges import edge_key
from ingot.concolic.explore import Exploration
from ingot.concolic.report import as_json
from ingot.coverage import Coverage, Explored, build, lcov_text
from ingot.coverage.replay import replay


def line_of(coverage: Coverage, path_end: str, text: str) -> tuple[int, int | None]:
    """(line number, hits) of the one line of a file whose text contains `text`."""
    f = next(f for f in coverage.files if f.path.endswith(path_end))
    numbers = [i for i, line in enumerate(f.text.split("\n"), 1) if text in line]
    assert len(numbers) == 1, numbers
    return numbers[0], f.lines.get(numbers[0])


def test_one_record_per_file_of_the_project(coverage: Coverage) -> None:
    assert [f.path for f in coverage.files] == ["tests/coverage_reports/project/billing.baml",
                                                "tests/coverage_reports/project/support.baml"]
    names = {f.path.rsplit("/", 1)[1]: [fn.name for fn in f.functions] for f in coverage.files}
    # QueueFor is not explored itself but RouteTicket reaches it; the LLM function has no body to cover.
    assert names == {"billing.baml": ["QueueFor", "CartTotal"], "support.baml": ["RouteTicket"]}


def test_replayed_tests_take_exactly_the_edges_the_exploration_covered(
        project: ingot.Program, explorations: list[Exploration]) -> None:
    for ex in explorations:
        assert ex.limits.get("run-timeout", 0) == 0 and ex.limits.get("memory", 0) == 0  # no run was cut
        hits = replay(project.view, ex.function, [{"args": t.args, "mocks": t.mocks} for t in ex.tests])
        assert set(hits.edges) == ex.covered
        assert hits.tests == len(ex.tests)


def test_each_test_replays_to_its_recorded_outcome(project: ingot.Program, explorations: list[Exploration]) -> None:
    """The replayed inputs are the generated tests: the ordinary runner gives the outcomes they record."""
    from ingot.llm import Failure, Value

    for ex in explorations:
        for t in ex.tests:
            mocks = {name: ingot.replies(*(Failure(v["$failure"]) if isinstance(v, dict) and "$failure" in v
                                          else Value(v) for v in values)) for name, values in t.mocks.items()}
            try:
                outcome = {"value": project.run(ex.function, t.args, llm=mocks)}
            except ingot.BamlError as e:
                outcome = {"error": {"kind": e.kind, "message": e.message}}
            assert outcome == t.outcome


def test_line_hits_count_what_the_tests_ran(coverage: Coverage, explorations: list[Exploration]) -> None:
    route = next(ex for ex in explorations if ex.function == "RouteTicket")
    # Every test enters RouteTicket once; its `let t = ...` line runs in each.
    _, first = line_of(coverage, "support.baml", "let t = TriageTicket(body)")
    assert first is not None and first >= len(route.tests)
    # The planted panic's line ran exactly in the tests that panic there.
    _, panic_hits = line_of(coverage, "support.baml", "baml.sys.panic(")
    assert panic_hits == sum(1 for t in route.tests if t.outcome.get("error", {}).get("kind") == "UserPanic")
    # A line behind a never-taken edge never ran; comments and blank lines are not executable.
    _, never = line_of(coverage, "billing.baml", "return -1;")
    assert never == 0
    assert line_of(coverage, "billing.baml", "// never:")[1] is None
    # A `return` inside `then` ran as often as the edge into it was taken.
    f = next(f for f in coverage.files if f.path.endswith("support.baml"))
    general, hits = line_of(coverage, "support.baml", 'return "general";')
    null_check = next(b for b in f.branches if b.condition == "t == null" and b.label == "true")
    assert hits == null_check.taken > 0


def test_findings_sit_on_their_line(coverage: Coverage) -> None:
    f = next(f for f in coverage.files if f.path.endswith("support.baml"))
    assert [(x.kind, x.line) for x in f.findings] == [("UserPanic", line_of(coverage, "support.baml", "baml.sys.panic(")[0])]
    assert f.findings[0].args["vip"] is True


def test_branch_status_and_counts(coverage: Coverage, explorations: list[Exploration]) -> None:
    counted = {edge_key(e) for ex in explorations for e in ex.edges}
    covered = set().union(*(ex.covered for ex in explorations))
    branches = [b for f in coverage.files for b in f.branches]
    assert {(b.function, b.block, b.target) for b in branches} == counted
    assert {(b.function, b.block, b.target) for b in branches if b.status == "covered"} == covered
    assert all((b.taken > 0) == (b.status == "covered") for b in branches)
    assert any(b.status == "uncovered" and not b.reached for b in branches)  # `l.qty > 0` after `cost < 0`
    # (site, edge) numbers are unique per line, as LCOV needs.
    for f in coverage.files:
        ids = Counter((b.line, b.site, b.index) for b in f.branches)
        assert max(ids.values()) == 1


CLAMP = """
function Clamp(x: int) -> int {
  if (x > 5) {
    if (x < 3) {
      return 0;
    }
    return 5;
  }
  x
}
"""


def test_an_edge_proved_infeasible_is_reported_so(explore: Any) -> None:
    program = ingot.load_source(CLAMP)
    ex = explore(program, "Clamp")
    assert ex.complete and ex.infeasible
    cov = build(program.view, [ex])
    (inner,) = [b for b in cov.files[0].branches if b.condition == "x < 3" and b.label == "true"]
    assert inner.status == "infeasible" and inner.taken == 0 and inner.reached
    assert cov.files[0].lines[5] == 0  # `return 0;` never ran: it cannot


def test_an_edge_infeasible_from_one_entry_is_not_from_another(explore: Any) -> None:
    program = ingot.load_source(CLAMP + """
function Small(x: int) -> int {
  if (x > 5) { return 0; }
  Clamp(x)
}
""")
    from_small, from_clamp = explore(program, "Small"), explore(program, "Clamp")
    clamp = program.view.function("Clamp")

    def condition(block: int) -> str:
        span = clamp.blocks[block].terminator.span
        return span.source.text[span.start_offset:span.end_offset]

    outer_true = next(e for e in from_small.edges
                      if e.site.function == "Clamp" and e.label == "true" and condition(e.site.block) == "x > 5")
    assert edge_key(outer_true) in from_small.infeasible  # Small never calls Clamp with x > 5
    merged = build(program.view, [from_small, from_clamp])
    statuses = {(b.function, b.block, b.target): b.status for b in merged.files[0].branches}
    assert statuses[edge_key(outer_true)] == "covered"


def test_json_reports_give_the_same_coverage(project: ingot.Program, explorations: list[Exploration],
                                             source_paths: Any) -> None:
    reports = [Explored.from_report(project.view, as_json(project.view, ex)) for ex in explorations]
    paths = source_paths(project)
    assert lcov_text(build(project.view, reports, paths)) == lcov_text(build(project.view, explorations, paths))


SCORE = """
enum Color {
  Red
  Green
  Blue
}

function Score(c: Color, xs: int[]) -> int {
  let base = match (c) {
    Color.Red => 1,
    Color.Green => 2,
    Color.Blue => 3,
  };
  let big = xs.filter((x) => { x > 10 && x < 100 }).length();
  let total = xs.map((x) => { if (x > 0) { x } else { 0 - x } }).reduce((a, b) => { a + b }, 0);
  match (total) {
    0 => base,
    1 => base + 1,
    _ => base * big + total,
  }
}
"""


def test_lambdas_count_and_prelude_lines_do_not(explore: Any) -> None:
    program = ingot.load_source(SCORE)
    ex = explore(program, "Score", max_runs=400)
    lambda_edges = {edge_key(e) for e in ex.edges if ".$lambda" in e.site.function}
    assert lambda_edges and lambda_edges <= ex.covered  # the tracker records edges taken inside lambdas
    (f,) = build(program.view, [ex]).files
    # Only the program's own lines: `filter`, `map` and `reduce` run prelude code, counted nowhere.
    assert set(f.lines) == {8, 9, 10, 11, 12, 14, 15, 16, 17, 18, 19}
    assert all(f.lines.values())
    calls = {fn.name: fn.calls for fn in f.functions}
    assert calls["Score.$lambda0"] > 0 and calls["Score"] == len(ex.tests)
    switch = [b for b in f.branches if b.function == "Score" and b.line == 9]
    assert [b.label for b in switch] == ["Color.Red", "Color.Green", "Color.Blue"]
