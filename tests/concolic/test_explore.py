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


def spec(path: Path) -> dict:
    return json.loads(path.with_suffix(".json").read_text())


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_full_feasible_coverage_and_every_planted_bug(path: Path) -> None:
    s = spec(path)
    program = ingot.load(path)
    result = Explorer(program.view, s["function"], Options(seed=0)).explore()
    assert len(result.covered) == s["feasible_edges"], sorted(
        {(e.site.function, e.site.block, e.target) for e in result.edges} - result.covered)
    found = sorted(f.kind for f in result.findings)
    assert found == sorted(b["kind"] for b in s["bugs"])
    assert result.divergences == []
    for finding, bug in zip(sorted(result.findings, key=lambda f: f.kind), sorted(s["bugs"], key=lambda b: b["kind"])):
        assert f", line {bug['line']}," in finding.site


def explore_json(*args: str) -> dict:
    result = CliRunner().invoke(main, ["explore", *args, "--json"], catch_exceptions=False)
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
    result = CliRunner().invoke(main, ["explore", str(BENCH / "classify.baml"), "Classify", "--emit-tests",
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
        CliRunner().invoke(main, ["explore", str(BENCH / f"{name}.baml"), fn, "--emit-tests", "baml",
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
    assert "could not classify" in program.call("Route", message="hi", llm={"ClassifyMessage": Failure()})
