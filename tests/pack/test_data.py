"""Packing with torch.utils.data: collate in worker processes, paths reused across batches, DDP."""

from __future__ import annotations

import json
import pickle
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="packing needs PyTorch (pip install -e '.[torch]')")
from torch.utils.data import DataLoader  # noqa: E402

import ingot  # noqa: E402
from ingot.pack import BatchPlan, PackCollate, Packed, SampleDataset, SampleStream  # noqa: E402

EXAMPLE = Path(__file__).parents[2] / "examples" / "training"
sys.path.insert(0, str(EXAMPLE))
import train_model  # noqa: E402 - the example, imported to run its training in this process


def price_program() -> tuple[ingot.Program, Packed]:
    return train_model.build(seed=0)


@pytest.mark.parametrize("workers", [0, 2])
def test_batches_collated_in_workers_equal_the_vm_and_reuse_paths(workers: int) -> None:
    program, packed = price_program()
    samples, prices = train_model.generate(96, seed=3)
    loader = DataLoader(SampleDataset(samples, prices), batch_size=32, num_workers=workers,
                        collate_fn=PackCollate(program, "Price"))
    with torch.no_grad():
        outs = [(packed(batch), target) for batch, target in loader]
        paths = packed.paths
        again = [float(packed(b)[0]) for b, _ in loader]  # a second epoch packs nothing new
    assert packed.paths == paths
    assert again == [float(o[0]) for o, _ in outs]
    got = torch.cat([o for o, _ in outs])
    assert torch.equal(torch.cat([t for _, t in outs]), prices)  # targets collated alongside, in order
    for i in range(0, 96, 7):
        assert got[i].item() == pytest.approx(program.call("Price", **samples[i]).item(), rel=1e-12)


def test_the_collate_function_crosses_to_spawned_workers() -> None:
    program, _ = price_program()
    collate = pickle.loads(pickle.dumps(PackCollate(program, "Price")))  # the program stays behind ...
    samples, _ = train_model.generate(8, seed=1)
    extracted = collate(samples)  # ... and is loaded again from its source
    assert extracted.size == 8 and sum(len(p.rows) for p in extracted.parts) == 8
    bad = [*samples[:3], {"listing": {**samples[3]["listing"], "rooms": 2.5}}]
    with pytest.raises(ingot.ArgumentError) as e:
        collate(bad)
    assert e.value.path == "args.listing.rooms"
    assert "in sample 3 of 4" in "\n".join(getattr(e.value, "__notes__", []))


def test_a_stream_is_split_between_workers() -> None:
    program = ingot.load("function Twice(x: float) -> float {\n  x * 2.0\n}\n")
    stream = SampleStream(lambda: ({"x": float(i)} for i in range(40)))
    loader = DataLoader(stream, batch_size=8, num_workers=2, collate_fn=PackCollate(program, "Twice"))
    packed = Packed(program, "Twice")
    seen = sorted(v for batch in loader for v in packed(batch).tolist())
    assert seen == [2.0 * i for i in range(40)]


def test_guard_flips_replace_only_the_rows_that_left_their_path() -> None:
    program = ingot.load(EXAMPLE / "center_rectangle.baml")
    scale = torch.nn.Parameter(torch.tensor(1.0, dtype=torch.float64))
    program.bind("RenderScale", lambda: scale)
    program.bind("Margin", lambda: torch.tensor(2.0, dtype=torch.float64))
    widths = [10.0, 20.0, 52.0, 55.0]
    rows = [{"dims": {"width": w, "height": 10.0, "canvas_width": 60.0, "canvas_height": 60.0,
                      "anchor": "Center"}} for w in widths]
    for merge in (False, True):
        plan = BatchPlan(program, "CenterRectangle", rows, merge=merge)
        assert plan.paths == 1 and plan.evaluate()["x"].tolist() == [25.0, 20.0, 4.0, 2.5]
        with torch.no_grad():
            scale.fill_(1.1)  # the two wide rectangles no longer fit: pinned to the margin
        out = plan.evaluate()["x"]
        assert plan.paths == 2  # one new pack, for the rows that moved
        assert out.tolist() == pytest.approx([(60 - w * 1.1) / 2 if w < 52 else 2.0 for w in widths])
        with torch.no_grad():
            scale.fill_(1.0)
        assert plan.evaluate()["x"].tolist() == [25.0, 20.0, 4.0, 2.5]
        assert plan.paths == 2  # back on a known path: nothing packed


