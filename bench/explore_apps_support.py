"""BAML semantics and witness conversion for the Python twins of `bench/explore/apps/`.

The helpers the twins in `explore_apps_twins.py` call where BAML and Python differ, each with
BAML's semantics as `ingot.stdlib` implements them (verified there on the engine); being
defined here, outside the twins, they add no branch arcs to the twins' line ranges. And the
conversions between a witness of a BAML program (JSON arguments, the model's raw replies, the
JSON result) and the twin's Python values.
"""

# ruff: noqa: UP006, UP035, UP045
from __future__ import annotations

import dataclasses
import enum
import json
import math
import typing
from typing import Any, List, Optional, TypeVar, Union

T = TypeVar("T")


# -- BAML semantics the twins need --------------------------------------------------------
class ParseError(Exception):
    """`baml.errors.ParseError`, thrown by `int.parse` and `float.parse`."""


class IntegerOverflow(Exception):
    """A BAML int operation whose result leaves the 63-bit range."""


class InvalidArgument(Exception):
    """`baml.errors.InvalidArgument` (e.g. `float.iround` of a value out of the int range)."""


INT_MIN = -(1 << 62)
INT_MAX = (1 << 62) - 1

# Unicode White_Space, the set Rust's `trim` uses (Python's `str.strip()` also strips \x1c-\x1f).
WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)


def checked(x: int) -> int:
    if x < INT_MIN or x > INT_MAX:
        raise IntegerOverflow(f"integer overflow: {x}")
    return x


def int_mul(a: int, b: int) -> int:
    return checked(a * b)


def int_div(a: int, b: int) -> int:
    """BAML's `a / b` on ints: truncates toward zero."""
    if b == 0:
        raise ZeroDivisionError("division by zero")
    q = abs(a) // abs(b)
    return checked(q if (a < 0) == (b < 0) else -q)


def trim(s: str) -> str:
    return s.strip(WHITESPACE)


def lines(s: str) -> List[str]:
    """`string.lines()`: split on `\\n`, drop a `\\r` before it, no trailing empty line."""
    if not s:
        return []
    parts = s.split("\n")
    last = parts.pop()
    out = [p[:-1] if p.endswith("\r") else p for p in parts]
    if last:
        out.append(last)
    return out


def index_of(s: str, search: str) -> Optional[int]:
    i = s.find(search)
    return None if i < 0 else i


def last_index_of(s: str, search: str) -> Optional[int]:
    i = s.rfind(search)
    return None if i < 0 else i


def parse_int(text: str) -> int:
    """`int.parse`: Rust's `i64::from_str` (one optional sign, ASCII digits), 63-bit range."""
    digits = text[1:] if text[:1] in ("+", "-") else text
    if not digits or not all("0" <= c <= "9" for c in digits):
        raise ParseError(f"int.parse: cannot parse {text!r} as int")
    value = -int(digits) if text[:1] == "-" else int(digits)
    if value < INT_MIN or value > INT_MAX:
        raise ParseError(f"int.parse: {text!r} is outside the int range")
    return value


def parse_float(text: str) -> float:
    """`float.parse`: Rust's `f64::from_str`, which is Python's `float` without whitespace or `_`."""
    if not text or not text.isascii() or "_" in text or text.strip() != text:
        raise ParseError(f"float.parse: cannot parse {text!r} as float")
    try:
        return float(text)
    except ValueError:
        raise ParseError(f"float.parse: cannot parse {text!r} as float") from None


def iround(x: float) -> int:
    """`float.iround`: round half away from zero, InvalidArgument outside the int range."""
    if x != x:
        raise InvalidArgument("float.iround: cannot convert NaN to int")
    r = x
    if -(2.0**52) < x < 2.0**52:
        r = float(math.trunc(x))
        if abs(x - r) >= 0.5:
            r += math.copysign(1.0, x)
    if not -(2.0**62) <= r < 2.0**62:
        raise InvalidArgument(f"float.iround: {x} is out of int range")
    return int(r)


def llm_reply(replies: List[T], i: int, missing: T) -> T:
    """The result of an LLM function's call number `i` (0-based): `missing` past the end."""
    return replies[i] if i < len(replies) else missing


# -- witnesses of the BAML programs as twin arguments ---------------------------------------
class Unparsed(Exception):
    """A model reply that is not a value of the LLM function's return type."""


def snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(name))


def convert(value: Any, ty: Any) -> Any:
    """A JSON value as a value of Python type `ty`; Unparsed when it is not one."""
    origin = typing.get_origin(ty)
    if origin is Union:
        args = typing.get_args(ty)
        if value is None and type(None) in args:
            return None
        for alt in args:
            if alt is type(None):
                continue
            try:
                return convert(value, alt)
            except Unparsed:
                pass
        raise Unparsed(f"{value!r} is none of {args}")
    if origin is list:
        if not isinstance(value, list):
            raise Unparsed(f"{value!r} is not a list")
        (inner,) = typing.get_args(ty)
        return [convert(v, inner) for v in value]
    if origin is dict:
        if not isinstance(value, dict):
            raise Unparsed(f"{value!r} is not a map")
        _, inner = typing.get_args(ty)
        return {k: convert(v, inner) for k, v in value.items()}
    if isinstance(ty, type) and issubclass(ty, enum.Enum):
        if value not in ty.__members__:
            raise Unparsed(f"{value!r} is not a {ty.__name__}")
        return ty[value]
    if dataclasses.is_dataclass(ty):
        hints = typing.get_type_hints(ty)
        names = [f.name for f in dataclasses.fields(ty)]
        if not isinstance(value, dict) or set(value) != set(names):
            raise Unparsed(f"{value!r} is not a {ty.__name__}")
        return ty(**{n: convert(value[n], hints[n]) for n in names})
    if ty is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, ty) or (ty is int and isinstance(value, bool)):
        raise Unparsed(f"{value!r} is not a {ty.__name__}")
    return value


def parse_reply(text: str, ty: Any) -> Any:
    """A raw model reply as the LLM function's result: JSON, or an enum member's bare name."""
    try:
        value = json.loads(text)
    except ValueError:
        value = text.strip()
    return convert(value, ty)


def call_results(texts: list[str], ty: Any) -> list[Any]:
    """The results of successive calls from their raw replies, in order. A reply that does not
    parse is followed by the repair turn's reply; when that fails too, the call fails (None)."""
    results: list[Any] = []
    it = iter(texts)
    for text in it:
        try:
            results.append(parse_reply(text, ty))
            continue
        except Unparsed:
            pass
        repair = next(it, None)
        try:
            results.append(parse_reply(repair, ty) if repair is not None else None)
        except Unparsed:
            results.append(None)
    return results


def strip_optional(ty: Any) -> Any:
    if typing.get_origin(ty) is Union:
        args = [a for a in typing.get_args(ty) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return ty


def plain(value: Any) -> Any:
    """A twin's result as the JSON value the BAML program returns."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value
