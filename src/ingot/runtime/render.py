"""How values print: template interpolation `${v}` and `string.from(v)`.

The engine's rules, each checked on `baml_bridge==0.23.0`:

| value                | renders as                                            |
|----------------------|-------------------------------------------------------|
| `int`                | `3`, `-4611686018427387904`                           |
| `float`              | shortest round-trip digits, never an exponent, always |
|                      | a fractional part: `2.0`, `0.1`, `1e21` ->            |
|                      | `1000000000000000000000.0`, `1.5e-7` -> `0.00000015`, |
|                      | `-0.0`; `NaN`, `Infinity`, `-Infinity`                |
| `bool`, `null`       | `true`, `false`, `null`                               |
| `string`             | as is at the top level; *inside* a container it is    |
|                      | quoted and escaped like Rust's `{:?}`:                |
|                      | `["a\\"b", "x\\ny", "\\u{301}"]`                      |
| array                | `[1, 2]`, `[]`                                        |
| map                  | `{"k": 2.0}`, `{1: "v"}`, `{}` (keys render nested)   |
| enum value           | the variant name: `HAPPY`                             |
| class instance       | `Pt { x: 3, y: 2.0 }`; a class without fields: `Pt`   |

The class name is the short one (`DivisionByZero { dividend: 7 }`).
Function values render as `<function>` here; the engine prints internal
descriptions (`<closure captures=0>`) that ingot does not reproduce. A cyclic
value crashes the engine (it recurses until the process dies); here the
repeated object renders as `...`.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ingot.runtime._unicode import DEBUG_ESCAPED
from ingot.runtime.values import Instance, Variant

__all__ = ["render_value", "render_float", "float_display", "quote_string"]

_INF = float("inf")


def render_value(v: Any) -> str:
    """`string.from(v)` / `${v}`: strings stay bare at the top level."""
    t = type(v)
    if t is str:
        return v
    if t is int:
        return str(v)
    if t is bool:
        return "true" if v else "false"
    if t is float:
        return render_float(v)
    if v is None:
        return "null"
    return _nested(v, set())


def render_float(x: float) -> str:
    """A float as templates print it: `2.0`, `0.00000015`, `NaN`, `-Infinity`."""
    r = repr(x)
    if "e" in r:
        if x != x:
            return "NaN"
        if x == _INF:
            return "Infinity"
        if x == -_INF:
            return "-Infinity"
        r = format(Decimal(r), "f")
        if "." not in r:
            r += ".0"
    elif r == "nan":
        return "NaN"
    elif r == "inf":
        return "Infinity"
    elif r == "-inf":
        return "-Infinity"
    return r


def float_display(x: float) -> str:
    """A float as the engine's messages print it (Rust `Display`): `2`, `1e30` in full, `inf`."""
    if x != x:
        return "NaN"
    if x == _INF:
        return "inf"
    if x == -_INF:
        return "-inf"
    r = repr(x)
    if "e" in r:
        r = format(Decimal(r), "f")
    if r.endswith(".0"):
        r = r[:-2]
    return r


_SIMPLE_ESCAPES = {"\0": "\\0", "\t": "\\t", "\n": "\\n", "\r": "\\r", '"': '\\"', "\\": "\\\\"}


def quote_string(s: str) -> str:
    """A string as it renders inside a container (Rust's `{:?}` for `str`)."""
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return f'"{s}"'
    out = ['"']
    for c in s:
        esc = _SIMPLE_ESCAPES.get(c)
        if esc is not None:
            out.append(esc)
        elif c in DEBUG_ESCAPED:
            out.append(f"\\u{{{ord(c):x}}}")
        else:
            out.append(c)
    out.append('"')
    return "".join(out)


def _nested(v: Any, active: set[int]) -> str:
    """Render a value inside a container (strings quoted); `active` guards cycles."""
    t = type(v)
    if t is str:
        return quote_string(v)
    if t is int:
        return str(v)
    if t is bool:
        return "true" if v else "false"
    if t is float:
        return render_float(v)
    if v is None:
        return "null"
    if t is Variant:
        return v.name
    if t is list or t is dict or t is Instance:
        key = id(v)
        if key in active:
            return "..."
        active.add(key)
        try:
            if t is list:
                return "[" + ", ".join([_nested(x, active) for x in v]) + "]"
            if t is dict:
                items = [f"{_nested(k, active)}: {_nested(x, active)}" for k, x in v.items()]
                return "{" + ", ".join(items) + "}"
            name = v.cls.short_name
            if not v.fields:
                return name
            inner = ", ".join(
                f"{n}: {_nested(x, active)}" for n, x in zip(v.cls.field_names, v.fields)
            )
            return f"{name} {{ {inner} }}"
        finally:
            active.discard(key)
    return "<function>"
