"""Batched pack evaluation vs one VM call per sample, in one run.

    python bench/pack.py [--sizes 1000 10000] [--repeat 3]

The program is examples/training/center_rectangle.baml with its host functions
bound to torch parameters (as in training). For each size, prints samples per
second of: the VM called once per sample (compiled tier), building the batch
plan (packing each path once, grouping, stacking), evaluating the plan (one
masked graph per layout), and the ratio evaluate/VM. Medians over --repeat.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

import ingot
from ingot.pack import BatchPlan

ROOT = Path(__file__).parents[1]
sys.path.insert(0, str(ROOT / "examples" / "training"))
from train import generate  # noqa: E402 - the example's data set generator


def median_seconds(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=3)
    opts = parser.parse_args()

    program = ingot.load(ROOT / "examples" / "training" / "center_rectangle.baml")
    scale = torch.nn.Parameter(torch.tensor(0.9))
    margin = torch.nn.Parameter(torch.tensor(2.0))
    program.bind("RenderScale", lambda: scale)
    program.bind("Margin", lambda: margin)

    print(f"{'samples':>8} {'VM/s':>12} {'plan/s':>12} {'evaluate/s':>12} {'paths':>6} {'evaluate/VM':>12}")
    for n in opts.sizes:
        vm, build, evaluate, paths = measure(program, generate(n, seed=n), opts.repeat)
        print(f"{n:>8} {n / vm:>12,.0f} {n / build:>12,.0f} {n / evaluate:>12,.0f} {paths:>6} "
              f"{vm / evaluate:>11.1f}x")


def measure(program: ingot.Program, samples: list[dict[str, Any]], repeat: int) -> tuple[float, float, float, int]:
    """Median seconds of: one VM call per sample, building the plan, evaluating it; and the plan's paths."""
    with torch.no_grad():
        vm = median_seconds(lambda: [program.call("CenterRectangle", **s) for s in samples], repeat)
        plans: list[BatchPlan] = []
        build = median_seconds(lambda: plans.append(BatchPlan(program, "CenterRectangle", samples, merge=True)),
                               repeat)
        plan = plans[-1]
        evaluate = median_seconds(plan.evaluate, repeat)
        # The same numbers both ways (a check, not a timing).
        out = plan.evaluate()
        ref = [program.call("CenterRectangle", **s) for s in samples[:50]]
        assert all(abs(float(out["x"][i]) - float(r["x"])) < 1e-4 for i, r in enumerate(ref))
    return vm, build, evaluate, plan.paths


if __name__ == "__main__":
    main()
