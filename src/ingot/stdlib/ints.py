"""`int.*`: BAML's int members and static functions, their models and rows.

Ints are 64-bit: a result outside the range is an `IntegerOverflow` panic,
except `pow`, which saturates at the int bounds and is 0 for a negative
exponent (verified on the engine). `int.parse` raises the catchable
`ParseError` with the engine's message.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ingot.runtime.errors import panic, throw_error
from ingot.runtime.render import quote_string
from ingot.runtime.values import INT_MAX, INT_MIN
from ingot.semantics.types import INT, STRING
from ingot.stdlib.ordering import compare_rows
from ingot.stdlib.spec import Rows, Tracker, sig
from ingot.stdlib.string_models import int_parse_model
from ingot.symbolic.shadow import Shadow

_U64 = (1 << 64) - 1


def _invalid(message: str) -> Exception:
    return throw_error("InvalidArgument", message)



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


# ====================================================================== models


def _int_abs(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
             shadows: list[Shadow]) -> tuple[Any, Shadow]:
    e = t.scalar(shadows[0], args[0])
    if e is None:
        return fn(*args), None
    x = t.x
    t.check(frame, "IntegerOverflow", x.not_(x.eq(e, x.const(INT_MIN))), args[0] != INT_MIN)
    result = fn(*args)
    return result, x.ite(x.lt(e, x.const(0)), x.neg(e), e)


# ======================================================================== rows

rows = Rows("int")
rows.method("abs", int_abs, sig(ret=INT), model=_int_abs)
rows.method("pow", int_pow, sig(INT, ret=INT))
rows.method("isqrt", int_isqrt, sig(ret=INT))
rows.method("ilog", int_ilog, sig(INT, ret=INT))
rows.method("leading_zeros", int_leading_zeros, sig(ret=INT))
rows.method("leading_ones", int_leading_ones, sig(ret=INT))
rows.method("trailing_zeros", int_trailing_zeros, sig(ret=INT))
rows.method("trailing_ones", int_trailing_ones, sig(ret=INT))
rows.method("count_ones", int_count_ones, sig(ret=INT))
rows.method("count_zeros", int_count_zeros, sig(ret=INT))
rows.method("to_string", int_to_string, sig(ret=STRING))
compare_rows(rows, INT, numeric=True)
rows.function("parse", int_parse, sig(STRING, ret=INT), model=int_parse_model, never_panics=True, throws="baml.errors.ParseError")
rows.function("max_value", int_max_value, sig(ret=INT))
rows.function("min_value", int_min_value, sig(ret=INT))

SPECS = tuple(rows.specs)
