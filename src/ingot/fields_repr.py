"""One `__repr__` for the toolchain's many small dataclasses (syntax and MIR nodes, types, views).

`dataclass(repr=True)` compiles a `__repr__` of its own for every class, one `exec` each: over the
few hundred classes an `ingot` process imports, some 15-20 ms of every start-up. A class declared
with `repr=False` on the base `FieldsRepr` prints exactly as the generated method would,
`Name(field=value, ...)` over the fields with `repr=True`, and `...` for a value inside itself.
"""

from __future__ import annotations

from dataclasses import fields
from reprlib import recursive_repr
from typing import Any


@recursive_repr()
def fields_repr(self: Any) -> str:
    shown = ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self) if f.repr)
    return f"{self.__class__.__qualname__}({shown})"


class FieldsRepr:
    """Base of a `repr=False` dataclass: the `__repr__` that `dataclass` would generate, shared."""

    __slots__ = ()  # adds no instance dictionary to a slotted dataclass
    __repr__ = fields_repr
