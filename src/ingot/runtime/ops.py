"""BAML's operators on runtime values, with the engine's exact semantics.

Arithmetic (`add sub mul div mod neg`):

- `int ∘ int` is `int`, checked in 63 bits: leaving `[INT_MIN, INT_MAX]` panics
  `IntegerOverflow` with the engine's message (`"4611686018427387903 + 1
  overflows int"`, `"-(-4611686018427387904) overflows int"`,
  `"-4611686018427387904 / -1 overflows int"`).
- `/` truncates toward zero and `%` takes the dividend's sign (`-7 / 2 == -3`,
  `-7 % 2 == -1`); `INT_MIN % -1 == 0`. A zero divisor panics
  `DivisionByZero {dividend}`.
- Any `float` operand makes the operation IEEE-754 on floats (the `int` is
  converted): `x / 0.0` is `±inf` or `NaN`, `%` is C's `fmod` (sign of the
  dividend), nothing panics.
- `+` on two strings concatenates.

Bitwise (`bit_and bit_or bit_xor bit_not shl shr`) are `int`-only. `<<` wraps in
63 bits (`1 << 62 == INT_MIN`, any count >= 63 gives 0), `>>` is arithmetic (a
count >= 63 gives 0 or -1); a negative count panics `NegativeBitShift`
(`"bit shift count is negative: -1"`). `~a` is `-a - 1` in the engine, so
`~INT_MIN` panics `IntegerOverflow` (`"-(-4611686018427387904) overflows int"`).

Comparison: `eq`/`ne` are structural and type-strict (`1 != 1.0`, `true != 1`),
arrays element-wise, maps by key set then values (order-insensitive), class
instances by class and fields, enum values by identity, function values by
identity; `NaN == NaN` and `-0.0 == 0.0`. A pair already being compared higher
up a cyclic walk counts as equal, as in the engine. `lt le gt ge` order two
values of one type: `int`, `float` (total: `-inf < ... < inf < NaN`), `string`
(by code point), `bool` (`false < true`).

`truthy(v)`: falsy are `0`, `0.0`/`-0.0`, `""`, `[]`, `{}`, `null`, `false`;
everything else is truthy, including `NaN`, class instances, enum values and
functions.

Host values may stand in for `float` (torch tensors, registered by
`ingot.pack.tensors` through `register_float_like`; this module imports no
tensor library). With one on either side, `+ - * /` and unary `-` are the
library's element-wise operators (IEEE: nothing panics), `%` is the
registered truncating remainder, `== != < <= > >=` give the element-wise
comparison (IEEE: NaN compares false), and a condition asks the registered
`truth` function (a 0-d tensor outside tracing has one; others raise).

Each function takes plain Python values (see `values.py`) and either returns
the result or raises a `BamlRaise` (a BAML panic). A `TypeError` means the
caller passed operands the type checker would have rejected.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from ingot.runtime.errors import BamlRaise, panic
from ingot.runtime.limits import check_string
from ingot.runtime.values import INT_MAX, INT_MIN, Instance

__all__ = [
    "add",
    "sub",
    "mul",
    "div",
    "mod",
    "neg",
    "bit_and",
    "bit_or",
    "bit_xor",
    "bit_not",
    "shl",
    "shr",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "truthy",
    "not_",
    "float_key",
    "BINARY",
    "UNARY",
]

_LIM = INT_MAX + 1  # 2**62: ints satisfy -_LIM <= v < _LIM
_MASK63 = (1 << 63) - 1
_NAN = float("nan")
_INF = float("inf")


def _overflow(text: str) -> BamlRaise:
    return panic("IntegerOverflow", message=f"{text} overflows int")


# Types standing in for `float` and what conditions and `%` do with them (see the docstring).
FLOAT_LIKE: tuple[type, ...] = ()
_float_like_truth: Callable[[Any], bool] = bool
_float_like_fmod: Callable[[Any, Any], Any] = math.fmod


def register_float_like(cls: type, *, truth: Callable[[Any], bool], fmod: Callable[[Any, Any], Any]) -> None:
    """Let values of `cls` (and subclasses) stand in for BAML `float` in operators."""
    global FLOAT_LIKE, _float_like_truth, _float_like_fmod
    if cls not in FLOAT_LIKE:
        FLOAT_LIKE = (*FLOAT_LIKE, cls)
    _float_like_truth, _float_like_fmod = truth, fmod


def _float_like(a: Any, b: Any) -> bool:
    """One operand stands in for a float and the other is numeric: use its own operators."""
    if not FLOAT_LIKE:
        return False
    fa, fb = isinstance(a, FLOAT_LIKE), isinstance(b, FLOAT_LIKE)
    ta, tb = type(a), type(b)
    return (fa or fb) and (fa or ta is float or ta is int) and (fb or tb is float or tb is int)


def _bad(op: str, *operands: Any) -> TypeError:
    kinds = " and ".join(type(x).__name__ for x in operands)
    return TypeError(f"operator {op} cannot be applied to {kinds}")


def _floats(op: str, a: Any, b: Any) -> tuple[float, float]:
    ta, tb = type(a), type(b)
    if (ta is float or ta is int) and (tb is float or tb is int):
        return float(a), float(b)
    if _float_like(a, b):
        return a, b
    raise _bad(op, a, b)


# ---------------------------------------------------------------- arithmetic


def add(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        r = a + b
        if -_LIM <= r < _LIM:
            return r
        raise _overflow(f"{a} + {b}")
    if type(a) is str and type(b) is str:
        check_string(len(a) + len(b))
        return a + b
    x, y = _floats("+", a, b)
    return x + y


def sub(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        r = a - b
        if -_LIM <= r < _LIM:
            return r
        raise _overflow(f"{a} - {b}")
    x, y = _floats("-", a, b)
    return x - y


def mul(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        r = a * b
        if -_LIM <= r < _LIM:
            return r
        raise _overflow(f"{a} * {b}")
    x, y = _floats("*", a, b)
    return x * y


def div(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        if b == 0:
            raise panic("DivisionByZero", dividend=a)
        if b == -1:
            if a == INT_MIN:
                raise _overflow(f"{a} / {b}")
            return -a
        q = a // b
        if q < 0 and q * b != a:
            q += 1  # floor -> toward zero
        return q
    x, y = _floats("/", a, b)
    if type(x) is not float or type(y) is not float:
        return x / y  # a tensor: IEEE division by zero, as below
    if y == 0.0:
        if x != x or x == 0.0:
            return _NAN
        return math.copysign(_INF, x) * math.copysign(1.0, y)
    return x / y


def mod(a: Any, b: Any) -> Any:
    if type(a) is int and type(b) is int:
        if b == 0:
            raise panic("DivisionByZero", dividend=a)
        r = a % b
        if r and (r < 0) != (a < 0):
            r -= b  # floor-mod -> remainder of the truncating division
        return r
    x, y = _floats("%", a, b)
    if type(x) is not float or type(y) is not float:
        return _float_like_fmod(x, y)
    if y == 0.0 or x != x or y != y or x in (_INF, -_INF):
        return _NAN
    return math.fmod(x, y)


def neg(a: Any) -> Any:
    t = type(a)
    if t is int:
        if a == INT_MIN:
            raise _overflow(f"-({a})")
        return -a
    if t is float or FLOAT_LIKE and isinstance(a, FLOAT_LIKE):
        return -a
    raise _bad("-", a)


# ---------------------------------------------------------------- bitwise


def _ints(op: str, a: Any, b: Any) -> None:
    if type(a) is not int or type(b) is not int:
        raise _bad(op, a, b)


def bit_and(a: Any, b: Any) -> int:
    _ints("&", a, b)
    return a & b


def bit_or(a: Any, b: Any) -> int:
    _ints("|", a, b)
    return a | b


def bit_xor(a: Any, b: Any) -> int:
    _ints("^", a, b)
    return a ^ b


def bit_not(a: Any) -> int:
    """`~a`, which the engine computes as `-a - 1`: `~INT_MIN` overflows in the negation."""
    if type(a) is not int:
        raise _bad("~", a)
    if a == INT_MIN:
        raise _overflow(f"-({a})")
    return ~a


def _negative_shift(b: int) -> BamlRaise:
    return panic("NegativeBitShift", message=f"bit shift count is negative: {b}")


def shl(a: Any, b: Any) -> int:
    _ints("<<", a, b)
    if b < 0:
        raise _negative_shift(b)
    if b >= 63:
        return 0
    r = (a << b) & _MASK63
    return r - (1 << 63) if r >= _LIM else r


def shr(a: Any, b: Any) -> int:
    _ints(">>", a, b)
    if b < 0:
        raise _negative_shift(b)
    if b >= 63:
        return -1 if a < 0 else 0
    return a >> b


# ---------------------------------------------------------------- comparison


def eq(a: Any, b: Any) -> bool:
    """`a == b`: structural, type-strict, reflexive (`NaN == NaN`)."""
    t = type(a)
    if t is not type(b):
        return a == b if _float_like(a, b) else False
    if t is int or t is str or t is bool:
        return a == b
    if t is float:
        return a == b or (a != a and b != b)
    if _float_like(a, b):
        return a == b
    if a is b:
        return True
    if t is list or t is dict or t is Instance:
        return _deep_eq(a, b, set())
    return False  # None is b is caught above; enum values and functions by identity


def ne(a: Any, b: Any) -> bool:
    if _float_like(a, b):
        return a != b
    return not eq(a, b)


_LEAVE = object()


def _deep_eq(a: Any, b: Any, active: set[tuple[int, int]]) -> bool:
    """Structural equality of two containers, iteratively (values may nest thousands
    deep). `active` holds the pairs being compared on the current path: meeting
    one again (a cycle) counts as equal, as in the engine."""
    stack: list[tuple[Any, Any]] = [(a, b)]
    pop, push = stack.pop, stack.append
    while stack:
        x, y = pop()
        if x is _LEAVE:
            active.discard(y)
            continue
        t = type(x)
        if t is not type(y):
            return False
        if t is int or t is str or t is bool:
            if x != y:
                return False
            continue
        if t is float:
            if x != y and (x == x or y == y):
                return False
            continue
        if x is y:
            continue
        if t is not list and t is not dict and t is not Instance:
            return False  # enum values and functions: identity only
        pair = (id(x), id(y))
        if pair in active:
            continue  # already being compared higher up the walk
        if t is list:
            if len(x) != len(y):
                return False
            active.add(pair)
            push((_LEAVE, pair))
            for i in range(len(x) - 1, -1, -1):
                push((x[i], y[i]))
        elif t is dict:
            if len(x) != len(y):
                return False
            active.add(pair)
            push((_LEAVE, pair))
            missing = _LEAVE
            for k, xv in x.items():
                yv = y.get(k, missing)
                if yv is missing:
                    return False
                push((xv, yv))
        else:
            if x.cls is not y.cls and x.cls.name != y.cls.name:
                return False
            active.add(pair)
            push((_LEAVE, pair))
            for i in range(len(x.fields) - 1, -1, -1):
                push((x.fields[i], y.fields[i]))
    return True


def lt(a: Any, b: Any) -> bool:
    t = type(a)
    if t is type(b):
        if t is int or t is str or t is bool:
            return a < b
        if t is float:
            return a < b or (b != b and a == a)
    if _float_like(a, b):
        return a < b
    raise _bad("<", a, b)


def le(a: Any, b: Any) -> bool:
    t = type(a)
    if t is type(b):
        if t is int or t is str or t is bool:
            return a <= b
        if t is float:
            return a <= b or b != b
    if _float_like(a, b):
        return a <= b
    raise _bad("<=", a, b)


def gt(a: Any, b: Any) -> bool:
    return lt(b, a)


def ge(a: Any, b: Any) -> bool:
    return le(b, a)


def float_key(x: float) -> tuple[int, float]:
    """A sort key for BAML's total float order (`NaN` last, `-0.0 == 0.0`)."""
    return (1, 0.0) if x != x else (0, x)


# ---------------------------------------------------------------- truthiness


def truthy(v: Any) -> bool:
    """The truth value of a condition, `!`, `&&`, `||` operand."""
    if v is True:
        return True
    if v is False or v is None:
        return False
    t = type(v)
    if t is int or t is float or t is str or t is list or t is dict:
        return bool(v)  # bool(nan) is True, bool(-0.0) is False, as in BAML
    if FLOAT_LIKE and isinstance(v, FLOAT_LIKE):
        return _float_like_truth(v)
    return True


def not_(v: Any) -> bool:
    return not truthy(v)


BINARY: Mapping[str, Callable[[Any, Any], Any]] = MappingProxyType(
    {
        "+": add,
        "-": sub,
        "*": mul,
        "/": div,
        "%": mod,
        "&": bit_and,
        "|": bit_or,
        "^": bit_xor,
        "<<": shl,
        ">>": shr,
        "==": eq,
        "!=": ne,
        "<": lt,
        "<=": le,
        ">": gt,
        ">=": ge,
    }
)

UNARY: Mapping[str, Callable[[Any], Any]] = MappingProxyType({"-": neg, "~": bit_not, "!": not_})
