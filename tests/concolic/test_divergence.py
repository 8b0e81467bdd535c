"""A child diverges when its run leaves the path it was solved for; a value the run pinned that its
parent's did not is no departure.

A map input looked up by a literal key (`m.get("pinned")`) is a disjunction over the map's
slots: the child is solved for "some slot holds the key", and its run pins the slot that did
(`m.$key[3] == "pinned"`), an entry its parent, whose map lacked the key, never recorded. It
was counted as a divergence: a rerank over documents' metadata maps reported 45-87 per search,
all of them runs that took the predicted edge, and none could then claim to be complete.
"""

from __future__ import annotations

import ingot
from ingot.concolic.explore import Explorer, Options, matched_prefix
from ingot.symbolic.expr import Interner, Sort
from ingot.symbolic.shadow import EntryKind, PathEntry

PINNED = """
function F(m: map<string, string>) -> int {
  if ((m.get("pinned") ?? "") == "true") {
    return 1;
  }
  0
}
"""


def test_a_lookup_that_finds_the_solved_key_is_no_divergence() -> None:
    program = ingot.load_source(PINNED)
    ex = Explorer(program.view, "F", Options(seed=0)).explore()
    assert ex.divergences == []
    assert "divergence" not in ex.limits
    assert len(ex.covered) == len(ex.edges)


def entry(kind: EntryKind, site: tuple[int, int], cond: object) -> PathEntry:
    return PathEntry(kind, site, cond, (), 0)  # type: ignore[arg-type]


def test_only_a_concretization_at_another_site_is_passed_over() -> None:
    x = Interner()
    a, b, c = (x.lt(x.const(n), x.var("n", Sort.INT)) for n in (1, 2, 3))
    branch, pin = (0, 20), (0, 2)
    predicted = ((branch, a.id),)
    # the pin before the predicted branch is passed over: the child's own entries begin past both
    assert matched_prefix([entry(EntryKind.CONCRETIZE, pin, b), entry(EntryKind.BRANCH, branch, a)], predicted) == (1, 2)
    # the predicted branch went the other way: a divergence at it
    assert matched_prefix([entry(EntryKind.CONCRETIZE, pin, b), entry(EntryKind.BRANCH, branch, c)], predicted) == (0, 1)
    # a branch the prediction lacks is a departure, and so is another value pinned at a predicted site
    assert matched_prefix([entry(EntryKind.BRANCH, pin, b), entry(EntryKind.BRANCH, branch, a)], predicted) == (0, 0)
    pinned = ((pin, b.id), (branch, a.id))
    assert matched_prefix([entry(EntryKind.CONCRETIZE, pin, c), entry(EntryKind.BRANCH, branch, a)], pinned) == (0, 0)
