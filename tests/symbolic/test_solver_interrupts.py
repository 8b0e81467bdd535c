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
