"""Static facts for the tracked translation (`compiled_tracker`), one table per question.

- `static_result`: can an instruction's result carry a shadow, and is it a scalar
  (never a container whose length or elements the shadow heap may describe)?
  The opcode table (`ingot.bex.opcodes`) answers; the translator's analysis of
  locals and its code emission both ask this one function, so they cannot disagree.
"""

from __future__ import annotations

from typing import Any

from ingot.bex.api import OPCODES, BexFunction, Op, Shadow, literal, templates

__all__ = ["Entry", "static_result", "literal_of"]

_SCALAR_TYPES = (int, float, bool, str, type(None))

literal_of = literal


class Entry:
    """A value on the translation-time stack: its Python expression and its shadow's (None: concrete)."""

    __slots__ = ("expr", "sh", "slot", "scalar", "kind", "value")

    def __init__(self, expr: str, sh: str | None, slot: int | None = None, scalar: bool = False,
                 kind: str = "", value: int | None = None) -> None:
        self.expr = expr
        self.sh = sh  # the shadow's Python expression, None where the value is concrete on every run
        self.slot = slot  # the local a deferred load reads
        self.scalar = scalar  # never a list, map or instance
        self.kind = kind  # the concrete tier's static kind ("int", "bool", ...; "" when unknown)
        self.value = value  # an int constant's value

    def operand(self) -> templates.Operand:
        """Its facts, as the operator templates take them (a kind and a constant, no int range)."""
        return templates.Operand(self.expr, self.kind, value=self.value)


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

