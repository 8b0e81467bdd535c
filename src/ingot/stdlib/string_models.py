"""Symbolic models of the string members that return parts, positions and parsed numbers.

Each model calls the concrete member (its semantics stay the row's own) and builds the
result's shadow from the string operations of `ingot.symbolic.string_ops`, exactly:
for every input, the expression's value is what the member returns. Where exactness
needs a fact about this run's input (how many parts a `split` has, how much whitespace
a `trim` removes), the model keeps it as an assumption on the path (negatable, like a
concretization), and where no expression is exact it fixes the operand instead
(`concretize`: the report's `concretized_at` names the site).

Arrays come back with a symbolic length (`$len`) and one expression per element, so a
loop over `s.split(",")` branches on the input itself.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ingot.runtime import _unicode as uni
from ingot.runtime.values import INT_MAX, INT_MIN
from ingot.stdlib.spec import Model, Tracker
from ingot.symbolic import cuts
from ingot.symbolic import string_ops as so
from ingot.symbolic.expr import Expr, Op, Sort
from ingot.symbolic.shadow import Opt, Shadow

# Unicode White_Space, the set Rust's `trim` and `char::is_whitespace` use.
WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
    "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_WS = so.chars(*WHITESPACE)

Fn = Callable[..., Any]


# A string operand built by more nested operations than this is fixed to its value: Z3's
# string solver slows down by orders of magnitude on deeply nested positions and substrings
# (a trimmed slice of a slice), and a query that times out helps less than a concrete value.
MAX_OPERAND_DEPTH = 6


def _string(t: Tracker, shadow: Shadow, value: Any) -> Expr | None:
    """The string expression of an argument (a constant for a concrete one); None if it is not a
    string or is too deep to model (the caller concretizes it)."""
    e = t.lift(shadow, value)
    if e is None or e.sort is not Sort.STRING or not isinstance(value, str) or e.depth > MAX_OPERAND_DEPTH:
        return None
    return e


def _symbolic_string(t: Tracker, frame: Any, shadow: Shadow, value: Any) -> Expr | None:
    """The receiver's expression when it is symbolic and modelled; otherwise it is fixed (if symbolic)."""
    e = _string(t, shadow, value) if shadow is not None else None
    if e is None or e.is_const:
        t.concretize(frame, shadow, value)
        return None
    return e


def _int(t: Tracker, shadow: Shadow, value: Any) -> Expr | None:
    e = t.lift(shadow, value)
    return e if e is not None and e.sort is Sort.INT and type(value) is int else None


