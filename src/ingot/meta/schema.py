"""JSON Schema (draft 2020-12) for BAML types, read through `ingot.view`.

Classes, enums and type aliases become `$defs` entries referenced with
`$ref`, so recursive types work. A field's `@description` (else its `///` doc
comment) becomes the property's `description`. The schemas accept exactly
what `Program.call` accepts: `T?` parameters and fields may be left out,
enum values are variant names, and a `float` also takes an integer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ingot.view import (
    NULL,
    AliasT,
    ClassT,
    ClassView,
    EnumT,
    EnumView,
    FunctionView,
    ListT,
    Lit,
    MapT,
    Prim,
    ProgramView,
    Special,
    Ty,
    UnionT,
    VariantT,
)

_PRIMS = {"int": "integer", "float": "number", "bool": "boolean", "string": "string", "null": "null"}


class SchemaError(ValueError):
    """A type that JSON cannot carry (a function type)."""


class SchemaBuilder:
    """Builds schemas for one program; named types referenced so far collect in `defs`."""

    def __init__(self, view: ProgramView) -> None:
        self._view = view
        self._classes: dict[str, ClassView] = {c.name: c for c in view.classes()}
        self._enums: dict[str, EnumView] = {e.name: e for e in view.enums()}
        self.defs: dict[str, dict[str, Any]] = {}

    def of(self, ty: Ty) -> dict[str, Any]:
        """The schema of one type (named types as `$ref`s into `defs`)."""
        if isinstance(ty, Prim):
            return {"type": _PRIMS[ty.name]}
        if isinstance(ty, Lit):
            return {"const": ty.value}
        if isinstance(ty, VariantT):
            return {"const": ty.variant}
        if isinstance(ty, ListT):
            return {"type": "array", "items": self.of(ty.elem)}
        if isinstance(ty, MapT):
            return self._map(ty)
        if isinstance(ty, UnionT):
            return self._union(ty)
        if isinstance(ty, (ClassT, EnumT, AliasT)):
            return self._named(ty)
        if isinstance(ty, Special) and ty.name != "never":
            return {}
        raise SchemaError(f"a value of type `{ty}` cannot be passed as JSON")

    def nullable(self, ty: Ty, _seen: frozenset[str] = frozenset()) -> bool:
        """Does `ty` accept null (so a parameter or field of this type may be left out)?"""
        if ty == NULL or (isinstance(ty, Special) and ty.name != "never"):
            return True
        if isinstance(ty, UnionT):
            return any(self.nullable(m, _seen) for m in ty.members)
        if isinstance(ty, AliasT) and ty.name not in _seen:
            return self.nullable(self._view.alias_target(ty.name), _seen | {ty.name})
        return False

    def document(self, root: dict[str, Any]) -> dict[str, Any]:
        """`root` with the collected `$defs` attached (a self-contained schema)."""
        if self.defs:
            root = {**root, "$defs": {k: self.defs[k] for k in sorted(self.defs)}}
        return root

    def _map(self, ty: MapT) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "object", "additionalProperties": self.of(ty.value)}
        key = self.of(ty.key)
        if key.get("type") != "string":
            out["propertyNames"] = key
        return out

    def _union(self, ty: UnionT) -> dict[str, Any]:
        members = list(ty.members)
        if all(isinstance(m, Prim) for m in members):
            names = [_PRIMS[m.name] for m in members if isinstance(m, Prim)]
            return {"type": names[0] if len(names) == 1 else names}
        rest = [m for m in members if m != NULL]
        if all(isinstance(m, (Lit, VariantT)) for m in rest):
            values: list[Any] = [m.value if isinstance(m, Lit) else m.variant for m in rest]  # type: ignore[union-attr]
            return {"enum": values + [None] * (len(rest) < len(members))}
        return {"anyOf": [self.of(m) for m in members]}

    def _named(self, ty: ClassT | EnumT | AliasT) -> dict[str, Any]:
        ref = {"$ref": f"#/$defs/{ty.name}"}
        if ty.name in self.defs:
            return ref
        self.defs[ty.name] = {}  # placeholder: a recursive reference finds it
        if isinstance(ty, ClassT):
            self.defs[ty.name] = self._class(ty.name)
        elif isinstance(ty, EnumT):
            self.defs[ty.name] = self._enum(ty.name)
        else:
            self.defs[ty.name] = self.of(self._view.alias_target(ty.name))
        return ref

    def _class(self, name: str) -> dict[str, Any]:
        cls = self._classes.get(name)
        if cls is None:
            raise SchemaError(f"the built-in class `{name}` cannot be passed as JSON")
        props: dict[str, Any] = {}
        required = []
        for f in cls.fields:
            props[f.name] = described(self.of(f.ty), f.description or f.doc)
            if not self.nullable(f.ty):
                required.append(f.name)
        out: dict[str, Any] = {"type": "object", "properties": props, "required": required,
                               "additionalProperties": False}
        return described(out, cls.description or cls.doc)

    def _enum(self, name: str) -> dict[str, Any]:
        enum = self._enums[name]
        return described({"type": "string", "enum": list(enum.variants)}, enum.doc)


def described(schema: dict[str, Any], text: str | None) -> dict[str, Any]:
    """`schema` with a `description` (a sibling of `$ref` is fine in draft 2020-12)."""
    return {**schema, "description": text} if text else schema


def input_schema(view: ProgramView, fn: FunctionView,
                 descriptions: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The object schema of `fn`'s parameters: non-nullable ones are required."""
    b = SchemaBuilder(view)
    props = {name: described(b.of(ty), (descriptions or {}).get(name)) for name, ty in fn.params}
    required = [name for name, ty in fn.params if not b.nullable(ty)]
    return b.document({"type": "object", "properties": props, "required": required,
                       "additionalProperties": False})


def output_schema(view: ProgramView, fn: FunctionView) -> dict[str, Any]:
    """`fn`'s return type wrapped as `{"result": ...}` (MCP wants an object schema)."""
    b = SchemaBuilder(view)
    return b.document({"type": "object", "properties": {"result": b.of(fn.ret)}, "required": ["result"]})
