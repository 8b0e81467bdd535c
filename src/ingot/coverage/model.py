"""Line, function and branch coverage per source file, from explorations and their replayed tests.

The writers (`lcov`, `cobertura`, `html`) all read one `Coverage`, built here from any
number of explorations of one program (a function each, as a project run makes them):

- a line is *executable* when some instruction of a reached function comes from it (the
  compiler's `unreachable` instructions, which no input runs, do not count), and its hit
  count is how often the replayed tests entered it (`replay.py`): never a guess from edges;
- a function's hit count is how many frames of it the tests entered;
- a branch is one branch edge the explorations count (`reachable_edges`), with how often
  the tests took it; its status is `covered` (a test took it), `infeasible` (every
  exploration that counts it proved no input takes it) or `uncovered`;
- findings (panics, uncaught throws) sit on the line their trace ends at.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ingot.bex.api import PRELUDE_PREFIX, Op
from ingot.concolic.edges import EdgeKey, edge_key, reachable_edges, reachable_functions
from ingot.concolic.explore import Exploration, Options
from ingot.coverage.replay import Hits, replay
from ingot.view import Edge, FunctionView, ProgramView


@dataclass(frozen=True)
class Explored:
    """What coverage needs of one exploration (an `Exploration`, or its JSON report)."""

    function: str
    edges: tuple[Edge, ...]
    covered: frozenset[EdgeKey]
    infeasible: frozenset[EdgeKey]
    tests: tuple[Mapping[str, Any], ...]  # {"args": ..., "mocks": ...}
    findings: tuple[Mapping[str, Any], ...]  # the report's findings
    max_steps: int | None = Options.max_steps
    max_depth: int = Options.max_depth

    @classmethod
    def of(cls, ex: Exploration) -> Explored:
        return cls(ex.function, tuple(ex.edges), frozenset(ex.covered), frozenset(ex.infeasible - ex.covered),
                   tuple({"args": t.args, "mocks": t.mocks} for t in ex.tests),
                   tuple({"kind": f.kind, "message": f.message, "args": f.args, "mocks": f.mocks, "trace": f.trace,
                          "site": f.site} for f in ex.findings),
                   ex.options.max_steps, ex.options.max_depth)

    @classmethod
    def from_report(cls, view: ProgramView, report: Mapping[str, Any]) -> Explored:
        """From `ingot explore --json`'s report (schema 1): edges are named by their labels there."""
        function = report["function"]
        edges = tuple(reachable_edges(view, function))
        uncovered = {_label_key(label) for label in report["coverage"]["uncovered"]}
        infeasible = frozenset(_label_key(label) for label in report["coverage"]["infeasible"])
        covered = frozenset(edge_key(e) for e in edges) - uncovered - infeasible
        return cls(function, edges, covered, infeasible, tuple(report["tests"]), tuple(report["findings"]))


_LABEL = re.compile(r"^(?P<fn>.+):bb(?P<block>\d+)\[T\]->bb(?P<target>\d+) ")


def _label_key(label: str) -> EdgeKey:
    m = _LABEL.match(label)
    if m is None:
        raise ValueError(f"not an edge label: {label!r}")
    return (m["fn"], int(m["block"]), int(m["target"]))


@dataclass
class BranchCoverage:
    """One branch edge on a source line."""

    function: str
    block: int  # the MIR block whose terminator branches
    target: int
    label: str  # "true", "false", a switch case, "otherwise"
    line: int
    column: int
    condition: str  # the source text of the condition (or of the statement that branches)
    status: str  # "covered", "uncovered" or "infeasible"
    taken: int  # times the replayed tests took this edge
    reached: bool  # did the tests run the branch at all (any edge of its site)?
    site: int = 0  # which branching site of its line (LCOV's block number)
    index: int = 0  # which edge of its site (LCOV's branch number)

    @property
    def name(self) -> str:
        return f"{self.function}:bb{self.block}->bb{self.target} ({self.label})"


@dataclass
class FunctionCoverage:
    name: str
    line: int
    calls: int  # frames of it the tests entered


@dataclass
class FindingMark:
    kind: str
    message: str
    line: int
    function: str  # the entry point explored
    args: Any
    mocks: Any


@dataclass
class FileCoverage:
    name: str  # the source name traces use
    path: str  # the path reports give (as the user named it)
    text: str  # the source as written
    lines: dict[int, int] = field(default_factory=dict)  # executable line -> hits
    functions: list[FunctionCoverage] = field(default_factory=list)
    branches: list[BranchCoverage] = field(default_factory=list)
    findings: list[FindingMark] = field(default_factory=list)

    @property
    def lines_hit(self) -> int:
        return sum(1 for n in self.lines.values() if n > 0)

    @property
    def branches_hit(self) -> int:
        return sum(1 for b in self.branches if b.taken > 0)

    @property
    def functions_hit(self) -> int:
        return sum(1 for f in self.functions if f.calls > 0)

    def branches_on(self, line: int) -> list[BranchCoverage]:
        return [b for b in self.branches if b.line == line]


@dataclass
class Coverage:
    files: list[FileCoverage]
    tests: int  # tests replayed
    explored: list[str] = field(default_factory=list)  # the functions explored (entry points)

    @property
    def lines_found(self) -> int:
        return sum(len(f.lines) for f in self.files)

    @property
    def lines_hit(self) -> int:
        return sum(f.lines_hit for f in self.files)

    @property
    def branches_found(self) -> int:
        return sum(len(f.branches) for f in self.files)

    @property
    def branches_hit(self) -> int:
        return sum(f.branches_hit for f in self.files)


