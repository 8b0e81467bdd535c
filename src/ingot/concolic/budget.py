"""Bounds on one tracked run: the exploration's remaining wall clock and a memory cap.

A run whose loop count the solver chose can run long or grow large; the step budget bounds
its instructions but not its time or memory. `guard` arms a POSIX interval timer for the
duration of a run; every tick checks the deadline and the process's resident memory, and
past either raises `RunCut` inside the run, which the explorer records as a limit (the run is
dropped, the exploration goes on). A tick comes every `TICK_S`, and a run can allocate far past
the cap and free it again between two ticks, so the memory is also checked where values grow
(`runtime.limits`: after every `MEMORY_CHECK_UNITS` of large allocations), which raises the same
`RunCut` instead of the `AllocFailure` panic a plain call would get. `RunCut` derives from
BaseException so that no `except Exception` on the way (a host-function wrapper) swallows it. Where interval timers are not
available (not the main thread, not POSIX) runs are bounded by the step budget alone.
"""

from __future__ import annotations

import dataclasses
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ingot.runtime import limits
from ingot.runtime.limits import resident_bytes

TICK_S = 0.05


class RunCut(BaseException):
    """A run stopped by the exploration's budget: `reason` is "run-timeout" or "memory"."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@contextmanager
def guard(deadline: float, memory_cap: int | None) -> Iterator[None]:
    """Raise `RunCut` in the guarded block once `time.perf_counter()` passes `deadline` or the
    resident memory passes `memory_cap` bytes."""
    sizes = dataclasses.replace(limits.current(), memory_cap=memory_cap, pending=0,
                                over_cap=lambda: RunCut("memory"))
    with limits.using(sizes):
        if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            yield
        else:
            with _ticking(deadline, memory_cap):
                yield


@contextmanager
def _ticking(deadline: float, memory_cap: int | None) -> Iterator[None]:
    """The interval timer of `guard`."""

    def tick(signum: int, frame: Any) -> None:
        if time.perf_counter() > deadline:
            raise RunCut("run-timeout")
        if memory_cap is not None:
            rss = resident_bytes()
            if rss is not None and rss > memory_cap:
                raise RunCut("memory")

    previous = signal.signal(signal.SIGALRM, tick)
    signal.setitimer(signal.ITIMER_REAL, TICK_S, TICK_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
        signal.signal(signal.SIGALRM, previous)
