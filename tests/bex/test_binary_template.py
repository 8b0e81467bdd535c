"""The binary operators' one template (`templates.binary`) computes what the runtime defines.

Both translators write a binary operator's concrete code from this template: the compiled tier
with the operands' static kinds and int ranges, the tracked translator with kinds and constants
only. For every binary opcode and operands at the edges of each type, under every set of facts
that is true of them, the template's expression and its statements give the runtime function's
result, or raise its panic with its message.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

from ingot.bex.compiled.operands import literal
from ingot.bex.compiled.ranges import FULL
from ingot.bex.compiled.runtime import STATIC_NAMES
from ingot.bex.compiled.templates import Binary, Operand, binary
from ingot.bex.opcodes import BINARY, OPCODES, Op
from ingot.runtime.values import INT_MAX, INT_MIN

_KINDS = {int: "int", float: "float", str: "str", bool: "bool", type(None): "none"}
VALUES: list[Any] = [0, 1, -1, 7, -7, INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1, 1 << 40,
                     0.5, math.inf, math.nan, "a", True, None]


def facts(name: str, value: Any) -> list[Operand]:
    """Every way a translator may know `value`: nothing, its kind, an int's range, a constant."""
    kind = _KINDS[type(value)]
    known = [Operand(name), Operand(name, kind)]
    if kind == "int":
        known += [Operand(name, kind, (value, value)), Operand(name, kind, (min(value, 0), INT_MAX))]
        known.append(Operand(literal(value) or name, kind, value=value))
    elif literal(value) is not None:
        known.append(Operand(literal(value) or name, kind))
    return known


_COMPILED: dict[tuple[str, tuple[str, ...]], tuple[Any, Any]] = {}


def outcome(fn: Any, x: Any, y: Any) -> tuple[str, Any]:
    try:
        value = fn(x, y)
    except Exception as e:  # a panic: its type and message must match
        return ("panic", f"{type(e).__name__}: {e}")
    return ("value", (type(value), repr(value)))


def run(code: Binary, x: Any, y: Any) -> tuple[tuple[str, Any], tuple[str, Any]]:
    """The template's result as one expression and as the compiled tier's statements."""
    key = (code.expr, tuple(code.lines("r")))
    if key not in _COMPILED:
        ns = dict(STATIC_NAMES)
        body = "\n".join("    " + line for line in code.lines("r"))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (`1 is True` compiles with a SyntaxWarning)
            exec(f"def as_expr(x, y):\n    return {code.expr}\ndef as_lines(x, y):\n{body}\n    return r\n", ns)  # noqa: S102
        _COMPILED[key] = (ns["as_expr"], ns["as_lines"])
    as_expr, as_lines = _COMPILED[key]
    return outcome(as_expr, x, y), outcome(as_lines, x, y)


@pytest.mark.parametrize("op", sorted(BINARY), ids=lambda op: Op(op).name)
def test_the_template_computes_the_runtime_definition(op: Op) -> None:
    impl = OPCODES[op].impl
    assert impl is not None
    for x in VALUES:
        for y in VALUES:
            expected = outcome(impl, x, y)
            for a in facts("x", x):
                for b in facts("y", y):
                    code = binary(op, a, b)
                    as_expr, as_lines = run(code, x, y)
                    assert as_expr == expected, (op.name, a, b, code.expr)
                    assert as_lines == expected, (op.name, a, b, code.lines("r"))


@pytest.mark.parametrize("op", [Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.MOD, Op.LT, Op.EQ])
def test_known_facts_drop_the_tests(op: Op) -> None:
    """Two ints whose ranges rule out overflow and sign get the bare Python operator."""
    small = Operand("x", "int", (0, 100))
    code = binary(op, small, Operand("y", "int", (1, 100)))
    assert code.arms == () and code.otherwise == f"x {OPCODES[op].py} y"
    assert binary(op, Operand("x"), Operand("y")).expr != code.expr  # unknown operands keep their tests


def test_the_result_range_follows_the_operands() -> None:
    code = binary(Op.ADD, Operand("x", "int", (0, 10)), Operand("y", "int", value=5))
    assert (code.kind, code.range) == ("int", (5, 15))
    assert binary(Op.ADD, Operand("x", "int"), Operand("y", "int")).range == FULL
    assert binary(Op.LT, Operand("x"), Operand("y")).kind == "bool"
