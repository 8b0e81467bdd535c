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
    if x != x:
        return "NaN"
    if x == _INF:
        return "Infinity"
    if x == -_INF:
        return "-Infinity"
    s = _plain(x)
    return s if "." in s else s + ".0"


def float_display(x: float) -> str:
    """A float as the engine's messages print it (Rust `Display`): `2`, `1e30` in full, `inf`."""
    if x != x:
        return "NaN"
    if x == _INF:
        return "inf"
    if x == -_INF:
        return "-inf"
    s = _plain(x)
    return s[:-2] if s.endswith(".0") else s


_EVEN = frozenset("02468")


def _plain(x: float) -> str:
    """The shortest digits that read back as finite `x`, in positional notation.

    Python's `repr` and Rust's formatting both choose the shortest digit string
    that reads back as `x`, closest to its exact value. When `x` lies exactly
    halfway between two such strings, Python takes the even last digit and Rust
    the one of larger magnitude: `732016053863787.25` is `...787.2` in Python
    but `...787.3` in the engine. That case is re-rounded here.
    """
    r = repr(x)
    if r[-1] in _EVEN:
        sign, digits, exp = Decimal(r).as_tuple()
        digits, exp = _strip_zeros(digits, int(exp))
        if not digits[-1] & 1:
            _, exact_digits, exact_exp = Decimal(x).as_tuple()
            exact_digits, _ = _strip_zeros(exact_digits, int(exact_exp))
            if (
                len(exact_digits) == len(digits) + 1
                and exact_digits[-1] == 5
                and Decimal((0, digits, exp)) < abs(Decimal(x))
            ):
                up = Decimal((sign, digits, exp)) + Decimal((sign, (1,), exp))
                if float(up) == x:
                    return format(up, "f")
    if "e" in r:
        return format(Decimal(r), "f")
    return r


def _strip_zeros(digits: tuple[int, ...], exp: int) -> tuple[tuple[int, ...], int]:
    n = len(digits)
    while n > 1 and digits[n - 1] == 0:
        n -= 1
    return digits[:n], exp + len(digits) - n


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
