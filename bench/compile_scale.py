"""Compile time against program size: does the compiler stay linear in literal and arm counts?

    python bench/compile_scale.py [--repeat 3] [--sizes 1000 5000 20000]

For each shape (an array literal of N ints, a map literal of N entries, a `match` of N arms, a
sum of N terms, a string built from N concatenations) it compiles the program N elements long
(ingot.load_source: parse, check, lower, emit) and prints the median time per size, then the
ratio of each size's time to the smallest size's, and that ratio divided by the size ratio:
about 1 when compile time is linear, growing with N when it is not. All in one process and run.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import ingot


def array_literal(n: int) -> str:
    return f"function F() -> int {{\n  let a = [{', '.join(str(i) for i in range(n))}];\n  a.length()\n}}\n"


def map_literal(n: int) -> str:
    entries = ", ".join(f'"k{i}": {i}' for i in range(n))
    return f"function F() -> int {{\n  let m = {{{entries}}};\n  m.length()\n}}\n"


def match_arms(n: int) -> str:
    arms = ", ".join(f"{i} => {i * 3}" for i in range(n))
    return f"function F(x: int) -> int {{\n  match (x) {{ {arms}, _ => -1 }}\n}}\n"


def sum_terms(n: int) -> str:
    return f"function F(x: int) -> int {{\n  {' + '.join(['x'] * n)}\n}}\n"


def string_concat(n: int) -> str:
    terms = " + ".join(f'"s{i}"' for i in range(n))
    return f"function F() -> int {{\n  let s = {terms};\n  s.length()\n}}\n"


SHAPES: dict[str, Callable[[int], str]] = {
    "array literal": array_literal,
    "map literal": map_literal,
    "match arms": match_arms,
    "sum terms": sum_terms,
    "string concat": string_concat,
}


def compile_time(source: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        ingot.load_source(source)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    ingot.load_source("function W() -> int { 1 }")  # warm up: the prelude compiles once per process
    header = f"{'shape':<15}" + "".join(f"{n:>10}" for n in sizes) + "   time ratio / size ratio"
    print(header)
    print("-" * len(header))
    for name, shape in SHAPES.items():
        times = [compile_time(shape(n), args.repeat) for n in sizes]
        cells = "".join(f"{t:>9.3f}s" for t in times)
        ratios = "  ".join(f"{t / times[0]:.1f}x/{n / sizes[0]:.0f}x={t / times[0] / (n / sizes[0]):.2f}"
                           for t, n in zip(times[1:], sizes[1:]))
        print(f"{name:<15}{cells}   {ratios}")


if __name__ == "__main__":
    main()
