"""BAML's built-in methods and functions on runtime values.

`BUILTINS` maps a dotted key to a Python function taking positional arguments,
the receiver first: `BUILTINS["string.slice"]("héllo", 1, -1)`. Keys are
`<type>.<method>` for methods (`string.*`, `array.*`, `map.*`, `int.*`,
`float.*`, `bool.*`), `<type>.<name>` for static functions (`string.from`,
`int.parse`, `float.pi`) and the qualified name for globals (`baml.deep_copy`,
`baml.sys.panic`, `assert.equal`). Indexing has its own keys:
`array.get_index(xs, i)` / `array.set_index(xs, i, v)` for `xs[i]` and
`xs[i] = v`, `map.get_index(m, k)` / `map.set_index(m, k, v)` for `m[k]`.
`MUTATES` names the methods that change their receiver in place.

A failing built-in raises `BamlRaise`: a panic (`IndexOutOfBounds`,
`IntegerOverflow`, `AssertionFailed`, `UserPanic`, ...) or a catchable error
(`ParseError`, `InvalidArgument`) with the engine's message text.

Which members exist was checked by compiling calls to them on the engine
(`baml_bridge==0.23.0`): a missing one is E0007 "has no member". Of the
candidates: `string.char_count`, `string.add`, `string.to_code_points`,
`string.from_code_points`, every `string.is_*` predicate (also `is_control`,
`is_graphic` and the `is_ascii*` family), `int.ilog`, `int.leading_zeros`,
`int.trailing_zeros`, `int.leading_ones`, `int.trailing_ones`,
`int.count_ones`, `int.count_zeros`, `float.fract`, `float.abs`,
`float.signum`, `float.exp`, `float.ln`, `float.log`, `float.log2`,
`float.log10`, `float.cbrt`, `float.hypot`, the trigonometric and hyperbolic
functions, `float.to_radians`, `float.to_degrees`, `float.inf`, `float.e`,
`float.epsilon`, `float.golden_ratio`, `float.max_finite`,
`float.min_finite`, `bool.to_string`, `array.clear`, `array.shift`,
`array.splice`, `float[].median`, `map.clear` and `assert.not_null`,
`assert.approx_equal`, `assert.contains` all exist; `min`, `max` and `clamp`
exist on `int`, `float`, `string` and `bool`. Absent (E0007/E0003):
`int.to_float`, `int.signum`, `float.to_int`, `array.is_empty`,
`map.is_empty`, `map.entries`, `array.first`, `array.last`, `int[].mean`.
Not here: the higher-order array methods (`map`, `filter`, `sort_by`, ...),
`cmp` (it returns a `baml.ops.Ordering` value), `assert.is_type<T>`,
`string.to_utf8` (no `uint8array` in the value model) and regex searches in
`replace`.

Engine behaviour worth knowing (all verified):

- Strings index by code point; negative positions count from the end;
  `slice` clamps; `index_of`/`at`/`code_point_at` give `null` when absent.
- `array.includes`/`index_of`/`last_index_of` use a fixed equality, not `==`:
  numbers, strings, bools and null by value (`NaN` matches `NaN`, `0.0`
  matches `-0.0`), enum values by identity, arrays, maps and instances by
  *reference* (`[[1]].includes([1])` is false).
- `int[].sum()` checks every running total (`IntegerOverflow`); `float[].sum()`
  starts from `-0.0`, so `[].sum()` on a `float[]` is `-0.0`. An empty list
  does not say its element type, so `array.sum` returns the `int` `0` for it;
  the caller that knows the element is `float` uses `array.sum_float`.
- `int.pow` saturates at the int bounds and is 0 for a negative exponent.
- `array.sort` only exists for arrays of one orderable type (`int`, `float`,
  `string`, `bool`, or a class implementing `baml.ops.Compare`, which the VM
  sorts through `sort_by`): `(int | string)[]` and `int[][]` have no member
  `sort` (E0007), so mixed arrays never reach `array_sort`. Floats sort by
  the total order (`NaN` last), stably.
- `float.exp` is `e.pow(x)`, `ln`/`log2` are ratios of natural logs, as in the
  engine's standard library; most results come from the platform `libm`
  exactly as the engine's do. Three differ from what `math` gives and are
  matched specially: `hypot` calls C's `hypot` (CPython's `math.hypot` is its
  own algorithm), `atanh` is Rust's formula `0.5 * ln_1p(2x / (1 - x))`, and
  `cbrt` is correctly rounded (glibc's `cbrt` is not).
- Inverse-hyperbolic, trigonometric and logarithm functions return `NaN` or
  `±inf` where Python's `math` would raise.
- `MapKeyNotFound.key` is always the text `"(unknown)"`;
  `IndexOutOfBounds.index` is the index as written (`-5`, not `-4`).
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Mapping
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from ingot.runtime import _unicode as uni
from ingot.runtime.errors import panic, throw_error
from ingot.runtime.ops import add, eq, float_key, lt
from ingot.runtime.render import float_display, quote_string, render_value
from ingot.runtime.values import INT_MAX, INT_MIN, ORDERING, Instance, Variant

__all__ = ["BUILTINS", "MUTATES"]

_LIM = INT_MAX + 1
_BIG = float(1 << 52)  # floats at least this large are integers already
_INF = float("inf")
_NAN = float("nan")
_U64 = (1 << 64) - 1


def _invalid(message: str) -> Exception:
    return throw_error("InvalidArgument", message)


# ====================================================================== string

# Unicode White_Space, the set Rust's `trim` and `char::is_whitespace` use.
_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_ASCII_WS = frozenset(" \t\n\x0c\r")


def _all_in(s: str, table: uni.CharSet) -> bool:
    return all(c in table for c in s)


def string_length(s: str) -> int:
    return len(s)


def string_byte_length(s: str) -> int:
    return len(s) if s.isascii() else len(s.encode("utf-8"))


def string_is_empty(s: str) -> bool:
    return not s


def string_to_lower_case(s: str) -> str:
    if s.isascii():
        return s.lower()
    exc = uni.LOWER_EXCEPTIONS
    if not any(ord(c) in exc for c in s):
        return s.lower()
    out: list[str] = []
    run: list[str] = []
    for c in s:
        m = exc.get(ord(c))
        if m is None:
            run.append(c)
        else:
            out.append("".join(run).lower())
            run.clear()
            out.append(m)
    out.append("".join(run).lower())
    return "".join(out)


def string_to_upper_case(s: str) -> str:
    if s.isascii():
        return s.upper()
    exc = uni.UPPER_EXCEPTIONS
    if not any(ord(c) in exc for c in s):
        return s.upper()
    return "".join(exc.get(ord(c)) or c.upper() for c in s)


def string_trim(s: str) -> str:
    return s.strip(_WHITESPACE)


def string_trim_start(s: str) -> str:
    return s.lstrip(_WHITESPACE)


def string_trim_end(s: str) -> str:
    return s.rstrip(_WHITESPACE)


def string_includes(s: str, search: str) -> bool:
    return search in s


def string_starts_with(s: str, prefix: str) -> bool:
    return s.startswith(prefix)


def string_ends_with(s: str, suffix: str) -> bool:
    return s.endswith(suffix)


def string_split(s: str, delimiter: str) -> list[str]:
    if not delimiter:
        return list(s)
    return s.split(delimiter)


def string_chars(s: str) -> list[str]:
    return list(s)


def string_lines(s: str) -> list[str]:
    """Split on `\\n`, dropping a `\\r` before it; no trailing empty line."""
    if not s:
        return []
    parts = s.split("\n")
    last = parts.pop()  # the text after the final newline: keeps its `\r`
    out = [p[:-1] if p.endswith("\r") else p for p in parts]
    if last:
        out.append(last)
    return out


def string_slice(s: str, start: int, end: int) -> str:
    return s[start:end]  # Python's negative-index and clamping rules are BAML's


def string_replace(s: str, search: str, replacement: str) -> str:
    return s.replace(search, replacement, 1)


def string_replace_all(s: str, search: str, replacement: str) -> str:
    return s.replace(search, replacement)


def string_index_of(s: str, search: str) -> int | None:
    i = s.find(search)
    return None if i < 0 else i


def string_last_index_of(s: str, search: str) -> int | None:
    i = s.rfind(search)
    return None if i < 0 else i


def string_at(s: str, index: int) -> str | None:
    n = len(s)
    if index < 0:
        index += n
    return s[index] if 0 <= index < n else None


def string_code_point_at(s: str, index: int) -> int | None:
    n = len(s)
    if index < 0:
        index += n
    return ord(s[index]) if 0 <= index < n else None


def string_repeat(s: str, count: int) -> str:
    return s * count if count > 0 else ""


def string_to_string(s: str) -> str:
    return s


def string_add(s: str, other: str) -> str:
    return s + other


def string_to_code_points(s: str) -> list[int]:
    return [ord(c) for c in s]


def string_from_code_points(code_points: list[int]) -> str:
    out = []
    for i, cp in enumerate(code_points):
        if not (0 <= cp <= 0x10FFFF) or 0xD800 <= cp <= 0xDFFF:
            raise _invalid(
                f"string.from_code_points: value {cp} at index {i} is not a valid Unicode "
                "code point (must be in [0, 0x10FFFF] and not a surrogate)"
            )
        out.append(chr(cp))
    return "".join(out)


def string_is_numeric(s: str) -> bool:
    if s.isascii():
        return not s or s.isdigit()
    return _all_in(s, uni.NUMERIC)


def string_is_alphabetic(s: str) -> bool:
    if s.isascii():
        return not s or s.isalpha()
    return _all_in(s, uni.ALPHABETIC)


def string_is_alphanumeric(s: str) -> bool:
    if s.isascii():
        return not s or s.isalnum()
    return _all_in(s, uni.ALPHANUMERIC)


def string_is_uppercase(s: str) -> bool:
    if s.isascii():
        return all("A" <= c <= "Z" for c in s)
    return _all_in(s, uni.UPPERCASE)


def string_is_lowercase(s: str) -> bool:
    if s.isascii():
        return all("a" <= c <= "z" for c in s)
    return _all_in(s, uni.LOWERCASE)


def string_is_whitespace(s: str) -> bool:
    return _all_in(s, uni.WHITESPACE)


def string_is_control(s: str) -> bool:
    return _all_in(s, uni.CONTROL)


def string_is_graphic(s: str) -> bool:
    return _all_in(s, uni.GRAPHIC)


def string_is_ascii(s: str) -> bool:
    return s.isascii()


def string_is_ascii_numeric(s: str) -> bool:
    return all("0" <= c <= "9" for c in s)


def string_is_ascii_alphabetic(s: str) -> bool:
    return s.isascii() and (not s or s.isalpha())


def string_is_ascii_alphanumeric(s: str) -> bool:
    return s.isascii() and (not s or s.isalnum())


def string_is_ascii_uppercase(s: str) -> bool:
    return all("A" <= c <= "Z" for c in s)


def string_is_ascii_lowercase(s: str) -> bool:
    return all("a" <= c <= "z" for c in s)


def string_is_ascii_whitespace(s: str) -> bool:
    return all(c in _ASCII_WS for c in s)


def string_is_ascii_control(s: str) -> bool:
    return all(c < " " or c == "\x7f" for c in s)


def string_is_ascii_graphic(s: str) -> bool:
    return all("!" <= c <= "~" for c in s)


def string_is_ascii_hex(s: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in s)


# ======================================================================= array


def _same(a: Any, b: Any) -> bool:
    """The fixed equality of `includes`/`index_of`: values for scalars, else identity."""
    if a is b:
        return True
    t = type(a)
    if t is not type(b):
        return False
    if t is int or t is str or t is bool:
        return a == b
    if t is float:
        return a == b or (a != a and b != b)
    return False


def array_length(xs: list[Any]) -> int:
    return len(xs)


def array_at(xs: list[Any], index: int) -> Any:
    n = len(xs)
    if index < 0:
        index += n
    return xs[index] if 0 <= index < n else None


def array_get_index(xs: list[Any], index: int) -> Any:
    """`xs[i]`: negative from the end; out of range panics with `i` as written."""
    n = len(xs)
    j = index + n if index < 0 else index
    if 0 <= j < n:
        return xs[j]
    raise panic("IndexOutOfBounds", index=index, length=n)


def array_set_index(xs: list[Any], index: int, value: Any) -> None:
    """`xs[i] = v`: like `get_index`; never grows the array."""
    n = len(xs)
    j = index + n if index < 0 else index
    if 0 <= j < n:
        xs[j] = value
        return
    raise panic("IndexOutOfBounds", index=index, length=n)


def array_push(xs: list[Any], item: Any) -> int:
    xs.append(item)
    return len(xs)


def array_pop(xs: list[Any]) -> Any:
    return xs.pop() if xs else None


def array_concat(xs: list[Any], other: list[Any]) -> list[Any]:
    return xs + other


def array_slice(xs: list[Any], start: int, end: int) -> list[Any]:
    return xs[start:end]


def array_reverse(xs: list[Any]) -> list[Any]:
    return xs[::-1]


def array_sort(xs: list[Any]) -> list[Any]:
    """Sort in place (stable, natural order; floats by the total order) and return `xs`."""
    if len(xs) > 1:
        if type(xs[0]) is float:
            xs.sort(key=float_key)
        else:
            xs.sort()
    return xs


def array_includes(xs: list[Any], item: Any) -> bool:
    return any(_same(x, item) for x in xs)


def array_index_of(xs: list[Any], item: Any) -> int | None:
    for i, x in enumerate(xs):
        if _same(x, item):
            return i
    return None


def array_last_index_of(xs: list[Any], item: Any) -> int | None:
    for i in range(len(xs) - 1, -1, -1):
        if _same(xs[i], item):
            return i
    return None


def array_join(xs: list[Any], separator: str) -> str:
    return separator.join([render_value(x) for x in xs])


def _sum_float(xs: list[float]) -> float:
    total = -0.0  # Rust's f64 `Sum` starts from -0.0
    for x in xs:
        total += x
    return total


def array_sum(xs: list[Any]) -> Any:
    """`int[].sum()` (checked at every step) or `float[].sum()`, by the elements' type."""
    if xs and type(xs[0]) is float:
        return _sum_float(xs)
    total = 0
    for x in xs:
        total = add(total, x)
    return total


