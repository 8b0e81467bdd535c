"""Packing: residual graphs over tensor leaves, lowered to torch.fx, batched and differentiated.

    from ingot.pack import pack, pack_batch, as_torch_function

Everything here needs torch (`pip install -e '.[torch]'`); importing a name
without it raises an ImportError that says so. Sees compiled programs only
through `ingot.view` and the program object.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "pack": "ingot.pack.residual", "Pack": "ingot.pack.residual",
    "pack_batch": "ingot.pack.batch", "BatchPlan": "ingot.pack.batch", "PackCache": "ingot.pack.batch",
    "SampleDataset": "ingot.pack.data", "SampleStream": "ingot.pack.data", "PackCollate": "ingot.pack.data",
    "Packed": "ingot.pack.data",
    "as_torch_function": "ingot.pack.torch_bridge", "compile": "ingot.pack.torch_bridge",
    "unwrap_error": "ingot.pack.torch_bridge", "BridgeError": "ingot.pack.torch_bridge",
    "PackError": "ingot.pack.trace", "TensorBranchError": "ingot.pack.tensors",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'ingot.pack' has no attribute {name!r}")
    try:
        return getattr(importlib.import_module(module), name)
    except ModuleNotFoundError as e:
        if e.name != "torch":
            raise
        raise ImportError("ingot.pack needs PyTorch: pip install -e '.[torch]' (torch==2.13.0)") from None
