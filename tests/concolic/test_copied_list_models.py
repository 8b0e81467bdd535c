"""Lists copied, joined and summed by built-ins: `slice`, `reverse`, `concat` and `at` keep each
element's shadow, `join` of strings is their concatenation, `int[].sum()` the running totals with
their overflow checks. A built-in with no model that reads a list's symbolic elements fixes them
on the path (a CONCRETIZE entry each), so no query treats them as constants.

`copied_lists/few_shot.baml` (a prompt's few-shot window: `split`, `slice`, `reverse`, `at`,
`join`) and `copied_lists/grader.baml` (rubric scores: `slice`, `sum`) plant one bug each;
witnesses prove every edge feasible and the bug real on ingot and (under `-m slow`) on the real
engine; exploration at the default budget covers every edge and finds the bug."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from witness_programs import Programs, exploration_test, witness_tests  # tests/ is no package

import ingot
from ingot.concolic.explore import Explorer, Options
from ingot.symbolic.shadow import EntryKind

HERE = Path(__file__).resolve().parent / "copied_lists"

PROGRAMS: Programs = {
    "few_shot": ("FewShot", ("DivisionByZero", 27), [
        ({"transcript": "hello", "keep": 1}, "no system line"),
        ({"transcript": "system: be brief", "keep": 2}, "system: be brief"),
        ({"transcript": "system: s\nuser: a", "keep": 0}, "system: s"),
        ({"transcript": "system: s\nuser: a\nassistant: done", "keep": 1}, "finished"),
        ({"transcript": "system: s\nuser: hi", "keep": 3}, "system: s\ngreeting"),
        ({"transcript": "system: s\nuser: a\nassistant: b\nuser: c", "keep": 2},
         "system: s\nassistant: b\nuser: c\n(20 characters per dropped turn)"),
        ({"transcript": "system: s\nuser: a\nassistant: b\nuser: c", "keep": 1}, "system: s\nuser: c"),
        ({"transcript": "system: s\nassistant: b\nuser: c", "keep": 5}, {"error": "DivisionByZero"}),
    ]),
    "grader": ("Grade", ("IndexOutOfBounds", 18), [
        ({"scores": [], "required": 1}, "no scores"),
        ({"scores": [3], "required": 0}, "no scores"),
        ({"scores": [-5, 2], "required": 2}, "invalid scores"),
        ({"scores": [5, 4], "required": 2}, "fail (9)"),
        ({"scores": [7, 6, 11], "required": 2}, "pass with bonus 11"),
        ({"scores": [7, 6, 1], "required": 2}, "pass (13)"),
        ({"scores": [7, 6], "required": 3}, {"error": "IndexOutOfBounds"}),
    ]),
}

test_witnesses_take_every_edge_and_reach_the_bug_on_ingot, test_witnesses_give_the_same_outcomes_on_the_real_engine = \
    witness_tests(HERE, PROGRAMS)

# seed 0 by default, seeds 1 and 2 under `-m slow`
test_exploration_covers_every_edge_and_finds_the_bug = exploration_test(HERE, PROGRAMS)


def run_path(name: str, fn: str, args: dict[str, Any]) -> list[Any]:
    program = ingot.load(HERE / f"{name}.baml")
    return Explorer(program.view, fn, Options(seed=0, max_runs=1)).run(args).trace.path


def test_a_joined_window_stays_symbolic() -> None:
    """`block == "user: hi"` is a branch on the transcript, not a constant fixed by `join`."""
    path = run_path("few_shot", "FewShot", {"transcript": "system: s\nuser: a", "keep": 1})
    greeting = [e for e in path if e.kind is EntryKind.BRANCH and "'user: hi'" in str(e.observed)]
    assert greeting  # a branch entry: its condition has variables


def test_a_sum_of_sliced_scores_is_checked_for_overflow() -> None:
    path = run_path("grader", "Grade", {"scores.$len": 3, "scores[0]": 7, "scores[1]": 6, "scores[2]": 1,
                                         "required": 3})
    checks = [e for e in path if e.kind is EntryKind.CHECK and e.check == "IntegerOverflow"]
    # every running total past the first (a single score cannot overflow)
    assert [str(e.observed).count("scores[") for e in checks] == [4, 6]


UNMODELLED = """
function Earliest(a: string, b: string) -> int {
  let xs = [a, "m"];
  xs.sort();
  if (b == xs[0]) {
    return 1;
  }
  0
}
"""


@pytest.mark.parametrize("tracker", ["compiled", "interp"])
def test_a_builtin_without_a_model_fixes_the_elements_it_reads(tracker: str) -> None:
    """`sort` has no model: the order it leaves depends on `a`, so `a` is fixed before it runs
    (and `xs[0]` is then a constant the path explains)."""
    program = ingot.load(UNMODELLED)
    run = Explorer(program.view, "Earliest", Options(seed=0, max_runs=1, tracker=tracker)).run({"a": "go", "b": ""})
    fixed = [e for e in run.trace.path if e.kind is EntryKind.CONCRETIZE]
    assert any(e.observed.vars == frozenset({"a"}) for e in fixed), fixed


RENDERED = """
class Turn {
  role string
  text string
}

