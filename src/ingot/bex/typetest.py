"""Runtime type tests: a checker type -> a predicate on runtime values.

Used by `x is T`, typed `let` patterns and `catch` arms, and by argument
validation at the API boundary.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ingot.runtime.values import Instance, Variant
from ingot.semantics.types import (
    AliasT,
    ClassT,
    EnumT,
    FuncT,
    ListT,
    Lit,
    MapT,
    Prim,
    Special,
    Ty,
    TypeEnv,
    UnionT,
    VariantT,
)

Predicate = Callable[[Any], bool]


def predicate(ty: Ty, env: TypeEnv, qualified: Callable[[str], str], _depth: int = 0) -> Predicate:
    """A function telling whether a value has type `ty` (aliases unfolded lazily)."""
    if isinstance(ty, Prim):
        return _PRIM_TESTS[ty.name]
    if isinstance(ty, Lit):
        expected = ty.value
        kind = type(expected)
        return lambda v: type(v) is kind and v == expected
    if isinstance(ty, ClassT):
        name = qualified(ty.name)
        return lambda v: isinstance(v, Instance) and v.cls.name == name
    if isinstance(ty, EnumT):
        name = qualified(ty.name)
        return lambda v: isinstance(v, Variant) and v.enum.name == name
    if isinstance(ty, VariantT):
        name, variant = qualified(ty.enum), ty.variant
        return lambda v: isinstance(v, Variant) and v.enum.name == name and v.name == variant
    if isinstance(ty, ListT):
        elem = predicate(ty.elem, env, qualified, _depth + 1) if _depth < 8 else _any
        return lambda v: isinstance(v, list) and all(elem(x) for x in v)
    if isinstance(ty, MapT):
        key = predicate(ty.key, env, qualified, _depth + 1) if _depth < 8 else _any
        val = predicate(ty.value, env, qualified, _depth + 1) if _depth < 8 else _any
        return lambda v: isinstance(v, dict) and all(key(k) and val(x) for k, x in v.items())
    if isinstance(ty, UnionT):
        parts = [predicate(m, env, qualified, _depth + 1) for m in ty.members]
        return lambda v: any(p(v) for p in parts)
    if isinstance(ty, AliasT):
        name = ty.name
        cache: list[Predicate] = []

        def alias_test(v: Any) -> bool:
            if not cache:
                cache.append(predicate(env.alias_target(name), env, qualified, 0))
            return cache[0](v)

        return alias_test
    if isinstance(ty, FuncT):
        from ingot.bex.program import Closure

        return lambda v: isinstance(v, Closure)
    if isinstance(ty, Special):
        return _any if ty.name == "any" else (lambda v: False)
    return _any


def _any(v: Any) -> bool:
    return True


_PRIM_TESTS: dict[str, Predicate] = {
    "int": lambda v: type(v) is int,
    "float": lambda v: type(v) is float,
    "bool": lambda v: type(v) is bool,
    "string": lambda v: type(v) is str,
    "null": lambda v: v is None,
}
