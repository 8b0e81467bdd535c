"""torch tensors standing in for BAML floats: the documented operators, on both tiers."""

from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch", reason="tensor floats need PyTorch (pip install -e '.[torch]')")

import ingot  # noqa: E402
from ingot.pack import TensorBranchError  # noqa: E402

SOURCE = """
function Arith(a: float, b: float) -> float[] {
  [a + b, a - b, a * b, a / b, a % b, -a, a + 1, 2.0 * a]
}
function Compare(a: float, b: float) -> bool[] {
  [a == b, a != b, a < b, a <= b, a > b, a >= b]
}
function Pick(a: float, b: float) -> float {
  if (a < b && !(a == 0.0)) { a } else { b }
}
"""
TIERS = ["interp", "compiled"]


@pytest.fixture(scope="module")
def program() -> ingot.Program:
    import ingot.pack.tensors  # noqa: F401 - registers torch.Tensor as a float stand-in

    return ingot.load(SOURCE)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize(("a", "b"), [(7.5, -2.0), (-7.5, 2.0), (3.0, 0.0), (0.0, 0.0)])
def test_arithmetic_matches_float_arithmetic(program: ingot.Program, tier: str, a: float, b: float) -> None:
    want = program.options(tier=tier).call("Arith", a=a, b=b)
    got = program.options(tier=tier).call("Arith", a=torch.tensor(a, dtype=torch.float64), b=b)
    for g, w in zip(got, want):
        assert isinstance(g, torch.Tensor)
        assert (math.isnan(w) and math.isnan(float(g))) or float(g) == w


@pytest.mark.parametrize("tier", TIERS)
def test_batched_arithmetic_is_elementwise(program: ingot.Program, tier: str) -> None:
    a = torch.tensor([1.0, -4.0, 9.0], dtype=torch.float64)
    got = program.options(tier=tier).call("Arith", a=a, b=torch.tensor(2.0, dtype=torch.float64))
    for i, x in enumerate(a.tolist()):
        assert [float(t[i]) for t in got] == program.options(tier=tier).call("Arith", a=x, b=2.0)


@pytest.mark.parametrize("tier", TIERS)
def test_comparisons_of_0d_tensors_decide_conditions(program: ingot.Program, tier: str) -> None:
    got = program.options(tier=tier).call("Compare", a=torch.tensor(2.0), b=2.0)
    assert [bool(t) for t in got] == [True, False, False, True, False, True]
    assert float(program.options(tier=tier).call("Pick", a=torch.tensor(1.0), b=2.0)) == 1.0
    assert program.options(tier=tier).call("Pick", a=torch.tensor(3.0), b=2.0) == 2.0


def test_batched_comparisons_are_elementwise_and_conditions_need_one_value(program: ingot.Program) -> None:
    # Calls with tensor arguments default to the interpreter, whose operators see every tensor.
    got = program.call("Compare", a=torch.tensor([1.0, 2.0]), b=2.0)
    assert [t.tolist() for t in got] == [[False, True], [True, False], [True, False], [True, True],
                                         [False, False], [False, True]]
    with pytest.raises(TensorBranchError, match="no single truth value"):
        program.call("Pick", a=torch.tensor([1.0, 3.0]), b=2.0)


def test_host_functions_return_tensors_to_baml_arithmetic() -> None:
    program = ingot.load("function Load() -> float {\n  @@ingot(host)\n  0.0\n}\n"
                         "function Use(x: float) -> float {\n  Load() * x + 1.0\n}\n")
    weight = torch.nn.Parameter(torch.tensor(3.0))
    program.bind("Load", lambda: weight)
    out = program.call("Use", x=2.0)
    assert float(out.detach()) == 7.0
    out.backward()
    assert float(weight.grad) == 2.0
