"""Keep the stored expectations honest: re-run the engine and compare (slow; needs baml_bridge).

    pytest -m slow tests/llm/test_llm_engine.py
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b) and type(a) is type(b)


def _make_cases() -> Any:
    pytest.importorskip("baml_bridge")
    import make_cases

    return make_cases


@pytest.mark.parametrize("name", sorted(p.stem for p in CASES.glob("*.json") if p.with_suffix(".baml").exists()))
def test_engine_still_gives_the_stored_answers(name: str) -> None:
    make_cases = _make_cases()
    from llm_server import MockLLMServer

    source, cases = make_cases.PROGRAMS[name]
    assert (CASES / f"{name}.baml").read_text(encoding="utf-8") == source
    stored = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))["cases"]
    server = MockLLMServer(pace=0.25)  # as when recording: streamed events arrive one at a time
    try:
        fresh = make_cases.run_engine(source, cases, server)
    finally:
        server.close()
    assert _same(_stable(json.loads(json.dumps(fresh))), _stable(stored))


def _stable(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Cases without what changes from run to run: the server's port, SigV4 dates and signatures, and the
    fields a case marks volatile (messages naming a scratch directory)."""
    out = []
    for case in cases:
        case = {k: v for k, v in case.items() if k != "port"}
        for token in case.get("token_requests", []):
            token["claims"]["aud"] = "TOKEN_URI"  # the server's port
        case["requests"] = [{**r, "headers": {k: v for k, v in r["headers"].items()
                                              if k not in ("authorization", "x-amz-date")
                                              or not r["headers"].get("x-amz-date")}} for r in case["requests"]]
        if "error" in case:
            fields = {k: v for k, v in case["error"]["fields"].items() if k not in case.get("volatile", ())}
            case["error"] = {**case["error"], "fields": fields}
        out.append(case)
    return out


def test_engine_parser_still_gives_the_stored_answers() -> None:
    make_cases = _make_cases()
    stored = json.loads((CASES / "sap.json").read_text(encoding="utf-8"))["cases"]
    fresh = make_cases.run_sap(make_cases.sap_inputs())
    assert _same(json.loads(json.dumps(fresh)), stored)
