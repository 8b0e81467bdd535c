"""torch tensors standing in for BAML `float`.

A host function may return a tensor where BAML declares `float` (a 0-d
tensor, or a batched one when packs are evaluated on many samples), and BAML
code computes with it. `register()` tells the runtime's operators about
`torch.Tensor` (`ingot.runtime.ops` imports no tensor library):

- `a + b`, `a - b`, `a * b`, `a / b`, `-a` with a tensor on either side and a
  `float`, `int` or tensor on the other: torch's element-wise operators with
  broadcasting (IEEE: `x / 0.0` is `inf` or `nan`, nothing panics);
- `a % b`: `torch.fmod` (the remainder takes the dividend's sign, like BAML);
- `== != < <= > >=`: the element-wise comparison, a bool tensor (IEEE: NaN
  compares false, unlike BAML's total order on floats);
- a condition (`if`, `while`, `&&`, `||`, `!`) on a tensor: a 0-d tensor's
  value outside tracing; a batched tensor, or any tensor while torch traces
  the function, raises `TensorBranchError` (use `ingot.pack.pack`, whose
  guards handle such branches, or `torch.where` in a host function).

`Program.call` runs calls with tensor arguments on the interpreter unless
a tier is named (the compiled tier's inline float code would pass a batched
comparison to Python's `or`). String interpolation renders a one-element tensor as its float. Nothing else
treats a tensor as a float: type tests (`x is float`, union matching), `float`
methods and JSON output see an opaque value.
"""

from __future__ import annotations

from typing import Any

import torch

from ingot.runtime import ops


class TensorBranchError(RuntimeError):
    """BAML code branched on a tensor value where no single truth value exists."""


def _truth(t: torch.Tensor) -> bool:
    if t.numel() != 1:
        raise TensorBranchError(
            f"a condition on a tensor of shape {tuple(t.shape)} has no single truth value; "
            "pack the function (ingot.pack.pack_batch) so each sample takes its own path")
    try:
        return bool(t)
    except Exception as e:  # noqa: BLE001 - torch's tracing errors vary by mode; all mean the same here
        raise TensorBranchError(
            "a BAML condition depends on a tensor's value while torch traces the function; "
            "branch with torch.where in a host function, or pack the function (ingot.pack.pack)") from e


def register() -> None:
    """Make torch tensors usable as BAML floats in every operator (idempotent)."""
    ops.register_float_like(torch.Tensor, truth=_truth, fmod=torch.fmod)


def is_tensor(value: Any) -> bool:
    return isinstance(value, torch.Tensor)


register()