function Render(t: Turn, b: string) -> int {
  let xs = [t];
  let s = xs.to_string();
  let line = "${xs}";
  if (b == s || b == line) {
    return 1;
  }
  0
}
"""


@pytest.mark.parametrize("tracker", ["compiled", "interp"])
def test_rendering_a_list_of_instances_fixes_their_fields(tracker: str) -> None:
    """Fields' shadows live under the instance, not the list: `to_string` and a template that
    render the list read them all the same."""
    program = ingot.load(RENDERED)
    run = Explorer(program.view, "Render", Options(seed=0, max_runs=1, tracker=tracker)).run(
        {"t.role": "user", "t.text": "hi", "b": ""})
    fixed = {v for e in run.trace.path if e.kind is EntryKind.CONCRETIZE for v in e.observed.vars}
    assert {"t.role", "t.text"} <= fixed, fixed


MOVED = """
function Next(tasks: string[]) -> string {
  let queue = tasks;
  queue.unshift("start");
  let first = queue.shift();
  let last = queue.pop();
  queue.insert("middle", 0);
  let head = queue.remove_at(1);
  if (first == "start" && last == "ship" && head == "review") {
    return "ready";
  }
  "waiting"
}
"""


def test_moved_elements_keep_their_shadows() -> None:
    """`unshift`, `shift`, `pop`, `insert` and `remove_at` move elements: the ones taken out
    are still the inputs they were, the branch on them is a branch on the inputs."""
    program = ingot.load(MOVED)
    run = Explorer(program.view, "Next", Options(seed=0, max_runs=1)).run(
        {"tasks.$len": 3, "tasks[0]": "review", "tasks[1]": "test", "tasks[2]": "ship"})
    assert run.outcome.value == "ready"
    conditions = " ".join(str(e.observed) for e in run.trace.path if e.kind is EntryKind.BRANCH)
    assert "tasks[2]" in conditions and "tasks[0]" in conditions
    ex = Explorer(program.view, "Next", Options(seed=0)).explore()
    # every edge but `first == "start"` false: the element shifted out is the one put in
    (uncovered,) = [e for e in ex.edges if (e.site.function, e.site.block, e.target) not in ex.covered]
    assert uncovered.label == "false"
    assert not ex.infeasible  # it is never asked: `first` is the constant put in


REJOINED = """
function Slashed(date: string) -> string {
  let parts = date.split("-");
  if (parts.length() != 3) {
    return "not a date";
  }
  parts.join("/")
}
"""


def test_a_length_the_path_already_fixed_is_not_fixed_again() -> None:
    """`join` fixes the number of parts, which `parts.length() != 3` taken false already did:
    a second entry would only give the search a flip that cannot succeed."""
    program = ingot.load(REJOINED)
    run = Explorer(program.view, "Slashed", Options(seed=0, max_runs=1)).run({"date": "2024-01-02"})
    assert run.outcome.value == "2024/01/02"
    fixed = [str(e.observed) for e in run.trace.path if e.kind is EntryKind.CONCRETIZE]
    assert not [f for f in fixed if "$len" in f and "<=" not in f], fixed  # (the bound on parts stays)
