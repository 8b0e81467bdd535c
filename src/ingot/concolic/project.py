"""Exploring a whole project: one independent job per function, merged into one report.

A `FunctionJob` carries everything its exploration needs, so any process can run it: the
project's source texts (a worker of a cluster may not see the files), the function and the
exploration's options. `run_job` compiles the project once per process, explores the function
and returns a `JobResult` holding the function's report as `report.as_json` gives it. Results
are merged by function name (`project_report`), never in the order jobs finished, so the
merged report is the same for any number of workers and any backend (`workers.py`).
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ingot.concolic.checkpoint import StateError
from ingot.concolic.edges import edge_key
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.inputs import UnsupportedInput
from ingot.concolic.project_state import function_state, save_result
from ingot.concolic.report import SCHEMA_VERSION, as_json
from ingot.view import ProgramView

# Tests set this to a directory: each job writes `<function>.<pid>` there when it starts, so a
# test can find the worker process running a job (and kill it).
JOB_LOG_ENV = "INGOT_EXPLORE_JOB_LOG"


@dataclass(frozen=True)
class ProjectSources:
    """The project's files as `(name, text)` pairs, in compilation order."""

    files: tuple[tuple[str, str], ...]
    digest: str = field(default="", compare=False)

    @classmethod
    def of(cls, files: Iterable[tuple[str, str]]) -> ProjectSources:
        files = tuple(files)
        h = hashlib.sha256()
        for name, text in files:
            h.update(name.encode() + b"\0" + text.encode() + b"\0")
        return cls(files, h.hexdigest())


@dataclass(frozen=True)
class FunctionJob:
    """One function's exploration, with the options (budget, seed) every job of a project shares."""

    project: ProjectSources
    function: str
    options: Options
    timings: bool = False
    state: str | None = None  # a project state directory (`project_state`): checkpoint there, resume from it


@dataclass
class JobResult:
    function: str
    # "explored", "skipped" (cannot be explored: `reason`), "failed" (`reason`), "interrupted"
    # (a stop was asked for: `request_stop`; with a state, its checkpoint is saved)
    status: str
    report: dict[str, Any] | None = None
    reason: str | None = None
    wall_s: float = 0.0
    cpu_s: float = 0.0  # CPU time of the thread that ran it (a loaded machine stretches wall_s only)
    started: float = 0.0  # `time.perf_counter()` when it started (system-wide on Linux: comparable across workers)
    edges: list[tuple[str, int, int]] = field(default_factory=list)  # every reachable edge
    covered: list[tuple[str, int, int]] = field(default_factory=list)


# -- selecting the functions -------------------------------------------------------------------


def select_functions(view: ProgramView, functions: Sequence[str], only: Sequence[str]) -> list[str]:
    """The functions whose name matches one of the `only` globs (all without globs), by name."""
    chosen = [f for f in functions if not only or any(fnmatch.fnmatchcase(f, g) for g in only)]
    return sorted(chosen)


def why_not_explorable(view: ProgramView, function: str) -> str | None:
    """Why `function` has nothing to explore itself (None: it has a BAML body)."""
    kind = view.bytecode.by_name[function].kind
    if kind == "llm":
        return "LLM function: no BAML body (its callers explore every reply it can give)"
    if kind != "body":
        return f"{kind} function: no BAML body (its callers explore every result it can give)"
    return None


# -- running one job ---------------------------------------------------------------------------

_programs: dict[str, ProgramView] = {}  # digest -> compiled program, per process
_one_at_a_time = threading.Lock()  # a worker with several threads explores one function at once


def remember(project: ProjectSources, view: ProgramView) -> None:
    """Use an already compiled program for this project in this process (and in forked workers)."""
    _programs.clear()
    _programs[project.digest] = view


def warm(view: ProgramView, options: Options) -> None:
    """Do once here what every job's first run would do in each worker: translate the program
    to instrumented code (compiled tracker). Forked workers then share the translation."""
    from ingot.concolic.explore import tracker_class
    from ingot.symbolic.compiled_tracker import CompiledTrackedVM
    from ingot.symbolic.expr import Interner

    vm = tracker_class(options.tracker)(view, Interner(), env=None, max_depth=options.max_depth,  # type: ignore[arg-type]
                                        max_steps=options.max_steps, prune_after=options.prune_after)
    if isinstance(vm, CompiledTrackedVM):
        vm.runtime()


