"""The language corpus (tests/conformance/language/): one program per language feature, each
with the real engine's results recorded by language/generate.py (never written by hand).

Every case runs on both tiers (the reference interpreter and the compiled tier) and must equal
the engine's value, or raise the engine's error class; every invalid program must be rejected
with the engine's first error code at the engine's position.
"""
from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path

import pytest

import ingot

CORPUS = Path(__file__).resolve().parent / "language"
TIERS = ("interp", "compiled")

_CODE_RE = re.compile(r"error\[(E\d+)\]")
_POS_RE = re.compile(r"main\.baml:(\d+):(\d+)")


def _cases():
    out = []
    for spec_path in sorted(CORPUS.glob("*.json")):
        spec = json.loads(spec_path.read_text(encoding="utf-8"))
        baml = spec_path.with_suffix(".baml")
        for i, case in enumerate(spec["cases"]):
            for tier in TIERS:
                out.append(pytest.param(baml, spec["function"], case, tier, id=f"{baml.stem}[{i}]-{tier}"))
    return out


def _invalid():
    return [pytest.param(err.with_suffix(".baml"), err.read_text(encoding="utf-8"), id=err.stem)
            for err in sorted((CORPUS / "invalid").glob("*.error"))]


def same(got, want) -> bool:
    """Exact equality: bool is not int, int is not float, NaN equals NaN, key order counts."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if want is None:
        return got is None
    if isinstance(want, float):
        return type(got) is float and (got == want or (math.isnan(got) and math.isnan(want)))
    if isinstance(want, (int, str)):
        return type(got) is type(want) and got == want
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(same, got, want))
    if isinstance(want, dict):
        return isinstance(got, dict) and list(got) == list(want) and all(same(got[k], want[k]) for k in want)
    raise TypeError(f"unexpected value in corpus: {want!r}")


@cache
def _load(baml: Path) -> ingot.Program:
    return ingot.load(baml)


@pytest.mark.parametrize("baml, fn, case, tier", _cases())
def test_case(baml, fn, case, tier):
    program = _load(baml)
    where = f"{baml.name} on {tier}: {fn}({json.dumps(case['args'], ensure_ascii=False)})"
    try:
        got = program.run(fn, case["args"], tier=tier)
    except ingot.BamlError as e:
        assert "error" in case, f"{where}: raised {e.kind!r} ({e}), engine returns {case['expect']!r}"
        assert e.kind == case["error"], f"{where}: raised {e.kind!r}, engine raises {case['error']!r}"
        return
    assert "error" not in case, f"{where}: returned {got!r}, engine raises {case['error']!r}"
    assert same(got, case["expect"]), f"{where}: got {got!r}, engine returns {case['expect']!r}"


@pytest.mark.parametrize("baml, message", _invalid())
def test_invalid(baml, message):
    want_code = _CODE_RE.search(message).group(1)
    line, col = _POS_RE.search(message).groups()
    with pytest.raises(ingot.CompileError) as info:
        ingot.load(baml)
    first = list(info.value.diagnostics)[0]
    got = (str(first.code), first.span.start.line, first.span.start.column)
    assert got == (want_code, int(line), int(col)), f"{baml.name}: ingot {got} {first.message!r}; engine: {message}"


# ----------------------------------------------------------------------------- engine re-check (slow)
def _engine_run():
    """`run` from extra/make.py, the same code generate.py recorded the corpus with."""
    pytest.importorskip("baml_bridge")
    pytest.importorskip("pydantic")
    import importlib.util

    spec = importlib.util.spec_from_file_location("_conformance_make", CORPUS.parent / "extra" / "make.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.run


@pytest.mark.slow
@pytest.mark.parametrize("spec_path", sorted(CORPUS.glob("*.json")), ids=lambda p: p.stem)
def test_engine_still_agrees(spec_path):
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    src = spec_path.with_suffix(".baml").read_text(encoding="utf-8")
    got = _engine_run()(src, spec["function"], [c["args"] for c in spec["cases"]])
    assert got == spec["cases"], f"{spec_path.stem}: the engine now answers {got}"
