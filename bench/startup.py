"""Start-up of the `ingot` command: how long a process takes before and around its real work.

    python bench/startup.py [NAME ...] [--reps 9] [--src DIR] [--source-only | --cached-only]

Each measurement runs a fresh subprocess and keeps the median wall time over --reps runs
(after one untimed warm-up run). Measured, in one run against the same reference:

- `python -c pass`: the interpreter alone (the reference; ratios are against it);
- `import ingot.cli`;
- `ingot --help`;
- `ingot explore NAME.baml FUNC --json --seed 0 --timings` on bench/explore/apps programs
  (default llm_union, retry_extract, ticket_router), with the exploration's own time
  (`timeline.time_s` in the report) subtracted to give the fixed costs around it.

The commands run as the installed console script does (`from ingot.cli import entry`) with
`PYTHONPATH=--src` (default: this repository's src/), in two modes:

- cached: with a bytecode cache (warmed by the first run), as an installed package runs;
- source: with `PYTHONDONTWRITEBYTECODE=1` and no cache, so every module is compiled from
  source in every process (an editable checkout in an environment that forbids .pyc files).

`--against DIR` measures a second tree (say, an older commit exported with `git archive`) in the
same run, alternating the two run by run so that both see the same load, and prints its medians
and the speed-up beside.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APPS = ROOT / "bench" / "explore" / "apps"
DEFAULT_APPS = ["llm_union", "retry_extract", "ticket_router"]
ENTRY = "import sys; from ingot.cli import entry; sys.argv[0] = 'ingot'; entry()"


def child_env(src: Path, pycache: Path | None) -> dict[str, str]:
    """The environment of a measured process: `src` first on the path, bytecode cache or none."""
    env = dict(os.environ, PYTHONPATH=str(src))
    if pycache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def run_once(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    if p.returncode not in (0, 1):  # explore exits 1 when it finds a bug
        raise SystemExit(f"{' '.join(argv)} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    return wall, p.stdout


Result = tuple[float, float | None]  # median wall; median time outside the search (explorations)


def measure(argv: list[str], envs: list[dict[str, str]], reps: int) -> list[Result]:
    """For each environment (tree), the median wall time of `argv` and, for an exploration, the
    median time outside its search; the trees' runs alternate."""
    for env in envs:
        run_once(argv, env)  # warm-up: fills the bytecode cache and the OS's file cache
    walls: list[list[float]] = [[] for _ in envs]
    outside: list[list[float]] = [[] for _ in envs]
    for _ in range(reps):
        for i, env in enumerate(envs):
            wall, out = run_once(argv, env)
            walls[i].append(wall)
            if "--timings" in argv:
                outside[i].append(wall - (json.loads(out).get("timeline") or {})["time_s"])
    return [(statistics.median(w), statistics.median(o) if o else None) for w, o in zip(walls, outside)]


def commands(names: list[str]) -> list[tuple[str, list[str]]]:
    py = sys.executable
    rows = [("python -c pass", [py, "-c", "pass"]),
            ("import ingot.cli", [py, "-c", "import ingot.cli"]),
            ("ingot --help", [py, "-c", ENTRY, "--help"])]
    for name in names:
        spec = json.loads((APPS / f"{name}.json").read_text(encoding="utf-8"))
        rows.append((f"ingot explore {name}", [py, "-c", ENTRY, "explore", str(APPS / f"{name}.baml"),
                                               spec["function"], "--json", "--seed", "0", "--timings"]))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description="start-up of the ingot command (see the module docstring)")
    ap.add_argument("names", nargs="*", default=DEFAULT_APPS, help="bench/explore/apps programs to explore")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--src", type=Path, default=ROOT / "src", help="the tree whose `ingot` is measured")
    ap.add_argument("--against", type=Path, default=None, help="a second tree, measured alternately")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--cached-only", action="store_true")
    mode.add_argument("--source-only", action="store_true")
    a = ap.parse_args()
    if a.reps < 7:
        ap.error("--reps must be at least 7 for a meaningful median")
    modes = ["cached"] * (not a.source_only) + ["source"] * (not a.cached_only)
    rows = commands(a.names)
    trees = [a.src.resolve()] + ([a.against.resolve()] if a.against else [])
    print(f"src: {trees[0]}" + (f"; against: {trees[1]}" if a.against else ""))
    print(f"medians of {a.reps} runs (seconds); ratio: against `python -c pass` in the same mode; "
          "outside: wall minus the search's own time (the report's timeline.time_s)"
          + ("; speed-up: against's wall / src's wall" if a.against else ""))
    with tempfile.TemporaryDirectory(prefix="ingot-startup-") as tmp:
        for m in modes:
            envs = [child_env(t, Path(tmp) / f"pycache{i}" if m == "cached" else None) for i, t in enumerate(trees)]
            print(f"\n== {m} ==")
            print(f"{'command':30s} {'wall':>7s} {'ratio':>6s} {'outside':>8s}"
                  + (f" | {'against':>7s} {'ratio':>6s} {'outside':>8s} | {'speed-up':>8s}" if a.against else ""))
            refs: list[float] = []
            for label, argv in rows:
                results = measure(argv, envs, a.reps)
                refs = refs or [wall for wall, _ in results]
                cells = [f"{wall:7.3f} {wall / ref:5.1f}x " + (f"{out:8.3f}" if out is not None else " " * 8)
                         for (wall, out), ref in zip(results, refs)]
                speed = f" | {results[1][0] / results[0][0]:7.2f}x" if a.against else ""
                print(f"{label:30s} " + " | ".join(cells) + speed, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
