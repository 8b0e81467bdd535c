"""`ingot explore PATH...` without a FUNCTION: every function of the project, one job each.

The jobs run in this process (`--workers 1`), on a local process pool (`--workers N`) or on a
Dask cluster (`--dask ADDRESS`); the report is the same on each (see `ingot.concolic.project`).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from ingot.api import Program
from ingot.concolic.cost import estimated_cost, order_longest_first
from ingot.concolic.explore import Options
from ingot.concolic.project import (
    FunctionJob,
    JobResult,
    ProjectSources,
    project_report,
    remember,
    result_of,
    select_functions,
    summary_table,
    warm,
    why_not_explorable,
)
from ingot.convert import to_json_text


def explore_project(program: Program, paths: Sequence[Path], options: Options, only: Sequence[str],
                    workers: int, dask: str | None, as_json: bool, timings: bool,
                    emit_tests: tuple[str, Path] | None,
                    coverage: tuple[Path | None, Path | None, Path | None] = (None, None, None),
                    state: tuple[Path | None, Path | None] = (None, None)) -> None:
    """Explore the selected functions, print the merged report, exit 1 if a job failed.

    `coverage` is where to write the LCOV, Cobertura and HTML reports of every explored function;
    `state` the `--state DIR` to start saving in or the `--resume DIR` to continue from."""
    from ingot.cli import fail, shown, write_coverage

    names = select_functions(program.view, program.functions, only)
    if not names:
        listed = ", ".join(program.functions) or "none"
        fail(f"error: no function of {shown(paths)} matches --only {' '.join(only)} (functions: {listed})")
    project = ProjectSources.of((s.name, s.display) for s in program.compiled.sources)
    remember(project, program.view)  # this process and forked workers need not compile it again
    state_path = state[0] or state[1]
    results: list[JobResult] = [result_of(data) for data in open_state(state, project, options, names).values()]
    finished = {r.function for r in results}
    jobs = []
    for name in names:
        if name in finished:
            continue
        reason = why_not_explorable(program.view, name)
        if reason is None:
            jobs.append(FunctionJob(project, name, options, timings, str(state_path) if state_path else None))
        else:
            results.append(JobResult(name, "skipped", reason=reason))
    # Longest first (estimated from the program), so no long job starts last and runs alone.
    jobs = order_longest_first(jobs, lambda j: estimated_cost(program.view, j.function, options))
    if workers > 1 and not dask and jobs:
        warm(program.view, options)  # once here, not in every forked worker
    start = time.perf_counter()
    saved = f"; the state is saved in {state_path}: continue with --resume {state_path}" if state_path else ""
    try:
        results += run_jobs(jobs, workers, dask, show_progress=not as_json)
    except KeyboardInterrupt:  # a second Ctrl-C
        where = f"; the last checkpoints are in {state_path}: continue with --resume {state_path}"
        fail(f"interrupted{where if state_path else ''}", 130)
    wall = time.perf_counter() - start
    if any(r.status == "interrupted" for r in results):
        done = sum(1 for r in results if r.status != "interrupted")
        fail(f"interrupted: {done} of {len(names)} functions done{saved}", 130)
    where = f"dask {dask}" if dask else f"{workers} worker{'s' if workers != 1 else ''}"
    # Start times are comparable only between processes of this machine (not on a Dask cluster).
    doc = project_report(results, options.seed, timings, wall, where, start=None if dask else start)
    if emit_tests is not None:
        write_all_tests(program, paths, doc, emit_tests, quiet=as_json)
    if any(target is not None for target in coverage):
        from ingot.coverage.model import Explored

        explored = [Explored.from_report(program.view, report) for report in doc["functions"]]
        write_coverage(program, explored, *coverage, quiet=as_json)
    if as_json:
        click.echo(to_json_text(doc, indent=1))
    else:
        print_summary(doc, {r.function: r.wall_s for r in results}, wall, where)
    if doc["failed"]:
        for item in doc["failed"]:
            click.echo(f"error: exploring {item['function']} failed: {item['reason']}", err=True)
        sys.exit(1)


def open_state(state: tuple[Path | None, Path | None], project: ProjectSources, options: Options,
               names: list[str]) -> dict[str, dict[str, Any]]:
    """Start the `--state DIR` (refusing one in use) or check the `--resume DIR` against this
    exploration; the results of the functions it has finished (exit 2 on a mismatch)."""
    from ingot.cli import fail
    from ingot.concolic.checkpoint import StateError
    from ingot.concolic.project_state import ProjectState

    state_dir, resume_dir = state
    if state_dir is None and resume_dir is None:
        return {}
    saved = ProjectState(state_dir or resume_dir or Path(), dict(project.files), options, names)
    try:
        if state_dir is not None:
            saved.create()
            return {}
        saved.check()
        return saved.finished()
    except StateError as e:
        fail(f"error: {e}", 2)


def run_jobs(jobs: list[FunctionJob], workers: int, dask: str | None, show_progress: bool) -> list[JobResult]:
    """Run the jobs on the chosen backend, with a progress bar of functions done on a terminal."""
    from ingot.cli import fail
    from ingot.concolic.workers import BackendError, run_dask, run_pool

    def run(on_done: Any) -> list[JobResult]:
        if not dask:
            return run_pool(jobs, workers, on_done)
        try:
            return run_dask(jobs, dask, on_done)
        except BackendError as e:
            fail(f"error: {e}")

    if not show_progress:
        return run(None)
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[bold]exploring"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[last]}"),
                  TimeElapsedColumn(), transient=True) as progress:
        task = progress.add_task("explore", total=len(jobs), last="")

        def advance(result: JobResult) -> None:
            progress.update(task, advance=1, last=result.function)

        return run(advance)


def print_summary(doc: dict[str, Any], job_s: dict[str, float], wall: float, where: str) -> None:
    from rich.console import Console
    from rich.markup import escape

    # The program's messages and source text are escaped: rich would read `xs[i]` as markup.
    console = Console()
    console.print(summary_table(doc, job_s))
    for what in ("skipped", "failed"):
        reasons: dict[str, list[str]] = {}
        for item in doc[what]:
            reasons.setdefault(item["reason"], []).append(item["function"])
        for reason, names in reasons.items():
            console.print(escape(f"{what} {', '.join(names)}: {reason}"), highlight=False,
                          style="dim" if what == "skipped" else "red")
    for rep in doc["functions"]:
        for f in rep["findings"]:
            # Arguments and LLM replies are in the function's report (`--json`, or FUNCTION alone).
            console.print(f"[bold red]{f['kind']}[/] in {rep['function']}: {escape(f['message'])}", highlight=False)
            if f["trace"]:
                console.print(f"    {escape(f['trace'][-1])}", highlight=False)
    totals = doc["totals"]
    distinct = totals["distinct_edges"]
    console.print(f"{totals['explored']} function{'s' if totals['explored'] != 1 else ''} explored, "
                  f"{totals['skipped']} skipped, {totals['failed']} failed; "
                  f"{distinct['covered']} of {distinct['total']} distinct edges covered; "
                  f"{wall:.1f}s on {escape(where)}", highlight=False)


def write_all_tests(program: Program, paths: Sequence[Path], doc: dict[str, Any], emit: tuple[str, Path],
                    quiet: bool) -> None:
    """`--emit-tests FORM DIR`: one file per explored function, as for one function."""
    from ingot.concolic.testgen import write_tests

    form, out_dir = emit
    count = 0
    for rep in doc["functions"]:
        write_tests(program.view, list(paths), rep["function"], rep, form, out_dir)
        count += len(rep["tests"])
    if not quiet:
        click.echo(f"wrote {count} cases for {len(doc['functions'])} functions to {out_dir}", err=True)
