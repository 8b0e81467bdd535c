"""A run that comes closer to a panic site than any before has its inputs tried with one item fewer.

`NormalizePath` (bench/explore/apps/path_norm.baml) panics on `stack[stack.length() - 1]` when
a path under "/api/" climbs out with three ".." and leaves the stack empty. The runs that
reach the site keep one segment ("/api/A//B/../..//../relative//"); the stack's length is
counted concretely and the path has more parts than the split models, so no query can ask
for one segment fewer. Dropping each field in turn does (`aiming.fewer_items`).
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from ingot.concolic.aiming import FEWER_PER_SITE, PanicAims, aim_at_reaches
from ingot.concolic.literals import Dictionary

SITE = ("NormalizePath", 192)


class Queue:
    """The part of the explorer the panic aims use: its literals, its queue, its aims."""

    def __init__(self) -> None:
        self.dictionary = Dictionary(strings=["/api/", "..", "."], separators=["/", "."])
        self.aims = PanicAims()
        self.options = SimpleNamespace(max_string_length=32)
        self.queued: list[tuple[dict[str, Any], float, str]] = []

    def panic_phase(self) -> bool:
        return False

    def push(self, job: Any, priority: float) -> None:
        self.queued.append((job.assignment, priority, job.reason))


def reach(explorer: Queue, path: str, distance: float) -> list[str]:
    """A run of `path` that reached the site `distance` away from panicking: the paths queued."""
    run = SimpleNamespace(assignment={"path": path, "limit": 3},
                          trace=SimpleNamespace(reached={SITE: (0, 0, distance, 0)}, path=[]))
    before = len(explorer.queued)
    aim_at_reaches(explorer, SimpleNamespace(reason="random"), run, {SITE}, 0)  # type: ignore[arg-type]
    return [a["path"] for a, _, _ in explorer.queued[before:]]


def test_the_closest_run_is_tried_with_each_field_dropped() -> None:
    explorer = Queue()
    queued = reach(explorer, "/api/A//B/../..//../relative//", 1.0)
    assert "/api/A//B/../..//..//" in queued  # "relative" dropped: the stack is left empty
    assert all(a["limit"] == 3 for a, _, _ in explorer.queued)  # other inputs as they were
    assert {r for _, _, r in explorer.queued} == {"fewer:NormalizePath@192"}
    assert reach(explorer, "/api/x/../../../y/", 1.0) == []  # no closer: nothing more
    assert reach(explorer, "/api/x/../../../y/", 0.5) != []  # closer: its fields in turn


def test_a_site_gets_a_bounded_number_of_such_inputs() -> None:
    explorer = Queue()
    long_path = "/" + "/".join(f"s{i}" for i in range(30)) + "/"
    for distance in (3.0, 2.0, 1.0, 0.5, 0.25):
        reach(explorer, long_path, distance)
    assert len(explorer.queued) == FEWER_PER_SITE
    assert reach(explorer, "/api/../x/", 0.1) == []
