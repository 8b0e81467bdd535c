"""Source positions, diagnostics and their one renderer.

Every node of every tree carries a `Span`; every error is a `Diagnostic`
value with a code (`E0001` ...) and a span. Positions are 1-based lines and
columns counted in code points, like the BAML engine's messages; the end
column is exclusive.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from enum import StrEnum


class Code(StrEnum):
    """Error codes, numbered as the BAML compiler numbers them."""

    MISMATCH = "E0001"
    UNRESOLVED_TYPE = "E0002"
    UNRESOLVED_NAME = "E0003"
    BAD_OPERATOR = "E0004"
    BAD_ARGUMENTS = "E0005"
    NOT_CALLABLE = "E0006"
    NO_MEMBER = "E0007"
    NOT_INDEXABLE = "E0008"
    SYNTAX = "E0010"
    DUPLICATE_ITEM = "E0011"
    DUPLICATE_FIELD = "E0012"
    UNKNOWN_ATTRIBUTE = "E0015"
    MISPLACED_ATTRIBUTE = "E0016"
    MISSING_VALUE = "E0029"
    NON_EXHAUSTIVE = "E0062"
    UNREACHABLE_ARM = "E0063"
    REMOVED_FEATURE = "E0098"
    MISSING_NAME = "E0107"
    INVALID_ESCAPE = "E0109"
    REFUTABLE_LET = "E0111"
    MISSING_IMPL = "E0113"
    NOT_AN_INTERFACE_METHOD = "E0115"
    NONCONFORMING_METHOD = "E0120"
    OVERLAPPING_IMPL = "E0132"
    ORPHAN_IMPL = "E0139"
    INTERFACE_THROWS = "E0170"
    BUILTIN_TYPE_ARGS = "E0171"
    INT_RANGE = "E0150"
    FN_TYPE_THROWS = "E0151"
    INT_TOO_LARGE = "E0152"
    RESERVED_NAME = "E0176"
    ANNOTATION_NEEDED = "E0155"
    BAD_ANNOTATION = "I0001"  # an @ingot(...) annotation ingot cannot read
    UNSUPPORTED = "I0002"  # valid BAML that ingot does not support yet


class SourceFile:
    """A named source text with a line index for offset -> (line, column)."""

    def __init__(self, name: str, text: str, display: str | None = None) -> None:
        self.name = name
        self.text = text
        # What messages quote: the original source when `text` had annotations blanked out.
        self.display = display if display is not None else text
        self._line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]

    def position(self, offset: int) -> Pos:
        line = bisect.bisect_right(self._line_starts, offset) - 1
        return Pos(line + 1, offset - self._line_starts[line] + 1, offset)

    def span(self, start: int, end: int) -> Span:
        return Span(self, start, end)

    def line_text(self, line: int) -> str:
        start = self._line_starts[line - 1]
        end = self.display.find("\n", start)
        return self.display[start : end if end >= 0 else len(self.display)]


@dataclass(frozen=True, slots=True)
class Pos:
    line: int
    column: int
    offset: int


@dataclass(frozen=True, slots=True, repr=False)  # its own __repr__ below
class Span:
    """A half-open range of offsets in one source file."""

    source: SourceFile
    start_offset: int
    end_offset: int

    @property
    def start(self) -> Pos:
        return self.source.position(self.start_offset)

    @property
    def end(self) -> Pos:
        return self.source.position(self.end_offset)

    @property
    def file(self) -> str:
        return self.source.name

    def to(self, other: Span) -> Span:
        """The span from the start of `self` to the end of `other`."""
        return Span(self.source, self.start_offset, max(self.end_offset, other.end_offset))

    def engine_location(self) -> str:
        """`main.baml:1:28-1:33`, the BAML engine's location format."""
        s, e = self.start, self.end
        if self.end_offset <= self.start_offset:
            return f"{self.file}:{s.line}:{s.column}"
        return f"{self.file}:{s.line}:{s.column}-{e.line}:{e.column}"

    def __repr__(self) -> str:
        return f"Span({self.engine_location()})"


@dataclass(slots=True)
class Diagnostic:
    code: Code
    message: str
    span: Span
    primary: str | None = None
    secondary: list[tuple[Span, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def engine_text(self) -> str:
        """The one-line form the BAML engine prints."""
        text = f"{self.span.engine_location()} error[{self.code.value}]: {self.message}"
        if self.primary:
            text += f"\n  primary: {self.primary}"
        for span, label in self.secondary:
            text += f"\n  secondary {span.engine_location()}: {label}"
        return text

    def render(self) -> str:
        """rustc-style: header, location, the source line and a caret."""
        out = [f"error[{self.code.value}]: {self.message}"]
        out += _snippet(self.span, self.primary or "")
        for span, label in self.secondary:
            out += _snippet(span, label, marker="-")
        out += [f"  = note: {n}" for n in self.notes]
        return "\n".join(out)

    def __str__(self) -> str:
        return self.engine_text()


def _snippet(span: Span, label: str, marker: str = "^") -> list[str]:
    start, end = span.start, span.end
    gutter = " " * len(str(start.line))
    text = span.source.line_text(start.line)
    if end.line == start.line:
        width = max(1, end.column - start.column)
    else:
        width = max(1, len(text) - start.column + 1)
    pad = "".join("\t" if ch == "\t" else " " for ch in text[: start.column - 1])
    return [
        f"{gutter}--> {span.file}:{start.line}:{start.column}",
        f"{gutter} |",
        f"{start.line} | {text}",
        f"{gutter} | {pad}{marker * width}{(' ' + label) if label else ''}",
    ]


def render_all(diagnostics: list[Diagnostic]) -> str:
    n = len(diagnostics)
    summary = f"error: could not compile: {n} error{'s' if n != 1 else ''}"
    return "\n\n".join([d.render() for d in diagnostics] + [summary])


class CompileError(Exception):
    """Raised by `ingot.load` when the source has errors; carries every diagnostic."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__(render_all(diagnostics))
