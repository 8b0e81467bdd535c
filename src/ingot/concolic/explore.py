"""Generational search (SAGE) over the paths of one BAML function.

Each tracked run yields a path condition; every entry after the run's bound
gives children, one per alternative (the other side of a branch, the other
arms of a switch, "this operation panics" for a check, "another value" for a
concretization), by solving the entries before it plus the alternative.
Children are prioritised by what they could add (an uncovered edge, a panic)
and run concretely with tracking; a child whose path departs from its
prediction is a divergence and is dropped. Queries are sliced to the entries
that share variables with the goal (constraint independence); variables
outside the slice keep the parent's values.
"""

from __future__ import annotations

import gc
import heapq
import itertools
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ingot.bex.api import BexFunction
from ingot.concolic import exact_checks, string_growth
from ingot.concolic.aiming import (
    PanicAims,
    aim_at_branches,
    aim_at_reaches,
    settings_at_panic_start,
    vain_checks,
)
from ingot.concolic.budget import RunCut, guard
from ingot.concolic.edges import EdgeKey, edge_key, edge_label, reachable_edges, reachable_functions
from ingot.concolic.fuzzing import fresh_assignment, mutated, worth_mutating
from ingot.concolic.hit_counts import HitCounts
from ingot.concolic.inputs import InputBuilder, InputSpace, UnsupportedInput
from ingot.concolic.literals import Dictionary, panic_sites
from ingot.concolic.model_budget import ModelBudget
from ingot.concolic.uncovered_distance import UncoveredDistance
from ingot.convert import to_python
from ingot.runtime.errors import BamlError, BamlRaise
from ingot.runtime.limits import resident_bytes
from ingot.symbolic.compiled_tracker import CompiledTrackedVM
from ingot.symbolic.expr import Expr, Interner, Sort, post_order
from ingot.symbolic.nearby import Tokens
from ingot.symbolic.shadow import SAFE_SIDE, EntryKind, PathEntry, Shadow, Site
from ingot.symbolic.solver import DEFAULT_RLIMIT, DEFAULT_STRING_MODEL_UNITS, Result, Solver
from ingot.symbolic.tracker import RunTrace, TrackedVM
from ingot.view import Edge, ProgramView

if TYPE_CHECKING:
    from ingot.concolic.checkpoint import StateDir

# Panics that are ingot's own bounds on a run, not the program's: the run was cut short.
RUN_LIMITS = {"InstructionLimit": "step-limit", "StackOverflow": "depth-limit"}
FAILURE_KEY = "$failure"  # a recorded mock that fails: {"$failure": "ParseFailed"}


@dataclass
class Options:
    # Most searches end on their own first (exhausted or full coverage: 6-13 k runs on the
    # held-out parsers, their random rounds and panic search included); a run costs 1-2 ms, so
    # this bound, like `timeout_s`, is for the searches that would go on. At 10,000 it cut the
    # searches of `time_windows` before their string models were renewed, and with them its bug.
    max_runs: int = 20000
    timeout_s: float = 60.0
    max_len: int = 6
    max_string_length: int = 32  # the strings' length cap the search starts with
    # The cap it may double that to when it runs out with edges uncovered (`string_growth`);
    # None: the cap is fixed.
    grow_strings_to: int | None = 128
    solver_timeout_ms: int = 10_000  # the clock's bound on a query (`solver_rlimit` decides first); 0: none
    # Z3 resource units per query: a deterministic budget (the timeout above bounds it by the clock)
    solver_rlimit: int = DEFAULT_RLIMIT
    # Z3 resource units the queries over string models' terms may spend in all; past them the
    # string models are off (their operands concretized, counted under `limits`). None: no cap.
    string_model_units: int | None = DEFAULT_STRING_MODEL_UNITS
    seed: int = 0
    max_steps: int = 200_000  # per run: loops stop with InstructionLimit instead of hanging
    max_depth: int = 2_000
    # Which tracker runs the program: "compiled" (instrumented generated code) or "interp" (the
    # reference tracker loop); both record the same traces. INGOT_TRACKER overrides the default.
    tracker: str = field(default_factory=lambda: os.environ.get("INGOT_TRACKER", "compiled"))
    revisits: int = 8  # flips aimed at an already covered edge, per site, direction and occurrence
    random_patience: int = 4000  # random inputs in a row without new coverage before giving up
    concretize_flips: int = 12  # "another value" children per concretization site, each unlike the last
    # Runs spent, once the edge search is over (full coverage, or random rounds without progress),
    # on panic sites (division, index, assert) that have not panicked and no query aimed at: their
    # operands may be concrete (a loop counter), so only new paths or mutated inputs reach them.
    # Fuzzed inputs found the parsers' planted panics 250 to 350 such runs in (flips left over
    # from the edge search run first), so the budget leaves a margin above that.
    panic_runs: int = 500
    # A run that grows the process's resident memory by more than this (MB) over what it held when
    # the run started is cut and counted under `limits["memory"]`; None: no cap.
    memory_mb: int | None = 1024
    # Symbolic executions of one instruction per run that are tracked before hot-site pruning
    # (`TrackedVM.pruned`) sets in; None tracks everything. Far above what inputs of `max_len`
    # elements and `max_string_length` characters reach, so it only bounds runaway loops.
    prune_after: int | None = 1000
    # LLM calls per run whose replies are inputs; a run past it is cut (`limits["llm-calls"]`): a
    # retry loop bounded by an input (`attempts` = 2^62) would otherwise build 100,000 replies
    # (ten seconds) before the step budget stops it.
    max_llm_calls: int = 1000


