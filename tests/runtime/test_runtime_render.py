"""`ingot.runtime.render` against the real engine's templates and `string.from`."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ingot.runtime.render import float_display, quote_string, render_float, render_value
from ingot.runtime.values import INT_MAX, INT_MIN, ClassInfo, EnumInfo

SOURCE = """
enum Mood { HAPPY SAD }
class Pt { x int y float }
class Box { name string tags string[] m Mood inner Pt? n map<string, Pt> }
class Empty { }
function TFloat(x: float) -> string { `${x}` }
function SFloat(x: float) -> string { string.from(x) + "|" + string.from([x]) + "|" + x.to_string() }
function TInt(x: int) -> string { `${x}|${[x]}|${x.to_string()}` }
function TBool(x: bool) -> string { `${x}|${[x]}|${x.to_string()}` }
function TStr(s: string) -> string { `${s}|${[s]}|${string.from(s)}` }
function MapKey(s: string) -> string { let m: map<string, string> = {}; m[s] = s; string.from(m) }
function Nested(xs: string[][], m: map<string, float[]>) -> string { string.from([xs, m]) }
function Optional(xs: (int?)[]) -> string { string.from(xs) }
function Objects() -> string {
  let b = Box { name: "a\\"b", tags: ["x", ""], m: Mood.SAD, inner: null, n: {"p": Pt { x: 1, y: 2.0 }} };
  let im: map<int, string> = {1: "v", -2: "w"};
  let bm: map<bool, string?> = {true: null};
  let e: int[] = [];
  let em: map<string, int> = {};
  `${b}|${[Mood.HAPPY]}|${Mood.SAD}|${Empty {}}|${[Empty {}]}|${im}|${bm}|${e}|${em}|${Pt { x: -3, y: 0.5 }}`
}
function Panics(x: int) -> string {
  let r = string.from(10 / x) catch (e) { baml.panics.DivisionByZero => string.from(e) };
  r
}
"""

EDGE_FLOATS = [
    0.0, -0.0, 1.0, -1.0, 2.0, 100.0, 0.1, 0.30000000000000004, 1e15, 1e16, 1e17, 1e21, 1e22,
    1.5e-7, 1e-4, 1e-5, 123456789.125, 5e-324, 2.2250738585072014e-308,
    1.7976931348623157e308, -1.7976931348623157e308, 2.0**62, 4611686018427388000.0,
    math.inf, -math.inf, math.nan,
]  # fmt: skip
STRINGS = [
    "", "a", 'a"b', "a\\b", "x\ny", "t\tz", "\r", "\x00", "\x01", "\x1f", "\x7f", "'", "$", "{}",
    "é", "\u0301", "a\u0301", "\u200b", "\u00a0", "\u2028", "\u00ad", "\ufffe", "\ue000",
    "\U0010ffff", "😀", "\u0085", "\ufeff", "\u3000", "\uff9e", "\u0378", "\U000e0020", "ẞ",
]  # fmt: skip
SLOW = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
any_char = st.characters(blacklist_categories=("Cs",))


@pytest.mark.parametrize("x", EDGE_FLOATS, ids=repr)
def test_float_edges(oracle, x):
    assert oracle.engine("TFloat", x=x) == ("ok", render_float(x))
    r = render_float(x)
    assert oracle.engine("SFloat", x=x) == ("ok", f"{r}|[{r}]|{r}")


@SLOW
@given(x=st.floats())
def test_float_random(oracle, x):
    assert oracle.engine("TFloat", x=x) == ("ok", render_value(x))


# Floats with few significant bits often lie exactly halfway between two shortest
# digit strings, where Python's repr and the engine round differently.
few_bit_floats = st.builds(
    lambda m, e, neg: (-1.0 if neg else 1.0) * m * 2.0**e,
    st.integers(0, 2**40),
    st.integers(-60, 80),
    st.booleans(),
)


@SLOW
@given(x=few_bit_floats)
def test_float_ties(oracle, x):
    assert oracle.engine("TFloat", x=x) == ("ok", render_value(x))


def test_float_tie_examples():
    assert render_float(732016053863787.25) == "732016053863787.3"
    assert render_float(2.92269134521484375) == "2.9226913452148438"
    assert render_float(-102009650850160.625) == "-102009650850160.63"
    assert float_display(3.922489747025014e44) == "392248974702501400000000000000000000000000000"


def test_float_display():
    assert float_display(2.0) == "2"
    assert float_display(1e30) == "1000000000000000000000000000000"
    assert float_display(2.0**62) == "4611686018427388000"
    assert float_display(-math.inf) == "-inf"
    assert float_display(math.nan) == "NaN"
    assert float_display(0.5) == "0.5"


@pytest.mark.parametrize("x", [0, 1, -1, INT_MAX, INT_MIN, 42])
def test_int(oracle, x):
    assert oracle.engine("TInt", x=x) == ("ok", f"{x}|[{x}]|{x}")
    assert render_value(x) == str(x) and render_value([x]) == f"[{x}]"


@pytest.mark.parametrize("x", [True, False])
def test_bool(oracle, x):
    assert oracle.engine("TBool", x=x) == (
        "ok",
        f"{render_value(x)}|[{render_value(x)}]|{render_value(x)}",
    )


@pytest.mark.parametrize("s", STRINGS, ids=repr)
def test_string_edges(oracle, s):
    assert oracle.engine("TStr", s=s) == ("ok", f"{s}|{render_value([s])}|{s}")
    assert oracle.engine("MapKey", s=s) == ("ok", render_value({s: s}))


@SLOW
@given(s=st.text(any_char, max_size=6))
def test_string_random(oracle, s):
    assert oracle.engine("TStr", s=s) == ("ok", f"{s}|{quote_string(s).join('[]')}|{s}")


def test_every_escaped_block(oracle):
    """Every 97th code point, inside a container (the engine escapes unassigned ones)."""
    chars = "".join(chr(c) for c in range(0, 0x110000, 97) if not 0xD800 <= c <= 0xDFFF)
    for i in range(0, len(chars), 512):
        chunk = chars[i : i + 512]
        assert oracle.engine("TStr", s=chunk) == ("ok", f"{chunk}|[{quote_string(chunk)}]|{chunk}")


def test_nested(oracle):
    xs = [["a", "b\n"], [], [""]]
    m = {"k": [1.0, -0.0, math.nan], "": []}
    assert oracle.engine("Nested", xs=xs, m=m) == ("ok", render_value([xs, m]))
    assert oracle.engine("Optional", xs=[1, None, 3]) == ("ok", render_value([1, None, 3]))


def test_objects(oracle):
    mood = EnumInfo("user.Mood", ("HAPPY", "SAD"))
    pt = ClassInfo("user.Pt", ("x", "y"))
    box = ClassInfo("user.Box", ("name", "tags", "m", "inner", "n"))
    empty = ClassInfo("user.Empty", ())
    b = box.new(
        name='a"b', tags=["x", ""], m=mood.variant("SAD"), inner=None, n={"p": pt.new(x=1, y=2.0)}
    )
    parts = [
        b, [mood.variant("HAPPY")], mood.variant("SAD"), empty.new(), [empty.new()],
        {1: "v", -2: "w"}, {True: None}, [], {}, pt.new(x=-3, y=0.5),
    ]  # fmt: skip
    assert oracle.engine("Objects") == ("ok", "|".join(render_value(p) for p in parts))


def test_panic_values(oracle):
    from ingot.runtime.errors import PANICS

    expected = render_value(PANICS["DivisionByZero"].new(dividend=10))
    assert oracle.engine("Panics", x=0) == ("ok", expected)
    assert expected == "DivisionByZero { dividend: 10 }"


def test_cycles_and_functions():
    node = ClassInfo("user.Node", ("v", "next"))
    a = node.new(v=1)
    a.set("next", a)
    assert render_value(a) == "Node { v: 1, next: ... }"
    xs: list = []
    xs.append(xs)
    assert render_value(xs) == "[...]"
    assert render_value([len]) == "[<function>]"
