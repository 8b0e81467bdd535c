"""The side of a caught parse that carries the path on is revisited like a covered edge.

A parse inside `catch` records a check: the run either parsed (and goes on) or threw (and took
the handler). A check was aimed at once per occurrence on a path, as a panic site is: right for
the side that throws (a panic found once is found), wrong for the other. `caught_parses/closing.baml`
parses three fields of a clock time before it tests any of them; the first run that reaches the
minute's parse with the hour unparsable spends the minute's only flip there, and a path on which
the hour parses never gets the minute parsed. Each side that parses is now revisited as a covered
edge is (a few flips per occurrence, `Options.revisits`), from paths whose earlier fields passed.
Witnesses prove every edge feasible and the bug real on ingot and (under `-m slow`) on the real engine."""

from __future__ import annotations

from pathlib import Path

import pytest
from witness_programs import (  # tests/ is no package
    SEEDS,
    Programs,
    bugs_found,
    explored,
    witness_tests,
)

from ingot.concolic.edges import edge_key

HERE = Path(__file__).resolve().parent / "caught_parses"

AT_SIX = {"close_h": 18}
PROGRAMS: Programs = {
    "closing": ("Closing", ("IndexOutOfBounds", 24), [
        ({"clock": "12:30", **AT_SIX}, "bad clock"),
        ({"clock": "123:30:00", **AT_SIX}, "bad clock"),
        ({"clock": "12:3:00", **AT_SIX}, "bad clock"),
        ({"clock": "12:30:0", **AT_SIX}, "bad clock"),
        ({"clock": "xx:30:00", **AT_SIX}, "bad hour"),
        ({"clock": "24:30:00", **AT_SIX}, "bad hour"),
        ({"clock": "12:xx:00", **AT_SIX}, "bad minute"),
        ({"clock": "12:60:00", **AT_SIX}, "bad minute"),
        ({"clock": "12:30:-1", **AT_SIX}, "bad second"),
        ({"clock": "12:30:60", **AT_SIX}, "bad second"),
        ({"clock": "12:30:00", "close_h": 0}, "bad closing hour"),
        ({"clock": "12:30:00", "close_h": 25}, "bad closing hour"),
        ({"clock": "18:30:00", **AT_SIX}, "closed"),
        ({"clock": " 17:40:05 ", **AT_SIX}, "last hour, third quarter"),
        ({"clock": "09:15:00", **AT_SIX}, "open for 525 minutes"),
        ({"clock": "17:50:00", **AT_SIX}, {"error": "IndexOutOfBounds"}),
    ]),
}

test_witnesses_take_every_edge_and_reach_the_bug_on_ingot, test_witnesses_give_the_same_outcomes_on_the_real_engine = \
    witness_tests(HERE, PROGRAMS)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_field_that_parses_is_revisited_on_paths_whose_earlier_fields_passed(seed: int) -> None:
    # (with one flip per parse: seed 0 stopped at 14 of 29 edges without the bug, seeds 1 and 2
    # needed 7,800 and 12,400 runs)
    ex, bug = explored(HERE, PROGRAMS, "closing", seed=seed, max_runs=3000)
    assert ex.covered == {edge_key(e) for e in ex.edges}
    assert bug in bugs_found(ex)
