"""`map.*`: BAML's map members and their registry rows.

Keys compare by value (`float` keys by `float_key`, so `NaN` finds `NaN`);
`MapKeyNotFound.key` is always the text `"(unknown)"`, as on the engine.
"""

from __future__ import annotations

from typing import Any

from ingot.runtime.errors import panic
from ingot.runtime.limits import check_map, current
from ingot.runtime.render import render_value
from ingot.semantics.types import BOOL, INT, NULL, STRING, ListT, optional
from ingot.stdlib.spec import K, Rows, V, sig

_NAN = float("nan")



# ========================================================================= map


def _key(k: Any) -> Any:
    """One NaN object for every NaN key, so NaN finds NaN as in the engine."""
    return _NAN if type(k) is float and k != k else k


def map_get_index(m: dict[Any, Any], key: Any) -> Any:
    """`m[k]`: a missing key panics `MapKeyNotFound` (whose `key` the engine leaves unknown)."""
    try:
        return m[_key(key)]
    except KeyError:
        raise panic("MapKeyNotFound", key="(unknown)") from None


def _room(m: dict[Any, Any], key: Any) -> Any:
    """`key` as stored, once the map is known to have room for it."""
    key = _key(key)
    limit = current().map
    if limit is not None and len(m) >= limit and key not in m:
        check_map(len(m) + 1)
    return key


def map_set_index(m: dict[Any, Any], key: Any, value: Any) -> None:
    m[_room(m, key)] = value


def map_length(m: dict[Any, Any]) -> int:
    return len(m)


def map_keys(m: dict[Any, Any]) -> list[Any]:
    return list(m)


def map_values(m: dict[Any, Any]) -> list[Any]:
    return list(m.values())


def map_has(m: dict[Any, Any], key: Any) -> bool:
    return _key(key) in m


def map_get(m: dict[Any, Any], key: Any) -> Any:
    return m.get(_key(key))


def map_set(m: dict[Any, Any], key: Any, value: Any) -> Any:
    key = _room(m, key)
    previous = m.get(key)
    m[key] = value
    return previous


def map_delete(m: dict[Any, Any], key: Any) -> Any:
    return m.pop(_key(key), None)


def map_get_or_insert(m: dict[Any, Any], key: Any, default: Any) -> Any:
    return m.setdefault(_room(m, key), default)


def map_clear(m: dict[Any, Any]) -> None:
    m.clear()




# ======================================================================== rows

rows = Rows("map")
rows.internal("get_index", map_get_index)
rows.internal("set_index", map_set_index, mutates=True)
rows.method("length", map_length, sig(ret=INT))
rows.method("keys", map_keys, sig(ret=ListT(K)))
rows.method("values", map_values, sig(ret=ListT(V)))
rows.method("has", map_has, sig(K, ret=BOOL))
rows.method("get", map_get, sig(K, ret=optional(V)))
rows.method("set", map_set, sig(K, V, ret=optional(V)), mutates=True)
rows.method("delete", map_delete, sig(K, ret=optional(V)), mutates=True)
rows.method("get_or_insert", map_get_or_insert, sig(K, V, ret=V), mutates=True)
rows.method("clear", map_clear, sig(ret=NULL), mutates=True)
rows.method("to_string", render_value, sig(ret=STRING))

SPECS = tuple(rows.specs)
