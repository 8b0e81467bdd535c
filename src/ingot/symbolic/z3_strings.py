"""Z3 terms for the string operations of `string_ops` (the solver's translation of them)."""

from __future__ import annotations

import ctypes
from typing import Any

import z3

from ingot.symbolic.expr import Op
from ingot.symbolic.string_ops import Regex, star

# Z3's characters stop here (its default Unicode range); a class reaching past it is cut.
MAX_CHAR = 0x2FFFF
ASCII_END = 0x7F  # the last ASCII character (a large class tried on ASCII first: `ascii_view`)

# A surrogate code point is no character of a BAML string (its strings are UTF-8): one in a
# model becomes this.
REPLACEMENT = "\ufffd"


def string_val(value: str, ctx: z3.Context) -> z3.SeqRef:
    """A string constant by its code points. `z3.StringVal` would read escapes in the text
    (a literal `\\u{41}` became "A") and cannot hold a character past Latin-1 unescaped."""
    codes = [ord(c) for c in value]
    if any(c > MAX_CHAR for c in codes):
        raise z3.Z3Exception(f"a character past Z3's range in {value!r}")
    chars = (ctypes.c_uint * max(len(codes), 1))(*codes)
    return z3.SeqRef(z3.Z3_mk_u32string(ctx.ref(), len(codes), chars), ctx)


def string_of(v: z3.ExprRef) -> str:
    """A string value of a model, by its code points: `as_string` escapes NUL and every
    character past Latin-1 (U+3000 came back as the eight characters `\\u{3000}`)."""
    n = z3.Z3_get_string_length(v.ctx_ref(), v.as_ast())
    chars = (ctypes.c_uint * max(n, 1))()
    z3.Z3_get_string_contents(v.ctx_ref(), v.as_ast(), n, chars)
    return "".join(REPLACEMENT if 0xD800 <= chars[i] <= 0xDFFF else chr(chars[i]) for i in range(n))


STRING_OPS = frozenset({Op.INDEX_OF, Op.LAST_INDEX_OF, Op.SUBSTR, Op.REPLACE, Op.REPLACE_ALL, Op.TO_INT,
                        Op.TO_CODE, Op.FROM_INT, Op.IN_RE})


def translate(op: Op, value: Any, a: list[z3.ExprRef], ctx: z3.Context) -> z3.ExprRef:
    if op is Op.INDEX_OF:
        return z3.IndexOf(a[0], a[1], a[2])
    if op is Op.LAST_INDEX_OF:
        return z3.LastIndexOf(a[0], a[1])
    if op is Op.SUBSTR:
        return z3.SubString(a[0], a[1], a[2])
    if op is Op.REPLACE:
        return z3.Replace(a[0], a[1], a[2])
    if op is Op.REPLACE_ALL:
        return z3.SeqRef(z3.Z3_mk_seq_replace_all(ctx.ref(), a[0].as_ast(), a[1].as_ast(), a[2].as_ast()), ctx)
    if op is Op.TO_INT:
        return z3.StrToInt(a[0])
    if op is Op.TO_CODE:
        return z3.StrToCode(a[0])
    if op is Op.FROM_INT:
        return z3.IntToStr(a[0])
    if op is Op.IN_RE:
        return _in_re(a[0], value, ctx)
    raise AssertionError(op)


# A class of more ranges than this is written as arithmetic on character codes rather than as a
# regular expression (`_in_re`). Unicode's classes have 146-844 ranges; the whitespace of `trim`
# (10) stays a regex, which Z3 answers in time.
CLASS_AS_CODES = 32


def _in_re(s: z3.SeqRef, r: Regex, ctx: z3.Context) -> z3.BoolRef:
    """`s` in the language of `r`. A character class of many ranges (Unicode's alphanumerics
    are 844), alone or repeated, is arithmetic on character codes: Z3's regular expressions take
    minutes on its complement and do not stop at the query's timeout or resource limit
    (`not in_re(substr(t, 0, 1), star(class))` ran 97 s under a 1 s timeout).

    Over one character (`c` of `s.chars()`, a `substr(s, i, 1)`) that is a disjunction over the
    character's code. Over a whole string (`s.is_alphanumeric()`) it is a quantifier over the
    string's positions: Z3 answered the queries of such branches in 0.02-1.3 s, unknown at the
    timeout at worst, where the regex ran past any timeout."""
    cls = _class_of(r)
    if cls is None or len(cls[1]) <= CLASS_AS_CODES:
        return z3.InRe(s, regex(r, ctx))
    kind, ranges = cls
    if kind == "one":
        return _code_in(z3.StrToCode(s), ranges)  # (the code of a string not one character is -1)
    if _one_character(s):
        return z3.Or(z3.Length(s) == 0, _code_in(z3.StrToCode(s), ranges))
    i = z3.Int("position", ctx)
    return z3.ForAll([i], z3.Implies(z3.And(0 <= i, i < z3.Length(s)),
                                     _code_in(z3.StrToCode(z3.SubString(s, i, 1)), ranges)))


