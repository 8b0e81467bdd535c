"""examples/training: the BAML source is valid for the engine and the script trains."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the training example needs PyTorch (pip install -e '.[torch]')")

EXAMPLE = Path(__file__).parents[2] / "examples" / "training"


@pytest.mark.parametrize("name", ["center_rectangle.baml", "listing_price.baml"])
def test_stripped_source_compiles_on_the_real_engine(name: str) -> None:
    bridge = pytest.importorskip("baml_bridge")
    from ingot.syntax.annotations import harvest
    from ingot.syntax.diagnostics import SourceFile

    text = (EXAMPLE / name).read_text(encoding="utf-8")
    bridge.BamlRuntime.initialize_runtime(".", {"main.baml": harvest(SourceFile("main.baml", text)).text})


def test_training_lowers_the_loss() -> None:
    run = subprocess.run([sys.executable, str(EXAMPLE / "train.py"), "--epochs", "8", "--samples", "128",
                          "--batch", "64"], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    losses = [float(m) for m in re.findall(r"loss\s+([0-9.]+)\s+scale", run.stdout)]
    assert len(losses) == 8  # one line per epoch
    assert losses[-1] < losses[0] / 10
