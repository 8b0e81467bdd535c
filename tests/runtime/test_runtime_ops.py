"""`ingot.runtime.ops` against the real engine: arithmetic, bitwise, comparison, truthiness."""

from __future__ import annotations

import itertools
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingot.runtime import ops
from ingot.runtime.errors import BamlRaise
from ingot.runtime.values import INT_MAX, INT_MIN, ClassInfo, EnumInfo

_ARITH = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "Mod": "%"}
_BITS = {"And": "&", "Or": "|", "Xor": "^", "Shl": "<<", "Shr": ">>"}
_CMP = "[a == b, a != b, a < b, a <= b, a > b, a >= b]"
_EQ_TYPES = {
    "intarr": "int[]",
    "floatarr": "float[]",
    "mapstringfloat": "map<string, float>",
    "intfloatarr": "(int | float)[]",
    "stringarr": "string[][]",
}


def _source() -> str:
    fns = []
    for name, op in {**_ARITH, **_BITS}.items():
        fns.append(f"function I{name}(a: int, b: int) -> string {{ string.from(a {op} b) }}")
    for name, op in _ARITH.items():
        for pre, (ta, tb) in {
            "F": ("float", "float"),
            "IF": ("int", "float"),
            "FI": ("float", "int"),
        }.items():
            fns.append(
                f"function {pre}{name}(a: {ta}, b: {tb}) -> string {{ string.from(a {op} b) }}"
            )
    fns += [
        "function INeg(a: int) -> string { string.from(-a) }",
        "function INot(a: int) -> string { string.from(~a) }",
        "function FNeg(a: float) -> string { string.from(-a) }",
        "function SAdd(a: string, b: string) -> string { a + b }",
    ]
    for t in ("int", "float", "string", "bool"):
        fns.append(f"function Cmp_{t}(a: {t}, b: {t}) -> string {{ string.from({_CMP}) }}")
    for t in ("int", "float", "string", "bool", "int[]", "map<string, int>", "int?", "float[]"):
        name = t.replace("[]", "_arr").replace("<string, int>", "").replace("?", "_opt")
        fns.append(
            f"function Truthy_{name}(x: {t}) -> string "
            "{ string.from([if (x) { true } else { false }, !x, x && true, x || false]) }"
        )
    for name, t in _EQ_TYPES.items():
        fns.append(
            f"function Eq_{name}(a: {t}, b: {t}) -> string {{ string.from([a == b, a != b]) }}"
        )
    fns.append(
        "function EqMixed(i: int, f: float, s: string, b: bool) -> string {"
        " string.from([i == f, f == i, s == i, b == i, i == b]) }"
    )
    fns.append(OBJECTS)
    return "\n".join(fns)


OBJECTS = """
enum Mood { HAPPY SAD }
class Pt { x int y float }
class Node { v int next Node? }
class Empty { }
function Objects() -> string {
  let p = Pt { x: 1, y: 2.0 };
  let q = Pt { x: 1, y: 2.0 };
  let r = Pt { x: 1, y: 3.0 };
  let a = Node { v: 1, next: null };
  a.next = a;
  let c = Node { v: 1, next: null };
  c.next = c;
  let d = Node { v: 1, next: null };
  let e = Node { v: 1, next: d };
  let f = Node { v: 1, next: null };
  let g = Node { v: 1, next: f };
  let fn1 = (x: int) -> int { x };
  let fn2 = (x: int) -> int { x };
  string.from([
    p == q, p != q, p == r, Mood.HAPPY == Mood.HAPPY, Mood.HAPPY == Mood.SAD,
    a == a, a == c, e == g, fn1 == fn1, fn1 == fn2,
    if (p) { true } else { false }, if (Empty {}) { true } else { false },
    if (Mood.SAD) { true } else { false }, if (fn1) { true } else { false },
  ])
}
function Deep(n: int) -> string {
  let a: Node? = null;
  let b: Node? = null;
  for (let i = 0; i < n; i += 1) {
    a = Node { v: i, next: a };
    b = Node { v: i, next: b };
  }
  let c = Node { v: -1, next: b };
  string.from([a == b, a == c, string.from(a).length(), string.from([a]).length()])
}
"""

SOURCE = _source()

EDGE_INTS = [
    0, 1, -1, 2, -2, 3, -7, 7, 62, 63, 64, 100, -100,
    INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1, INT_MAX // 2, INT_MIN // 2,
    2**31, -(2**31), 2**32, 2147483648, 3037000499, 3037000500, -3037000500, 2**61, -(2**61),
]  # fmt: skip
EDGE_FLOATS = [
    0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -7.5, 0.1, 1e21, 1.5e-7, 5e-324, -5e-324,
    1.7976931348623157e308, -1.7976931348623157e308, 2.0**62, -(2.0**62), 2.0**53 + 2,
    math.inf, -math.inf, math.nan,
]  # fmt: skip
EDGE_STRINGS = ["", "a", "b", "B", "ab", "abc", "é", "z", "😀", "\x00", "a\x00", "ẞ"]

