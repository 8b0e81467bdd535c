"""BAML functions inside torch.compile: one opaque call, zero graph breaks, eager outputs and gradients."""

from __future__ import annotations

from typing import Any

import pytest

torch = pytest.importorskip("torch", reason="the torch bridge needs PyTorch (pip install -e '.[torch]')")

import ingot  # noqa: E402
from ingot.pack import BridgeError, TensorBranchError, as_torch_function, compile, unwrap_error  # noqa: E402

SOURCE = """
class Features {
  value float
  weight float
}
function Softplus(t: float) -> float {
  @@ingot(host)
  t
}
function Mix(x: float, w: float, mode: int) -> Features {
  let h = Softplus(x * w);
  if (mode > 1) {
    Features { value: h * 2.0, weight: x - w }
  } else {
    Features { value: h + x, weight: w * w / 2.0 }
  }
}
function Sign(x: float) -> float {
  if (x > 0.0) { x } else { -x }
}
function Name(x: float) -> string {
  "x"
}
"""


def softplus(t: Any) -> Any:
    return torch.log1p(torch.exp(t))


@pytest.fixture
def program() -> ingot.Program:
    p = ingot.load(SOURCE)
    p.bind("Softplus", softplus)
    return p


class Model(torch.nn.Module):
    def __init__(self, mix: Any) -> None:
        super().__init__()
        self.mix = mix
        self.w = torch.nn.Parameter(torch.linspace(-1.0, 1.0, 4))

    def forward(self, x: torch.Tensor, mode: int) -> torch.Tensor:
        f = self.mix(x, self.w, mode)  # tensors reach BAML as arguments
        return (f["value"] * f["weight"]).sum()


def check_compiled_matches_eager(program: ingot.Program, backend: str) -> None:
    torch._dynamo.reset()
    model = Model(as_torch_function(program, "Mix"))
    compiled = torch.compile(model, backend=backend, fullgraph=True)
    x = torch.randn(4, generator=torch.Generator().manual_seed(0))
    for mode in (0, 2, 1):
        eager = model(x, mode)
        (eager_grad,) = torch.autograd.grad(eager, model.w)
        got = compiled(x, mode)
        (got_grad,) = torch.autograd.grad(got, model.w)
        torch.testing.assert_close(got, eager)
        torch.testing.assert_close(got_grad, eager_grad)


def test_compiles_with_fullgraph_and_matches_eager(program: ingot.Program) -> None:
    check_compiled_matches_eager(program, "aot_eager")
    torch._dynamo.reset()
    explained = torch._dynamo.explain(Model(as_torch_function(program, "Mix")))(torch.randn(4), 2)
    assert explained.graph_count == 1 and explained.graph_break_count == 0


@pytest.mark.slow
def test_compiles_with_inductor(program: ingot.Program) -> None:
    check_compiled_matches_eager(program, "inductor")


def test_eager_calls_take_positional_or_keyword_arguments(program: ingot.Program) -> None:
    mix = as_torch_function(program, "Mix")
    x, w = torch.tensor(0.5), torch.tensor(2.0)
    assert mix(x, w, 2) == mix(x=x, w=w, mode=2)
    assert float(mix(x, w, 2)["value"]) == pytest.approx(float(softplus(x * w) * 2))
    with pytest.raises(ingot.ArgumentError, match="args.mode"):
        mix(x, w)


def test_branching_on_a_tensor_while_tracing_is_an_ingot_error(program: ingot.Program) -> None:
    sign = as_torch_function(program, "Sign")
    assert float(sign(torch.tensor(-2.0))) == 2.0  # eager: a 0-d tensor has a truth value
    with pytest.raises(TensorBranchError, match="batched|shape"):
        sign(torch.tensor([1.0, -1.0]))

    class Signed(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return sign(x)

    torch._dynamo.reset()
    with pytest.raises(TensorBranchError, match="while torch traces"):
        compile(Signed(), backend="aot_eager", fullgraph=True)(torch.tensor(1.0))
    torch._dynamo.reset()
    with pytest.raises(Exception) as wrapped:  # plain torch.compile: Dynamo wraps it ...
        torch.compile(Signed(), backend="aot_eager", fullgraph=True)(torch.tensor(1.0))
    assert isinstance(unwrap_error(wrapped.value), TensorBranchError)  # ... and unwrap_error finds it


def test_strings_cannot_leave_and_llm_functions_cannot_run(program: ingot.Program) -> None:
    with pytest.raises(BridgeError, match="returns a string"):
        as_torch_function(program, "Name")(torch.tensor(1.0))
    llm = ingot.load('client C = openai.ChatClient.new(model = "m")\n'
                     'function Ask(x: float) -> float {\n  client: C\n  prompt: `${x}`\n}\n'
                     'function Use(x: float) -> float {\n  Ask(x) + 1.0\n}\n')
    with pytest.raises(BridgeError, match="LLM function"):
        as_torch_function(llm, "Use")(torch.tensor(1.0))


def test_two_baml_functions_in_one_compiled_module() -> None:
    # nonstrict_trace wrappers share one code object; each must still run its own function.
    program = ingot.load("function A(x: float) -> float { x * 2.0 }\nfunction B(x: float) -> float { x + 10.0 }\n")
    a, b = as_torch_function(program, "A"), as_torch_function(program, "B")

    class Both(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return a(x) * b(x)

    torch._dynamo.reset()
    x = torch.tensor([1.0, 2.0])
    assert torch.compile(Both(), backend="aot_eager", fullgraph=True)(x).tolist() == [22.0, 48.0]
