"""Overflow and sign tests the compiled tier drops must be the ones that cannot fail.

A counting loop's `i += 1` under `i < n` cannot overflow (a counted loop is a `range`) and a non-negative
counter's `% k` needs no sign test, so the generated code omits those tests; every
other `+ 1` keeps its overflow test. Each program runs on both tiers at the edges
of the int range.
"""

from __future__ import annotations

import re

import pytest

import ingot
from ingot.bex.compiled import CompiledVM, source_of
from ingot.bex.vm import VM
from ingot.runtime.errors import BamlError
from ingot.runtime.values import INT_MAX

COUNTING = """
function F(n: int) -> int {
  let s = 0;
  for (let i = 0; i < n; i += 1) {
    s += i % 3;
  }
  s
}
"""
# The test holds, then the counter changes before the increment: the increment keeps its test.
RESET = """
function F(n: int) -> int {
  let i = 0;
  let k = 0;
  while (i < n) {
    i = n;
    i += 1;
    k += 1;
  }
  i
}
"""
# `<=` proves nothing about `i + 1`.
AT_MOST = """
function F(n: int) -> int {
  let i = n - 2;
  while (i <= n) {
    i += 1;
  }
  i
}
"""


def outcome(vm_class: type[VM], program: ingot.Program, n: int) -> object:
    try:
        return ("ok", vm_class(program.bex).call(program.function("F"), [n]))
    except BamlError as e:
        return ("error", e.kind, e.message)


def test_a_counting_loop_has_no_overflow_or_sign_test() -> None:
    lines = [line.strip() for line in source_of(ingot.load_source(COUNTING).bex).splitlines()]
    # a counted loop: Python's `range` steps the counter (no test, no increment, no overflow test)
    assert any(re.fullmatch(r"for (l\d+) in range\(\1, l1\):", line) for line in lines)
    assert not any(re.fullmatch(r"(l\d+) = \1 \+ 1", line) for line in lines)
    assert any(re.fullmatch(r"[ls]\d+ = l\d+ % 3", line) for line in lines)  # the counter is never negative


def test_other_increments_keep_their_test() -> None:
    for source in (RESET, AT_MOST):
        assert f"<= {INT_MAX - 1}" in source_of(ingot.load_source(source).bex)


@pytest.mark.parametrize("source", [COUNTING, RESET, AT_MOST], ids=["counting", "reset", "at-most"])
@pytest.mark.parametrize("n", [0, 5, INT_MAX - 1, INT_MAX])
def test_both_tiers_agree_at_the_edges(source: str, n: int) -> None:
    program = ingot.load_source(source)
    if source is COUNTING and n > 5:
        return  # a loop to the maximum would not end
    compiled = outcome(CompiledVM, program, n)
    assert compiled == outcome(VM, program, n)


def test_the_overflow_is_still_caught_where_no_fact_holds() -> None:
    for source in (RESET, AT_MOST):
        program = ingot.load_source(source)
        assert outcome(CompiledVM, program, INT_MAX)[:2] == ("error", "IntegerOverflow")


# A local that only ever holds an array the function made: its indexing leans on Python's
# IndexError; negative, past-the-end and huge indices must panic as on the interpreter.
ARRAY_LOCAL = """
function F(n: int) -> int {
  let xs = [1, 2, 3];
  let ys = xs;
  ys[n] = 7;
  xs[n - 1] + ys[n]
}
"""


def test_an_array_local_is_indexed_without_type_tests() -> None:
    text = source_of(ingot.load_source(ARRAY_LOCAL).bex)
    assert "except IndexError" in text and "type(l" not in text.split("except IndexError")[0]


@pytest.mark.parametrize("n", [0, 1, 2, 3, -1, -3, INT_MAX, -INT_MAX - 1])
def test_array_locals_index_like_the_interpreter(n: int) -> None:
    program = ingot.load_source(ARRAY_LOCAL)
    assert outcome(CompiledVM, program, n) == outcome(VM, program, n)
