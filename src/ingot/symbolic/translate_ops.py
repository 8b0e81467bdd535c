"""Static facts for the tracked translation (`compiled_tracker`), one table per question.

- `static_result`: can an instruction's result carry a shadow, and is it a scalar
  (never a container whose length or elements the shadow heap may describe)?
  The opcode table (`ingot.bex.opcodes`) answers; the translator's analysis of
  locals and its code emission both ask this one function, so they cannot disagree.
- `concrete_binary`: the plain Python expression of a binary operator, with the
  runtime's function as the slow path (same results as `ingot.runtime.ops`).
"""

from __future__ import annotations

from typing import Any

from ingot.bex.api import (
    OP_RUNTIME,
    OP_SYMBOL,
    OPCODES,
    ORDER,
    BexFunction,
    Op,
    Shadow,
    float_operands,
    float_order,
    literal,
)
from ingot.runtime.values import INT_MAX

__all__ = ["Entry", "static_result", "concrete_binary", "literal_of"]

_LIM = INT_MAX + 1
_SCALAR_TYPES = (int, float, bool, str, type(None))

literal_of = literal


class Entry:
    """A value on the translation-time stack: its Python expression and its shadow's (None: concrete)."""

    __slots__ = ("expr", "sh", "slot", "scalar", "kind")

    def __init__(self, expr: str, sh: str | None, slot: int | None = None, scalar: bool = False,
                 kind: str = "") -> None:
        self.expr = expr
        self.sh = sh  # the shadow's Python expression, None where the value is concrete on every run
        self.slot = slot  # the local a deferred load reads
        self.scalar = scalar  # never a list, map or instance
        self.kind = kind  # "bool" when the value is a bool on every run


_ORDER = ORDER
_FLOAT_INLINE = _ORDER | {Op.ADD, Op.SUB, Op.MUL}


def static_result(op: Op, fn: BexFunction, arg: Any, operands: list[tuple[bool, bool]]) -> tuple[bool, bool]:
    """(may have a shadow, is a scalar) of `op`'s result, from its operands' (shadow, scalar) facts.

    Read from the opcode table's `shadow` and `scalar` columns (a constant's scalarity from its value).
    """
    info = OPCODES[op]
    shadow = info.shadow
    scalar = isinstance(fn.consts[arg], _SCALAR_TYPES) if op is Op.LOAD_CONST else info.scalar
    if shadow is Shadow.NEVER:
        return False, scalar
    if shadow is Shadow.ALWAYS:
        return True, scalar
    if shadow is Shadow.OPERANDS:
        return any(s for s, _ in operands), scalar
    if shadow is Shadow.TRUTH:
        (sym, operand_scalar), = operands
        return sym or not operand_scalar, scalar  # a list's truth is its (maybe symbolic) length
    raise AssertionError(f"no static facts for {op.name}")  # LOAD_LOCAL: the analysis reads its local


def concrete_binary(op: Op, a: str, b: str, a_kind: str = "", b_kind: str = "") -> str:
    """The Python expression computing `a op b` as BAML does (ints and floats inline, the runtime otherwise).

    `a_kind`/`b_kind` are the concrete tier's static kinds ("int", "float", ... or "" when
    unknown): a known kind drops its type test, as in the concrete translation.
    """
    if float_operands(a_kind, b_kind) and op in _FLOAT_INLINE:
        tests = [f"type({x}) is float" for x, kind in ((a, a_kind), (b, b_kind)) if kind != "float"]
        slow = OP_RUNTIME[op]
        fast = float_order(op, a, b) if op in _ORDER else f"{a} {OP_SYMBOL[op]} {b}"
        return f"({fast})" if not tests else f"({fast}) if {' and '.join(tests)} else {slow}({a}, {b})"
    tests = [f"type({x}) is int" for x, kind in ((a, a_kind), (b, b_kind)) if kind != "int"]
    if op in (Op.ADD, Op.SUB, Op.MUL):
        tests.append(f"{-_LIM} <= (_t := {a} {OP_SYMBOL[op]} {b}) < {_LIM}")
        return f"_t if {' and '.join(tests)} else {OP_RUNTIME[op]}({a}, {b})"
    if op in (Op.DIV, Op.MOD):
        tests.append(f"{a} >= 0")
        if not (b_kind == "int" and b.isdigit() and int(b) > 0):
            tests.append(f"{b} > 0")
        return f"{a} {OP_SYMBOL[op]} {b} if {' and '.join(tests)} else {OP_RUNTIME[op]}({a}, {b})"
    if op in OP_SYMBOL:
        fast = f"({a} {OP_SYMBOL[op]} {b})"
        return fast if not tests else f"{fast} if {' and '.join(tests)} else {OP_RUNTIME[op]}({a}, {b})"
    return f"{OP_RUNTIME[op]}({a}, {b})"  # the bitwise operators
