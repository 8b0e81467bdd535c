"""`map.*`: BAML's map members and their registry rows.

Keys compare by value (`float` keys by `float_key`, so `NaN` finds `NaN`);
`MapKeyNotFound.key` is always the text `"(unknown)"`, as on the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from ingot.runtime.errors import panic
from ingot.runtime.limits import check_map, current
from ingot.runtime.render import render_value
from ingot.semantics.types import BOOL, INT, NULL, STRING, ListT, MapT, optional
from ingot.stdlib.ordering import equals_rows
from ingot.stdlib.spec import K, Rows, Tracker, V, sig
from ingot.symbolic.expr import Expr, Op, Sort
from ingot.symbolic.shadow import Opt, Shadow

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


# ====================================================================== models
#
# What the trackers know of a map's keys is a `MapSlots` in the shadow heap under `SLOTS`:
# its possible entries in insertion order, each with a guard (is it in the map?) and a key
# expression. An input map of `m.$len` entries has `max_len` slots guarded `m.$len > i` with
# keys `m.$key[i]` (pairwise distinct by their input domain), so a query can grow the map and
# choose its keys; a map the program builds gets a slot per write. Values keep their shadows
# under `("k", key)` as for any map. A lookup that needs to know *which* entry it read (`m[k]`,
# `get`, a write) pins it with an assumption `guard_j and key_j == k` (negatable, like a
# concretization); `has`, `length`, `keys` and the key check of `m[k]` are exact.

SLOTS = "$slots"
MODELLED_KEYS = (str, int)


@dataclass(frozen=True, slots=True)
class MapSlots:
    guards: tuple[Expr, ...]
    keys: tuple[Expr, ...]
    present: tuple[bool, ...]  # the guards' values on this run: the present slots are the dict's keys, in order
    count: Expr  # the number of entries


def put_slots(t: Tracker, m: dict[Any, Any], slots: MapSlots | None) -> None:
    """Keep the map's slots in the shadow heap (beside its values' shadows; never a value's shadow)."""
    t.hset(m, SLOTS, cast(Shadow, slots))


def slots_of(t: Tracker, m: dict[Any, Any]) -> MapSlots | None:
    """The map's slots: those in the heap, else one constant slot per concrete key (None: keys we do not model)."""
    slots = t.hget(m, SLOTS)
    if isinstance(slots, MapSlots):
        return slots
    if not all(type(k) in MODELLED_KEYS for k in m):
        return None
    x = t.x
    n = len(m)
    return MapSlots((x.true(),) * n, tuple(x.const(k) for k in m), (True,) * n, x.const(n, Sort.INT))


def has_expr(t: Tracker, slots: MapSlots, key: Expr) -> Expr:
    x = t.x
    return x.or_(*(x.and_(g, x.eq(k, key)) for g, k in zip(slots.guards, slots.keys)))


def slot_of(slots: MapSlots, m: dict[Any, Any], key: Any) -> int:
    """The slot holding the present concrete `key`."""
    present = [j for j, p in enumerate(slots.present) if p]
    return present[list(m).index(_key(key))]


def pin(t: Tracker, frame: Any, slots: MapSlots, j: int, key: Expr) -> None:
    """Record that the lookup of `key` found slot `j` (what its value's shadow stands for)."""
    t.assume(frame, t.x.and_(slots.guards[j], t.x.eq(slots.keys[j], key)))


def key_expr(t: Tracker, m: dict[Any, Any], key: Any, shadow: Shadow) -> tuple[MapSlots, Expr] | None:
    """The slots and the key's expression, when the lookup can be followed symbolically."""
    if type(key) not in MODELLED_KEYS:
        return None
    slots = slots_of(t, m)
    ek = t.lift(shadow, key)
    if slots is None or ek is None:
        return None
    return slots, ek


def lookup(t: Tracker, frame: Any, m: dict[Any, Any], key: Any, shadow: Shadow) -> tuple[Expr, Shadow] | None:
    """`key in m` as an expression, and the shadow of the value found (its slot pinned when it has
    one: which entry was read matters only then). None: the lookup is not followed."""
    found = key_expr(t, m, key, shadow)
    if found is None:
        return None
    slots, ek = found
    value: Shadow = None
    if _key(key) in m:
        value = t.hget(m, ("k", _key(key)))
        if value is not None:
            pin(t, frame, slots, slot_of(slots, m, key), ek)
    return has_expr(t, slots, ek), value


def store(t: Tracker, frame: Any, m: dict[Any, Any], key: Any, shadow: Shadow, write: Callable[[], Any]) -> Any:
    """Run `write` (which stores `key` in `m`) and keep the slots up to date."""
    found = key_expr(t, m, key, shadow)
    if found is None:
        t.concretize(frame, shadow, key)
        forget(t, frame, m)
        return write()
    slots, ek = found
    if _key(key) in m:
        pin(t, frame, slots, slot_of(slots, m, key), ek)
        return write()
    x = t.x
    t.assume(frame, x.not_(has_expr(t, slots, ek)))
    result = write()
    put_slots(t, m, MapSlots(slots.guards + (x.true(),), slots.keys + (ek,), slots.present + (True,),
                              x.arith(Op.ADD, slots.count, x.const(1))))
    return result


