"""What tracking costs, and what its mere presence costs a plain run.

    python bench/tracking_overhead.py [--repeat 7]

1. Plain runs (tracking off) of the bench programs before and after the tracker is
   imported and a tracked run has been made in the same process: the ratio shows that
   having tracking support costs a plain run nothing (the plain loop has no hooks).
2. Tracked runs with every input symbolic, over plain runs of the same inputs, on both
   trackers: the compiled one (instrumented generated code, the explorer's default) and
   the interpreter-tracker (the reference loop).
Medians of `--repeat` alternating runs; these machines are noisy.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import ingot

HERE = Path(__file__).parent / "programs"
CASES = [
    ("loop.baml", "Loop", {"n": 50_000}),
    ("fib.baml", "Fib", {"n": 17}),
    ("classes.baml", "Walk", {"n": 10_000}),
    ("arrays.baml", "Arrays", {"n": 20_000}),
    ("strings.baml", "Words", {"n": 5_000}),
]


def timed(fn) -> float:  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    opts = parser.parse_args()
    programs = [(f"{file[:-5]}:{fn}", ingot.load(HERE / file), fn, args) for file, fn, args in CASES]

    before = {name: [timed(lambda p=p, f=f, a=a: p.call(f, **a)) for _ in range(opts.repeat)]
              for name, p, f, a in programs}

    from ingot.concolic.explore import Explorer, Options
    from ingot.concolic.inputs import assignment_for

    rows = []
    for name, program, fn, args in programs:
        explorers = [Explorer(program.view, fn, Options(tracker=t)) for t in ("compiled", "interp")]
        for explorer in explorers:
            explorer.options.max_steps = None  # type: ignore[assignment]
        assignment: dict[str, object] = {}
        for pname, ty in program.view.function(fn).params:
            assignment_for(program.view, ty, pname, args[pname], assignment)
        after: list[float] = []
        tracked: list[list[float]] = [[], []]
        for _ in range(opts.repeat):
            after.append(timed(lambda p=program, f=fn, a=args: p.call(f, **a)))
            for times, explorer in zip(tracked, explorers):
                times.append(timed(lambda e=explorer, a=assignment: e.run(a)))
        plain_before, plain_after = statistics.median(before[name]), statistics.median(after)
        rows.append((name, plain_before, plain_after, *(statistics.median(t) for t in tracked)))

    print(f"{'program':<16} {'plain':>9} {'plain+tracker':>14} {'ratio':>7} {'compiled-trk':>13} {'/plain':>8}"
          f" {'interp-trk':>11} {'/plain':>8}")
    for name, b, a, tc, ti in rows:
        print(f"{name:<16} {b * 1000:>7.1f}ms {a * 1000:>12.1f}ms {a / b:>7.2f} {tc * 1000:>11.1f}ms {tc / a:>7.1f}x"
              f" {ti * 1000:>9.1f}ms {ti / a:>7.1f}x")
    med = statistics.median
    print(f"median presence ratio (tracking off): {med(a / b for _, b, a, _, _ in rows):.2f}")
    print(f"median tracked/plain (all inputs symbolic): compiled tracker {med(tc / a for _, _, a, tc, _ in rows):.1f}x, "
          f"interpreter-tracker {med(ti / a for _, _, a, _, ti in rows):.1f}x")


if __name__ == "__main__":
    main()
