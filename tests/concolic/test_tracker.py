"""The tracker agrees with the VM: tracked runs give the plain run's outcome, and every
recorded path condition holds under the inputs that produced it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import ingot
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.inputs import UnsupportedInput, assignment_for
from ingot.symbolic.expr import evaluate

ROOT = Path(__file__).resolve().parents[2]
CORPORA = [ROOT / "tests" / "conformance" / "engine", ROOT / "tests" / "conformance" / "extra"]
PROGRAMS = [p for c in CORPORA for p in sorted(c.glob("*.baml")) if p.with_suffix(".json").exists()]


@pytest.mark.parametrize("tracker", ["compiled", "interp"])
@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_tracked_runs_agree_with_plain_runs(path: Path, tracker: str) -> None:
    spec = json.loads(path.with_suffix(".json").read_text())
    program = ingot.load(path)
    fn = spec["function"]
    explorer = Explorer(program.view, fn, Options(max_depth=20_000, max_steps=10_000_000, max_len=64,
                                                  tracker=tracker))
    params = program.view.function(fn).params
    for case in spec["cases"]:
        if case.get("error") == "StackOverflow":
            continue  # tens of thousands of tracked frames: the plain VM's tests cover it
        assignment: dict[str, object] = {}
        try:
            for name, ty in params:
                assignment_for(program.view, ty, name, case["args"][name], assignment)
            run = explorer.run(assignment)
        except (UnsupportedInput, KeyError, ValueError):
            continue  # inputs exploration does not generate (maps, functions)
        try:
            expected: dict[str, object] = {"value": program.call(fn, **case["args"])}
        except ingot.BamlError as e:
            expected = {"error": e.kind}
        got = {"error": run.outcome.error.kind} if run.outcome.error else {"value": run.outcome.value}
        if "value" in expected and isinstance(expected["value"], float) and expected["value"] != expected["value"]:
            continue  # NaN
        assert got == expected, case["args"]
        memo: dict[int, object] = {}
        for entry in run.trace.path:
            try:
                holds = evaluate(entry.observed, run.assignment, memo)
            except KeyError:
                continue  # a variable the builder did not read (a default)
            assert holds is True, f"{entry.site}: {entry.observed} is false under {run.assignment}"
