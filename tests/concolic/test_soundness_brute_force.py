"""Claims checked by enumeration: small programs over strings, maps and arrays, and every input
of a small domain run on the concrete VM.

The domain: ints in -4..4, strings over {a, b} of length up to 3, arrays and maps of at most two
elements (keys from {a, b}). An edge the exploration claims infeasible must be taken by no input
of the domain (every program here only needs inputs of that size to take each feasible edge),
and a `complete: true` exploration must have covered every edge some input of the domain takes.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

import ingot
from ingot.concolic.edges import edge_key, edge_label
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.inputs import assignment_for
from ingot.view import ListT, MapT, Prim, Ty

INTS = range(-4, 5)
SMALL_INTS = range(-2, 3)  # elements of arrays and map values (keeps the product small)
STRINGS = ["".join(p) for n in range(4) for p in itertools.product("ab", repeat=n)]


def values(ty: Ty, nested: bool = False) -> list[Any]:
    """Every value of `ty` in the domain."""
    if isinstance(ty, Prim):
        if ty.name == "int":
            return list(SMALL_INTS if nested else INTS)
        if ty.name == "bool":
            return [False, True]
        if ty.name == "string":
            return STRINGS[:7] if nested else STRINGS  # elements: up to two letters
    if isinstance(ty, ListT):
        elems = values(ty.elem, True)
        return [list(p) for n in range(3) for p in itertools.product(elems, repeat=n)]
    if isinstance(ty, MapT):
        vals = values(ty.value, True)
        out: list[Any] = [{}]
        for n in (1, 2):
            for keys in itertools.permutations(["a", "b"], n):
                out += [dict(zip(keys, vs)) for vs in itertools.product(vals, repeat=n)]
        return out
    raise AssertionError(f"no domain for {ty}")


def inputs(program: ingot.Program, function: str) -> Iterator[dict[str, Any]]:
    params = program.view.function(function).params
    for combo in itertools.product(*(values(ty) for _, ty in params)):
        out: dict[str, Any] = {}
        for (name, ty), value in zip(params, combo):
            assignment_for(program.view, ty, name, value, out)
        yield out


PROGRAMS = {
    # a dead edge behind two string conditions
    "prefix": """
function F(s: string) -> int {
  if (s.starts_with("ab")) {
    if (s.length() < 2) {
      return 9;
    }
    if (s == "aba") {
      return 1;
    }
    return 2;
  }
  0
}
""",
    # a map that has a key cannot be empty; the value found decides the rest
    "map_has": """
function F(m: map<string, int>, k: string) -> int {
  if (m.has(k)) {
    if (m.length() == 0) {
      return 9;
    }
    if (m[k] == 2 && k == "b") {
      return 1;
    }
    return 2;
  }
  if (m.length() == 2) {
    return 3;
  }
  0
}
""",
    # a write of a missing key grows the map by one
    "map_write": """
function F(m: map<string, int>, k: string) -> int {
  let before = m.length();
  m[k] = 1;
  if (m.length() == before) {
    if (m.has(k)) {
      return 1;
    }
    return 9;
  }
  if (m.length() == 3) {
    return 2;
  }
  0
}
""",
    # keys in insertion order
    "map_keys": """
function F(m: map<string, int>) -> int {
  let ks = m.keys();
  if (ks.length() == 2 && ks[0] == "b") {
    if (ks[1] == "b") {
      return 9;
    }
    return 1;
  }
  0
}
""",
    # an array's elements and length against each other
    "array": """
function F(xs: int[], t: int) -> int {
  let s = 0;
  for (let x in xs) {
    if (x > 0) {
      s += x;
    }
  }
  if (s > 3) {
    if (xs.length() == 0) {
      return 9;
    }
    return 1;
  }
  if (s == t && t < 0) {
    return 8;
  }
  0
}
""",
    # a product fixes one factor (a concretization before the dead-looking edge)
    "product": """
function F(p: int, q: int, s: string) -> int {
  if (p * q == 12 && s.length() == 1) {
    if (p > 3) {
      return 1;
    }
    return 2;
  }
  0
}
""",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_no_claim_is_contradicted_by_an_input_of_the_small_domain(name: str) -> None:
    program = ingot.load(PROGRAMS[name])
    result = Explorer(program.view, "F", Options(seed=0, max_runs=600, max_len=2, max_string_length=3)).explore()
    checker = Explorer(program.view, "F", Options())
    keys = {edge_key(e) for e in result.edges}
    taken: set[tuple[str, int, int]] = set()
    for assignment in inputs(program, "F"):
        taken |= set(checker.run(assignment).trace.edges) & keys
    wrong = sorted(edge_label(program.view, k) for k in (result.infeasible - result.covered) & taken)
    assert not wrong, f"claimed infeasible, yet taken: {wrong}"
    if result.complete:
        missed = sorted(edge_label(program.view, k) for k in taken - result.covered)
        assert not missed, f"complete, yet not covered: {missed}"


DEAD = """
function F(m: map<string, int>, k: string) -> int {
  if (m.has(k)) {
    if (m.length() == 0) {
      return 9;
    }
    return 2;
  }
  if (m.length() == 2 && m.has("b")) {
    return 3;
  }
  0
}
"""
PROGRAMS["map_dead"] = DEAD


def test_an_exhaustive_search_over_a_symbolic_map_claims_its_dead_edge() -> None:
    """The claims are not vacuous: with `has` and `length` modelled exactly, nothing is fixed and
    the search is exhaustive, so the edge no map can take is proven infeasible (and no other)."""
    program = ingot.load(DEAD)
    # Revisits enough for every path of this small program, whatever the random rounds find (at
    # the default cap a path they find may leave a revisit unasked, and the search incomplete).
    options = Options(seed=0, max_len=2, max_string_length=3, revisits=64)
    result = Explorer(program.view, "F", options).explore()
    assert result.complete, result.limits
    labels = [edge_label(program.view, k) for k in result.infeasible - result.covered]
    assert len(labels) == 1 and "m.length() == 0" in labels[0] and "(true)" in labels[0], labels
