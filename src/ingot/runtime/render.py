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

Float digits are Rust's: the shortest string that reads back as the value,
which is Python's `repr` except when the value lies exactly halfway between two
shortest candidates (Rust takes the larger magnitude, Python the even digit;
see `_plain`). Which characters a nested string escapes (control, format,
unassigned, separator and grapheme-extending characters, as `\\u{hex}`) comes
from the engine's own Unicode tables in `_unicode.py`.

The class name is the short one (`DivisionByZero { dividend: 7 }`).
Function values render as `<function>` here; the engine prints internal
descriptions (`<closure captures=0>`) that ingot does not reproduce. A cyclic
value crashes the engine (it recurses until the process dies); here the
repeated object renders as `...`. Rendering is iterative, so values nested
deeper than Python's recursion limit (a 5000-node linked list) render fine.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any, SupportsFloat, cast

from ingot.runtime import ops
from ingot.runtime._unicode import DEBUG_ESCAPED
from ingot.runtime.limits import join_text
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
    if t is list:  # fast path: a flat array of scalars
        parts = []
        for x in v:
            text = _scalar(x)
            if text is None:
                return _nested(v)
            parts.append(text)
        return "[" + join_text(parts, ", ") + "]"
    return _nested(v)


def render_float(x: float) -> str:
    """A float as templates print it: `2.0`, `0.00000015`, `NaN`, `-Infinity`."""
    r = repr(x)
    if r[-1] in _ODD and "e" not in r:
        return r  # the common case: Python's repr is already the engine's text
    if x != x:
        return "NaN"
    if x == _INF:
        return "Infinity"
    if x == -_INF:
        return "-Infinity"
    s = _plain(x, r)
    return s if "." in s else s + ".0"


def float_display(x: float) -> str:
    """A float as the engine's messages print it (Rust `Display`): `2`, `1e30` in full, `inf`."""
    if x != x:
        return "NaN"
    if x == _INF:
        return "inf"
    if x == -_INF:
        return "-inf"
    s = _plain(x, repr(x))
    return s[:-2] if s.endswith(".0") else s


_ODD = frozenset("13579")
_EVEN = frozenset("02468")
_POW5 = [5**k for k in range(27)]
_TIE_LIMIT = 10**18  # a tie needs an exact expansion of at most 18 digits


def _plain(x: float, r: str) -> str:
    """The shortest digits that read back as finite `x` (`r` is `repr(x)`), positionally.

    Python's `repr` and Rust's formatting both choose the shortest digit string
    that reads back as `x`, closest to its exact value. When `x` lies exactly
    halfway between two such strings, Python takes the even last digit and Rust
    the one of larger magnitude: `732016053863787.25` is `...787.2` in Python
    but `...787.3` in the engine. That case is re-rounded here. A tie needs an
    exact value `n / 2**k` (k >= 1) with at most 18 significant digits, which
    a cheap test on `as_integer_ratio` rules out for almost every float.
    """
    if r[-1] in _EVEN:
        n, d = x.as_integer_ratio()
        k = d.bit_length() - 1
        if 0 < k < len(_POW5) and abs(n) * _POW5[k] < _TIE_LIMIT:
            r = _round_tie_up(x, r)
    if "e" in r:
        return format(Decimal(r), "f")
    return r


def _round_tie_up(x: float, r: str) -> str:
    sign, digits, exp = Decimal(r).as_tuple()
    digits, exp = _strip_zeros(digits, int(exp))
    if digits[-1] & 1:
        return r
    _, exact_digits, exact_exp = Decimal(x).as_tuple()
    exact_digits, _ = _strip_zeros(exact_digits, int(exact_exp))
    if len(exact_digits) != len(digits) + 1 or exact_digits[-1] != 5:
        return r  # not exactly halfway between two candidates
    if Decimal((0, digits, exp)) > abs(Decimal(x)):
        return r  # Python already took the candidate of larger magnitude
    up = Decimal((sign, digits, exp)) + Decimal((sign, (1,), exp))
    return format(up, "f") if float(up) == x else r


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


def _scalar(v: Any) -> str | None:
    """The nested rendering of a non-container value, or None for a container."""
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
        return None
    return _opaque(v)


def _opaque(v: Any) -> str:
    """A host value: a one-element tensor standing in for a float renders as that float."""
    if ops.FLOAT_LIKE and isinstance(v, ops.FLOAT_LIKE):
        try:
            # isinstance against the runtime-registered tuple narrows `v` to object
            return render_float(float(cast(SupportsFloat, v)))
        except (TypeError, ValueError, RuntimeError):
            return str(v)  # a batched tensor: torch's own text
    return "<function>"


class _Text:
    """A piece of literal output on the render stack."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text


class _Leave:
    """Marks the end of a container on the render stack (for cycle detection)."""

    __slots__ = ("key",)

    def __init__(self, key: int) -> None:
        self.key = key


_OPEN_LIST, _CLOSE_LIST = _Text("["), _Text("]")
_OPEN_MAP, _CLOSE_MAP = _Text("{"), _Text("}")
_CLOSE_INSTANCE = _Text(" }")
_COMMA, _COLON = _Text(", "), _Text(": ")


def _nested(root: Any) -> str:
    """Render a container, strings inside it quoted. Iterative: the engine renders
    values nested thousands deep, deeper than Python's recursion limit."""
    out: list[str] = []
    active: set[int] = set()  # containers being rendered: a repeat is a cycle
    stack: list[Any] = [root]
    pop, push = stack.pop, stack.append
    while stack:
        v = pop()
        t = type(v)
        if t is _Text:
            out.append(v.text)
            continue
        if t is _Leave:
            active.discard(v.key)
            continue
        text = _scalar(v)
        if text is not None:
            out.append(text)
            continue
        key = id(v)
        if key in active:
            out.append("...")
            continue
        if t is Instance and not v.fields:
            out.append(v.cls.short_name)
            continue
        active.add(key)
        push(_Leave(key))
        if t is list:
            push(_CLOSE_LIST)
            for i in range(len(v) - 1, -1, -1):
                push(v[i])
                if i:
                    push(_COMMA)
            push(_OPEN_LIST)
        elif t is dict:
            push(_CLOSE_MAP)
            items = list(v.items())
            for i in range(len(items) - 1, -1, -1):
                k, x = items[i]
                push(x)
                push(_COLON)
                push(k)
                if i:
                    push(_COMMA)
            push(_OPEN_MAP)
        else:
            push(_CLOSE_INSTANCE)
            names = v.cls.field_names
            fields = v.fields
            for i in range(len(fields) - 1, -1, -1):
                push(fields[i])
                push(_Text(f", {names[i]}: " if i else f"{v.cls.short_name} {{ {names[0]}: "))
    return join_text(out)
