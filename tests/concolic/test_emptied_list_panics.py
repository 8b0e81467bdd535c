"""A list emptied by the input, then read at `xs[xs.length() - 1]`: the index is concrete on every
run and always one below the length, so only the list's length says how near a run came to the
panic. `emptied_lists/trail.baml` plants one behind three conditions (a prefix, three "up" parts,
a trailing separator) and an empty list; witnesses prove every edge feasible and the bug real on
ingot and (under `-m slow`) on the real engine; exploration at the default budget finds it."""

from __future__ import annotations

from pathlib import Path

import pytest
from witness_programs import (  # tests/ is no package
    Programs,
    bugs_found,
    explored,
    witness_tests,
)

import ingot
from ingot.concolic.explore import Explorer, Options

HERE = Path(__file__).resolve().parent / "emptied_lists"

PROGRAMS: Programs = {
    "trail": ("Resolve", ("IndexOutOfBounds", 24), [
        ({"trail": "x"}, "outside"),
        ({"trail": "home>"}, "home"),
        ({"trail": "home>a>up>"}, "home"),
        ({"trail": "home>up>up>a>up>b>"}, "back at b"),
        ({"trail": "home>up>up>up>b"}, "b"),
        ({"trail": "home>a>up>up>up>"}, {"error": "IndexOutOfBounds"}),
    ]),
}


test_witnesses_take_every_edge_and_reach_the_bug_on_ingot, test_witnesses_give_the_same_outcomes_on_the_real_engine = \
    witness_tests(HERE, PROGRAMS)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exploration_finds_the_read_of_an_emptied_list(seed: int) -> None:
    ex, bug = explored(HERE, PROGRAMS, "trail", seed=seed)
    assert len(ex.covered) == len(ex.edges)
    assert bug in bugs_found(ex)


def test_a_shorter_list_is_nearer_to_panicking_at_its_last_element() -> None:
    """The distance the panic search climbs: one below the length on every non-empty list, and
    less the shorter the list, so inputs leaving fewer crumbs are mutated first."""
    program = ingot.load(HERE / "trail.baml")
    explorer = Explorer(program.view, "Resolve", Options(seed=0, max_runs=1))
    fn = program.view.bytecode.by_name["Resolve"]
    distances = []
    for trail in ("home>a>b>c>d>up>up>up>", "home>a>b>c>up>up>up>", "home>a>b>up>up>up>"):
        run = explorer.run({"trail": trail})
        (distance,) = [v[2] for (name, pc), v in run.trace.reached.items() if name == "Resolve" and fn.line_at(pc) == 24]
        distances.append(distance)
    assert distances[0] > distances[1] > 1 > distances[2] == 0
