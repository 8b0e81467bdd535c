"""The stop flag a project's workers watch is read without a lock.

A broken pool (a worker died) terminates its surviving workers. With a `multiprocessing.Event`
as the flag, a worker terminated while reading it (`is_set()` takes the event's lock) left the
lock held, and every worker of the next round hung at its first job: the test of a job that
kills every worker hung CI once. `SharedFlag` has no lock to leave held.
"""

from __future__ import annotations

import os
import signal
import time

from ingot.concolic.workers import SharedFlag, context


def spin(flag: SharedFlag) -> None:
    while True:
        flag.is_set()


def read_then_set(flag: SharedFlag) -> None:
    flag.is_set()
    flag.set()


def test_a_reader_killed_while_reading_leaves_the_flag_usable() -> None:
    ctx = context()
    flag = SharedFlag(ctx)
    for _ in range(20):
        reader = ctx.Process(target=spin, args=(flag,))
        reader.start()
        time.sleep(0.02)
        assert reader.pid is not None
        os.kill(reader.pid, signal.SIGKILL)  # most likely inside `is_set()`
        reader.join()
    writer = ctx.Process(target=read_then_set, args=(flag,))
    writer.start()
    writer.join(timeout=10)
    hung = writer.is_alive()
    if hung:
        writer.kill()
    assert not hung and writer.exitcode == 0
    assert flag.is_set()