ints = st.one_of(st.integers(INT_MIN, INT_MAX), st.sampled_from(EDGE_INTS), st.integers(-130, 130))
floats = st.one_of(st.floats(), st.sampled_from(EDGE_FLOATS))
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

INT_BINARY = [(f"I{n}", getattr(ops, fn)) for n, fn in [
    ("Add", "add"), ("Sub", "sub"), ("Mul", "mul"), ("Div", "div"), ("Mod", "mod"),
    ("And", "bit_and"), ("Or", "bit_or"), ("Xor", "bit_xor"), ("Shl", "shl"), ("Shr", "shr"),
]]  # fmt: skip
FLOAT_BINARY = [
    (f"{pre}{n}", getattr(ops, fn))
    for pre in ("F", "IF", "FI")
    for n, fn in [("Add", "add"), ("Sub", "sub"), ("Mul", "mul"), ("Div", "div"), ("Mod", "mod")]
]


def _arg(pre: str, side: int, v: float) -> float | int:
    """Coerce a generated number to the parameter type of an `F`/`IF`/`FI` wrapper."""
    kind = pre[side] if len(pre) == 2 else "F"
    if kind == "I":
        return max(INT_MIN, min(INT_MAX, int(v))) if math.isfinite(v) else 7
    return float(v)


# ------------------------------------------------------------------ integer ops


@pytest.mark.parametrize("fn,f", INT_BINARY, ids=[n for n, _ in INT_BINARY])
def test_int_binary_edges(oracle, fn, f):
    for a, b in itertools.product(EDGE_INTS, repeat=2):
        assert oracle.python(f, a, b) == oracle.engine(fn, a=a, b=b), (fn, a, b)


@pytest.mark.parametrize("fn,f", INT_BINARY, ids=[n for n, _ in INT_BINARY])
@FAST
@given(a=ints, b=ints)
def test_int_binary_random(oracle, fn, f, a, b):
    assert oracle.python(f, a, b) == oracle.engine(fn, a=a, b=b)


@pytest.mark.parametrize("fn,f", [("INeg", ops.neg), ("INot", ops.bit_not)])
def test_int_unary(oracle, fn, f):
    for a in EDGE_INTS:
        assert oracle.python(f, a) == oracle.engine(fn, a=a), (fn, a)


def test_overflow_messages():
    cases = [
        (ops.add, INT_MAX, 1, "4611686018427387903 + 1 overflows int"),
        (ops.sub, INT_MIN, 1, "-4611686018427387904 - 1 overflows int"),
        (ops.mul, INT_MAX, 2, "4611686018427387903 * 2 overflows int"),
        (ops.div, INT_MIN, -1, "-4611686018427387904 / -1 overflows int"),
    ]
    for f, a, b, message in cases:
        with pytest.raises(BamlRaise) as info:
            f(a, b)
        assert info.value.value.get("message") == message
    with pytest.raises(BamlRaise) as info:
        ops.neg(INT_MIN)
    assert info.value.value.get("message") == "-(-4611686018427387904) overflows int"
    assert ops.mod(INT_MIN, -1) == 0


# ------------------------------------------------------------------ float ops


@pytest.mark.parametrize("fn,f", FLOAT_BINARY, ids=[n for n, _ in FLOAT_BINARY])
def test_float_binary_edges(oracle, fn, f):
    pre = fn[:-3]
    for a, b in itertools.product(EDGE_FLOATS, repeat=2):
        a, b = _arg(pre, 0, a), _arg(pre, 1, b)
        assert oracle.python(f, a, b) == oracle.engine(fn, a=a, b=b), (fn, a, b)


@pytest.mark.parametrize("fn,f", FLOAT_BINARY, ids=[n for n, _ in FLOAT_BINARY])
@FAST
@given(a=floats, b=floats)
def test_float_binary_random(oracle, fn, f, a, b):
    pre = fn[:-3]
    a, b = _arg(pre, 0, a), _arg(pre, 1, b)
    assert oracle.python(f, a, b) == oracle.engine(fn, a=a, b=b)


def test_float_neg(oracle):
    for a in EDGE_FLOATS:
        assert oracle.python(ops.neg, a) == oracle.engine("FNeg", a=a), a


@FAST
@given(a=texts, b=texts)
def test_string_concat(oracle, a, b):
    assert oracle.python(ops.add, a, b) == oracle.engine("SAdd", a=a, b=b)


# ------------------------------------------------------------------ comparison


def _cmp(a, b):
    return [f(a, b) for f in (ops.eq, ops.ne, ops.lt, ops.le, ops.gt, ops.ge)]


@pytest.mark.parametrize(
    "t,values",
    [
        ("int", EDGE_INTS[:12] + [INT_MAX, INT_MIN]),
        ("float", EDGE_FLOATS),
        ("string", EDGE_STRINGS),
        ("bool", [True, False]),
    ],
)
def test_comparison_edges(oracle, t, values):
    for a, b in itertools.product(values, repeat=2):
        assert oracle.python(_cmp, a, b) == oracle.engine(f"Cmp_{t}", a=a, b=b), (a, b)


@FAST
@given(a=floats, b=floats)
def test_float_comparison_random(oracle, a, b):
    assert oracle.python(_cmp, a, b) == oracle.engine("Cmp_float", a=a, b=b)