def array_sum_float(xs: list[float]) -> float:
    """`float[].sum()`, for a caller that knows the element type (`[]` sums to `-0.0`)."""
    return _sum_float(xs)


def array_mean(xs: list[float]) -> float:
    if not xs:
        raise _invalid("float[].mean: cannot take the mean of an empty array")
    return _sum_float(xs) / len(xs)


def _midpoint(a: float, b: float) -> float:
    """Rust's `f64::midpoint`: the mean of two floats without intermediate overflow."""
    lo = sys.float_info.min * 2.0
    hi = sys.float_info.max / 2.0
    abs_a, abs_b = abs(a), abs(b)
    if abs_a <= hi and abs_b <= hi:
        return (a + b) / 2.0
    if abs_a < lo:
        return a + b / 2.0
    if abs_b < lo:
        return a / 2.0 + b
    return a / 2.0 + b / 2.0


def array_median(xs: list[float]) -> float:
    if not xs:
        raise _invalid("float[].median: cannot take the median of an empty array")
    ys = sorted(xs, key=float_key)
    n = len(ys)
    if n % 2:
        return ys[n // 2]
    return _midpoint(ys[n // 2 - 1], ys[n // 2])


def array_remove_at(xs: list[Any], index: int) -> Any:
    n = len(xs)
    if index < 0:
        index += n
    return xs.pop(index) if 0 <= index < n else None


def array_unshift(xs: list[Any], item: Any) -> int:
    xs.insert(0, item)
    return len(xs)


def array_insert(xs: list[Any], item: Any, idx: int) -> int:
    """Insert `item` before position `idx` in `[-length, length]`; returns the new length."""
    n = len(xs)
    if not -n <= idx <= n:
        raise _invalid(f"array.insert: idx ({idx}) is out of range for length {n}")
    xs.insert(idx + n if idx < 0 else idx, item)
    return len(xs)


def array_clear(xs: list[Any]) -> None:
    xs.clear()


def array_shift(xs: list[Any]) -> Any:
    return xs.pop(0) if xs else None


def array_splice(xs: list[Any], start: int, count: int, replace: list[Any]) -> None:
    n = len(xs)
    if not -n <= start <= n:
        raise _invalid(f"array.splice: start ({start}) is out of range for length {n}")
    if count < 0:
        raise _invalid(f"array.splice: count ({count}) is negative")
    if start < 0:
        start += n
    xs[start : start + count] = list(replace)


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


def map_set_index(m: dict[Any, Any], key: Any, value: Any) -> None:
    m[_key(key)] = value


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
    key = _key(key)
    previous = m.get(key)
    m[key] = value
    return previous


def map_delete(m: dict[Any, Any], key: Any) -> Any:
    return m.pop(_key(key), None)


def map_get_or_insert(m: dict[Any, Any], key: Any, default: Any) -> Any:
    return m.setdefault(_key(key), default)


def map_clear(m: dict[Any, Any]) -> None:
    m.clear()


# ========================================================================= int


def int_abs(a: int) -> int:
    if a == INT_MIN:
        raise panic("IntegerOverflow", message=f"abs({a}) overflows int")
    return -a if a < 0 else a


def int_pow(a: int, exp: int) -> int:
    """`a ** exp`, saturating at the int bounds; 0 for a negative `exp`."""
    if exp < 0:
        return 0
    if a == 0:
        return 1 if exp == 0 else 0
    if a == 1:
        return 1
    if a == -1:
        return -1 if exp & 1 else 1
    if exp >= 63:  # |a| >= 2: certainly out of range
        return INT_MIN if a < 0 and exp & 1 else INT_MAX
    r = a**exp
    if r > INT_MAX:
        return INT_MAX
    if r < INT_MIN:
        return INT_MIN
    return r


def int_isqrt(a: int) -> int:
    if a < 0:
        raise _invalid(f"int.isqrt: negative input ({a}) has no integer square root")
    return math.isqrt(a)


def int_ilog(a: int, base: int) -> int:
    if a <= 0:
        raise _invalid(f"int.ilog: undefined for non-positive input (self = {a})")
    if base < 2:
        raise _invalid(f"int.ilog: base must be >= 2, got {base}")
    n = 0
    p = base
    while p <= a:
        p *= base
        n += 1
    return n


def int_leading_zeros(a: int) -> int:
    return 64 - (a & _U64).bit_length()


def int_leading_ones(a: int) -> int:
    return 64 - (~a & _U64).bit_length()


def int_trailing_zeros(a: int) -> int:
    u = a & _U64
    return 64 if u == 0 else (u & -u).bit_length() - 1


def int_trailing_ones(a: int) -> int:
    return int_trailing_zeros(~a)


def int_count_ones(a: int) -> int:
    return bin(a & _U64).count("1")


def int_count_zeros(a: int) -> int:
    return 64 - int_count_ones(a)


def int_to_string(a: int) -> str:
    return str(a)


_I64_MAX = (1 << 63) - 1


def int_parse(text: str) -> int:
    """Rust's `i64::from_str`, then BAML's 63-bit range check."""

    def fail(reason: str) -> Exception:
        return throw_error(
            "ParseError", f"int.parse: cannot parse {quote_string(text)} as int: {reason}"
        )

    if not text:
        raise fail("cannot parse integer from empty string")
    negative = text[0] == "-"
    digits = text[1:] if text[0] in "+-" else text
    if not digits:
        raise fail("invalid digit found in string")
    limit = _I64_MAX + 1 if negative else _I64_MAX
    value = 0
    for c in digits:
        if not "0" <= c <= "9":
            raise fail("invalid digit found in string")
        value = value * 10 + (ord(c) - 48)
        if value > limit:
            raise fail(
                "number too small to fit in target type"
                if negative
                else "number too large to fit in target type"
            )
    if negative:
        value = -value
    if not INT_MIN <= value <= INT_MAX:
        raise throw_error(
            "ParseError",
            f"int.parse: {quote_string(text)} is outside the representable BAML int range "
            f"[{INT_MIN}, {INT_MAX}]",
        )
    return value


def int_max_value() -> int:
    return INT_MAX


def int_min_value() -> int:
    return INT_MIN


# ======================================================================= float


def _floor(x: float) -> float:
    if not -_BIG < x < _BIG:  # already integral, infinite or NaN
        return x
    r = float(math.floor(x))
    return r if r else math.copysign(0.0, x)


def _ceil(x: float) -> float:
    if not -_BIG < x < _BIG:
        return x
    r = float(math.ceil(x))
    return r if r else math.copysign(0.0, x)


def _trunc(x: float) -> float:
    if not -_BIG < x < _BIG:
        return x
    r = float(math.trunc(x))
    return r if r else math.copysign(0.0, x)


def _round(x: float) -> float:
    """Round half away from zero, keeping the sign of a zero result."""
    if not -_BIG < x < _BIG:
        return x
    t = float(math.trunc(x))
    if abs(x - t) >= 0.5:
        t += math.copysign(1.0, x)
    return t if t else math.copysign(0.0, x)


def float_floor(x: float) -> float:
    return _floor(x)


def float_ceil(x: float) -> float:
    return _ceil(x)


def float_round(x: float) -> float:
    return _round(x)


def float_trunc(x: float) -> float:
    return _trunc(x)


def float_fract(x: float) -> float:
    return x - _trunc(x)


def _to_int(name: str, x: float, rounded: float) -> int:
    if x != x:
        raise _invalid(f"float.{name}: cannot convert NaN to int")
    if not -_LIM <= rounded < _LIM:
        raise _invalid(f"float.{name}: {float_display(x)} is out of int range")
    return int(rounded)


def float_itrunc(x: float) -> int:
    return _to_int("itrunc", x, _trunc(x))


def float_iround(x: float) -> int:
    return _to_int("iround", x, _round(x))


def float_ifloor(x: float) -> int:
    return _to_int("ifloor", x, _floor(x))


def float_iceil(x: float) -> int:
    return _to_int("iceil", x, _ceil(x))


def float_is_nan(x: float) -> bool:
    return x != x


def float_is_infinite(x: float) -> bool:
    return x == _INF or x == -_INF


def float_is_finite(x: float) -> bool:
    return -_INF < x < _INF


def float_abs(x: float) -> float:
    return math.fabs(x)


def float_signum(x: float) -> float:
    return 1.0 if x != x else math.copysign(1.0, x)


def float_sqrt(x: float) -> float:
    return _NAN if x < 0.0 or x != x else math.sqrt(x)


def _is_odd_integer(y: float) -> bool:
    return -_BIG * 2 < y < _BIG * 2 and y == math.floor(y) and int(y) & 1 == 1


def float_pow(x: float, y: float) -> float:
    """C's `pow` (what the engine calls), with its IEEE results where Python raises."""
    try:
        return math.pow(x, y)
    except OverflowError:
        return -_INF if x < 0 and _is_odd_integer(y) else _INF
    except ValueError:
        if x == 0.0:  # 0 ** negative: a pole
            return math.copysign(_INF, x) if _is_odd_integer(y) else _INF
        return _NAN


def _ln(x: float) -> float:
    if x > 0.0:
        return math.log(x)
    if x == 0.0:
        return -_INF
    return _NAN  # negative or NaN


def _fdiv(a: float, b: float) -> float:
    if b == 0.0:
        if a != a or a == 0.0:
            return _NAN
        return math.copysign(_INF, a) * math.copysign(1.0, b)
    return a / b


def float_log(x: float, base: float) -> float:
    return _fdiv(_ln(x), _ln(base))


def float_ln(x: float) -> float:
    return _fdiv(_ln(x), _ln(math.e))


def float_log2(x: float) -> float:
    return float_log(x, 2.0)


def float_log10(x: float) -> float:
    if x > 0.0:
        return math.log10(x)
    if x == 0.0:
        return -_INF
    return _NAN


def float_exp(x: float) -> float:
    return float_pow(math.e, x)


def float_cbrt(x: float) -> float:
    """The correctly rounded cube root, as the engine computes it.

    The platform's `cbrt` (what `math.cbrt` calls) can be an ulp off; the
    engine's is exact to the last bit, so pick the float whose rounding
    interval holds the true root, deciding with exact rational arithmetic.
    """
    y = math.cbrt(x)
    if x == 0.0 or not -_INF < x < _INF:
        return y
    target = Fraction(abs(x))
    c = abs(y)
    for _ in range(4):
        below, above = math.nextafter(c, 0.0), math.nextafter(c, _INF)
        if ((Fraction(below) + Fraction(c)) / 2) ** 3 > target:
            c = below
        elif ((Fraction(c) + Fraction(above)) / 2) ** 3 < target:
            c = above
        else:
            break
    return math.copysign(c, x)


def _load_libm_hypot() -> Callable[[float, float], float]:
    """The platform's C `hypot` (what the engine calls): `math.hypot` is CPython's own
    algorithm and differs from it in the last bit for about one input in 3000."""
    try:
        import ctypes
        import ctypes.util

        libm = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
        fn = libm.hypot
        fn.restype = ctypes.c_double
        fn.argtypes = [ctypes.c_double, ctypes.c_double]
        if fn(3.0, 4.0) != 5.0:  # pragma: no cover - a broken binding
            return math.hypot
        return fn  # type: ignore[no-any-return]
    except (OSError, AttributeError):  # pragma: no cover - no C libm to load
        return math.hypot


float_hypot = _load_libm_hypot()


def _libm(fn: Callable[[float], float], x: float) -> float:
    try:
        return fn(x)
    except ValueError:
        return _NAN
    except OverflowError:
        return _INF


def float_sin(x: float) -> float:
    return _libm(math.sin, x)


def float_cos(x: float) -> float:
    return _libm(math.cos, x)


def float_tan(x: float) -> float:
    return _libm(math.tan, x)


def float_asin(x: float) -> float:
    return _libm(math.asin, x)


def float_acos(x: float) -> float:
    return _libm(math.acos, x)


def float_atan(x: float) -> float:
    return math.atan(x)


def float_atan2(y: float, x: float) -> float:
    return math.atan2(y, x)


def float_sinh(x: float) -> float:
    try:
        return math.sinh(x)
    except OverflowError:
        return math.copysign(_INF, x)


def float_cosh(x: float) -> float:
    return _libm(math.cosh, x)


def float_tanh(x: float) -> float:
    return math.tanh(x)


def _ln_1p(x: float) -> float:
    if x > -1.0:
        return math.log1p(x)
    if x == -1.0:
        return -_INF
    return _NAN  # below -1 or NaN


def float_asinh(x: float) -> float:
    return math.asinh(x)


def float_acosh(x: float) -> float:
    return _libm(math.acosh, x)


def float_atanh(x: float) -> float:
    """Rust's formula `0.5 * ln_1p(2x / (1 - x))`, not the C library's `atanh`
    (which differs in the last bit for about one input in five)."""
    return 0.5 * _ln_1p(_fdiv(2.0 * x, 1.0 - x))


def float_to_radians(x: float) -> float:
    return x * math.pi / 180.0


def float_to_degrees(x: float) -> float:
    return x * 180.0 / math.pi


def float_to_string(x: float) -> str:
    return render_value(x)


_FLOAT_SYNTAX = re.compile(
    r"[+-]?(?:inf|infinity|nan|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)",
    re.IGNORECASE,
)


def float_parse(text: str) -> float:
    """Rust's `f64::from_str`: no whitespace, no `_`, `inf`/`infinity`/`nan` in any case."""
    if _FLOAT_SYNTAX.fullmatch(text):
        return float(text)
    reason = "cannot parse float from empty string" if not text else "invalid float literal"
    raise throw_error(
        "ParseError", f"float.parse: cannot parse {quote_string(text)} as float: {reason}"
    )


def float_pi() -> float:
    return math.pi


def float_e() -> float:
    return math.e


def float_golden_ratio() -> float:
    return 1.618033988749895


def float_nan() -> float:
    return _NAN


def float_inf() -> float:
    return _INF


def float_epsilon() -> float:
    return sys.float_info.epsilon


def float_max_finite() -> float:
    return sys.float_info.max


def float_min_finite() -> float:
    return -sys.float_info.max


# ============================================================ min / max / clamp


def cmp_min(a: Any, b: Any) -> Any:
    """`a.min(b)` of `baml.ops.Compare`: ties keep `a`."""
    return b if lt(b, a) else a


def cmp_max(a: Any, b: Any) -> Any:
    """`a.max(b)`: ties keep `a`; `NaN` is the greatest float."""
    return b if lt(a, b) else a


def cmp_clamp(a: Any, lo: Any, hi: Any) -> Any:
    """`a.clamp(lo, hi)` = `a.min(hi).max(lo)`, so `lo > hi` gives `lo`."""
    return cmp_max(cmp_min(a, hi), lo)


def cmp(a: Any, b: Any) -> Variant:
    """`a.cmp(b)` -> baml.ops.Ordering (floats in the total order: NaN above everything)."""
    if lt(a, b):
        return ORDERING.variants[0]
    if eq(a, b):
        return ORDERING.variants[1]
    return ORDERING.variants[2]


def bool_to_string(b: bool) -> str:
    return "true" if b else "false"


# ===================================================================== globals


def deep_copy(value: Any) -> Any:
    """`baml.deep_copy`: copies arrays, maps and instances; sharing and cycles survive."""
    t = type(value)
    if t is not list and t is not dict and t is not Instance:
        return value
    copies: dict[int, Any] = {}
    pending: list[Any] = []

    def shell(obj: Any) -> Any:
        k = type(obj)
        if k is list:
            new: Any = [None] * len(obj)
        elif k is dict:
            new = {}
        else:
            new = Instance(obj.cls, [None] * len(obj.fields))
        copies[id(obj)] = new
        pending.append(obj)
        return new

    def child(v: Any) -> Any:
        k = type(v)
        if k is not list and k is not dict and k is not Instance:
            return v
        got = copies.get(id(v))
        return got if got is not None else shell(v)

    root = shell(value)
    while pending:
        obj = pending.pop()
        new = copies[id(obj)]
        if type(obj) is list:
            for i, v in enumerate(obj):
                new[i] = child(v)
        elif type(obj) is dict:
            for k, v in obj.items():
                new[k] = child(v)
        else:
            fields = new.fields
            for i, v in enumerate(obj.fields):
                fields[i] = child(v)
    return root


def sys_panic(message: str) -> Any:
    raise panic("UserPanic", message=message)


def sys_exit(code: int) -> Any:
    raise panic("Exit", code=code)


def _assert_failed(message: str) -> Exception:
    return panic("AssertionFailed", message=f"assertion failed: {message}")


def assert_is_true(condition: bool) -> None:
    if not condition:
        raise _assert_failed("expected true")


def assert_not_null(value: Any) -> None:
    if value is None:
        raise _assert_failed("expected non-null value")


def _assert_operand(v: Any) -> str:
    return f'"{v}"' if type(v) is str else render_value(v)


def assert_equal(actual: Any, expected: Any) -> None:
    if not eq(actual, expected):
        raise _assert_failed(
            f"left = {_assert_operand(actual)}, right = {_assert_operand(expected)}"
        )


def assert_approx_equal(actual: float, expected: float, eps: float) -> None:
    if eps < 0.0 or eps != eps:
        raise _assert_failed("epsilon must be a non-negative number")
    delta = abs(actual - expected)
    if delta != delta or delta > eps:
        r = render_value
        raise _assert_failed(
            f'|left - right| = "{r(delta)}", eps = "{r(eps)}", '
            f'left = "{r(actual)}", right = "{r(expected)}"'
        )


def assert_contains(haystack: str, needle: str) -> None:
    if needle not in haystack:
        raise _assert_failed("string does not contain expected substring")


# ====================================================================== tables

_TABLE: dict[str, Callable[..., Any]] = {
    # string
    "string.length": string_length,
    "string.char_count": string_length,
    "string.byte_length": string_byte_length,
    "string.is_empty": string_is_empty,
    "string.to_lower_case": string_to_lower_case,
    "string.to_upper_case": string_to_upper_case,
    "string.trim": string_trim,
    "string.trim_start": string_trim_start,
    "string.trim_end": string_trim_end,
    "string.includes": string_includes,
    "string.starts_with": string_starts_with,
    "string.ends_with": string_ends_with,
    "string.split": string_split,
    "string.chars": string_chars,
    "string.lines": string_lines,
    "string.slice": string_slice,
    "string.replace": string_replace,
    "string.replace_all": string_replace_all,
    "string.index_of": string_index_of,
    "string.last_index_of": string_last_index_of,
    "string.at": string_at,
    "string.code_point_at": string_code_point_at,
    "string.repeat": string_repeat,
    "string.to_string": string_to_string,
    "string.add": string_add,
    "string.to_code_points": string_to_code_points,
    "string.is_numeric": string_is_numeric,
    "string.is_alphabetic": string_is_alphabetic,
    "string.is_alphanumeric": string_is_alphanumeric,
    "string.is_uppercase": string_is_uppercase,
    "string.is_lowercase": string_is_lowercase,
    "string.is_whitespace": string_is_whitespace,
    "string.is_control": string_is_control,
    "string.is_graphic": string_is_graphic,
    "string.is_ascii": string_is_ascii,
    "string.is_ascii_numeric": string_is_ascii_numeric,
    "string.is_ascii_alphabetic": string_is_ascii_alphabetic,
    "string.is_ascii_alphanumeric": string_is_ascii_alphanumeric,
    "string.is_ascii_uppercase": string_is_ascii_uppercase,
    "string.is_ascii_lowercase": string_is_ascii_lowercase,
    "string.is_ascii_whitespace": string_is_ascii_whitespace,
    "string.is_ascii_control": string_is_ascii_control,
    "string.is_ascii_graphic": string_is_ascii_graphic,
    "string.is_ascii_hex": string_is_ascii_hex,
    "string.min": cmp_min,
    "string.max": cmp_max,
    "string.clamp": cmp_clamp,
    "string.from": render_value,
    "string.from_code_points": string_from_code_points,
    # array
    "array.length": array_length,
    "array.at": array_at,
    "array.get_index": array_get_index,
    "array.set_index": array_set_index,
    "array.push": array_push,
    "array.pop": array_pop,
    "array.concat": array_concat,
    "array.slice": array_slice,
    "array.reverse": array_reverse,
    "array.sort": array_sort,
    "array.includes": array_includes,
    "array.index_of": array_index_of,
    "array.last_index_of": array_last_index_of,
    "array.join": array_join,
    "array.sum": array_sum,
    "array.sum_float": array_sum_float,
    "array.mean": array_mean,
    "array.median": array_median,
    "array.remove_at": array_remove_at,
    "array.unshift": array_unshift,
    "array.insert": array_insert,
    "array.clear": array_clear,
    "array.shift": array_shift,
    "array.splice": array_splice,
    "array.to_string": render_value,
    # map
    "map.get_index": map_get_index,
    "map.set_index": map_set_index,
    "map.length": map_length,
    "map.keys": map_keys,
    "map.values": map_values,
    "map.has": map_has,
    "map.get": map_get,
    "map.set": map_set,
    "map.delete": map_delete,
    "map.get_or_insert": map_get_or_insert,
    "map.clear": map_clear,
    "map.to_string": render_value,
    # int
    "int.abs": int_abs,
    "int.pow": int_pow,
    "int.isqrt": int_isqrt,
    "int.ilog": int_ilog,
    "int.leading_zeros": int_leading_zeros,
    "int.leading_ones": int_leading_ones,
    "int.trailing_zeros": int_trailing_zeros,
    "int.trailing_ones": int_trailing_ones,
    "int.count_ones": int_count_ones,
    "int.count_zeros": int_count_zeros,
    "int.to_string": int_to_string,
    "int.min": cmp_min,
    "int.max": cmp_max,
    "int.clamp": cmp_clamp,
    "int.parse": int_parse,
    "int.max_value": int_max_value,
    "int.min_value": int_min_value,
    # float
    "float.floor": float_floor,
    "float.ceil": float_ceil,
    "float.round": float_round,
    "float.trunc": float_trunc,
    "float.fract": float_fract,
    "float.itrunc": float_itrunc,
    "float.iround": float_iround,
    "float.ifloor": float_ifloor,
    "float.iceil": float_iceil,
    "float.is_nan": float_is_nan,
    "float.is_infinite": float_is_infinite,
    "float.is_finite": float_is_finite,
    "float.abs": float_abs,
    "float.signum": float_signum,
    "float.sqrt": float_sqrt,
    "float.pow": float_pow,
    "float.exp": float_exp,
    "float.ln": float_ln,
    "float.log": float_log,
    "float.log2": float_log2,
    "float.log10": float_log10,
    "float.cbrt": float_cbrt,
    "float.hypot": float_hypot,
    "float.sin": float_sin,
    "float.cos": float_cos,
    "float.tan": float_tan,
    "float.asin": float_asin,
    "float.acos": float_acos,
    "float.atan": float_atan,
    "float.atan2": float_atan2,
    "float.sinh": float_sinh,
    "float.cosh": float_cosh,
    "float.tanh": float_tanh,
    "float.asinh": float_asinh,
    "float.acosh": float_acosh,
    "float.atanh": float_atanh,
    "float.to_radians": float_to_radians,
    "float.to_degrees": float_to_degrees,
    "float.to_string": float_to_string,
    "float.min": cmp_min,
    "float.max": cmp_max,
    "float.clamp": cmp_clamp,
    "float.parse": float_parse,
    "float.pi": float_pi,
    "float.e": float_e,
    "float.golden_ratio": float_golden_ratio,
    "float.nan": float_nan,
    "float.inf": float_inf,
    "float.epsilon": float_epsilon,
    "float.max_finite": float_max_finite,
    "float.min_finite": float_min_finite,
    # ordering
    "int.cmp": cmp,
    "float.cmp": cmp,
    "string.cmp": cmp,
    "bool.cmp": cmp,
    # bool
    "bool.to_string": bool_to_string,
    "bool.min": cmp_min,
    "bool.max": cmp_max,
    "bool.clamp": cmp_clamp,
    # globals
    "baml.deep_copy": deep_copy,
    "baml.sys.panic": sys_panic,
    "baml.sys.exit": sys_exit,
    "assert.is_true": assert_is_true,
    "assert.not_null": assert_not_null,
    "assert.equal": assert_equal,
    "assert.approx_equal": assert_approx_equal,
    "assert.contains": assert_contains,
}

BUILTINS: Mapping[str, Callable[..., Any]] = MappingProxyType(_TABLE)

MUTATES: frozenset[str] = frozenset(
    {
        "array.set_index",
        "array.push",
        "array.pop",
        "array.sort",
        "array.remove_at",
        "array.unshift",
        "array.insert",
        "array.clear",
        "array.shift",
        "array.splice",
        "map.set_index",
        "map.set",
        "map.delete",
        "map.get_or_insert",
        "map.clear",
    }
)
