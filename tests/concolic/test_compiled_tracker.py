"""The tracker on the compiled tier records exactly what the interpreter-tracker records.

Same path entries (kind, site, expression, alternatives, context), same edges, same
LLM-call inputs, same concrete string comparisons, same outcome and trace, on every
conformance case and on the exploration benchmark; same report for the same seed; overrides of the tracker's
methods in a subclass are honoured.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import ingot
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.inputs import UnsupportedInput, assignment_for
from ingot.concolic.report import as_json
from ingot.symbolic.compiled_tracker import CompiledTrackedVM
from ingot.symbolic.expr import Interner, Sort

ROOT = Path(__file__).resolve().parents[2]
CORPORA = [ROOT / "tests" / "conformance" / "engine", ROOT / "tests" / "conformance" / "extra"]
PROGRAMS = [p for c in CORPORA for p in sorted(c.glob("*.baml")) if p.with_suffix(".json").exists()]
BENCH = sorted((ROOT / "bench" / "explore").glob("*.baml"))


def observed(run: Any) -> tuple[Any, ...]:
    """Everything a run reports; expressions are hash-consed, so equal means the same node."""
    t = run.trace
    error = run.outcome.error
    outcome = run.outcome.as_dict() if error is None else (error.kind, error.message, [str(f) for f in error.trace])
    path = [(e.kind, e.site, e.observed, e.alternatives, e.ctx, e.check) for e in t.path]
    return path, t.edges, t.llm_calls, t.concretized, t.pruned, t.reached, t.compared, outcome, run.assignment


def twin_explorers(program: ingot.Program, fn: str, **options: Any) -> tuple[Explorer, Explorer]:
    interp = Explorer(program.view, fn, Options(tracker="interp", **options))
    compiled = Explorer(program.view, fn, Options(tracker="compiled", **options))
    compiled.x, compiled.space = interp.x, interp.space  # one interner: same expressions are the same nodes
    return interp, compiled


def assert_same_runs(path: Path, **options: Any) -> None:
    """Every case of a corpus program records the same run on both trackers."""
    spec = json.loads(path.with_suffix(".json").read_text())
    program = ingot.load(path)
    fn = spec["function"]
    interp, compiled = twin_explorers(program, fn, max_depth=20_000, max_steps=10_000_000, max_len=64, **options)
    params = program.view.function(fn).params
    for case in spec["cases"]:
        if case.get("error") == "StackOverflow":
            continue  # tens of thousands of tracked frames: covered by the plain tiers' tests
        assignment: dict[str, object] = {}
        try:
            for name, ty in params:
                assignment_for(program.view, ty, name, case["args"][name], assignment)
        except (UnsupportedInput, KeyError, ValueError):
            continue
        assert observed(compiled.run(assignment)) == observed(interp.run(assignment)), case["args"]


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_both_trackers_record_the_same_runs(path: Path) -> None:
    assert_same_runs(path)


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_both_trackers_prune_the_same_operations(path: Path) -> None:
    """With hot-site pruning after two symbolic executions per instruction: cases whose loops or
    recursion repeat a symbolic operation prune it, on both alike (every program: a few seconds)."""
    assert_same_runs(path, prune_after=2)


LOOP_BEFORE_A_CATCH = """
function Ratio(a: int, b: int) -> int {
  a / b
}

function Budget(costs: int[], mode: string) -> int {
  let total = 0;
  for (let i = 0; i < costs.length(); i += 1) {
    total += costs[i];
  }
  if (mode == "raw") {
    return total;
  }
  let r = Ratio(total, costs.length()) catch (e) {
    baml.panics.DivisionByZero => -1,
  };
  r
}
"""


def test_copies_of_a_loop_share_its_pruning_counters(tmp_path: Path) -> None:
    """The compiled tier emits the code of a function with a `catch` more than once; each copy
    of an instruction counts its executions on the one counter, as the interpreter-tracker
    counts them per (function, pc): the loop's fourth test is tracked on both (2^2)."""
    path = tmp_path / "budget.baml"
    path.write_text(LOOP_BEFORE_A_CATCH)
    cases = [{"args": {"costs": [3, 4, 5], "mode": "caught"}}, {"args": {"costs": [1, 2, 3, 4, 5, 6], "mode": "raw"}}]
    path.with_suffix(".json").write_text(json.dumps({"function": "Budget", "cases": cases}))
    assert_same_runs(path, prune_after=2)


@pytest.mark.parametrize("path", BENCH, ids=lambda p: p.stem)
def test_same_seed_same_report_on_both_trackers(path: Path) -> None:
    fn = json.loads(path.with_suffix(".json").read_text())["function"]
    program = ingot.load(path)
    reports = [as_json(program.view, Explorer(program.view, fn, Options(seed=5, tracker=t, max_runs=500)).explore())
               for t in ("interp", "compiled")]
    assert reports[0] == reports[1]


