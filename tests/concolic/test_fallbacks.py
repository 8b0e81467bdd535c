"""What exploration reaches where the solver has nothing to negate: the issue's small cases.

A value fixed by an operation without a model (`split`), a panic whose operands are concrete
(an index from a loop count), and an overflow that needs a number far from every constant.
Each is reached at the default budget; the witnesses beside them are checked on ingot.
"""

from __future__ import annotations

import pytest

import ingot
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.literals import Dictionary

SPLIT = """
function Stop(s: string) -> int {
  for (let w in s.split(",")) {
    if (w == "stop") {
      return 1;
    }
  }
  0
}
"""

LABELS = """
function Label(tries: int[]) -> string {
  let labels = ["one", "two", "three"];
  let n = 0;
  for (let t in tries) {
    n += 1;
    if (t > 0) {
      break;
    }
  }
  if (n == 0) {
    return "none";
  }
  labels[n - 1]
}
"""

SUM = """
function Total(xs: int[]) -> int {
  let t = 0;
  for (let x in xs) {
    t += x;
  }
  t
}
"""


@pytest.mark.parametrize(("source", "function", "witness", "kind"), [
    (SPLIT, "Stop", {"s": "a,stop"}, None),
    (LABELS, "Label", {"tries": [0, 0, 0, 1]}, "IndexOutOfBounds"),
    (SUM, "Total", {"xs": [4611686018427387903, 1]}, "IntegerOverflow"),
])
def test_reached_at_the_default_budget(source: str, function: str, witness: dict, kind: str | None) -> None:
    program = ingot.load(source)
    if kind is None:
        assert program.call(function, **witness) == 1
    else:
        with pytest.raises(ingot.BamlError) as e:
            program.call(function, **witness)
        assert e.value.kind == kind
    result = Explorer(program.view, function, Options(seed=0)).explore()
    assert result.covered == {(e.site.function, e.site.block, e.target) for e in result.edges}
    if kind is not None:
        assert kind in {f.kind for f in result.findings}


def test_the_dictionary_holds_the_programs_literals_and_their_neighbours() -> None:
    program = ingot.load(SPLIT.replace('"stop"', '"stop-42"') + """
function Count(n: int) -> int {
  if (n == 1000) { return 1; }
  0
}
""")
    words = Dictionary.of(program.view.bytecode, ["Stop", "Count"])
    assert "stop-42" in words.strings
    assert any(w != "stop-42" and "stop-42".startswith(w) for w in words.strings)  # a prefix
    assert any(w != "stop-42" and "stop-42".endswith(w) for w in words.strings)  # and a suffix
    assert "," in words.separators
    assert {999, 1000, 1001} <= set(words.ints) and "1001" in words.strings


def test_the_report_says_where_values_were_concretized_and_by_which_operation() -> None:
    from ingot.concolic.report import as_json

    program = ingot.load(SPLIT)
    report = as_json(program.view, Explorer(program.view, "Stop", Options(seed=0, max_runs=200)).explore())
    (first, *_) = report["concretized_at"]
    assert first["operation"] == "string.split" and first["line"] == 3 and first["count"] >= 1
    assert report["complete"] is False and report["limits"]["concretized"] >= 1
