"""Exploration time against another checkout, for a change meant to make the search faster,
not different: the application benchmarks explored with this checkout's `src` and with a
baseline's, same seeds and default options, each in a subprocess, alternating.

    git archive <commit> src | tar -x -C /tmp/base
    python bench/explore_baseline.py --baseline /tmp/base/src [NAME ...] [--seeds 0,1] [--repeat 3]

NAME is an application benchmark (bench/explore/apps/NAME or heldout/NAME); by default the
held-out programs that parse numbers out of text, where the search near the run's values
(`ingot.symbolic.nearby`) spends most of the time. Per program and seed it prints both median
wall times and their ratio (baseline / this: above 1, this checkout is faster), and whether
the two searches were the same (runs, edges covered, findings: they must be); then the median
ratio over all of them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
APPS = HERE / "explore" / "apps"
SRC = HERE.parent / "src"
DEFAULT = ["heldout/usage_costs", "heldout/booking_intent", "heldout/time_windows", "heldout/semver_gate",
           "heldout/parse_duration"]

# One exploration, run in a subprocess with the checkout's `src` first on the path.
CHILD = """
import json, sys, time
import ingot
from ingot.concolic.explore import Explorer, Options
spec = json.load(open(sys.argv[1] + ".json"))
program = ingot.load(sys.argv[1] + ".baml")
start = time.perf_counter()
r = Explorer(program.view, spec["function"], Options(seed=int(sys.argv[2]))).explore()
wall = time.perf_counter() - start
print(json.dumps({"wall": wall, "same": [r.runs, len(r.covered), sorted(f.kind for f in r.findings)]}))
"""


def explore(src: Path, name: str, seed: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(APPS / name), str(seed)], env=env, check=True,
                         capture_output=True, text=True).stdout
    result: dict = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="programs (default: %(default)s)", default=DEFAULT)
    ap.add_argument("--baseline", type=Path, required=True, help="the other checkout's src directory")
    ap.add_argument("--seeds", default="0,1", help="comma-separated seeds (default: 0,1)")
    ap.add_argument("--repeat", type=int, default=3, help="runs per side, median taken (default: 3)")
    a = ap.parse_args()
    ratios = []
    print(f"{'program':28s} {'seed':>4s} {'base s':>7s} {'this s':>7s} {'ratio':>6s}  same search")
    for name in a.names:
        for seed in (int(s) for s in a.seeds.split(",")):
            base, this = [], []
            for _ in range(a.repeat):  # alternating, so that drift in the machine's load hits both
                base.append(explore(a.baseline, name, seed))
                this.append(explore(SRC, name, seed))
            same = all(r["same"] == base[0]["same"] for r in base + this)
            b, t = statistics.median(r["wall"] for r in base), statistics.median(r["wall"] for r in this)
            ratios.append(b / t)
            print(f"{name:28s} {seed:4d} {b:7.2f} {t:7.2f} {b / t:6.2f}  {'yes' if same else 'NO'}", flush=True)
    print(f"median ratio (baseline / this): {statistics.median(ratios):.2f} over {len(ratios)} searches")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
