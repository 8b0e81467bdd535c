"""A Unicode character class is arithmetic on character codes, not a regex.

`c.is_alphanumeric()` over `s.chars()` is a class of 844 ranges. As a Z3 regular expression,
its complement took 97 s on `not in_re(substr(t, 0, 1), star(class))` under a 1 s timeout:
Z3 did not stop at the query's timeout or resource limit, and `ingot explore --timeout 1` ran
for minutes. As a disjunction over the character's code it is answered at once; on a whole
string (`s.is_alphanumeric()`) it is the same disjunction under a quantifier over positions.
"""

from __future__ import annotations

import time

import pytest
import z3

import ingot
from ingot.concolic.edges import edge_key
from ingot.concolic.explore import Explorer, Options
from ingot.runtime import _unicode as uni
from ingot.stdlib.string_models import PREDICATES as CLASSES
from ingot.stdlib.strings import (
    string_is_alphabetic,
    string_is_alphanumeric,
    string_is_numeric,
    string_is_uppercase,
)
from ingot.symbolic import string_ops as so
from ingot.symbolic.expr import Op
from ingot.symbolic.z3_strings import string_of, translate

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
    witness = string_of(s.model().eval(t, model_completion=True))
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


WHOLE = """
function Check(s: string, t: string) -> int {
  if (s.is_alphanumeric()) {
    if (s.length() > 3) {
      if (t.is_alphabetic() && t.length() > 2) {
        return 3
      }
      return 2
    }
    return 1
  }
  if (s.starts_with("x")) {
    return -1
  }
  return 0
}
"""
PREDICATES = {"is_alphanumeric": string_is_alphanumeric, "is_alphabetic": string_is_alphabetic,
              "is_numeric": string_is_numeric, "is_uppercase": string_is_uppercase}


@pytest.mark.parametrize("name", sorted(PREDICATES))
def test_the_class_on_a_whole_string_agrees_with_the_predicate(name: str) -> None:
    ctx = z3.Context()
    s = z3.String("s", ctx)
    member = translate(Op.IN_RE, so.star(CLASSES[name]), [s], ctx)
    for text in ["", "abc", "ABC", "a1", "٣٤", "née", "a b", "x-y", "Ünï", "\U0001F600", "12", "ß"]:
        solver = z3.Solver(ctx=ctx)
        solver.add(s == z3.StringVal(text, ctx), member)
        assert (solver.check() == z3.sat) == PREDICATES[name](text), (name, text)


@pytest.mark.parametrize("positive", [True, False])
def test_a_whole_string_in_or_out_of_a_large_class_is_solved_within_the_timeout(positive: bool) -> None:
    ctx = z3.Context()
    s = z3.String("s", ctx)
    member = translate(Op.IN_RE, so.star(CLASSES["is_alphanumeric"]), [s], ctx)
    solver = z3.Solver(ctx=ctx)
    solver.set("timeout", 2000)
    solver.add(z3.Length(s) > 3, z3.Length(s) <= 32, member if positive else z3.Not(member))
    start = time.perf_counter()
    assert solver.check() == z3.sat
    assert time.perf_counter() - start < 5  # (the regex ran past any timeout; the bound is loose)
    witness = string_of(solver.model().eval(s, model_completion=True))
    assert len(witness) > 3 and string_is_alphanumeric(witness) == positive


def test_exploring_a_unicode_predicate_on_whole_strings_covers_every_edge_in_time() -> None:
    program = ingot.load_source(WHOLE)
    report = Explorer(program.view, "Check", Options(seed=0, timeout_s=10)).explore()
    assert report.covered == {edge_key(e) for e in report.edges}
    assert report.stopped_by == "full-coverage"


HANDLE = """
function ParseHandle(raw: string) -> string {
  let t = raw.trim();
  if (!t.starts_with("@")) {
    throw "no at-sign";
  }
  let parts = t.slice(1, t.length()).split("#");
  if (parts.length() != 2) {
    throw "want user#tag";
  }
  if (!parts[0].is_alphanumeric() || parts[0].length() < 2) {
    throw "bad user";
  }
  if (!parts[1].is_numeric()) {
    throw "tag must be digits";
  }
  if (parts[0].is_uppercase() && parts[1].length() == 4) {
    return "staff";
  }
  parts[0].to_lower_case()
}
"""


def test_a_class_on_a_split_part_is_solved_through_its_ascii_form() -> None:
    # The exact queries (a quantifier over each part, the split's definition) ran out of their
    # resource limit, and the last two edges stayed uncovered; their ASCII forms are answered.
    program = ingot.load_source(HANDLE)
    report = Explorer(program.view, "ParseHandle", Options(seed=0, timeout_s=30)).explore()
    assert report.covered == {edge_key(e) for e in report.edges}
    staff = [t for t in report.tests if t.outcome.get("value") == "staff"]
    assert staff and staff[0].args["raw"].isascii()


def test_exploring_a_loop_over_a_unicode_predicate_ends_within_its_timeout() -> None:
    program = ingot.load_source(WORD)
    report = Explorer(program.view, "Word", Options(seed=0, timeout_s=10)).explore()
    assert report.covered == {edge_key(e) for e in report.edges}
    assert report.stopped_by != "timeout"
