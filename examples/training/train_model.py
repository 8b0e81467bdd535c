"""Train a price model composed in BAML (listing_price.baml) with PyTorch: DataLoader workers, DDP.

    python examples/training/train_model.py [--epochs 30] [--samples 2048] [--batch 64] [--workers 2]
    python examples/training/train_model.py --ddp 2                    # 2 CPU processes (gloo)
    torchrun --nproc-per-node 2 examples/training/train_model.py       # the same, launched by torch

The data set is generated here: listings (area, rooms, distance, kind, garden) priced by a
hidden rule with noise. The model's layers are `nn.Linear` blocks (a shared trunk, a head per
kind) bound to BAML host functions; `Price` in BAML calls them and decides per listing which
head prices it and which adjustments apply, so each mini-batch runs through packed graphs
(one merged graph per layout). The learning rate of each epoch comes from BAML's
`LearningRate`, and BAML's `ShouldStop` ends training on the validation losses.

Batches are collated in DataLoader workers (`ingot.pack.PackCollate`: validation, columns,
layouts) and evaluated by `ingot.pack.Packed` in the training process, which reuses the
paths and graphs of earlier batches. With `--ddp N` (or under torchrun) each process trains
on its share of every global batch (`DistributedSampler`) and `DistributedDataParallel`
averages the gradients: the loss curve equals the single-process run's with the same
`--batch` (the global batch), up to float64 rounding. `--record FILE` writes the curve as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler

import ingot
from ingot.pack import PackCollate, Packed, SampleDataset

HERE = Path(__file__).parent
F64 = torch.float64


def generate(n: int, seed: int) -> tuple[list[dict[str, Any]], torch.Tensor]:
    """Listings and their prices (in 100k) under the hidden rule, with 2% noise."""
    rng = random.Random(seed)
    samples, prices = [], []
    for _ in range(n):
        house = rng.random() < 0.4
        listing = {"area": rng.uniform(25, 250 if house else 140), "rooms": rng.randint(1, 7 if house else 4),
                   "distance_km": rng.uniform(0, 45), "kind": "House" if house else "Flat",
                   "garden": house and rng.random() < 0.5}
        a, d, r = listing["area"] / 100, listing["distance_km"] / 10, listing["rooms"]
        price = 1.3 * a + 0.12 * r - 0.08 * d + 0.3 * listing["garden"] if house else 0.9 * a * (1 + 0.08 * r) - 0.05 * d
        if listing["distance_km"] > 30:
            price *= 0.75
        samples.append(listing)
        prices.append(price * (1 + rng.gauss(0, 0.02)))
    return [{"listing": s} for s in samples], torch.tensor(prices, dtype=F64)


class PriceLayers(torch.nn.Module):
    """The learnable part: a trunk and one head per kind, called from BAML."""

    def __init__(self) -> None:
        super().__init__()
        self.trunk = mlp(2, 16)
        self.flat = mlp(2, 8)
        self.house = mlp(2, 8)


def mlp(inputs: int, hidden: int) -> torch.nn.Module:
    return torch.nn.Sequential(torch.nn.Linear(inputs, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, 1)).to(F64)


def block(module: torch.nn.Module) -> Any:
    """A host function: scalar BAML floats (0-d tensors, columns or numbers) in, one float out."""
    def call(*xs: Any) -> torch.Tensor:
        columns = torch.broadcast_tensors(*[torch.as_tensor(x, dtype=F64) for x in xs])
        return module(torch.stack(columns, -1)).squeeze(-1)
    return call


def build(seed: int) -> tuple[ingot.Program, Packed]:
    torch.manual_seed(seed)  # every process starts from the same weights
    program = ingot.load(HERE / "listing_price.baml")
    packed = Packed(program, "Price", merge=True)
    packed.layers = PriceLayers()
    program.bind("Trunk", block(packed.layers.trunk))
    program.bind("FlatHead", block(packed.layers.flat))
    program.bind("HouseHead", block(packed.layers.house))
    return program, packed


def train(opts: argparse.Namespace, rank: int = 0, world: int = 1) -> list[dict[str, float]]:
    """Train; return the curve (train and validation loss, learning rate per epoch)."""
    torch.set_num_threads(1)
    samples, prices = generate(opts.samples, opts.seed)
    held_out, held_prices = generate(opts.samples // 4, opts.seed + 1)
    program, packed = build(opts.seed)
    model = DistributedDataParallel(packed, find_unused_parameters=True) if world > 1 else packed
    data = SampleDataset(samples, prices)
    if opts.batch % world or len(data) % opts.batch:
        raise SystemExit(f"--batch must divide --samples and be divisible by the {world} processes")
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=True, seed=opts.seed)
    loader = DataLoader(data, batch_size=opts.batch // world, sampler=sampler, num_workers=opts.workers,
                        collate_fn=PackCollate(program, "Price"), persistent_workers=opts.workers > 0)
    optimizer = torch.optim.Adam(model.parameters())
    curve: list[dict[str, float]] = []
    for epoch in range(opts.epochs):
        lr = program.call("LearningRate", epoch=epoch, base=opts.lr, warmup=3, halve_every=10)
        for group in optimizer.param_groups:
            group["lr"] = lr
        sampler.set_epoch(epoch)
        total = torch.zeros((), dtype=F64)
        for batch, target in loader:
            loss = torch.nn.functional.mse_loss(model(batch), target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.detach() * len(target)
        if world > 1:
            dist.all_reduce(total)
        with torch.no_grad():
            held = float(torch.nn.functional.mse_loss(packed(held_out), held_prices))
        curve.append({"epoch": epoch, "lr": lr, "train": float(total) / len(data), "validation": held})
        if rank == 0:
            print(f"epoch {epoch:3d}  lr {lr:.5f}  train {curve[-1]['train']:.6e}  validation {held:.6e}  "
                  f"paths {packed.paths}", flush=True)
        if program.call("ShouldStop", losses=[c["validation"] for c in curve], patience=opts.patience,
                        min_delta=0.01):
            if rank == 0:
                print(f"early stop after epoch {epoch} (ShouldStop)", flush=True)
            break
    return curve


def ddp_worker(rank: int, world: int, opts: argparse.Namespace, rendezvous: str) -> None:
    dist.init_process_group("gloo", init_method=rendezvous, rank=rank, world_size=world)
    try:
        curve = train(opts, rank, world)
        if rank == 0 and opts.record:
            Path(opts.record).write_text(json.dumps(curve), encoding="utf-8")
    finally:
        dist.destroy_process_group()


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--samples", type=int, default=2048)
    parser.add_argument("--batch", type=int, default=64, help="the global batch (split between processes)")
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--patience", type=int, default=4)
    parser.add_argument("--workers", type=int, default=0, help="DataLoader worker processes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ddp", type=int, default=0, help="train on N CPU processes (gloo)")
    parser.add_argument("--record", help="write the loss curve to this JSON file")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    opts = parse(argv)
    if "WORLD_SIZE" in os.environ:  # under torchrun
        dist.init_process_group("gloo")
        try:
            curve = train(opts, dist.get_rank(), dist.get_world_size())
            if dist.get_rank() == 0 and opts.record:
                Path(opts.record).write_text(json.dumps(curve), encoding="utf-8")
        finally:
            dist.destroy_process_group()
    elif opts.ddp > 1:
        with tempfile.TemporaryDirectory() as tmp:
            rendezvous = Path(tmp, "rendezvous").as_uri()
            torch.multiprocessing.spawn(ddp_worker, args=(opts.ddp, opts, rendezvous), nprocs=opts.ddp)
    else:
        curve = train(opts)
        if opts.record:
            Path(opts.record).write_text(json.dumps(curve), encoding="utf-8")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
