"""The checker's view of the built-ins, derived from `ingot.stdlib.REGISTRY`.

Nothing is declared here: each built-in's signature is written once, in its
registry row (`stdlib/<receiver>.py`). `METHODS[kind][name]` is the signature
of a member called on a value of that kind, `FUNCTIONS[key]` that of a function
reached through a type or a namespace (`int.parse`, `assert.equal`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ingot.semantics.types import Ty
from ingot.stdlib import REGISTRY, TYPE_NAMESPACES
from ingot.stdlib.spec import ORDERING, K, Kind, Signature, T, U, V, sig

__all__ = ["ARRAY_METHODS", "ELEMENTS", "FUNCTIONS", "METHODS", "NAMESPACES", "PRELUDE_KEYS", "ORDERING", "STATIC_RECEIVERS", "Signature",
           "K", "T", "U", "V", "sig"]

RECEIVERS = ("string", "array", "map", "int", "float", "bool")


def _methods(receiver: str) -> Mapping[str, Signature]:
    return MappingProxyType({spec.name: spec.signature for spec in REGISTRY.values()
                             if spec.kind is Kind.METHOD and spec.receiver == receiver
                             and spec.signature is not None})


METHODS: Mapping[str, Mapping[str, Signature]] = MappingProxyType(
    {receiver: _methods(receiver) for receiver in RECEIVERS})

ARRAY_METHODS = METHODS["array"]

# Array members that exist only on arrays of some element types (`array.sum`: int and float).
ELEMENTS: Mapping[str, frozenset[Ty]] = MappingProxyType(
    {spec.name: spec.elements for spec in REGISTRY.values()
     if spec.kind is Kind.METHOD and spec.receiver == "array" and spec.elements is not None})

# Members written in BAML (`bex/prelude.baml`): the lowering calls `$prelude.<receiver>_<name>`.
PRELUDE_KEYS = frozenset(key for key, spec in REGISTRY.items() if spec.prelude is not None)

FUNCTIONS: Mapping[str, Signature] = MappingProxyType(
    {key: spec.signature for key, spec in REGISTRY.items()
     if spec.kind is Kind.FUNCTION and spec.signature is not None})

# Namespaces that exist only as prefixes of FUNCTIONS keys or of built-in types.
NAMESPACES = frozenset({"baml", "baml.sys", "baml.ops", "assert", "baml.panics", "baml.errors", "ai",
                        "ai.errors"} | {namespace for namespace, _ in TYPE_NAMESPACES.values()})

# Receiver kinds whose names are also types with static functions (`int.parse`).
STATIC_RECEIVERS = frozenset({"int", "float", "string", "bool"})
