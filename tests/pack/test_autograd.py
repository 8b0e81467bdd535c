"""Gradients through packed graphs: gradcheck, a hand-written torch twin, learnable host tensors, NaN-free merges."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="packing needs PyTorch (pip install -e '.[torch]')")

import ingot  # noqa: E402
from ingot.pack import BatchPlan, pack  # noqa: E402

EXAMPLE = Path(__file__).parents[2] / "examples" / "training" / "center_rectangle.baml"
F64 = torch.float64


def rectangle_program(scale: torch.Tensor, margin: torch.Tensor) -> ingot.Program:
    program = ingot.load(EXAMPLE)
    program.bind("RenderScale", lambda: scale)
    program.bind("Margin", lambda: margin)
    return program


def hand_written(w: torch.Tensor, h: torch.Tensor, cw: torch.Tensor, ch: torch.Tensor,
                 scale: torch.Tensor, margin: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """CenterRectangle for centred rectangles, written directly in torch."""
    x = (cw - w * scale) / 2.0
    y = (ch - h * scale) / 2.0
    return torch.where(x < margin, margin, x), torch.where(y < margin, margin, y)


def test_gradcheck_on_a_packed_graph() -> None:
    scale = torch.tensor(0.9, dtype=F64)
    margin = torch.tensor(1.0, dtype=F64)
    program = rectangle_program(scale, margin)
    sample = {"dims": {"width": 20.0, "height": 10.0, "canvas_width": 60.0, "canvas_height": 40.0,
                       "anchor": "Center"}}
    p = pack(program, "CenterRectangle", sample, dtype=F64)
    gm = p.to_fx()
    inputs = tuple(t.requires_grad_() for t in p.arguments([sample, {"dims": {**sample["dims"], "width": 25.0}}]))
    assert torch.autograd.gradcheck(lambda *a: tuple(gm(*a).values()), inputs)
    assert torch.autograd.gradgradcheck(lambda *a: tuple(gm(*a).values()), inputs)


def test_gradients_equal_a_hand_written_torch_version_and_reach_learnable_tensors() -> None:
    scale = torch.nn.Parameter(torch.tensor(1.1, dtype=F64))
    margin = torch.nn.Parameter(torch.tensor(3.0, dtype=F64))
    program = rectangle_program(scale, margin)
    g = torch.Generator().manual_seed(0)
    n = 64
    cw, ch = 40 + 80 * torch.rand(n, generator=g, dtype=F64), 40 + 80 * torch.rand(n, generator=g, dtype=F64)
    w, h = 5 + 1.3 * cw * torch.rand(n, generator=g, dtype=F64), 5 + 1.3 * ch * torch.rand(n, generator=g, dtype=F64)
    samples = [{"dims": {"width": float(w[i]), "height": float(h[i]), "canvas_width": float(cw[i]),
                         "canvas_height": float(ch[i]), "anchor": "Center"}} for i in range(n)]
    for merge in (False, True):
        out = BatchPlan(program, "CenterRectangle", samples, merge=merge, dtype=F64).evaluate()
        loss = (out["x"] ** 2).sum() + (3 * out["y"]).sum()
        got = torch.autograd.grad(loss, (scale, margin))
        x, y = hand_written(w, h, cw, ch, scale, margin)
        want = torch.autograd.grad((x ** 2).sum() + (3 * y).sum(), (scale, margin))
        torch.testing.assert_close(out["x"], x)
        torch.testing.assert_close(out["y"], y)
        torch.testing.assert_close(got, want)
        assert all(float(t.abs()) > 0 for t in got)  # both parameters are reached


def test_merged_graphs_leak_no_nan_from_the_path_a_row_did_not_take() -> None:
    src = "function Root(x: float) -> float {\n  @@ingot(host)\n  x\n}\n" \
          "function Dist(x: float) -> float {\n  if (x > 0.0) { Root(x) } else { -x }\n}\n"
    program = ingot.load(src)
    program.bind("Root", torch.sqrt)
    xs = [4.0, -1.0, 0.25, -9.0, 0.0]
    plan = BatchPlan(program, "Dist", [{"x": x} for x in xs], merge=True, dtype=F64)
    assert plan.merged and not plan.groups  # one masked graph for both paths
    x = torch.tensor(xs, dtype=F64, requires_grad=True)
    out, _ = plan.merged[0](x)
    (grad,) = torch.autograd.grad(out.sum(), x)
    assert torch.isfinite(grad).all()
    assert grad.tolist() == [0.25, -1.0, 1.0, -1.0, -1.0]
    # The naive merge would have produced NaN at the negative rows.
    naive = torch.tensor(xs, dtype=F64, requires_grad=True)
    (bad,) = torch.autograd.grad(torch.where(naive > 0, torch.sqrt(naive), -naive).sum(), naive)
    assert torch.isnan(bad).any()
    assert torch.autograd.gradcheck(lambda t: plan.merged[0](t)[0], (torch.tensor([4.0, -1.0, 0.5], dtype=F64,
                                                                         requires_grad=True),))