def build(view: ProgramView, explorations: Iterable[Exploration | Explored],
          paths: Mapping[str, str] | None = None) -> Coverage:
    """The coverage of `explorations` (of one program), per source file.

    `paths` maps a source name (as traces give it) to the path reports should name;
    without it, every source but the built-in prelude is reported under its own name.
    """
    explored = [e if isinstance(e, Explored) else Explored.of(e) for e in explorations]
    hits = Hits()
    for ex in explored:
        replay(view, ex.function, ex.tests, hits, max_steps=ex.max_steps, max_depth=ex.max_depth)
    functions = _reached(view, explored)
    sources = {view.function(name).span.source.name: view.function(name).span.source for name in functions}
    if paths is None:
        paths = {name: name for name in sources}
    files = {name: FileCoverage(name, paths[name], source.display)
             for name, source in sorted(sources.items(), key=lambda kv: paths.get(kv[0], kv[0]))
             if name in paths}
    for name in functions:
        fview = view.function(name)
        f = files.get(fview.span.source.name)
        if f is None:
            continue
        f.functions.append(FunctionCoverage(name, fview.span.start.line, hits.calls[name]))
        for line in _executable_lines(view, name):
            f.lines[line] = hits.lines[(f.name, line)]
    for f in files.values():
        f.lines = dict(sorted(f.lines.items()))
        f.functions.sort(key=lambda fn: (fn.line, fn.name))
    _branches(view, explored, hits, files)
    _findings(explored, files)
    return Coverage(list(files.values()), hits.tests, [ex.function for ex in explored])


def _reached(view: ProgramView, explored: Sequence[Explored]) -> list[str]:
    """The explored functions and every user function they can call, each once, in declaration order."""
    seen: dict[str, None] = {}
    for ex in explored:
        seen.update(dict.fromkeys(reachable_functions(view, ex.function)))
    order = {f.name: i for i, f in enumerate(view.functions(include_synthetic=True))}
    # LLM and host functions have no BAML body: the tests answer their calls, nothing of theirs runs.
    return sorted((n for n in seen if not n.startswith(PRELUDE_PREFIX) and view.bytecode.by_name[n].kind == "body"),
                  key=order.__getitem__)


def _executable_lines(view: ProgramView, function: str) -> set[int]:
    fn = view.bytecode.by_name[function]
    return {fn.line_at(pc) for pc, (op, _) in enumerate(fn.code) if op != Op.UNREACHABLE and fn.line_at(pc) > 0}


def _branches(view: ProgramView, explored: Sequence[Explored], hits: Hits, files: dict[str, FileCoverage]) -> None:
    edges: dict[EdgeKey, Edge] = {}
    proved: Counter[EdgeKey] = Counter()  # explorations proving the edge infeasible
    counted: Counter[EdgeKey] = Counter()  # explorations counting the edge
    for ex in explored:
        for e in ex.edges:
            key = edge_key(e)
            edges.setdefault(key, e)
            counted[key] += 1
            proved[key] += key in ex.infeasible
    site_taken: Counter[tuple[str, int]] = Counter()
    for (fn, block, _), n in hits.edges.items():
        site_taken[(fn, block)] += n
    by_file: dict[str, list[BranchCoverage]] = {}
    for key, e in edges.items():
        fview = view.function(key[0])
        span = fview.blocks[key[1]].terminator.span
        name = span.source.name
        if name not in files:
            continue
        taken = hits.edges[key]
        status = "covered" if taken else "infeasible" if proved[key] == counted[key] else "uncovered"
        by_file.setdefault(name, []).append(BranchCoverage(
            key[0], key[1], key[2], e.label, span.start.line, span.start.column, _condition(fview, key[1]),
            status, taken, site_taken[(key[0], key[1])] > 0))
    order = {e: i for i, e in enumerate(edges)}
    for name, branches in by_file.items():
        branches.sort(key=lambda b: (b.line, b.column, b.function, b.block, order[(b.function, b.block, b.target)]))
        sites: dict[int, list[tuple[str, int]]] = {}  # line -> its branching sites, in order
        edges_seen: Counter[tuple[str, int]] = Counter()
        for b in branches:
            site = (b.function, b.block)
            on_line = sites.setdefault(b.line, [])
            if site not in on_line:
                on_line.append(site)
            b.site = on_line.index(site)
            b.index = edges_seen[site]
            edges_seen[site] += 1
        files[name].branches = branches


def _condition(fview: FunctionView, block: int) -> str:
    """The condition's source text; for a statement that branches (`for`, `match`), its first line."""
    span = fview.blocks[block].terminator.span
    text = span.source.display[span.start_offset:span.end_offset]
    first = text.split("\n", 1)[0].rstrip()
    if first != text.rstrip():
        first = first.removesuffix("{").rstrip()
    first = " ".join(first.split())
    return first if len(first) <= 80 else first[:79] + "\u2026"


_TRACE_LINE = re.compile(r'^File "(?P<file>.*)", line (?P<line>\d+), in ')


def _findings(explored: Sequence[Explored], files: dict[str, FileCoverage]) -> None:
    for ex in explored:
        for finding in ex.findings:
            m = _TRACE_LINE.match(finding["trace"][-1]) if finding.get("trace") else None
            if m is None or m["file"] not in files:
                continue
            files[m["file"]].findings.append(FindingMark(finding["kind"], finding["message"], int(m["line"]),
                                                         ex.function, finding["args"], finding["mocks"]))
    for f in files.values():
        f.findings.sort(key=lambda x: (x.line, x.kind, x.function))
