"""Mutation fuzzing: mutated real sources compile to a program or to diagnostics, never a traceback.

Each case mutates one source of the repository's corpora (`mutations.mutate`, seeded by
the case number), compiles it, and runs the functions without parameters of what
compiles under a step budget. Allowed outcomes: a program, a `CompileError` whose
diagnostics name a position inside the source, a `HostError`, and BAML errors from the
runs. Anything else, or a case taking longer than `CASE_SECONDS`, fails the test with the
case number (`python -c "from mutations import ...; case(N)"` regenerates it). The default
run checks `CASES` cases; `-m slow` checks `INGOT_MUTATION_CASES` (10,000 by default).
"""

from __future__ import annotations

import os
import random
import signal
import statistics
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from mutations import corpus, mutate

import ingot
from ingot.api import HostError
from ingot.syntax.diagnostics import CompileError, render_all

CASES = 250
SLOW_CASES = int(os.environ.get("INGOT_MUTATION_CASES", "10000"))
CASE_SECONDS = 30
STEPS = 100_000
SOURCES = corpus()


class Hang(Exception):
    pass


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    def expire(signum: int, frame: object) -> None:
        raise Hang(f"no answer in {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def case(n: int) -> tuple[str, str]:
    """Case `n`: the source it mutates and the mutated text."""
    rng = random.Random(n)
    name, text = SOURCES[rng.randrange(len(SOURCES))]
    return name, mutate(text, rng)


def outcome(n: int) -> str | None:
    """None when case `n` ends as allowed, else what went wrong."""
    name, text = case(n)
    try:
        with deadline(CASE_SECONDS):
            try:
                program = ingot.load_source(text, filename=name)
            except CompileError as e:
                return _diagnostics_outside(e, text)
            except HostError:
                return None
            bounded = program.options(max_steps=STEPS)
            for fn in program.view.functions():
                if fn.params or fn.is_llm:
                    continue
                try:
                    bounded.call(fn.name)
                except ingot.BamlError:
                    pass
    except Exception as e:  # noqa: BLE001 - anything else is the finding
        return f"case {n} ({name}): {type(e).__name__}: {e}\n" + "".join(traceback.format_exc(limit=-6))
    return None


def _diagnostics_outside(error: CompileError, text: str) -> str | None:
    for d in error.diagnostics:
        if not 0 <= d.span.start_offset <= d.span.end_offset <= len(text):
            return f"diagnostic outside the source: {d.span.start_offset}..{d.span.end_offset} of {len(text)}"
    render_all(error.diagnostics)  # what the user is shown must render
    return None


def check(cases: range) -> None:
    failures, seconds = [], []
    for n in cases:
        start = time.perf_counter()
        failure = outcome(n)
        seconds.append(time.perf_counter() - start)
        if failure is not None:
            failures.append(failure)
        if len(seconds) % 500 == 0:  # a long run shows its partial counts (pytest -s)
            print(f"{len(seconds)} cases, {len(failures)} failed, slowest {max(seconds):.2f} s", flush=True)
    slowest = max(range(len(seconds)), key=seconds.__getitem__)
    print(f"{len(cases)} cases, {len(failures)} failed; seconds per case: median {statistics.median(seconds):.3f},"
          f" max {seconds[slowest]:.2f} (case {cases[slowest]})")
    assert not failures, f"{len(failures)} of {len(cases)} cases failed; first:\n" + "\n".join(failures[:3])


def test_mutated_sources_never_raise_a_traceback() -> None:
    check(range(CASES))


@pytest.mark.slow
def test_mutated_sources_at_scale() -> None:
    check(range(CASES, CASES + SLOW_CASES))
