"""Nested and chained `catch` expressions on every executor, against the real engine.

A `catch` inside a protected expression, inside an arm, beside another one in
an operator, or chained after another: each gives the compiled tier a handler
region inside (or next to) another, and every shape must translate to valid
Python that catches where the interpreter catches. The shapes are generated
(a fixed seed) into one program; each function runs on both tiers, both
trackers and, where installed, the real engine.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

import ingot
from ingot.bex.compiled import CompiledVM
from ingot.bex.vm import VM
from ingot.concolic.explore import Explorer, Options
from ingot.convert import to_python
from ingot.runtime.errors import BamlError

HELPERS = """
class Stop {
  depth int
}
function Div(a: int, b: int) -> int {
  a / b
}
function Th(x: int) -> int {
  if (x == 1) { throw Stop { depth: 40 }; }
  x * 10
}
function Idx(x: int) -> int {
  let xs = [3, 4];
  xs[x]
}
"""

# What can go wrong with each atom, for x in 0..2: a panic, a thrown class value, another panic.
ATOMS = ["Div(10, x)", "Th(x)", "Idx(x)", "Div(x, 1)"]
ARMS = [
    "baml.panics.DivisionByZero => {k}",
    "let s: Stop => -s.depth",
    "let p: baml.panics.IndexOutOfBounds => {k} - p.index",
]
CATCH_ALL = ["_ => {k}", "baml.panics.Panic => {k}"]  # last, or the arms after it are unreachable
INPUTS = (0, 1, 2)


def _arms(rng: random.Random, depth: int) -> str:
    chosen = rng.sample(ARMS, rng.randint(0, 2))
    if not chosen or rng.random() < 0.4:
        chosen.append(rng.choice(CATCH_ALL))
    out = []
    for arm in chosen:
        text = arm.format(k=rng.randint(1, 9) * 100)
        if depth > 0 and rng.random() < 0.3 and "=>" in text and not text.startswith("let"):
            pattern = text.split("=>")[0]
            text = f"{pattern}=> ({_expr(rng, depth - 1)})"  # a catch inside an arm
        out.append(text)
    return ", ".join(out)


def _expr(rng: random.Random, depth: int) -> str:
    if depth == 0:
        return rng.choice(ATOMS)
    shape = rng.randrange(4)
    if shape == 0:  # chained: (E catch {...}) catch {...}
        return f"({_expr(rng, depth - 1)} catch (e) {{ {_arms(rng, depth - 1)} }}) catch (e) {{ {_arms(rng, 0)} }}"
    if shape == 1:  # nested in the protected expression of another catch
        return f"({_expr(rng, depth - 1)} + {rng.choice(ATOMS)}) catch (e) {{ {_arms(rng, depth - 1)} }}"
    if shape == 2:  # two catches as operands
        return (f"({_expr(rng, depth - 1)} catch (e) {{ {_arms(rng, 0)} }}) + "
                f"({rng.choice(ATOMS)} catch (e) {{ {_arms(rng, 0)} }})")
    return f"{_expr(rng, depth - 1)} catch (e) {{ {_arms(rng, depth - 1)} }}"


def _body(rng: random.Random, expr: str) -> str:
    """The expression as a function body: a tail, a `let`, a `return` or a branch."""
    form = rng.randrange(4)
    if form == 0:
        return f"  {expr}"
    if form == 1:
        return f"  let r = {expr};\n  r + 1"
    if form == 2:
        return f"  if (x > 0) {{\n    return {expr};\n  }}\n  {expr}"
    return f"  let t = 0;\n  for (let i in [1, 2]) {{\n    t = t + ({expr});\n  }}\n  t"


@cache
def source() -> tuple[str, tuple[str, ...]]:
    rng = random.Random(14)
    functions = []
    names = []
    for i in range(36):
        name = f"Shape{i}"
        expr = _expr(rng, 1 + i % 3)
        functions.append(f"function {name}(x: int) -> int {{\n{_body(rng, expr)}\n}}")
        names.append(name)
    return HELPERS + "\n".join(functions) + "\n", tuple(names)


@cache
def program() -> ingot.Program:
    return ingot.load_source(source()[0])


def outcome(vm_class: type[VM], fn: str, x: int) -> tuple[Any, ...]:
    p = program()
    vm = vm_class(p.bex, llm=p.llm_handler(None))
    try:
        return ("ok", to_python(vm.call(p.function(fn), [x])))
    except BamlError as e:
        return ("error", e.kind, e.message, [str(f) for f in e.trace])


def tracked(tracker: str, fn: str, x: int) -> tuple[Any, ...]:
    run = Explorer(program().view, fn, Options(tracker=tracker)).run({"x": x})
    error = run.outcome.error
    if error is None:
        return ("ok", run.outcome.value)
    return ("error", error.kind, error.message, [str(f) for f in error.trace])


def test_the_shapes_nest_and_chain_catches() -> None:
    text, names = source()
    assert text.count("catch (e)") >= 3 * len(names)
    assert ") catch (e)" in text and "=> (" in text  # chained, and a catch inside an arm


@pytest.mark.parametrize("fn", source()[1])
def test_both_tiers_and_both_trackers_agree(fn: str) -> None:
    for x in INPUTS:
        expected = outcome(VM, fn, x)
        assert outcome(CompiledVM, fn, x) == expected, (fn, x)
        assert tracked("interp", fn, x) == tracked("compiled", fn, x), (fn, x)


def test_the_engine_agrees() -> None:
    b = pytest.importorskip("baml_bridge")
    pydantic = pytest.importorskip("pydantic")
    from baml_bridge.typemap import BamlTypeMap, set_type_map

    class AnyClass(BamlTypeMap):  # decode the panic values the engine returns (no codegen here)
        def get_class(self, fqn: str) -> Any:
            return pydantic.create_model(fqn.replace(".", "_"), __config__=pydantic.ConfigDict(extra="allow"))

    text, names = source()
    runtime = b.BamlRuntime.initialize_runtime(".", {"main.baml": text})
    set_type_map(AnyClass())
    try:
        compare_with_engine(b, runtime, names)
    finally:
        set_type_map(BamlTypeMap())


def compare_with_engine(b: Any, runtime: Any, names: tuple[str, ...]) -> None:
    for fn in names:
        for x in INPUTS:
            try:
                engine: tuple[Any, ...] = ("ok", b.call_function_sync(runtime, fn, {"x": x}).result())
            except BaseException as e:  # noqa: BLE001 - the engine's panics derive from BaseException
                kind = getattr(e, "class_name", None)
                if not kind:
                    raise
                engine = ("error", kind.rsplit(".", 1)[-1])
            ours = outcome(CompiledVM, fn, x)
            assert ours[:2] == engine, (fn, x, ours, engine)