def program_view(project: ProjectSources) -> ProgramView:
    view = _programs.get(project.digest)
    if view is None:
        from ingot.api import load_sources

        view = load_sources(project.files, resolve_hosts=False).view  # host results are inputs
        remember(project, view)
    return view


class _Stop:
    """Set when the project's run is to stop (Ctrl-C): jobs running stop at the end of their
    generation (saving their checkpoint), jobs not started do not start. `workers` sets it
    here and, through a shared event, in every worker process."""

    event: Any = None  # anything with `is_set()`

    @classmethod
    def asked(cls) -> bool:
        return cls.event is not None and cls.event.is_set()


def stop_when(event: Any) -> None:
    """Jobs of this process stop once `event.is_set()` (None: never)."""
    _Stop.event = event


class _StoppableExplorer(Explorer):
    def generation_boundary(self) -> bool:
        if _Stop.asked():
            self.request_stop()
        return super().generation_boundary()


def run_job(job: FunctionJob) -> JobResult:
    """Explore one function; what cannot be explored is `skipped`, an internal error `failed`.
    With a state directory, continue from the function's checkpoint when it has one, save it
    between generations, and record the finished result there."""
    log = os.environ.get(JOB_LOG_ENV)
    if log:
        with open(os.path.join(log, f"{job.function}.{os.getpid()}"), "w") as f:
            f.write(str(os.getpid()))
    if _Stop.asked():
        return JobResult(job.function, "interrupted")
    with _one_at_a_time:
        start, cpu = time.perf_counter(), time.thread_time()

        def timed(result: JobResult) -> JobResult:
            result.wall_s, result.cpu_s, result.started = time.perf_counter() - start, time.thread_time() - cpu, start
            return result

        view = program_view(job.project)
        try:
            exploration = explorer(view, job).explore()
            if exploration.stopped_by == "interrupted":
                return timed(JobResult(job.function, "interrupted"))
            report = as_json(view, exploration, timings=job.timings)
        except UnsupportedInput as e:
            result = timed(JobResult(job.function, "skipped", reason=str(e)))
        except StateError as e:
            return timed(JobResult(job.function, "failed", reason=str(e)))
        except Exception as e:  # noqa: BLE001 - one function's bug must not lose the others' results
            return timed(JobResult(job.function, "failed", reason=f"internal error: {type(e).__name__}: {e}"))
        else:
            edges = sorted(edge_key(e) for e in exploration.edges)
            result = timed(JobResult(job.function, "explored", report, edges=edges,
                                     covered=sorted(exploration.covered)))
        if job.state is not None:
            try:
                save_result(job.state, job.function, result_data(result))
            except StateError as e:
                return JobResult(job.function, "failed", reason=str(e))
        return result


def explorer(view: ProgramView, job: FunctionJob) -> Explorer:
    """The job's explorer: new, or continuing the checkpoint in its state directory."""
    if job.state is None:
        return _StoppableExplorer(view, job.function, job.options)
    state = function_state(job.state, job.function, dict(job.project.files))
    if state.file.exists():
        return _StoppableExplorer.resume(view, job.function, job.options, state)
    return _StoppableExplorer(view, job.function, job.options, state=state)


def result_data(result: JobResult) -> dict[str, Any]:
    """A finished job's result as JSON data (`result_of` reads it back)."""
    return {"function": result.function, "status": result.status, "report": result.report,
            "reason": result.reason, "edges": result.edges, "covered": result.covered}


def result_of(data: dict[str, Any]) -> JobResult:
    return JobResult(data["function"], data["status"], data.get("report"), data.get("reason"),
                     edges=[tuple(e) for e in data.get("edges", ())],  # type: ignore[misc]
                     covered=[tuple(e) for e in data.get("covered", ())])  # type: ignore[misc]


def lost(function: str, why: str) -> JobResult:
    """A job whose worker process died every time it ran it."""
    return JobResult(function, "failed", reason=why)


# -- the merged report -------------------------------------------------------------------------


