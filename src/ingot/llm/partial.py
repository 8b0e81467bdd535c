"""Partial values of a reply that is still arriving, as the engine's streams yield them.

The text so far is read as JSON that may stop anywhere (`parse_partial`), then
shaped by the return type (`shape`), following the engine's streaming rules:

- a string may be unfinished (it grows as text arrives); a number, bool or
  enum value counts only once something follows it (`3` may become `31`);
- a list keeps the items that are already valid;
- a class is yielded once every required field it has is valid, except
  that a missing required string reads as `""`, a list as `[]`, a map as
  `{}` and an optional field as `null`;
- a value that is not valid yet yields nothing.

Values are plain Python, like `Program.call`'s results (classes as dicts,
enums as variant names).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ingot.llm.schema import NULL, Schema
from ingot.view import AliasT, ClassT, EnumT, ListT, MapT, Prim, Ty, UnionT

MISSING = object()


@dataclass
class Node:
    kind: str  # "obj" | "arr" | "str" | "num" | "lit"
    value: Any
    done: bool


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def ws(self) -> None:
        while self.i < len(self.text) and self.text[self.i] in " \t\r\n":
            self.i += 1

    def value(self) -> Node | None:
        self.ws()
        if self.i >= len(self.text):
            return None
        c = self.text[self.i]
        if c == "{":
            return self.obj()
        if c == "[":
            return self.arr()
        if c == '"':
            return self.string()
        return self.scalar()

    def obj(self) -> Node:
        self.i += 1
        items: list[tuple[str, Node]] = []
        while True:
            self.ws()
            if self.i >= len(self.text):
                return Node("obj", items, False)
            if self.text[self.i] == "}":
                self.i += 1
                return Node("obj", items, True)
            if self.text[self.i] == ",":
                self.i += 1
                continue
            key = self.string() if self.text[self.i] == '"' else None
            if key is None or not key.done:
                return Node("obj", items, False)
            self.ws()
            if self.i >= len(self.text) or self.text[self.i] != ":":
                return Node("obj", items, False)
            self.i += 1
            value = self.value()
            if value is None:
                return Node("obj", items, False)
            items.append((key.value, value))
            if not value.done:
                return Node("obj", items, False)

    def arr(self) -> Node:
        self.i += 1
        items: list[Node] = []
        while True:
            self.ws()
            if self.i >= len(self.text):
                return Node("arr", items, False)
            if self.text[self.i] == "]":
                self.i += 1
                return Node("arr", items, True)
            if self.text[self.i] == ",":
                self.i += 1
                continue
            value = self.value()
            if value is None:
                return Node("arr", items, False)
            items.append(value)
            if not value.done:
                return Node("arr", items, False)

    def string(self) -> Node:
        self.i += 1
        out: list[str] = []
        escapes = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
        while self.i < len(self.text):
            c = self.text[self.i]
            if c == '"':
                self.i += 1
                return Node("str", "".join(out), True)
            if c == "\\":
                if self.i + 1 >= len(self.text):
                    break
                e = self.text[self.i + 1]
                if e == "u":
                    digits = self.text[self.i + 2:self.i + 6]
                    if len(digits) < 4:
                        break
                    out.append(chr(int(digits, 16)))
                    self.i += 6
                    continue
                out.append(escapes.get(e, e))
                self.i += 2
                continue
            out.append(c)
            self.i += 1
        self.i = len(self.text)
        return Node("str", "".join(out), False)

    def scalar(self) -> Node:
        start = self.i
        while self.i < len(self.text) and self.text[self.i] not in ",]} \t\r\n":
            self.i += 1
        word = self.text[start:self.i]
        done = self.i < len(self.text)  # something follows it
        if word in ("true", "false", "null"):
            return Node("lit", {"true": True, "false": False, "null": None}[word], done)
        return Node("num", word, done)


def parse_partial(text: str) -> Node | None:
    """The first JSON object or array in `text` (possibly unfinished), or None."""
    starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
    if not starts:
        return None
    return _Reader(text[min(starts):]).value()


def partial_value(schema: Schema, text: str, ty: Ty) -> Any:
    """The value to yield for `text` so far, or MISSING when nothing is valid yet."""
    target = schema.canonical_parse(ty)
    if target == Prim("string"):
        return text
    node = parse_partial(text)
    return MISSING if node is None else shape(schema, node, target)


def shape(schema: Schema, node: Node, ty: Ty) -> Any:
    if isinstance(ty, AliasT):
        return shape(schema, node, schema.alias_body(ty.name))
    if isinstance(ty, UnionT):
        for member in ty.members:
            if member == NULL:
                continue
            value = shape(schema, node, member)
            if value is not MISSING:
                return value
        return MISSING
    if isinstance(ty, Prim):
        return _prim(node, ty.name)
    if isinstance(ty, EnumT):
        return _enum(schema, node, ty.name)
    if isinstance(ty, ListT):
        if node.kind != "arr":
            return MISSING
        items = [shape(schema, n, ty.elem) for n in node.value]
        return [v for v in items if v is not MISSING]
    if isinstance(ty, MapT):
        if node.kind != "obj":
            return MISSING
        out = {k: shape(schema, n, ty.value) for k, n in node.value}
        return {k: v for k, v in out.items() if v is not MISSING}
    if isinstance(ty, ClassT):
        return _class(schema, node, ty.name)
    return MISSING


def _prim(node: Node, name: str) -> Any:
    if name == "string":
        return node.value if node.kind == "str" else MISSING
    if not node.done:
        return MISSING
    if name == "bool":
        return node.value if node.kind == "lit" and isinstance(node.value, bool) else MISSING
    if name == "null":
        return None if node.kind == "lit" and node.value is None else MISSING
    if node.kind != "num":
        return MISSING
    try:
        return int(node.value) if name == "int" else float(node.value)
    except ValueError:
        return MISSING


def _enum(schema: Schema, node: Node, name: str) -> Any:
    enum = schema.enums.get(name)
    if enum is None or node.kind != "str" or not node.done:
        return MISSING
    for v in enum.visible:
        if node.value in (v.rendered, v.name):
            return v.name
    return MISSING


def _class(schema: Schema, node: Node, name: str) -> Any:
    cls = schema.classes.get(name)
    if cls is None or node.kind != "obj":
        return MISSING
    given = {k: n for k, n in node.value}
    out: dict[str, Any] = {}
    for f in cls.visible:
        ty = schema.canonical_parse(f.ty)
        value = shape(schema, given[f.rendered], ty) if f.rendered in given else MISSING
        if value is MISSING:
            value = _placeholder(ty)
            if value is MISSING:
                return MISSING
        out[f.name] = value
    return out


def _placeholder(ty: Ty) -> Any:
    """What a required field reads as while it has not arrived."""
    if isinstance(ty, UnionT) and NULL in ty.members:
        return None
    if ty == Prim("string"):
        return ""
    if isinstance(ty, ListT):
        return []
    if isinstance(ty, MapT):
        return {}
    return MISSING
