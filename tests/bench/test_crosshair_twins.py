"""The Python twins of bench/explore/apps/ agree with their BAML programs.

`bench/explore_vs_crosshair.py` measures CrossHair on these twins, so each must behave as its
BAML program does: every witness of `NAME.json` (proven on the real engine by
`check_witnesses.py`), run through the twin with its LLM replies mapped to the twin's reply
parameter, gives the same value or raises the Python exception standing for the same BAML
error. The per-program counts the comparison reads are checked too: `feasible_edges` against
ingot's branch edges, and `python_twin_arcs` against coverage.py (when it is installed; the
CrossHair virtualenv has it).
"""

from __future__ import annotations

import inspect
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import ingot
from ingot.concolic.edges import edge_label, reachable_edges

BENCH = Path(__file__).resolve().parents[2] / "bench"
APPS = BENCH / "explore" / "apps"
NAMES = sorted(p.stem for p in APPS.glob("*.json"))
sys.path.insert(0, str(BENCH))

import explore_apps_support as support  # noqa: E402  (needs the sys.path entry above)
import explore_apps_twins as twins  # noqa: E402


def spec_of(name: str) -> dict[str, Any]:
    spec: dict[str, Any] = json.loads((APPS / f"{name}.json").read_text())
    return spec


def twin_outcome(spec: dict[str, Any], w: dict[str, Any]) -> tuple[str, Any]:
    twin = twins.TWINS[spec["python_twin"]].entry
    kwargs = twins.python_args(spec["python_twin"], w["args"], w.get("llm"))
    try:
        return ("ok", support.plain(twin(**kwargs)))
    except Exception as e:  # noqa: BLE001 - the exception is the outcome
        return ("err", type(e).__name__)


def expected(w: dict[str, Any]) -> tuple[str, Any]:
    exp = w["expect"]
    if isinstance(exp, dict) and set(exp) == {"error"}:
        return ("err", twins.PY_EXCEPTION[exp["error"]].__name__)
    return ("ok", exp)


def test_every_program_has_a_twin() -> None:
    assert len(NAMES) >= 20
    assert {spec_of(n).get("python_twin") for n in NAMES} <= set(twins.TWINS)
    assert all(spec_of(n).get("python_twin") for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_witnesses_have_the_same_outcome_on_the_twin(name: str) -> None:
    spec = spec_of(name)
    got = [twin_outcome(spec, w) for w in spec["witnesses"]]
    assert got == [expected(w) for w in spec["witnesses"]]


@pytest.mark.parametrize("name", NAMES)
def test_planted_bugs_raise_a_python_exception_crosshair_can_name(name: str) -> None:
    spec = spec_of(name)
    for bug in spec["bugs"]:
        assert bug["kind"] in twins.PY_EXCEPTION
        witnesses = [w for w in spec["witnesses"] if w["expect"] == {"error": bug["kind"]}]
        assert witnesses, f"no witness reaches {bug}"


@pytest.mark.parametrize("name", NAMES)
def test_feasible_edges_are_the_branch_edges_less_the_infeasible(name: str) -> None:
    spec = spec_of(name)
    program = ingot.load(APPS / f"{name}.baml")
    edges = [edge_label(program.view, (e.site.function, e.site.block, e.target))
             for e in reachable_edges(program.view, spec["function"])]
    listed = {e.split(" at ")[0] for e in spec.get("infeasible_edges", [])}
    infeasible = [e for e in edges if e.split(" at ")[0] in listed]
    assert len(infeasible) == len(listed)
    assert spec["feasible_edges"] == len(edges) - len(infeasible)


def arcs_covered(entry: Any, calls: list[dict[str, Any]]) -> tuple[int, list[tuple[int, int]]]:
    coverage = pytest.importorskip("coverage")
    lines, start = inspect.getsourcelines(entry)
    end = start + len(lines) - 1
    cov = coverage.Coverage(branch=True, data_file=None, include=[inspect.getsourcefile(entry)])
    cov.start()
    try:
        for kwargs in calls:
            try:
                entry(**kwargs)
            except Exception:  # noqa: BLE001, S110 - only the arcs matter here
                pass
    finally:
        cov.stop()
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cov.json_report(outfile=out.name)
        (data,) = json.loads(Path(out.name).read_text())["files"].values()
    executed = [tuple(a) for a in data["executed_branches"] if start <= a[0] <= end]
    missing = [tuple(a) for a in data["missing_branches"] if start <= a[0] <= end]
    return len(executed), missing


@pytest.mark.parametrize("name", NAMES)
def test_python_twin_arcs_are_the_arcs_the_witnesses_take(name: str) -> None:
    spec = spec_of(name)
    entry = twins.TWINS[spec["python_twin"]].entry
    calls = [twins.python_args(spec["python_twin"], w["args"], w.get("llm")) for w in spec["witnesses"]]
    covered, missing = arcs_covered(entry, calls)
    assert covered == spec["python_twin_arcs"]
    # the one arc left is the fall-through of an exhaustive `match` on an enum (votes)
    assert len(missing) == (1 if name == "votes" else 0)
