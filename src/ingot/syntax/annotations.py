"""Harvest `@ingot(...)` and `@@ingot(...)` annotations and blank them out.

A preprocessing pass over the raw text: every annotation is parsed and then
replaced by spaces (newlines kept), so every offset, and so every diagnostic
position, stays the same, and the stripped text is ordinary BAML that the real
engine accepts.

Grammar of the argument list:

    args  := (arg ("," arg)* ","?)?
    arg   := key ("=" value)?          a bare key is the flag `key = true`
    key   := ident ("." ident)*        dotted keys nest: mcp.title -> {"mcp": {"title": ...}}
    value := string | number | true | false | null | list | map | key-path
    list  := "[" (value ("," value)* ","?)? "]"
    map   := "{" (key (":" | "=") value ("," ...)* ","?)? "}"

Strings are double-quoted with the usual escapes. Where each annotation
belongs (which function, parameter, class, field, enum, variant) is decided
after parsing, by `ingot.semantics.meta`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ingot.syntax.diagnostics import Code, Diagnostic, SourceFile, Span

_START = re.compile(r"@@?ingot\b")


@dataclass(frozen=True, slots=True)
class Annotation:
    block: bool  # @@ingot
    values: dict[str, Any]  # nested by dotted key
    start: int  # offset of the `@`
    end: int  # offset after the `)`


@dataclass(slots=True)
class Harvest:
    text: str
    annotations: list[Annotation] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


class AnnotationError(Exception):
    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset


def harvest(source: SourceFile) -> Harvest:
    text = source.text
    out = Harvest(text)
    if "ingot" not in text:
        return out
    chars = list(text)
    for m in _START.finditer(text):
        start = m.start()
        if _in_comment_or_string(text, start):
            continue
        try:
            values, end = _Reader(text, m.end()).annotation()
        except AnnotationError as e:
            stop = max(e.offset, start + len(m.group()))
            out.diagnostics.append(Diagnostic(Code.BAD_ANNOTATION, f"malformed `{m.group()}` annotation: {e}",
                                              Span(source, start, min(stop + 1, len(text)))))
            continue
        out.annotations.append(Annotation(m.group().startswith("@@"), values, start, end))
        for i in range(start, end):
            if chars[i] != "\n":
                chars[i] = " "
    out.text = "".join(chars)
    return out


def _in_comment_or_string(text: str, offset: int) -> bool:
    """Is `offset` inside a `//` comment or a string on its line? (cheap, line-local check)."""
    line_start = text.rfind("\n", 0, offset) + 1
    prefix = text[line_start:offset]
    in_string = False
    i = 0
    while i < len(prefix):
        c = prefix[i]
        if in_string:
            if c == "\\":
                i += 1
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif prefix.startswith("//", i):
            return True
        i += 1
    return in_string


class _Reader:
    def __init__(self, text: str, pos: int) -> None:
        self.text = text
        self.pos = pos

    def skip(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            found = self.peek() or "end of file"
            raise AnnotationError(self.pos, f"expected `{ch}`, found `{found}`")
        self.pos += 1

    def annotation(self) -> tuple[dict[str, Any], int]:
        if self.pos >= len(self.text) or self.text[self.pos] != "(":
            return {}, self.pos  # bare `@@ingot`
        self.pos += 1
        values: dict[str, Any] = {}
        while self.peek() != ")":
            key = self.key()
            value: Any = True
            if self.peek() == "=":
                self.pos += 1
                value = self.value()
            _put(values, key, value, self.pos)
            if self.peek() == ",":
                self.pos += 1
            elif self.peek() != ")":
                raise AnnotationError(self.pos, f"expected `,` or `)`, found `{self.peek() or 'end of file'}`")
        self.pos += 1
        return values, self.pos

    def key(self) -> list[str]:
        self.skip()
        m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*").match(self.text, self.pos)
        if m is None:
            raise AnnotationError(self.pos, f"expected a key, found `{self.peek() or 'end of file'}`")
        self.pos = m.end()
        return m.group().split(".")

    def value(self) -> Any:
        c = self.peek()
        if c == '"':
            return self.string()
        if c == "[":
            self.pos += 1
            items = []
            while self.peek() != "]":
                items.append(self.value())
                if self.peek() == ",":
                    self.pos += 1
                elif self.peek() != "]":
                    raise AnnotationError(self.pos, "expected `,` or `]` in a list")
            self.pos += 1
            return items
        if c == "{":
            self.pos += 1
            mapping: dict[str, Any] = {}
            while self.peek() != "}":
                key = self.string() if self.peek() == '"' else ".".join(self.key())
                if self.peek() not in (":", "="):
                    raise AnnotationError(self.pos, "expected `:` after a map key")
                self.pos += 1
                mapping[key] = self.value()
                if self.peek() == ",":
                    self.pos += 1
                elif self.peek() != "}":
                    raise AnnotationError(self.pos, "expected `,` or `}` in a map")
            self.pos += 1
            return mapping
        m = re.compile(r"-?(\d+\.\d*|\d*\.\d+|\d+)([eE][+-]?\d+)?").match(self.text, self.pos)
        if m is not None and m.group():
            self.pos = m.end()
            raw = m.group()
            return float(raw) if any(ch in raw for ch in ".eE") else int(raw)
        words = {"true": True, "false": False, "null": None}
        if not re.compile(r"[A-Za-z_]").match(self.text, self.pos):
            raise AnnotationError(self.pos, f"expected a value, found `{self.peek() or 'end of file'}`")
        parts = self.key()
        dotted = ".".join(parts)
        return words.get(dotted, dotted)

    def string(self) -> str:
        self.expect('"')
        start = self.pos - 1
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c == "\\":
                self.pos += 2
                continue
            if c == '"':
                self.pos += 1
                try:
                    return str(json.loads(self.text[start : self.pos]))
                except json.JSONDecodeError as e:
                    raise AnnotationError(start, f"bad string literal ({e.msg})") from None
            if c == "\n":
                break
            self.pos += 1
        raise AnnotationError(start, "unterminated string")


def _put(values: dict[str, Any], key: list[str], value: Any, offset: int) -> None:
    node = values
    for part in key[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise AnnotationError(offset, f"`{part}` is both a value and a group of keys")
        node = child
    if isinstance(node.get(key[-1]), dict) and not isinstance(value, dict):
        raise AnnotationError(offset, f"`{'.'.join(key)}` is both a value and a group of keys")
    node[key[-1]] = value
