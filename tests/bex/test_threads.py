"""Calls from many threads at once: no call may cut another's stack short.

Python's recursion limit is one setting for the whole process. The compiled tier needs it
high for deep BAML recursion; it is raised once and never lowered during a call, so deep
legitimate calls running in eight threads together never see a spurious StackOverflow.
"""

from __future__ import annotations

import sys
import threading

import ingot

DOWN = "function Down(n: int) -> int {\n  if (n == 0) { return 0; }\n  1 + Down(n - 1)\n}\n"


def test_deep_calls_from_eight_threads_never_overflow_spuriously() -> None:
    program = ingot.load_source(DOWN)
    depth, rounds, threads = 15_000, 12, 8
    outcomes: list[object] = []
    lock = threading.Lock()
    start = threading.Barrier(threads)

    def work() -> None:
        start.wait()
        for _ in range(rounds):
            try:
                result: object = program.options(tier="compiled").call("Down", n=depth)
            except ingot.BamlError as e:
                result = e.kind
            with lock:
                outcomes.append(result)

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert outcomes == [depth] * (threads * rounds)
    assert sys.getrecursionlimit() >= 2 * depth  # raised once, never lowered under a running call


def test_the_step_budget_still_stops_each_thread_on_its_own() -> None:
    program = ingot.load_source(DOWN + "function Spin() -> int {\n  let i = 0;\n  while (true) { i += 1; }\n  i\n}\n")
    kinds: list[str] = []

    def work() -> None:
        try:
            program.options(max_steps=20_000).call("Spin")
        except ingot.BamlError as e:
            kinds.append(e.kind)

    workers = [threading.Thread(target=work) for _ in range(4)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    assert kinds == ["InstructionLimit"] * 4
