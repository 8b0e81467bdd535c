"""Input-to-state replacements: strings a run compared concretely feed the random rounds.

Where the search runs an operation without a model (the string models' budget spent, a
`lines()` concretized), a field cut from the input reaches `payload == "[DONE]"` as a
concrete string and the solver never sees the comparison. The tracker keeps such unequal
comparisons (both trackers alike), the explorer a table of the recent ones, and a string
mutation may replace, where the compared string occurs in an input, that string by the
other one (REDQUEEN's input-to-state correspondence, libFuzzer's table of recent compares).
"""

from __future__ import annotations

import random

import pytest

import ingot
from ingot.concolic.explore import RECENT_COMPARES, Explorer, Options
from ingot.concolic.literals import Dictionary, compared_in, replace_compared

STREAM = """
/// The text of a server-sent-events stream, up to its "[DONE]" marker: "data:" lines only,
/// their payloads trimmed; a stream without the marker was cut.
function StreamText(stream: string) -> string {
  let text = "";
  for (let line in stream.lines()) {
    if (!line.starts_with("data:")) {
      continue;
    }
    let payload = line.slice(5, line.length()).trim();
    if (payload == "[DONE]") {
      return text;
    }
    text += payload;
  }
  "cut: " + text
}
"""


def without_models(tracker: str) -> Explorer:
    """An explorer whose runs have the string models off from the start (no units to spend)."""
    program = ingot.load_source(STREAM)
    return Explorer(program.view, "StreamText", Options(seed=0, string_model_units=0, tracker=tracker))


@pytest.mark.parametrize("tracker", ["interp", "compiled"])
def test_a_run_keeps_the_strings_it_compared_concretely(tracker: str) -> None:
    run = without_models(tracker).run({"stream": "data: abc\ndata: [DONE]"})
    assert run.outcome.as_dict() == {"value": "abc"}
    # both ways round; the equal comparison ("[DONE]" with itself) is not kept
    assert list(run.trace.compared) == [("abc", "[DONE]"), ("[DONE]", "abc")]


def test_both_trackers_keep_the_same_comparisons() -> None:
    stream = "data: x\n: ping\ndata:  y \ndata: [DONE]\ndata: z"
    interp, compiled = (without_models(t).run({"stream": stream}) for t in ("interp", "compiled"))
    assert list(interp.trace.compared) == list(compiled.trace.compared)
    assert ("y", "[DONE]") in interp.trace.compared


def test_a_symbolic_comparison_is_left_to_the_solver() -> None:
    program = ingot.load_source(STREAM)
    run = Explorer(program.view, "StreamText", Options(seed=0)).run({"stream": "data: abc"})
    assert run.trace.path  # the models are on: the comparison is a path entry...
    assert not run.trace.compared  # ...and not a replacement to try


def test_the_compared_string_is_replaced_where_it_occurs_in_the_input() -> None:
    found = compared_in("event: delta\ndata: abc", [("abc", "[DONE]"), ("zzz", "never"), ("", "empty")])
    assert found == [(19, "abc", "[DONE]")]  # only what occurs, with where; an empty string is nowhere
    assert replace_compared(random.Random(0), "event: delta\ndata: abc", found) == "event: delta\ndata: [DONE]"


def test_a_string_the_program_lower_cased_is_found_in_its_input() -> None:
    found = compared_in("Verdict: FAIL", [("fail", "pass")])
    assert found == [(9, "fail", "pass")]
    assert replace_compared(random.Random(0), "Verdict: FAIL", found) == "Verdict: pass"


def test_every_occurrence_may_be_the_one_replaced() -> None:
    s = "id: 7\nid: 7"
    found = compared_in(s, [("7", "8")])
    outcomes = {replace_compared(random.Random(seed), s, found) for seed in range(40)}
    assert outcomes == {"id: 8\nid: 7", "id: 7\nid: 8"}


def test_a_mutation_uses_the_comparisons_now_and_then() -> None:
    words = Dictionary(strings=["x"], separators=[" "])
    rng = random.Random(0)
    outcomes = [words.mutate_string(rng, "data: abc", 64, compares=[("abc", "[DONE]")]) for _ in range(400)]
    share = outcomes.count("data: [DONE]") / len(outcomes)
    assert 0.15 < share < 0.4  # a quarter of the time, the other mutations the rest
    without = [words.mutate_string(random.Random(0), "data: abc", 64) for _ in range(400)]
    assert "data: [DONE]" not in without


def test_the_table_keeps_the_most_recent_comparisons() -> None:
    ex = without_models("compiled")
    ex.note_compares(dict.fromkeys((f"s{i}", "t") for i in range(RECENT_COMPARES)))
    ex.note_compares(dict.fromkeys([("s0", "t"), ("new", "t")]))  # s0 seen again: newest now
    table = list(ex._compares)
    assert len(table) == RECENT_COMPARES
    assert table[-2:] == [("s0", "t"), ("new", "t")]
    assert ("s1", "t") not in table  # the oldest went


def test_the_exploration_feeds_the_table_from_its_runs() -> None:
    ex = without_models("compiled")
    ex.record(ex.run({"stream": "data: abc"}), 0.0)
    assert ("abc", "[DONE]") in ex._compares


def test_a_literal_of_the_program_is_never_the_string_replaced() -> None:
    """`payload == "[DONE]"` wants the payload to become "[DONE]"; a "[DONE]" already in the
    input becoming the payload would undo what the program parses."""
    ex = without_models("compiled")
    ex.note_compares(dict.fromkeys([("[DONE]", "abc"), ("abc", "[DONE]"), ("data:", "x")]))
    assert list(ex._compares) == [("abc", "[DONE]")]
