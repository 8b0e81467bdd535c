"""BAML's standard library: one registry row per built-in.

Every built-in member and function is one `BuiltinSpec` row (`stdlib/spec.py`
says what each slot means and who reads it), written in the module of its
receiver type beside its implementation and its symbolic model:

    strings.py   string.*            ints.py     int.*
    arrays.py    array.* (+ prelude) floats.py   float.*
    maps.py      map.*               ordering.py min/max/clamp/cmp, bool.*
    namespaces.py baml.*, baml.sys.*, assert.*

`REGISTRY` maps each key (`"string.split"`, `"int.parse"`, `"assert.equal"`)
to its row and is immutable. The tables other layers used to keep by hand are
derived from it here, once:

- `BUILTINS`: key -> Python implementation (the emitter resolves calls with it);
- `MUTATES`: keys whose call changes the receiver in place (the trackers);
- `semantics/builtins.py` derives the checker's signature tables;
- `symbolic/builtin_models.py` derives the trackers' model table.

Adding a built-in is one row (plus its implementation and tests): every
consumer picks it up.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from ingot.semantics.types import BOOL, FLOAT, INT, STRING, ListT, MapT, Ty
from ingot.stdlib import arrays, floats, ints, maps, namespaces, ordering, strings
from ingot.stdlib.spec import BuiltinSpec, K, Kind, Signature, T, V

__all__ = ["BUILTINS", "MUTATES", "REGISTRY", "BuiltinSpec", "Kind"]


def _build(modules: Iterable[Any]) -> Mapping[str, BuiltinSpec]:
    table: dict[str, BuiltinSpec] = {}
    for module in modules:
        for spec in module.SPECS:
            if spec.key in table:
                raise ValueError(f"built-in {spec.key} is defined twice")
            table[spec.key] = spec
    return MappingProxyType(table)


# Every member of a built-in type is also reachable through the type's namespace, the receiver
# becoming the first argument: `baml.Int.abs(x)` is `x.abs()`, `baml.String.split(s, ",")` is
# `s.split(",")`, `baml.Int.parse("3")` is `int.parse("3")` (verified on the engine), with every
# parameter required. The
# prelude members are not: the engine rejects `baml.Array.map(xs, f)`'s lambda form anyway.
TYPE_NAMESPACES: Mapping[str, tuple[str, Ty]] = MappingProxyType({
    "int": ("baml.Int", INT), "float": ("baml.Float", FLOAT), "string": ("baml.String", STRING),
    "bool": ("baml.Bool", BOOL), "array": ("baml.Array", ListT(T)), "map": ("baml.Map", MapT(K, V)),
})


def _through_type_namespace(spec: BuiltinSpec) -> BuiltinSpec | None:
    if spec.receiver not in TYPE_NAMESPACES or spec.signature is None or spec.prelude is not None:
        return None
    namespace, receiver_type = TYPE_NAMESPACES[spec.receiver]
    signature = spec.signature
    if spec.kind is Kind.METHOD:
        # Optional trailing parameters are not optional here: the engine wants
        # `baml.String.slice(s, 1, n)` in full (E0005 for two arguments).
        signature = Signature((receiver_type, *signature.params), signature.ret)
    return dataclasses.replace(spec, key=f"{namespace}.{spec.name}", kind=Kind.FUNCTION,
                               signature=signature)


class _Module:
    def __init__(self, specs: Iterable[BuiltinSpec]) -> None:
        self.SPECS = tuple(specs)


def _namespaced(modules: Iterable[Any]) -> Iterator[_Module]:
    for module in modules:
        yield module
        yield _Module(alias for spec in module.SPECS
                      if (alias := _through_type_namespace(spec)) is not None)


REGISTRY: Mapping[str, BuiltinSpec] = _build(_namespaced(
    (strings, arrays, maps, ints, floats, ordering, namespaces)))

BUILTINS: Mapping[str, Any] = MappingProxyType(
    {key: spec.impl for key, spec in REGISTRY.items() if spec.impl is not None})

MUTATES: frozenset[str] = frozenset(key for key, spec in REGISTRY.items() if spec.mutates)
