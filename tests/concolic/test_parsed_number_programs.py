"""Conditions on numbers parsed out of text, past what Z3's string solver answers: a shift
"HH:MM-HH:MM" cut at "-" and ":", each field trimmed and parsed, and the minutes it lasts.

The query for the planted assertion (a shift of more than a day) holds two splits, four
parses with their signs and the arithmetic; Z3 gives up on it at the string queries' limit.
The nearby walk solves the arithmetic with the text held at the run's value and writes the
numbers in (`ingot.symbolic.parsed_numbers`). Witnesses prove every branch edge feasible and the
bug real on the real engine (baml_bridge, under `-m slow`) and on ingot; exploration at the
default budget covers every edge and finds the bug on seed 0 (seeds 1 and 2 under `-m slow`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from witness_programs import exploration_test, witness_tests  # tests/ is no package

HERE = Path(__file__).resolve().parent / "parsed_numbers"

# name -> (entry function, planted bug (kind, line), witnesses: (args, value or {"error": kind}))
PROGRAMS: dict[str, tuple[str, tuple[str, int], list[tuple[dict[str, Any], Any]]]] = {
    "shift": ("ShiftMinutes", ("AssertionFailed", 30), [
        ({"shift": "9:00"}, -1),
        ({"shift": "9-17"}, -2),
        ({"shift": "9:00-17"}, -2),
        ({"shift": "x:00-17:00"}, -3),
        ({"shift": "25:00-17:00"}, -3),
        ({"shift": "9:x-17:00"}, -3),
        ({"shift": "9:60-17:00"}, -3),
        ({"shift": "9:00-x:00"}, -3),
        ({"shift": "9:00-25:00"}, -3),
        ({"shift": "9:00-17:x"}, -3),
        ({"shift": "9:00-17:60"}, -3),
        ({"shift": "-1:00-17:00"}, -1),
        ({"shift": "9:-1-17:00"}, -1),
        ({"shift": " 9:00 - 17:30 "}, 510),
        ({"shift": "17:00-9:00"}, -4),
        ({"shift": "0:00-24:00"}, 1440),
        ({"shift": "0:00-24:30"}, {"error": "AssertionFailed"}),
    ]),
}


test_witnesses_take_every_edge_and_reach_the_bug_on_ingot, test_witnesses_give_the_same_outcomes_on_the_real_engine = \
    witness_tests(HERE, PROGRAMS)
test_exploration_covers_every_edge_and_finds_the_bug = exploration_test(HERE, PROGRAMS)
