"""Conditions on counts of parts: a loop over `split`/`lines` counts what it saw, and a branch
after the loop tests the count (no path entry to negate).

Each program in `counted_parts/` plants one bug behind such a count and two more conditions.
Witnesses prove every branch edge feasible and the bug real on the real engine (baml_bridge,
under `-m slow`) and on ingot; exploration at the default budget covers every edge and finds
the bug on seed 0 (seeds 1 and 2 under `-m slow`): the split's definition is solved in its straight-line case
(`ingot.symbolic.straight_line`), and the random rounds keep inputs that took an edge a new
number of times (`ingot.concolic.hit_counts`) and repeat or drop their parts.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from witness_programs import exploration_test, witness_tests  # tests/ is no package

import ingot
from ingot.concolic.aiming import vain_checks
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.hit_counts import HitCounts, bucket
from ingot.concolic.literals import Dictionary
from ingot.symbolic import straight_line
from ingot.symbolic.expr import evaluate
from ingot.symbolic.solver import Solver

HERE = Path(__file__).resolve().parent / "counted_parts"

# name -> (entry function, planted bug (kind, line), witnesses: (args, value or {"error": kind}))
PROGRAMS: dict[str, tuple[str, tuple[str, int], list[tuple[dict[str, Any], Any]]]] = {
    "climb": ("Depth", ("DivisionByZero", 17), [
        ({"route": "x"}, -1),
        ({"route": "r:"}, 2),
        ({"route": "r:up"}, 1),
        ({"route": "r:up:up:up"}, -100),
        ({"route": "r:a:b:up:up:up"}, 3),
        ({"route": "r:a:up:up:up"}, {"error": "DivisionByZero"}),
    ]),
    "audit": ("Audit", ("AssertionFailed", 15), [
        ({"log": ""}, 0),
        ({"log": "x"}, 0),
        ({"log": "E a\nhalt"}, 1),
        ({"log": "E a\nE b\nE c\nE d\nhalt"}, 4),
        ({"log": "E a\nE b\nhalt"}, {"error": "AssertionFailed"}),
    ]),
}


test_witnesses_take_every_edge_and_reach_the_bug_on_ingot, test_witnesses_give_the_same_outcomes_on_the_real_engine = \
    witness_tests(HERE, PROGRAMS)


test_exploration_covers_every_edge_and_finds_the_bug = exploration_test(HERE, PROGRAMS)


def test_a_split_query_is_answered_in_its_straight_line_case() -> None:
    """The definition of `route.split(":")` is recognised, the loop's entries pin its count, and
    the straight-line case's model satisfies the whole query (definition included)."""
    program = ingot.load(HERE / "climb.baml")
    explorer = Explorer(program.view, "Depth", Options(seed=0))
    run = explorer.run({"route": "r:a:up"})
    query = [e.observed for e in run.trace.path]
    defs = [d for d in (straight_line.definition_of(q) for q in query) if d is not None]
    assert len(defs) == 1 and defs[0].source.value == "route"
    assert straight_line.feasible_counts(defs[0], query) == [3]
    # negate `parts[1] == "up"` (false on this run) after the entries before it
    j = next(i for i, e in enumerate(run.trace.path) if "[1] == 'up'" in str(e.observed))
    goal = run.trace.path[j].alternatives[0].cond
    solver = Solver()
    result = solver.solve(query[:j] + [goal])
    assert result.status == "sat" and result.model is not None
    assert result.model["route"].split(":")[:2] == ["r", "up"]
    assert all(evaluate(q, result.model) is True for q in query[:j] + [goal])
    assert straight_line.solve(Solver(), query[:j] + [goal], {}, 10_000) is not None  # not the whole query


def test_hit_counts_see_a_new_number_of_passes() -> None:
    counts = HitCounts()
    assert counts.new(["a", "b"])
    assert not counts.new(["b", "a"])
    assert counts.new(["a", "a", "b"])  # "a" twice: a new bucket
    assert not counts.new(["a"] * 5) or not counts.new(["a"] * 6)  # 4-7 is one bucket
    assert [bucket(n) for n in (1, 2, 3, 5, 9, 20, 100, 500)] == [1, 2, 3, 4, 8, 16, 32, 128]


def test_mutations_repeat_and_drop_parts() -> None:
    program = ingot.load(HERE / "climb.baml")
    words = Dictionary.of(program.view.bytecode, ["Depth"])
    rng = random.Random(0)
    outs = {words.repeat_segment(rng, "r:a:up") for _ in range(200)}
    assert {"r:a:up:up", "r:a:up:up:up", "r:up", "r:a:a:up"} <= outs


def test_one_item_fewer_drops_each_field_then_each_separator() -> None:
    """An input that reached a panic site with one item too many (a path whose stack keeps
    "x") comes back with each of its fields dropped, separator and all, then each separator."""
    words = Dictionary(strings=["/api/", ".."], separators=["/", "."])
    outs = words.fewer_parts("/a/../x/")
    assert outs[:3] == ["/../x/", "/a/x/", "/a/../"]  # the fields, in order
    assert "a/../x/" in outs and "/a..x/" not in outs  # one separator at a time
    assert "/a/./x/" in outs  # "." is a separator too: one dropped from ".."
    assert words.fewer_parts("///") == ["//"]  # no field: a separator only
    assert words.fewer_parts("") == []


def test_aimed_mutations_change_an_amount_s_sign() -> None:
    program = ingot.load(HERE / "audit.baml")
    words = Dictionary.of(program.view.bytecode, ["Audit"])
    rng = random.Random(0)
    outs = {words.mutate_string(rng, "+2 fee", 32, None, 1.0) for _ in range(200)}
    assert {"-2 fee", "+0 fee", "+3 fee"} <= outs


def test_checks_asked_only_in_vain_are_left_to_the_panic_search() -> None:
    """A site whose every check query was unsat or unknown stays among the panic search's targets;
    one with a sat query does not."""
    program = ingot.load(HERE / "audit.baml")
    bex = program.view.bytecode
    index = next(i for i, f in enumerate(bex.functions) if f.name == "Audit")
    sites = {("Audit", 10), ("Audit", 20)}
    tried = {((index, 10, "AssertionFailed"), 0, 0): "unsat", ((index, 10, "AssertionFailed"), 0, 1): "unknown",
             ((index, 20, "IndexOutOfBounds"), 0, 0): "unsat", ((index, 20, "IndexOutOfBounds"), 0, 1): "sat"}
    assert vain_checks(tried, bex, sites) == {("Audit", 10)}
