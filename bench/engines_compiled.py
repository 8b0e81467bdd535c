"""Time BAML programs on the real engine, ingot's interpreter, ingot's compiled tier and CPython.

    python bench/engines_compiled.py [--repeat 5] [--no-real]

Per program: the median time of the real BAML engine (`baml_bridge`), ingot's
interpreter (`ingot.bex.vm.VM`), ingot's compiled tier (`ingot.bex.compiled.CompiledVM`)
and an equivalent hand-written CPython function; then the ratios compiled/real,
compiled/interpreter and compiled/CPython, and the median of each ratio.
Results must agree across all four (the `same` column).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ingot
from ingot.bex.compiled import CompiledVM
from ingot.bex.vm import VM
from ingot.convert import to_python

HERE = Path(__file__).parent / "programs"

DATA_PREP = """
class Row {
  id int
  text string
  score float
}
function Prepare(n: int) -> map<string, int> {
  let rows: Row[] = [];
  for (let i = 0; i < n; i += 1) {
    rows.push(Row { id: i, text: `tok${i % 17} tok${i % 5}`, score: (i % 10) * 0.1 });
  }
  let counts: map<string, int> = {};
  for (let r in rows) {
    if (r.score < 0.5) { continue; }
    for (let w in r.text.split(" ")) {
      if (counts.has(w)) { counts[w] = counts[w] + 1; } else { counts[w] = 1; }
    }
  }
  counts
}
"""

SORT = """
function Sort(n: int) -> int {
  let xs: int[] = [];
  let seed = 12345;
  for (let i = 0; i < n; i += 1) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    xs.push(seed % 1000);
  }
  for (let i = 1; i < xs.length(); i += 1) {
    let v = xs[i];
    let j = i - 1;
    while (j >= 0 && xs[j] > v) { xs[j + 1] = xs[j]; j -= 1; }
    xs[j + 1] = v;
  }
  xs[0] + xs[n / 2] + xs[n - 1]
}
"""


# ----------------------------------------------------------------------------- CPython twins


def py_loop(n: int) -> int:
    s = 0
    for i in range(n):
        if i % 3 == 0:
            s += i
        else:
            s -= 1
    return s


def py_fib(n: int) -> int:
    return n if n < 2 else py_fib(n - 1) + py_fib(n - 2)


class Vec:
    __slots__ = ("x", "y")

    def __init__(self, x: float, y: float) -> None:
        self.x, self.y = x, y

    def add(self, o: Vec) -> Vec:
        return Vec(self.x + o.x, self.y + o.y)


def py_walk(n: int) -> float:
    p, step = Vec(0.0, 0.0), Vec(0.5, -0.25)
    for _ in range(n):
        p = p.add(step)
        if p.x > 100.0:
            p.x = 0.0
    return p.x + p.y


def py_arrays(n: int) -> int:
    xs = []
    for i in range(n):
        xs.append((i * 7) % 101)
    total = 0
    for x in xs:
        if x > 50:
            total += x
    return total + len(xs)


def py_words(n: int) -> int:
    count = 0
    for i in range(n):
        parts = f"item-{i}, value {i * 2}".split(",")
        if parts[0].startswith("item-1"):
            count += len(parts[1].strip())
    return count


def py_prepare(n: int) -> dict[str, int]:
    rows = [(i, f"tok{i % 17} tok{i % 5}", (i % 10) * 0.1) for i in range(n)]
    counts: dict[str, int] = {}
    for _, text, score in rows:
        if score < 0.5:
            continue
        for w in text.split(" "):
            counts[w] = counts.get(w, 0) + 1
    return counts


def py_sort(n: int) -> int:
    xs = []
    seed = 12345
    for _ in range(n):
        seed = (seed * 1103515245 + 12345) % 2147483648
        xs.append(seed % 1000)
    for i in range(1, len(xs)):
        v = xs[i]
        j = i - 1
        while j >= 0 and xs[j] > v:
            xs[j + 1] = xs[j]
            j -= 1
        xs[j + 1] = v
    return xs[0] + xs[n // 2] + xs[n - 1]


# (name, source, function, arguments, CPython twin): sized so one call takes tens of ms.
CASES: list[tuple[str, str, str, dict[str, Any], Callable[..., Any]]] = [
    ("loop", (HERE / "loop.baml").read_text(), "Loop", {"n": 200_000}, py_loop),
    ("loop-1e6", (HERE / "loop.baml").read_text(), "Loop", {"n": 1_000_000}, py_loop),
    ("fib", (HERE / "fib.baml").read_text(), "Fib", {"n": 20}, py_fib),
    ("fib-25", (HERE / "fib.baml").read_text(), "Fib", {"n": 25}, py_fib),
    ("classes", (HERE / "classes.baml").read_text(), "Walk", {"n": 50_000}, py_walk),
    ("arrays", (HERE / "arrays.baml").read_text(), "Arrays", {"n": 100_000}, py_arrays),
    ("strings", (HERE / "strings.baml").read_text(), "Words", {"n": 20_000}, py_words),
    ("data-prep", DATA_PREP, "Prepare", {"n": 20_000}, py_prepare),
    ("insertion-sort", SORT, "Sort", {"n": 600}, py_sort),
]


def median_time(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def interleaved_medians(fns: list[Callable[[], Any]], repeat: int) -> list[tuple[float, Any]]:
    """`median_time` of each function, the runs taken in turn (one of each per round), so that
    load on a shared machine falls on all of them alike."""
    times: list[list[float]] = [[] for _ in fns]
    results: list[Any] = [None] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            results[i] = fn()
            times[i].append(time.perf_counter() - start)
    return [(statistics.median(t), r) for t, r in zip(times, results)]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-real", action="store_true", help="skip the real engine (baml_bridge)")
    opts = parser.parse_args()
    bridge = None
    if not opts.no_real:
        import baml_bridge as bridge

    rows = []
    for name, source, function, args, twin in CASES:
        program = ingot.load(source)
        fn = program.function(function)
        values = program.convert_args(function, args)
        CompiledVM(program.bex).call(fn, values)  # translate once (cached per program), as a warm run
        t_int, r_int = median_time(lambda p=program, f=fn, v=values: to_python(VM(p.bex).call(f, v)),
                                   max(1, opts.repeat // 2))
        t_cmp, r_cmp = median_time(lambda p=program, f=fn, v=values: to_python(CompiledVM(p.bex).call(f, v)),
                                   opts.repeat)
        t_py, r_py = median_time(lambda t=twin, a=args: t(**a), opts.repeat)
        t_real, r_real = float("nan"), r_cmp
        if bridge is not None:
            runtime = bridge.BamlRuntime.initialize_runtime(".", {"main.baml": source})
            t_real, r_real = median_time(
                lambda r=runtime, f=function, a=args: bridge.call_function_sync(r, f, a).result(), opts.repeat)
        same = r_int == r_cmp == r_py and r_real == r_cmp
        rows.append((name, t_real, t_int, t_cmp, t_py, same))

    def ms(t: float) -> str:
        return f"{t * 1000:>9.1f}ms"

    print(f"{'program':<16}{'real BAML':>11}{'interp':>11}{'compiled':>11}{'CPython':>11}"
          f"{'cmp/real':>10}{'cmp/interp':>11}{'cmp/py':>8}{'real/py':>8}  same")
    for name, tr, ti, tc, tp, same in rows:
        print(f"{name:<16}{ms(tr)}{ms(ti)}{ms(tc)}{ms(tp)}{tc / tr:>9.2f}x{tc / ti:>10.2f}x"
              f"{tc / tp:>7.1f}x{tr / tp:>7.1f}x  {'yes' if same else 'NO'}")
    med = statistics.median
    print(f"median compiled/real: {med(r[3] / r[1] for r in rows):.2f}x   "
          f"compiled/interpreter: {med(r[3] / r[2] for r in rows):.2f}x   "
          f"compiled/CPython: {med(r[3] / r[4] for r in rows):.2f}x   "
          f"real/CPython: {med(r[1] / r[4] for r in rows):.2f}x   (repeat={opts.repeat})")


if __name__ == "__main__":
    main()
