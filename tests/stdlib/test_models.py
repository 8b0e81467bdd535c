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
