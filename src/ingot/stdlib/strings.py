"""`string.*`: BAML's string members, their symbolic models and registry rows.

Verified on the engine (`baml_bridge==0.23.0`): strings index by code point;
negative positions count from the end; `slice` clamps; `index_of`, `at` and
`code_point_at` give `null` when absent. Case changes and the `is_*`
predicates follow Rust's Unicode tables (`runtime/_unicode.py`). A failing
member raises `BamlRaise` with the engine's message (`InvalidArgument`).
Regex searches in `replace` and `string.to_utf8` are not here (no
`uint8array` in the value model).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ingot.runtime import _unicode as uni
from ingot.runtime.errors import throw_error
from ingot.runtime.limits import check_array, check_string
from ingot.runtime.render import render_value
from ingot.semantics.types import ANY, BOOL, INT, STRING, ListT, optional
from ingot.stdlib import string_models as sm
from ingot.stdlib.ordering import compare_rows
from ingot.stdlib.spec import Model, Rows, Tracker, sig
from ingot.symbolic.expr import Expr, Op, Sort, caseless_value
from ingot.symbolic.shadow import Shadow


def _invalid(message: str) -> Exception:
    return throw_error("InvalidArgument", message)



# ====================================================================== string

# Unicode White_Space, the set Rust's `trim` and `char::is_whitespace` use.
_WHITESPACE = sm.WHITESPACE
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
        return string_chars(s)
    check_array(s.count(delimiter) + 1)
    return s.split(delimiter)


def string_chars(s: str) -> list[str]:
    check_array(len(s))
    return list(s)


def string_lines(s: str) -> list[str]:
    """Split on `\\n`, dropping a `\\r` before it; no trailing empty line."""
    if not s:
        return []
    check_array(s.count("\n") + 1)
    parts = s.split("\n")
    last = parts.pop()  # the text after the final newline: keeps its `\r`
    out = [p[:-1] if p.endswith("\r") else p for p in parts]
    if last:
        out.append(last)
    return out


def string_slice(s: str, start: int, end: int) -> str:
    return s[start:end]  # Python's negative-index and clamping rules are BAML's


def string_replace(s: str, search: str, replacement: str) -> str:
    if len(replacement) > len(search) and search in s:
        check_string(len(s) + len(replacement) - len(search))
    return s.replace(search, replacement, 1)


def string_replace_all(s: str, search: str, replacement: str) -> str:
    if len(replacement) > len(search):
        check_string(len(s) + s.count(search) * (len(replacement) - len(search)))
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
    if count <= 0:
        return ""
    check_string(len(s) * count)
    return s * count


def string_to_string(s: str) -> str:
    return s


def string_add(s: str, other: str) -> str:
    check_string(len(s) + len(other))
    return s + other


def string_to_code_points(s: str) -> list[int]:
    check_array(len(s))
    return [ord(c) for c in s]


def string_from_code_points(code_points: list[int]) -> str:
    check_string(len(code_points))
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


# ====================================================================== models
# A model calls the implementation, then builds its result's shadow from its
# arguments' (`stdlib/spec.py`, `Model`). Strings are Z3 strings.


def _str_unary(build: Callable[[Tracker, Expr], Expr]) -> Model:
    def model(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
        result = fn(*args)
        e = t.scalar(shadows[0], args[0])
        return result, (build(t, e) if e is not None else None)
    return model


def _str_pred(op: Op) -> Model:
    def model(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
        result = fn(*args)
        if shadows[0] is None and shadows[1] is None:
            return result, None
        s, part = t.lift(shadows[0], args[0]), t.lift(shadows[1], args[1])
        if s is None or part is None:
            return result, None
        return result, t.x.str_pred(op, s, part)
    return model


def _concat(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
            shadows: list[Shadow]) -> tuple[Any, Shadow]:
    result = fn(*args)
    a, b = t.lift(shadows[0], args[0]), t.lift(shadows[1], args[1])
    if a is None or b is None or (shadows[0] is None and shadows[1] is None):
        return result, None
    return result, t.x.concat(a, b)


def _identity(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
    result = fn(*args)
    e = t.scalar(shadows[0], args[0])
    return result, (e if e is not None and e.sort is Sort.STRING and isinstance(result, str) else None)


def _case_change(case: str) -> Model:
    """`s.to_lower_case()`: on a string without upper-case letters it is `s` itself.

    The run assumes so (a CONCRETIZE-kind entry the explorer may negate); a string
    that has such letters is fixed to its value instead, with "no such letters" as the
    fixed value's first alternative, so `answer.to_lower_case() == "yes"` can still be
    solved from a run whose answer was "No".
    """
    def model(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
        result = fn(*args)
        e = t.scalar(shadows[0], args[0])
        if e is None:
            return result, None
        stable = t.x.caseless(e, case)
        if result != args[0] or not caseless_value(args[0], case):
            t.concretize(frame, shadows[0], args[0], modelled=stable)
            return result, None
        t.assume(frame, stable)
        return result, e
    return model


# ======================================================================== rows

rows = Rows("string")
rows.method("length", string_length, sig(ret=INT), model=_str_unary(lambda t, e: t.x.length(e)), inline="{target} = len({0})", result="int", nonnegative=True, never_panics=True)
rows.method("char_count", string_length, sig(ret=INT), model=_str_unary(lambda t, e: t.x.length(e)), never_panics=True)
rows.method("byte_length", string_byte_length, sig(ret=INT), never_panics=True)
rows.method("is_empty", string_is_empty, sig(ret=BOOL), model=_str_unary(lambda t, e: t.x.eq(t.x.length(e), t.x.const(0))), never_panics=True)
rows.method("to_lower_case", string_to_lower_case, sig(ret=STRING), model=_case_change("upper"), never_panics=True)
rows.method("to_upper_case", string_to_upper_case, sig(ret=STRING), model=_case_change("lower"), never_panics=True)
rows.method("trim", string_trim, sig(ret=STRING), model=sm.TRIM, never_panics=True)
rows.method("trim_start", string_trim_start, sig(ret=STRING), model=sm.TRIM_START, never_panics=True)
rows.method("trim_end", string_trim_end, sig(ret=STRING), model=sm.TRIM_END, never_panics=True)
rows.method("includes", string_includes, sig(STRING, ret=BOOL), model=_str_pred(Op.CONTAINS), never_panics=True)
rows.method("starts_with", string_starts_with, sig(STRING, ret=BOOL), model=_str_pred(Op.PREFIX), never_panics=True)
rows.method("ends_with", string_ends_with, sig(STRING, ret=BOOL), model=_str_pred(Op.SUFFIX), never_panics=True)
rows.method("split", string_split, sig(STRING, ret=ListT(STRING)), model=sm.SPLIT)
rows.method("chars", string_chars, sig(ret=ListT(STRING)), model=sm.CHARS)
rows.method("lines", string_lines, sig(ret=ListT(STRING)), model=sm.LINES)
rows.method("slice", string_slice, sig(INT, INT, ret=STRING), model=sm.SLICE, never_panics=True)
rows.method("replace", string_replace, sig(STRING, STRING, ret=STRING), model=sm.REPLACE)
rows.method("replace_all", string_replace_all, sig(STRING, STRING, ret=STRING), model=sm.REPLACE_ALL)
rows.method("index_of", string_index_of, sig(STRING, ret=optional(INT)), model=sm.INDEX_OF, never_panics=True)
rows.method("last_index_of", string_last_index_of, sig(STRING, ret=optional(INT)), model=sm.LAST_INDEX_OF, never_panics=True)
rows.method("at", string_at, sig(INT, ret=optional(STRING)), model=sm.AT, never_panics=True)
rows.method("code_point_at", string_code_point_at, sig(INT, ret=optional(INT)), model=sm.CODE_POINT_AT, never_panics=True)
rows.method("repeat", string_repeat, sig(INT, ret=STRING))
rows.method("to_string", string_to_string, sig(ret=STRING), model=_identity, never_panics=True)
rows.method("add", string_add, sig(STRING, ret=STRING), model=_concat)
rows.method("to_code_points", string_to_code_points, sig(ret=ListT(INT)), model=sm.TO_CODE_POINTS)
rows.method("is_numeric", string_is_numeric, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_numeric"], never_panics=True)
rows.method("is_alphabetic", string_is_alphabetic, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_alphabetic"], never_panics=True)
rows.method("is_alphanumeric", string_is_alphanumeric, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_alphanumeric"], never_panics=True)
rows.method("is_uppercase", string_is_uppercase, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_uppercase"], never_panics=True)
rows.method("is_lowercase", string_is_lowercase, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_lowercase"], never_panics=True)
rows.method("is_whitespace", string_is_whitespace, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_whitespace"], never_panics=True)
rows.method("is_control", string_is_control, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_control"], never_panics=True)
rows.method("is_graphic", string_is_graphic, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_graphic"], never_panics=True)
rows.method("is_ascii", string_is_ascii, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_ascii"], never_panics=True)
rows.method("is_ascii_numeric", string_is_ascii_numeric, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_ascii_numeric"], never_panics=True)
rows.method("is_ascii_alphabetic", string_is_ascii_alphabetic, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_ascii_alphabetic"], never_panics=True)
rows.method("is_ascii_alphanumeric", string_is_ascii_alphanumeric, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_ascii_alphanumeric"], never_panics=True)
rows.method("is_ascii_uppercase", string_is_ascii_uppercase, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_ascii_uppercase"], never_panics=True)
rows.method("is_ascii_lowercase", string_is_ascii_lowercase, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_ascii_lowercase"], never_panics=True)
rows.method("is_ascii_whitespace", string_is_ascii_whitespace, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_ascii_whitespace"], never_panics=True)
rows.method("is_ascii_control", string_is_ascii_control, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_ascii_control"], never_panics=True)
rows.method("is_ascii_graphic", string_is_ascii_graphic, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_ascii_graphic"], never_panics=True)
rows.method("is_ascii_hex", string_is_ascii_hex, sig(ret=BOOL), model=sm.PREDICATE_MODELS["is_ascii_hex"], never_panics=True)
compare_rows(rows, STRING, numeric=True)
rows.function("from", render_value, sig(ANY, ret=STRING), model=_identity)
rows.function("from_code_points", string_from_code_points, sig(ListT(INT), ret=STRING))

SPECS = tuple(rows.specs)
