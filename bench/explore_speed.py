"""Exploration end to end on bench/explore/: the compiled tracker against the interpreter-tracker.

    python bench/explore_speed.py [--repeat 3] [--seed 0] [--baseline SRC] [--cli]

Per program: the median wall time of `Explorer(...).explore()` with each tracker (same
seed, same options), the ratio interpreter/compiled, the share of the time spent in the
solver, and whether the two reports are identical (they must be). Then the totals and
the median ratio. Each program is loaded once and explored once before timing, so both
trackers start warm (the instrumented translation is cached per program).

`--baseline SRC` also times the whole set with another checkout's `src` directory (e.g.
`git archive <commit> src | tar -x -C /tmp/base`, then `--baseline /tmp/base/src`), in a
subprocess with that `ingot` on the path, and prints today's total against it.

`--cli` times what a user waits for instead: `python -m ingot.cli explore FILE FUNCTION
--json` in a fresh process per run (start-up, compiling the program, translating it,
exploring, writing the report), with each tracker (`INGOT_TRACKER`) and, with
`--baseline`, with the other checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import ingot
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.report import as_json

HERE = Path(__file__).resolve().parent / "explore"


def explore(program: ingot.Program, function: str, tracker: str, seed: int) -> tuple[float, float, dict]:
    start = time.perf_counter()
    result = Explorer(program.view, function, Options(seed=seed, tracker=tracker)).explore()
    elapsed = time.perf_counter() - start
    return elapsed, result.solver_stats.get("time_s", 0.0), as_json(program.view, result)


# Run in a subprocess against another source tree: the median total time of the set.
_TOTAL = """
import json, statistics, sys, time
from pathlib import Path
import ingot
from ingot.concolic.explore import Explorer, Options
progs = [(ingot.load(p), json.loads(p.with_suffix(".json").read_text())["function"])
         for p in sorted(Path(sys.argv[1]).glob("*.baml"))]
def total():
    start = time.perf_counter()
    for program, function in progs:
        Explorer(program.view, function, Options(seed=int(sys.argv[3]))).explore()
    return time.perf_counter() - start
total()
print(statistics.median(total() for _ in range(int(sys.argv[2]))))
"""


def baseline_total(src: str, repeat: int, seed: int) -> float:
    env = {**os.environ, "PYTHONPATH": src}
    out = subprocess.run([sys.executable, "-c", _TOTAL, str(HERE), str(repeat), str(seed)], env=env,
                         capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def cli_time(path: Path, function: str, env: dict[str, str]) -> float:
    # Bytecode caches on, for every tree alike: a user's installation has them, and a tree
    # without them would pay for compiling its Python modules in every process.
    base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "ingot.cli", "explore", str(path), function, "--json"],
                   env={**base, **env}, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main_cli(opts: argparse.Namespace) -> None:
    """End to end, one fresh process per exploration."""
    setups = {"interp": {"INGOT_TRACKER": "interp"}, "compiled": {"INGOT_TRACKER": "compiled"}}
    if opts.baseline:
        setups["baseline"] = {"PYTHONPATH": opts.baseline}
    totals = dict.fromkeys(setups, 0.0)
    first = sorted(HERE.glob("*.baml"))[0]
    for env in setups.values():  # warm: writes each tree's bytecode caches
        cli_time(first, json.loads(first.with_suffix(".json").read_text())["function"], env)
    print(f"{'program':<12}" + "".join(f"{k:>10}" for k in setups) + f"{'interp/compiled':>17}")
    for path in sorted(HERE.glob("*.baml")):
        function = json.loads(path.with_suffix(".json").read_text())["function"]
        times: dict[str, list[float]] = {k: [] for k in setups}
        for _ in range(opts.repeat):
            for name, env in setups.items():  # alternate, so drifts of a noisy machine hit all
                times[name].append(cli_time(path, function, env))
        med = {k: statistics.median(v) for k, v in times.items()}
        for k in totals:
            totals[k] += med[k]
        print(f"{path.stem:<12}" + "".join(f"{med[k] * 1000:>8.0f}ms" for k in setups)
              + f"{med['interp'] / med['compiled']:>16.2f}x")
    print("total: " + ", ".join(f"{k} {v:.2f}s" for k, v in totals.items())
          + f"; interp/compiled {totals['interp'] / totals['compiled']:.2f}x"
          + (f"; baseline/compiled {totals['baseline'] / totals['compiled']:.2f}x" if opts.baseline else "")
          + f"  (repeat={opts.repeat}, seed 0)")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", help="another checkout's src directory to time the whole set with")
    parser.add_argument("--cli", action="store_true", help="time `ingot explore` end to end, a process per run")
    opts = parser.parse_args()
    if opts.cli:
        main_cli(opts)
        return
    rows = []
    for path in sorted(HERE.glob("*.baml")):
        function = json.loads(path.with_suffix(".json").read_text())["function"]
        program = ingot.load(path)
        times: dict[str, list[float]] = {"interp": [], "compiled": []}
        solver: dict[str, list[float]] = {"interp": [], "compiled": []}
        reports = {}
        for tracker in times:
            explore(program, function, tracker, opts.seed)  # warm: translations, caches of the process
        for _ in range(opts.repeat):
            for tracker in times:  # alternate, so drifts of a noisy machine hit both
                t, ts, reports[tracker] = explore(program, function, tracker, opts.seed)
                times[tracker].append(t)
                solver[tracker].append(ts)
        med = {k: statistics.median(v) for k, v in times.items()}
        share = statistics.median(solver["compiled"]) / med["compiled"]
        rows.append((path.stem, med["interp"], med["compiled"], share, reports["interp"] == reports["compiled"]))

    print(f"{'program':<12}{'interp':>10}{'compiled':>10}{'ratio':>8}{'solver share':>14}  same report")
    for name, ti, tc, share, same in rows:
        print(f"{name:<12}{ti * 1000:>8.0f}ms{tc * 1000:>8.0f}ms{ti / tc:>7.2f}x{share:>13.0%}  {'yes' if same else 'NO'}")
    total_i, total_c = sum(r[1] for r in rows), sum(r[2] for r in rows)
    print(f"total: interp {total_i:.2f}s, compiled {total_c:.2f}s, ratio {total_i / total_c:.2f}x; "
          f"median ratio {statistics.median(r[1] / r[2] for r in rows):.2f}x  (repeat={opts.repeat}, seed={opts.seed})")
    if opts.baseline:
        base = baseline_total(opts.baseline, opts.repeat, opts.seed)
        print(f"baseline {opts.baseline}: {base:.2f}s; compiled tracker today {total_c:.2f}s: {base / total_c:.2f}x faster")


if __name__ == "__main__":
    main()