def ascii_view(r: Regex, s: z3.SeqRef, ctx: z3.Context) -> tuple[z3.BoolRef, z3.BoolRef] | None:
    """For a large class repeated over a whole string (the quantifier of `_in_re`): the same
    test over the class's ASCII characters alone, and the condition under which the two agree
    (`s` is all ASCII). Z3 finds models of the quantifier slowly, and exotic ones (a handle
    `@AB#1234` took 300 k units and ran out, where the ASCII form answered at once), so the
    solver asks the ASCII form first (`Solver.ascii_first`); None: no such test."""
    cls = _class_of(r)
    if cls is None or cls[0] != "star" or len(cls[1]) <= CLASS_AS_CODES or _one_character(s):
        return None
    ascii_ranges = [(lo, min(hi, ASCII_END)) for lo, hi in cls[1] if lo <= ASCII_END]
    within = z3.InRe(s, regex(star(("set", tuple(ascii_ranges))), ctx))
    return within, z3.InRe(s, regex(star(("set", ((0, ASCII_END),))), ctx))


def _code_in(code: z3.ArithRef, ranges: tuple[tuple[int, int], ...]) -> z3.BoolRef:
    return z3.Or(*[z3.And(lo <= code, code <= hi) for lo, hi in _within_z3(ranges)])


def _one_character(s: z3.ExprRef) -> bool:
    """Is `s` a substring of at most one character (`substr(t, i, 1)`)?"""
    if not z3.is_app_of(s, z3.Z3_OP_SEQ_EXTRACT):
        return False
    count = s.arg(2)
    return z3.is_int_value(count) and count.as_long() <= 1


def _class_of(r: Regex) -> tuple[str, tuple[tuple[int, int], ...]] | None:
    """("one", ranges) for a class, ("star", ranges) for a class repeated, else None."""
    if r[0] == "set":
        return "one", r[1]
    if r[0] == "loop" and r[2] == 0 and r[3] is None and r[1][0] == "set":
        return "star", r[1][1]
    return None


def _within_z3(ranges: tuple[tuple[int, int], ...]) -> list[tuple[int, int]]:
    """A class's ranges cut to the characters Z3 has (up to `MAX_CHAR`)."""
    return [(lo, min(hi, MAX_CHAR)) for lo, hi in ranges if lo <= MAX_CHAR]


_REGEX_CACHE: dict[tuple[Regex, int], z3.ReRef] = {}


def regex(r: Regex, ctx: z3.Context) -> z3.ReRef:
    key = (r, id(ctx))
    cached = _REGEX_CACHE.get(key)
    if cached is None or cached.ctx is not ctx:
        cached = _REGEX_CACHE[key] = _regex(r, ctx)
    return cached


def _regex(r: Regex, ctx: z3.Context) -> z3.ReRef:
    kind = r[0]
    if kind == "set":
        ranges = [z3.Range(_char(lo, ctx), _char(hi, ctx), ctx=ctx) for lo, hi in _within_z3(r[1])]
        if not ranges:
            return z3.Empty(z3.ReSort(z3.StringSort(ctx)))
        return ranges[0] if len(ranges) == 1 else z3.Union(*ranges)
    if kind == "lit":
        return z3.Re(string_val(r[1], ctx))
    if kind == "nocase":
        parts = [z3.Union(z3.Re(string_val(c.lower(), ctx)), z3.Re(string_val(c.upper(), ctx)))
                 if c.isalpha() else z3.Re(string_val(c, ctx)) for c in r[1]]
        return parts[0] if len(parts) == 1 else z3.Concat(*parts)
    if kind == "seq":
        parts = [_regex(p, ctx) for p in r[1:]]
        return parts[0] if len(parts) == 1 else z3.Concat(*parts)
    if kind == "alt":
        parts = [_regex(p, ctx) for p in r[1:]]
        return parts[0] if len(parts) == 1 else z3.Union(*parts)
    if kind == "comp":
        return z3.Complement(_regex(r[1], ctx))
    if kind == "loop":
        _, inner, low, high = r
        body = _regex(inner, ctx)
        if high is None:
            star = z3.Star(body)
            return star if low == 0 else z3.Concat(*([body] * low), star)
        if (low, high) == (0, 1):
            return z3.Option(body)
        return z3.Loop(body, low, high)
    raise AssertionError(kind)


def _char(cp: int, ctx: z3.Context) -> z3.ExprRef:
    """One character as a string term (by code, so no escape in the text can change it)."""
    return z3.StrFromCode(z3.IntVal(cp, ctx))
