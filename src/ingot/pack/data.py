"""Packing with `torch.utils.data`: datasets, a collate function for worker processes, and a module.

    dataset = SampleDataset(samples, targets)             # or SampleStream(iterable) for streams
    loader = DataLoader(dataset, batch_size=256, num_workers=2,
                        collate_fn=PackCollate(program, "F"))
    packed = Packed(program, "F", merge=True)             # an nn.Module: one plan per batch
    for batch, target in loader:
        out = packed(batch)                               # outputs in the batch's sample order

`PackCollate` runs in the loader's worker processes and does the per-sample work: validating
the samples and extracting their numeric columns and layouts (`pack.columns`). What crosses
back to the training process is tensors and layouts. `Packed` (in the training process,
where the learnable tensors live) places the rows on the paths already packed for their
layout (one guard mask per path) and runs the concolic VM only for a path no earlier batch
took, then evaluates the batch's graphs; packs and graphs are shared by every batch through a
`PackCache`, so a merged layout's graph is built (and compiled) once.

A worker needs the program's signature only: `PackCollate` pickles the program's source text
and loads it again in a worker started with `spawn` (host functions are not needed there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import torch
from torch.utils.data import Dataset, IterableDataset, default_collate, get_worker_info

from ingot.pack.batch import BAML_FLOAT, BatchPlan, PackCache
from ingot.pack.columns import Extracted, extract

if TYPE_CHECKING:
    from ingot.api import Program

__all__ = ["PackCollate", "Packed", "SampleDataset", "SampleStream"]


class SampleDataset(Dataset[Any]):
    """Samples (rows: each the function's arguments by name), with optional targets.

    An item is the sample, or `(sample, target)` when targets are given; `PackCollate` packs
    the samples and collates the targets with torch's default collate.
    """

    def __init__(self, samples: Sequence[Mapping[str, Any]], targets: Sequence[Any] | torch.Tensor | None = None
                 ) -> None:
        if targets is not None and len(targets) != len(samples):
            raise ValueError(f"{len(samples)} samples but {len(targets)} targets")
        self.samples, self.targets = samples, targets

    def __len__(self) -> int:
        return len(self.samples)

    def __getitem__(self, i: int) -> Any:
        return self.samples[i] if self.targets is None else (self.samples[i], self.targets[i])


class SampleStream(IterableDataset[Any]):
    """Samples from an iterable (or a function returning a fresh one per epoch), split
    between the loader's workers: worker k of w takes items k, k + w, k + 2w, ..."""

    def __init__(self, source: Iterable[Any] | Callable[[], Iterable[Any]]) -> None:
        self.source = source

    def __iter__(self) -> Any:
        items = self.source() if callable(self.source) else self.source
        info = get_worker_info()
        for i, item in enumerate(items):
            if info is None or i % info.num_workers == info.id:
                yield item


class PackCollate:
    """A `collate_fn`: a list of samples (or `(sample, target, ...)` tuples) -> `Extracted`
    (or `(Extracted, collated targets, ...)`). Runs in the loader's workers."""

    def __init__(self, program: Program, function: str, *, dtype: torch.dtype | None = None) -> None:
        program.function(function)  # a clear error now, not in a worker
        self.program: Program | None = program
        self.source = program.compiled.source.text
        self.function = function
        self.dtype = dtype or BAML_FLOAT

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "program": None}  # host callables and bytecode stay behind

    def __call__(self, items: list[Any]) -> Any:
        if self.program is None:
            import ingot

            self.program = ingot.load(self.source)
        if items and isinstance(items[0], tuple):
            samples = [item[0] for item in items]
            rest = default_collate([item[1:] for item in items])
            return (self.extract(samples), *rest)
        return self.extract(items)

    def extract(self, samples: list[Any]) -> Extracted:
        assert self.program is not None
        return Extracted(*extract(self.program, self.function, samples, self.dtype))


class Packed(torch.nn.Module):
    """`function` as a module: `packed(batch)` evaluates a batch (an `Extracted` from
    `PackCollate`, rows, or columns) and returns its outputs in sample order.

    Learnable tensors belong to the modules the host functions call; register those modules
    as children (`packed.layers = ...`) so that `parameters()`, `state_dict()` and
    `DistributedDataParallel` see them.
    """

    def __init__(self, program: Program, function: str, *, merge: bool = True, dtype: torch.dtype | None = None,
                 device: torch.device | str | None = None, compile: Mapping[str, Any] | bool | None = None  # noqa: A002
                 ) -> None:
        super().__init__()
        self.program, self.function = program, function
        self.options: dict[str, Any] = {"merge": merge, "dtype": dtype or BAML_FLOAT, "device": device,
                                        "compile": compile}
        self.cache = PackCache()
        self.last_plan: BatchPlan | None = None

    def plan(self, batch: Any) -> BatchPlan:
        self.last_plan = BatchPlan(self.program, self.function, batch, cache=self.cache, **self.options)
        return self.last_plan

    def forward(self, batch: Any) -> Any:
        return self.plan(batch).evaluate()

    @property
    def paths(self) -> int:
        """The paths packed so far, over all batches."""
        return sum(len(packs) for packs in self.cache.packs.values())
