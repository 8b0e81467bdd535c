"""Ctrl-C stops a search between generations (`checkpoint.stop_on_interrupt`), so Z3 must not
take SIGINT for itself while it checks: by default it does, and the check came back unknown
while the search never heard of the Ctrl-C and ran on to its budget."""

from __future__ import annotations

import os
import signal
import threading

import z3

from ingot.symbolic.solver import Solver


def test_a_sigint_during_a_check_reaches_python_and_not_z3() -> None:
    solver = Solver()
    s = solver.fresh_z3(timeout=1500, rlimit=0, ctx=z3.Context())
    x, y, w = (z3.Int(n, s.ctx) for n in "xyw")
    s.add(x * x * x + y * y * y + w * w * w == 33, x > 10**6)  # no answer within the clock
    heard: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: heard.append(signum))
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        result = s.check()
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
    assert heard == [signal.SIGINT]  # Python's handler ran: the stop request is made
    assert result == z3.unknown and "canceled" not in s.reason_unknown()


class _AnswersAsTheDeadlinePasses:
    """A Z3 solver whose check answers sat just as the deadline's timer interrupts its context."""

    def __init__(self, solver: Solver, s: z3.Solver) -> None:
        self.solver, self.s = solver, s

    def check(self) -> z3.CheckSatResult:
        status = self.s.check()
        self.solver._interrupt(self.s.ctx)  # the timer fires between Z3's answer and its cancel
        return status


def test_a_check_the_deadline_interrupts_as_it_answers_is_unknown() -> None:
    """Under load the search's deadline can pass while Z3 answers sat: the interrupted context
    then has no model, and a caller asking for one met a Z3Exception (a traceback that ended
    `ingot explore`). The answer counts as interrupted."""
    import time

    solver = Solver(timeout_ms=10_000)
    solver.deadline = time.perf_counter() + 5.0  # closer than one timeout: the timer is armed
    s = solver.fresh_z3(timeout=10_000, rlimit=0)
    x = z3.Int("x", s.ctx)
    s.add(x > 3)
    assert solver.checked(_AnswersAsTheDeadlinePasses(solver, s)) == z3.unknown  # type: ignore[arg-type]
