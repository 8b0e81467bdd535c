"""Claims an exploration makes must be true: an edge reported infeasible is taken by no input,
and `complete` (exhaustive) is only reported when every edge some input takes was covered.

Each program has small int inputs; brute force over a small domain finds the edges inputs can
take (replayed on the same tracker the explorer uses) and checks the report against them.
"""

from __future__ import annotations

import itertools

import pytest

import ingot
from ingot.concolic.edges import edge_label
from ingot.concolic.explore import Explorer, Options

DOMAIN = range(-4, 8)

PROGRAMS = {
    # a divisor computed from inputs: the operation fixes it (a concretization), so an unsat
    # answer after it proves nothing
    "modulo": ("""
function F(a: int, b: int, c: int) -> int {
  let r = a % (b - c);
  if (r == 3) {
    if (b > 5) {
      return 1;
    }
    return 2;
  }
  0
}
""", 3),
    # a product of two inputs against a constant
    "product": ("""
function F(p: int, q: int) -> int {
  if (p * q == 12) {
    if (p > 2 && q > 2) {
      return 1;
    }
    return 2;
  }
  0
}
""", 2),
    # edges no input can take, in a program exploration can exhaust
    "nested": ("""
function F(x: int, y: int) -> int {
  if (x > 5) {
    if (x < 3) {
      return 9;
    }
    if (y == x) {
      return 1;
    }
  }
  0
}
""", 2),
    # a loop whose count is an input
    "loop": ("""
function F(n: int, k: int) -> int {
  let i = 0;
  let s = 0;
  while (i < n) {
    s += i;
    i += 1;
  }
  if (s == k && k > 5) {
    return 1;
  }
  0
}
""", 2),
}


def brute_force_edges(explorer: Explorer, names: list[str], arity: int) -> set[tuple[str, int, int]]:
    taken: set[tuple[str, int, int]] = set()
    for values in itertools.product(DOMAIN, repeat=arity):
        run = explorer.run(dict(zip(names, values)))
        taken |= set(run.trace.edges)
    return taken


@pytest.mark.parametrize("name", sorted(PROGRAMS))
@pytest.mark.parametrize("max_steps", [200_000, 40])
def test_infeasible_and_complete_claims_hold_against_brute_force(name: str, max_steps: int) -> None:
    source, arity = PROGRAMS[name]
    program = ingot.load(source)
    options = Options(seed=0, max_steps=max_steps, max_runs=200)
    explorer = Explorer(program.view, "F", options)
    result = explorer.explore()
    names = [p for p, _ in program.view.function("F").params]
    checker = Explorer(program.view, "F", Options(max_steps=200_000))
    taken = brute_force_edges(checker, names, arity) & {(e.site.function, e.site.block, e.target) for e in result.edges}
    assert not (result.infeasible - result.covered) & taken, "an edge claimed infeasible is taken by an input"
    if result.complete:
        assert taken <= result.covered, "complete, yet an edge some input takes was not covered"


def test_a_run_cut_by_the_step_budget_makes_the_exploration_incomplete() -> None:
    program = ingot.load(PROGRAMS["loop"][0].replace("k > 5", "k > 500"))
    result = Explorer(program.view, "F", Options(seed=0, max_steps=60, max_runs=100)).explore()
    assert "step-limit" in result.limits
    assert not result.complete
    assert not result.infeasible


def test_an_exhaustive_search_claims_the_dead_edge_infeasible() -> None:
    program = ingot.load(PROGRAMS["nested"][0])
    result = Explorer(program.view, "F", Options(seed=0)).explore()
    assert result.complete, result.limits
    labels = {k[2] for k in result.infeasible}
    assert len(result.infeasible) == 1 and labels  # `x < 3` under `x > 5`


SIZES = """
function Sizes(xs: int[], s: string) -> int {
  if (xs.length() > 10) {
    return 1;
  }
  if (s.length() > 40) {
    return 2;
  }
  if (xs.length() < 0 || s.length() < 0) {
    return 3;
  }
  0
}
"""


def test_an_edge_only_longer_inputs_take_is_not_claimed_infeasible(tmp_path) -> None:
    """Eleven elements or forty-one characters are past the default caps on generated inputs
    (`max_len`, `max_string_length`, held fixed), not past what the function accepts: those
    edges stay uncovered and are not claimed infeasible, and the search says it is best effort."""
    path = tmp_path / "sizes.baml"
    path.write_text(SIZES)
    program = ingot.load(path)
    assert program.call("Sizes", xs=list(range(11)), s="") == 1
    assert program.call("Sizes", xs=[], s="x" * 41) == 2
    result = Explorer(program.view, "Sizes", Options(seed=0, grow_strings_to=None)).explore()
    status = {}
    for e in result.edges:
        key = (e.site.function, e.site.block, e.target)
        label = edge_label(program.view, key)
        status[label.split("`")[1] + " " + label.split(" (")[1].split(")")[0]] = \
            "covered" if key in result.covered else "infeasible" if key in result.infeasible else "uncovered"
    assert status["xs.length() > 10 true"] == "uncovered"
    assert status["s.length() > 40 true"] == "uncovered"
    assert result.stopped_by == "exhausted" and not result.complete
    assert result.limits.get("input-sizes", 0) >= 1


def test_an_edge_no_input_of_any_size_takes_is_still_claimed_infeasible(tmp_path) -> None:
    path = tmp_path / "negative.baml"
    path.write_text("""
function Negative(xs: int[], n: int) -> int {
  if (xs.length() < 0) {
    return 1;
  }
  if (n > 3 && n < 2) {
    return 2;
  }
  0
}
""")
    program = ingot.load(path)
    result = Explorer(program.view, "Negative", Options(seed=0)).explore()
    claimed = {edge_label(program.view, k).split("`")[1] for k in result.infeasible}
    assert result.complete
    assert claimed == {"xs.length() < 0", "n < 2"}


def test_a_map_input_the_caps_leave_empty_keeps_the_search_from_claiming_complete(tmp_path) -> None:
    """At `--max-len 0` a map input has no slots, so `m.has("k")` is never a query: the search
    runs out of paths without having tried a key, and must not call that exhaustive."""
    path = tmp_path / "lookup.baml"
    path.write_text('function Lookup(m: map<string, int>) -> int {\n'
                    '  if (m.has("k")) {\n'
                    '    return 1;\n'
                    '  }\n'
                    '  0\n'
                    '}\n')
    program = ingot.load(path)
    assert program.call("Lookup", m={"k": 1}) == 1
    result = Explorer(program.view, "Lookup", Options(seed=0, max_len=0)).explore()
    assert result.stopped_by == "exhausted" and not result.complete
    assert result.limits.get("input-sizes", 0) >= 1 and not result.infeasible


def test_an_unsat_answer_over_floats_is_not_a_proof(tmp_path) -> None:
    """Floats are solved as reals, where `x + 1.0 == x` has no solution; as a double, 1e16 is
    one. The edge stays uncovered, not infeasible, and the search says it is best effort."""
    path = tmp_path / "absorb.baml"
    path.write_text('function Absorb(x: float) -> int {\n'
                    '  if (x + 1.0 == x) {\n'
                    '    return 1;\n'
                    '  }\n'
                    '  0\n'
                    '}\n')
    program = ingot.load(path)
    assert program.call("Absorb", x=1e16) == 1
    result = Explorer(program.view, "Absorb", Options(seed=0)).explore()
    assert not result.infeasible and not result.complete
    assert result.limits.get("float-reals", 0) >= 1
