"""Every opcode on every executor: the interpreter, the compiled tier and both trackers.

The table below holds, per opcode, a small BAML function whose bytecode contains
it and inputs that take each of its paths (the fast path, the runtime's slow
path, its panics). Each case runs on the four executors and must give the same
value, or the same panic with the same message and trace. A test checks that
the table covers every row of `ingot.bex.opcodes.OPCODES`, so a new opcode
without a case, or an executor without an arm for it, fails here.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

import ingot
from ingot.bex.compiled import CompiledVM
from ingot.bex.opcodes import Op, stack_effect
from ingot.bex.program import PRELUDE_PREFIX
from ingot.bex.vm import VM
from ingot.concolic.explore import Explorer, Options
from ingot.convert import to_python
from ingot.runtime.errors import BamlError

# opcode -> (BAML source defining F(x: int), inputs for x)
CASES: dict[Op, tuple[str, tuple[int, ...]]] = {
    Op.LOAD_CONST: ("function F(x: int) -> string { \"k\" }", (0,)),
    Op.LOAD_LOCAL: ("function F(x: int) -> int { x }", (0, 5)),
    Op.STORE_LOCAL: ("function F(x: int) -> int { let y = x; y }", (3,)),
    Op.LOAD_DEREF: ("function F(x: int) -> int { let y = x; let g = () -> int { y }; y = y + 1; g() + y }", (2,)),
    Op.STORE_DEREF: ("function F(x: int) -> int { let y = 0; let g = () -> int { y }; y = x; g() }", (4,)),
    Op.NEW_CELL: ("function F(x: int) -> int { let y = x; let g = () -> int { y * 2 }; g() }", (4,)),
    Op.LOAD_CELL: ("function F(x: int) -> int { let y = x; let g = () -> int { y + 1 }; g() }", (4,)),
    Op.LOAD_CAPTURE: ("function F(x: int) -> int { let g = () -> int { x + 1 }; g() }", (1, 9)),
    Op.STORE_CAPTURE: ("function F(x: int) -> int { let y = 0; let g = () -> int { y = x; 0 }; g(); y }", (7,)),
    Op.LOAD_CAPTURE_CELL: ("function F(x: int) -> int {\n let y = x;\n let g = () -> int {"
                           " let h = () -> int { y = y + 1; y }; h() };\n g() + y\n}", (3,)),
    Op.LOAD_GLOBAL: ("const K = [1, 2, 3];\nfunction F(x: int) -> int { K[x] }", (0, 2, 3)),
    Op.ADD: ("function F(x: int) -> int { x + 4611686018427387900 }", (1, 3, 4)),
    Op.SUB: ("function F(x: int) -> int { x - 4611686018427387900 }", (-4, -5, 0)),
    Op.MUL: ("function F(x: int) -> int { x * 2305843009213693952 }", (0, 1, 2, -2)),
    Op.DIV: ("function F(x: int) -> int { 7 / x }", (2, -2, 0)),
    Op.MOD: ("function F(x: int) -> int { -7 % x }", (2, -2, 0)),
    Op.BIT_AND: ("function F(x: int) -> int { x & 6 }", (3, -1)),
    Op.BIT_OR: ("function F(x: int) -> int { x | 6 }", (3, -8)),
    Op.BIT_XOR: ("function F(x: int) -> int { x ^ 6 }", (3, -8)),
    Op.SHL: ("function F(x: int) -> int { 3 << x }", (2, 62, 64, -1)),
    Op.SHR: ("function F(x: int) -> int { -64 >> x }", (2, 70, -1)),
    Op.EQ: ("function F(x: int) -> bool { x == 3 }", (3, 4)),
    Op.NE: ("function F(x: int) -> bool { x != 3 }", (3, 4)),
    Op.LT: ("function F(x: int) -> bool { (x + 0.5) < 2.0 }", (1, 2)),
    Op.LE: ("function F(x: int) -> bool { x <= 3 }", (3, 4)),
    Op.GT: ("function F(x: int) -> bool { \"b\" > \"a${x}\" }", (3,)),
    Op.GE: ("function F(x: int) -> bool { x >= 3 }", (2, 3)),
    Op.NEG: ("function F(x: int) -> int { -(x - 4611686018427387903 - 1) }", (0, 1)),
    Op.NOT: ("function F(x: int) -> bool { !(x > 2) }", (2, 3)),
    Op.BIT_NOT: ("function F(x: int) -> int { ~x }", (0, -5)),
    Op.IS_PANIC: ("function F(x: int) -> int { (10 / x) catch (e) { _ => -1 } }", (0, 5)),
    Op.JUMP: ("function F(x: int) -> int { let t = 0; while (t < x) { t += 2; } t }", (0, 5)),
    Op.POP_JUMP_IF_FALSE: ("function F(x: int) -> string { if (x > 0) { \"pos\" } else { \"neg\" } }", (1, -1)),
    Op.SWITCH: ("function F(x: int) -> string { match (x) { 1 => \"one\", 2 => \"two\", _ => \"many\" } }",
                (1, 2, 3)),
    Op.READ_FIELD: ("class P {\n a int\n}\nfunction F(x: int) -> int { let p = P { a: x }; p.a }", (6,)),
    Op.WRITE_FIELD: ("class P {\n a int\n}\nfunction F(x: int) -> int { let p = P { a: 0 }; p.a = x; p.a }", (6,)),
    Op.READ_INDEX: ("function F(x: int) -> int { let xs = [10, 20]; xs[x] }", (0, 1, -1, 2, -3)),
    Op.WRITE_INDEX: ("function F(x: int) -> int { let xs = [10, 20]; xs[x] = 5; xs[0] + xs[1] }", (0, -1, 2)),
    Op.LEN: ("function F(x: int) -> int { let t = 0; for (let v in [1, 2, 3]) { t += v * x; } t }", (1,)),
    Op.MAKE_ARRAY: ("function F(x: int) -> int[] { [x, x + 1] }", (4,)),
    Op.MAKE_MAP: ("function F(x: int) -> int { let m = {\"a\": x}; m[\"a\"] + m[\"b\"] }", (4,)),
    Op.MAKE_INSTANCE: ("class P {\n a int\n b string\n}\nfunction F(x: int) -> P { P { a: x, b: \"q\" } }", (2,)),
    Op.MAKE_CLOSURE: ("function F(x: int) -> int { let g = (y: int) -> int { y * 3 }; g(x) }", (2,)),
    Op.BOUND_METHOD: ("class P {\n a int\n function get(self) -> int { self.a }\n}\n"
                      "function F(x: int) -> int { let p = P { a: x }; let g = p.get; g() }", (5,)),
    Op.IS_TYPE: ("class A {\n a int\n}\nclass B {\n b int\n}\n"
                 "function F(x: int) -> int { let v: A | B = if (x > 0) { A { a: x } } else { B { b: x } };"
                 " match (v) { A => 1, B => 2 } }", (1, -1)),
    Op.FORMAT: ("function F(x: int) -> string { `n=${x} ${x > 2}` }", (3,)),
    Op.CALL: ("function G(y: int) -> int { 10 / y }\nfunction F(x: int) -> int { G(x) + 1 }", (2, 0)),
    Op.CALL_BUILTIN: ("function F(x: int) -> int { let xs = [1]; xs.push(x); xs.length() }", (2,)),
    Op.CALL_VALUE: ("function G(y: int) -> int { 10 / y }\nfunction F(x: int) -> int { let g = G; g(x) }", (2, 0)),
    Op.RETURN: ("function F(x: int) -> int { if (x > 0) { return 1; } 2 }", (1, 0)),
    Op.THROW: ("class E {\n c int\n}\nfunction F(x: int) -> int { if (x > 0) { throw E { c: x }; } 0 }", (1, 0)),
    Op.RETHROW: ("function F(x: int) -> int { (10 / x) catch (e) { baml.panics.IndexOutOfBounds => 0 } }", (0, 1)),
    Op.UNREACHABLE: ("enum C {\n A\n B\n}\nfunction F(x: int) -> int { let c = if (x > 0) { C.A } else { C.B };"
                     " match (c) { C.A => 1, C.B => 2 } }", (1, 0)),
    Op.CARRY_CELL: ("function F(x: int) -> int {\n let fs: (() -> int throws never)[] = [];\n"
                    " for (let i = 0; i < x; i += 1) { fs.push(() -> int { i }); }\n"
                    " let t = 0;\n for (let f in fs) { t += f(); }\n t\n}", (3,)),
}


def test_every_opcode_has_a_case() -> None:
    assert set(CASES) == set(Op)


@cache
def program(op: Op) -> ingot.Program:
    return ingot.load_source(CASES[op][0])


def outcome(vm_class: type[VM], p: ingot.Program, fn: str, args: list[Any]) -> tuple[Any, ...]:
    vm = vm_class(p.bex, llm=p.llm_handler(None))
    try:
        return ("ok", to_python(vm.call(p.function(fn), args)))
    except BamlError as e:
        return ("error", e.kind, e.message, [str(f) for f in e.trace])


def tracked(tracker: str, p: ingot.Program, x: int) -> tuple[Any, ...]:
    run = Explorer(p.view, "F", Options(tracker=tracker)).run({"x": x})
    error = run.outcome.error
    if error is None:
        return ("ok", run.outcome.value)
    return ("error", error.kind, error.message, [str(f) for f in error.trace])


@pytest.mark.parametrize("op", list(Op), ids=lambda op: op.name)
def test_the_case_contains_its_opcode(op: Op) -> None:
    bex = program(op).bex
    assert any(o is op for fn in bex.functions if not fn.name.startswith(PRELUDE_PREFIX) for o, _ in fn.code), op.name


@pytest.mark.parametrize("op", list(Op), ids=lambda op: op.name)
def test_every_executor_gives_the_same_outcome(op: Op) -> None:
    p = program(op)
    for x in CASES[op][1]:
        expected = outcome(VM, p, "F", [x])
        assert outcome(CompiledVM, p, "F", [x]) == expected, (op.name, x)
        interp = tracked("interp", p, x)
        assert interp == tracked("compiled", p, x), (op.name, x)
        if expected[0] == "ok":
            assert interp == expected, (op.name, x)
        else:  # the trackers report the same panic (the explorer's error record drops nothing we compare)
            assert interp[:3] == expected[:3], (op.name, x)


@pytest.mark.parametrize("op", list(Op), ids=lambda op: op.name)
def test_the_emitter_and_the_table_agree_on_stack_effects(op: Op) -> None:
    bex = program(op).bex
    for fn in bex.functions:
        for (o, arg), rec in zip(fn.code, fn.transfer):
            assert stack_effect(o, arg, fn, bex) == (rec.pops, rec.pushes), (fn.name, o.name)


def test_calling_a_value_that_is_not_a_function_panics_alike_everywhere() -> None:
    """Typed BAML never calls a non-function, but a bad host binding or a corrupt program can:
    every executor raises the same panic, with the same message."""
    p = ingot.load_source("function H(x: int) -> int { x }\nfunction F(x: int) -> int { let g = H; g(x) }")
    fn = p.bex.by_name["F"]
    (index,) = [i for i, c in enumerate(fn.consts) if getattr(c, "function", None) is p.bex.by_name["H"]]
    fn.consts[index] = 42  # `let g = 42; g(x)`
    expected = outcome(VM, p, "F", [1])
    assert expected[:3] == ("error", "UserPanic", "cannot call a value of type int")
    assert outcome(CompiledVM, p, "F", [1]) == expected
    for tracker in ("interp", "compiled"):
        assert tracked(tracker, p, 1)[:3] == expected[:3]


def test_a_step_budget_counts_calls_through_values_on_every_executor() -> None:
    """A call through a function value is a step like a direct call, on every executor: recursion
    through a value stops at the same step budget with the same panic, tracked or not."""
    p = ingot.load_source(
        "function G(n: int) -> int { if (n == 0) { 0 } else { let g = G; 1 + g(n - 1) } }\n"
        "function F(x: int) -> int { G(x) }")
    finished = None
    for budget in range(70, 90):  # the budget just below and at the one the run needs (41 calls, 81 steps)
        n = 40
        concrete = []
        for vm_class in (VM, CompiledVM):
            vm = vm_class(p.bex, max_steps=budget)
            try:
                concrete.append(("ok", vm.call(p.function("F"), [n])))
            except BamlError as e:
                concrete.append(("error", e.kind))
        assert concrete[0] == concrete[1], (n, budget)
        for tracker in ("interp", "compiled"):
            run = Explorer(p.view, "F", Options(tracker=tracker, max_steps=budget)).run({"x": n})
            got = ("ok", run.outcome.value) if run.outcome.error is None else ("error", run.outcome.error.kind)
            assert got == concrete[0], (tracker, n, budget)
        if finished is None and concrete[0][0] == "ok":
            finished = budget
    assert finished is not None and 70 < finished < 90
