"""Time BAML programs on the real engine, ingot's tiers (plain and tracked) and CPython.

    python bench/engines.py [--repeat 5] [--tracked-repeat 1] [--full-repeat 1] [--no-real] [--no-tracked]
                            [--interp-repeat N] [--only NAME ...]

Per program (loops, recursion, classes, arrays, strings, data preparation, sorting):
the median time of the real BAML engine (`baml_bridge`), ingot's interpreter, ingot's
compiled tier, the compiled tier with tracking on and every input symbolic (what one
exploration run costs: `Explorer.run` with the compiled tracker, inputs built from the
arguments, no step budget), the same with hot-site pruning off (`full`: every symbolic
operation tracked, `--prune-after 0`), and an equivalent hand-written CPython function.
Then the ratios compiled/real, tracked/compiled and full/compiled, and their medians. The
real engine, the compiled tier and CPython run in turn (one run of each per round), so the
load of a shared machine falls on all three alike.
Results must agree across the engines (the `same` column); the tracked runs' values too.
`entries` counts the path entries of the tracked run (full run in parentheses).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from engines_compiled import CASES, interleaved_medians, median_time  # noqa: E402

import ingot  # noqa: E402
from ingot.bex.compiled import CompiledVM  # noqa: E402
from ingot.bex.vm import VM  # noqa: E402
from ingot.concolic.explore import Explorer, Options  # noqa: E402
from ingot.concolic.inputs import assignment_for  # noqa: E402
from ingot.convert import to_python  # noqa: E402


def tracked_runner(program: ingot.Program, function: str, args: dict[str, Any],
                   prune_after: int | None = Options.prune_after) -> Callable[[], Any]:
    """One tracked run with every input symbolic, as exploration makes it."""
    explorer = Explorer(program.view, function, Options(tracker="compiled", prune_after=prune_after))
    explorer.options.max_steps = None  # type: ignore[assignment]
    assignment: dict[str, Any] = {}
    for name, ty in program.view.function(function).params:
        assignment_for(program.view, ty, name, args[name], assignment)

    def run() -> Any:
        result = explorer.run(assignment)
        if result.outcome.error is not None:
            raise RuntimeError(result.outcome.error)
        return result.outcome.value, len(result.trace.path)

    return run


def measure(name: str, source: str, function: str, args: dict[str, Any], twin: Callable[..., Any],
            opts: argparse.Namespace, bridge: Any) -> tuple[Any, ...]:
    program = ingot.load(source)
    fn = program.function(function)
    values = program.convert_args(function, args)
    CompiledVM(program.bex).call(fn, values)  # translate once (cached per program), as a warm run
    t_int, r_int = median_time(lambda: to_python(VM(program.bex).call(fn, values)), opts.interp_repeat or max(1, opts.repeat // 2))
    runs = [lambda: to_python(CompiledVM(program.bex).call(fn, values)), lambda: twin(**args)]
    if bridge is not None:
        runtime = bridge.BamlRuntime.initialize_runtime(".", {"main.baml": source})
        runs.append(lambda: bridge.call_function_sync(runtime, function, args).result())
    # the real engine, the compiled tier and CPython in turn: their ratios see the same load
    (t_cmp, r_cmp), (t_py, r_py), *real = interleaved_medians(runs, opts.repeat)
    t_real, r_real = real[0] if real else (float("nan"), r_cmp)
    t_trk = t_full = float("nan")
    r_trk = r_full = r_cmp
    entries = full_entries = "-"
    if not opts.no_tracked:
        tracked = tracked_runner(program, function, args)
        tracked()  # translate the instrumented variant once
        t_trk, (r_trk, entries) = median_time(tracked, opts.tracked_repeat)
        full = tracked_runner(program, function, args, prune_after=None)
        full()
        t_full, (r_full, full_entries) = median_time(full, opts.full_repeat)
    same = r_int == r_cmp == r_py == r_trk == r_full and r_real == r_cmp
    return name, t_real, t_int, t_cmp, t_trk, t_full, t_py, f"{entries} ({full_entries})", same


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tracked-repeat", type=int, default=1, help="runs of the tracked column")
    parser.add_argument("--full-repeat", type=int, default=1, help="runs of the (slow) full-tracking column")
    parser.add_argument("--no-real", action="store_true", help="skip the real engine (baml_bridge)")
    parser.add_argument("--interp-repeat", type=int, default=0, help="runs of the interpreter (default: repeat / 2)")
    parser.add_argument("--no-tracked", action="store_true", help="skip the tracked and full columns")
    parser.add_argument("--only", nargs="*", help="program names to run")
    opts = parser.parse_args()
    bridge = None
    if not opts.no_real:
        import baml_bridge as bridge

    rows = [measure(*case, opts, bridge) for case in CASES if not opts.only or case[0] in opts.only]

    def ms(t: float) -> str:
        return f"{t * 1000:>10.1f}ms"

    print(f"{'program':<16}{'real BAML':>12}{'interp':>12}{'compiled':>12}{'tracked':>12}{'full':>12}"
          f"{'CPython':>12}{'cmp/real':>10}{'trk/cmp':>9}{'full/cmp':>9}{'entries':>18}  same")
    for name, tr, ti, tc, tt, tf, tp, entries, same in rows:
        print(f"{name:<16}{ms(tr)}{ms(ti)}{ms(tc)}{ms(tt)}{ms(tf)}{ms(tp)}{tc / tr:>9.2f}x{tt / tc:>8.1f}x"
              f"{tf / tc:>8.1f}x{entries:>18}  {'yes' if same else 'NO'}")
    med = statistics.median
    print(f"median compiled/real: {med(r[3] / r[1] for r in rows):.2f}x   "
          f"tracked/compiled: {med(r[4] / r[3] for r in rows):.1f}x   "
          f"full/compiled: {med(r[5] / r[3] for r in rows):.1f}x   "
          f"compiled/interpreter: {med(r[3] / r[2] for r in rows):.2f}x   "
          f"compiled/CPython: {med(r[3] / r[6] for r in rows):.2f}x   "
          f"(repeat={opts.repeat}, tracked repeat={opts.tracked_repeat}, full repeat={opts.full_repeat})")


if __name__ == "__main__":
    main()
