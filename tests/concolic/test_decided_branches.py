"""Branches whose condition earlier branches decided: `short > 50` after a loop that skipped every
order is `0 > 50` on that run, with nothing to negate there; only a path on which some order
counted makes it a condition on the inputs. The search aims at such a branch through the
conditions before it (`aim_at_branches`: one order not skipped, one more order), and runs first
the revisits whose edge leads nearer to an uncovered edge (`UncoveredDistance`).
`decided_branches/restock.baml` plants a DivisionByZero behind the branch; witnesses prove every
edge feasible and the bug real on ingot and (under `-m slow`) on the real engine. Without the
aims the search covers the branch after 230-280 runs on seeds 0-2; with them, in about 50."""

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
from ingot.concolic.uncovered_distance import UncoveredDistance

HERE = Path(__file__).resolve().parent / "decided_branches"


def order(sku: str, qty: int) -> dict[str, object]:
    return {"sku": sku, "qty": qty}


PROGRAMS: Programs = {
    "restock": ("Restock", ("DivisionByZero", 25), [
        ({"stock": {}, "orders": [], "rush": False}, 0),
        ({"stock": {"a": 5}, "orders": [order("b", 1), order("a", 0), order("a", 501), order("a", 2)], "rush": True}, 0),
        ({"stock": {"a": -1, "b": 10001, "c": 0}, "orders": [order("a", 1), order("b", 1), order("c", 60)],
          "rush": False}, 60),
        ({"stock": {"a": 0}, "orders": [order("a", 60)], "rush": True}, 60),
        ({"stock": {"a": 0}, "orders": [order("a", 60), order("a", 1), order("a", 1), order("a", 1)], "rush": True}, 63),
        ({"stock": {"a": 0}, "orders": [order("a", 60), order("a", 1), order("a", 1)], "rush": True},
         {"error": "DivisionByZero"}),
    ]),
}


test_witnesses_take_every_edge_and_reach_the_bug_on_ingot, test_witnesses_give_the_same_outcomes_on_the_real_engine = \
    witness_tests(HERE, PROGRAMS)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_branch_decided_by_the_loop_before_it_is_reached_within_a_small_budget(seed: int) -> None:
    ex, bug = explored(HERE, PROGRAMS, "restock", seed=seed, max_runs=120)
    assert ex.covered == {edge_key(e) for e in ex.edges}
    assert bug in bugs_found(ex)


def test_the_distance_to_uncovered_code_follows_the_coverage() -> None:
    program = ingot.load(HERE / "restock.baml")
    blocks = program.view.function("Restock").blocks
    edges = {edge_key(e) for e in Explorer(program.view, "Restock", Options(max_runs=1)).result.edges}
    distance = UncoveredDistance(program.view, ["Restock"], edges)
    for branch in {e[:2] for e in edges}:
        assert distance.of(branch, set()) == 0  # every branch has an uncovered edge at first
    # one branch left uncovered: zero there, one step before it, nothing from a return
    left = max(edges)[:2]
    covered = {e for e in edges if e[:2] != left}
    assert distance.of(left, covered) == 0
    before = [b.id for b in blocks if left[1] in b.terminator.successors and b.id != left[1]]
    assert before and all(distance.of(("Restock", b), covered) == 1 for b in before)
    returns = [b.id for b in blocks if b.terminator.kind == "return"]
    assert returns and all(distance.of(("Restock", b), covered) is None for b in returns)
    # every edge covered: no block leads anywhere new
    assert all(distance.of(("Restock", b.id), edges) is None for b in blocks)


def test_only_branches_outside_loops_are_ordered_by_distance() -> None:
    """The loop's tests (its exit and the skips inside) are on a cycle, the final `if` is not:
    ordering the loop's flips by distance would climb its count one iteration at a time."""
    program = ingot.load(HERE / "restock.baml")
    view = program.view.function("Restock")
    distance = UncoveredDistance(program.view, ["Restock"], set())
    lines = {e.site.block: view.blocks[e.site.block].terminator.span.start.line for e in view.branch_edges()}
    looped = {line for block, line in lines.items() if distance.in_loop(("Restock", block))}
    assert looped == {12, 13, 17, 20}  # `for`, the two skips, `have < o.qty`
    assert 24 in set(lines.values()) - looped  # `rush && orders.length() > 2 && short > 50`


def test_the_branch_aims_stop_when_their_share_of_the_string_budget_is_spent() -> None:
    """Past `BRANCH_AIM_MODEL_SHARE` of the string models' first tranche the aims ask nothing more:
    the rest is for the flips and checks (a parser's "one more line" children spent half of it)."""
    fn, _, _ = PROGRAMS["restock"]
    program = ingot.load(HERE / "restock.baml")

    def aims_after(spent: int) -> dict[tuple[str, int], int]:
        options = Options(seed=0, max_runs=120)
        assert options.string_model_units is not None  # the default options give the string models a budget
        explorer = Explorer(program.view, fn, options)
        explorer.branch_aims.model_units = spent * options.string_model_units
        explorer.explore()
        return explorer.branch_aims.flips

    assert aims_after(0)  # restock's decided branch is aimed at
    assert aims_after(1) == {}