PAST_A_CHECK = f"{EntryKind.CHECK.value}:{SAFE_SIDE}"  # the reason of a child aimed past a check the run failed
CHECK_PRIORITY = 40  # a child aimed at a check's panic, or past a failed one, the first time at an occurrence
REVISIT_PRIORITY = 3  # a child aimed at a covered edge (`Explorer.priority`), plus below 1 (`revisit_bonus`)
PANIC_SYSTEMATIC_SHARE = 4  # the panic search's first runs (1/4) are the systematic flips only
# Random inputs run between the solver's queries per million Z3 units spent on strings
# (`fuzz_turn`): at 0.3-1.2 µs a unit and 1-2 ms a run, a third to two thirds of the time. String
# queries Z3 answers unknown cost their whole limit each, while random inputs built from the
# program's literals reach a config's keys or a card number's twelve digits in a few hundred
# runs: the string parsers among the application benchmarks reach CrossHair's share of their
# edges 1.6 to 5 times sooner than at a hundred runs a megaunit, with every bug still found.
FUZZ_RUNS_PER_MEGAUNIT = 300
FUZZ_AFTER_UNITS = 200_000  # a search whose string queries take a tenth of a second needs no fuzzing
FUZZ_PRIORITY = 1_000  # a fuzz turn's input runs next, before any child
RECENT_COMPARES = 128  # concrete string comparisons kept for the random rounds (`note_compares`)


@dataclass
class Job:
    assignment: dict[str, Any]
    bound: int
    predicted: tuple[tuple[Site, int], ...] | None  # (site, condition id) of each entry up to the flip
    reason: str
    # Generations left in which revisits of covered edges may pass the revisit cap: the run's
    # ancestor passed a branch whose other edge no query could aim at (`Explorer.near_frontier`).
    boost: int = 0


@dataclass
class Outcome:
    value: Any = None
    error: BamlError | None = None

    def as_dict(self) -> dict[str, Any]:
        if self.error is None:
            return {"value": self.value}
        e = self.error
        return {"error": {"kind": e.kind, "message": e.message}}


@dataclass
class RunResult:
    trace: RunTrace
    outcome: Outcome
    args: dict[str, Any]  # plain values, captured before the run could mutate them
    mocks: dict[str, list[Any]]
    assignment: dict[str, Any]  # every variable the run read
    cut: str | None = None  # "run-timeout", "memory" or "llm-calls": the budget stopped the run part-way


@dataclass
class Finding:
    kind: str
    message: str
    args: dict[str, Any]
    mocks: dict[str, list[Any]]
    trace: list[str]
    site: str
    run: int
    time_s: float | None = None  # seconds into the exploration when it was found


@dataclass
class TestCase:
    args: dict[str, Any]
    mocks: dict[str, list[Any]]
    outcome: dict[str, Any]
    new_edges: list[str]
    run: int
    time_s: float | None = None  # seconds into the exploration when it was found


@dataclass
class Exploration:
    """Everything one exploration found; `report.py` turns it into text and JSON."""

    function: str
    options: Options
    edges: list[Edge] = field(default_factory=list)
    covered: set[EdgeKey] = field(default_factory=set)
    infeasible: set[EdgeKey] = field(default_factory=set)
    tests: list[TestCase] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    divergences: list[dict[str, Any]] = field(default_factory=list)
    runs: int = 0
    paths: int = 0
    concretizations: int = 0
    concretized_at: dict[Site, int] = field(default_factory=dict)  # (function index, pc) -> CONCRETIZE entries there
    pruned: int = 0  # symbolic operations run concretely at hot sites, over the distinct paths
    solver_stats: dict[str, Any] = field(default_factory=dict)
    elapsed_s: float = 0.0
    full_coverage_s: float | None = None
    full_coverage_run: int | None = None
    first_finding_s: float | None = None
    stopped_by: str = "exhausted"
    # Why the search was not exhaustive, with counts: "concretized", "pruned", "solver-unknown",
    # "divergence", "step-limit", "depth-limit", "revisit-cap", "check-repeat", "concretize-flips",
    # "run-timeout", "memory", "llm-calls", and the stop ("max-runs", "timeout"). Empty: every path was explored.
    limits: dict[str, int] = field(default_factory=dict)
    panic_sites: int = 0  # instructions that can panic by construction, in the reached functions
    panic_sites_reached: int = 0  # of those, executed by some run
    panic_sites_aimed: int = 0  # of those, aimed at by a check query, through the conditions before them, or seen panicking
    panic_aims: int = 0  # children aimed at panic sites through the conditions deciding their operands
    fixed_aims: int = 0  # children aimed at a check with a concretized operand free again (`exact_checks`)
    panic_runs: int = 0  # runs spent on un-aimed panic sites after the edge search ended
    # ... and the runs it may spend: `Options.panic_runs` for each string length (`string_growth`)
    panic_budget: int = 0
    string_length: int = 0  # the strings' length cap the search ended with (`string_growth`)
    fuzz_runs: int = 0  # random inputs run while the solver's children were queued (`fuzz_turn`)

    @property
    def complete(self) -> bool:
        """Was the search exhaustive (every feasible path run, so every uncovered edge is infeasible)?"""
        return self.stopped_by == "exhausted" and not self.limits


class LlmInputs:
    """The environment during a run: LLM results come from the assignment as symbolic inputs."""

    def __init__(self, builder: InputBuilder, view: ProgramView, max_calls: int) -> None:
        self.builder = builder
        self.view = view
        self.mocks: dict[str, list[Any]] = {}
        self.calls_left = max_calls
        self.counted = False  # `llm_failure` counted the call whose reply `llm_result` builds next

    def llm_failure(self, fn: BexFunction, site: str, occurrence: int) -> tuple[bool, Expr]:
        self.count_call()
        fails, var = self.builder.var(f"{fn.name}@{site}#{occurrence}.$fails", Sort.BOOL)
        if fails:
            self.mocks.setdefault(fn.name, []).append({FAILURE_KEY: "ParseFailed"})
        self.counted = not fails
        return bool(fails), var

    def llm_result(self, fn: BexFunction, site: str, occurrence: int) -> tuple[Any, Shadow]:
        if not self.counted:
            self.count_call()  # no `catch` around the call: `llm_failure` was not asked
        self.counted = False
        ret = self.view.function(fn.name).ret
        value, shadow = self.builder.build(ret, f"{fn.name}@{site}#{occurrence}")
        self.mocks.setdefault(fn.name, []).append(to_python(value))
        return value, shadow

    def count_call(self) -> None:
        self.calls_left -= 1
        if self.calls_left < 0:
            raise RunCut("llm-calls")


