"""JSON shaped like the engine's typed wire classes.

The engine builds requests from typed classes and drops unset fields
(`drop_nulls`); when it reports a reply it decoded into a typed class, the
`raw_body` it attaches is that class serialized again: known fields only, in
declaration order, absent ones as `null` (`retyped`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# A class schema: field name -> the field's schema (a nested class, `[schema]` for a list of
# them, or None for a scalar or an open JSON value kept as it is).
Schema = dict[str, Any]


def drop_nulls(value: Any, verbatim: Iterable[str] = ()) -> Any:
    """`value` without null-valued object entries, recursively, except inside `verbatim` keys."""
    keep = frozenset(verbatim)
    if isinstance(value, dict):
        return {k: (v if k in keep else drop_nulls(v, keep)) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v, keep) for v in value]
    return value


def retyped(value: Any, schema: Any) -> Any:
    """`value` as the engine re-serializes it after decoding into the class `schema`."""
    if value is None:
        return None
    if isinstance(schema, list):
        return [retyped(v, schema[0]) for v in value] if isinstance(value, list) else value
    if isinstance(schema, dict):
        if not isinstance(value, dict):
            return value
        return {name: retyped(value.get(name), sub) for name, sub in schema.items()}
    return value
