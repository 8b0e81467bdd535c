"""A branch a constant or the tested value's own type decides has no edge for its other side.

`match (s)` on `s: Shape` tests `is_type(s, Shape)` before each pattern's fields, `true || x`
lowers to `branch const true`, and a catch arm `baml.errors.ParseError => ...` around
`int.parse` alone tests a class nothing else could have: no input takes the other edge.
Counted, those edges kept such functions from full coverage, and the search ran to its budget
looking for them. Every test here also checks that no run of the search took an edge left out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ingot
from ingot.concolic.edges import edge_key, edge_label
from ingot.concolic.explore import Explorer, Options, RunResult

# `match (s)` on `s: Shape`, each pattern naming fields
SHAPES = (Path(__file__).resolve().parents[1] / "conformance" / "extra" / "match_class_shape.baml").read_text()

ARRAYS = """
function Head(xs: int[], m: map<string, int>) -> string {
  let h = match (xs) {
    [] => "empty",
    [let a, ..let rest] => `head ${a}`,
  };
  if (true || xs.length() > 2) {
    h = h + "!";
  }
  if (false && m.has("k")) {
    h = h + "?";
  }
  h
}
"""

UNION = """
class Circle {
  r int
}
class Square {
  side int
}
function Area(s: Circle | Square) -> int {
  match (s) {
    Circle { r: 0 } => 0,
    Circle => 3 * s.r * s.r,
    Square => s.side * s.side,
  }
}
"""


def explore(src: str, fn: str) -> tuple[ingot.Program, Any, set[tuple[int, int]]]:
    """The program, its exploration's report and the (block, target) of every edge of `fn`
    any of the search's runs took."""
    program = ingot.load_source(src)
    ex = Explorer(program.view, fn, Options(seed=0, max_runs=2000))
    taken: set[tuple[int, int]] = set()
    record = ex.record

    def keep(run: RunResult, now: float) -> bool:
        taken.update((b, t) for (f, b, t) in run.trace.edges if f == fn)
        return record(run, now)

    ex.record = keep  # type: ignore[method-assign]
    return program, ex.explore(), taken


def left_out(program: ingot.Program, fn: str) -> set[tuple[int, int]]:
    """(block, target) of the branch and switch edges of `fn` not counted as branch edges."""
    view = program.view.function(fn)
    every = {(b.id, t) for b in view.blocks if b.terminator.kind in ("branch", "switch")
             for t in b.terminator.successors}
    return every - {(e.site.block, e.target) for e in view.branch_edges()}


def test_a_match_on_a_class_value_counts_no_type_test_edge_and_is_covered_in_full() -> None:
    program, report, taken = explore(SHAPES, "Classify")
    dead = left_out(program, "Classify")
    assert len(dead) == SHAPES.split("match (s)")[1].count("Shape {")  # one `is_type(s, Shape)` per pattern
    assert not taken & dead
    assert report.covered == {edge_key(e) for e in report.edges}
    assert report.stopped_by in ("full-coverage", "exhausted")  # not the budget: nothing left to look for


def test_constant_conditions_and_an_array_type_test_leave_only_input_decided_edges() -> None:
    program, report, taken = explore(ARRAYS, "Head")
    dead = left_out(program, "Head")
    # the array type tests' false edges, `true ||`'s false side, `false &&`'s true side, and the
    # edges of the blocks only those reach (`xs.length() > 2`, `m.has("k")`)
    assert len(dead) >= 5
    assert not taken & dead
    assert report.covered == {edge_key(e) for e in report.edges}
    assert report.stopped_by in ("full-coverage", "exhausted")  # not the budget: nothing left to look for


def test_a_type_test_on_a_union_keeps_both_edges() -> None:
    program, report, _ = explore(UNION, "Area")
    labels = " ".join(edge_label(program.view, edge_key(e)) for e in report.edges)
    assert "(true) at 10:5 `Circle { r: 0 }`" in labels and "(false) at 10:5 `Circle { r: 0 }`" in labels
    assert report.covered == {edge_key(e) for e in report.edges}


CATCHES = """
class Bad {
  code int
}
function Risky(s: string) -> int {
  if (s == "bad") { throw Bad { code: 1 }; }
  int.parse(s)
}
function Typed(s: string) -> int {
  int.parse(s) catch (e) {
    baml.errors.ParseError => -1,
  }
}
function Namespaced(s: string) -> int {
  baml.Int.parse(s) catch (e) {
    _ => -1,
  }
}
function NeverThrown(s: string) -> int {
  int.parse(s) catch (e) {
    baml.errors.InvalidArgument => -2,
    baml.errors.ParseError => -1,
  }
}
function ThroughAFunction(s: string) -> int {
  Risky(s) catch (e) {
    baml.errors.ParseError => -1,
  }
}
"""


def test_an_error_class_test_the_protected_code_decides_has_no_edge_for_its_other_side() -> None:
    # int.parse throws only ParseError: the arm's test never fails, and the rethrow is dead
    for fn in ("Typed", "Namespaced"):
        program, report, taken = explore(CATCHES, fn)
        assert left_out(program, fn)
        assert not taken & left_out(program, fn)
        assert report.covered == {edge_key(e) for e in report.edges}
        assert report.stopped_by in ("full-coverage", "exhausted")


def test_an_arm_for_an_error_the_code_cannot_throw_has_no_true_edge() -> None:
    program, report, taken = explore(CATCHES, "NeverThrown")
    labels = [edge_label(program.view, edge_key(e)) for e in report.edges]
    assert not any("(true)" in label and "InvalidArgument" in label for label in labels)
    assert left_out(program, "NeverThrown")
    assert not taken & left_out(program, "NeverThrown")
    assert report.covered == {edge_key(e) for e in report.edges}


def test_a_catch_around_a_user_function_keeps_both_edges_of_its_test() -> None:
    program, report, _ = explore(CATCHES, "ThroughAFunction")
    labels = " ".join(edge_label(program.view, edge_key(e)) for e in report.edges)
    assert "(true) at 27:5 `baml.errors.ParseError`" in labels
    assert "(false) at 27:5 `baml.errors.ParseError`" in labels


STRING_CATCHES = """
function Score(raw: string) -> int {
  let slash = raw.index_of("/") ?? raw.length();
  let got = int.parse(raw.slice(0, slash).trim().to_lower_case()) catch (e) {
    _ => -1
  };
  if (got < 0) {
    return -1;
  }
  got
}
function Fields(raw: string) -> int {
  let n = raw.split(",").length() catch (e) {
    _ => -1
  };
  n
}
"""


def test_a_catch_around_string_members_that_cannot_panic_has_no_rethrow_edge() -> None:
    # slice, trim and to_lower_case limit no size and fail on no index: the registry says they
    # never panic, so the catch-all's panic test is decided
    program, report, taken = explore(STRING_CATCHES, "Score")
    assert left_out(program, "Score")
    assert not taken & left_out(program, "Score")
    assert report.covered == {edge_key(e) for e in report.edges}


def test_a_catch_around_a_member_bounded_by_a_size_limit_keeps_its_rethrow_edge() -> None:
    # `split` panics (AllocFailure) past the array size limit
    program, report, _ = explore(STRING_CATCHES, "Fields")
    assert not left_out(program, "Fields")
    assert any("(true)" in edge_label(program.view, edge_key(e)) for e in report.edges)
