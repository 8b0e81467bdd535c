"""What the search near a run's values (`ingot.symbolic.nearby`) costs and finds, where Z3
answers unknown: each program explored with default options, with the search and without it
(the solver's `_search_near` answering unknown, as before it existed), same seed, in this
process.

    python bench/explore_nearby.py [NAME ...] [--seeds 0,1,2]

NAME is an application benchmark (bench/explore/apps/NAME or heldout/NAME); by default the
five whose string queries Z3 leaves unknown most often. Prints, per program and seed, the
search's time and evaluations (ms per evaluation), the unknown answers it turned sat, the
bug found or not with and without it, and the median ratio of the whole exploration's wall
time with the search to without it (the two searches differ once a model is found, so the
ratio says what the exploration costs, not the search alone).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import ingot
from ingot.concolic.explore import Explorer, Options
from ingot.symbolic import nearby
from ingot.symbolic.solver import Result, Solver

APPS = Path(__file__).resolve().parent / "explore" / "apps"
DEFAULT = ["kv_config", "mask_card", "statement", "heldout/parse_duration", "heldout/queue_sla"]


class Timed:
    """Wraps `nearby.search` to add up its time."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.inner = nearby.search

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return self.inner(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start


def explore(name: str, seed: int, with_search: bool) -> dict[str, Any]:
    path = APPS / f"{name}.json"
    spec = json.loads(path.read_text())
    program = ingot.load(path.with_suffix(".baml"))
    timed, original = Timed(), Solver._search_near
    nearby.search = timed  # type: ignore[assignment]
    if not with_search:
        Solver._search_near = lambda self, query, near: Result("unknown")  # type: ignore[method-assign]
    try:
        start = time.perf_counter()
        explorer = Explorer(program.view, spec["function"], Options(seed=seed))
        result = explorer.explore()
        wall = time.perf_counter() - start
    finally:
        nearby.search, Solver._search_near = timed.inner, original  # type: ignore[method-assign]
    bugs = {(b["kind"], b["line"]) for b in spec["bugs"]}
    found = any(f.kind == kind for f in result.findings for kind, _ in bugs)
    stats = explorer.solver.stats
    return {"wall": wall, "search_s": timed.seconds, "evaluations": stats.nearby_evaluations,
            "sat": stats.nearby_sat, "found": found}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", default=DEFAULT)
    ap.add_argument("--seeds", default="0,1,2")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    print(f"{'program':24} seed  search s  evals  ms/eval  sat  bug with/without  wall with/without")
    for name in a.names:
        ratios = []
        for seed in seeds:
            on, off = explore(name, seed, True), explore(name, seed, False)
            ratios.append(on["wall"] / off["wall"])
            per = 1000 * on["search_s"] / on["evaluations"] if on["evaluations"] else 0.0
            print(f"{name:24} {seed:4}  {on['search_s']:8.2f}  {on['evaluations']:5}  {per:7.3f}  {on['sat']:3}"
                  f"  {'yes' if on['found'] else 'no':>3} / {'yes' if off['found'] else 'no':<8}"
                  f"  {on['wall']:.1f} / {off['wall']:.1f} s")
        print(f"{name:24} median wall ratio with/without: {statistics.median(ratios):.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
