"""`==` on classes implementing `baml.ops.Equals` with their own `eq`.

Between two instances of the class, `==`/`!=` call `eq` (the conformance corpus,
tests/conformance/extra/ops_impl_*, compares that with the engine). Where the class sits inside
an operand's type (an optional not narrowed, a list, a map's values, a field of another class,
a union), the engine calls `eq` inside its structural comparison and ingot does not: those are
I0002 errors naming the class, never a silently structural answer.
"""

from __future__ import annotations

import pytest

import ingot

CITATION = """
class Citation {
  url string
  implements baml.ops.Equals {
    function eq(self, other: Self) -> bool { self.url.to_lower_case() == other.url.to_lower_case() }
  }
}
class Answer {
  cites Citation[]
}
class Plain {
  url string
}
"""


def load(body: str) -> ingot.Program:
    return ingot.load_source(CITATION + body)


@pytest.mark.parametrize("body", [
    "function F(a: Citation?, b: Citation) -> bool { a == b }",
    "function F(a: Citation[], b: Citation[]) -> bool { a == b }",
    "function F(a: map<string, Citation>, b: map<string, Citation>) -> bool { a != b }",
    "function F(a: Answer, b: Answer) -> bool { a == b }",
    "function F(a: Citation | string, b: Citation | string) -> bool { a == b }",
    "function F(a: Citation, b: Citation) -> null { assert.equal(a, b) }",
])
def test_eq_inside_a_value_is_an_unsupported_error_naming_the_class(body: str) -> None:
    with pytest.raises(ingot.CompileError) as info:
        load(body)
    first = info.value.diagnostics[0]
    assert first.code == "I0002"
    assert "`Citation` with its own `eq`" in first.message


def test_between_two_instances_eq_is_called_and_ne_is_its_negation() -> None:
    program = load("function F(a: string, b: string) -> bool[] {\n"
                   "  let x = Citation { url: a };\n  let y = Citation { url: b };\n"
                   "  [x == y, x != y]\n}")
    assert program.call("F", a="HTTP://A.IO", b="http://a.io") == [True, False]
    assert program.call("F", a="http://a.io", b="http://b.io") == [False, True]


def test_null_checks_and_narrowed_optionals_are_accepted() -> None:
    program = load("function F(a: Citation?, b: Citation) -> string {\n"
                   "  if (a == null) { return \"none\"; }\n  if (a == b) { \"same\" } else { \"other\" }\n}")
    assert program.call("F", a=None, b={"url": "x"}) == "none"
    assert program.call("F", a={"url": "X"}, b={"url": "x"}) == "same"


def test_containers_of_classes_without_their_own_eq_stay_structural() -> None:
    program = load("function F(a: Plain[], b: Plain[]) -> bool { a == b }")
    assert program.call("F", a=[{"url": "x"}], b=[{"url": "x"}]) is True