def test_columns_and_rows_give_the_same_plan() -> None:
    program = ingot.load(EXAMPLE / "center_rectangle.baml")
    program.bind("RenderScale", lambda: torch.tensor(0.9, dtype=torch.float64))
    program.bind("Margin", lambda: torch.tensor(2.0, dtype=torch.float64))
    rows = [{"dims": {"width": 10.0 * k, "height": 30.0, "canvas_width": 60.0, "canvas_height": 50.0,
                      "anchor": "TopLeft" if k % 3 == 0 else "Center"}} for k in range(1, 9)]
    columns: dict[str, Any] = {"dims": {
        "width": torch.tensor([r["dims"]["width"] for r in rows], dtype=torch.float64),
        "height": [30.0] * 8, "canvas_width": [60] * 8, "canvas_height": torch.full((8,), 50.0),
        "anchor": [r["dims"]["anchor"] for r in rows]}}
    by_rows = BatchPlan(program, "CenterRectangle", rows, merge=True).evaluate()
    by_columns = BatchPlan(program, "CenterRectangle", columns, merge=True).evaluate()
    assert all(torch.equal(by_rows[k], by_columns[k]) for k in ("x", "y"))
    with pytest.raises(ingot.ArgumentError) as e:
        BatchPlan(program, "CenterRectangle", {"dims": {**columns["dims"], "anchor": ["Center"] * 7 + ["Middle"]}})
    assert e.value.path == "args.dims.anchor" and "in sample 7 of 8" in "\n".join(e.value.__notes__)
    with pytest.raises(ingot.ArgumentError, match="has 7 rows"):
        BatchPlan(program, "CenterRectangle", {"dims": {**columns["dims"], "height": [30.0] * 7}})


def ddp_curve(tmp_path: Path, argv: list[str]) -> list[dict[str, float]]:
    record = tmp_path / "curve.json"
    run = subprocess.run([sys.executable, str(EXAMPLE / "train_model.py"), *argv, "--record", str(record)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(record.read_text(encoding="utf-8"))


def assert_same_curve(got: list[dict[str, float]], want: list[dict[str, float]]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g["lr"] == w["lr"]
        assert g["train"] == pytest.approx(w["train"], rel=1e-6)
        assert g["validation"] == pytest.approx(w["validation"], rel=1e-6)


SMALL = ["--epochs", "2", "--samples", "64", "--batch", "16"]


def test_ddp_on_two_processes_matches_the_single_process_loss(tmp_path: Path) -> None:
    threads = torch.get_num_threads()
    try:
        single = train_model.train(train_model.parse(SMALL))
    finally:
        torch.set_num_threads(threads)
    assert_same_curve(ddp_curve(tmp_path, [*SMALL, "--ddp", "2"]), single)


@pytest.mark.slow
def test_torchrun_ddp_with_loader_workers_matches_the_single_process_loss(tmp_path: Path) -> None:
    argv = ["--epochs", "6", "--samples", "512", "--batch", "64"]
    torchrun = shutil.which("torchrun")
    if torchrun is None:
        pytest.skip("torchrun is not on PATH")
    record = tmp_path / "curve.json"
    run = subprocess.run([torchrun, "--nproc-per-node", "2", str(EXAMPLE / "train_model.py"), *argv,
                          "--workers", "2", "--record", str(record)], capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr[-3000:]
    curve = json.loads(record.read_text(encoding="utf-8"))
    threads = torch.get_num_threads()
    try:
        assert_same_curve(curve, train_model.train(train_model.parse(argv)))
    finally:
        torch.set_num_threads(threads)
    assert curve[-1]["train"] < curve[0]["train"] / 4


def test_optional_bool_int_and_string_fields_are_read_column_wise() -> None:
    program = ingot.load("class Row {\n  x float?\n  flag bool\n  n int\n  label string\n}\n"
                         "function F(r: Row, bias: float) -> float {\n  let out = bias;\n  let x = r.x;\n"
                         "  if (x != null) { out = out + x * 2.0 }\n"
                         "  if (r.flag) { out = out - r.n } else { out = out + r.n * 0.5 }\n"
                         "  if (r.label == \"big\") { out = out * 10.0 }\n  out\n}\n")
    rows: list[dict[str, Any]] = [
        {"r": {"x": None if i % 3 == 0 else i * 0.25, "flag": i % 2 == 0, "n": i,
               "label": "big" if i % 4 == 0 else "small"}, "bias": 0.1 * i} for i in range(12)]
    del rows[5]["r"]["x"]  # a missing optional field is null
    want = [program.call("F", **r) for r in rows]
    assert BatchPlan(program, "F", rows, merge=True).evaluate().tolist() == want
    columns = {"r": {"x": [r["r"].get("x") for r in rows], "flag": torch.tensor([r["r"]["flag"] for r in rows]),
                     "n": [r["r"]["n"] for r in rows], "label": [r["r"]["label"] for r in rows]},
               "bias": [r["bias"] for r in rows]}
    assert BatchPlan(program, "F", columns).evaluate().tolist() == want
    with pytest.raises(ingot.ArgumentError) as e:
        BatchPlan(program, "F", [*rows[:2], {"r": {**rows[2]["r"], "n": 1.5}, "bias": 0.0}])
    assert e.value.path == "args.r.n" and "in sample 2 of 3" in "\n".join(e.value.__notes__)
