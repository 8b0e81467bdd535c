"""Deep and long programs compile: nesting up to the documented limit, chains of any length,
literals of thousands of elements; past the nesting limit, and for integer literals no BAML
type holds, a positioned diagnostic, never a Python exception.

The programs the engine accepts are checked against its recorded results (deep/expected.json,
recorded by deep/record.py from baml_bridge); the others go past what the engine compiles.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

import ingot
from ingot.syntax.diagnostics import Code, CompileError
from ingot.syntax.parse_base import MAX_NESTING

DEEP = Path(__file__).resolve().parent / "deep"


def _programs():
    spec = importlib.util.spec_from_file_location("_deep_programs", DEEP / "programs.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


P = _programs()
EXPECTED = json.loads((DEEP / "expected.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_engine_sized_programs_agree_with_the_engine(name: str) -> None:
    program = ingot.load_source(P.source(name))
    for case in EXPECTED[name]:
        for tier in ("interp", "compiled"):
            try:
                got = program.run("F", case["args"], tier=tier)
            except ingot.BamlError as e:
                assert e.kind == case.get("error"), (name, case, tier, e.kind)
                continue
            assert "error" not in case, (name, case, tier, got)
            assert got == case["expect"], (name, case, tier, got)


def test_every_recorded_case_is_present() -> None:
    assert sorted(EXPECTED) == sorted(P.CASES)


def _compile_error(text: str) -> CompileError:
    with pytest.raises(CompileError) as info:
        ingot.load_source(text)
    return info.value


@pytest.mark.parametrize("shape", ["nested_parens", "nested_blocks", "nested_if"])
def test_nesting_up_to_the_limit_compiles_and_past_it_is_a_diagnostic(shape: str) -> None:
    generator = P.GENERATORS[shape]
    levels = {"nested_parens": MAX_NESTING - 2, "nested_blocks": MAX_NESTING - 2, "nested_if": MAX_NESTING - 2}
    program = ingot.load_source(generator(levels[shape]))
    assert program.call("F", x=5) in (5, 6)
    error = _compile_error(generator(MAX_NESTING + 5))
    (d,) = error.diagnostics
    assert d.code is Code.UNSUPPORTED
    assert f"at most {MAX_NESTING} nested" in d.message
    assert d.span.start.line == 2 and d.span.start.column > MAX_NESTING  # at the token that goes too deep
    assert "main.baml:2:" in str(error)


def test_deep_nesting_inside_a_template_hole_counts_too() -> None:
    inner = "(" * (MAX_NESTING + 5) + "x" + ")" * (MAX_NESTING + 5)
    error = _compile_error(f'function F(x: int) -> string {{\n  `v: ${{{inner}}}`\n}}\n')
    assert error.diagnostics[0].code is Code.UNSUPPORTED


def _interp(source: str, **args: int) -> object:
    """Run on the interpreter: the compiled tier's translation of a function thousands of
    branches long is slow, and what is tested here is the compiler."""
    return ingot.load_source(source).run("F", args, tier="interp")


def test_chains_are_not_nesting() -> None:
    """Else-if chains and operator chains far longer than the nesting limit."""
    links = " else ".join(f"if (x == {i}) {{ x + {i} }}" for i in range(2 * MAX_NESTING))
    chain = f"function F(x: int) -> int {{\n  {links} else {{ -1 }}\n}}\n"
    assert _interp(chain, x=1500) == 3000
    assert _interp(chain, x=-3) == -1
    assert _interp(P.sum_terms(10_000), x=2) == 20_000
    concat = " + ".join(['"ab"'] * 5_000)
    assert _interp(f"function F() -> int {{\n  ({concat}).length()\n}}\n") == 10_000
    mixed = " - ".join(f"x * {i}" for i in range(2000))
    assert _interp(f"function F(x: int) -> int {{\n  {mixed}\n}}\n", x=1) == -sum(range(1, 2000))


def test_if_chain_types_and_narrowing_survive_the_loop() -> None:
    """A chain's value type is the union of its branches; a diverging branch narrows what follows."""
    program = ingot.load_source("""
function F(x: int?) -> string {
  let v = if (x == null) { return "none"; } else if (x > 10) { "big" } else if (x > 0) { "small" } else { "neg" };
  v + ":" + (x + 1).to_string()
}
""")
    assert program.call("F", x=None) == "none"
    assert program.call("F", x=11) == "big:12"
    assert program.call("F", x=-1) == "neg:0"
    error = _compile_error('function F(x: int) -> int {\n  if (x > 1) { 1 } else if (x > 0) { "one" } else { 0 }\n}\n')
    assert error.diagnostics[0].code is Code.MISMATCH


@pytest.mark.parametrize("literal, column", [
    ("1" * 5000, 11),  # past Python's 4,300-digit conversion limit
    ("9" * 30, 11),
    ("9223372036854775808", 11),
    ("0x" + "f" * 5000, 11),
    ("0b" + "1" * 100, 11),
])
def test_integer_literals_no_type_holds_are_diagnostics(literal: str, column: int) -> None:
    error = _compile_error(f"function F(x: int) -> int {{\n  let y = {literal};\n  x\n}}\n")
    (d,) = error.diagnostics
    assert d.code is Code.INT_TOO_LARGE
    assert (d.span.start.line, d.span.start.column) == (2, column)
    assert d.span.end_offset - d.span.start_offset == len(literal)


def test_a_64_bit_literal_outside_int_is_the_range_diagnostic() -> None:
    error = _compile_error("function F(x: int) -> int {\n  let y = 9223372036854775807;\n  x\n}\n")
    assert error.diagnostics[0].code is Code.INT_RANGE
    assert "9223372036854775807" in error.diagnostics[0].message
