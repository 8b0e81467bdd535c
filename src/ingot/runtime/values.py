"""The runtime value model shared by the VM, the built-ins and every consumer.

BAML values are plain Python values wherever Python has the same thing:

| BAML            | Python                                   |
|-----------------|------------------------------------------|
| `int`           | `int` (always inside [INT_MIN, INT_MAX])  |
| `float`         | `float`                                  |
| `bool`          | `bool` (test `bool` before `int`!)        |
| `string`        | `str`                                    |
| `null`          | `None`                                   |
| `T[]`           | `list` (a reference: aliasing is shared) |
| `map<K, V>`     | `dict` (insertion ordered, like BAML)    |
| class instance  | `Instance`                               |
| enum value      | `Variant` (one object per variant)       |
| function value  | `Callable` from `ingot.bex` (opaque here) |

This module imports nothing from the compiler: the built-ins and the VM both
stand on it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

INT_BITS = 63
INT_MIN = -(1 << (INT_BITS - 1))
INT_MAX = (1 << (INT_BITS - 1)) - 1


@dataclass(eq=False, slots=True)
class ClassInfo:
    """A class as the runtime sees it: a qualified name and its fields in order."""

    name: str  # qualified: "user.Point", "baml.panics.DivisionByZero"
    field_names: tuple[str, ...]
    field_index: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.field_index:
            self.field_index = {n: i for i, n in enumerate(self.field_names)}

    @property
    def short_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    def new(self, **fields: Any) -> Instance:
        """An instance with the given fields (missing ones are null)."""
        return Instance(self, [fields.get(n) for n in self.field_names])


@dataclass(eq=False, slots=True, repr=False)  # its own __repr__ below
class Instance:
    """A class instance: a reference to mutable field slots, reached by index."""

    cls: ClassInfo
    fields: list[Any]

    def get(self, name: str) -> Any:
        return self.fields[self.cls.field_index[name]]

    def set(self, name: str, value: Any) -> None:
        self.fields[self.cls.field_index[name]] = value

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={v!r}" for n, v in zip(self.cls.field_names, self.fields))
        return f"{self.cls.short_name}({inner})"


@dataclass(eq=False, slots=True)
class EnumInfo:
    """An enum: a qualified name and its variants; one `Variant` object per variant."""

    name: str  # qualified: "user.Color"
    variant_names: tuple[str, ...]
    variants: tuple[Variant, ...] = ()

    def __post_init__(self) -> None:
        if not self.variants:
            self.variants = tuple(Variant(self, i, n) for i, n in enumerate(self.variant_names))

    @property
    def short_name(self) -> str:
        return self.name.rsplit(".", 1)[-1]

    def variant(self, name: str) -> Variant:
        return self.variants[self.variant_names.index(name)]


@dataclass(eq=False, slots=True, repr=False)  # its own __repr__ below
class Variant:
    """An enum value. Variants are unique objects, so `is` is equality."""

    enum: EnumInfo
    index: int
    name: str

    def __repr__(self) -> str:
        return f"{self.enum.short_name}.{self.name}"


# Enums the language itself defines; every program shares these variant objects.
ORDERING = EnumInfo("baml.ops.Ordering", ("Less", "Equal", "Greater"))
BUILTIN_ENUMS: dict[str, EnumInfo] = {ORDERING.name: ORDERING}


def type_name(value: Any) -> str:
    """The BAML name of a value's runtime type, as messages print it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "map"
    if isinstance(value, Instance):
        return value.cls.short_name
    if isinstance(value, Variant):
        return value.enum.short_name
    return "function"


def iter_fields(inst: Instance) -> Iterable[tuple[str, Any]]:
    return zip(inst.cls.field_names, inst.fields)
