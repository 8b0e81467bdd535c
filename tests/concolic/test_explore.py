"""`ingot explore` on the benchmark programs: full feasible coverage, every planted bug,
no divergence, determinism, and emitted tests that run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import ingot
from ingot.cli import main
from ingot.concolic.explore import Explorer, Options

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench" / "explore"
PROGRAMS = sorted(BENCH.glob("*.baml"))
# A budget for tests that check what a report says, not how far the default budget reaches
# (`bench/explore/apps/measure.py` is the yardstick for that).
QUICK = ("--max-runs", "500")


def spec(path: Path) -> dict:
    return json.loads(path.with_suffix(".json").read_text())


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_full_feasible_coverage_and_every_planted_bug(path: Path) -> None:
    s = spec(path)
    program = ingot.load(path)
    result = Explorer(program.view, s["function"], Options(seed=0, max_runs=2000)).explore()
    assert len(result.covered) == s["feasible_edges"], sorted(
        {(e.site.function, e.site.block, e.target) for e in result.edges} - result.covered)
    found = sorted(f.kind for f in result.findings)
    assert found == sorted(b["kind"] for b in s["bugs"])
    assert result.divergences == []
    assert result.pruned == 0  # the default pruning limit is far above what these inputs reach
    for finding, bug in zip(sorted(result.findings, key=lambda f: f.kind), sorted(s["bugs"], key=lambda b: b["kind"])):
        assert f", line {bug['line']}," in finding.site


def explore_json(*args: str) -> dict:
    result = CliRunner().invoke(main, ["explore", *args, "--json", *QUICK], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_same_seed_gives_an_identical_report() -> None:
    first = explore_json(str(BENCH / "checkout.baml"), "Checkout", "--seed", "3")
    second = explore_json(str(BENCH / "checkout.baml"), "Checkout", "--seed", "3")
    assert first == second
    assert first["coverage"]["edges_covered"] > 0


def test_llm_outputs_are_explored_as_inputs_and_recorded_as_mocks() -> None:
    report = explore_json(str(BENCH / "dispatch.baml"), "Dispatch")
    assert report["coverage"]["uncovered"] == []
    assert any(t["mocks"] for t in report["tests"])
    assert all(isinstance(v, list) for t in report["tests"] for v in t["mocks"].values())


def test_report_schema() -> None:
    report = explore_json(str(BENCH / "triage.baml"), "Triage")
    assert set(report) >= {"function", "runs", "paths", "coverage", "tests", "findings", "divergences", "solver"}
    assert set(report["coverage"]) >= {"edges_total", "edges_covered", "edges_infeasible", "uncovered"}
    finding = report["findings"][0]
    assert finding["kind"] == "DivisionByZero" and finding["trace"]
    for test in report["tests"]:
        assert set(test) >= {"args", "mocks", "outcome"}


def test_emitted_pytest_file_passes(tmp_path: Path) -> None:
    out = tmp_path / "generated"
    result = CliRunner().invoke(main, ["explore", str(BENCH / "classify.baml"), "Classify", *QUICK, "--emit-tests",
                                       "pytest", str(out)], catch_exceptions=False)
    assert result.exit_code == 0
    files = list(out.glob("test_*.py"))
    assert len(files) == 1
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(files[0])],
                         capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "passed" in run.stdout


def test_emitted_baml_tests_compile_on_the_real_engine(tmp_path: Path) -> None:
    baml_bridge = pytest.importorskip("baml_bridge")
    for name, fn in (("triage", "Triage"), ("route", "Route"), ("checkout", "Checkout")):
        CliRunner().invoke(main, ["explore", str(BENCH / f"{name}.baml"), fn, *QUICK, "--emit-tests", "baml",
                                  str(tmp_path)], catch_exceptions=False)
        tests = (tmp_path / f"{name}_{fn}_tests.baml").read_text()
        assert 'test "' in tests
        source = (BENCH / f"{name}.baml").read_text() + "\n" + tests
        baml_bridge.BamlRuntime.initialize_runtime(".", {"main.baml": source})
        ingot.load(source)  # and on ingot


def test_failing_llm_calls_are_explored_where_a_catch_guards_them() -> None:
    report = explore_json(str(ROOT / "examples" / "llm" / "support.baml"), "Route")
    failing = [t for t in report["tests"] if {"$failure": "ParseFailed"} in t["mocks"].get("ClassifyMessage", [])]
    assert failing, "a case where the model call fails reaches the catch arm"
    assert "could not classify" in failing[0]["outcome"]["value"]


def test_a_failure_mock_raises_the_engine_error_class() -> None:
    from ingot.llm import Failure

    program = ingot.load(ROOT / "examples" / "llm" / "support.baml")
    assert "could not classify" in program.options(llm={"ClassifyMessage": Failure()}).call("Route", message="hi")


LOOP = """
function Spread(xs: int[], limit: int) -> int {
  let over = 0;
  for (let i = 0; i < xs.length(); i += 1) {
    for (let j = 0; j < xs.length(); j += 1) {
      if (xs[i] - xs[j] > limit) { over += 1; }
    }
  }
  if (over > 3) { return 2; }
  if (over > 0) { return 1; }
  0
}
"""


def test_hot_site_pruning_is_reported_and_makes_the_report_best_effort(tmp_path: Path) -> None:
    program = ingot.load(LOOP)
    pruned = Explorer(program.view, "Spread", Options(seed=0, prune_after=4, max_runs=500)).explore()
    full = Explorer(program.view, "Spread", Options(seed=0, prune_after=None, max_runs=500)).explore()
    assert pruned.pruned > 0 and full.pruned == 0
    assert len(full.covered) == len(full.edges)  # tracked in full, every edge is reachable
    source = tmp_path / "spread.baml"
    source.write_text(LOOP)
    report = explore_json(str(source), "Spread", "--prune-after", "4")
    assert report["pruned"] > 0 and report["complete"] is False
    # The summary's line and the option's 0 need no full search: a few runs show them.
    few = ("--max-runs", "40")
    text = CliRunner().invoke(main, ["explore", str(source), "Spread", "--prune-after", "4", *few]).output
    assert "pruned at hot sites" in text
    unpruned = CliRunner().invoke(main, ["explore", str(source), "Spread", "--prune-after", "0", "--json", *few])
    assert json.loads(unpruned.stdout)["pruned"] == 0
    bad = CliRunner().invoke(main, ["explore", str(source), "Spread", "--prune-after", "-1"])
    assert bad.exit_code == 2 and "--prune-after" in bad.output


@pytest.mark.parametrize("tracker", ["interp", "compiled"])
def test_pruning_bounds_the_path_of_a_long_loop(tracker: str) -> None:
    from ingot.symbolic.compiled_tracker import CompiledTrackedVM
    from ingot.symbolic.expr import Interner, Sort
    from ingot.symbolic.tracker import TrackedVM

    program = ingot.load((ROOT / "bench" / "programs" / "loop.baml").read_text())
    fn = program.bex.by_name["Loop"]
    cls = CompiledTrackedVM if tracker == "compiled" else TrackedVM
    lengths = {}
    for limit in (None, 10):
        x = Interner()
        vm = cls(program.view, x, None, prune_after=limit, max_steps=None)
        value = vm.run_tracked(fn, [5000], [x.var("n", Sort.INT)])
        assert value == program.call("Loop", n=5000)
        lengths[limit] = (len(vm.trace.path), vm.trace.pruned)
    assert lengths[None] == (5001, 0)  # `i < n` at every iteration and at the exit
    # `i < n` is symbolic at its first 10 executions and at the 16th, 32nd, ..., 4096th (9 more);
    # the 4982 others run concretely. The branch on it counts its own symbolic executions: the
    # first 10 are recorded, of the 9 later ones only its 16th (the 512th iteration)
    assert lengths[10] == (11, 4982 + 8)
