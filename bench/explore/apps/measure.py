"""The yardstick: `ingot explore` at its default budget on the application benchmarks.

    python bench/explore/apps/measure.py [NAME ...] [--seeds 0,1,2] [--old] [--heldout] [--json OUT]

For every program here (`NAME.baml` + `NAME.json`, checked by `check_witnesses.py`), with
`--old` also for the seventeen programs of bench/explore/ and with `--heldout` for the held-out
programs of heldout/ (name one as heldout/NAME), it explores the entry function with
the default options and each seed, and prints one row per program: feasible edges covered
(the minimum over the seeds, out of the edges the witnesses prove feasible), whether the
planted bug was found (same kind, same line) in every seed, and the median wall time, runs and
why the search stopped. The last line sums the table up.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import ingot
from ingot.concolic.edges import edge_label
from ingot.concolic.explore import Explorer, Options

HERE = Path(__file__).resolve().parent
OLD = HERE.parent
HELDOUT = HERE / "heldout"  # programs written after the search was tuned, never tuned on (heldout/README.md)
LINE = re.compile(r"line (\d+)")


def finding_line(trace: list[str]) -> int | None:
    m = LINE.search(trace[-1]) if trace else None
    return int(m.group(1)) if m else None


def programs(names: list[str], old: bool, heldout: bool = False) -> list[Path]:
    """The programs named (NAME, or heldout/NAME), else every one here, plus bench/explore's
    (`old`) and the held-out ones (`heldout`)."""
    paths = [HERE / f"{n}.json" if (HERE / f"{n}.json").exists() else OLD / f"{n}.json" for n in names] \
        if names else sorted(HERE.glob("*.json"))
    if old and not names:
        paths += sorted(OLD.glob("*.json"))
    if heldout and not names:
        paths += sorted(HELDOUT.glob("*.json"))
    return paths


def feasible_keys(program: ingot.Program, ex_edges: list[Any], spec: dict[str, Any]) -> set[tuple[str, int, int]]:
    listed = {e.split(" at ")[0].split(": ")[0] for e in spec.get("infeasible_edges", [])}
    keys = {(e.site.function, e.site.block, e.target) for e in ex_edges}
    return {k for k in keys if edge_label(program.view, k).split(" at ")[0] not in listed}


def explore_once(path: Path, seed: int) -> dict[str, Any]:
    spec = json.loads(path.read_text())
    program = ingot.load(path.with_suffix(".baml"))
    start = time.perf_counter()
    ex = Explorer(program.view, spec["function"], Options(seed=seed)).explore()
    wall = time.perf_counter() - start
    feasible = feasible_keys(program, ex.edges, spec)
    bugs = {(b["kind"], b["line"]) for b in spec["bugs"]}
    found = {(f.kind, finding_line(f.trace)) for f in ex.findings}
    return {"covered": len(feasible & ex.covered), "feasible": len(feasible), "bugs": len(bugs),
            "found": len(bugs & found), "wall_s": wall, "runs": ex.runs, "stopped_by": ex.stopped_by,
            "claimed_infeasible": sorted(edge_label(program.view, k) for k in ex.infeasible - ex.covered),
            "uncovered": sorted(edge_label(program.view, k) for k in feasible - ex.covered)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--old", action="store_true", help="also the seventeen programs of bench/explore/")
    ap.add_argument("--heldout", action="store_true", help="also the held-out programs of heldout/")
    ap.add_argument("--json", help="write every run's figures here")
    ap.add_argument("-v", "--verbose", action="store_true", help="list the edges left uncovered")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    rows: dict[str, list[dict[str, Any]]] = {}
    print(f"{'program':<16} {'edges (min over seeds)':>22} {'bug found':>10} {'wall s':>7} {'runs':>5}  stopped by")
    full = bugs_all = 0
    for path in programs(a.names, a.old, a.heldout):
        runs = rows[path.stem] = [explore_once(path, s) for s in seeds]
        cov = min(r["covered"] for r in runs)
        feas = runs[0]["feasible"]
        found = sum(r["found"] == r["bugs"] for r in runs)
        full += cov == feas
        bugs_all += found == len(seeds)
        stops = ",".join(sorted({r["stopped_by"] for r in runs}))
        print(f"{path.stem:<16} {cov:>8}/{feas:<4} {100 * cov / feas:>6.0f}%  {found}/{len(seeds):>8} "
              f"{statistics.median(r['wall_s'] for r in runs):>7.2f} {statistics.median(r['runs'] for r in runs):>5.0f}"
              f"  {stops}")
        if a.verbose:
            for e in sorted({e for r in runs for e in r["uncovered"]}):
                print(f"{'':<18}uncovered: {e}")
        sys.stdout.flush()
    n = len(rows)
    print(f"{full}/{n} programs at 100% edge coverage in every seed; {bugs_all}/{n} planted bugs found in every seed")
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
