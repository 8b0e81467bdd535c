"""Checkpoint and resume of one exploration: its whole search state in a state directory.

`Explorer(..., state=StateDir(path, sources))` saves the search state between generations
(one run and the children its expansion queued: `Explorer.generation_boundary`) when a
checkpoint is due: a second after the search started or after the last checkpoint, and never
sooner than 50 times the last write's own duration after it (so periodic writes take about
2% of the exploration however large the state grows; bench/explore_checkpoint.py measures it); and always when a stop was requested and
when the search ends. `Explorer.resume(..., state=StateDir(path, sources))` loads it and goes on
to the same report (timings aside) as a search that was never stopped.

What is saved is everything the rest of the search depends on, as plain data: the frontier
(queued jobs with their priorities and tie-breaking counters), tests, findings, coverage,
the counters and caches that steer the search, the RNG state, the solver's cache, recent
models and statistics, and the expressions all of these refer to. Expressions are saved as
the interner's node table in id order and rebuilt with the same ids (ids are what jobs,
caches and seen paths hold). Z3 objects are not saved: the incremental Z3 solver's answers
depend on the queries asked before, so the solver's log of Z3 queries is saved and asked
again on resume (`Solver.replay`), which costs the Z3 time spent so far.

The file is a magic line, a header line (format version, payload length, SHA-256 of the
payload) and a zlib-compressed pickle of plain data (dicts, lists, tuples, sets, numbers,
strings) that is loaded with every class lookup refused. It is written to a temporary file
in the directory, flushed to disk and renamed over the previous one, so the directory always
holds the last complete checkpoint. A state records a fingerprint (function, options,
digests of the program's sources, ingot's version) and resuming with anything else is
refused, naming what differs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import itertools
import os
import pickle
import signal
import threading
import time
import zlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingot.concolic.aiming import PanicAims
from ingot.concolic.fuzzing import FreshAssignment
from ingot.concolic.model_budget import ModelBudget
from ingot.files import write_atomic_bytes
from ingot.symbolic.expr import Expr, Interner, Op, Sort
from ingot.symbolic.solver import Result, SolverStats

if TYPE_CHECKING:
    from ingot.concolic.explore import Explorer, Job, Options

# 2: path sites are (function index, pc) tuples, call contexts hash function indices, the
# panic search's state is saved; a version-1 state is refused rather than resumed differently.
# 3: the hit counts, the string models' renewals and the inputs that covered an edge first are saved.
# 4: a queued fresh input is saved as ("fresh", its values so far): it draws the others when it runs.
# 5: the aims at uncovered edges through the branches before them (`aim_at_branches`) are saved.
# 6: the table of recent concrete string comparisons (`Explorer.note_compares`) is saved.
FORMAT_VERSION = 6
MAGIC = b"ingot explore state\n"
STATE_FILE = "exploration.state"
MIN_INTERVAL_S = 1.0  # seconds between checkpoints, at least
COST_FACTOR = 50  # ... and at least this many times the last write's duration (about 2%)


class StateError(Exception):
    """A state directory that cannot be used: unreadable, damaged, or for another exploration."""


class StateDir:
    """The directory an exploration's state is saved in, for a program with these sources
    (file name -> text), and when the next checkpoint is due."""

    def __init__(self, path: str | os.PathLike[str], sources: Mapping[str, str]) -> None:
        self.path = Path(path)
        self.file = self.path / STATE_FILE
        self.digests = {name: _digest(text.encode()) for name, text in sources.items()}
        self.saves = 0  # checkpoints written by this process
        self.save_s = 0.0  # time spent writing them
        self._last_save: float | None = None
        self._last_cost = 0.0

    # -- starting and resuming ---------------------------------------------------------------
    def create(self) -> None:
        """Make the directory for a new exploration; refuse one that holds a state already
        (starting over would overwrite it)."""
        if self.file.exists():
            raise StateError(f"{self.path} already holds an exploration's state: continue it with "
                             f"--resume {self.path}, or remove it to start over")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StateError(f"cannot create state directory {self.path}: {e.strerror}") from None

    def restore(self, explorer: Explorer) -> None:
        """Load the saved state into a new `explorer` (same program, function and options)."""
        data = self.read()
        try:
            differences = self.differences(data.get("fingerprint"), explorer.function, explorer.options)
            if not differences:
                _restore(explorer, data["search"])
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
            raise StateError(f"{self.file} is damaged ({type(e).__name__}: {e})") from None
        if differences:
            raise StateError(f"cannot resume from {self.path}: " + "; ".join(differences))
        self._last_save = time.perf_counter()

    def differences(self, saved: Any, function: str, options: Options) -> list[str]:
        """What differs between the saved fingerprint and this exploration, in words."""
        if not isinstance(saved, dict):
            return ["the state has no fingerprint"]
        given = self.fingerprint(function, options)
        out = []
        if saved.get("ingot") != given["ingot"]:
            out.append(f"it was written by ingot {saved.get('ingot')}, this is ingot {given['ingot']}")
        if saved.get("function") != function:
            out.append(f"it explores `{saved.get('function')}`, not `{function}`")
        out.extend(_source_differences(saved.get("sources", {}), given["sources"]))
        saved_options = saved.get("options", {})
        for name, value in given["options"].items():
            if saved_options.get(name) != value:
                out.append(f"option {name} was {saved_options.get(name)!r}, now {value!r}")
        return out

    def fingerprint(self, function: str, options: Options) -> dict[str, Any]:
        return {"ingot": _ingot_version(), "function": function, "sources": dict(self.digests),
                "options": dataclasses.asdict(options)}

    # -- saving ----------------------------------------------------------------------------
    def due(self) -> bool:
        """Is a checkpoint due (see the module's docstring)?"""
        if self._last_save is None:  # the first boundary starts the clock
            self._last_save = time.perf_counter()
            return False
        return time.perf_counter() - self._last_save >= max(MIN_INTERVAL_S, COST_FACTOR * self._last_cost)

    def save(self, explorer: Explorer) -> None:
        start = time.perf_counter()
        data = {"fingerprint": self.fingerprint(explorer.function, explorer.options),
                "search": _capture(explorer)}
        self.write(data)
        end = time.perf_counter()
        self._last_save, self._last_cost = end, end - start
        self.saves += 1
        self.save_s += end - start

    def write(self, data: dict[str, Any]) -> None:
        """Replace the state file atomically: a temporary file, flushed to disk, renamed over it."""
        payload = zlib.compress(pickle.dumps(data, protocol=5), 1)
        header = f"{FORMAT_VERSION} {len(payload)} {_digest(payload)}\n".encode()
        try:
            write_atomic_bytes(self.file, MAGIC + header + payload, private=True, durable=True)
        except OSError as e:
            raise StateError(f"cannot write the state to {self.file}: {e.strerror}") from None

    def read(self) -> dict[str, Any]:
        """The saved data, checked: a missing, truncated or altered file is a `StateError`."""
        try:
            raw = self.file.read_bytes()
        except FileNotFoundError:
            raise StateError(f"{self.path} holds no exploration state ({STATE_FILE} is missing)") from None
        except OSError as e:
            raise StateError(f"cannot read {self.file}: {e.strerror}") from None
        if not raw.startswith(MAGIC):
            raise StateError(f"{self.file} is not an exploration state")
        header, _, payload = raw[len(MAGIC):].partition(b"\n")
        fields = header.split()
        if len(fields) != 3 or not fields[0].isdigit() or not fields[1].isdigit():
            raise StateError(f"{self.file} is damaged (bad header)")
        if int(fields[0]) != FORMAT_VERSION:
            raise StateError(f"{self.file} has state format {int(fields[0])}; this ingot reads format "
                             f"{FORMAT_VERSION}")
        if len(payload) != int(fields[1]):
            raise StateError(f"{self.file} is truncated or damaged ({len(payload)} of {int(fields[1])} bytes)")
        if _digest(payload) != fields[2].decode(errors="replace"):
            raise StateError(f"{self.file} is damaged (checksum mismatch)")
        try:
            data = _PlainUnpickler(io.BytesIO(zlib.decompress(payload))).load()
        except Exception as e:  # noqa: BLE001 - whatever a malformed pickle raises, the file is damaged
            raise StateError(f"{self.file} is damaged ({e})") from None
        if not isinstance(data, dict) or "search" not in data:
            raise StateError(f"{self.file} is damaged (no search state)")
        return data

    def saved_runs(self) -> int | None:
        """How many runs the saved state had done (None: no readable state)."""
        try:
            return int(self.read()["search"]["result"]["runs"])
        except (StateError, KeyError, TypeError, ValueError):
            return None


@contextlib.contextmanager
def stop_on_interrupt(explorer: Explorer) -> Iterator[None]:
    """Ctrl-C (SIGINT) asks `explorer` to stop at the end of the current generation, which
    saves its state; a second Ctrl-C raises `KeyboardInterrupt` at once (the last complete
    checkpoint stays). Outside the main thread nothing changes."""
    with two_stage_interrupt(lambda: explorer.stop_requested, explorer.request_stop):
        yield


@contextlib.contextmanager
def two_stage_interrupt(requested: Callable[[], bool], request: Callable[[], None]) -> Iterator[None]:
    """While inside: the first SIGINT calls `request` (a stop at the next safe point), a later one,
    once `requested()` holds, raises `KeyboardInterrupt`. Only the main thread can own a signal
    handler; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: Any) -> None:
        if requested():
            raise KeyboardInterrupt
        request()

    previous = signal.signal(signal.SIGINT, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


# -- the search state as plain data ------------------------------------------------------------
# Explorer attributes that `_capture` saves, and those rebuilt from the program and options
# (tests check that every attribute is one or the other).
SAVED = {"x", "space", "solver", "result", "_aimed", "_concretized_seen", "_corpus", "_firsts", "_compares",
         "_tried_checks", "_concretize_flips", "_revisits", "_seen_paths", "_unsat_edges", "_unknown_edges",
         "_finding_keys", "_queue", "_counter", "_rng", "_random_misses", "_last_random_covered",
         "finished", "aims", "branch_aims", "hit_counts", "models"}
DERIVED = {"view", "function", "options", "progress", "fn", "tracker_class", "_classes", "_edge_keys",
           "dictionary", "_panic_sites", "_deadline", "state", "resumed", "stop_requested", "_start", "_siblings",
           "_distance"}
RESULT_DERIVED = {"function", "options", "edges"}


def _capture(ex: Explorer) -> dict[str, Any]:
    x = ex.x
    nodes = sorted(x.table.values(), key=lambda n: n.id)
    x.counter, next_id = _peek(x.counter)
    ex._counter, next_job = _peek(ex._counter)
    solver = ex.solver
    res = ex.result
    result = {f.name: getattr(res, f.name) for f in dataclasses.fields(res) if f.name not in RESULT_DERIVED}
    result["tests"] = [_row(t) for t in res.tests]
    result["findings"] = [_row(f) for f in res.findings]
    return {
        "nodes": [(n.op.value, n.sort.value, tuple(a.id for a in n.args), n.value) for n in nodes],
        "next_id": next_id,
        "space": {"sorts": {k: s.value for k, s in ex.space.sorts.items()},
                  "domains": {k: [e.id for e in d] for k, d in ex.space.domains.items()},
                  "bounds": dict(ex.space.bounds)},
        "solver": {"stats": dataclasses.asdict(solver.stats),
                   "cache": {k: (r.status, r.model) for k, r in solver._cache.items()},
                   "recent": list(solver._recent), "z3_log": list(solver.z3_log)},
        "result": result,
        "queue": [(p, n, _job_fields(j)) for p, n, j in ex._queue],
        "next_job": next_job,
        "rng": ex._rng.getstate(),
        "aimed": set(ex._aimed),
        "concretized_seen": {k: [e.id for e in v] for k, v in ex._concretized_seen.items()},
        "corpus": list(ex._corpus),
        "firsts": list(ex._firsts),
        "compares": list(ex._compares),
        "tried_checks": dict(ex._tried_checks),
        "concretize_flips": dict(ex._concretize_flips),
        "revisits": dict(ex._revisits),
        "seen_paths": set(ex._seen_paths),
        "unsat_edges": dict(ex._unsat_edges),
        "unknown_edges": set(ex._unknown_edges),
        "finding_keys": set(ex._finding_keys),
        "random_misses": ex._random_misses,
        "last_random_covered": ex._last_random_covered,
        "finished": ex.finished,
        "aims": ex.aims.state(),
        "branch_aims": ex.branch_aims.state(),
        "hit_counts": set(ex.hit_counts.seen),
        "models": ex.models.state(),
    }


def _job_fields(job: Job) -> tuple[Any, ...]:
    """Every field of a queued job; a fresh input (`FreshAssignment`, which draws the values it
    lacks when its job runs) as ("fresh", the values drawn so far)."""
    fresh = isinstance(job.assignment, FreshAssignment)
    return tuple(("fresh", dict(job.assignment)) if fresh and f.name == "assignment" else getattr(job, f.name)
                 for f in fields(job))


def _restore(ex: Explorer, s: dict[str, Any]) -> None:
    from ingot.concolic.explore import Finding, Job, TestCase

    x = Interner()
    by_id: list[Expr] = []
    for op, sort, args, value in s["nodes"]:
        # The interner's own constructor, so the table keys are what it would have made;
        # nodes come in id order and each gets the next id, the one it had.
        node = x._node(Op(op), Sort(sort), tuple(by_id[a] for a in args), value)
        if node.id != len(by_id):
            raise ValueError(f"expression {len(by_id)} rebuilt as {node.id}")
        by_id.append(node)
    x.counter = itertools.count(s["next_id"])
    ex.x = x
    space = s["space"]
    ex.space.sorts = {k: Sort(v) for k, v in space["sorts"].items()}
    ex.space.domains = {k: [by_id[i] for i in ids] for k, ids in space["domains"].items()}
    ex.space.bounds = dict(space["bounds"])
    solver = s["solver"]
    ex.solver.replay([(timeout, [by_id[i] for i in ids]) for timeout, ids in solver["z3_log"]])
    ex.solver.stats = SolverStats(**solver["stats"])
    ex.solver._cache = {k: Result(status, model) for k, (status, model) in solver["cache"].items()}
    ex.solver._recent = list(solver["recent"])
    result = dict(s["result"])
    result["tests"] = [TestCase(*t) for t in result["tests"]]
    result["findings"] = [Finding(*f) for f in result["findings"]]
    for name, value in result.items():
        if not hasattr(ex.result, name):
            raise KeyError(name)
        setattr(ex.result, name, value)
    ex._queue = [(p, n, Job(*job)) for p, n, job in s["queue"]]
    for _, _, job in ex._queue:
        if isinstance(job.assignment, tuple):  # a fresh input (`_job_fields`)
            job.assignment = FreshAssignment(ex._rng, ex.dictionary, ex.space, ex.string_length,
                                             job.assignment[1])
    ex._counter = itertools.count(s["next_job"])
    ex._rng.setstate(s["rng"])
    ex._aimed = set(s["aimed"])
    ex._concretized_seen = {k: [by_id[i] for i in v] for k, v in s["concretized_seen"].items()}
    ex._corpus = list(s["corpus"])
    ex._firsts = list(s["firsts"])
    ex._compares = dict.fromkeys(map(tuple, s["compares"]))
    ex._tried_checks = dict(s["tried_checks"])
    ex._concretize_flips = dict(s["concretize_flips"])
    ex._revisits = dict(s["revisits"])
    ex._seen_paths = set(s["seen_paths"])
    ex._unsat_edges = dict(s["unsat_edges"])
    ex._unknown_edges = set(s["unknown_edges"])
    ex._finding_keys = set(s["finding_keys"])
    ex._random_misses = s["random_misses"]
    ex._last_random_covered = s["last_random_covered"]
    ex.finished = bool(s["finished"])
    ex.aims = PanicAims.load(s["aims"])
    ex.branch_aims = PanicAims.load(s["branch_aims"])
    ex.hit_counts.seen = set(s["hit_counts"])
    ex.models = ModelBudget.load(s["models"])
    ex.solver.model_units_cap = ex.models.cap(ex.options.string_model_units)
    ex.resumed = True


def _row(record: Any) -> tuple[Any, ...]:
    """A dataclass's fields, in order (shallow: pickling copies them)."""
    return tuple(getattr(record, f.name) for f in dataclasses.fields(record))


def _peek(counter: itertools.count[int]) -> tuple[itertools.count[int], int]:
    """The value `counter` would give next, and a counter that still gives it."""
    n = next(counter)
    return itertools.count(n), n


class _PlainUnpickler(pickle.Unpickler):
    """Loads plain data only: a state that names any class or function is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"unexpected object {module}.{name}")


def _source_differences(saved: Mapping[str, str], given: Mapping[str, str]) -> list[str]:
    """Changed, missing and added source files (a file found under another name is the same)."""
    if sorted(saved.values()) == sorted(given.values()):
        return []
    out = [f"{name} changed" for name in given if name in saved and saved[name] != given[name]]
    moved = set(saved.values()) & set(given.values())
    out += [f"{name} is not in the program now" for name, d in saved.items() if name not in given and d not in moved]
    out += [f"{name} was not in the program" for name, d in given.items() if name not in saved and d not in moved]
    return out or ["the program's sources changed"]


def _digest(data: bytes) -> str:
    import hashlib  # here: OpenSSL's binding costs a few ms at start-up, and only --state uses it

    return hashlib.sha256(data).hexdigest()


@functools.cache
def _ingot_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("ingot")
    except PackageNotFoundError:
        return "unknown"