def project_report(results: Iterable[JobResult], seed: int, timings: bool = False,
                   wall_s: float | None = None, workers: str | None = None,
                   start: float | None = None) -> dict[str, Any]:
    """One JSON document for the project (schema in README): per-function reports by name, the
    functions skipped or failed, and totals. Without `timings` it depends on program, options and
    seed only, never on how many workers ran the jobs or in which order they finished."""
    ordered = sorted(results, key=lambda r: r.function)
    reports = [r.report for r in ordered if r.status == "explored" and r.report is not None]
    edges = {e for r in ordered for e in r.edges}
    covered = {e for r in ordered for e in r.covered}
    doc: dict[str, Any] = {
        "schema": SCHEMA_VERSION,
        "seed": seed,
        "functions": reports,
        "skipped": [{"function": r.function, "reason": r.reason} for r in ordered if r.status == "skipped"],
        "failed": [{"function": r.function, "reason": r.reason} for r in ordered if r.status == "failed"],
        "totals": {
            "functions": len(ordered),
            "explored": len(reports),
            "skipped": sum(1 for r in ordered if r.status == "skipped"),
            "failed": sum(1 for r in ordered if r.status == "failed"),
            "complete": sum(1 for rep in reports if rep["complete"]),
            "edges_total": sum(rep["coverage"]["edges_total"] for rep in reports),
            "edges_covered": sum(rep["coverage"]["edges_covered"] for rep in reports),
            "edges_infeasible": sum(rep["coverage"]["edges_infeasible"] for rep in reports),
            "distinct_edges": {"total": len(edges), "covered": len(covered & edges)},
            "findings": sum(len(rep["findings"]) for rep in reports),
            "tests": sum(len(rep["tests"]) for rep in reports),
            "runs": sum(rep["runs"] for rep in reports),
            "paths": sum(rep["paths"] for rep in reports),
        },
    }
    if timings:
        # When each job started (seconds after `start`, the jobs' submission) and its CPU time:
        # enough to replay the schedule (bench/explore_parallel.py).
        run = [r for r in results if r.started]
        doc["timeline"] = {"wall_s": None if wall_s is None else round(wall_s, 4), "workers": workers,
                           "job_s": {r.function: round(r.wall_s, 4) for r in ordered},
                           "job_cpu_s": {r.function: round(r.cpu_s, 4) for r in ordered},
                           "job_start_s": {r.function: round(r.started - start, 4) for r in run}
                           if start is not None else {}}
    return doc


def summary_table(doc: dict[str, Any], wall: dict[str, float]) -> Any:
    """A rich table: one row per function (covered/total edges, infeasible, findings, runs, time,
    stop; the skipped and failed ones marked so) and a totals row."""
    from rich.table import Table

    table = Table(title="ingot explore: project", title_justify="left", show_footer=True)
    totals = doc["totals"]
    table.add_column("function", footer=f"total ({totals['explored']} explored)")
    table.add_column("edges", justify="right", footer=f"{totals['edges_covered']}/{totals['edges_total']}")
    table.add_column("infeasible", justify="right", footer=str(totals["edges_infeasible"]))
    table.add_column("findings", justify="right", footer=str(totals["findings"]))
    table.add_column("runs", justify="right", footer=str(totals["runs"]))
    table.add_column("time", justify="right", footer=f"{sum(wall.values()):.1f}s")
    table.add_column("stopped by")
    rows: list[tuple[str, list[str]]] = []
    for rep in doc["functions"]:
        cov = rep["coverage"]
        rows.append((rep["function"], [
            f"{cov['edges_covered']}/{cov['edges_total']}", str(cov["edges_infeasible"]),
            f"[bold red]{len(rep['findings'])}[/]" if rep["findings"] else "0", str(rep["runs"]),
            f"{wall.get(rep['function'], 0.0):.1f}s", rep["stopped_by"]]))
    for what, style in (("skipped", "dim"), ("failed", "bold red")):
        for item in doc[what]:
            rows.append((item["function"], ["", "", "", "", "", f"[{style}]{what}[/]"]))
    for name, cells in sorted(rows):
        table.add_row(name, *cells)
    return table