class Explorer:
    def __init__(self, view: ProgramView, function: str, options: Options | None = None,
                 progress: Callable[[Exploration], None] | None = None, state: StateDir | None = None) -> None:
        self.view = view
        self.function = function
        self.options = options or Options()
        self.progress = progress
        self.x = Interner()
        self.space = InputSpace()
        self.solver = Solver(self.options.solver_timeout_ms, self.options.seed, self.options.max_string_length,
                             self.options.solver_rlimit, model_units_cap=self.options.string_model_units)
        self.fn = view.bytecode.by_name[function]
        if self.fn.kind != "body":
            what = "an LLM function" if self.fn.kind == "llm" else f"a {self.fn.kind} function"
            raise UnsupportedInput(
                f"`{function}` is {what}: it has no BAML body to explore. Explore a function that "
                f"calls it; exploration then treats each of its results as an input (every reply "
                f"the program's parsing and branches can see)")
        self.tracker_class = tracker_class(self.options.tracker)
        self._classes = {c.name: c for c in view.classes()}  # built once, not per run
        self.result = Exploration(function, self.options, panic_budget=self.options.panic_runs,
                                  string_length=self.options.max_string_length)
        self.result.edges = list(reachable_edges(view, function))
        self._edge_keys = {edge_key(e) for e in self.result.edges}
        self._siblings: dict[tuple[str, int], set[EdgeKey]] = {}  # branch (function, block) -> its edges
        for key in self._edge_keys:
            self._siblings.setdefault(key[:2], set()).add(key)
        functions = reachable_functions(view, function)
        self._distance = UncoveredDistance(view, functions, self._edge_keys)
        self.dictionary = Dictionary.of(view.bytecode, functions)
        self.solver.nearby_tokens = Tokens(self.dictionary.strings, self.dictionary.separators, self.dictionary.ints)
        self._panic_sites = panic_sites(view.bytecode, functions)
        self._aimed: set[tuple[str, int]] = set()  # sites with a check entry, or that panicked
        self.aims = PanicAims()  # sites reached with concrete operands (`ingot.concolic.aiming`)
        self.branch_aims = PanicAims()  # branches reached whose other edge is uncovered, as sites
        self.models = ModelBudget()  # the string models' budget, renewed for inputs found without them
        self._concretized_seen: dict[tuple[Site, int], list[Expr]] = {}
        # inputs that covered an edge first, took one a new number of times, or found a bug
        self._corpus: list[dict[str, Any]] = []
        self._firsts: list[dict[str, Any]] = []  # those that covered an edge first or found a bug
        # the recent runs' concrete string comparisons (`RunTrace.compared`), oldest first: the
        # random rounds' input-to-state replacements (`Dictionary.mutate_string`)
        self._compares: dict[tuple[str, str], None] = {}
        self.hit_counts = HitCounts()
        self._deadline = float("inf")  # perf_counter time the exploration's budget ends
        # (site, call context, occurrence on the path up to MAX_CHECK_OCCURRENCE) -> status of the query
        # aimed at it: the k-th pass through a loop may panic where the first cannot (`t += x`)
        self._tried_checks: dict[tuple[Site, int, int], str] = {}
        self._concretize_flips: dict[Site, int] = {}
        self._revisits: dict[tuple[Site, EdgeKey | str, int], int] = {}  # (site, edge or check side, occurrence)
        self._seen_paths: set[tuple[tuple[Site, int], ...]] = set()
        self._unsat_edges: dict[EdgeKey, int] = {}
        self._unknown_edges: set[EdgeKey] = set()
        self._finding_keys: set[tuple[str, str]] = set()
        self._queue: list[tuple[float, int, Job]] = []
        self._counter = itertools.count()
        self._rng = random.Random(self.options.seed)
        self._random_misses = 0
        self._last_random_covered: int | None = None
        # Checkpoints (`ingot.concolic.checkpoint`): where the search state is saved between
        # generations, whether it was loaded from there, and whether the search has ended.
        self.state = state
        self.resumed = False
        self.finished = False
        self.stop_requested = False
        self._start = 0.0

    @classmethod
    def resume(cls, view: ProgramView, function: str, options: Options, state: StateDir,
               progress: Callable[[Exploration], None] | None = None) -> Explorer:
        """An explorer that continues the search saved in `state` (a `StateDir` of the same
        program, function and options, else `StateError`); it keeps saving there."""
        explorer = cls(view, function, options, progress, state)
        state.restore(explorer)
        return explorer

    def request_stop(self) -> None:
        """Stop at the end of the current generation (saving the state, when there is one)."""
        self.stop_requested = True

    # -- running one input ------------------------------------------------------------------
    def run(self, assignment: dict[str, Any]) -> RunResult:
        vm = self.tracker_class(self.view, self.x, env=None, max_depth=self.options.max_depth,  # type: ignore[arg-type]
                                max_steps=self.options.max_steps, prune_after=self.options.prune_after)
        vm.max_parts = self.options.max_len  # parts of a `split` modelled exactly (more: concretized)
        cap = self.solver.model_units_cap
        if cap is not None and self.solver.stats.model_units >= cap:
            vm.string_models = False
            self.limit("string-models-off")
            self.models.note_off(len(self._firsts))
        builder = InputBuilder(self.view, self.x, self.space, assignment, vm.hset, self.options.max_len,
                               self._classes)
        env = LlmInputs(builder, self.view, self.options.max_llm_calls)
        vm.env = env
        fview = self.view.function(self.function)
        values, shadows = [], []
        for pname, ty in fview.params:
            value, shadow = builder.build(ty, pname)
            values.append(value)
            shadows.append(shadow)
        args = {pname: to_python(v) for (pname, _), v in zip(fview.params, values)}
        if builder.capped_map:
            self.limit("input-sizes")
        outcome = Outcome()
        cut = None
        # A run allocates many acyclic objects (expressions, entries); each full collection would
        # rescan the interner's whole table, which grows over an exploration. Pause the cyclic
        # collector for the run (reference counting still frees everything without cycles).
        collecting = gc.isenabled()
        gc.disable()
        try:
            with guard(self._deadline, self.memory_cap()):
                outcome.value = to_python(vm.run_tracked(self.fn, values, shadows))
        except BamlRaise as e:
            outcome.error = BamlError(e.value, e.trace)
        except RunCut as e:
            cut = e.reason
        finally:
            if collecting:
                gc.enable()
        result = RunResult(vm.trace, outcome, args, env.mocks, dict(builder.used), cut)
        if cut == "memory":
            del vm, builder, env  # the run's heap: free it before the next run
            gc.collect()
        return result

    # -- the search ---------------------------------------------------------------------------
    def explore(self) -> Exploration:
        res = self.result
        if self.finished:
            return res
        start = self._start = time.perf_counter() - res.elapsed_s  # a resumed search goes on counting
        self._deadline = start + self.options.timeout_s
        self.solver.deadline = self._deadline
        if not self.resumed:
            self.push(Job({}, 0, None, "seed"), 100)
        while self.generation_boundary() and (self._queue or self.random_round()):
            if res.runs >= self.options.max_runs:
                res.stopped_by = "max-runs"
                break
            if time.perf_counter() - start > self.options.timeout_s:
                res.stopped_by = "timeout"
                break
            if self._edge_keys and self._edge_keys <= res.covered | res.infeasible and not self.pending_checks() \
                    and not self.panic_search_left():
                res.stopped_by = "full-coverage"
                break
            if self.panic_phase():
                if not self.panic_phase_runs():
                    settings_at_panic_start(self, self._panic_sites - self._aimed)
                res.panic_runs += 1
                self.mutation_turn()
            else:
                self.fuzz_turn()
            if res.runs >= self.options.max_runs:
                continue  # the fuzz turn ran the last runs of the budget: the checks above stop the search
            _, _, job = heapq.heappop(self._queue)
            run = self.run(job.assignment)
            res.runs += 1
            if run.cut is not None:
                self.record_cut(run, run.cut)
                continue
            if job.predicted is not None:
                followed, bound = self.followed(run.trace.path, job)
                if not followed:
                    res.divergences.append({"args": run.args, "mocks": run.mocks, "reason": job.reason})
                    self.limit("divergence")
                # The run is real all the same: what it covered and found counts (a child solved
                # with the string models on may run with them off and still panic), and its path
                # is new from where it left the prediction (the entries before are the parent's).
                job = replace(job, bound=bound)
            self.record(run, time.perf_counter() - start)
            key = tuple((e.site, e.observed.id) for e in run.trace.path)
            if key in self._seen_paths:
                if job.reason != "grown":
                    continue  # (a path is expanded once, unless its queries' answers were dropped)
            else:
                self._seen_paths.add(key)
                self.count_path(run)
            boost = FRONTIER_GENERATIONS if self.near_frontier(run) else max(job.boost - 1, 0)
            self.expand(job, run, boost)
            self.aims.note(run, self._panic_sites)
            aim_at_reaches(self, job, run, self._panic_sites - self._aimed, boost)
            aim_at_branches(self, job, run, {e[:2] for e in self._edge_keys - res.covered - res.infeasible}, boost)
            if self.progress is not None:
                res.elapsed_s = time.perf_counter() - start
                self.progress(res)
        else:
            res.stopped_by = "interrupted" if self.stop_requested else "exhausted"
        if res.stopped_by in ("max-runs", "timeout", "interrupted"):
            self.limit(res.stopped_by)
        self.finish()
        res.panic_sites = len(self._panic_sites)
        res.panic_sites_reached = len(self._panic_sites & set(self.aims.reach_runs))
        res.panic_sites_aimed = len(self._panic_sites & (self._aimed | self.aims.aimed()))
        res.panic_aims = sum(self.aims.flips.values())
        res.elapsed_s = time.perf_counter() - start
        res.solver_stats = self.solver.stats.as_dict()
        self.finished = res.stopped_by != "interrupted"
        if self.state is not None and self.finished:
            self.state.save(self)
        return res

    def count_path(self, run: RunResult) -> None:
        """A new path: count it, and what it concretized and pruned."""
        res = self.result
        res.paths += 1
        res.concretizations += run.trace.concretized
        for entry in run.trace.path:
            if entry.kind is EntryKind.CONCRETIZE:
                res.concretized_at[entry.site] = res.concretized_at.get(entry.site, 0) + 1
        res.pruned += run.trace.pruned
        self.limit("concretized", run.trace.concretized)
        self.limit("pruned", run.trace.pruned)

    def generation_boundary(self) -> bool:
        """Between generations (one run and the children its expansion queued): the search state
        is whole, so save it when a checkpoint is due; False once a stop was requested."""
        if self.state is not None and (self.stop_requested or self.state.due()):
            self.result.elapsed_s = time.perf_counter() - self._start
            self.state.save(self)
        return not self.stop_requested

    def memory_cap(self) -> int | None:
        """Resident bytes past which the next run is cut: what the process holds now, plus the allowance."""
        rss = resident_bytes()
        if self.options.memory_mb is None or rss is None:
            return None
        return rss + self.options.memory_mb * 2**20

    def limit(self, reason: str, count: int = 1) -> None:
        """Note that the search met a limit: it is then not exhaustive (see `Exploration.limits`)."""
        if count:
            self.result.limits[reason] = self.result.limits.get(reason, 0) + count

    def random_round(self) -> bool:
        """When the search has nothing left but edges remain uncovered, try random inputs.

        Conditions on values the program computes by counting (not from inputs)
        give the solver nothing to negate; random inputs from the known variables'
        domains, with small numbers and the string constants the program compared
        against, reach such edges cheaply. Stops after `random_patience` runs in a
        row without new coverage.
        """
        res = self.result
        if self.models.renew(self):
            return True
        if self.panic_phase() and not self.panic_search_left():
            return string_growth.grow(self)
        covered_before = len(res.covered)
        if self._last_random_covered is not None and covered_before == self._last_random_covered:
            self._random_misses += 1
        else:
            self._random_misses = 0
        self._last_random_covered = covered_before
        self.push(Job(self.random_assignment(), 0, None, "random"), 0)
        return True

    def renew_patience(self) -> None:
        """Let the random rounds start over: the edge search goes on (`string_growth`)."""
        self._random_misses = 0
        self._last_random_covered = None

    @property
    def string_length(self) -> int:
        """The strings' length cap now (`string_growth` raises it)."""
        return self.result.string_length

    def panic_phase_runs(self) -> int:
        """Runs the panic search has spent at this string length."""
        return self.result.panic_runs - (self.result.panic_budget - self.options.panic_runs)

    def mutation_turn(self) -> None:
        """Past the first quarter of the panic search, every other run is a mutated input (most
        of them of inputs that reached a pending site) rather than a flip left over from the edge
        search: those revisit covered edges one loop occurrence at a time and would otherwise
        take the whole budget, but they come first (one more try of a retry loop is a flip)."""
        runs = self.panic_phase_runs()
        if runs > self.options.panic_runs // PANIC_SYSTEMATIC_SHARE and runs % 2 and self._queue \
                and -self._queue[0][0] < REVISIT_PRIORITY + 1:
            self.push(Job(self.random_assignment(), 0, None, "mutation"), REVISIT_PRIORITY + 1)

    def fuzz_turn(self) -> None:
        """While the solver's children are queued, run a random input whenever the solver's work
        (in Z3 units, the same on every machine) has earned one, as hybrid fuzzers run a fuzzer
        beside the concolic executor: the queries of string parsing cost up to their limit each,
        and mutations of the corpus reach a length or a count compared with a literal (twelve
        digits of a card number) long before the queue empties.

        The turn comes between two queries (`ask`), not only between two runs: one run's
        expansion over a config file's lines asks dozens of string queries (seconds), while the
        inputs they earn would have covered the keys it looks up. An input that covered an edge
        or found a bug is queued first, to be run again (a millisecond) and expanded as the
        solver's children are; the others are kept for their hit counts at most."""
        res = self.result
        while self.fuzz_due():
            res.fuzz_runs += 1
            res.runs += 1
            run = self.run(self.random_assignment())
            if run.cut is not None:
                self.record_cut(run, run.cut)
            elif self.record(run, time.perf_counter() - self._start):
                self.push(Job(run.assignment, 0, None, "fuzz"), FUZZ_PRIORITY)

    def record_cut(self, run: RunResult, cut: str) -> None:
        """A run cut part-way (`cut`: the budget or cap): its edges were taken, but its path is
        not whole (nothing to expand), and the search met that limit."""
        self.limit(cut)
        self.result.covered.update(e for e in run.trace.edges if e in self._edge_keys)

    def fuzz_due(self) -> bool:
        """Have the string queries' Z3 units earned another fuzz run (`fuzz_turn`), with children
        queued, a corpus to draw from, and runs and time left in the budget?"""
        res = self.result
        earned = FUZZ_RUNS_PER_MEGAUNIT * (self.solver.stats.string_units - FUZZ_AFTER_UNITS) // 1_000_000
        return bool(self._queue and self._corpus) and res.fuzz_runs < earned and not self.stop_requested \
            and res.runs < self.options.max_runs and time.perf_counter() < self._deadline

    def ask(self, query: list[Expr], near: dict[str, Any] | None = None) -> Result:
        """Solve a query over the inputs' domains (searching near `near` where Z3 cannot answer),
        then take the fuzz turn its Z3 units earned, while the edge search lasts: the panic
        search interleaves mutations of its own (`mutation_turn`), within its budget of runs."""
        result = self.solver.solve(query, self.domains(query), near)
        if not self.panic_phase():
            self.fuzz_turn()
        return result

    def edges_done(self) -> bool:
        return bool(self._edge_keys) and self._edge_keys <= self.result.covered | self.result.infeasible

    def panic_phase(self) -> bool:
        """Is the edge search over (full coverage, or random rounds out of patience), leaving the
        panic search (`panic_search_left`)?"""
        return self.edges_done() or self._random_misses >= self.patience()

    def patience(self) -> int:
        """Random inputs in a row without new coverage before the edge search gives up: half as
        many once the strings' cap has grown (`string_growth`)."""
        grown = self.result.string_length > self.options.max_string_length
        return self.options.random_patience // (2 if grown else 1)

    def panic_search_left(self) -> bool:
        """After the edge search: are panic sites un-aimed (or aimed at through the path only: they
        have not panicked), or aimed at by a query only in vain (a later pass through a loop may
        still reach them), with runs left in their budget?"""
        if self.result.panic_runs >= self.result.panic_budget:
            return False
        return bool(self._panic_sites - self._aimed) or any(v != "sat" for v in self._tried_checks.values())

    def random_assignment(self) -> dict[str, Any]:
        """Fresh values from the program's dictionary of literals, or (more often) an input that
        found something new with one or two of its values mutated, as a fuzzer would."""
        pending = self._panic_sites - self._aimed
        if self._random_misses >= self.patience() // 4:  # edges stall: sites aimed at in vain too
            pending |= vain_checks(self._tried_checks, self.view.bytecode, self._panic_sites)
        if self.aims.has_seeds(pending) and self._rng.random() < (0.8 if self.panic_phase() else 0.3):
            seed = self.aims.seed(self._rng, pending)
            if seed is not None:
                return self.mutated(seed, nudge=0.5)  # directed at a panic site no query reached (or in vain)
        if self._corpus and self._rng.random() < 0.7:
            return self.mutated(self.dictionary.pick(self._rng, self._corpus, self._firsts))
        return self.fresh_assignment()

    def mutated(self, base: dict[str, Any], nudge: float = 0.0) -> dict[str, Any]:
        # Input-to-state replacements take the other edge of a comparison: the edge search's
        # business. The panic search's mutations move the operands of a panic site instead
        # (`Dictionary.aimed_moves`), and keep their share of the runs.
        compares = () if self.panic_phase() else self._compares.keys()
        return mutated(self._rng, self.dictionary, self.space, base, self._corpus,
                       self.string_length, nudge, compares)

    def note_compares(self, compared: dict[tuple[str, str], None]) -> None:
        """Keep a run's concrete comparisons in the table of recent ones (libFuzzer's TORC):
        a pair seen again moves to the newest end, the oldest go past `RECENT_COMPARES`. Not
        those whose string to replace is one of the program's literals: `key == "t"` wants the
        input's key to become "t", never a "t" in the input to become the key ("t=170" is what
        the program parses)."""
        table, literals = self._compares, self.dictionary.literals
        for pair in compared:
            if pair[0] in literals:
                continue
            table.pop(pair, None)
            table[pair] = None
        for pair in list(itertools.islice(table, max(len(table) - RECENT_COMPARES, 0))):
            del table[pair]

    def fresh_assignment(self) -> dict[str, Any]:
        return fresh_assignment(self._rng, self.dictionary, self.space, self._corpus[0] if self._corpus else (),
                                self.string_length)

    def pending_checks(self) -> bool:
        """Are children aimed at panics still queued? (Coverage alone does not stop the search then.)"""
        return any(job.reason.startswith(("check", "aim")) and not job.reason.startswith(PAST_A_CHECK)
                   for _, _, job in self._queue)

    def push(self, job: Job, priority: float) -> None:
        heapq.heappush(self._queue, (-priority, next(self._counter), job))

    def followed(self, path: list[PathEntry], job: Job) -> tuple[bool, int]:
        """Did the child take the path it was solved for (prefix, then the flipped entry)? And
        where on its path do its own entries begin (the expansion's bound): past the predicted
        ones, or past the first that is not."""
        predicted = job.predicted or ()
        flipped_value = job.reason.startswith("concretize")
        if flipped_value:
            # A flipped concretization changes what the run records there: only the prefix is predicted.
            predicted = predicted[:-1]
        matched, at = matched_prefix(path, predicted)
        if matched < len(predicted) or (flipped_value and at >= len(path)):
            return False, min(at + 1, len(path))
        return True, at + 1 if flipped_value else at  # (past the flipped entry, whatever it recorded)

    def record(self, run: RunResult, now: float) -> bool:
        """Count the run's edges and findings; True when it covered an edge or found a bug first."""
        res = self.result
        for proven, ctx in run.trace.proven:
            # Its check could not fail on this path: as if it had been aimed at in vain (a query
            # answered unsat), so inputs that reach it again are still tried (a later pass of a
            # loop adds one more term).
            self.aim(proven)
            self._tried_checks.setdefault(check_key(proven, ctx, 0), "unsat")
        self.note_compares(run.trace.compared)
        new_edges = [e for e in dict.fromkeys(run.trace.edges) if e not in res.covered and e in self._edge_keys]
        res.covered.update(e for e in run.trace.edges if e in self._edge_keys)
        new_finding = False
        if run.outcome.error is not None:
            err = run.outcome.error
            site = str(err.trace[-1]) if err.trace else ""
            fkey = (err.kind, site)
            if err.kind in RUN_LIMITS:
                self.limit(RUN_LIMITS[err.kind])
            elif err.trace:
                self.panicked_at(err.trace[-1].function, err.trace[-1].line)
            if fkey not in self._finding_keys and err.kind != "InstructionLimit":
                self._finding_keys.add(fkey)
                new_finding = True
                res.findings.append(Finding(err.kind, err.message, run.args, run.mocks,
                                            [str(f) for f in err.trace], site, res.runs, now))
                if res.first_finding_s is None:
                    res.first_finding_s = now
        if (self.hit_counts.new(run.trace.edges) or new_edges or new_finding) and worth_mutating(run):
            self._corpus.append(run.assignment)
            if new_edges or new_finding:
                self._firsts.append(run.assignment)
        if new_edges or new_finding or not res.tests:
            res.tests.append(TestCase(run.args, run.mocks, run.outcome.as_dict(),
                                      [edge_label(self.view, e) for e in new_edges], res.runs, now))
        if res.full_coverage_s is None and self._edge_keys and self._edge_keys <= res.covered:
            res.full_coverage_s = now
            res.full_coverage_run = res.runs
        return bool(new_edges) or new_finding

    def near_frontier(self, run: RunResult) -> bool:
        """Did the run pass a branch whose other edge is uncovered, or is the search after panic
        sites no query aimed at? A condition the program computed by counting (`valid >= 3` after a
        loop) records no entry, so only other paths through the loop reach its other edge: the
        run's covered edges are worth revisiting past the usual cap."""
        if self.edges_done():
            return self.panic_search_left()
        covered = self.result.covered | self.result.infeasible
        symbolic = {alt.target[:2] for entry in run.trace.path for alt in entry.alternatives if alt.target}
        for fn, block, _ in run.trace.edges:
            if (fn, block) not in symbolic and not self._siblings.get((fn, block), set()) <= covered:
                return True
        return False

    def expand(self, job: Job, run: RunResult, boost: int = 0) -> None:
        path = run.trace.path
        occurrences: dict[Site, int] = {}
        for entry in path[: job.bound]:
            occurrences[entry.site] = occurrences.get(entry.site, 0) + 1
        # An unsat answer proves an edge unreachable on this path only when nothing before it was
        # fixed: a concretization (or a pruned operation) may be what makes the query unsat, even
        # when slicing left its entry out.
        fixed_before = run.trace.pruned > 0
        # A mutated input interleaved in the panic search (`mutation_turn`) is run for what it
        # reaches and aimed from (`aim_at_reaches`), not revisited: its flips of covered edges
        # would crowd out the systematic ones queued before it. So is a child aimed at a branch
        # (`aim_at_branches`): most of them take another way there, all of them near-alike. So is
        # a fuzz turn's input (`fuzz_turn`): long, and expanded while the solver's queue is full.
        revisits = not job.reason.startswith(("mutation", "reach:", "fuzz"))
        for k in range(job.bound):
            fixed_before = fixed_before or path[k].kind is EntryKind.CONCRETIZE
        for j in range(job.bound, len(path)):
            if time.perf_counter() > self._deadline:
                return  # the search's time is up: the loop stops it (a long path has thousands of entries)
            entry = path[j]
            if j > 0 and path[j - 1].kind is EntryKind.CONCRETIZE:
                fixed_before = True
            nth = occurrences.get(entry.site, 0)
            occurrences[entry.site] = nth + 1
            if entry.kind is EntryKind.CHECK:
                self.aim(entry.site)
            for alt in entry.alternatives:
                priority = self.priority(entry, alt.target, alt.label, nth, boost, revisits)
                if priority is None:
                    continue
                goal = alt.cond
                if entry.kind is EntryKind.CONCRETIZE and alt.label != "modelled":
                    goal = self.diversified(entry)
                prefix = path[:j]
                query = self.slice([p.observed for p in prefix], goal)
                result = self.ask(query, run.assignment)
                predicted: tuple[tuple[Site, int], ...] | None = \
                    tuple((p.site, p.observed.id) for p in prefix) + ((entry.site, goal.id),)
                if result.status == "unsat" and self.fixed(prefix, query):
                    # Concretizations fixed values the goal may need: unsat proves nothing.
                    # Solve without them (QSYM's optimistic solving); the run decides.
                    free = [p.observed for p in prefix if p.kind is not EntryKind.CONCRETIZE]
                    query = self.slice(free, goal)
                    result = self.ask(query, run.assignment)
                    predicted = None
                elif result.status == "unsat" and not fixed_before and (why := self.not_a_proof(query)):
                    self.limit(why)
                elif result.status == "unsat" and alt.target is not None and not fixed_before:
                    self._unsat_edges[alt.target] = self._unsat_edges.get(alt.target, 0) + 1
                if result.status != "sat" and j in run.trace.exact:  # the check over a fixed operand
                    result, predicted = exact_checks.pose(self, run.trace.exact[j], prefix), None
                if entry.kind is EntryKind.CHECK and not alt.label.startswith(SAFE_SIDE):
                    self._tried_checks[check_key(entry.site, entry.ctx, nth)] = result.status
                if result.status != "sat" or result.model is None:
                    if result.status == "unknown":
                        self.limit("solver-unknown")
                        if alt.target is not None:
                            self._unknown_edges.add(alt.target)
                    continue
                child = {**run.assignment, **result.model}
                reason = f"{entry.kind.value}:{alt.label}" + ("" if predicted is not None else " (optimistic)")
                self.push(Job(child, j + 1, predicted, reason, boost), priority)

    def priority(self, entry: PathEntry, target: EdgeKey | None, label: str, nth: int = 0,
                 boost: int = 0, revisits: bool = True) -> float | None:
        """How much a child aimed here could add; None: not worth a query."""
        res = self.result
        if entry.kind is EntryKind.BRANCH:
            if target is None:
                return None
            if target not in res.covered:
                return 50 if target in self._edge_keys else 5
            # A covered edge may still lead somewhere new (a later loop iteration, another
            # caller): try it a few times per direction and per occurrence on the path,
            # after everything more promising.
            if not self.revisit((entry.site, target, min(nth, MAX_REVISIT_OCCURRENCE)), boost, revisits):
                return None
            return REVISIT_PRIORITY + self._distance.revisit_bonus(target, res.covered)
        if entry.kind is EntryKind.CHECK and label.startswith(SAFE_SIDE):
            # Past a check the run failed: new ground the first time at this occurrence, then
            # revisited like a covered edge (the path before it decides what comes after: a
            # month that parses matters only on a path whose day and year passed).
            key = (entry.site, label, min(nth, MAX_REVISIT_OCCURRENCE))
            first = key not in self._revisits
            if not self.revisit(key, boost, revisits or first):
                return None
            return CHECK_PRIORITY if first else REVISIT_PRIORITY
        if entry.kind is EntryKind.CHECK:
            check = check_key(entry.site, entry.ctx, nth)
            if check in self._tried_checks:
                # Aimed at once already; if that query was not sat, this path (another prefix)
                # might have reached the panic, so skipping it leaves the search not exhaustive.
                if self._tried_checks[check] != "sat":
                    self.limit("check-repeat")
                return None
            self._tried_checks[check] = "pending"
            return CHECK_PRIORITY
        count = self._concretize_flips.get(entry.site, 0)
        if count >= self.options.concretize_flips:
            self.limit("concretize-flips")
            return None
        self._concretize_flips[entry.site] = count + 1
        return 2

    def revisit(self, key: tuple[Site, EdgeKey | str, int], boost: int, allowed: bool) -> bool:
        """Count one more flip toward an already reached side at `key` (site, side, occurrence);
        False (counted under "revisit-cap") when they are spent or not `allowed`."""
        count = self._revisits.get(key, 0)
        if not allowed or count >= self.options.revisits * (FRONTIER_REVISITS if boost else 1):
            self.limit("revisit-cap")
            return False
        self._revisits[key] = count + 1
        return True

    def panicked_at(self, qualified: str, line: int) -> None:
        """A run failed at this line: the panic sites on it were reached (and fired)."""
        for fn, pc in self._panic_sites - self._aimed:
            bex = self.view.bytecode.by_name[fn]
            if bex.qualified == qualified and bex.line_at(pc) == line:
                self._aimed.add((fn, pc))

    def aim(self, site: Site) -> None:
        """A check entry at `(function index, pc, kind)` was seen: its panic site is aimed at."""
        self._aimed.add((self.view.bytecode.functions[site[0]].name, site[1]))

    def diversified(self, entry: PathEntry) -> Expr:
        """"Another value" for a concretization: unlike every value seen fixed at this site so far."""
        fixed = entry.observed.args[0] if entry.observed.args else entry.observed  # `expr == value`
        seen = self._concretized_seen.setdefault((entry.site, fixed.id), [])
        if entry.observed not in seen:
            seen.append(entry.observed)
        return self.x.and_(*(self.x.not_(o) for o in seen[-16:]))

    @staticmethod
    def fixed(prefix: list[PathEntry], query: list[Expr]) -> bool:
        """Does the query rely on a concretization (so its unsat is not a proof)?"""
        chosen = {q.id for q in query}
        return any(p.kind is EntryKind.CONCRETIZE and p.observed.id in chosen for p in prefix)

    def slice(self, prefix: list[Expr], goal: Expr) -> list[Expr]:
        """The prefix entries sharing variables with the goal, transitively (KLEE's independence)."""
        wanted = set(goal.vars)
        chosen: list[Expr] = []
        rest = [p for p in prefix if p.vars]
        changed = True
        while changed:
            changed = False
            keep = []
            for p in rest:
                if p.vars & wanted:
                    chosen.append(p)
                    wanted |= p.vars
                    changed = True
                else:
                    keep.append(p)
            rest = keep
        ids = {id(p) for p in chosen}  # (a list's `in` made this quadratic on long paths)
        return [p for p in prefix if id(p) in ids] + [goal]

    def not_a_proof(self, query: list[Expr]) -> str | None:
        """Why an unsat answer to `query` proves nothing about the program's inputs (the limit it
        counts under), or None. "Complete" and "infeasible" are claims about every input, so
        this is asked while the search may still be complete; once a limit was met, no claim
        rests on the answer. Floats are Z3 reals: `x + 1.0 == x` is unsat over the reals and
        true of 1e16 (and `x != x` of NaN). The caps on input sizes are the search's."""
        if self.result.limits:
            return None
        seen: dict[int, Any] = {}
        for q in query:
            nodes = post_order(q, seen)  # (each shared subterm once)
            if any(node.sort is Sort.FLOAT for node in nodes):
                return "float-reals"
            seen.update(dict.fromkeys(node.id for node in nodes))
        return "input-sizes" if self.only_within_sizes(query) else None

    def only_within_sizes(self, query: list[Expr]) -> bool:
        """Was this unsat answer owed to the caps on input sizes (`max_len` elements,
        `max_string_length` characters), so that a longer input may satisfy the query?"""
        names = sorted(set().union(*(q.vars for q in query)))
        lengths = [n for n in names if n.endswith(".$len")]  # arrays' and maps', capped at `max_len`
        if not lengths and not self.solver.mentions_strings(query):
            return False
        uncapped = [d for n in names if n not in lengths for d in self.space.domains.get(n, ())]
        uncapped += [self.x.le(self.x.const(0), self.x.var(n, Sort.INT)) for n in lengths]
        return not self.solver.unsat_at_any_size(query, uncapped)

    def domains(self, query: list[Expr]) -> list[Expr]:
        names = sorted(set().union(*(q.vars for q in query)))
        out: list[Expr] = []
        for n in names:
            out.extend(self.space.domains.get(n, ()))
        return out

    def finish(self) -> None:
        """Uncovered edges are reported infeasible only after an exhaustive search, and only those
        every attempt to reach proved unsat (free of concretizations) with none unknown."""
        res = self.result
        if not res.complete:
            return
        res.infeasible.update(e for e in self._edge_keys - res.covered if self.proven_unreachable(e))

    def proven_unreachable(self, edge: EdgeKey) -> bool:
        """Did queries aimed at the edge answer unsat, none unknown? (Proof of infeasibility in
        a search that met no limit: `finish`.)"""
        return self._unsat_edges.get(edge, 0) > 0 and edge not in self._unknown_edges


