"""The engine's `ai.errors.*` values, raised into BAML programs.

Each class has the engine's fields in the engine's order (`InvalidRequest {
provider, status_code, detail, raw_body }`, ...), so a BAML `catch` arm
reads the same fields on ingot as on the engine. `ingot.runtime.errors.ERRORS`
is used when it declares the class with these fields; otherwise the class is
made here under the same qualified name (type tests compare names).
"""

from __future__ import annotations

from typing import Any

from ingot.runtime.errors import ERRORS, BamlRaise
from ingot.runtime.values import ClassInfo

# name -> fields, as `baml_bridge==0.23.0` declares them
AI_ERRORS: dict[str, tuple[str, ...]] = {
    "InvalidRequest": ("provider", "status_code", "detail", "raw_body"),
    "NetworkFailure": ("provider", "detail", "status_code", "raw_body"),
    "RateLimited": ("provider", "retry_after_ms", "status_code", "raw_body"),
    "ParseFailed": ("provider", "raw_output", "message"),
    "InvalidResponse": ("provider", "message", "raw_body", "status_code"),
    "ProviderError": ("provider", "message", "error_type", "error_code", "raw_body", "status_code"),
    "FinishReasonError": ("provider", "finish_reason", "raw_output"),
    "Refused": ("provider", "reason", "raw_body"),
    "PromptRenderError": ("message", "cause"),
}

_LOCAL: dict[str, ClassInfo] = {}


def error_class(kind: str) -> ClassInfo:
    """The `ai.errors.<kind>` class (`baml.errors.Timeout` for `kind="Timeout"`)."""
    if kind == "Timeout":  # the engine raises the stdlib's timeout, not an ai.errors class
        known = ERRORS.get("Timeout")
        if known is not None and known.name == "baml.errors.Timeout":
            return known
        return _LOCAL.setdefault("Timeout", ClassInfo("baml.errors.Timeout", ("message",)))
    fields = AI_ERRORS[kind]
    known = ERRORS.get(kind)
    if known is not None and known.name == f"ai.errors.{kind}" and set(fields) <= set(known.field_names):
        return known
    if kind not in _LOCAL:
        _LOCAL[kind] = ClassInfo(f"ai.errors.{kind}", fields)
    return _LOCAL[kind]


def ai_error(kind: str, **fields: Any) -> BamlRaise:
    """An `ai.errors.<kind>` value ready to raise into the program."""
    return BamlRaise(error_class(kind).new(**fields))


class LlmFailure(Exception):
    """A failed model call, carrying the BAML error value it becomes."""

    def __init__(self, kind: str, **fields: Any) -> None:
        self.kind = kind
        self.fields = fields
        super().__init__(f"ai.errors.{kind}: {fields.get('detail') or fields.get('message') or fields}")

    def to_baml(self) -> BamlRaise:
        return ai_error(self.kind, **self.fields)

    @property
    def retry_safe(self) -> bool:
        """The engine's `RetrySafety.Safe`: every client failure is safe to replay."""
        return True


def timeout(message: str) -> LlmFailure:
    return LlmFailure("Timeout", message=message)


__all__ = ["AI_ERRORS", "LlmFailure", "ai_error", "error_class", "timeout"]
