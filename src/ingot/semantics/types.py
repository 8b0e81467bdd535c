"""BAML types as the checker sees them, and the relations between them.

Types are frozen values: `Prim("int")`, `Lit(3)`, `ListT(elem)`, `MapT(k, v)`,
`ClassT("Point")`, `EnumT("Color")`, `UnionT(members)`, `FuncT(params, ret)`,
`AliasT("Tree")` (resolved through the `TypeEnv`, so aliases may be
recursive), `ANY` (recovery after an error, and the dynamic type of built-in
internals) and `NEVER` (the type of `return`, `throw`, `break`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol, Union

from ingot.fields_repr import FieldsRepr


@dataclass(frozen=True, slots=True, repr=False)
class Prim(FieldsRepr):
    name: str  # int float bool string null

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Lit(FieldsRepr):
    """A literal type: `"a"`, `3`, `true`. Its base is the primitive of its value."""

    value: int | float | str | bool

    # `true` and `1` are different literal types although True == 1 in Python.
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lit) and type(other.value) is type(self.value) and other.value == self.value

    def __hash__(self) -> int:
        return hash((type(self.value), self.value))

    @property
    def base(self) -> Prim:
        v = self.value
        if isinstance(v, bool):
            return BOOL
        if isinstance(v, int):
            return INT
        if isinstance(v, float):
            return FLOAT
        return STRING

    def __str__(self) -> str:
        v = self.value
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return repr(v)


@dataclass(frozen=True, slots=True, repr=False)
class ListT(FieldsRepr):
    elem: Ty

    def __str__(self) -> str:
        inner = str(self.elem)
        if isinstance(self.elem, (UnionT, FuncT)):
            inner = f"({inner})"
        return f"{inner}[]"


@dataclass(frozen=True, slots=True, repr=False)
class MapT(FieldsRepr):
    key: Ty
    value: Ty

    def __str__(self) -> str:
        return f"map<{self.key}, {self.value}>"


@dataclass(frozen=True, slots=True, repr=False)
class ClassT(FieldsRepr):
    name: str  # user classes by their name; built-in ones qualified ("baml.panics.X")

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True, repr=False)
class EnumT(FieldsRepr):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True, repr=False)
class VariantT(FieldsRepr):
    """The literal type of one enum variant (`let c = C.R` gives `C.R`)."""

    enum: str
    variant: str

    def __str__(self) -> str:
        return f"{self.enum}.{self.variant}"


@dataclass(frozen=True, slots=True, repr=False)
class UnionT(FieldsRepr):
    members: tuple[Ty, ...]

    def __str__(self) -> str:
        non_null = [m for m in self.members if m != NULL]
        if len(non_null) == 1 and len(self.members) == 2:
            inner = str(non_null[0])
            if isinstance(non_null[0], FuncT):
                inner = f"({inner})"
            return f"{inner} | null" if isinstance(non_null[0], UnionT) else f"{inner} | null"
        return " | ".join(str(m) for m in self.members)


@dataclass(frozen=True, slots=True, repr=False)
class FuncT(FieldsRepr):
    params: tuple[Ty, ...]
    ret: Ty

    def __str__(self) -> str:
        return f"({', '.join(str(p) for p in self.params)}) -> {self.ret}"


@dataclass(frozen=True, slots=True, repr=False)
class AliasT(FieldsRepr):
    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True, repr=False)
class TypeVar(FieldsRepr):
    """A type parameter of a built-in signature (`T` in `T[].push(T)`)."""

    name: str

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True, slots=True, repr=False)
class Special(FieldsRepr):
    name: str  # "any", "never", "unknown"

    def __str__(self) -> str:
        return {"any": "unknown", "never": "never"}.get(self.name, self.name)


Ty = Union[Prim, Lit, ListT, MapT, ClassT, EnumT, VariantT, UnionT, FuncT, AliasT, TypeVar, Special]

INT = Prim("int")
FLOAT = Prim("float")
BOOL = Prim("bool")
STRING = Prim("string")
NULL = Prim("null")
ANY = Special("any")
NEVER = Special("never")
PRIMS = {"int": INT, "float": FLOAT, "bool": BOOL, "string": STRING, "null": NULL, "void": NULL}


class TypeEnv(Protocol):
    """What type relations need to know about the program: alias bodies."""

    def alias_target(self, name: str) -> Ty: ...


def union(members: Iterable[Ty]) -> Ty:
    """A normalised union: flattened, deduplicated, NEVER dropped, ANY absorbing."""
    flat: list[Ty] = []
    seen: set[Ty] = set()  # membership in linear time: a literal of 20,000 elements has 20,000 members
    for m in members:
        parts = m.members if isinstance(m, UnionT) else (m,)
        for p in parts:
            if p == ANY:
                return ANY
            if p == NEVER or p in seen:
                continue
            seen.add(p)
            flat.append(p)
    if not flat:
        return NEVER
    if len(flat) == 1:
        return flat[0]
    # Literal types next to their base are subsumed by it.
    bases = {m for m in flat if isinstance(m, Prim)}
    if bases:
        flat = [m for m in flat if not (isinstance(m, Lit) and m.base in bases)]
    enums = {m.name for m in flat if isinstance(m, EnumT)}
    if enums:
        flat = [m for m in flat if not (isinstance(m, VariantT) and m.enum in enums)]
    return flat[0] if len(flat) == 1 else UnionT(tuple(flat))


def is_literal_union(t: Ty) -> bool:
    """`2 | 10`, `"a" | "b"`: the type of an `if` or `match` whose branches are literals."""
    return isinstance(t, UnionT) and all(isinstance(m, Lit) for m in t.members)


def optional(t: Ty) -> Ty:
    return union([t, NULL])


def widen(t: Ty) -> Ty:
    """Forget literal types: the type a `let` gets from `let x = 3`."""
    if isinstance(t, Lit):
        return t.base
    if isinstance(t, VariantT):
        return EnumT(t.enum)
    if isinstance(t, UnionT):
        return union(widen(m) for m in t.members)
    if isinstance(t, ListT):
        return ListT(widen(t.elem))
    if isinstance(t, MapT):
        return MapT(widen(t.key), widen(t.value))
    return t


def expand(t: Ty, env: TypeEnv) -> Ty:
    """Unfold aliases at the top level (repeatedly)."""
    seen = 0
    while isinstance(t, AliasT) and seen < 64:
        t = env.alias_target(t.name)
        seen += 1
    return t


def members_of(t: Ty, env: TypeEnv) -> tuple[Ty, ...]:
    t = expand(t, env)
    if isinstance(t, UnionT):
        out: list[Ty] = []
        for m in t.members:
            out.extend(members_of(m, env))
        return tuple(out)
    return (t,)


def without_null(t: Ty, env: TypeEnv) -> Ty:
    return union(m for m in members_of(t, env) if m != NULL)


def is_optional(t: Ty, env: TypeEnv) -> bool:
    return NULL in members_of(t, env)


def assignable(src: Ty, dst: Ty, env: TypeEnv, _depth: int = 0) -> bool:
    """Can a value of type `src` be used where `dst` is expected?"""
    if _depth > 32:
        return True  # recursive aliases: assume the best past this depth
    if src == dst or dst == ANY or src == ANY or src == NEVER:
        return True
    if isinstance(src, AliasT) or isinstance(dst, AliasT):
        return assignable(expand(src, env), expand(dst, env), env, _depth + 1)
    if isinstance(src, UnionT):
        return all(assignable(m, dst, env, _depth + 1) for m in src.members)
    if isinstance(dst, UnionT):
        return any(assignable(src, m, env, _depth + 1) for m in dst.members)
    if isinstance(src, Lit):
        if isinstance(dst, Lit):
            return type(src.value) is type(dst.value) and src.value == dst.value
        return assignable(src.base, dst, env, _depth + 1)
    if isinstance(src, VariantT):
        if isinstance(dst, VariantT):
            return src == dst
        return isinstance(dst, EnumT) and dst.name == src.enum
    if isinstance(src, ListT) and isinstance(dst, ListT):
        return assignable(src.elem, dst.elem, env, _depth + 1)
    if isinstance(src, MapT) and isinstance(dst, MapT):
        return assignable(src.key, dst.key, env, _depth + 1) and \
            assignable(src.value, dst.value, env, _depth + 1)
    if isinstance(src, FuncT) and isinstance(dst, FuncT):
        return len(src.params) == len(dst.params) and \
            all(assignable(d, s, env, _depth + 1) for s, d in zip(src.params, dst.params)) and \
            assignable(src.ret, dst.ret, env, _depth + 1)
    if isinstance(src, TypeVar) or isinstance(dst, TypeVar):
        return True
    return False


def display(t: Ty) -> str:
    return str(t)


def holds(t: Ty, test: Callable[[Ty], bool]) -> bool:
    """Does `t`, or a type inside it (an element, a key, a member, a parameter), pass `test`?"""
    if test(t):
        return True
    if isinstance(t, ListT):
        return holds(t.elem, test)
    if isinstance(t, MapT):
        return holds(t.key, test) or holds(t.value, test)
    if isinstance(t, UnionT):
        return any(holds(m, test) for m in t.members)
    if isinstance(t, FuncT):
        return any(holds(p, test) for p in t.params) or holds(t.ret, test)
    return False
