"""A Unicode character class tested on one character is arithmetic on its code, not a regex.

`c.is_alphanumeric()` over `s.chars()` is a class of 844 ranges. As a Z3 regular expression,
its complement took 97 s on `not in_re(substr(t, 0, 1), star(class))` under a 1 s timeout:
Z3 did not stop at the query's timeout or resource limit, and `ingot explore --timeout 1` ran
for minutes. As a disjunction over the character's code it is answered at once.
"""

from __future__ import annotations

import time

import z3

import ingot
from ingot.concolic.edges import edge_key
from ingot.concolic.explore import Explorer, Options
from ingot.runtime import _unicode as uni
from ingot.stdlib.strings import string_is_alphanumeric
from ingot.symbolic import string_ops as so
from ingot.symbolic.expr import Op
from ingot.symbolic.z3_strings import translate

WORD = """
function Word(t: string) -> string {
  for (let c in t.chars()) {
    if (!c.is_alphanumeric()) {
      return "cut at " + c;
    }
  }
  "word"
}
"""


def test_a_character_outside_a_large_class_is_found_within_the_timeout() -> None:
    ctx = z3.Context()
    t = z3.String("t", ctx)
    alnum = ("set", tuple(zip(uni.ALPHANUMERIC.starts, uni.ALPHANUMERIC.ends)))
    first = z3.SubString(t, 0, 1)
    s = z3.Solver(ctx=ctx)
    s.set("timeout", 2000)
    s.add(z3.Length(t) > 0, z3.Not(translate(Op.IN_RE, so.star(alnum), [first], ctx)))
    start = time.perf_counter()
    assert s.check() == z3.sat
    assert time.perf_counter() - start < 2
    witness = s.model().eval(t, model_completion=True).as_string()
    assert witness and not string_is_alphanumeric(witness[0])


def test_the_class_on_one_character_agrees_with_the_predicate() -> None:
    ctx = z3.Context()
    c = z3.String("c", ctx)
    alnum = ("set", tuple(zip(uni.ALPHANUMERIC.starts, uni.ALPHANUMERIC.ends)))
    member = translate(Op.IN_RE, so.star(alnum), [z3.SubString(c, 0, 1)], ctx)
    for ch in ["a", "Z", "7", "é", "ß", "٣", "-", " ", "€", "\U0001F600"]:
        s = z3.Solver(ctx=ctx)
        s.add(c == z3.StringVal(ch, ctx))
        s.add(member)
        assert (s.check() == z3.sat) == string_is_alphanumeric(ch), ch


def test_exploring_a_loop_over_a_unicode_predicate_ends_within_its_timeout() -> None:
    program = ingot.load_source(WORD)
    report = Explorer(program.view, "Word", Options(seed=0, timeout_s=10)).explore()
    assert report.covered == {edge_key(e) for e in report.edges}
    assert report.stopped_by != "timeout"
