"""The compiled tier's operand templates: literals, float order, inlined built-ins, operator symbols."""

from __future__ import annotations

import math
from typing import Any

from ingot.bex.opcodes import BINARY, OPCODES, Op
from ingot.bex.program import BexProgram
from ingot.stdlib import REGISTRY

__all__ = ["OP_RUNTIME", "OP_SYMBOL", "float_operands", "float_order", "inline_builtin", "literal"]


def inline_builtin(program: BexProgram, index: int, args: list[str], target: str) -> str | None:
    """Plain Python for a call of built-in `index` that stores its (int) result in `target`, or None.

    Only the runtime's own implementations are inlined (a program may bind another).
    """
    key = program.builtin_keys[index]
    spec = REGISTRY.get(key)
    if spec is None or spec.inline is None or program.builtins[index] is not spec.impl:
        return None
    return spec.inline.format(*args, target=target)


# A binary operator's Python symbol and the runtime function the generated code falls back to
# (both from the opcode table).
OP_SYMBOL = {op: OPCODES[op].py for op in BINARY if OPCODES[op].py}
OP_RUNTIME = {op: OPCODES[op].runtime_name for op in BINARY}


def float_operands(a_kind: str, b_kind: str) -> bool:
    """Static kinds for which the float fast path applies: one side a float, neither known otherwise."""
    kinds = {a_kind, b_kind}
    return "float" in kinds and not kinds & {"int", "str", "bool", "none"}


def _number(expr: str) -> bool:
    """Is the expression a float literal (`literal` writes only finite ones: never NaN)?"""
    try:
        float(expr.strip("()"))
    except ValueError:
        return False
    return True


def float_order(op: Op, a: str, b: str) -> str:
    """`a op b` for two floats in BAML's total order: NaN after everything (a literal is no NaN)."""
    if _number(b):
        return {Op.LT: f"{a} < {b}", Op.LE: f"{a} <= {b}", Op.GT: f"{a} > {b} or {a} != {a}",
                Op.GE: f"{a} >= {b} or {a} != {a}"}[op]
    if _number(a):
        return {Op.LT: f"{a} < {b} or {b} != {b}", Op.LE: f"{a} <= {b} or {b} != {b}", Op.GT: f"{a} > {b}",
                Op.GE: f"{a} >= {b}"}[op]
    return {Op.LT: f"{a} < {b} or ({b} != {b} and {a} == {a})",
            Op.LE: f"{a} <= {b} or {b} != {b}",
            Op.GT: f"{a} > {b} or ({a} != {a} and {b} == {b})",
            Op.GE: f"{a} >= {b} or {a} != {a}"}[op]


def literal(value: Any) -> str | None:
    t = type(value)
    if value is None or t is bool:
        return repr(value)
    if t is int:
        return f"({value})" if value < 0 else repr(value)
    if t is str:
        return repr(value)
    if t is float and math.isfinite(value):
        return f"({value!r})" if value < 0 or (value == 0 and math.copysign(1.0, value) < 0) else repr(value)
    return None