def _unmodelled(t: Tracker, frame: Any, fn: Fn, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    for a, s in zip(args, shadows):
        t.concretize(frame, s, a)
    return fn(*args), None


def _scalar_model(build: Callable[..., Expr | Shadow], kinds: str) -> Model:
    """A model whose result is one expression of its arguments (`kinds`: "s" string, "i" int each)."""
    def model(t: Tracker, frame: Any, fn: Fn, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
        if all(s is None for s in shadows) or len(args) != len(kinds):
            return fn(*args), None
        operands = [(_string if k == "s" else _int)(t, s, a) for k, s, a in zip(kinds, shadows, args)]
        if any(e is None for e in operands):
            return _unmodelled(t, frame, fn, args, shadows)
        result = fn(*args)
        return result, build(t, *operands)
    return model


# -- positions and substrings ------------------------------------------------------------------

def _position(t: Tracker, i: Expr, n: Expr) -> Expr:
    """A BAML position (negative counts from the end) as an offset from the start (maybe still out of range)."""
    x = t.x
    if i.is_const and i.value >= 0:
        return i
    return x.ite(x.lt(i, x.const(0)), x.arith(Op.ADD, i, n), i)


def _clamped(t: Tracker, i: Expr, n: Expr) -> Expr:
    """`slice`'s clamping of one bound into [0, n] (an end past `n` is cut by `SUBSTR` itself).

    A bound that cannot be negative (a length, a found position plus one: `at + 1`) needs no
    clamping: the `ite`s would only give the string solver cases to refute. Nor does `n - 1`
    (the last character's position) need the count from the end: it is negative only when
    `n` is 0, and then so is `n - 1 + n`.
    """
    x = t.x
    if t.int_ranges.of(i)[0] >= 0:
        return i
    zero = x.const(0)
    if i.op is Op.SUB and i.args[0] is n and i.args[1].is_const and i.args[1].value == 1:
        return x.ite(x.lt(i, zero), zero, i)
    shifted = x.arith(Op.ADD, i, n)
    return x.ite(x.lt(i, zero), x.ite(x.lt(shifted, zero), zero, shifted), i)


def _slice(t: Tracker, s: Expr, start: Expr, end: Expr) -> Expr:
    at_cut = _slice_at_cut(t, s, start, end)
    return at_cut if at_cut is not None else _substring(t, s, start, end)


def _substring(t: Tracker, s: Expr, start: Expr, end: Expr) -> Expr:
    x = t.x
    n = x.length(s)
    a, b = _clamped(t, start, n), _clamped(t, end, n)
    return x.str_op(Op.SUBSTR, s, a, x.arith(Op.SUB, b, a))


def _slice_at_cut(t: Tracker, s: Expr, start: Expr, end: Expr) -> Expr | None:
    """A slice of `s` up to, or from just after, a separator an `index_of` found in it
    (`ingot.symbolic.cuts`): the part itself where `s` holds the separator, else what the slice
    at position -1 (the absent position's) is. None for other slices."""
    x = t.x
    c = cuts.at_position(end, s) if start.is_const and start.value == 0 else None
    if c is not None:
        before, absent = x.var(c.pre, Sort.STRING), _substring(t, s, start, x.const(-1))
    else:
        c = cuts.after_position(start, s) if end is x.length(s) else None
        if c is None:
            return None
        before = x.var(c.post, Sort.STRING)
        absent = _substring(t, s, x.const(len(c.separator) - 1), end)
    return x.ite(x.str_pred(Op.CONTAINS, s, x.const(c.separator)), before, absent)


def _found(t: Tracker, position: Expr) -> Opt:
    """An optional position: present when the search found something (`position >= 0`)."""
    x = t.x
    return Opt(x.not_(x.lt(position, x.const(0))), position)


def _position_model(last: bool) -> Model:
    """`index_of`/`last_index_of`: with a constant search, its position in a cut of the string
    (`ingot.symbolic.cuts`: present where the string contains it, at the length of the part
    before it); with a symbolic one, the position Z3's `indexof` gives."""
    def model(t: Tracker, frame: Any, fn: Fn, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
        if all(sh is None for sh in shadows):
            return fn(*args), None
        s, part = _string(t, shadows[0], args[0]), _string(t, shadows[1], args[1])
        if s is None or part is None:
            return _unmodelled(t, frame, fn, args, shadows)
        result = fn(*args)
        x = t.x
        if not part.is_const or not part.value or s.is_const:
            position = x.str_op(Op.LAST_INDEX_OF, s, part) if last else x.str_op(Op.INDEX_OF, s, part, x.const(0))
            return result, _found(t, position)
        c, definition, found = cuts.cut(x, s, part.value, last)
        t.define(frame, definition)
        return result, Opt(found, x.length(x.var(c.pre, Sort.STRING)))
    return model


def _char_at(t: Tracker, s: Expr, i: Expr, code: bool) -> Shadow:
    x = t.x
    n = x.length(s)
    j = _position(t, i, n)
    present = x.and_(x.le(x.const(0), j), x.lt(j, n))
    char = x.str_op(Op.SUBSTR, s, j, x.const(1))
    return Opt(present, x.str_op(Op.TO_CODE, char) if code else char)


def _replace(t: Tracker, s: Expr, search: Expr, replacement: Expr) -> Expr:
    return t.x.str_op(Op.REPLACE, s, search, replacement)


def _replace_all(t: Tracker, frame: Any, fn: Fn, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """`replace_all` with a fixed search: BAML's empty search inserts between characters, SMT-LIB's does not."""
    if all(s is None for s in shadows):
        return fn(*args), None
    t.concretize(frame, shadows[1], args[1])
    if args[1] == "":
        return _unmodelled(t, frame, fn, args, shadows)
    s, u = _string(t, shadows[0], args[0]), _string(t, shadows[2], args[2])
    if s is None or u is None:
        return _unmodelled(t, frame, fn, args, shadows)
    return fn(*args), t.x.str_op(Op.REPLACE_ALL, s, t.x.const(args[1]), u)


# -- arrays of parts -----------------------------------------------------------------------------

def _store(t: Tracker, items: list[Any], length: Expr, elements: list[Expr],
           beyond: Sequence[Expr] = ()) -> None:
    """Give `items` its elements' and its length's shadows, and (`beyond`) the elements a longer
    input would give past this run's, up to the model's bound (`parts_beyond`)."""
    for i, e in enumerate(elements):
        t.hset(items, i, e)
    t.hset(items, "$len", length)
    if beyond:
        t.hset(items, "$beyond", length)  # the length they go with: a push or a pop replaces it
        for j, e in enumerate(beyond, len(elements)):
            t.hset(items, ("$beyond", j), e)


def parts_beyond(t: Tracker, items: list[Any]) -> list[Expr]:
    """The elements a longer input would put past this run's end of a split's (or lines') parts,
    each meaningful when its index is below the symbolic length; [] when `items` is not such
    parts or its length changed since (`_store`'s guard)."""
    n = t.hget(items, "$len")
    if n is None or t.hget(items, "$beyond") is not n:
        return []
    out = []
    j = len(items)
    while isinstance(e := t.hget(items, ("$beyond", j)), Expr):
        out.append(e)
        j += 1
    return out


def _characters(t: Tracker, items: list[Any], s: Expr, code: bool) -> None:
    """`items` is `s`'s characters (or their code points): one element per position."""
    x = t.x
    one = x.const(1)
    chars = [x.str_op(Op.SUBSTR, s, x.const(i), one) for i in range(len(items))]
    _store(t, items, x.length(s), [x.str_op(Op.TO_CODE, c) for c in chars] if code else chars)


def _characters_model(code: bool) -> Model:
    def model(t: Tracker, frame: Any, fn: Fn, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
        result = fn(*args)
        s = _symbolic_string(t, frame, shadows[0], args[0])
        if s is not None:
            _characters(t, result, s, code)
        return result, None
    return model


class _Parts:
    """`s` cut at every `sep` (a non-empty constant), left to right, as `split` cuts it.

    The parts and their count are variables named after `s` and `sep` (so every run, and
    every call on the same string, shares them), tied to `s` by a definition kept on the
    path (`Tracker.define`): for some count `c` up to `bound`, `s` is the `c` parts joined by
    `sep`, none holding a `sep` that starts before its end (Python's leftmost cut). Z3
    solves such word equations far faster than chains of `indexof`. The definition leaves
    out strings of more parts, so the model also assumes the bound (a concretization-like
    entry: no unsat answer after it is taken as proof).
    """

    def __init__(self, t: Tracker, s: Expr, sep: str, bound: int) -> None:
        x = self.x = t.x
        self.s, self.bound = s, bound
        name = f"$split{s.id}.{sep.encode().hex()}"  # plain characters: the name is an SMT-LIB symbol too
        self.count = x.var(f"{name}.$len", Sort.INT)
        self.parts = [x.var(f"{name}[{j}]", Sort.STRING) for j in range(bound)]
        sep_c, avoid = x.const(sep), so.without(sep)
        # A part followed by `sep` holds no `sep`, not even one running into the separator.
        closed = [x.str_op(Op.IN_RE, x.concat(p, x.const(sep[:-1])), value=avoid) for p in self.parts]
        last = [x.str_op(Op.IN_RE, p, value=avoid) for p in self.parts]
        cases = []
        joined = self.parts[0]
        for c in range(1, bound + 1):
            case = [x.eq(self.count, x.const(c)), x.eq(s, joined), *closed[:c - 1], last[c - 1]]
            if len(sep) == 1:
                # Redundant facts Z3 needs to refute `s.ends_with(sep)` and friends quickly.
                many = x.const(c >= 2)
                case += [x.eq(x.str_pred(Op.PREFIX, s, sep_c), x.and_(many, x.eq(self.parts[0], x.const("")))),
                         x.eq(x.str_pred(Op.SUFFIX, s, sep_c), x.and_(many, x.eq(self.parts[c - 1], x.const("")))),
                         x.eq(x.str_pred(Op.CONTAINS, s, sep_c), many)]
            cases.append(x.and_(*case))
            if c < bound:
                joined = x.concat(x.concat(joined, sep_c), self.parts[c])
        self.definition = x.or_(*cases)
        self.bounded = x.le(self.count, x.const(bound))

    def is_last(self, j: int) -> Expr:
        return self.x.eq(self.count, self.x.const(j + 1))


def _parts(t: Tracker, frame: Any, s: Expr, sep: str, pieces: int) -> _Parts | None:
    """The parts of `s` (their definition recorded), or None when this run has more than the bound models."""
    bound = t.max_parts
    if pieces > bound:
        return None
    parts = _Parts(t, s, sep, bound)
    t.define(frame, parts.definition)
    t.assume(frame, parts.bounded)
    return parts


def _split(t: Tracker, frame: Any, fn: Fn, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    if all(sh is None for sh in shadows):
        return fn(*args), None
    t.concretize(frame, shadows[1], args[1])  # the separator: a literal nearly always
    result = fn(*args)
    s = _symbolic_string(t, frame, shadows[0], args[0])
    if s is None:
        return result, None
    if args[1] == "":
        _characters(t, result, s, code=False)
        return result, None
    parts = _parts(t, frame, s, args[1], len(result))
    if parts is None:
        t.concretize(frame, shadows[0], args[0])
        return result, None
    _store(t, result, parts.count, parts.parts[:len(result)], parts.parts[len(result):])
    return result, None


def _lines(t: Tracker, frame: Any, fn: Fn, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """`lines`: the parts between `\\n`s, less an empty last one, each without a `\\r` before its `\\n`."""
    result = fn(*args)
    s = _symbolic_string(t, frame, shadows[0], args[0])
    if s is None:
        return result, None
    parts = _parts(t, frame, s, "\n", args[0].count("\n") + 1)
    if parts is None:
        t.concretize(frame, shadows[0], args[0])
        return result, None
    x = t.x
    one = x.const(1)
    ends_open = x.or_(x.eq(x.length(s), x.const(0)), x.str_pred(Op.SUFFIX, s, x.const("\n")))
    count = x.arith(Op.SUB, parts.count, x.ite(ends_open, one, x.const(0)))
    if "\r" not in args[0]:
        # The usual text: no `\r` to drop (assumed, so lines are the parts themselves).
        t.assume(frame, x.not_(x.str_pred(Op.CONTAINS, s, x.const("\r"))))
        _store(t, result, count, parts.parts[:len(result)], parts.parts[len(result):])
        return result, None
    lines = []
    for j in range(parts.bound):
        p = parts.parts[j]
        cut = x.str_op(Op.SUBSTR, p, x.const(0), x.arith(Op.SUB, x.length(p), one))
        stripped = x.ite(x.str_pred(Op.SUFFIX, p, x.const("\r")), cut, p)
        lines.append(x.ite(parts.is_last(j), p, stripped))
    _store(t, result, count, lines[:len(result)], lines[len(result):])
    return result, None


# -- trimming ----------------------------------------------------------------------------------

def _trim_model(start: bool, end: bool) -> Model:
    """`trim`/`trim_start`/`trim_end`: the substring after this run's count of whitespace (assumed).

    With `k` leading whitespace characters on this run, the model assumes the first `k`
    characters are whitespace and the next is not; the result is then exactly what
    follows them. The end is the same, on what is left.
    """
    def model(t: Tracker, frame: Any, fn: Fn, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
        if not getattr(t, "string_models", True):  # the explorer turned the dear models off
            return _plain_trim(t, frame, fn, args, shadows) if start and end else _unmodelled(t, frame, fn, args, shadows)
        result = fn(*args)
        s = _symbolic_string(t, frame, shadows[0], args[0])
        if s is None:
            return result, None
        x = t.x
        text = args[0]
        one, ws_run = x.const(1), so.star(_WS)
        if start:
            k = len(text) - len(text.lstrip(WHITESPACE))
            n, kc = x.length(s), x.const(k)
            # (a membership of `s` itself where possible: Z3 decides it far faster than one of a substring
            # on most queries; not on all, but the search did no better with the first character's:
            # bench/explore/apps/heldout/README.md)
            first = x.not_(x.str_op(Op.IN_RE, s, value=so.seq(_WS, so.star(so.ANY))) if not k else
                           x.str_op(Op.IN_RE, x.str_op(Op.SUBSTR, s, kc, one), value=_WS))
            if k:
                first = x.and_(x.le(kc, n), x.str_op(Op.IN_RE, x.str_op(Op.SUBSTR, s, x.const(0), kc), value=ws_run),
                               first)
                s = x.str_op(Op.SUBSTR, s, kc, x.arith(Op.SUB, n, kc))
            t.assume(frame, first)
            text = text[k:]
        if end:
            m = len(text) - len(text.rstrip(WHITESPACE))
            n, mc = x.length(s), x.const(m)
            keep = x.arith(Op.SUB, n, mc)
            last = x.not_(x.str_op(Op.IN_RE, s, value=so.seq(so.star(so.ANY), _WS)) if not m else
                          x.str_op(Op.IN_RE, x.str_op(Op.SUBSTR, s, x.arith(Op.SUB, keep, one), one), value=_WS))
            if m:
                last = x.and_(x.le(mc, n), x.str_op(Op.IN_RE, x.str_op(Op.SUBSTR, s, keep, mc), value=ws_run), last)
                s = x.str_op(Op.SUBSTR, s, x.const(0), keep)
            t.assume(frame, last)
        return result, s
    model.has_fallback = True  # type: ignore[attr-defined]
    return model


def _plain_trim(t: Tracker, frame: Any, fn: Fn, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """The cheap `trim`: on a string without surrounding whitespace it is `s` itself (assumed, so
    a query has no substring or membership to solve); otherwise the string is fixed."""
    result = fn(*args)
    e = t.scalar(shadows[0], args[0])
    if e is None:
        return result, None
    x = t.x
    edges = []
    for ws in (" ", "\t", "\n", "\r"):
        edges.append(x.not_(x.str_pred(Op.PREFIX, e, x.const(ws))))
        edges.append(x.not_(x.str_pred(Op.SUFFIX, e, x.const(ws))))
    if result != args[0]:
        t.concretize(frame, shadows[0], args[0], modelled=x.and_(*edges))
        return result, None
    t.assume(frame, x.and_(*edges))
    return result, e


# -- predicates ----------------------------------------------------------------------------------

def _class(table: uni.CharSet) -> so.Regex:
    return ("set", tuple(zip(table.starts, table.ends)))


def _all_of(cls: so.Regex) -> Model:
    """`s.is_...()`: every character is in `cls` (true for "")."""
    language = so.star(cls)
    return _scalar_model(lambda t, s: t.x.str_op(Op.IN_RE, s, value=language), "s")


C = so.chars
PREDICATES: dict[str, so.Regex] = {
    "is_ascii": so.ASCII,
    "is_ascii_numeric": C(("0", "9")),
    "is_ascii_alphabetic": C(("a", "z"), ("A", "Z")),
    "is_ascii_alphanumeric": C(("a", "z"), ("A", "Z"), ("0", "9")),
    "is_ascii_uppercase": C(("A", "Z")),
    "is_ascii_lowercase": C(("a", "z")),
    "is_ascii_whitespace": C(" ", "\t", "\n", "\x0c", "\r"),
    "is_ascii_control": C(("\x00", "\x1f"), "\x7f"),
    "is_ascii_graphic": C(("!", "~")),
    "is_ascii_hex": C(("0", "9"), ("a", "f"), ("A", "F")),
    "is_numeric": _class(uni.NUMERIC),
    "is_alphabetic": _class(uni.ALPHABETIC),
    "is_alphanumeric": _class(uni.ALPHANUMERIC),
    "is_uppercase": _class(uni.UPPERCASE),
    "is_lowercase": _class(uni.LOWERCASE),
    "is_whitespace": _class(uni.WHITESPACE),
    "is_control": _class(uni.CONTROL),
    "is_graphic": _class(uni.GRAPHIC),
}
PREDICATE_MODELS = {name: _all_of(cls) for name, cls in PREDICATES.items()}


# -- parsing -------------------------------------------------------------------------------------

def _one_char_at_most(s: Expr) -> bool:
    """Is `s` a string of at most one character by construction (`chars`, `at`)?"""
    return s.op is Op.SUBSTR and s.args[2].is_const and s.args[2].value <= 1


def _signed_number(t: Tracker, s: Expr) -> tuple[Expr, Expr]:
    """(the text is `[+-]?[0-9]+`, its value) with no bound on the value.

    `TO_INT` is -1 for anything but ASCII digits, so "parses" needs no regular expression.
    """
    x = t.x
    zero = x.const(0)
    plain = x.str_op(Op.TO_INT, s)
    if _one_char_at_most(s):
        return x.le(zero, plain), plain  # no room for a sign (and Z3 solves this far faster)
    rest = x.str_op(Op.TO_INT, x.str_op(Op.SUBSTR, s, x.const(1), x.arith(Op.SUB, x.length(s), x.const(1))))
    minus, plus = x.str_pred(Op.PREFIX, s, x.const("-")), x.str_pred(Op.PREFIX, s, x.const("+"))
    well_formed = x.ite(x.or_(minus, plus), x.le(zero, rest), x.le(zero, plain))
    return well_formed, x.ite(minus, x.neg(rest), x.ite(plus, rest, plain))


def int_parse_model(t: Tracker, frame: Any, fn: Fn, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """`int.parse(s)`: `[+-]?[0-9]+` within the int range parses; anything else throws `ParseError`.

    Whether it parses is a CHECK entry (the explorer aims at both sides); the value is
    the digits' number with the sign.
    """
    s = _symbolic_string(t, frame, shadows[0], args[0])
    if s is None:
        return fn(*args), None
    x = t.x
    well_formed, value = _signed_number(t, s)
    parses = x.and_(well_formed, x.le(x.const(INT_MIN), value), x.le(value, x.const(INT_MAX)))
    result = _parse_checked(t, frame, fn, args, parses)
    return result, value


def _parse_checked(t: Tracker, frame: Any, fn: Fn, args: list[Any], parses: Expr) -> Any:
    """Run a parse, recording whether it parsed as a ParseError check on `parses`."""
    try:
        result = fn(*args)
    except BaseException:
        t.check(frame, "ParseError", parses, False)
        raise
    t.check(frame, "ParseError", parses, True)
    return result


_DECIMAL = so.seq(so.opt(so.SIGN), so.plus(so.DIGIT))


def float_parse_model(t: Tracker, frame: Any, fn: Fn, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """`float.parse(s)`: whether it parses is exact (Rust's float syntax); the value is modelled
    for whole numbers (`[+-]?[0-9]+`, assumed on such a run) and fixed otherwise."""
    s = _symbolic_string(t, frame, shadows[0], args[0])
    if s is None:
        return fn(*args), None
    x = t.x
    parses = x.str_op(Op.IN_RE, s, value=so.FLOAT_SYNTAX)
    result = _parse_checked(t, frame, fn, args, parses)
    well_formed, value = _signed_number(t, s)
    if not so.matches(args[0], _DECIMAL):
        t.concretize(frame, shadows[0], args[0], modelled=well_formed)
        return result, None
    t.assume(frame, well_formed)
    return result, x.to_float(value)


# -- the rows' models ----------------------------------------------------------------------------

SPLIT = _split
LINES = _lines
CHARS = _characters_model(code=False)
TO_CODE_POINTS = _characters_model(code=True)
SLICE = _scalar_model(_slice, "sii")
INDEX_OF = _position_model(last=False)
LAST_INDEX_OF = _position_model(last=True)
AT = _scalar_model(lambda t, s, i: _char_at(t, s, i, code=False), "si")
CODE_POINT_AT = _scalar_model(lambda t, s, i: _char_at(t, s, i, code=True), "si")
REPLACE = _scalar_model(_replace, "sss")
REPLACE_ALL = _replace_all
TRIM = _trim_model(start=True, end=True)
TRIM_START = _trim_model(start=True, end=False)
TRIM_END = _trim_model(start=False, end=True)
