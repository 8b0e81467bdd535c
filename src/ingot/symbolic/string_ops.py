"""The string operations behind the string models: their Python meaning and regular languages.

Each `Op` here follows its SMT-LIB string-theory definition (so the solver's Z3 term
and `evaluate` agree on every input), not BAML's: the models in
`ingot.stdlib.string_models` build BAML's members out of them (`slice` clamps with
`ite`s around `SUBSTR`, `index_of` is an optional over `INDEX_OF`, ...).

- `INDEX_OF(s, t, i)`: the first `t` in `s` at or after `i`; -1 if none or `i` is outside `[0, |s|]`.
- `LAST_INDEX_OF(s, t)`: the last `t` in `s`, -1 if none (`|s|` for an empty `t`).
- `SUBSTR(s, i, n)`: `n` characters from `i`, cut at the end; "" if `i < 0` or `n <= 0`.
- `REPLACE(s, t, u)`: the first `t` replaced (`u + s` for an empty `t`).
- `REPLACE_ALL(s, t, u)`: every `t`, left to right, not overlapping (`s` for an empty `t`).
- `TO_INT(s)`: the number an all-ASCII-digit `s` spells, -1 for any other `s` (or "").
- `TO_CODE(s)`: the code point of a one-character `s`, -1 otherwise.
- `FROM_INT(n)`: the digits of `n >= 0`, "" for a negative `n`.
- `IN_RE(s)`: `s` is in the regular language the node's value describes (a `Regex`).

A `Regex` is a hashable tuple, so it can be a node's value:
`("set", ((lo, hi), ...))` one character in the ranges, `("lit", "inf")` that text,
`("seq", r, ...)`, `("alt", r, ...)`, `("loop", r, low, high)` (high None: unbounded),
`("nocase", "inf")` the text in any ASCII case, and, outermost only, `("comp", r)` every
string not in `r`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

Regex = tuple[Any, ...]


def chars(*ranges: tuple[str, str] | str) -> Regex:
    """A character class: `chars(("0", "9"), "+")`."""
    spans = sorted((ord(r), ord(r)) if isinstance(r, str) else (ord(r[0]), ord(r[1])) for r in ranges)
    out: list[tuple[int, int]] = []
    for lo, hi in spans:  # adjacent ranges merged: fewer terms for the solver
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(hi, out[-1][1]))
        else:
            out.append((lo, hi))
    return ("set", tuple(out))


def star(r: Regex) -> Regex:
    return ("loop", r, 0, None)


def plus(r: Regex) -> Regex:
    return ("loop", r, 1, None)


def opt(r: Regex) -> Regex:
    return ("loop", r, 0, 1)


def seq(*parts: Regex) -> Regex:
    return ("seq", *parts)


def alt(*parts: Regex) -> Regex:
    return ("alt", *parts)


def lit(text: str) -> Regex:
    return ("lit", text)


DIGIT = chars(("0", "9"))
SIGN = chars("+", "-")
# `int.parse`'s syntax (Rust's `i64::from_str`): an optional sign, then ASCII digits.
INT_SYNTAX = seq(opt(SIGN), plus(DIGIT))
# `float.parse`'s syntax (Rust's `f64::from_str`), as `stdlib/floats.py` spells it.
FLOAT_SYNTAX = seq(opt(SIGN), alt(
    ("nocase", "inf"), ("nocase", "infinity"), ("nocase", "nan"),
    seq(alt(seq(plus(DIGIT), opt(lit(".")), star(DIGIT)), seq(lit("."), plus(DIGIT))),
        opt(seq(chars("e", "E"), opt(SIGN), plus(DIGIT))))))
ASCII = chars(("\x00", "\x7f"))
ANY = ("set", ((0, 0x10FFFF),))


def without(text: str) -> Regex:
    """The strings in which `text` (non-empty) does not occur.

    A regular membership rather than `not contains`: Z3 proves unsat answers on it in
    milliseconds where `not contains` beside a word equation can take seconds.
    """
    if len(text) == 1:
        c = ord(text)
        return star(("set", tuple(r for r in ((0, c - 1), (c + 1, 0x10FFFF)) if r[0] <= r[1])))
    return ("comp", seq(star(ANY), lit(text), star(ANY)))


def leaves(r: Regex) -> Iterator[Regex]:
    """The expression's classes and texts (`set`, `lit`, `nocase` nodes), left to right."""
    kind = r[0]
    if kind in ("set", "lit", "nocase"):
        yield r
    elif kind in ("loop", "comp"):
        yield from leaves(r[1])
    else:  # seq, alt
        for part in r[1:]:
            yield from leaves(part)


def ranges_in(r: Regex) -> int:
    """How many character ranges the expression's classes hold (its texts count none)."""
    return sum(len(leaf[1]) for leaf in leaves(r) if leaf[0] == "set")


def python_pattern(r: Regex) -> str:
    """The regex as a Python `re` pattern (for `evaluate`)."""
    kind = r[0]
    if kind == "set":
        return "[" + "".join(_re_char(lo) if lo == hi else f"{_re_char(lo)}-{_re_char(hi)}" for lo, hi in r[1]) + "]"
    if kind == "lit":
        return re.escape(r[1])
    if kind == "nocase":
        return "".join(f"[{c.lower()}{c.upper()}]" if c.isalpha() else re.escape(c) for c in r[1])
    if kind == "seq":
        return "".join(f"(?:{python_pattern(p)})" for p in r[1:])
    if kind == "alt":
        return "|".join(f"(?:{python_pattern(p)})" for p in r[1:])
    if kind == "loop":
        _, inner, low, high = r
        return f"(?:{python_pattern(inner)}){{{low},{'' if high is None else high}}}"
    raise AssertionError(kind)


def _re_char(cp: int) -> str:
    return f"\\U{cp:08x}"


_COMPILED: dict[Regex, re.Pattern[str]] = {}


def matches(s: str, r: Regex) -> bool:
    if r[0] == "comp":
        return not matches(s, r[1])
    pattern = _COMPILED.get(r)
    if pattern is None:
        pattern = _COMPILED[r] = re.compile(python_pattern(r), re.DOTALL)
    return pattern.fullmatch(s) is not None


# -- the SMT-LIB meaning of each operation ------------------------------------------------

def index_of(s: str, t: str, i: int) -> int:
    return -1 if i < 0 or i > len(s) else s.find(t, i)


def last_index_of(s: str, t: str) -> int:
    return s.rfind(t)


def substr(s: str, i: int, n: int) -> str:
    return s[i:i + n] if i >= 0 and n > 0 else ""


def replace(s: str, t: str, u: str) -> str:
    return s.replace(t, u, 1)


def replace_all(s: str, t: str, u: str) -> str:
    return s if not t else s.replace(t, u)


def to_int(s: str) -> int:
    return int(s) if s and all("0" <= c <= "9" for c in s) else -1


def to_code(s: str) -> int:
    return ord(s) if len(s) == 1 else -1


def from_int(n: int) -> str:
    return str(n) if n >= 0 else ""
