"""`float.*`: BAML's float members and constants, and their registry rows.

Most results come from the platform `libm` exactly as the engine's do.
`exp` is `e.pow(x)`, `ln`/`log2` are ratios of natural logs, as in the
engine's standard library. Three differ from what `math` gives and are
matched specially: `hypot` calls C's `hypot` (CPython's `math.hypot` is its
own algorithm), `atanh` is Rust's formula `0.5 * ln_1p(2x / (1 - x))`, and
`cbrt` is correctly rounded (glibc's `cbrt` is not). Inverse-hyperbolic,
trigonometric and logarithm functions return `NaN` or `±inf` where Python's
`math` would raise.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable
from fractions import Fraction

from ingot.runtime.errors import throw_error
from ingot.runtime.render import float_display, quote_string, render_value
from ingot.runtime.values import INT_MAX
from ingot.semantics.types import BOOL, FLOAT, INT, STRING
from ingot.stdlib.ordering import compare_rows
from ingot.stdlib.spec import Rows, sig
from ingot.stdlib.string_models import float_parse_model

_LIM = INT_MAX + 1
_BIG = float(1 << 52)  # floats at least this large are integers already
_INF = float("inf")
_NAN = float("nan")


def _invalid(message: str) -> Exception:
    return throw_error("InvalidArgument", message)



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


_hypot: Callable[[float, float], float] | None = None


def float_hypot(x: float, y: float) -> float:
    """The C `hypot`, bound on first use: importing ctypes and finding libm cost about 20 ms,
    which every process would pay at start-up otherwise."""
    global _hypot
    if _hypot is None:
        _hypot = _load_libm_hypot()
    return _hypot(x, y)


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




# ======================================================================== rows

rows = Rows("float")
rows.method("floor", float_floor, sig(ret=FLOAT))
rows.method("ceil", float_ceil, sig(ret=FLOAT))
rows.method("round", float_round, sig(ret=FLOAT))
rows.method("trunc", float_trunc, sig(ret=FLOAT))
rows.method("fract", float_fract, sig(ret=FLOAT))
rows.method("itrunc", float_itrunc, sig(ret=INT))
rows.method("iround", float_iround, sig(ret=INT))
rows.method("ifloor", float_ifloor, sig(ret=INT))
rows.method("iceil", float_iceil, sig(ret=INT))
rows.method("is_nan", float_is_nan, sig(ret=BOOL))
rows.method("is_infinite", float_is_infinite, sig(ret=BOOL))
rows.method("is_finite", float_is_finite, sig(ret=BOOL))
rows.method("abs", float_abs, sig(ret=FLOAT))
rows.method("signum", float_signum, sig(ret=FLOAT))
rows.method("sqrt", float_sqrt, sig(ret=FLOAT))
rows.method("pow", float_pow, sig(FLOAT, ret=FLOAT))
rows.method("exp", float_exp, sig(ret=FLOAT))
rows.method("ln", float_ln, sig(ret=FLOAT))
rows.method("log", float_log, sig(FLOAT, ret=FLOAT))
rows.method("log2", float_log2, sig(ret=FLOAT))
rows.method("log10", float_log10, sig(ret=FLOAT))
rows.method("cbrt", float_cbrt, sig(ret=FLOAT))
rows.method("hypot", float_hypot, sig(FLOAT, ret=FLOAT))
rows.method("sin", float_sin, sig(ret=FLOAT))
rows.method("cos", float_cos, sig(ret=FLOAT))
rows.method("tan", float_tan, sig(ret=FLOAT))
rows.method("asin", float_asin, sig(ret=FLOAT))
rows.method("acos", float_acos, sig(ret=FLOAT))
rows.method("atan", float_atan, sig(ret=FLOAT))
rows.method("atan2", float_atan2, sig(FLOAT, ret=FLOAT))
rows.method("sinh", float_sinh, sig(ret=FLOAT))
rows.method("cosh", float_cosh, sig(ret=FLOAT))
rows.method("tanh", float_tanh, sig(ret=FLOAT))
rows.method("asinh", float_asinh, sig(ret=FLOAT))
rows.method("acosh", float_acosh, sig(ret=FLOAT))
rows.method("atanh", float_atanh, sig(ret=FLOAT))
rows.method("to_radians", float_to_radians, sig(ret=FLOAT))
rows.method("to_degrees", float_to_degrees, sig(ret=FLOAT))
rows.method("to_string", float_to_string, sig(ret=STRING))
compare_rows(rows, FLOAT, numeric=True)
rows.function("parse", float_parse, sig(STRING, ret=FLOAT), model=float_parse_model, never_panics=True, throws="baml.errors.ParseError")
rows.function("pi", float_pi, sig(ret=FLOAT))
rows.function("e", float_e, sig(ret=FLOAT))
rows.function("golden_ratio", float_golden_ratio, sig(ret=FLOAT))
rows.function("nan", float_nan, sig(ret=FLOAT))
rows.function("inf", float_inf, sig(ret=FLOAT))
rows.function("epsilon", float_epsilon, sig(ret=FLOAT))
rows.function("max_finite", float_max_finite, sig(ret=FLOAT))
rows.function("min_finite", float_min_finite, sig(ret=FLOAT))

SPECS = tuple(rows.specs)
