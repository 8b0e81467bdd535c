"""Compile time against program size: does the compiler stay linear in literal and arm counts?

    python bench/compile_scale.py [--repeat 3] [--sizes 1000 5000 20000] [--chain-sizes 1000 2000 4000]

For each shape (an array literal of N ints, a map literal of N entries, a `match` of N arms, a
sum of N terms, a string built from N concatenations) it compiles the program N elements long
(ingot.load_source: parse, check, lower, emit) and prints the median time per size, then the
ratio of each size's time to the smallest size's, and that ratio divided by the size ratio:
about 1 when compile time is linear, growing with N when it is not. All in one process and run.

The narrowing shapes (an `else if` chain of N links whose branches are distinct literals, and
`&&`/`||` chains of N null tests and comparisons on the variables they narrow) run at doubling
sizes (`--chain-sizes`) and also print the time ratio per doubling: about 2 when linear, 4 when
quadratic.
"""

from __future__ import annotations

import argparse
import math
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


def else_if_literals(n: int) -> str:
    """Each branch a distinct literal: the chain's type is a union of N literal types."""
    links = " else ".join(f'if (x == {i}) {{ "s{i}" }}' for i in range(n))
    return f"function F(x: int) -> string {{\n  {links} else {{ \"none\" }}\n}}\n"


def and_chain(n: int) -> str:
    """`x != null && x > 0 && y != null && y > 1 && ...`: each term sees the ones before it narrow."""
    terms = " && ".join(f"{v} != null && {v} > {i}" for i, v in zip(range(n // 2), "xy" * n))
    return f"function F(x: int?, y: int?) -> bool {{\n  {terms}\n}}\n"


def or_chain(n: int) -> str:
    """`x == null || x < 0 || y == null || y < 1 || ...`: each term sees the ones before it fail."""
    terms = " || ".join(f"{v} == null || {v} < {i}" for i, v in zip(range(n // 2), "xy" * n))
    return f"function F(x: int?, y: int?) -> bool {{\n  {terms}\n}}\n"


CHAIN_SHAPES: dict[str, Callable[[int], str]] = {
    "else-if literals": else_if_literals,
    "&& chain": and_chain,
    "|| chain": or_chain,
}

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
    parser.add_argument("--chain-sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    args = parser.parse_args()
    ingot.load_source("function W() -> int { 1 }")  # warm up: the prelude compiles once per process
    table(SHAPES, sorted(args.sizes), args.repeat)
    print()
    table(CHAIN_SHAPES, sorted(args.chain_sizes), args.repeat, per_doubling=True)


def table(shapes: dict[str, Callable[[int], str]], sizes: list[int], repeat: int,
          per_doubling: bool = False) -> None:
    header = f"{'shape':<17}" + "".join(f"{n:>10}" for n in sizes) + "   time ratio / size ratio"
    if per_doubling:
        header += "   per doubling"
    print(header)
    print("-" * len(header))
    for name, shape in shapes.items():
        times = [compile_time(shape(n), repeat) for n in sizes]
        cells = "".join(f"{t:>9.3f}s" for t in times)
        ratios = "  ".join(f"{t / times[0]:.1f}x/{n / sizes[0]:.0f}x={t / times[0] / (n / sizes[0]):.2f}"
                           for t, n in zip(times[1:], sizes[1:]))
        line = f"{name:<17}{cells}   {ratios}"
        if per_doubling and len(sizes) > 1:
            # the geometric mean of the time ratio per doubling of the size
            doublings = math.log2(sizes[-1] / sizes[0])
            line += f"   {(times[-1] / times[0]) ** (1 / doublings):.2f}x"
        print(line)


if __name__ == "__main__":
    main()
