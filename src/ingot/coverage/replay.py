"""Replaying an exploration's generated tests to count the lines, calls and edges they execute.

A coverage report claims a line was hit only if a generated test executes it. The
explorer keeps, per test, the arguments and the LLM (and host) results it chose, as
plain values; replaying one runs the reference tracker loop on those values, with every
LLM call answered from the recorded mocks in order, and counts:

- line hits: each time execution enters a source line of a frame (a new line, or a jump
  back to the same one, as a loop does), so a line's count is how often it ran;
- function entries (one per frame);
- branch edges, in the tracker's own terms (`RunTrace.edges`), so edge counts mean what
  the exploration's coverage means.

The tracker loop reads each instruction as `frame.code[pc]`; a replay frame's `code` is a
`_LineCounter` that counts while it reads, so the loop itself carries no hook.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ingot.bex.api import BexFunction, Cell
from ingot.llm.mocks import MockError, to_value
from ingot.llm.runtime import schema_for
from ingot.runtime.errors import BamlRaise
from ingot.symbolic.expr import Expr, Interner
from ingot.symbolic.shadow import Shadow
from ingot.symbolic.tracker import Frame, TrackedVM
from ingot.view import ProgramView

EdgeKey = tuple[str, int, int]  # (function, block, target block), as the explorer counts edges
FAILURE_KEY = "$failure"  # a recorded mock that fails (the explorer's FAILURE_KEY)


class ReplayError(Exception):
    """A recorded test that cannot be replayed (its recorded values do not fit the program)."""


@dataclass
class Hits:
    """What a set of replayed tests executed."""

    lines: Counter[tuple[str, int]] = field(default_factory=Counter)  # (source name, line) -> entries
    calls: Counter[str] = field(default_factory=Counter)  # function -> frames entered
    edges: Counter[EdgeKey] = field(default_factory=Counter)  # branch edge -> times taken
    tests: int = 0  # tests replayed


class _LineCounter:
    """A function's code as one frame reads it: counts a line each time execution enters it."""

    __slots__ = ("code", "lines", "file", "hits", "last_line", "last_pc")

    def __init__(self, fn: BexFunction, source: str, hits: Counter[tuple[str, int]]) -> None:
        self.code = fn.code
        self.lines = fn.lines
        self.file = source
        self.hits = hits
        self.last_line = -1
        self.last_pc = -1

    def __getitem__(self, pc: int) -> Any:
        line = self.lines[pc] if pc < len(self.lines) else 0
        if line != self.last_line or pc <= self.last_pc:
            self.hits[(self.file, line)] += 1
        self.last_line, self.last_pc = line, pc
        return self.code[pc]


class _RecordedResults:
    """The environment of a replay: each LLM (or host) call gets the next recorded result."""

    def __init__(self, view: ProgramView, interner: Interner, mocks: Mapping[str, list[Any]]) -> None:
        self.view = view
        self.x = interner
        self.queues = {name: list(values) for name, values in mocks.items()}

    def _next(self, fn: BexFunction) -> Any:
        queue = self.queues.get(fn.name)
        if not queue:
            raise ReplayError(f"no recorded result left for a call of `{fn.name}`")
        return queue.pop(0)

    def llm_failure(self, fn: BexFunction, site: str, occurrence: int) -> tuple[bool, Expr]:
        queue = self.queues.get(fn.name) or []
        fails = bool(queue) and isinstance(queue[0], dict) and set(queue[0]) == {FAILURE_KEY}
        if fails:
            queue.pop(0)
        return fails, self.x.const(fails)

    def llm_result(self, fn: BexFunction, site: str, occurrence: int) -> tuple[Any, Shadow]:
        ret = self.view.function(fn.name).ret
        program = self.view.bytecode
        try:
            value = to_value(self._next(fn), ret, schema_for(self.view), program.classes, program.enums, fn.name)
        except MockError as e:
            raise ReplayError(f"recorded result of `{fn.name}` does not fit its type: {e}") from None
        return value, None


class _ReplayVM(TrackedVM):
    """The reference tracker loop, counting lines and frames as it runs."""

    def __init__(self, view: ProgramView, hits: Hits, **options: Any) -> None:
        super().__init__(view, Interner(), env=None, prune_after=None, **options)  # type: ignore[arg-type]
        self.hits = hits
        self._sources: dict[str, str] = {}

    def new_frame(self, fn: BexFunction, args: list[Any], shadows: list[Shadow], cells: tuple[Cell, ...],
                  ctx: int) -> Frame:
        frame = super().new_frame(fn, args, shadows, cells, ctx)
        # Lines are counted under the source the function's span is in: a prelude function's
        # `file` names the program it is linked into, its lines are the prelude's.
        source = self._sources.get(fn.name)
        if source is None:
            source = self._sources[fn.name] = self.view.function(fn.name).span.source.name
        frame.code = _LineCounter(fn, source, self.hits.lines)  # type: ignore[assignment]
        self.hits.calls[fn.name] += 1
        return frame


def replay(view: ProgramView, function: str, tests: Iterable[Mapping[str, Any]], hits: Hits | None = None,
           max_steps: int | None = 200_000, max_depth: int = 2_000) -> Hits:
    """Run each test (`{"args": ..., "mocks": ...}`) of `function`, adding what it executed to `hits`."""
    hits = hits if hits is not None else Hits()
    fview = view.function(function)
    program = view.bytecode
    schema = schema_for(view)
    fn = program.by_name[function]
    for test in tests:
        args = test.get("args", {})
        try:
            values = [to_value(args[name], ty, schema, program.classes, program.enums, name)
                      for name, ty in fview.params]
        except (KeyError, MockError) as e:
            raise ReplayError(f"test arguments of `{function}` do not fit its parameters: {e}") from None
        vm = _ReplayVM(view, hits, max_steps=max_steps, max_depth=max_depth)
        vm.env = _RecordedResults(view, vm.x, test.get("mocks", {}))
        try:
            vm.run_tracked(fn, values, [None] * len(values))
        except BamlRaise:
            pass  # a test of a panic or a throw: what ran until then counts
        hits.edges.update(vm.trace.edges)
        hits.tests += 1
    return hits