@FAST
@given(a=texts, b=texts)
def test_string_comparison_random(oracle, a, b):
    assert oracle.python(_cmp, a, b) == oracle.engine("Cmp_string", a=a, b=b)


@pytest.mark.parametrize(
    "name,pairs",
    [
        ("intarr", [([], []), ([1], [1]), ([1, 2], [2, 1]), ([1], [1, 1])]),
        ("floatarr", [([math.nan], [math.nan]), ([-0.0], [0.0]), ([1.0], [1.0, 2.0])]),
        (
            "mapstringfloat",
            [
                ({"a": 1.0, "b": 2.0}, {"b": 2.0, "a": 1.0}),
                ({"a": 1.0}, {"a": 1.0, "b": 2.0}),
                ({"a": math.nan}, {"a": math.nan}),
                ({"a": 1.0}, {"b": 1.0}),
                ({}, {}),
            ],
        ),
        ("intfloatarr", [([1], [1.0]), ([1.0], [1.0]), ([1, 2.0], [1, 2.0]), ([2], [2])]),
        ("stringarr", [([["a"]], [["a"]]), ([["a"], []], [["a"]]), ([[]], [[""]])]),
    ],
)
def test_structural_equality(oracle, name, pairs):
    for a, b in pairs:
        assert oracle.python(lambda x, y: [ops.eq(x, y), ops.ne(x, y)], a, b) == oracle.engine(
            f"Eq_{name}", a=a, b=b
        ), (a, b)


def test_mixed_type_equality(oracle):
    for i, f in [(1, 1.0), (0, 0.0), (0, -0.0), (2, 2.5)]:
        for s, bo in [("1", True), ("0", False)]:
            expected = oracle.engine("EqMixed", i=i, f=f, s=s, b=bo)
            got = oracle.python(
                lambda i, f, s, bo: [
                    ops.eq(i, f), ops.eq(f, i), ops.eq(s, i), ops.eq(bo, i), ops.eq(i, bo)
                ],
                i, f, s, bo,
            )  # fmt: skip
            assert got == expected, (i, f, s, bo)


def test_objects(oracle):
    mood = EnumInfo("user.Mood", ("HAPPY", "SAD"))
    pt = ClassInfo("user.Pt", ("x", "y"))
    node = ClassInfo("user.Node", ("v", "next"))
    empty = ClassInfo("user.Empty", ())
    p, q, r = pt.new(x=1, y=2.0), pt.new(x=1, y=2.0), pt.new(x=1, y=3.0)
    a = node.new(v=1)
    a.set("next", a)
    c = node.new(v=1)
    c.set("next", c)
    e = node.new(v=1, next=node.new(v=1))
    g = node.new(v=1, next=node.new(v=1))

    def fn1(x):
        return x

    def fn2(x):
        return x

    happy, sad = mood.variants
    got = [
        ops.eq(p, q), ops.ne(p, q), ops.eq(p, r), ops.eq(happy, happy), ops.eq(happy, sad),
        ops.eq(a, a), ops.eq(a, c), ops.eq(e, g), ops.eq(fn1, fn1), ops.eq(fn1, fn2),
        ops.truthy(p), ops.truthy(empty.new()), ops.truthy(sad), ops.truthy(fn1),
    ]  # fmt: skip
    assert oracle.python(lambda: got) == oracle.engine("Objects")


def test_deep_values(oracle):
    """Values nested deeper than Python's recursion limit compare and render."""
    from ingot.runtime.render import render_value

    node = ClassInfo("user.Node", ("v", "next"))
    n = 5000
    a = b = None
    for i in range(n):
        a, b = node.new(v=i, next=a), node.new(v=i, next=b)
    c = node.new(v=-1, next=b)
    got = [ops.eq(a, b), ops.eq(a, c), len(render_value(a)), len(render_value([a]))]
    assert oracle.python(lambda: got) == oracle.engine("Deep", n=n)


# ------------------------------------------------------------------ truthiness


def _truth(x):
    return [ops.truthy(x), ops.not_(x), ops.truthy(x) and True, ops.truthy(x) or False]


@pytest.mark.parametrize(
    "name,values",
    [
        ("int", [0, 1, -1, INT_MIN]),
        ("float", [0.0, -0.0, math.nan, math.inf, 5e-324, -1.0]),
        ("string", ["", " ", "0", "false"]),
        ("bool", [True, False]),
        ("int_arr", [[], [0]]),
        ("float_arr", [[], [0.0]]),
        ("map", [{}, {"": 0}]),
        ("int_opt", [None, 0, 5]),
    ],
)
def test_truthiness(oracle, name, values):
    for v in values:
        assert oracle.python(_truth, v) == oracle.engine(f"Truthy_{name}", x=v), v


def test_tables():
    assert ops.BINARY["+"] is ops.add and ops.UNARY["!"] is ops.not_
    with pytest.raises(TypeError):
        ops.BINARY["+"] = ops.sub  # type: ignore[index]
    with pytest.raises(TypeError):
        ops.lt(1, 1.0)
