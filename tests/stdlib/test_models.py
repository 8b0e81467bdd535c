"""Symbolic models written in registry rows let the explorer solve through the built-in."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ingot.cli import main

# Every edge needs the solver to see through `clamp`/`min`/`max`: with the argument fixed
# at the call (no model), `s == 100` and friends are concrete and only random inputs remain.
CLAMPED = """
function Grade(score: int, bonus: int) -> string {
  let s = score.clamp(0, 100);
  let b = bonus.max(0).min(10);
  if (s == 100 && b == 10) { return "perfect"; }
  if (s == 0) { return "floor"; }
  if (s + b > 95) { return "A"; }
  "other"
}

function Ratio(x: float) -> string {
  let r = x.clamp(0.0, 1.0);
  if (r == 1.0) { return "full"; }
  if (r > 0.5) { return "high"; }
  if (r == 0.0) { return "none"; }
  "low"
}
"""


@pytest.mark.parametrize("tracker", ["interp", "compiled"])
@pytest.mark.parametrize("function", ["Grade", "Ratio"])
def test_ordering_models_reach_every_edge_behind_a_clamp(function: str, tracker: str,
                                                          tmp_path: Path) -> None:
    source = tmp_path / "grades.baml"
    source.write_text(CLAMPED)
    result = CliRunner().invoke(main, ["explore", str(source), function, "--json", "--tracker", tracker,
                                       "--max-runs", "60"], catch_exceptions=False)
    report = json.loads(result.stdout)
    assert report["coverage"]["uncovered"] == [] and report["coverage"]["infeasible"] == []
    assert report["concretizations"] == 0
    outcomes = {case["outcome"]["value"] for case in report["tests"]}
    expected = {"Grade": {"perfect", "floor", "A", "other"}, "Ratio": {"full", "high", "none", "low"}}
    assert outcomes == expected[function]


# Each `true` edge below needs the solver to see through a string model: without one the
# string is fixed at the call and only random inputs could reach it.
STRING_PROGRAMS = {
    "Split": """
function Split(s: string) -> string {
  for (let w in s.split(",")) {
    if (w == "stop") { return "stopped"; }
  }
  "ran"
}""",
    "Lines": """
function Lines(s: string) -> int {
  let n = 0;
  for (let l in s.lines()) {
    if (l == "end") { return n; }
    n += 1;
  }
  -1
}""",
    "Chars": """
function Chars(s: string) -> bool {
  for (let c in s.chars()) {
    if (c == "#") { return true; }
  }
  false
}""",
    "KeyValue": """
function KeyValue(s: string) -> string {
  let i = s.index_of("=");
  if (i == null) { return "none"; }
  if (s.slice(0, i) == "key" && s.at(-1) == "!") { return "found"; }
  "other"
}""",
    "Parse": """
function Parse(s: string) -> string {
  let n = int.parse(s) catch (e) { _ => -1 };
  if (n == 42) { return "answer"; }
  if (n < 0) { return "bad"; }
  "number"
}""",
    "Order": """
function Order(a: string, b: string) -> string {
  if (a < b && b < "m" && a.length() > 1) { return "low"; }
  "high"
}""",
    "Cleanup": """
function Cleanup(s: string) -> string {
  let t = s.trim_start().replace_all("-", "+");
  if (t == "+x+" && s.last_index_of("-") == 2) { return "tidy"; }
  if (s.is_ascii_numeric() && s.length() == 3) { return "code"; }
  "other"
}""",
}


@pytest.mark.parametrize("function", sorted(STRING_PROGRAMS))
def test_string_models_reach_every_edge(function: str) -> None:
    import ingot
    from ingot.concolic.explore import Explorer, Options

    program = ingot.load_source(STRING_PROGRAMS[function])
    ex = Explorer(program.view, function, Options(max_runs=400, timeout_s=60)).explore()
    keys = {(e.site.function, e.site.block, e.target) for e in ex.edges}
    outcomes = {str(case.outcome.get("value")) for case in ex.tests}
    if function == "Parse":  # `_ =>` catches everything: its fall-through edge is not feasible
        assert {"answer", "bad", "number"} <= outcomes
        return
    assert keys <= ex.covered, sorted(keys - ex.covered)
