"""ingot against the engine: LLM calls send the same requests and produce the same results.

Every case in tests/llm/cases/NAME.json was recorded from `baml_bridge==0.23.0` by
make_cases.py: the program NAME.baml, the replies the local mock server gave, the
requests the engine sent, and the value it returned or the error class (with its
fields) it raised. Here ingot runs the same program against the same replies.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

import ingot
from ingot.convert import to_python
from ingot.syntax.diagnostics import CompileError

CASES = Path(__file__).resolve().parent / "cases"

# Fields whose text is the engine's transport or JSON library's wording, not BAML's.
VOLATILE = {"ai.errors.InvalidResponse": {"message"}}


def _cases() -> list[Any]:
    out = []
    for spec in sorted(CASES.glob("*.json")):
        if spec.name == "sap.json":
            continue
        for i, case in enumerate(json.loads(spec.read_text(encoding="utf-8"))["cases"]):
            out.append(pytest.param(spec.stem, case, id=f"{spec.stem}[{i}]-{case['function']}"))
    return out


@functools.cache
def _program(name: str) -> ingot.Program:
    return ingot.load(CASES / f"{name}.baml")


def run_case(name: str, case: dict[str, Any], server: Any, set_env: Any) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(requests ingot sent, outcome) for one recorded case."""
    program = _program(name)
    server.reset(case["replies"])
    set_env(case.get("env", {}))
    try:
        outcome: dict[str, Any] = {"expect": to_python(program.call(case["function"], **case["args"]))}
    except ingot.BamlError as e:
        outcome = {"error": {"class": e.qualified_kind, "fields": to_python(e.value)}}
    return [dict(r) for r in server.requests], outcome


def _outcome_mismatch(case: dict[str, Any], got: dict[str, Any]) -> str | None:
    if "expect" in case:
        if "expect" not in got:
            return f"engine returned {case['expect']!r}, ingot raised {got['error']}"
        if got["expect"] != case["expect"]:
            return f"engine returned {case['expect']!r}, ingot returned {got['expect']!r}"
        return None
    want = case["error"]
    if "error" not in got:
        return f"engine raised {want['class']}, ingot returned {got['expect']!r}"
    if got["error"]["class"] != want["class"]:
        return f"engine raised {want['class']}, ingot raised {got['error']['class']}"
    skip = VOLATILE.get(want["class"], set())
    for field, value in want["fields"].items():
        if field not in skip and got["error"]["fields"].get(field) != value:
            return f"{want['class']}.{field}: engine {value!r}, ingot {got['error']['fields'].get(field)!r}"
    return None


def _request_mismatch(want: list[dict[str, Any]], got: list[dict[str, Any]]) -> str | None:
    if len(want) != len(got):
        return f"engine sent {len(want)} request(s), ingot sent {len(got)}"
    for i, (w, g) in enumerate(zip(want, got)):
        for part in ("path", "headers", "body"):
            if w[part] != g[part]:
                return f"request {i} {part}:\n engine: {json.dumps(w[part])}\n ingot:  {json.dumps(g[part])}"
    return None


@pytest.mark.parametrize(("name", "case"), _cases())
def test_case_agrees_with_engine(name: str, case: dict[str, Any], llm_server: Any, set_env: Any) -> None:
    try:
        requests, outcome = run_case(name, case, llm_server, set_env)
    except CompileError as e:
        if case.get("gap"):
            pytest.xfail(f"{case['gap']}: {str(e).splitlines()[0]}")
        raise
    problem = _request_mismatch(case["requests"], requests) or _outcome_mismatch(case, outcome)
    if problem and case.get("gap"):
        pytest.xfail(f"{case['gap']}: {problem}")
    assert problem is None, problem
