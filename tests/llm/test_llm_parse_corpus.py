"""ingot's schema-aligned parser against the engine's (`baml.sap.parse<T>`), reply by reply.

tests/llm/cases/sap.json holds replies of many shapes (clean JSON, fenced, prose
around JSON, trailing commas, single quotes, unquoted keys, comments, string
numbers, wrong shapes, garbage) for many return types, each with the value the
engine parsed or the fact that it refused. make_cases.py regenerates it.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

import pytest

import ingot
from ingot.llm import parse_reply
from ingot.llm.coerce import CoerceError

DATA = json.loads((Path(__file__).resolve().parent / "cases" / "sap.json").read_text(encoding="utf-8"))


@functools.cache
def _program(decls: str, types: tuple[str, ...]) -> tuple[Any, dict[str, Any]]:
    fns = "".join(f'function P{i}() -> {t} {{\n  client: "openai/gpt-4o-mini"\n  prompt: `x`\n}}\n'
                  for i, t in enumerate(types))
    program = ingot.load(DATA["decls"][decls] + fns)
    return program.view, {t: program.view.function(f"P{i}").ret for i, t in enumerate(types)}


def _types(decls: str) -> tuple[str, ...]:
    return tuple(sorted({c["type"] for c in DATA["cases"] if c["decls"] == decls}))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


@pytest.mark.parametrize("case", [pytest.param(c, id=f"{c['type']}-{i}") for i, c in enumerate(DATA["cases"])])
def test_parse_agrees_with_engine(case: dict[str, Any]) -> None:
    view, types = _program(case["decls"], _types(case["decls"]))
    try:
        got: Any = {"value": parse_reply(view, case["text"], types[case["type"]])}
    except CoerceError as e:
        got = {"error": str(e)}
    if "expect" in case:
        ok = "value" in got and _same(got["value"], case["expect"])
        problem = f"engine parsed {case['expect']!r}, ingot {got!r}"
    else:
        ok = "error" in got
        problem = f"engine refused ({case['error']}), ingot parsed {got.get('value')!r}"
    if not ok and case.get("gap"):
        pytest.xfail(f"{case['gap']}: {problem}")
    assert ok, f"reply {case['text']!r} as {case['type']}: {problem}"
