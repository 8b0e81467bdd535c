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


@pytest.mark.parametrize("name", sorted(p.stem for p in CASES.glob("*.json") if p.stem != "sap"))
def test_engine_still_gives_the_stored_answers(name: str) -> None:
    make_cases = _make_cases()
    from llm_server import MockLLMServer

    source, cases = make_cases.PROGRAMS[name]
    assert (CASES / f"{name}.baml").read_text(encoding="utf-8") == source
    stored = json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))["cases"]
    server = MockLLMServer()
    try:
        fresh = make_cases.run_engine(source, cases, server)
    finally:
        server.close()
    assert _same(json.loads(json.dumps(fresh)), stored)


def test_engine_parser_still_gives_the_stored_answers() -> None:
    make_cases = _make_cases()
    stored = json.loads((CASES / "sap.json").read_text(encoding="utf-8"))["cases"]
    fresh = make_cases.run_sap(make_cases.sap_inputs())
    assert _same(json.loads(json.dumps(fresh)), stored)
