"""The cost a project's jobs are scheduled by (longest first), estimated from the program."""

from __future__ import annotations

from pathlib import Path

import ingot
from ingot.concolic.cost import estimated_cost, order_longest_first
from ingot.concolic.explore import Options

ROOT = Path(__file__).resolve().parents[2]


def cost(source: str, function: str, max_runs: int = 1000) -> float:
    program = ingot.load_source(source)
    return estimated_cost(program.view, function, Options(max_runs=max_runs))


COUNTED = """
function Retry(attempts: int) -> int {
  let n = 0;
  while (n < attempts) {
    n += 1;
    if (n == 7) { return n; }
  }
  n
}
"""
SIZED = """
function Sum(xs: int[]) -> int {
  let t = 0;
  let i = xs.length() - 1;
  while (i >= 0) {
    t += xs[i];
    if (t == 7) { return t; }
    i -= 1;
  }
  t
}
"""
FIXED = """
function Thrice(x: int) -> int {
  let t = 0;
  for (let i = 0; i < 3; i += 1) {
    t += x;
    if (t == 7) { return t; }
  }
  t
}
"""
STRAIGHT = """
function Sign(x: int) -> int {
  if (x > 0) { return 1; }
  if (x < 0) { return -1; }
  0
}
"""


def test_a_loop_counting_against_an_input_number_costs_more_as_the_budget_grows() -> None:
    # Bounded by a size (`max_len`) or by a constant, a loop's runs cost the same at any budget;
    # counting against an input, each generation may take it once more.
    assert cost(SIZED, "Sum", 3000) / cost(SIZED, "Sum", 1000) == 3
    assert cost(FIXED, "Thrice", 3000) / cost(FIXED, "Thrice", 1000) == 3
    assert cost(COUNTED, "Retry", 3000) / cost(COUNTED, "Retry", 1000) > 3
    assert cost(COUNTED, "Retry", 3000) > cost(SIZED, "Sum", 3000)


def test_a_function_without_loops_ends_after_its_few_paths() -> None:
    # Three paths, then the runs spent on panic sites after full coverage: not the budget.
    assert cost(STRAIGHT, "Sign", 10_000) == cost(STRAIGHT, "Sign", 1000) < cost(SIZED, "Sum", 1000)


def test_jobs_are_ordered_longest_first_ties_in_their_order() -> None:
    costs = {"a": 1.0, "b": 5.0, "c": 1.0, "d": 3.0}
    assert order_longest_first(list(costs), costs.__getitem__) == ["b", "d", "a", "c"]
