"""The engine's `ai.errors.*` values, raised into BAML programs.

Each class has the engine's fields in the engine's order (`InvalidRequest {
provider, status_code, detail, raw_body }`, ...), so a BAML `catch` arm
reads the same fields on ingot as on the engine. The classes are declared in
`ingot.runtime.errors.ERRORS`; this module raises them.
"""

from __future__ import annotations

from typing import Any

from ingot.runtime.errors import ERRORS, BamlRaise
from ingot.runtime.values import ClassInfo


def error_class(kind: str) -> ClassInfo:
    """The `ai.errors.<kind>` class (`baml.errors.Timeout` for `kind="Timeout"`: the engine
    raises the standard library's timeout, not an ai.errors class)."""
    if kind == "Timeout":
        return ERRORS["baml.errors.Timeout"]
    return ERRORS[f"ai.errors.{kind}"]


def ai_error(kind: str, **fields: Any) -> BamlRaise:
    """An `ai.errors.<kind>` value ready to raise into the program."""
    return BamlRaise(error_class(kind).new(**fields))


class LlmFailure(Exception):
    """A failed model call, carrying the BAML error value it becomes."""

    def __init__(self, kind: str, **fields: Any) -> None:
        from ingot.llm.destinations import redact_fields

        self.kind = kind
        self.fields = redact_fields(fields)  # provider bodies may echo the key they rejected
        fields = self.fields
        super().__init__(f"ai.errors.{kind}: {fields.get('detail') or fields.get('message') or fields}")

    def to_baml(self) -> BamlRaise:
        return ai_error(self.kind, **self.fields)

    @property
    def retry_safe(self) -> bool:
        """The engine's `RetrySafety.Safe`: every client failure is safe to replay."""
        return True


def timeout(message: str) -> LlmFailure:
    return LlmFailure("Timeout", message=message)


__all__ = ["LlmFailure", "ai_error", "error_class", "timeout"]