def _rendered(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
    from ingot.stdlib import contents  # which needs `settle`, from here

    return contents.rendered(t, frame, fn, args, shadows)


def settle(t: Tracker, frame: Any, m: dict[Any, Any]) -> None:
    """Something no model follows reads the map's keys: fix what its slots said, then drop them."""
    slots = t.hget(m, SLOTS)
    if isinstance(slots, MapSlots):
        t.concretize(frame, slots.count, len(m))
        present = [k for k, p in zip(slots.keys, slots.present) if p]
        for k, concrete in zip(present, m):
            t.concretize(frame, k, concrete)
        put_slots(t, m, None)


def forget(t: Tracker, frame: Any, m: dict[Any, Any]) -> None:
    """The map changed in a way no model follows: settle its keys, drop its values' shadows."""
    settle(t, frame, m)
    for k in list(m):
        t.hset(m, ("k", k), None)


def _has(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    m, key = args
    found = key_expr(t, m, key, shadows[1])
    if found is None:
        t.concretize(frame, shadows[1], key)
        return fn(*args), None
    return fn(*args), has_expr(t, *found)


def _get(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    m, key = args
    found = lookup(t, frame, m, key, shadows[1])
    result = fn(*args)
    if found is None:
        t.concretize(frame, shadows[1], key)
        return result, None
    if result is None and _key(key) in m:
        return result, None  # a present null value: `get` cannot tell it from absence
    return result, Opt(found[0], found[1])


def _length(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    slots = t.hget(args[0], SLOTS)
    return fn(*args), slots.count if isinstance(slots, MapSlots) else None


def _listing(values: bool) -> Callable[..., tuple[Any, Shadow]]:
    """`keys()` / `values()`: a list whose length and elements keep the map's shadows."""
    def model(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
        m = args[0]
        out = fn(*args)
        slots = t.hget(m, SLOTS)
        if isinstance(slots, MapSlots):
            if not slots.count.is_const:
                t.hset(out, "$len", slots.count)
            if not values:
                present = [k for k, p in zip(slots.keys, slots.present) if p]
                for i, k in enumerate(present):
                    t.hset(out, i, None if k.is_const else k)
        if values:
            for i, k in enumerate(m):
                t.hset(out, i, t.hget(m, ("k", k)))
        return out, None
    return model


def _set(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    m, key, value = args
    before = t.hget(m, ("k", _key(key))) if _key(key) in m else None
    result = store(t, frame, m, key, shadows[1], lambda: fn(*args))
    t.hset(m, ("k", _key(key)), shadows[2])
    return result, before if result is not None else None


def _get_or_insert(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
                   shadows: list[Shadow]) -> tuple[Any, Shadow]:
    m, key, default = args
    inserted = _key(key) not in m
    result = store(t, frame, m, key, shadows[1], lambda: fn(*args))
    if inserted:
        t.hset(m, ("k", _key(key)), shadows[2])
        return result, shadows[2]
    return result, t.hget(m, ("k", _key(key)))


def _delete(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    m, key = args
    found = key_expr(t, m, key, shadows[1])
    if found is None:
        forget(t, frame, m)
        t.concretize(frame, shadows[1], key)
        return fn(*args), None
    slots, ek = found
    x = t.x
    if _key(key) not in m:
        t.assume(frame, x.not_(has_expr(t, slots, ek)))
        return fn(*args), None
    j = slot_of(slots, m, key)
    pin(t, frame, slots, j, ek)
    before = t.hget(m, ("k", _key(key)))
    result = fn(*args)
    t.hset(m, ("k", _key(key)), None)
    keep = [i for i in range(len(slots.keys)) if i != j]
    put_slots(t, m, MapSlots(tuple(slots.guards[i] for i in keep), tuple(slots.keys[i] for i in keep),
                              tuple(slots.present[i] for i in keep), x.arith(Op.SUB, slots.count, x.const(1))))
    return result, before if result is not None else None


def _clear(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    m = args[0]
    for k in list(m):
        t.hset(m, ("k", k), None)
    if isinstance(t.hget(m, SLOTS), MapSlots):
        put_slots(t, m, MapSlots((), (), (), t.x.const(0, Sort.INT)))
    return fn(*args), None


# ======================================================================== rows

rows = Rows("map")
rows.internal("get_index", map_get_index)
rows.internal("set_index", map_set_index, mutates=True)
rows.method("length", map_length, sig(ret=INT), model=_length, never_panics=True)
rows.method("keys", map_keys, sig(ret=ListT(K)), model=_listing(values=False))
rows.method("values", map_values, sig(ret=ListT(V)), model=_listing(values=True))
rows.method("has", map_has, sig(K, ret=BOOL), model=_has, never_panics=True)
rows.method("get", map_get, sig(K, ret=optional(V)), model=_get, never_panics=True)
rows.method("set", map_set, sig(K, V, ret=optional(V)), mutates=True, model=_set)
rows.method("delete", map_delete, sig(K, ret=optional(V)), mutates=True, model=_delete)
rows.method("get_or_insert", map_get_or_insert, sig(K, V, ret=V), mutates=True, model=_get_or_insert)
rows.method("clear", map_clear, sig(ret=NULL), mutates=True, model=_clear)
rows.method("to_string", render_value, sig(ret=STRING), model=_rendered, deep_model=True)
equals_rows(rows, MapT(K, V))

SPECS = tuple(rows.specs)
