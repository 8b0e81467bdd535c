"""Steps on the compiled tier: the same count, the same stopping point, the same panic as the interpreter.

The compiled tier keeps a function's step count in Python locals and runs counted loops
as `range` loops; a budget must still stop a run at exactly the step the interpreter
stops it at (same panic, message, trace and count), through counted loops with `break`,
`continue` and `return`, calls and closure calls inside loops, panics that escape a loop
into a caller's `catch`, constants' initialisers, and with a periodic check (a timeout).
"""

from __future__ import annotations

from typing import Any

import pytest

import ingot
from ingot.bex.compiled import CompiledVM, source_of
from ingot.bex.vm import VM
from ingot.convert import to_python
from ingot.runtime.errors import BamlError

PROGRAM = """
class Oops {
  at int
}
const BASE = Sum(4);
function Sum(n: int) -> int {
  let s = 0;
  for (let i = 0; i < n; i += 1) { s += i; }
  s
}
function Skips(n: int) -> int {
  let s = 0;
  for (let i = 0; i < n; i += 1) {
    if (i % 3 == 0) { continue; }
    if (i > 20) { break; }
    s += Sum(i % 4);
  }
  s
}
function Early(n: int) -> int {
  for (let i = 2; i < n; i += 1) {
    if (i * i > 40) { return i; }
  }
  -1
}
function Nested(n: int) -> int {
  let s = 0;
  for (let i = 0; i < n; i += 1) {
    for (let j = 0; j < i; j += 1) { s += j; }
    let k = 0;
    while (k < i) { k += 2; }
    s += k;
  }
  s
}
function Thrower(n: int) -> int {
  for (let i = 0; i < n; i += 1) {
    if (i == 7) { throw Oops { at: i }; }
  }
  n
}
function Catcher(n: int) -> int {
  let total = 0;
  for (let i = 0; i < 3; i += 1) {
    total += Thrower(n + i) catch (e) {
      Oops => 100,
    };
  }
  total + BASE
}
function Closures(n: int) -> int {
  let add = (x: int) -> int { Sum(x) + 1 };
  let s = 0;
  for (let i = 0; i < n; i += 1) { s += add(i % 5); }
  s
}
function Constant(n: int) -> int {
  let s = 0;
  for (let i = 0; i < n; i += 1) { s += BASE; }
  s
}
function Down(n: int) -> int {
  let s = 0;
  for (let i = n; i < 10; i += 1) { s += i; }
  s
}
"""

CALLS = [("Skips", 30), ("Early", 50), ("Nested", 7), ("Catcher", 5), ("Closures", 9), ("Constant", 6),
         ("Down", -3), ("Sum", 40)]


def outcome(vm_class: type[VM], program: ingot.Program, fn: str, n: int, **limits: Any) -> tuple[Any, ...]:
    vm = vm_class(program.bex, **limits)
    try:
        return ("ok", to_python(vm.call(program.function(fn), [n])), vm.steps)
    except BamlError as e:
        return ("error", e.kind, e.message, [str(f) for f in e.trace], vm.steps)


@pytest.fixture(scope="module")
def program() -> ingot.Program:
    return ingot.load_source(PROGRAM)


def test_the_loops_are_counted_loops(program: ingot.Program) -> None:
    assert source_of(program.bex, True).count(" in range(") >= 7  # (not the two in a `pc` dispatch)


@pytest.mark.parametrize("fn,n", CALLS)
def test_an_unlimited_run_counts_like_the_interpreter(program: ingot.Program, fn: str, n: int) -> None:
    expected = outcome(VM, program, fn, n, max_steps=10**9)
    assert expected[0] == "ok"
    assert outcome(CompiledVM, program, fn, n, max_steps=10**9) == expected
    assert outcome(CompiledVM, program, fn, n, max_steps=10**9, timeout=60.0) == expected
    assert outcome(CompiledVM, program, fn, n)[:2] == expected[:2]  # no budget: no step code at all


@pytest.mark.parametrize("fn,n", CALLS)
def test_every_budget_stops_where_the_interpreter_stops(program: ingot.Program, fn: str, n: int) -> None:
    total = outcome(VM, program, fn, n, max_steps=10**9)[-1]
    for budget in sorted({0, 1, 2, 3, 5, 8, 13, total // 3, total // 2, total - 2, total - 1, total, total + 1}):
        expected = outcome(VM, program, fn, n, max_steps=budget)
        assert outcome(CompiledVM, program, fn, n, max_steps=budget) == expected, budget
        assert outcome(CompiledVM, program, fn, n, max_steps=budget, timeout=60.0) == expected, budget


# A counted loop's two steps per round (the body's jump back, then the step's) are one test
# in the generated code; a budget that runs out at either must still stop there (same count, panic, trace).
TWO_LINES = """
function Lines(n: int) -> int {
  let s = 0;
  for (let i = 0;
       i < n;
       i += 1) {
    s += i;
    if (s > 1000) { s = 0; }
  }
  s
}
"""


def test_a_budget_ends_on_either_step_of_a_counted_loops_round() -> None:
    program = ingot.load_source(TWO_LINES)
    assert "(_r := _r - 2)" in source_of(program.bex, True)
    total = outcome(VM, program, "Lines", 6, max_steps=10**9)[-1]
    for budget in range(total + 2):
        expected = outcome(VM, program, "Lines", 6, max_steps=budget)
        assert outcome(CompiledVM, program, "Lines", 6, max_steps=budget) == expected, budget
