"""Facts the compiled tier derives to drop type, sign and overflow tests must hold wherever it uses them.

Each fact gets a program where it holds (the test is gone from the generated code) and
programs where it must not be used (the test stays), and every program runs on both tiers.
"""

from __future__ import annotations

import re

import pytest

import ingot
from ingot.bex.compiled import CompiledVM, source_of
from ingot.bex.vm import VM
from ingot.runtime.errors import BamlError
from ingot.runtime.values import INT_MAX


def outcome(vm_class: type[VM], program: ingot.Program, *args: object) -> object:
    try:
        return ("ok", vm_class(program.bex).call(program.function("F"), list(args)))
    except BamlError as e:
        return ("error", e.kind, e.message)


def agree(source: str, *args: object) -> object:
    program = ingot.load_source(source)
    compiled = outcome(CompiledVM, program, *args)
    assert compiled == outcome(VM, program, *args)
    return compiled


# -- element kinds: an array the function builds from ints and keeps to itself holds ints

INT_ELEMENTS = """
function F(n: int) -> int {
  let xs: int[] = [3];
  for (let i = 0; i < n; i += 1) { xs.push((i * 7) % 5); }
  xs[1] = xs[0];
  let best = xs[0];
  for (let i = 0; i < xs.length(); i += 1) { if (xs[i] > best) { best = xs[i]; } }
  best
}
"""
# a float pushed on one path: the elements are not all ints (`==` is BAML's strict equality)
MIXED_PUSH = """
function F(n: int) -> bool {
  let xs: (int | float)[] = [1];
  if (n > 0) { xs.push(1.0); } else { xs.push(1); }
  xs[0] == xs[1]
}
"""
# the array escapes to a callee (through a copy) that pushes a float
ESCAPES = """
function Put(xs: (int | float)[]) -> int { xs.push(1.0); 0 }
function F(n: int) -> bool {
  let xs: (int | float)[] = [1];
  let ys = xs;
  if (n > 0) { Put(ys); } else { ys.push(1); }
  xs[0] == xs[1]
}
"""
# the array is returned: whoever gets it may push anything (its reads keep their tests)
RETURNED = """
function Make(n: int) -> (int | float)[] {
  let xs: (int | float)[] = [n];
  xs
}
function F(n: int) -> bool {
  let xs = Make(n);
  xs.push(1.0);
  xs[0] == xs[1]
}
"""


def test_reads_of_an_int_array_the_function_keeps_are_ints() -> None:
    text = source_of(ingot.load_source(INT_ELEMENTS).bex)
    assert "_gt(" not in text and "type(" not in text
    for n in (0, 1, 5, 40):
        agree(INT_ELEMENTS, n)


@pytest.mark.parametrize("source", [MIXED_PUSH, ESCAPES, RETURNED], ids=["mixed-push", "escapes", "returned"])
def test_arrays_that_may_hold_other_values_keep_their_tests(source: str) -> None:
    assert "_eq(" in source_of(ingot.load_source(source).bex)
    assert agree(source, 1) == ("ok", False)
    agree(source, 0)


# -- int ranges: what a dominating branch, a store or an array access proves about an int

INT_MIN = -INT_MAX - 1
# `not (n < 2)` dominates `n - 1` and `n - 2`: they cannot overflow
DOMINATED = """
function F(n: int) -> int {
  if (n < 2) { return n; }
  (n - 1) + (n - 2)
}
"""
# the bound holds on the other branch only: `n - 2` here can overflow
OTHER_BRANCH = """
function F(n: int) -> int {
  if (n < 2) { return n - 2; }
  n
}
"""
# `m >= 2` (and so `n >= 2`, its copy) holds, but a store replaces it: `m - 2` can overflow
KILLED = """
function F(n: int) -> int {
  let m = n;
  if (m >= 2) {
    m = 0 - n;
    return m - 2;
  }
  0
}
"""
# a step of two under `i < n`: `i + 2` can overflow (the test proves only `i + 1` safe)
STEP_TWO = """
function F(n: int) -> int {
  let i = n - 3;
  while (i < n) { i += 2; }
  i
}
"""
# a map read does not bound its key: `k + 1` keeps its test
MAP_KEY = """
function F(n: int) -> int {
  let m: map<int, int> = {};
  m[n] = 1;
  let k = n;
  let v = m[k];
  k + v
}
"""
# an array read bounds its index: `j + 1` needs no test
ARRAY_INDEX = """
function F(n: int) -> int {
  let xs: int[] = [4, 5, 6];
  let j = n;
  let v = xs[j];
  j + 1 + v
}
"""
EDGES = [INT_MIN, INT_MIN + 1, INT_MIN + 2, -3, -1, 0, 1, 2, 3, INT_MAX - 2, INT_MAX - 1, INT_MAX]


