"""Mocked LLM replies: `program.options(llm={"Classify": reply}).call("F", ...)`.

A mock for an LLM function is one of

- a `str`: a raw model reply, parsed into the return type exactly as a real
  reply would be (and repaired like one: a reply that does not parse is
  followed by the next reply, if a `Replies` sequence has one);
- any other value: the result itself, checked against the return type
  (`{"category": "BILLING"}` for a class, `"BILLING"` is a raw reply, so an
  enum result is given as a reply or as an `ingot` enum value);
- `Replies(a, b, ...)`: one reply per call, in order; running out is an
  error. A single reply (not a `Replies`) answers every call;
- a callable: called with the function's arguments as keywords (plain Python
  values); what it returns is used as above.

Use `Value(x)` to pass a string as a value rather than as a raw reply, and
`Failure("ParseFailed")` for a call that fails with an `ai.errors` class.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ingot.llm.schema import NULL, Schema
from ingot.runtime.values import INT_MAX, INT_MIN, Instance, Variant
from ingot.view import AliasT, ClassT, EnumT, ListT, Lit, MapT, Prim, Ty, UnionT


class MockError(Exception):
    """A mock that cannot answer: no reply left, or a value of the wrong type."""


@dataclass(frozen=True, slots=True)
class Failure:
    """A mocked call that fails as a real one can: raises `ai.errors.<kind>` (ParseFailed by default)."""

    kind: str = "ParseFailed"
    message: str = "mocked failure"


@dataclass(frozen=True, slots=True)
class Value:
    """A mock result given as a value, even when it is a string."""

    value: Any


class Replies:
    """A sequence of mock replies for one LLM function: one per call (and repair turn), in order."""

    def __init__(self, *replies: Any) -> None:
        if len(replies) == 1 and isinstance(replies[0], list | tuple):
            replies = tuple(replies[0])
        self.replies = list(replies)
        self.used = 0

    def __repr__(self) -> str:
        return f"Replies({', '.join(map(repr, self.replies))})"

    def next(self, function: str) -> Any:
        if self.used >= len(self.replies):
            raise MockError(f"no mock reply left for `{function}` (it was given {len(self.replies)})")
        reply = self.replies[self.used]
        self.used += 1
        return reply


class Mocks:
    """The mocks of one run, by LLM function name."""

    def __init__(self, mocks: Mapping[str, Any] | None = None) -> None:
        self.mocks = dict(mocks or {})

    def __contains__(self, function: str) -> bool:
        return function in self.mocks

    def next(self, function: str, args: Callable[[], dict[str, Any]]) -> Any:
        mock = self.mocks[function]
        if isinstance(mock, Replies):
            mock = mock.next(function)
        if callable(mock) and not isinstance(mock, Value | Instance | Variant):
            mock = mock(**args())
        return mock


def to_value(value: Any, ty: Ty, schema: Schema, classes: Mapping[str, Any], enums: Mapping[str, Any],
             path: str = "result") -> Any:
    """A mock result as a BAML value of type `ty`; raises `MockError` when it does not fit."""
    if isinstance(value, Value):
        value = value.value
    ty = schema.canonical_parse(ty)

    def bad(expected: object) -> MockError:
        hint = (" (a list is one value; give one reply per call with ingot.llm.Replies(...))"
                if isinstance(value, list) and path.count(".") == 0 and "[" not in path else "")
        return MockError(f"{path}: expected {expected}, got {value!r}{hint}")

    if isinstance(ty, AliasT):
        return to_value(value, schema.alias_body(ty.name, sort=False), schema, classes, enums, path)
    if isinstance(ty, Prim):
        name = ty.name
        ok = {"int": type(value) is int and INT_MIN <= value <= INT_MAX,
              "float": type(value) in (int, float),
              "bool": type(value) is bool, "string": type(value) is str, "null": value is None}.get(name, False)
        if not ok:
            raise bad(name)
        return float(value) if name == "float" else value
    if isinstance(ty, Lit):
        if type(value) is type(ty.value) and value == ty.value:
            return value
        raise bad(ty)
    if isinstance(ty, UnionT):
        members = sorted(ty.members, key=lambda m: 0 if isinstance(m, Prim | Lit) else 1)
        if type(value) is int and any(m == Prim("int") for m in members):
            members = [Prim("int")] + [m for m in members if m != Prim("int")]
        for m in members:
            try:
                return to_value(value, m, schema, classes, enums, path)
            except MockError:
                continue
        raise bad(ty)
    if isinstance(ty, ListT):
        if not isinstance(value, list | tuple):
            raise bad(ty)
        return [to_value(v, ty.elem, schema, classes, enums, f"{path}[{i}]") for i, v in enumerate(value)]
    if isinstance(ty, MapT):
        if not isinstance(value, dict):
            raise bad(ty)
        return {to_value(k, ty.key, schema, classes, enums, f"{path}.<key>"):
                to_value(v, ty.value, schema, classes, enums, f"{path}.{k}") for k, v in value.items()}
    if isinstance(ty, EnumT):
        info = enums.get(ty.name)
        if isinstance(value, Variant) and value.enum.name == getattr(info, "name", None):
            return value
        enum = schema.enums.get(ty.name)
        if info is not None and enum is not None and isinstance(value, str):
            for v in enum.variants:
                if value == v.name:
                    return info.variant(v.name)
        raise bad(ty.name)
    if isinstance(ty, ClassT):
        info, cls = classes.get(ty.name), schema.classes.get(ty.name)
        if isinstance(value, Instance) and info is not None and value.cls.name == info.name:
            return value
        if info is None or cls is None or not isinstance(value, dict):
            raise bad(ty.name)
        names = {f.name for f in cls.fields}
        extra = sorted(set(value) - names)
        if extra:
            raise MockError(f"{path}.{extra[0]}: class {ty.name} has no field `{extra[0]}`")
        fields: dict[str, Any] = {}
        for f in cls.fields:
            fty = schema.canonical_parse(f.ty)
            if f.name in value:
                fields[f.name] = to_value(value[f.name], fty, schema, classes, enums, f"{path}.{f.name}")
            elif fty == NULL or (isinstance(fty, UnionT) and NULL in fty.members):
                fields[f.name] = None
            else:
                raise MockError(f"{path}.{f.name}: missing required field of type {fty}")
        return Instance(info, [fields.get(n) for n in info.field_names])
    raise bad(ty)
