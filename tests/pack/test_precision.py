"""Batched evaluation in BAML's float precision: random programs with several paths.

Each example is a random BAML function (nested branches on input- and parameter-dependent
comparisons, arithmetic that cancels, a learnable host tensor) rendered twice: as BAML source,
and as a direct torch twin that runs the same statements on 0-d tensors with Python control
flow. Batched results must equal the VM's per-sample results to 1e-12 relative, and gradients
(to the host tensor and to the input columns) must equal torch.autograd on the twin.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch", reason="packing needs PyTorch (pip install -e '.[torch]')")

import ingot  # noqa: E402
from ingot.pack import BatchPlan  # noqa: E402

F64 = torch.float64
FLOATS = ("a", "b", "c")
LOCALS = ("t", "u")
PATHS: list[int] = []  # paths per example, to check the examples branch


@st.composite
def expressions(draw: Any, depth: int = 0) -> Any:
    if depth >= 3 or draw(st.integers(0, 3)) == 0:
        return draw(st.one_of(st.sampled_from([("var", v) for v in (*FLOATS, *LOCALS, "w")]),
                              st.floats(-4, 4, allow_nan=False).map(lambda x: ("const", round(x, 3)))))
    op = draw(st.sampled_from(["+", "-", "*", "/"]))
    return (op, draw(expressions(depth + 1)), draw(expressions(depth + 1)))


@st.composite
def statements(draw: Any, depth: int = 0) -> list[Any]:
    out = []
    for k in range(draw(st.integers(1, 3))):
        kinds = ["if", "if_int"] if depth == 0 and k == 0 else ["assign", "if", "if_int"] if depth < 2 else ["assign"]
        kind = draw(st.sampled_from(kinds))  # every program branches at least once
        if kind == "assign":
            out.append(("assign", draw(st.sampled_from(LOCALS)), draw(expressions())))
        elif kind == "if":
            out.append(("if", draw(expressions()), draw(expressions()), draw(statements(depth + 1)),
                        draw(statements(depth + 1))))
        else:
            out.append(("if_int", draw(st.integers(0, 3)), draw(statements(depth + 1)), draw(statements(depth + 1))))
    return out


def baml_expr(e: Any) -> str:
    if e[0] == "var":
        return e[1]
    if e[0] == "const":
        return repr(float(e[1]))
    if e[0] == "/":  # a divisor that is never zero
        return f"({baml_expr(e[1])} / ({baml_expr(e[2])} * {baml_expr(e[2])} + 1.0))"
    return f"({baml_expr(e[1])} {e[0]} {baml_expr(e[2])})"


def baml_block(body: list[Any], indent: str) -> str:
    lines = []
    for s in body:
        if s[0] == "assign":
            lines.append(f"{indent}{s[1]} = {baml_expr(s[2])};")
        elif s[0] == "if":
            lines.append(f"{indent}if ({baml_expr(s[1])} < {baml_expr(s[2])}) {{")
            lines += [baml_block(s[3], indent + "  "), f"{indent}}} else {{", baml_block(s[4], indent + "  "),
                      f"{indent}}}"]
        else:
            lines += [f"{indent}if (k > {s[1]}) {{", baml_block(s[2], indent + "  "), f"{indent}}} else {{",
                      baml_block(s[3], indent + "  "), f"{indent}}}"]
    return "\n".join(lines)


def baml_source(body: list[Any]) -> str:
    return ("class Out {\n  x float\n  y float\n}\n"
            "function W() -> float {\n  @@ingot(host)\n  1.0\n}\n"
            "function F(a: float, b: float, c: float, k: int) -> Out {\n"
            "  let w = W();\n  let t = a;\n  let u = b;\n"
            f"{baml_block(body, '  ')}\n  Out {{ x: t, y: u }}\n}}\n")


def twin(body: list[Any], env: dict[str, Any]) -> dict[str, Any]:
    """The same statements, directly on torch values with Python control flow."""
    def value(e: Any) -> Any:
        if e[0] == "var":
            return env[e[1]]
        if e[0] == "const":
            return float(e[1])
        a, b = value(e[1]), value(e[2])
        return a + b if e[0] == "+" else a - b if e[0] == "-" else a * b if e[0] == "*" else a / (b * b + 1.0)

    def run(block: list[Any]) -> None:
        for s in block:
            if s[0] == "assign":
                env[s[1]] = value(s[2])
            elif s[0] == "if":
                run(s[3] if bool(value(s[1]) < value(s[2])) else s[4])
            else:
                run(s[2] if env["k"] > s[1] else s[3])

    env.setdefault("t", env["a"])
    env.setdefault("u", env["b"])
    run(body)
    return {"x": env["t"], "y": env["u"]}


def columns(seed: int, n: int) -> dict[str, Any]:
    rng = random.Random(seed)
    return {"a": [rng.uniform(-3, 3) for _ in range(n)], "b": [rng.uniform(-3, 3) for _ in range(n)],
            "c": [rng.uniform(-3, 3) for _ in range(n)], "k": [rng.randint(0, 4) for _ in range(n)]}


def close(got: float, want: float) -> bool:
    return got == want or abs(got - want) <= 1e-12 * max(abs(want), abs(got))


@settings(max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(body=statements(), seed=st.integers(0, 2**16), merge=st.booleans())
def test_batched_results_equal_per_sample_runs_and_gradients_equal_the_twin(body: list[Any], seed: int,
                                                                             merge: bool) -> None:
    src = baml_source(body)
    reference, batched = ingot.load(src), ingot.load(src)
    reference.bind("W", lambda: 1.25)
    w = torch.nn.Parameter(torch.tensor(1.25, dtype=F64))
    batched.bind("W", lambda: w)
    data = columns(seed, 24)
    n = len(data["a"])

    # Column tensors that need gradients: the input columns are leaves of the graph.
    inputs = {k: torch.tensor(v, dtype=F64, requires_grad=True) for k, v in data.items() if k != "k"}
    plan = BatchPlan(batched, "F", {**inputs, "k": data["k"]}, merge=merge)
    out = plan.evaluate()
    PATHS.append(plan.paths)
    for i in range(n):
        want = reference.call("F", **{k: v[i] for k, v in data.items()})
        for field in ("x", "y"):
            assert close(out[field][i].item(), want[field]), (src, i, field, out[field][i].item(), want[field])

    weights = torch.linspace(-1.0, 2.0, n, dtype=F64)
    loss = (out["x"] * weights).sum() + (out["y"] ** 2).sum()
    got = torch.autograd.grad(loss, (w, *inputs.values()), allow_unused=True)

    w_twin = torch.tensor(1.25, dtype=F64, requires_grad=True)
    rows = {k: torch.tensor(v, dtype=F64, requires_grad=True) for k, v in data.items() if k != "k"}
    twin_loss = torch.zeros((), dtype=F64)
    for i in range(n):
        r = twin(body, {**{k: v[i] for k, v in rows.items()}, "k": data["k"][i], "w": w_twin})
        twin_loss = twin_loss + torch.as_tensor(r["x"], dtype=F64) * weights[i] + torch.as_tensor(r["y"], dtype=F64) ** 2
    want = torch.autograd.grad(twin_loss, (w_twin, *rows.values()), allow_unused=True)
    for g, t in zip(got, want):
        g = torch.zeros((), dtype=F64) if g is None else g
        t = torch.zeros((), dtype=F64) if t is None else t
        torch.testing.assert_close(g.expand_as(t) if g.dim() < t.dim() else g,
                                   t.expand_as(g) if t.dim() < g.dim() else t, rtol=1e-10, atol=1e-10)


def test_the_random_programs_take_several_paths() -> None:
    if len(PATHS) < 10:
        pytest.skip("runs after the property test")
    assert sum(p > 1 for p in PATHS) >= len(PATHS) // 3 and max(PATHS) >= 4


def test_samples_stack_as_float64_unless_the_caller_chooses() -> None:
    program = ingot.load("function H(h: float, w: float, m: float) -> float {\n  h * 2.0 - w + m\n}\n")
    rows = [{"h": 1e8 + 0.1, "w": 2e8, "m": 0.3}, {"h": 0.1, "w": 0.2, "m": 1e-9}]
    out = BatchPlan(program, "H", rows).evaluate()
    assert out.dtype == F64
    assert out.tolist() == [program.call("H", **r) for r in rows]  # exactly the VM's floats
    assert BatchPlan(program, "H", rows, dtype=torch.float32).evaluate().dtype == torch.float32


def test_device_places_inputs_and_outputs() -> None:
    program = ingot.load("function H(h: float, k: int) -> float {\n  if (k > 1) { h * 2.0 } else { 0.5 }\n}\n")
    plan = BatchPlan(program, "H", {"h": [1.0, 2.0, 3.0], "k": [0, 2, 3]}, merge=True, device="cpu")
    out = plan.evaluate()
    assert out.device.type == "cpu" and out.dtype == F64
    assert out.tolist() == [0.5, 4.0, 6.0]
