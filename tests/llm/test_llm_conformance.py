"""ingot against the engine: LLM calls send the same requests and produce the same results.

Every case in tests/llm/cases/NAME.json was recorded from `baml_bridge==0.23.0` by
make_cases.py: the program NAME.baml, the replies the local mock server gave, the
requests the engine sent, and the value it returned or the error class (with its
fields) it raised. Here ingot runs the same program against the same replies.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest
from provider_cases import PROGRAMS as PROVIDER_PROGRAMS  # noqa: I001
from provider_cases import expand_env

import ingot
from ingot.convert import to_python
from ingot.syntax.diagnostics import CompileError

CASES = Path(__file__).resolve().parent / "cases"
# SigV4 headers depend on the time and on the server's port: compared by `_signature_mismatch`.
SIGNED = {"authorization", "x-amz-date"}

# Fields whose text is the engine's transport or JSON library's wording, not BAML's.
VOLATILE = {"ai.errors.InvalidResponse": {"message"}}


def _cases() -> list[Any]:
    out = []
    for spec in sorted(CASES.glob("*.json")):
        if not spec.with_suffix(".baml").exists():  # sap.json, service_account.json
            continue
        for i, case in enumerate(json.loads(spec.read_text(encoding="utf-8"))["cases"]):
            out.append(pytest.param(spec.stem, case, id=f"{spec.stem}[{i}]-{case['function']}"))
    return out


@functools.cache
def _program(name: str) -> ingot.Program:
    return ingot.load(CASES / f"{name}.baml")


def run_case(name: str, case: dict[str, Any], server: Any, set_env: Any,
             scratch: Path | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(requests ingot sent, outcome) for one recorded case."""
    program = _program(name)
    server.reset(case["replies"])
    env = case.get("env", {})
    if name in PROVIDER_PROGRAMS:
        assert scratch is not None
        env = expand_env(env, server.port, scratch)
    set_env(env)
    partials: list[Any] = []
    try:
        if case.get("stream"):
            stream = program.stream(case["function"], case["args"])
            partials.extend(stream)
            outcome: dict[str, Any] = {"expect": stream.final()}
        else:
            outcome = {"expect": to_python(program.call(case["function"], **case["args"]))}
    except ingot.BamlError as e:
        outcome = {"error": {"class": e.qualified_kind, "fields": to_python(e.value)}}
    if case.get("stream"):
        outcome["partials"] = partials
    return [dict(r) for r in server.requests], outcome


def _outcome_mismatch(case: dict[str, Any], got: dict[str, Any]) -> str | None:
    if "partials" in case and got.get("partials") != case["partials"]:
        return f"engine streamed {case['partials']!r}, ingot streamed {got.get('partials')!r}"
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
    skip = VOLATILE.get(want["class"], set()) | set(case.get("volatile", ()))
    for field, value in want["fields"].items():
        if field not in skip and got["error"]["fields"].get(field) != value:
            return f"{want['class']}.{field}: engine {value!r}, ingot {got['error']['fields'].get(field)!r}"
    return None


def _request_mismatch(want: list[dict[str, Any]], got: list[dict[str, Any]]) -> str | None:
    if len(want) != len(got):
        return f"engine sent {len(want)} request(s), ingot sent {len(got)}"
    for i, (w, g) in enumerate(zip(want, got)):
        for part in ("path", "headers", "body"):
            wp, gp = w[part], g[part]
            if part == "headers":
                wp, gp = _unsigned(wp), _unsigned(gp)
            if wp != gp:
                return f"request {i} {part}:\n engine: {json.dumps(wp)}\n ingot:  {json.dumps(gp)}"
    return None


def _unsigned(headers: dict[str, str]) -> dict[str, str]:
    """Headers with the SigV4 ones reduced to what does not depend on time or port."""
    out = {k: v for k, v in headers.items() if k not in SIGNED}
    if "authorization" in headers and headers["authorization"].startswith("AWS4-HMAC-SHA256"):
        out["authorization"] = re.sub(r"/\d{8}/|, Signature=[0-9a-f]+", "/", headers["authorization"])
        out["x-amz-date"] = "present" if "x-amz-date" in headers else "missing"
    elif "authorization" in headers:
        out["authorization"] = headers["authorization"]
    return out


@pytest.mark.parametrize(("name", "case"), _cases())
def test_case_agrees_with_engine(name: str, case: dict[str, Any], llm_server: Any, set_env: Any,
                                 tmp_path: Path) -> None:
    try:
        requests, outcome = run_case(name, case, llm_server, set_env, tmp_path)
    except CompileError as e:
        if case.get("gap"):
            pytest.xfail(f"{case['gap']}: {str(e).splitlines()[0]}")
        raise
    problem = _request_mismatch(case["requests"], requests) or _outcome_mismatch(case, outcome)
    if problem and case.get("gap"):
        pytest.xfail(f"{case['gap']}: {problem}")
    assert problem is None, problem
