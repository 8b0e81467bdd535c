"""Where a project's jobs run: in this process, on a local process pool, or on a Dask cluster.

Every backend returns one `JobResult` per job, in any order: `project.project_report` sorts them
by function, so the backend never changes the report.

The local pool loses nothing when a worker process dies (killed, out of memory): the pool then
breaks, every job not finished is queued again on a fresh pool, and the finished ones are kept.
After `MAX_BREAKS` breaks the remaining jobs run one at a time, so a job that kills its worker
every time is found, reported as failed, and does not stop the others. A Dask cluster re-runs
the tasks of a dead worker by itself (up to its `allowed-failures`, 3 by default); a task that
still fails is reported as failed.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ingot.concolic.checkpoint import two_stage_interrupt
from ingot.concolic.project import FunctionJob, JobResult, lost, run_job, stop_when

OnDone = Callable[[JobResult], None]
MAX_BREAKS = 3


class BackendError(Exception):
    """The jobs cannot run where asked (no `distributed` package, no scheduler at the address)."""


@contextlib.contextmanager
def stop_on_interrupt(stop: Any) -> Iterator[None]:
    """Ctrl-C (SIGINT) sets `stop`: running jobs stop at the end of their generation (saving
    their checkpoint), the others do not start. A second Ctrl-C raises `KeyboardInterrupt` at
    once. Outside the main thread nothing changes."""
    with two_stage_interrupt(stop.is_set, stop.set):
        yield


def run_here(jobs: Sequence[FunctionJob], on_done: OnDone | None = None) -> list[JobResult]:
    """One worker: the jobs in this process, one after another."""
    results = []
    stop = threading.Event()
    stop_when(stop)
    try:
        with stop_on_interrupt(stop):
            for job in jobs:
                results.append(run_job(job))
                if on_done is not None:
                    on_done(results[-1])
    finally:
        stop_when(None)
    return results


def run_pool(jobs: Sequence[FunctionJob], workers: int, on_done: OnDone | None = None) -> list[JobResult]:
    """`workers` processes run the jobs; jobs of a worker that died run again on a fresh pool."""
    if workers <= 1:
        return run_here(jobs, on_done)
    results: dict[str, JobResult] = {}

    def done(result: JobResult) -> None:
        results[result.function] = result
        if on_done is not None:
            on_done(result)

    breaks = 0
    stop = SharedFlag(context())  # shared with the workers: Ctrl-C here stops their jobs
    with stop_on_interrupt(stop):
        while pending := [j for j in jobs if j.function not in results]:
            isolate = breaks >= MAX_BREAKS
            if pool_round(pending, 1 if isolate else workers, done, isolate, stop):
                breaks += 1
    return [results[j.function] for j in jobs]


class SharedFlag:
    """A flag set in one process and read in its workers, without a lock. A
    `multiprocessing.Event` takes a lock to read itself, and a broken pool terminates its
    surviving workers: one terminated while reading it left the lock held, and every worker
    of the next round hung at its first job."""

    def __init__(self, ctx: Any) -> None:
        self._value = ctx.RawValue("b", 0)  # one byte: written whole, read whole

    def is_set(self) -> bool:
        return bool(self._value.value)

    def set(self) -> None:
        self._value.value = 1


def _start_worker(stop: Any) -> None:
    """In each worker: Ctrl-C is the parent's to handle (it sets `stop`, which jobs here watch)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stop_when(stop)


def pool_round(jobs: Sequence[FunctionJob], workers: int, done: OnDone, one_at_a_time: bool,
               stop: Any = None) -> bool:
    """Run `jobs` on a fresh pool until it finishes them or breaks; True when a worker died."""
    sys.stdout.flush()  # a forked worker flushes its copy of these buffers when it exits
    sys.stderr.flush()
    # What this process holds (the compiled program, its translation) is never garbage: keep the
    # collector of forked workers from scanning it, and from touching (so copying) its pages.
    gc.freeze()
    pool = ProcessPoolExecutor(workers, mp_context=context(), initializer=_start_worker, initargs=(stop,))
    try:
        if one_at_a_time:
            for job in jobs:
                try:
                    result = pool.submit(run_job, job).result()
                except BrokenProcessPool:
                    done(lost(job.function, "the worker process running it died every time "
                                            f"({MAX_BREAKS + 1} attempts)"))
                    return True
                done(result)
            return False
        futures: set[Future[JobResult]] = {pool.submit(run_job, job) for job in jobs}
        broke = False
        while futures:
            finished, futures = wait(futures, return_when=FIRST_COMPLETED)
            for future in finished:
                try:
                    done(future.result())
                except BrokenProcessPool:
                    broke = True  # its job stays pending: the next round runs it again
        return broke
    except KeyboardInterrupt:  # a second Ctrl-C: do not wait for the jobs (their last checkpoints stay)
        for process in list(getattr(pool, "_processes", {}).values()):
            process.kill()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def context() -> Any:
    """Fork where there is one: workers start at once, with the compiled program already loaded
    (`project.remember`); elsewhere spawn, and each worker compiles the project once."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else "spawn")


def run_dask(jobs: Sequence[FunctionJob], address: Any, on_done: OnDone | None = None) -> list[JobResult]:
    """The jobs as tasks of the Dask cluster at `address` (a scheduler address, or a cluster object)."""
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise BackendError("--dask needs the `distributed` package: pip install 'ingot[dask]'") from None

    results: list[JobResult] = []
    try:
        client = Client(address)  # waits `distributed.comm.timeouts.connect` (30 s) for the scheduler
    except (OSError, TimeoutError, ValueError) as e:
        raise BackendError(f"cannot reach the Dask scheduler at {address}: {e}") from None
    with client:
        futures = client.map(run_job, list(jobs), pure=False)
        by_key = {f.key: job for f, job in zip(futures, jobs)}
        for future in as_completed(futures):
            try:
                result = future.result()
            except Exception as e:  # noqa: BLE001 - KilledWorker and the like: the task is lost
                result = lost(by_key[future.key].function, f"the Dask task failed: {type(e).__name__}: {e}")
            results.append(result)
            if on_done is not None:
                on_done(result)
    return results
