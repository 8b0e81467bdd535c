"""The built-ins of `ingot.stdlib` against the real engine, table-driven.

Each `Case` becomes one BAML wrapper `function C<n>(<params>) -> string { <body> }`
(by default `string.from(<expr>)`); the test runs it on every input and compares
with `BUILTINS[key]` (or the case's own Python function) rendered the same way.
Mutating methods return `[result, receiver]` so the mutation is compared too.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingot.runtime.render import render_value
from ingot.runtime.values import INT_MAX, INT_MIN
from ingot.stdlib import BUILTINS, MUTATES

B = BUILTINS


@dataclass
class Case:
    key: str
    params: str
    expr: str
    inputs: Sequence[tuple[Any, ...]]
    py: Callable[..., Any] | None = None
    body: str | None = None
    name: str = ""

    @property
    def names(self) -> list[str]:
        """Parameter names: the text before each `:` at bracket depth 0."""
        names, depth, start = [], 0, 0
        for i, ch in enumerate(self.params + ","):
            if ch in "<([":
                depth += 1
            elif ch in ">)]":
                depth -= 1
            elif ch == "," and depth == 0:
                if self.params[start:i].strip():
                    names.append(self.params[start:i].split(":")[0].strip())
                start = i + 1
        return names

    def python(self) -> Callable[..., Any]:
        return self.py or B[self.key]


CASES: list[Case] = []


def case(key, params, expr, inputs, py=None, body=None):
    c = Case(key, params, expr, list(inputs), py, body, f"C{len(CASES)}")
    CASES.append(c)
    return c


def mut(key, params, call, inputs):
    """A mutating method: compare `[result, receiver]` after the call."""
    recv = params.split(":")[0].strip()
    return case(
        key, params, f"[{recv}.{call}, {recv}]", inputs, py=lambda r, *a: [B[key](r, *a), r]
    )


def void(key, params, expr, inputs):
    """A function returning nothing: the wrapper says "ok" when it returns."""
    return case(
        key, params, expr, inputs, py=lambda *a: (B[key](*a), "ok")[1], body=f'{expr}; "ok"'
    )


def product(*lists):
    out = [()]
    for lst in lists:
        out = [o + (x,) for o in out for x in lst]
    return out


# ------------------------------------------------------------------ inputs

STRS = [
    "", "a", "hello", "héllo", "  hi\t\n", " \u00a0x\u3000 ", "\x1cx\x1f", "\u0085x\u200b",
    "a,,b", ",a,", "ΣΑΣ", "ΑΣ ΑΣ.", "aΣb", "Σ", "Straße", "ǅ", "ǈ", "İ", "ﬁ", "😀x😀", "a\u0301",
    "a\r\nb\n\nc\r", "\n", "\n\n", "\r\n", "\r", "a\rb", "12", "½Ⅻ٣", "一", "ABC", "abc", "AbC",
    "A1", "\x00\x7f", "ƛ", "ꟓ", "\U00010d50", "\U00016ebb", "ẞ", "Ⓐ", "ª", "\u0345", "x y\tz",
    "aaa", "deadBEEF", "0x12", "!~", "\x0b", "\x0c",
]  # fmt: skip
NEEDLES = ["", "a", "l", "lo", ",", "é", "Σ", "aa", "\n", "héllo", "x", "😀"]
HAYSTACKS = ["", "a", "hello", "héllo", "a,,b", ",a,", "aaa", "aΣb", "😀x😀", "a\r\nb\n"]
POSITIONS = [-100, -7, -6, -5, -3, -1, 0, 1, 2, 3, 5, 6, 100, INT_MAX, INT_MIN]
INTS = [
    0, 1, -1, 2, -2, 3, 7, -7, 8, 10, 16, 62, 63, 64, 1000, -1000, 2**31, 2**62 - 2**31,
    INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1,
]  # fmt: skip
FLOATS = [
    0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.7, -3.7, 0.49999999999999994, 1.0, -1.0, 2.0,
    8.0, 1000.0, 1e-300, 5e-324, 4503599627370497.0, 2.0**62, -(2.0**62), 2.0**62 - 1024,
    -(2.0**62) - 2048, 1e30, -1e30, 1e308, 1.7976931348623157e308, math.pi, 710.0, -745.5,
    math.inf, -math.inf, math.nan,
]  # fmt: skip
UNIT_FLOATS = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, 1e-10, math.inf, math.nan]
ARRS = [[], [1], [3, 1, 2], [1, 2, 1, 3], [5, 5], [-1, 0, INT_MAX]]
FARRS = [[], [1.0], [3.0, math.nan, -0.0, 1.0, -math.inf], [1e308, 1.7e308], [math.inf, math.inf],
         [math.inf, -math.inf], [5e-324, 5e-324], [-0.0], [1.0, 2.0, math.nan, 3.0], [0.1, 0.2, 0.3]]  # fmt: skip
SARRS = [[], ["b", "B", "a", "é", ""], ["x"], ["a", "b", "a"]]
MAPS = [{}, {"a": 1}, {"b": 1, "a": 2}, {"": 0, "z": -5}]
KEYS = ["a", "b", "z", ""]

# ------------------------------------------------------------------ string

for key in [
    "length", "byte_length", "char_count", "is_empty", "to_lower_case", "to_upper_case", "trim",
    "trim_start", "trim_end", "chars", "lines", "to_code_points", "to_string", "is_numeric",
    "is_alphabetic", "is_alphanumeric", "is_uppercase", "is_lowercase", "is_whitespace",
    "is_control", "is_graphic", "is_ascii", "is_ascii_numeric", "is_ascii_alphabetic",
    "is_ascii_alphanumeric", "is_ascii_uppercase", "is_ascii_lowercase", "is_ascii_whitespace",
    "is_ascii_control", "is_ascii_graphic", "is_ascii_hex",
]:  # fmt: skip
    case(f"string.{key}", "s: string", f"s.{key}()", [(s,) for s in STRS])
for key in ["includes", "starts_with", "ends_with", "split", "index_of", "last_index_of", "add",
            "min", "max"]:  # fmt: skip
    case(f"string.{key}", "s: string, t: string", f"s.{key}(t)", product(HAYSTACKS, NEEDLES))
case("string.slice", "s: string, a: int, b: int", "s.slice(a, b)",
     product(["", "héllo", "a😀c"], POSITIONS, POSITIONS))  # fmt: skip
for key in ["replace", "replace_all"]:
    case(f"string.{key}", "s: string, a: string, b: string", f"s.{key}(a, b)",
         product(HAYSTACKS, NEEDLES[:8], ["", "-", "$0", "\\1"]))  # fmt: skip
for key in ["at", "code_point_at"]:
    case(
        f"string.{key}", "s: string, i: int", f"s.{key}(i)", product(["", "héllo", "😀"], POSITIONS)
    )
case(
    "string.repeat", "s: string, n: int", "s.repeat(n)", product(["", "ab", "é"], [-5, -1, 0, 1, 3])
)
case("string.clamp", "s: string, a: string, b: string", "s.clamp(a, b)",
     product(["", "m", "é", "z"], ["a", "x"], ["c", "y"]))  # fmt: skip
case("string.from_code_points", "xs: int[]", "string.from_code_points(xs)",
     [([],), ([104, 233, 128512],), ([0],), ([104, -1],), ([55296],), ([57343],), ([1114111],),
      ([1114112],), ([65, INT_MAX],)])  # fmt: skip
case(
    "string.from",
    "x: float[], m: map<string, int[]>",
    "string.from([x, m])",
    [([1.0, math.nan], {"k": [1]}), ([], {})],
    py=lambda x, m: B["string.from"]([x, m]),
)

# ------------------------------------------------------------------ array

case("array.length", "xs: int[]", "xs.length()", [(a,) for a in ARRS])
case("array.at", "xs: int[], i: int", "xs.at(i)", product(ARRS, POSITIONS))
case("array.get_index", "xs: int[], i: int", "xs[i]", product(ARRS, POSITIONS))
case("array.set_index", "xs: int[], i: int, v: int", "", product(ARRS, POSITIONS, [9]),
     py=lambda xs, i, v: (B["array.set_index"](xs, i, v), xs)[1],
     body="xs[i] = v; string.from(xs)")  # fmt: skip
mut("array.push", "xs: int[], v: int", "push(v)", product(ARRS, [7]))
mut("array.pop", "xs: int[]", "pop()", [(a,) for a in ARRS])
mut("array.shift", "xs: int[]", "shift()", [(a,) for a in ARRS])
mut("array.unshift", "xs: int[], v: int", "unshift(v)", product(ARRS, [7]))
mut("array.clear", "xs: int[]", "clear()", [(a,) for a in ARRS])
mut("array.remove_at", "xs: int[], i: int", "remove_at(i)", product(ARRS, POSITIONS))
mut("array.insert", "xs: int[], v: int, i: int", "insert(v, i)", product(ARRS, [7], POSITIONS))
mut("array.splice", "xs: int[], a: int, n: int, ys: int[]", "splice(a, n, ys)",
    product(ARRS, [-5, -2, -1, 0, 1, 3, 7], [-1, 0, 1, 5], [[], [8, 9]]))  # fmt: skip
mut("array.sort", "xs: int[]", "sort()", [(a,) for a in ARRS])
mut("array.sort", "xs: float[]", "sort()", [(a,) for a in FARRS])
mut("array.sort", "xs: string[]", "sort()", [(a,) for a in SARRS])
mut("array.sort", "xs: bool[]", "sort()", [([],), ([True, False, True],)])
mut("array.reverse", "xs: int[]", "reverse()", [(a,) for a in ARRS])
case("array.concat", "xs: int[], ys: int[]", "[xs.concat(ys), xs]", product(ARRS[:3], ARRS[:3]),
     py=lambda xs, ys: [B["array.concat"](xs, ys), xs])  # fmt: skip
case(
    "array.slice",
    "xs: int[], a: int, b: int",
    "xs.slice(a, b)",
    product(ARRS[2:4], POSITIONS, POSITIONS),
)
for key in ["includes", "index_of", "last_index_of"]:
    case(f"array.{key}", "xs: int[], v: int", f"xs.{key}(v)", product(ARRS, [1, 2, 5, 9]))
    case(f"array.{key}", "xs: float[], v: float", f"xs.{key}(v)",
         product(FARRS, [0.0, -0.0, 1.0, math.nan, math.inf]))  # fmt: skip
    case(f"array.{key}", "xs: string[], v: string", f"xs.{key}(v)", product(SARRS, ["a", "", "é"]))
case("array.join", "xs: int[], s: string", "xs.join(s)", product(ARRS, ["", ",", "||"]))
case("array.join", "xs: float[], s: string", "xs.join(s)", product(FARRS, [","]))
case("array.join", "xs: string[], s: string", "xs.join(s)", product(SARRS, [", "]))
case("array.join", "xs: string[][], s: string", "xs.join(s)", [([["a"], []], "|")])
case("array.sum", "xs: int[]", "xs.sum()",
     [(a,) for a in ARRS] + [([INT_MAX, 1],), ([INT_MAX, 1, -5],), ([INT_MIN, -1],), ([INT_MAX, -1, 1],)])  # fmt: skip
case("array.sum_float", "xs: float[]", "xs.sum()", [(a,) for a in FARRS])
case("array.sum", "xs: float[]", "xs.sum()", [(a,) for a in FARRS if a])
case("array.mean", "xs: float[]", "xs.mean()", [(a,) for a in FARRS])
case("array.median", "xs: float[]", "[xs.median(), xs]", [(a,) for a in FARRS],
     py=lambda xs: [B["array.median"](xs), xs])  # fmt: skip
case("array.to_string", "xs: float[]", "xs.to_string()", [(a,) for a in FARRS])

# ------------------------------------------------------------------ map

case("map.get_index", "m: map<string, int>, k: string", "m[k]", product(MAPS, KEYS))
case("map.set_index", "m: map<string, int>, k: string, v: int", "", product(MAPS, KEYS, [9]),
     py=lambda m, k, v: (B["map.set_index"](m, k, v), m)[1], body="m[k] = v; string.from(m)")  # fmt: skip
for key in ["length", "keys", "values", "to_string"]:
    case(f"map.{key}", "m: map<string, int>", f"m.{key}()", [(m,) for m in MAPS])
mut("map.clear", "m: map<string, int>", "clear()", [(m,) for m in MAPS])
for key in ["has", "get"]:
    case(f"map.{key}", "m: map<string, int>, k: string", f"m.{key}(k)", product(MAPS, KEYS))
mut("map.delete", "m: map<string, int>, k: string", "delete(k)", product(MAPS, KEYS))
mut("map.set", "m: map<string, int>, k: string, v: int", "set(k, v)", product(MAPS, KEYS, [9]))
mut("map.get_or_insert", "m: map<string, int>, k: string, v: int", "get_or_insert(k, v)",
    product(MAPS, KEYS, [9]))  # fmt: skip

# ------------------------------------------------------------------ int

for key in ["abs", "isqrt", "leading_zeros", "leading_ones", "trailing_zeros", "trailing_ones",
            "count_ones", "count_zeros", "to_string"]:  # fmt: skip
    case(f"int.{key}", "a: int", f"a.{key}()", [(a,) for a in INTS])
case("int.cmp", "a: int, b: int", "a.cmp(b)", [(1, 2), (2, 2), (3, -1), (INT_MIN, INT_MAX)])
case("float.cmp", "a: float, b: float", "a.cmp(b)",
     [(1.5, 2.0), (2.0, 2.0), (float("nan"), 1.0), (1.0, float("nan")), (float("nan"), float("nan")),
      (-0.0, 0.0), (float("inf"), 1e308)])
case("string.cmp", "a: string, b: string", "a.cmp(b)", [("a", "b"), ("b", "a"), ("x", "x"), ("", "a"), ("\u00e9", "z")])
case("bool.cmp", "a: bool, b: bool", "a.cmp(b)", [(True, False), (False, True), (True, True)])
# The operators as methods (`baml.ops.Compare`, `baml.ops.Equals`).
for key in ["lt", "le", "gt", "ge", "eq", "neq"]:
    case(f"int.{key}", "a: int, b: int", f"a.{key}(b)", [(1, 2), (2, 2), (3, -1), (INT_MIN, INT_MAX)])
    case(f"float.{key}", "a: float, b: float", f"a.{key}(b)",
         [(1.5, 2.0), (2.0, 2.0), (float("nan"), 1.0), (float("nan"), float("nan")), (-0.0, 0.0)])
    case(f"string.{key}", "a: string, b: string", f"a.{key}(b)", [("a", "b"), ("x", "x"), ("\u00e9", "z"), ("", "a")])
    case(f"bool.{key}", "a: bool, b: bool", f"a.{key}(b)", [(True, False), (False, True), (True, True)])
for key in ["eq", "neq"]:
    case(f"array.{key}", "a: int[], b: int[]", f"a.{key}(b)", product(ARRS[:4], ARRS[:4]))
    case(f"map.{key}", "a: map<string, int>, b: map<string, int>", f"a.{key}(b)", product(MAPS, MAPS))
case("int.pow", "a: int, e: int", "a.pow(e)",
     product([0, 1, -1, 2, -2, 3, -3, 10, 2**31, INT_MAX, INT_MIN],
             [INT_MIN, -1, 0, 1, 2, 3, 31, 32, 61, 62, 63, 64, 100, INT_MAX]))  # fmt: skip
case("int.ilog", "a: int, b: int", "a.ilog(b)",
     product([INT_MIN, -5, 0, 1, 2, 7, 8, 9, 1000, 1024, INT_MAX], [-1, 0, 1, 2, 3, 10, INT_MAX]))  # fmt: skip
for key in ["min", "max"]:
    case(
        f"int.{key}", "a: int, b: int", f"a.{key}(b)", product([0, 5, -5, INT_MIN], [0, 3, INT_MAX])
    )
case(
    "int.clamp",
    "a: int, lo: int, hi: int",
    "a.clamp(lo, hi)",
    product([-20, 0, 5, 15], [0, 10], [1, 10]),
)
INT_TEXTS = [
    "0", "42", "-7", "+0", "-0", "007", "", "+", "-", "x", "12a", " 5", "5 ", "1_0", "1.5", "٣",
    "+-5", "--5", "4611686018427387903", "4611686018427387904", "-4611686018427387904",
    "-4611686018427387905", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "99999999999999999999", "99999999999999999999x", "x99999999999999999999",
    'a"b', "a\nb", "é", "0x10", "1e3",
]  # fmt: skip
case("int.parse", "s: string", "int.parse(s)", [(s,) for s in INT_TEXTS])
case("int.max_value", "", "int.max_value()", [()])
case("int.min_value", "", "int.min_value()", [()])

# ------------------------------------------------------------------ float

for key in [
    "floor", "ceil", "round", "trunc", "fract", "sqrt", "is_nan", "is_infinite", "is_finite",
    "to_string", "abs", "signum", "exp", "ln", "log2", "log10", "cbrt", "sin", "cos", "tan",
    "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "to_radians", "to_degrees", "itrunc",
    "iround", "ifloor", "iceil",
]:  # fmt: skip
    case(f"float.{key}", "x: float", f"x.{key}()", [(x,) for x in FLOATS])
for key in ["asin", "acos", "atanh"]:
    case(
        f"float.{key}",
        "x: float",
        f"x.{key}()",
        [(x,) for x in UNIT_FLOATS + [-0.5, 1.5, -2.0, -math.inf]],
    )
for key in ["pow", "log", "hypot", "atan2", "min", "max"]:
    case(f"float.{key}", "x: float, y: float", f"x.{key}(y)",
         product([0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, 1e308, -8.0, math.inf, -math.inf, math.nan],
                 [0.0, -0.0, 1.0, -1.0, 2.0, 3.0, 0.5, -0.5, 1024.0, 1025.0, -1025.0, math.inf,
                  -math.inf, math.nan]))  # fmt: skip
case("float.clamp", "x: float, lo: float, hi: float", "x.clamp(lo, hi)",
     product([0.5, 5.0, -5.0, math.nan], [0.0, 1.0, math.nan], [1.0, 0.0]))  # fmt: skip
FLOAT_TEXTS = [
    "1.5", "-0.25", "1e3", "+1E-3", "-1.5E-3", "inf", "-inf", "+Infinity", "INF", "nan", "NaN",
    "-nan", "nAn", ".5", "5.", "-.5", "0", "007", "1e400", "-1e400", "1e-400", "", " 1", "1 ",
    "1_0", "0x10", "x", "e5", "1e", "1e+", ".", "-", "+", "1.2.3", "infinite", "in", "٣", "1.5f",
    "123456789012345678901234567890", "2.2250738585072011e-308", 'a"b',
]  # fmt: skip
case("float.parse", "s: string", "float.parse(s)", [(s,) for s in FLOAT_TEXTS])
for key in ["pi", "e", "golden_ratio", "nan", "inf", "epsilon", "max_finite", "min_finite"]:
    case(f"float.{key}", "", f"float.{key}()", [()])

# ------------------------------------------------------------------ bool

case("bool.to_string", "a: bool", "a.to_string()", [(True,), (False,)])
for key in ["min", "max"]:
    case(f"bool.{key}", "a: bool, b: bool", f"a.{key}(b)", product([True, False], [True, False]))
case("bool.clamp", "a: bool, lo: bool, hi: bool", "a.clamp(lo, hi)",
     product([True, False], [True, False], [True, False]))  # fmt: skip

# ------------------------------------------------------------------ globals

case("baml.sys.panic", "m: string", "", [("boom",), ("",)], body="baml.sys.panic(m)")
void("assert.is_true", "c: bool", "assert.is_true(c)", [(True,), (False,)])
void("assert.not_null", "v: int?", "assert.not_null(v)", [(1,), (None,), (0,)])
void(
    "assert.contains",
    "h: string, n: string",
    "assert.contains(h, n)",
    product(["abc", ""], ["", "b", "x"]),
)
void("assert.equal", "a: int, b: int", "assert.equal(a, b)", product([0, 2, -1], [0, 2]))
void(
    "assert.equal",
    "a: string, b: string",
    "assert.equal(a, b)",
    product(["a", 'q"', "", "é\n"], ["a", ""]),
)
void("assert.equal", "a: string, b: int", "assert.equal(a, b)", [("a", 2), ("2", 2)])
void("assert.equal", "a: float[], b: int[]", "assert.equal(a, b)", [([1.5], [2]), ([], [])])
void("assert.equal", "a: map<string, string>, b: map<string, string>", "assert.equal(a, b)",
     [({"k": "v"}, {"k": "v"}), ({"k": "v"}, {"k": "w"})])  # fmt: skip
void("assert.equal", "a: float, b: float", "assert.equal(a, b)",
     product([0.0, 1e21, math.nan], [-0.0, math.nan]))  # fmt: skip
void("assert.equal", "a: bool, b: int?", "assert.equal(a, b)", [(True, 1), (False, None)])
void("assert.approx_equal", "a: float, b: float, e: float", "assert.approx_equal(a, b, e)",
     product([1.0, 1.05, math.nan, math.inf], [1.0, math.inf], [0.1, 0.0, -1.0, math.nan, 1e-20]))  # fmt: skip


def _source() -> str:
    out = []
    for c in CASES:
        body = c.body if c.body is not None else f"string.from({c.expr})"
        out.append(f"function {c.name}({c.params}) -> string {{ {body} }}")
    out.append(EXTRA)
    return "\n".join(out)


EXTRA = """
class Pt { x int tags string[] }
function DeepCopy() -> string {
  let shared = [1];
  let p = Pt { x: 1, tags: ["a"] };
  let orig = [shared, shared];
  let m: map<string, int[]> = {"k": shared};
  let c = baml.deep_copy(orig);
  c[0].push(2);
  let q = baml.deep_copy(p);
  q.tags.push("b");
  let mc = baml.deep_copy(m);
  mc["k"].push(3);
  string.from([string.from(orig), string.from(c), string.from(p), string.from(q), string.from(m),
               string.from(mc), string.from(baml.deep_copy(5))])
}
function IncludesRefs() -> string {
  let a = [1];
  let xs = [a, [2]];
  let m: map<string, int> = {"a": 1};
  let ms = [m];
  let p = Pt { x: 1, tags: [] };
  let ps = [p];
  string.from([xs.includes(a), xs.includes([1]), xs.index_of([2]), xs.last_index_of(a),
               ms.includes(m), ms.includes({"a": 1}), ps.includes(p), ps.includes(Pt { x: 1, tags: [] })])
}
"""

SOURCE = _source()


@pytest.mark.parametrize("c", CASES, ids=[f"{c.name}-{c.key}" for c in CASES])
def test_case(oracle, c: Case):
    f = c.python()
    for args in c.inputs:
        expected = oracle.engine(c.name, **dict(zip(c.names, args)))
        got = oracle.python(f, *copy.deepcopy(args))
        assert got == expected, (c.key, args)


def test_every_key_is_tested():
    tested = {c.key for c in CASES} | {"baml.deep_copy", "baml.sys.exit"}
    # `baml.Int.abs` and the rest of the type namespaces share their rows' implementations.
    tested_impls = {id(BUILTINS[k]) for k in tested}
    untested = {k for k in set(BUILTINS) - tested if id(BUILTINS[k]) not in tested_impls}
    assert untested == set()
    assert MUTATES <= set(BUILTINS)
    with pytest.raises(TypeError):
        BUILTINS["x"] = len  # type: ignore[index]


def test_deep_copy(oracle):
    from ingot.runtime.values import ClassInfo

    pt = ClassInfo("user.Pt", ("x", "tags"))
    shared = [1]
    p = pt.new(x=1, tags=["a"])
    orig = [shared, shared]
    m = {"k": shared}
    c = B["baml.deep_copy"](orig)
    c[0].append(2)
    assert c[0] is c[1]
    q = B["baml.deep_copy"](p)
    q.get("tags").append("b")
    mc = B["baml.deep_copy"](m)
    mc["k"].append(3)
    parts = [orig, c, p, q, m, mc, B["baml.deep_copy"](5)]
    assert oracle.engine("DeepCopy") == ("ok", render_value([render_value(x) for x in parts]))
    cyc: list = []
    cyc.append(cyc)
    cc = B["baml.deep_copy"](cyc)
    assert cc is not cyc and cc[0] is cc


def test_includes_by_reference(oracle):
    from ingot.runtime.values import ClassInfo

    pt = ClassInfo("user.Pt", ("x", "tags"))
    a = [1]
    xs = [a, [2]]
    m = {"a": 1}
    p = pt.new(x=1, tags=[])
    got = [
        B["array.includes"](xs, a), B["array.includes"](xs, [1]), B["array.index_of"](xs, [2]),
        B["array.last_index_of"](xs, a), B["array.includes"]([m], m),
        B["array.includes"]([m], {"a": 1}), B["array.includes"]([p], p),
        B["array.includes"]([p], pt.new(x=1, tags=[])),
    ]  # fmt: skip
    assert oracle.engine("IncludesRefs") == ("ok", render_value(got))


def test_exit():
    from ingot.runtime.errors import BamlRaise

    with pytest.raises(BamlRaise) as info:
        B["baml.sys.exit"](3)
    assert info.value.value.cls.name == "baml.panics.Exit" and info.value.value.get("code") == 3


def test_nan_map_keys():
    m: dict = {}
    B["map.set_index"](m, float("nan"), 1)
    assert B["map.has"](m, float("nan")) and B["map.get_index"](m, float("nan")) == 1
    B["map.set_index"](m, -0.0, 2)
    assert B["map.get"](m, 0.0) == 2


# ------------------------------------------------------------------ random inputs

RANDOM = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=10)
ints = st.one_of(st.integers(INT_MIN, INT_MAX), st.integers(-70, 70), st.sampled_from(INTS))
floats = st.one_of(st.floats(), st.sampled_from(FLOATS))
_BY_KEY: dict[tuple[str, str], Case] = {}
for _c in CASES:
    _BY_KEY.setdefault((_c.key, _c.params), _c)


def _check(oracle, key: str, params: str, *args):
    c = _BY_KEY[(key, params)]
    expected = oracle.engine(c.name, **dict(zip(c.names, args)))
    assert oracle.python(c.python(), *copy.deepcopy(args)) == expected, (key, args)


_STRING_UNARY = [k for (k, p) in _BY_KEY if k.startswith("string.") and p == "s: string"]
_FLOAT_UNARY = [k for (k, p) in _BY_KEY if k.startswith("float.") and p == "x: float"]


@RANDOM
@given(s=texts)
def test_string_unary_random(oracle, s):
    for key in _STRING_UNARY:
        _check(oracle, key, "s: string", s)


@RANDOM
@given(s=texts, t=st.one_of(texts, st.sampled_from(NEEDLES)), a=ints, b=ints)
def test_string_binary_random(oracle, s, t, a, b):
    for key in ["string.includes", "string.split", "string.index_of", "string.last_index_of",
                "string.min"]:  # fmt: skip
        _check(oracle, key, "s: string, t: string", s, t)
    _check(oracle, "string.replace_all", "s: string, a: string, b: string", s, t, "+")
    _check(oracle, "string.slice", "s: string, a: int, b: int", s, a % 13 - 6, b % 13 - 6)
    _check(oracle, "string.at", "s: string, i: int", s, a % 13 - 6)


@RANDOM
@given(x=floats)
def test_float_unary_random(oracle, x):
    for key in _FLOAT_UNARY:
        _check(oracle, key, "x: float", x)


@RANDOM
@given(x=floats, y=floats)
def test_float_binary_random(oracle, x, y):
    for key in ["float.pow", "float.log", "float.hypot", "float.atan2"]:
        _check(oracle, key, "x: float, y: float", x, y)


@RANDOM
@given(a=ints, e=st.one_of(st.integers(-3, 70), ints))
def test_int_random(oracle, a, e):
    _check(oracle, "int.pow", "a: int, e: int", a, e)
    _check(oracle, "int.ilog", "a: int, b: int", a, e)
    for key in [
        "int.abs",
        "int.isqrt",
        "int.leading_zeros",
        "int.trailing_zeros",
        "int.count_ones",
    ]:
        _check(oracle, key, "a: int", a)


@RANDOM
@given(s=st.one_of(texts, st.from_regex(r"[+-]?[0-9]{1,25}", fullmatch=True)))
def test_int_parse_random(oracle, s):
    _check(oracle, "int.parse", "s: string", s)


@RANDOM
@given(
    s=st.one_of(
        texts,
        st.from_regex(r"[+-]?[0-9]*\.?[0-9]*([eE][+-]?[0-9]{1,3})?", fullmatch=True),
        st.floats().map(repr),
    )
)
def test_float_parse_random(oracle, s):
    _check(oracle, "float.parse", "s: string", s)


@RANDOM
@given(xs=st.lists(floats, max_size=8))
def test_float_arrays_random(oracle, xs):
    for key in ["array.sort", "array.sum_float", "array.mean", "array.median"]:
        _check(oracle, key, "xs: float[]", xs)


@RANDOM
@given(xs=st.lists(ints, max_size=6), i=st.integers(-8, 8))
def test_int_arrays_random(oracle, xs, i):
    _check(oracle, "array.sum", "xs: int[]", xs)
    _check(oracle, "array.sort", "xs: int[]", xs)
    _check(oracle, "array.insert", "xs: int[], v: int, i: int", xs, 7, i)
    _check(oracle, "array.remove_at", "xs: int[], i: int", xs, i)
    _check(oracle, "array.get_index", "xs: int[], i: int", xs, i)


@RANDOM
@given(xs=st.lists(texts, max_size=6))
def test_string_arrays_random(oracle, xs):
    _check(oracle, "array.sort", "xs: string[]", xs)
    _check(oracle, "array.join", "xs: string[], s: string", xs, ", ")