def test_a_dominating_branch_drops_the_overflow_tests_it_rules_out() -> None:
    text = source_of(ingot.load_source(DOMINATED).bex)
    assert "_sub(" not in text and "_add(" in text  # (the sum of the two is not bounded)
    # `j + 1` after `xs[j]`: no guard (the sum with the element keeps its test)
    text = source_of(ingot.load_source(ARRAY_INDEX).bex)
    assert re.search(r"^ *s\d+ = l\d+ \+ 1$", text, re.M) and "<= 4611686018427387902" not in text


@pytest.mark.parametrize("source", [OTHER_BRANCH, KILLED, STEP_TWO, MAP_KEY],
                         ids=["other-branch", "killed", "step-two", "map-key"])
def test_where_no_fact_holds_the_test_stays(source: str) -> None:
    text = source_of(ingot.load_source(source).bex)
    assert "_sub(" in text or "_add(" in text


@pytest.mark.parametrize("source", [DOMINATED, OTHER_BRANCH, KILLED, STEP_TWO, MAP_KEY, ARRAY_INDEX],
                         ids=["dominated", "other-branch", "killed", "step-two", "map-key", "array-index"])
@pytest.mark.parametrize("n", EDGES)
def test_both_tiers_agree_at_the_edges(source: str, n: int) -> None:
    if source is STEP_TWO and n < INT_MAX - 10:
        n = INT_MAX - (n % 5)  # (near the top, where the loop ends or overflows at once)
    agree(source, n)


@pytest.mark.parametrize(("source", "n"), [(OTHER_BRANCH, INT_MIN), (KILLED, INT_MAX), (STEP_TWO, INT_MAX),
                                           (MAP_KEY, INT_MAX)])
def test_the_overflow_still_panics(source: str, n: int) -> None:
    assert agree(source, n)[:2] == ("error", "IntegerOverflow")


# -- sums in a counted loop: one copy without their overflow tests, taken when a test at the
# loop's entry shows that no round can overflow, and the checked copy otherwise

SUMS = """
function F(n: int, start: int) -> int {
  let s = start;
  let t = 0;
  for (let i = 0; i < n; i += 1) {
    if (i % 2 == 0) { s += i; } else { s -= 3; }
    t += 1;
  }
  s + t
}
"""
# `s` is also multiplied: it is no sum, and its `+ i` keeps its test in the only copy
NOT_A_SUM = """
function F(n: int, start: int) -> int {
  let s = start;
  for (let i = 0; i < n; i += 1) { s += i; s = s * 1; }
  s
}
"""


def test_a_loop_with_sums_has_a_copy_without_their_tests() -> None:
    text = source_of(ingot.load_source(SUMS).bex)
    assert text.count("for l") == 2 and re.search(r"^ *l\d+ = l\d+ \+ l\d+$", text, re.M)
    assert "_add(" in text and "_sub(" in text  # (the checked copy)
    assert source_of(ingot.load_source(NOT_A_SUM).bex).count("for l") == 1


@pytest.mark.parametrize(("n", "start"), [(0, 0), (10, 0), (1000, -5), (10, INT_MAX - 5), (10, INT_MIN + 5),
                                          (10, INT_MAX), (10, INT_MIN), (3, INT_MAX - 2), (2, INT_MIN + 3)])
@pytest.mark.parametrize("source", [SUMS, NOT_A_SUM], ids=["sums", "not-a-sum"])
def test_sums_overflow_where_the_interpreter_does(source: str, n: int, start: int) -> None:
    agree(source, n, start)


def test_a_sum_that_overflows_panics_on_the_checked_copy() -> None:
    assert agree(SUMS, 10, INT_MAX - 5)[:2] == ("error", "IntegerOverflow")
    assert agree(SUMS, 10, INT_MIN + 1)[:2] == ("error", "IntegerOverflow")


# -- a float literal in an order test is no NaN: half of BAML's NaN handling goes, NaN still sorts last

FLOAT_ORDER = """
function F(x: float) -> int {
  let r = 0;
  if (x > 1.5) { r += 1; }
  if (x >= 1.5) { r += 2; }
  if (x < 1.5) { r += 4; }
  if (x <= 1.5) { r += 8; }
  if (1.5 > x) { r += 16; }
  if (1.5 >= x) { r += 32; }
  if (1.5 < x) { r += 64; }
  if (1.5 <= x) { r += 128; }
  r
}
"""


@pytest.mark.parametrize("x", [float("nan"), 1.5, 0.0, -0.0, 2.0, float("inf"), float("-inf")])
def test_order_against_a_float_literal_matches_the_interpreter(x: float) -> None:
    assert "1.5 == 1.5" not in source_of(ingot.load_source(FLOAT_ORDER).bex)
    agree(FLOAT_ORDER, x)