@pytest.mark.parametrize("steps", [3, 10, 20])
def test_a_limit_hit_is_the_same_error_on_both(steps: int) -> None:
    """Backward jumps tick the budget even where the translation lays the jump's target in place."""
    program = ingot.load(BENCH[0].parent / "sensors.baml")
    interp, compiled = twin_explorers(program, "ScanReadings", max_steps=steps)
    assignment = {"readings.$len": 6, "threshold": 1}
    assert observed(compiled.run(assignment)) == observed(interp.run(assignment))
    outcomes = []
    for tier in ("interp", "compiled"):
        try:
            outcomes.append(program.options(tier=tier, max_steps=steps).call("ScanReadings", readings=[5] * 6, threshold=1))
        except ingot.BamlError as e:
            outcomes.append(e.kind)
    assert outcomes[0] == outcomes[1]


def test_subclass_overrides_are_honoured() -> None:
    """Packing subclasses the tracker: the generated code calls the VM's methods, not copies."""
    program = ingot.load(BENCH[0].parent / "fees.baml")
    calls: list[str] = []

    class Spy(CompiledTrackedVM):
        def arith(self, frame, op, a, b, sa, sb, ea, eb):  # type: ignore[no-untyped-def]
            calls.append(f"arith {op.name}")
            return super().arith(frame, op, a, b, sa, sb, ea, eb)

        def check(self, frame, kind, safe, holds):  # type: ignore[no-untyped-def]
            calls.append(f"check {kind}")
            return super().check(frame, kind, safe, holds)

    explorer = Explorer(program.view, "LateFee", Options())
    explorer.tracker_class = Spy
    run = explorer.run({"balance": 100, "days": 45, "tier": 2})
    assert any(c.startswith("arith") for c in calls) and any(c.startswith("check") for c in calls)
    assert run.trace.path


def test_tracked_translation_is_cached_per_program() -> None:
    program = ingot.load(BENCH[0].parent / "triage.baml")
    vms = [CompiledTrackedVM(program.view, Interner(), None, max_steps=10) for _ in range(2)]
    from ingot.bex.compiled import translate
    from ingot.symbolic.compiled_tracker import TrackedTranslator

    first = translate(program.bex, True, TrackedTranslator, program.view)
    for vm in vms:
        vm.functions()
    assert translate(program.bex, True, TrackedTranslator, program.view) is first


def test_the_cli_selects_the_tracker() -> None:
    from click.testing import CliRunner

    from ingot.cli import main

    reports = []
    for tracker in ("interp", "compiled"):
        result = CliRunner().invoke(main, ["explore", str(BENCH[0].parent / "route.baml"), "Route", "--json", "--max-runs", "500",
                                           "--tracker", tracker], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        reports.append(json.loads(result.stdout))
    assert reports[0] == reports[1]


# Bound methods, closures over captured cells, map literals with symbolic values: opcodes the
# corpora above rarely reach with symbolic operands.
EDGE = """
class Counter {
  n int
  function bump(self, k: int) -> int {
    self.n = self.n + k;
    self.n
  }
}

function Edge(key: string, k: int, flags: bool[]) -> int {
  let m: map<string, int> = {"a": k, "fixed": 2};
  let c = Counter { n: k };
  let f = c.bump;
  let total = f(3);
  let outer = 1;
  let g = (x: int) -> int {
    let h = (y: int) -> int { outer = outer + y; outer + x };
    h(x)
  };
  total = total + g(k);
  if (m.has(key) && m[key] > 5) {
    total = total + 1;
  }
  for (let b in flags) {
    if (!b) { total = total - 1; }
  }
  if (total == 17 && outer > 4) {
    total = total / (k - 3);
  }
  total
}
"""


def test_bound_methods_and_nested_closures_track_the_same() -> None:
    program = ingot.load(EDGE)
    interp, compiled = twin_explorers(program, "Edge")
    for assignment in ({}, {"key": "a", "k": 3, "flags.$len": 2, "flags[0]": False}, {"key": "fixed", "k": 9}):
        assert observed(compiled.run(assignment)) == observed(interp.run(assignment))
    reports = [as_json(program.view, Explorer(program.view, "Edge", Options(seed=1, tracker=t, max_runs=500)).explore())
               for t in ("interp", "compiled")]
    assert reports[0] == reports[1]
    assert reports[0]["coverage"]["edges_covered"] > 0


def test_the_returned_shadow_is_kept_on_both() -> None:
    """Packing reads the residual of the result from `result_shadow`."""
    from ingot.symbolic.tracker import TrackedVM

    program = ingot.load(BENCH[0].parent / "fees.baml")
    x = Interner()
    fn = program.bex.by_name["LateFee"]
    shadows = [x.var("balance", Sort.INT), x.var("days", Sort.INT), x.var("tier", Sort.INT)]
    results = []
    for cls in (TrackedVM, CompiledTrackedVM):
        vm = cls(program.view, x, None)
        value = vm.run_tracked(fn, [100, 95, 2], shadows)
        results.append((value, vm.result_shadow))
    assert results[0] == results[1]
    assert results[0][1] is not None