MAX_CHECK_OCCURRENCE = 8
# Loop occurrences past this share one revisit cap: a loop bound the fuzzer set to a thousand
# made a path of 3,000 entries whose every iteration was revisited, each query slicing in every
# earlier iteration's test (an expansion of minutes). Inputs of `max_string_length` characters
# and `max_len` elements stay below it.
MAX_REVISIT_OCCURRENCE = 32
FRONTIER_GENERATIONS = 6  # generations of children of a run near the frontier that revisit past the cap
FRONTIER_REVISITS = 8  # how many times the usual revisit cap they may go


def matched_prefix(path: list[PathEntry], predicted: tuple[tuple[Site, int], ...]) -> tuple[int, int]:
    """How many of the predicted (site, condition id) `path` took in order, and the position on
    `path` past the last of them (or of the first entry that is not the next predicted one).

    A concretization the prediction does not have, at another site than the next predicted
    entry, is passed over: it pins a value the run met, not a choice the solver made. A lookup
    that found the key the child was solved to hold pins the entry it found (`m.$key[3] ==
    "pinned"`), where the parent, whose map lacked the key, pinned nothing."""
    at = 0
    for matched, (site, cond) in enumerate(predicted):
        while at < len(path) and path[at].kind is EntryKind.CONCRETIZE and path[at].site != site:
            at += 1
        if at >= len(path) or path[at].site != site or path[at].observed.id != cond:
            return matched, at
        at += 1
    return len(predicted), at


def check_key(site: Site, ctx: int, nth: int) -> tuple[Site, int, int]:
    """How a check's queries are remembered: its site, call context and occurrence on the path."""
    return (site, ctx, min(nth, MAX_CHECK_OCCURRENCE))


def tracker_class(name: str) -> type[TrackedVM]:
    """The tracker an exploration runs with ("compiled" or "interp")."""
    trackers: dict[str, type[TrackedVM]] = {"compiled": CompiledTrackedVM, "interp": TrackedVM}
    if name not in trackers:
        raise ValueError(f"unknown tracker {name!r} (choose from {', '.join(trackers)})")
    return trackers[name]
