"""AFL's hit-count feedback for the random rounds' corpus.

An input joins the corpus when it covers an edge first; it also joins when it takes some
edge a number of times no input took it before, counted in AFL's buckets (1, 2, 3, 4-7,
8-15, 16-31, 32-127, 128 and more). A program that counts what its loop saw (`..` parts
climbing a path, rejected lines) branches on the count later, a condition with no path
entry: mutating the inputs that reached a new count (one `..`, then two) reaches the next.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable

BUCKETS = (1, 2, 3, 4, 8, 16, 32, 128)


def bucket(n: int) -> int:
    """AFL's bucket of a hit count: the largest bound in `BUCKETS` not above it."""
    out = BUCKETS[0]
    for b in BUCKETS:
        if n >= b:
            out = b
    return out


class HitCounts:
    """The (edge, bucket) pairs the runs so far reached."""

    def __init__(self) -> None:
        self.seen: set[tuple[Hashable, int]] = set()

    def new(self, edges: Iterable[Hashable]) -> bool:
        """Record a run's taken edges (with repeats); did it reach a new (edge, bucket)?"""
        pairs = {(e, bucket(n)) for e, n in Counter(edges).items()}
        fresh = pairs - self.seen
        self.seen |= fresh
        return bool(fresh)
