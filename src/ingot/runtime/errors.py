"""Panics and thrown errors as runtime values.

A BAML panic is an instance of a built-in class in `baml.panics`
(`DivisionByZero {dividend}`, ...); a built-in that fails in a catchable way
throws an instance of a class in `baml.errors` (`ParseError {message}`).
Inside the VM both travel as `BamlRaise`, a Python exception carrying the
BAML value; `catch` arms test that value's type like `match` does. When the
value escapes the called function it reaches the user as `BamlError`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ingot.runtime.values import ClassInfo, Instance, type_name


def _classes(namespace: str, spec: dict[str, tuple[str, ...]]) -> dict[str, ClassInfo]:
    return {short: ClassInfo(f"{namespace}.{short}", fields) for short, fields in spec.items()}


# The engine's panic classes (baml_std ns_panics/panics.baml), with their fields.
PANICS: dict[str, ClassInfo] = _classes(
    "baml.panics",
    {
        "DivisionByZero": ("dividend",),
        "IndexOutOfBounds": ("index", "length"),
        "MapKeyNotFound": ("key",),
        "IntegerOverflow": ("message",),
        "NegativeBitShift": ("message",),
        "StackOverflow": ("message",),
        "AssertionFailed": ("message",),
        "UserPanic": ("message",),
        "InvalidFieldAccess": ("field_index", "field_count"),
        "Unreachable": ("message",),
        "Cancelled": ("message",),
        "Exit": ("code",),
        "AllocFailure": ("message",),
        "InstructionLimit": ("message",),
        "HostUnavailable": ("resource", "message"),
        "HostContractViolation": ("message", "class_name", "language"),
        "SdkPanic": ("message",),
    },
)

# Catchable errors thrown by built-ins (baml.errors.*) and by LLM calls (ai.errors.*),
# by qualified name, with the engine's fields in the engine's order.
ERRORS: dict[str, ClassInfo] = {
    info.name: info
    for info in [
        *_classes("baml.errors", {
            "ParseError": ("message",),
            "InvalidArgument": ("message",),
            "Io": ("message",),
            "Timeout": ("message",),
            "Unsupported": ("message",),
        }).values(),
        *_classes("ai.errors", {
            "InvalidRequest": ("provider", "status_code", "detail", "raw_body"),
            "NetworkFailure": ("provider", "detail", "status_code", "raw_body"),
            "RateLimited": ("provider", "retry_after_ms", "status_code", "raw_body"),
            "ParseFailed": ("provider", "raw_output", "message"),
            "InvalidResponse": ("provider", "message", "raw_body", "status_code"),
            "ProviderError": ("provider", "message", "error_type", "error_code", "raw_body", "status_code"),
            "FinishReasonError": ("provider", "finish_reason", "raw_output"),
            "Refused": ("provider", "reason", "raw_body"),
            "PromptRenderError": ("message", "cause"),
        }).values(),
    ]
}


def is_panic_value(value: Any) -> bool:
    return isinstance(value, Instance) and value.cls.name.startswith("baml.panics.")


class BamlRaise(Exception):
    """A BAML value in flight: a panic or a thrown value, inside the VM."""

    __slots__ = ("value", "trace")

    def __init__(self, value: Any, trace: list[Frame] | None = None) -> None:
        super().__init__()
        self.value = value
        self.trace: list[Frame] = trace if trace is not None else []

    def __str__(self) -> str:
        return describe(self.value)


def panic(kind: str, **fields: Any) -> BamlRaise:
    """A panic of class `baml.panics.<kind>`, ready to raise."""
    return BamlRaise(PANICS[kind].new(**fields))


def throw_error(kind: str, message: str, **fields: Any) -> BamlRaise:
    """A catchable built-in error (`baml.errors.ParseError`, `InvalidArgument`, ...), ready to raise."""
    return BamlRaise(ERRORS["baml.errors." + kind].new(message=message, **fields))


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame of a BAML trace: function (qualified), file and 1-based line."""

    function: str
    file: str
    line: int
    omitted: int = 0  # > 0: not a frame but the count of frames left out of a long trace here

    def __str__(self) -> str:
        if self.omitted:
            return f"... {self.omitted} frames omitted ..."
        return f'File "{self.file}", line {self.line}, in {self.function}'


def error_kind(value: Any) -> str:
    """The short class name of an escaping value: `DivisionByZero`, `Bad`, `string`."""
    if isinstance(value, Instance):
        return value.cls.short_name
    return type_name(value)


def error_class(value: Any) -> str:
    """The qualified class name: `baml.panics.DivisionByZero`, `user.Bad`."""
    if isinstance(value, Instance):
        return value.cls.name
    return type_name(value)


def describe(value: Any) -> str:
    """A one-line message for an escaping value, as the engine's bridge words it.

    A class instance with a `message` field gives that message (`"4611686018427387903
    + 1 overflows int"`); any other instance renders like a template
    (`DivisionByZero { dividend: 7 }`). A thrown non-class value reads
    `<python type>: <repr>`, exactly as `baml_bridge` prints it: `str: 'neg'`,
    `int: 5`, `list: [1, 2]`, `NoneType: None`.
    """
    if isinstance(value, Instance):
        if "message" in value.cls.field_index and value.get("message") is not None:
            return str(value.get("message"))
        from ingot.runtime.render import render_value

        return render_value(value)
    if value is None or isinstance(value, (str, int, float, list, dict)):
        return f"{type(value).__name__}: {value!r}"
    from ingot.runtime.render import render_value

    return render_value(value)


class BamlError(Exception):
    """A panic or uncaught throw that escaped a called BAML function."""

    def __init__(self, value: Any, trace: list[Frame]) -> None:
        self.value = value
        self.trace = trace
        self.kind = error_kind(value)
        self.qualified_kind = error_class(value)
        self.is_panic = is_panic_value(value)
        self.message = describe(value)
        super().__init__(f"{self.qualified_kind}: {self.message}")

    def format_trace(self) -> str:
        lines = ["Traceback (most recent call last):"]
        lines += [f"  {f}" for f in self.trace]
        lines.append(f"{self.qualified_kind}: {self.message}")
        return "\n".join(lines)
