"""How far each block is from a branch edge the search has not covered (KLEE's md2u).

A revisit (a child aimed at an edge already covered) adds coverage only by leading
somewhere new: to a branch whose other edge is uncovered, reached on a path where its
condition can flip. When an uncovered edge's condition is concrete on every path that
reaches it (`valid >= 3` after a loop that counted, `total > 5000` on a cart whose lines
were all skipped), only other paths lead there, and the revisits queued behind each run
are many (every loop iteration's tests, in both directions). Those whose edge leads
nearer to an uncovered edge run first: the blocks' distance, in control-flow edges and
calls, to the nearest block with an uncovered out-edge.

Only branches outside loops are ordered so. Inside a loop every edge leads back to the loop's
head and on to whatever is uncovered after it: a loop's exit test flipped for one more
iteration is always near, and ordering by distance would climb the loop's count, one
iteration per generation, a path longer each time (a retry loop of a thousand LLM calls).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from ingot.view import ProgramView

Block = tuple[str, int]  # (function, block)
EdgeKey = tuple[str, int, int]  # (function, block, target block)
DIRECTED_SHARE = 0.9  # the most a revisit's priority gains (below one: revisits stay below other children)


class UncoveredDistance:
    """Distances to the uncovered edges among `edges`, recomputed when coverage grows."""

    def __init__(self, view: ProgramView, functions: Iterable[str], edges: set[EdgeKey]) -> None:
        self._edges = edges
        self._preds: dict[Block, list[Block]] = {}  # the control-flow graph, reversed
        self._succs: dict[Block, tuple[int, ...]] = {}
        names = set(functions)
        for name in names:
            for block in view.function(name).blocks:
                here = (name, block.id)
                self._succs[here] = block.terminator.successors
                for succ in block.terminator.successors:
                    self._preds.setdefault((name, succ), []).append(here)
                callee = block.terminator.callee
                if callee in names:  # a call leads into its callee's code
                    self._preds.setdefault((callee, 0), []).append(here)
        self._distance: dict[Block, int] = {}
        self._done = -1  # how many edges were in `done` (the covered ones, only growing) when last computed
        self._in_loop: dict[Block, bool] = {}

    def in_loop(self, block: Block) -> bool:
        """Is `block` on a cycle of its function's control-flow graph (reachable from itself)?"""
        if block not in self._in_loop:
            fn, start = block
            seen: set[int] = set()
            todo = list(self._succs.get(block, ()))
            while todo and start not in seen:
                b = todo.pop()
                if b not in seen:
                    seen.add(b)
                    todo.extend(self._succs.get((fn, b), ()))
            self._in_loop[block] = start in seen
        return self._in_loop[block]

    def revisit_bonus(self, target: EdgeKey, done: set[EdgeKey]) -> float:
        """What a revisit of `target` adds to its priority: more the nearer the edge leads to an
        uncovered one; nothing in a loop, or when nothing uncovered lies ahead."""
        if self.in_loop(target[:2]):
            return 0.0
        d = self.of((target[0], target[2]), done)
        return 0.0 if d is None else DIRECTED_SHARE / (1 + d)

    def of(self, block: Block, done: set[EdgeKey]) -> int | None:
        """Control-flow steps from `block` to a block with an out-edge not in `done` (the edges
        covered: an edge claimed infeasible still counts as a destination); None when none is
        reachable from it."""
        if len(done) != self._done:
            self._compute(done)
        return self._distance.get(block)

    def _compute(self, done: set[EdgeKey]) -> None:
        self._done = len(done)
        sources = {key[:2] for key in self._edges - done}
        self._distance = dict.fromkeys(sources, 0)
        todo = deque(sources)
        while todo:
            block = todo.popleft()
            d = self._distance[block] + 1
            for pred in self._preds.get(block, ()):
                if pred not in self._distance:
                    self._distance[pred] = d
                    todo.append(pred)
