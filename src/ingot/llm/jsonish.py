"""Reading JSON out of a model's reply, however it was written.

`parse(text)` returns the candidate values a reply may hold, in the engine's
order of preference (BAML's "jsonish" stage, before schema alignment):

1. the whole reply as strict JSON;
2. each markdown code block (```` ```json ... ``` ````), parsed recursively;
3. each balanced `{...}` / `[...]` found in prose;
4. a forgiving parse: unquoted keys and values, single quotes, trailing or
   missing commas, comments, unclosed strings, arrays and objects;
5. the reply as a plain string.

The result is an `AnyOf` of the candidates plus the raw text; the coercer in
`ingot.llm.coerce` picks the candidate that fits the declared type best.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Union


@dataclass(frozen=True, slots=True)
class Str:
    value: str


@dataclass(frozen=True, slots=True)
class Num:
    text: str  # as written: "31", "-2.5", "1e3"

    @property
    def is_int(self) -> bool:
        return re.fullmatch(r"-?\d+", self.text) is not None

    @property
    def value(self) -> float:
        return float(self.text)


@dataclass(frozen=True, slots=True)
class Bool:
    value: bool


@dataclass(frozen=True, slots=True)
class Null:
    pass


@dataclass(frozen=True, slots=True)
class Obj:
    items: tuple[tuple[str, Value], ...]


@dataclass(frozen=True, slots=True)
class Arr:
    items: tuple[Value, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    choices: tuple[Value, ...]
    raw: str


@dataclass(frozen=True, slots=True)
class Markdown:
    tag: str
    inner: Value


@dataclass(frozen=True, slots=True)
class Fixed:
    inner: Value


Value = Union[Str, Num, Bool, Null, Obj, Arr, AnyOf, Markdown, Fixed]

MAX_DEPTH = 100
_MD_START = re.compile(r"```([a-zA-Z0-9 ]+)(?:\n|$)")
_MD_END = re.compile(r"```(?:\n|$)")


def parse(text: str, depth: int = 0, markdown: bool = True, scan: bool = True) -> Value:
    """Every reading of `text`, best first (see the module docstring).

    A nested parse of a markdown block does not look for further blocks, and a
    nested parse of a bracketed segment does not scan for segments again.
    """
    if depth > MAX_DEPTH:
        return Str(text)
    strict = _strict(text)
    if isinstance(strict, Str):
        return strict  # a JSON string is just that string
    if strict is not None:
        return AnyOf((strict,), text)
    if markdown and "```" in text:
        blocks, rest = _markdown(text, depth)
        if len(blocks) == 1 and rest is None:
            return AnyOf((blocks[0],), text)
        if blocks:
            others = (parse(rest, depth + 1, markdown=False),) if rest is not None else ()
            return AnyOf((*blocks, Arr(tuple(blocks)), *others), text)
    if scan:
        found = _balanced(text, depth)
        if len(found) == 1:
            return AnyOf((Fixed(found[0]),), text)
        if found:
            return AnyOf((*(Fixed(v) for v in found), Fixed(Arr(tuple(found)))), text)
    fixed = _fixing(text)
    if fixed is not None:
        return AnyOf((Fixed(fixed),), text)
    return Str(text)


def _strict(text: str) -> Value | None:
    try:
        data = json.loads(text, object_pairs_hook=lambda pairs: ("__obj__", pairs),
                          parse_constant=_reject, parse_float=Num, parse_int=Num)
    except (ValueError, RecursionError):
        return None
    return _from_json(data, text)


def _reject(name: str) -> None:
    raise ValueError(name)


def _from_json(data: object, text: str) -> Value:
    if isinstance(data, tuple) and len(data) == 2 and data[0] == "__obj__":
        return Obj(tuple((k, _from_json(v, text)) for k, v in data[1]))  # type: ignore[misc]
    if isinstance(data, list):
        return Arr(tuple(_from_json(v, text) for v in data))
    if data is None:
        return Null()
    if isinstance(data, bool):
        return Bool(data)
    if isinstance(data, Num):  # parse_int / parse_float keep numbers as written
        return data
    if isinstance(data, str):
        return Str(data)
    raise TypeError(type(data))


def _markdown(text: str, depth: int) -> tuple[list[Value], str | None]:
    """The code blocks of `text`, and the text after the last one (if any)."""
    out: list[Value] = []
    rest = text
    while True:
        start = _MD_START.search(rest)
        if start is None:
            break
        tail = rest[start.end():]
        end = _MD_END.search(tail)
        if end is None:
            body, rest, last = tail.strip(), "", True
        else:
            body, rest, last = tail[: end.start()].strip(), tail[end.end():], False
        tag = start.group(1).strip() or "<unspecified>"
        out.append(Markdown(tag, parse(body, depth + 1, markdown=False)))
        if last:
            break
    return out, (rest if out and rest.strip() else None)


def _balanced(text: str, depth: int) -> list[Value]:
    """Every top-level `{...}` / `[...]` in `text`, each parsed on its own."""
    out: list[Value] = []
    stack: list[str] = []
    start = 0
    in_string = False
    escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"' and stack:
            in_string = True
        elif ch in "{[":
            if not stack:
                start = i
            stack.append(ch)
        elif ch in "}]":
            if not stack:
                continue
            if stack[-1] != ("{" if ch == "}" else "["):
                return []
            stack.pop()
            if not stack:
                out.append(_inner(text[start: i + 1], depth))
    if stack:
        out.append(_inner(text[start:], depth))
    return out


def _inner(text: str, depth: int) -> Value:
    v = parse(text, depth + 1, markdown=False, scan=False)
    # A nested parse of a balanced segment: keep its best reading.
    if isinstance(v, AnyOf) and len(v.choices) == 1:
        only = v.choices[0]
        return only.inner if isinstance(only, Fixed) else only
    return v


# -- the forgiving parser --------------------------------------------------------------------
def _fixing(text: str) -> Value | None:
    """A lenient parse of the whole of `text`; `None` when it holds nothing.

    At the top level a quoted string is a value, and unquoted text runs up
    to the next `{` or `[`. Several values read as one list when they are
    all strings; otherwise only the objects and arrays among them count
    (several of those read as their list).
    """
    parser = _Lenient(text, 0)
    values: list[Value] = []
    while True:
        parser.skip()
        ch = parser.peek()
        if ch == "":
            break
        try:
            if ch in "{[":
                values.append(parser.obj() if ch == "{" else parser.arr())
            elif text.startswith("```", parser.i):
                end = text.find("```", parser.i + 3)
                body = text[parser.i + 3: len(text) if end < 0 else end]
                parser.i = len(text) if end < 0 else end + 3
                values.append(Str(body.strip()))
            elif ch in "\"'`":
                values.append(Str(parser.quoted(ch, "")))
            else:
                start = parser.i
                while parser.i < len(text) and text[parser.i] not in "{[":
                    parser.i += 1
                values.append(bare_value(text[start: parser.i].strip()))
        except _Stop:
            break
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    if all(isinstance(v, Str) for v in values):
        return Arr(tuple(Fixed(v) for v in values))
    found = [v for v in values if isinstance(v, Obj | Arr)]
    if not found:
        return None
    return found[0] if len(found) == 1 else Arr(tuple(found))


class _Stop(Exception):
    pass


class _Lenient:
    def __init__(self, text: str, pos: int = 0) -> None:
        self.s = text
        self.i = pos

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def skip(self) -> None:
        s = self.s
        while self.i < len(s):
            ch = s[self.i]
            if ch.isspace():
                self.i += 1
            elif s.startswith("//", self.i):
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end + 1
            elif s.startswith("/*", self.i):
                end = s.find("*/", self.i + 2)
                self.i = len(s) if end < 0 else end + 2
            else:
                break

    def value(self, top: bool = False, stops: str = ",}]") -> Value:
        self.skip()
        ch = self.peek()
        if ch == "":
            raise _Stop
        if ch == "{":
            return self.obj()
        if ch == "[":
            return self.arr()
        if ch in "\"'`":
            return Str(self.quoted(ch, stops))
        return self.bare(stops)

    def obj(self) -> Obj:
        self.i += 1
        items: list[tuple[str, Value]] = []
        while True:
            self.skip()
            ch = self.peek()
            if ch == "":
                return Obj(tuple(items))
            if ch == "}":
                self.i += 1
                return Obj(tuple(items))
            if ch == ",":
                self.i += 1
                continue
            if ch in "\"'`":
                key = self.quoted(ch, ":")
            else:
                key = self.bare_text(":}")
                if not key:
                    self.i += 1
                    continue
            self.skip()
            if self.peek() == ":":
                self.i += 1
            self.skip()
            if self.peek() in ("", "}", ","):
                items.append((key, Null()))
                continue
            items.append((key, self.value(stops=",}")))

    def arr(self) -> Arr:
        self.i += 1
        items: list[Value] = []
        while True:
            self.skip()
            ch = self.peek()
            if ch == "":
                return Arr(tuple(items))
            if ch == "]":
                self.i += 1
                return Arr(tuple(items))
            if ch == ",":
                self.i += 1
                continue
            items.append(self.value(stops=",]"))

    def quoted(self, quote: str, stops: str) -> str:
        """A quoted string; a quote closes it only when a delimiter follows."""
        s = self.s
        self.i += 1
        out: list[str] = []
        while self.i < len(s):
            ch = s[self.i]
            if ch == "\\" and self.i + 1 < len(s):
                nxt = s[self.i + 1]
                esc = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "/": "/", "\\": "\\",
                       '"': '"', "'": "'", "`": "`"}
                if nxt == "u" and re.fullmatch(r"[0-9a-fA-F]{4}", s[self.i + 2: self.i + 6] or ""):
                    out.append(chr(int(s[self.i + 2: self.i + 6], 16)))
                    self.i += 6
                    continue
                out.append(esc.get(nxt, "\\" + nxt))
                self.i += 2
                continue
            if ch == quote:
                j = self.i + 1
                while j < len(s) and s[j] in " \t\r\n":
                    j += 1
                if j >= len(s) or s[j] in stops + ",}]:" or s.startswith(("//", "/*"), j):
                    self.i += 1
                    return "".join(out)
            out.append(ch)
            self.i += 1
        return "".join(out)

    def bare_text(self, stops: str) -> str:
        s = self.s
        start = self.i
        while self.i < len(s) and s[self.i] not in stops and s[self.i] != "\n":
            self.i += 1
        return s[start: self.i].strip()

    def bare(self, stops: str) -> Value:
        text = self.bare_text(stops)
        if self.i < len(self.s) and self.s[self.i] == "\n":
            self.i += 1
        return bare_value(text)


_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def bare_value(text: str) -> Value:
    """An unquoted token: a number, `true`/`false`/`null`, or a string."""
    if text in ("true", "True"):
        return Bool(True)
    if text in ("false", "False"):
        return Bool(False)
    if text in ("null", "None"):
        return Null()
    if _NUMBER.fullmatch(text):
        return Num(text.replace(".e", "e") if not text.endswith(".") else text[:-1])
    return Str(text)


def describe(v: Value) -> str:
    """A short rendering of a candidate, for error messages."""
    if isinstance(v, Str):
        return json.dumps(v.value)
    if isinstance(v, Num):
        return v.text
    if isinstance(v, Bool):
        return "true" if v.value else "false"
    if isinstance(v, Null):
        return "null"
    if isinstance(v, Obj):
        return "{" + ", ".join(f"{json.dumps(k)}: {describe(x)}" for k, x in v.items) + "}"
    if isinstance(v, Arr):
        return "[" + ", ".join(describe(x) for x in v.items) + "]"
    if isinstance(v, AnyOf):
        return json.dumps(v.raw)
    if isinstance(v, Markdown | Fixed):
        return describe(v.inner)
    return str(v)
