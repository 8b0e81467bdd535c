"""Learn the two numbers of center_rectangle.baml with PyTorch, over packs of a generated data set.

    python examples/training/train.py [--epochs 40] [--samples 512] [--batch 128] [--seed 0]

The data set is made by the BAML program itself with the "true" scale and
margin bound as plain numbers; training starts from other values, binds the
host functions to `torch.nn.Parameter`s, evaluates each mini-batch through
`ingot.pack.BatchPlan` (one graph per path, merged with masks) and lets
autograd and Adam recover the true values. Samples change path while the
parameters move (a rectangle that no longer fits is pinned to the margin):
each plan re-checks its guards and re-packs when a row left its path.
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path
from typing import Any

import torch
from rich.console import Console
from rich.progress import Progress

import ingot
from ingot.pack import BatchPlan

HERE = Path(__file__).parent
TRUE_SCALE, TRUE_MARGIN = 0.8, 3.0


def generate(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    samples = []
    for _ in range(n):
        canvas_w, canvas_h = rng.uniform(40, 120), rng.uniform(40, 120)
        samples.append({"dims": {
            "width": rng.uniform(5, canvas_w * 1.3), "height": rng.uniform(5, canvas_h * 1.3),
            "canvas_width": canvas_w, "canvas_height": canvas_h,
            "anchor": "TopLeft" if rng.random() < 0.1 else "Center"}})
    return samples


def targets(samples: list[dict[str, Any]]) -> tuple[torch.Tensor, torch.Tensor]:
    """The placements with the true parameters, computed by the BAML program itself."""
    program = ingot.load(HERE / "center_rectangle.baml")
    program.bind("RenderScale", lambda: TRUE_SCALE)
    program.bind("Margin", lambda: TRUE_MARGIN)
    placed = [program.call("CenterRectangle", **s) for s in samples]
    return torch.tensor([p["x"] for p in placed]), torch.tensor([p["y"] for p in placed])


class Layout(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = torch.nn.Parameter(torch.tensor(1.0))
        self.margin = torch.nn.Parameter(torch.tensor(0.0))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--samples", type=int, default=512)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    opts = parser.parse_args()
    console = Console()

    samples = generate(opts.samples, opts.seed)
    tx, ty = targets(samples)
    model = Layout()
    program = ingot.load(HERE / "center_rectangle.baml")
    program.bind("RenderScale", lambda: model.scale)
    program.bind("Margin", lambda: model.margin)
    batches = [(BatchPlan(program, "CenterRectangle", samples[i:i + opts.batch], merge=True),
                slice(i, i + opts.batch)) for i in range(0, len(samples), opts.batch)]
    optimizer = torch.optim.Adam(model.parameters(), lr=0.1)

    first = last = 0.0
    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("training", total=opts.epochs)
        for epoch in range(1, opts.epochs + 1):
            total = 0.0
            for plan, rows in batches:
                placed = plan.evaluate()
                loss = torch.nn.functional.mse_loss(placed["x"], tx[rows]) + torch.nn.functional.mse_loss(
                    placed["y"], ty[rows])
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                total += loss.item() * plan.size
            mean = total / len(samples)
            first = first or mean
            last = mean
            paths = sum(plan.paths for plan, _ in batches)
            progress.console.print(f"epoch {epoch:3d}  loss {mean:10.4f}  scale {model.scale.item():.4f}  "
                                   f"margin {model.margin.item():.4f}  paths {paths}")
            progress.advance(task)
    console.print(f"loss {first:.4f} -> {last:.4f}; learned scale {model.scale.item():.3f} (true {TRUE_SCALE}), "
                  f"margin {model.margin.item():.3f} (true {TRUE_MARGIN})")
    if not last < first:
        raise SystemExit("the loss did not go down")


if __name__ == "__main__":
    main()
