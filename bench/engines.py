"""Time the same BAML programs on ingot's VM and on the real BAML engine, in one process.

    python bench/engines.py [--repeat 5]

Prints, per program, the median time of each engine and the ratio ingot/real, then the
median ratio. The real engine is `baml_bridge` (pip install baml_bridge==0.23.0).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import ingot

HERE = Path(__file__).parent / "programs"
# (file, function, arguments): sized so one call takes tens of milliseconds or more.
CASES = [
    ("loop.baml", "Loop", {"n": 200_000}),
    ("fib.baml", "Fib", {"n": 20}),
    ("classes.baml", "Walk", {"n": 50_000}),
    ("arrays.baml", "Arrays", {"n": 100_000}),
    ("strings.baml", "Words", {"n": 20_000}),
]


def median_time(fn, repeat: int) -> tuple[float, object]:  # type: ignore[no-untyped-def]
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    import baml_bridge as bridge

    rows = []
    for file, function, args in CASES:
        source = (HERE / file).read_text()
        program = ingot.load(source)
        runtime = bridge.BamlRuntime.initialize_runtime(".", {"main.baml": source})
        t_ingot, r_ingot = median_time(
            lambda p=program, f=function, a=args: p.call(f, **a), opts.repeat)
        t_real, r_real = median_time(
            lambda r=runtime, f=function, a=args: bridge.call_function_sync(r, f, a).result(), opts.repeat)
        same = r_ingot == r_real
        rows.append((f"{file[:-5]}:{function}", t_ingot, t_real, t_ingot / t_real, same))

    print(f"{'program':<20} {'ingot VM':>10} {'real BAML':>10} {'ingot/real':>11}  same result")
    for name, ti, tr, ratio, same in rows:
        print(f"{name:<20} {ti * 1000:>8.1f}ms {tr * 1000:>8.1f}ms {ratio:>10.1f}x  {'yes' if same else 'NO'}")
    print(f"median ingot/real: {statistics.median(r[3] for r in rows):.1f}x  (repeat={opts.repeat})")


if __name__ == "__main__":
    main()
