"""Batched pack evaluation vs one VM call per sample, in one run.

    python bench/pack.py [--sizes 1000 10000 100000] [--million] [--repeat 3] [--threads N]
                         [--backend inductor|aot_eager|none]

The program is examples/training/center_rectangle.baml with its host functions bound to
torch parameters (as in training); the data set is the example's generator (10% of the
samples anchored top-left: two layouts, five paths). For each size it prints samples per
second of:

- VM: the compiled tier called once per sample (measured on at most 10,000 samples: the
  per-sample cost does not depend on the data set's size);
- plan: building the BatchPlan from rows (extraction, packing each path once, grouping,
  merging);
- evaluate: the plan's forward pass (one masked graph per layout, guards re-checked);
- backward: `loss.backward()` to the two parameters after an evaluation;

then evaluate/VM and plan/VM, and nanoseconds per sample of evaluate (flat when evaluation
is linear in the data set's size). `--million` adds 1,000,000 samples. The second table is the
same plan with its graphs under `torch.compile(dynamic=True)` (compile time, paid once per plan,
shown apart). Medians over --repeat.
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

VM_SAMPLES = 10_000


def median_seconds(fn: Callable[[], Any], repeat: int, before: Callable[[], Any] | None = None) -> float:
    times = []
    for _ in range(repeat):
        if before is not None:
            before()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--million", action="store_true", help="add 1,000,000 samples")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--backend", default="inductor", help="torch.compile backend, or `none` to skip")
    parser.add_argument("--threads", type=int, help="torch's intra-op threads (default: torch's choice)")
    opts = parser.parse_args()
    if opts.threads:
        torch.set_num_threads(opts.threads)
    sizes = opts.sizes + ([1_000_000] if opts.million else [])

    program = ingot.load(ROOT / "examples" / "training" / "center_rectangle.baml")
    scale = torch.nn.Parameter(torch.tensor(0.9, dtype=torch.float64))
    margin = torch.nn.Parameter(torch.tensor(2.0, dtype=torch.float64))
    program.bind("RenderScale", lambda: scale)
    program.bind("Margin", lambda: margin)
    reference = ingot.load(ROOT / "examples" / "training" / "center_rectangle.baml")
    reference.bind("RenderScale", lambda: 0.9)
    reference.bind("Margin", lambda: 2.0)

    data = {n: generate(n, seed=n) for n in sizes}
    vm = {n: vm_seconds_per_sample(reference, data[n][:VM_SAMPLES], opts.repeat) for n in sizes}
    print(f"eager (float64)\n{header()}")
    for n in sizes:
        print(row(n, vm[n], *measure(program, data[n], opts.repeat, None)[:4]))
    if opts.backend != "none":
        print(f"\ntorch.compile(backend={opts.backend!r}, dynamic=True)\n{header()} {'compile s':>10}")
        for n in sizes:
            build, evaluate, backward, paths, compile_s = measure(program, data[n], opts.repeat,
                                                                  {"backend": opts.backend})
            print(f"{row(n, vm[n], build, evaluate, backward, paths)} {compile_s:>10.1f}")


def header() -> str:
    return (f"{'samples':>9} {'VM/s':>9} {'plan/s':>11} {'evaluate/s':>12} {'backward/s':>12} {'paths':>5} "
            f"{'eval/VM':>8} {'plan/VM':>8} {'ns/sample':>9}")


def row(n: int, vm: float, build: float, evaluate: float, backward: float, paths: int) -> str:
    return (f"{n:>9,} {1 / vm:>9,.0f} {n / build:>11,.0f} {n / evaluate:>12,.0f} {n / backward:>12,.0f} "
            f"{paths:>5} {vm * n / evaluate:>7.0f}x {vm * n / build:>7.1f}x {evaluate / n * 1e9:>9.0f}")


def vm_seconds_per_sample(program: ingot.Program, samples: list[dict[str, Any]], repeat: int) -> float:
    seconds = median_seconds(lambda: [program.call("CenterRectangle", **s) for s in samples], repeat)
    return seconds / len(samples)


def measure(program: ingot.Program, samples: list[dict[str, Any]], repeat: int,
            compile: dict[str, Any] | None) -> tuple[float, float, float, int, float]:  # noqa: A002
    """Median seconds of building the plan, evaluating it, and backward; its paths; compile seconds."""
    plans: list[BatchPlan] = []
    build = median_seconds(lambda: plans.append(BatchPlan(program, "CenterRectangle", samples, merge=True,
                                                          compile=compile)), repeat)
    plan = plans[-1]
    start = time.perf_counter()
    check(program, plan, samples)  # compiles forward and backward ...
    with torch.no_grad():
        plan.evaluate()  # ... and inference (grad mode is part of torch.compile's guards)
        compile_s = time.perf_counter() - start if compile else 0.0
        evaluate = median_seconds(plan.evaluate, repeat)
    outputs: list[Any] = []

    def forward() -> None:
        outputs.append(plan.evaluate())

    def backward() -> None:
        out = outputs.pop()
        (out["x"].sum() + out["y"].sum()).backward()

    backward_s = median_seconds(backward, repeat, before=forward)
    return build, evaluate, backward_s, plan.paths, compile_s


def check(program: ingot.Program, plan: BatchPlan, samples: list[dict[str, Any]]) -> None:
    """The batched numbers equal the VM's (a check, not a timing); runs forward and backward once."""
    out = plan.evaluate()
    (out["x"].sum() + out["y"].sum()).backward()
    with torch.no_grad():
        for i in range(0, len(samples), max(1, len(samples) // 50)):
            ref = program.call("CenterRectangle", **samples[i])
            assert abs(float(out["x"][i]) - float(ref["x"])) <= 1e-9 * max(1.0, abs(float(ref["x"])))


if __name__ == "__main__":
    main()
