"""The output schema of a program as the LLM layer sees it.

`Schema` gathers what prompt rendering and reply parsing need about classes
and enums: field and variant names with their `@alias`, `@description`,
`///` docs and `@skip`. It also puts types into the engine's canonical form
(`canonical`): non-recursive aliases expanded, unions flattened,
deduplicated, literals absorbed by their base type (`2 | int` is `int`,
`true | false` is `bool`) and sorted the way the engine orders union members
(int, float, string, bool, literals, classes and enums by name, lists, maps,
`null` last). The engine renders and parses unions in that order, so both
halves of this package do too.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ingot.view import (
    AliasT,
    ClassT,
    EnumT,
    ListT,
    Lit,
    MapT,
    Prim,
    ProgramView,
    Ty,
    UnionT,
    VariantT,
)

NULL = Prim("null")
BOOL = Prim("bool")


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    ty: Ty
    alias: str | None = None
    description: str | None = None
    skip: bool = False

    @property
    def rendered(self) -> str:
        return self.alias or self.name


@dataclass(frozen=True, slots=True)
class Class:
    name: str
    fields: tuple[Field, ...]
    alias: str | None = None
    description: str | None = None

    @property
    def rendered(self) -> str:
        return self.alias or self.name

    @property
    def visible(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if not f.skip)


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    alias: str | None = None
    description: str | None = None
    skip: bool = False

    @property
    def rendered(self) -> str:
        return self.alias or self.name


@dataclass(frozen=True, slots=True)
class Enum:
    name: str
    variants: tuple[Variant, ...]
    alias: str | None = None
    description: str | None = None

    @property
    def rendered(self) -> str:
        return self.alias or self.name

    @property
    def visible(self) -> tuple[Variant, ...]:
        return tuple(v for v in self.variants if not v.skip)


def join_docs(parts: Iterable[str | None], sep: str = "\n") -> str | None:
    """`@description` first, then the `///` doc, as the engine combines them."""
    kept = [p for p in parts if p]
    return sep.join(kept) if kept else None


class Schema:
    """Classes, enums and aliases of one program, keyed by name."""

    def __init__(self, classes: Iterable[Class] = (), enums: Iterable[Enum] = (),
                 aliases: dict[str, Ty] | None = None) -> None:
        self.classes = {c.name: c for c in classes}
        self.enums = {e.name: e for e in enums}
        self.aliases = dict(aliases or {})
        self._recursive: dict[str, bool] = {}

    @classmethod
    def from_view(cls, view: ProgramView) -> Schema:
        """The schema of a compiled program, read through the MIR extension interface."""
        classes = []
        for c in view.classes():
            fields = tuple(Field(f.name, f.ty, f.alias, join_docs([f.description, f.doc]), f.skip)
                           for f in c.fields)
            classes.append(Class(c.name, fields, c.alias, join_docs([c.description, c.doc])))
        enums = []
        for e in view.enums():
            variants = tuple(Variant(m.name, m.alias, _variant_description(m.description, m.doc), m.skip)
                             for m in e.members)
            enums.append(Enum(e.name, variants, e.alias, join_docs([e.description, e.doc])))
        aliases = {name: view.alias_target(name) for name in view.aliases()}
        return cls(classes, enums, aliases)

    # -- types -----------------------------------------------------------------------------
    def is_recursive_alias(self, name: str) -> bool:
        if name not in self._recursive:
            self._recursive[name] = False  # provisional while walking
            self._recursive[name] = self._reaches(self.aliases.get(name), name, set())
        return self._recursive[name]

    def _reaches(self, ty: Ty | None, name: str, seen: set[str]) -> bool:
        if ty is None:
            return False
        if isinstance(ty, AliasT):
            if ty.name == name:
                return True
            if ty.name in seen:
                return False
            seen.add(ty.name)
            return self._reaches(self.aliases.get(ty.name), name, seen)
        if isinstance(ty, UnionT):
            return any(self._reaches(m, name, seen) for m in ty.members)
        if isinstance(ty, ListT):
            return self._reaches(ty.elem, name, seen)
        if isinstance(ty, MapT):
            return self._reaches(ty.key, name, seen) or self._reaches(ty.value, name, seen)
        return False

    def canonical(self, ty: Ty, sort: bool = True) -> Ty:
        """The engine's normal form of `ty` (see the module docstring).

        The engine renders union members sorted but parses them in the order
        they were written: `sort=False` keeps that order.
        """
        if isinstance(ty, AliasT):
            if self.is_recursive_alias(ty.name):
                return ty
            target = self.aliases.get(ty.name)
            return self.canonical(target, sort) if target is not None else ty
        if isinstance(ty, VariantT):
            return EnumT(ty.enum)
        if isinstance(ty, ListT):
            return ListT(self.canonical(ty.elem, sort))
        if isinstance(ty, MapT):
            return MapT(self.canonical(ty.key, sort), self.canonical(ty.value, sort))
        if isinstance(ty, UnionT):
            return self.union((self.canonical(m, sort) for m in ty.members), sort)
        return ty

    def canonical_parse(self, ty: Ty) -> Ty:
        return self.canonical(ty, sort=False)

    def union(self, members: Iterable[Ty], sort: bool = True) -> Ty:
        flat: list[Ty] = []
        seen: set[Any] = set()
        for m in members:
            for p in (m.members if isinstance(m, UnionT) else (m,)):
                key = _identity(p)
                if key not in seen:
                    seen.add(key)
                    flat.append(p)
        prims = {m.name for m in flat if isinstance(m, Prim)}
        flat = [m for m in flat if not (isinstance(m, Lit) and _lit_base(m) in prims)]
        bools = [m for m in flat if isinstance(m, Lit) and isinstance(m.value, bool)]
        if {m.value for m in bools} == {True, False}:
            flat = [m for m in flat if not any(m is b for b in bools)]
            if BOOL not in flat:
                flat.append(BOOL)
        if sort:
            flat.sort(key=_order)
        return flat[0] if len(flat) == 1 else UnionT(tuple(flat))

    def alias_body(self, name: str, sort: bool = True) -> Ty:
        """The canonical body of a recursive alias (references to it stay `AliasT`)."""
        body = self.aliases.get(name)
        return self.canonical(body, sort) if body is not None else NULL


def non_null(ty: Ty) -> tuple[Ty, ...]:
    if isinstance(ty, UnionT):
        return tuple(m for m in ty.members if m != NULL)
    return () if ty == NULL else (ty,)


def is_optional(ty: Ty) -> bool:
    return ty == NULL or (isinstance(ty, UnionT) and NULL in ty.members)


_PRIM_ORDER = {"int": 0, "float": 1, "string": 2, "bool": 3}


def _identity(ty: Ty) -> Any:
    """A hashable identity that keeps `true` and `1` apart (they are equal in Python)."""
    return ("lit", type(ty.value).__name__, ty.value) if isinstance(ty, Lit) else ty


def _lit_base(lit: Lit) -> str:
    v = lit.value
    return "bool" if isinstance(v, bool) else "int" if isinstance(v, int) else \
        "float" if isinstance(v, float) else "string"


def _order(ty: Ty) -> tuple[Any, ...]:
    if isinstance(ty, Prim):
        return (10, 0) if ty.name == "null" else (0, _PRIM_ORDER.get(ty.name, 9))
    if isinstance(ty, Lit):
        kind = {"int": 0, "float": 1, "string": 2, "bool": 3}[_lit_base(ty)]
        return (1, kind, str(ty.value))
    if isinstance(ty, ClassT):
        return (2, ty.name)
    if isinstance(ty, EnumT):
        return (3, ty.name)
    if isinstance(ty, ListT):
        return (4, _order(ty.elem))
    if isinstance(ty, MapT):
        return (5, _order(ty.key), _order(ty.value))
    if isinstance(ty, AliasT):
        return (6, ty.name)
    return (9, str(ty))










def _variant_description(description: str | None, doc: str | None) -> str | None:
    # The engine joins a variant's @description and its `///` doc with a space.
    return join_docs([description, doc], " ")
