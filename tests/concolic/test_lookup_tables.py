"""A symbolic index into a table of scalars reads the table's choice of element.

`days[month - 1]` with `month` an input used to fix `month` at its value (which element is read
depends on the index), so `days[month - 1] == 30` was decided by the run: true on every path of
April, false on every path of January, with nothing to negate. The read is now
`ite(i == 0, 31, ite(i == 1, 28, ...))` (`operators.selected`), and the branch a condition on
`month`. `lookup_tables/promise.baml` plants a DivisionByZero behind a table of month lengths
and a table of labels; witnesses prove every edge feasible and the bug real on ingot and (under
`-m slow`) on the real engine."""

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

import ingot
from ingot.concolic.edges import edge_key
from ingot.concolic.explore import Explorer, Options

HERE = Path(__file__).resolve().parent / "lookup_tables"

PROGRAMS: Programs = {
    "promise": ("Promise", ("DivisionByZero", 17), [
        ({"month": 0, "day": 1, "rank": 1}, "invalid"),
        ({"month": 13, "day": 1, "rank": 1}, "invalid"),
        ({"month": 1, "day": 0, "rank": 1}, "invalid"),
        ({"month": 1, "day": 1, "rank": 0}, "invalid"),
        ({"month": 1, "day": 1, "rank": 4}, "invalid"),
        ({"month": 2, "day": 30, "rank": 1}, "no such day"),
        ({"month": 1, "day": 1, "rank": 1}, "gold"),
        ({"month": 4, "day": 10, "rank": 2}, "silver"),
        ({"month": 1, "day": 1, "rank": 3}, "bronze"),
        ({"month": 4, "day": 10, "rank": 3}, "bronze 3"),
        ({"month": 4, "day": 30, "rank": 3}, {"error": "DivisionByZero"}),
    ]),
}


test_witnesses_take_every_edge_and_reach_the_bug_on_ingot, test_witnesses_give_the_same_outcomes_on_the_real_engine = \
    witness_tests(HERE, PROGRAMS)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_branch_on_a_table_s_element_is_negated_through_the_index(seed: int) -> None:
    ex, bug = explored(HERE, PROGRAMS, "promise", seed=seed, max_runs=60)
    assert ex.covered == {edge_key(e) for e in ex.edges}
    assert bug in bugs_found(ex)


LABEL = """
function Label(rank: int) -> string {
  let labels = ["gold", "silver", "bronze"];
  if (rank > 0) {
    return labels[rank - 1];
  }
  "none"
}
"""


def test_a_table_read_past_its_end_is_still_found() -> None:
    # the element is the table's choice, the index check is aimed at as before: rank 4 panics
    program = ingot.load_source(LABEL)
    ex = Explorer(program.view, "Label", Options(seed=0, max_runs=200)).explore()
    assert "IndexOutOfBounds" in {f.kind for f in ex.findings}
    assert ex.covered == {edge_key(e) for e in ex.edges}
