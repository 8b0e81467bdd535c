"""Conformance: every corpus program must behave in ingot exactly as in the real BAML engine.

Every corpus directory beside this file (engine/, extra/, ...; see README.md), each recorded
from `baml_bridge==0.23.0` by record.py:

For each corpus:
  NAME.baml + NAME.json   -> test_case[corpus/NAME[i]], one per case
  invalid/NAME.baml + .error -> test_invalid_code / test_invalid_position
`test_engine_agrees` / `test_engine_rejects` (marked slow) re-run the programs through
baml_bridge (record.py's functions) to prove the stored expectations are still the engine's.
"""
from __future__ import annotations

import importlib
import importlib.util
import json
import math
import re
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _record():
    """tests/conformance/record.py, the engine runner, imported by path (tests are not a package)."""
    spec = importlib.util.spec_from_file_location("_conformance_record", HERE / "record.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


CORPORA = _record().corpora()

_CODE_RE = re.compile(r"error\[(E\d+)\]")
_POS_RE = re.compile(r"main\.baml:(\d+):(\d+)")


# ----------------------------------------------------------------------------- collection


def _valid_programs():
    """(corpus, path to NAME.baml, spec dict) for every program with a NAME.json."""
    out = []
    for corpus, root in CORPORA.items():
        for spec_path in sorted(root.glob("*.json")):
            baml = spec_path.with_suffix(".baml")
            spec = json.loads(spec_path.read_text(encoding="utf-8"))
            out.append(pytest.param((corpus, baml, spec), id=f"{corpus}/{spec_path.stem}"))
    return out


def _cases():
    out = []
    for p in _valid_programs():
        (prog,) = p.values
        corpus, baml, spec = prog
        for i, case in enumerate(spec["cases"]):
            out.append(pytest.param((baml, spec["function"], case), id=f"{corpus}/{baml.stem}[{i}]"))
    return out


def parse_error_file(text: str) -> tuple[str, tuple[int, int]]:
    """First diagnostic's code and 1-based (line, column) from an engine message.

    >>> parse_error_file("baml.panics.SdkPanic: 'main.baml:2:23-2:30 error[E0005]: expected 1'")
    ('E0005', (2, 23))
    """
    code = _CODE_RE.search(text)
    pos = _POS_RE.search(text)
    if not code or not pos:
        raise ValueError(f"no `main.baml:L:C ... error[E....]` in {text!r}")
    return code.group(1), (int(pos.group(1)), int(pos.group(2)))


def _invalid_programs():
    out = []
    for corpus, root in CORPORA.items():
        for err in sorted((root / "invalid").glob("*.error")):
            baml = err.with_suffix(".baml")
            text = err.read_text(encoding="utf-8")
            out.append(pytest.param((baml, text), id=f"{corpus}/invalid/{err.stem}"))
    return out


CASES = _cases()
PROGRAMS = _valid_programs()
INVALID = _invalid_programs()


# ----------------------------------------------------------------------------- comparison


def same(got, want) -> bool:
    """Exact equality of plain values: types must agree (bool is not int, int is not float),
    floats compare with == except that NaN equals NaN, dict key order must agree (maps are
    insertion-ordered, instances list their fields in declaration order)."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if want is None:
        return got is None
    if isinstance(want, float):
        return type(got) is float and (got == want or (math.isnan(got) and math.isnan(want)))
    if isinstance(want, int):
        return type(got) is int and got == want
    if isinstance(want, str):
        return type(got) is str and got == want
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(map(same, got, want))
    if isinstance(want, dict):
        return (
            isinstance(got, dict)
            and list(got) == list(want)
            and all(same(got[k], want[k]) for k in want)
        )
    raise TypeError(f"unexpected value in corpus: {want!r}")


def _ingot():
    try:
        return importlib.import_module("ingot")
    except ImportError as e:  # pragma: no cover - only while the package is broken
        pytest.fail(f"cannot import ingot: {e}")


# ----------------------------------------------------------------------------- ingot tests


@pytest.mark.parametrize("case", CASES)
def test_case(case):
    baml, fn, spec = case
    ingot = _ingot()
    program = ingot.load(baml)
    args = spec["args"]
    where = f"{baml.name}: {fn}({json.dumps(args, ensure_ascii=False)})"
    if "error" in spec:
        try:
            got = program.call(fn, **args)
        except ingot.BamlError as e:
            assert e.kind == spec["error"], f"{where}: raised {e.kind!r}, engine raises {spec['error']!r}"
            return
        pytest.fail(f"{where}: returned {got!r}, engine raises {spec['error']!r}")
    try:
        got = program.call(fn, **args)
    except ingot.BamlError as e:
        pytest.fail(f"{where}: raised {e.kind!r} ({e}), engine returns {spec['expect']!r}")
    assert same(got, spec["expect"]), f"{where}: got {got!r}, engine returns {spec['expect']!r}"


def _diagnostics(baml: Path):
    ingot = _ingot()
    with pytest.raises(ingot.CompileError) as info:
        ingot.load(baml)
    diags = list(info.value.diagnostics)
    assert diags, f"{baml.name}: CompileError without diagnostics"
    return diags


@pytest.mark.parametrize("invalid", INVALID)
def test_invalid_code(invalid):
    baml, text = invalid
    want, _ = parse_error_file(text)
    first = _diagnostics(baml)[0]
    assert first.code == want, f"{baml.name}: first diagnostic {first.code} {first.message!r}; engine: {text.strip()}"


@pytest.mark.parametrize("invalid", INVALID)
def test_invalid_position(invalid):
    baml, text = invalid
    _, want = parse_error_file(text)
    first = _diagnostics(baml)[0]
    got = (first.span.start.line, first.span.start.column)
    assert got == want, f"{baml.name}: first diagnostic at {got[0]}:{got[1]}; engine: {text.strip()}"


# ----------------------------------------------------------------------------- engine checks


def _engine_tools():
    """record.py's run() / compile_error(), so the check decodes values as recording did."""
    pytest.importorskip("baml_bridge")
    pytest.importorskip("pydantic")
    return _record()


@pytest.mark.slow
@pytest.mark.parametrize("prog", PROGRAMS)
def test_engine_agrees(prog):
    corpus, baml, spec = prog
    make = _engine_tools()
    cases = make.run(baml.read_text(encoding="utf-8"), spec["function"], [c["args"] for c in spec["cases"]])
    for i, (got, want) in enumerate(zip(cases, spec["cases"])):
        where = f"{corpus}/{baml.stem}[{i}]"
        if "error" in want:
            assert got.get("error") == want["error"], f"{where}: engine now gives {got}, corpus says {want}"
        else:
            assert "expect" in got and same(got["expect"], want["expect"]), (
                f"{where}: engine now gives {got}, corpus says {want}"
            )


@pytest.mark.slow
@pytest.mark.parametrize("invalid", INVALID)
def test_engine_rejects(invalid):
    baml, text = invalid
    message = _engine_tools().compile_error(baml.read_text(encoding="utf-8"))
    if message is None:
        pytest.fail(f"{baml.name}: the engine now accepts this program")
    assert message.strip() == text.strip(), f"{baml.name}: engine message changed"
