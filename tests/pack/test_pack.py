"""Packing: residual graphs, guards, batching by path, equal to running each sample."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="packing needs PyTorch (pip install -e '.[torch]')")

import ingot  # noqa: E402
from ingot.pack import BatchPlan, PackError, pack, pack_batch  # noqa: E402

HERE = Path(__file__).parent
EXAMPLE = HERE.parents[1] / "examples" / "training" / "center_rectangle.baml"


def gain(t: Any) -> Any:
    return torch.tanh(torch.as_tensor(t, dtype=torch.float64) / 50.0) * 20.0


@pytest.fixture
def prep() -> ingot.Program:
    program = ingot.load(HERE / "prep.baml")
    program.bind("Gain", gain)
    return program


def random_items(rng: random.Random, n: int) -> list[dict[str, Any]]:
    return [{"w": rng.uniform(0.1, 4.0), "h": rng.uniform(0.1, 4.0), "count": rng.randint(0, 4),
             "shape": rng.choice(["Box", "Disc"]), "tag": rng.choice([None, "x"])} for _ in range(n)]


def random_samples(seed: int, n: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    # Two array lengths and few shapes, so layouts repeat and paths share groups.
    return [{"items": random_items(rng, rng.choice([1, 2])), "bias": rng.uniform(-2.0, 2.0)} for _ in range(n)]


def as_float(v: Any) -> float:
    return float(v)


def test_pack_keeps_the_residual_guard_and_host_calls(prep: ingot.Program) -> None:
    sample = {"items": [{"w": 2.0, "h": 3.0, "count": 3, "shape": "Box", "tag": None}], "bias": 0.5}
    p = pack(prep, "Prep", sample, dtype=torch.float64)
    assert p.inputs == ("items[0].w", "items[0].h", "items[0].count", "bias")
    assert [c.function for c in p.host_calls] == ["Gain"]
    assert set(p.output) == {"score", "load", "heavy"}
    assert p.output["heavy"] == 1  # no input decides it on this path: a constant
    assert len(p.guard) == 2  # count > 2 and the gain test (shape and tag are layout)
    assert p.matches(sample)
    assert p.matches({**sample, "bias": 0.25})
    assert not p.matches({"items": [{**sample["items"][0], "count": 1}], "bias": 0.5})  # other branch
    assert not p.matches({"items": [{**sample["items"][0], "shape": "Disc"}], "bias": 0.5})  # other layout
    assert not p.matches({"items": sample["items"] * 2, "bias": 0.5})  # other length
    gm = p.to_fx()
    assert isinstance(gm, torch.fx.GraphModule)
    assert gain in {n.target for n in gm.graph.nodes if n.op == "call_function"}  # the host call is a node
    expected = prep.call("Prep", **sample)
    out = p(sample)
    assert as_float(out["score"]) == pytest.approx(as_float(expected["score"]))
    assert as_float(out["load"]) == pytest.approx(expected["load"])


@pytest.mark.parametrize("merge", [False, True])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_batches_equal_per_sample_execution(prep: ingot.Program, merge: bool, seed: int) -> None:
    samples = random_samples(seed, 120)
    plan = BatchPlan(prep, "Prep", samples, merge=merge, dtype=torch.float64)
    out = plan.evaluate()
    assert plan.paths > 4  # several paths per layout, several layouts
    for i, s in enumerate(samples):
        ref = prep.call("Prep", **s)
        assert as_float(out["score"][i]) == pytest.approx(as_float(ref["score"]), rel=1e-12, abs=1e-12)
        assert as_float(out["load"][i]) == pytest.approx(ref["load"], rel=1e-12, abs=1e-12)
        assert int(out["heavy"][i]) == ref["heavy"]


def test_scalar_outputs_come_back_as_one_tensor_in_sample_order() -> None:
    program = ingot.load("function Clip(x: float, lo: float) -> float {\n  if (x < lo) { lo } else { x * 2.0 }\n}\n")
    xs = [0.5, -1.0, 2.0, -3.0, 0.0]
    out = pack_batch(program, "Clip", [{"x": x, "lo": 0.0} for x in xs], dtype=torch.float64)
    assert isinstance(out, torch.Tensor) and out.shape == (5,)
    assert out.tolist() == [program.call("Clip", x=x, lo=0.0) for x in xs]


def test_outputs_that_differ_in_shape_come_back_per_sample() -> None:
    src = "function Reps(n: int, x: float) -> float[] {\n  let out: float[] = [];\n" \
          "  for (let i = 0; i < n; i += 1) { out.push(x * i) }\n  out\n}\n"
    program = ingot.load(src)
    samples = [{"n": n, "x": 1.5} for n in (2, 0, 3)]
    out = pack_batch(program, "Reps", samples, dtype=torch.float64)
    assert [[float(v) for v in o] for o in out] == [program.call("Reps", **s) for s in samples]


def test_guards_over_learnable_tensors_replan_when_parameters_move() -> None:
    program = ingot.load(EXAMPLE)
    scale = torch.nn.Parameter(torch.tensor(1.0, dtype=torch.float64))
    program.bind("RenderScale", lambda: scale)
    program.bind("Margin", lambda: torch.tensor(2.0, dtype=torch.float64))
    dims = {"width": 50.0, "height": 10.0, "canvas_width": 60.0, "canvas_height": 60.0, "anchor": "Center"}
    plan = BatchPlan(program, "CenterRectangle", [{"dims": dims}], dtype=torch.float64)
    assert float(plan.evaluate()["x"][0].detach()) == pytest.approx(5.0)
    with torch.no_grad():
        scale.fill_(1.5)  # now the rectangle is wider than the canvas: pinned to the margin
    assert float(plan.evaluate()["x"][0].detach()) == pytest.approx(2.0)


def test_bad_samples_and_panics_are_reported(prep: ingot.Program) -> None:
    with pytest.raises(ingot.ArgumentError) as e:
        pack(prep, "Prep", {"items": [{"w": "wide"}], "bias": 0.5})
    assert e.value.path.startswith("args.items[0]")
    program = ingot.load("function Div(a: int, b: int) -> int {\n  a / b\n}\n")
    with pytest.raises(ingot.BamlError) as err:
        pack(program, "Div", {"a": 1, "b": 0})
    assert err.value.kind == "DivisionByZero"
    p = pack(program, "Div", {"a": 7, "b": 2})
    assert not p.matches({"a": 7, "b": 0})  # the division check is part of the guard
    assert int(pack_batch(program, "Div", [{"a": -7, "b": 2}])[0]) == -3  # truncating, as in BAML


def test_llm_functions_cannot_be_packed() -> None:
    src = 'client C = openai.ChatClient.new(model = "m")\n' \
          'function Ask(q: string) -> float {\n  client: C\n  prompt: `${q}`\n}\n' \
          'function Use(q: string) -> float {\n  Ask(q) * 2.0\n}\n'
    program = ingot.load(src)
    with pytest.raises(PackError, match="LLM function"):
        pack(program, "Use", {"q": "x"})


def test_any_callable_can_be_a_host_node() -> None:
    class Scale:  # a callable object: fx cannot name it, so the graph calls it through a named function
        def __call__(self, t: Any) -> Any:
            return t * 3.0

    namespace: dict[str, Any] = {"torch": torch}
    exec("double = lambda t: t * 2.0", namespace)  # a lambda without source text
    program = ingot.load("function A(x: float) -> float {\n  @@ingot(host)\n  x\n}\n"
                         "function B(x: float) -> float {\n  @@ingot(host)\n  x\n}\n"
                         "function F(x: float) -> float {\n  A(x) + B(x)\n}\n")
    program.bind("A", Scale())
    program.bind("B", namespace["double"])
    out = pack_batch(program, "F", [{"x": 1.0}, {"x": 2.0}], dtype=torch.float64)
    assert out.tolist() == [5.0, 10.0]


def test_a_sample_that_panics_is_named_and_fixed_tensors_pin_the_guard() -> None:
    program = ingot.load("function W() -> float {\n  @@ingot(host)\n  0.0\n}\n"
                         "function F(x: int) -> string {\n  let w = W() * 2.0;\n  assert.is_true(x < 3);\n  `${w}`\n}\n")
    weight = torch.tensor(1.5, dtype=torch.float64)
    program.bind("W", lambda: weight)
    with pytest.raises(ingot.BamlError) as e:
        pack_batch(program, "F", [{"x": 1}, {"x": 5}])
    assert "while packing sample 1 of 2" in "\n".join(getattr(e.value, "__notes__", []))
    p = pack(program, "F", {"x": 1})
    assert p.output == "3.0"  # a string: the tensor was fixed to its value ...
    assert p.matches({"x": 2})
    weight.fill_(2.0)
    assert not p.matches({"x": 2})  # ... and the guard says so
