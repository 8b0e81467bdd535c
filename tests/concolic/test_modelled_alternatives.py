"""A value fixed because its model did not cover this run (a capital letter before
`to_lower_case`, whitespace around a string once the string models are off, a float's
decimal point) is flipped first to a value the model does cover: the conditions after it are
then symbolic again, so an answer compared with "yes" after `to_lower_case` is solvable from a
run whose answer was "No"."""

from __future__ import annotations

import ingot
from ingot.concolic.explore import Explorer, Job, Options
from ingot.symbolic.shadow import EntryKind

VOTE = """
function Vote(reply: string) -> string {
  let answer = reply.to_lower_case();
  if (answer == "yes") {
    return "counted";
  }
  "ignored"
}
"""


def _explorer(tmp_path, source: str, fn: str) -> Explorer:
    path = tmp_path / "vote.baml"
    path.write_text(source)
    return Explorer(ingot.load(path).view, fn, Options(seed=0))


def _queued(explorer: Explorer) -> list[Job]:
    return [job for _, _, job in sorted(explorer._queue)]


def test_a_fixed_string_is_flipped_first_to_one_its_model_follows(tmp_path) -> None:
    explorer = _explorer(tmp_path, VOTE, "Vote")
    run = explorer.run({"reply": "No"})
    fixed = [e for e in run.trace.path if e.kind is EntryKind.CONCRETIZE]
    assert fixed, "a capital letter fixes the reply at `to_lower_case`"
    assert [a.label for a in fixed[0].alternatives] == ["modelled", "concretize"]
    # Nothing after the fixed reply can be flipped on this run: "yes" is out of reach from it.
    assert all(e.kind is EntryKind.CONCRETIZE for e in run.trace.path if e.alternatives)

    explorer.expand(Job(run.assignment, 0, None, "seed"), run)
    modelled = [job for job in _queued(explorer) if job.reason == "concretize:modelled"]
    assert modelled, "the flip to a reply without capitals is queued"
    child_input = modelled[0].assignment["reply"]
    assert child_input == child_input.lower()

    child = explorer.run(modelled[0].assignment)
    explorer.expand(modelled[0], child)
    answers = [explorer.run(job.assignment) for job in _queued(explorer) if job.reason.startswith("branch")]
    assert "counted" in [r.outcome.value for r in answers]


PRICE = """
function Price(text: string) -> string {
  let value = float.parse(text) catch (e) {
    _ => -1.0
  };
  if (value > 100.0) {
    return "expensive";
  }
  "cheap"
}
"""


def test_a_decimal_fixed_at_float_parse_is_flipped_first_to_a_whole_number(tmp_path) -> None:
    explorer = _explorer(tmp_path, PRICE, "Price")
    run = explorer.run({"text": "2.5"})
    fixed = [e for e in run.trace.path if e.kind is EntryKind.CONCRETIZE]
    assert [a.label for a in fixed[0].alternatives] == ["modelled", "concretize"]

    explorer.expand(Job(run.assignment, 0, None, "seed"), run)
    modelled = [job for job in _queued(explorer) if job.reason == "concretize:modelled"]
    child = explorer.run(modelled[0].assignment)
    int(modelled[0].assignment["text"])  # a whole number: float.parse's model follows it
    explorer.expand(modelled[0], child)
    answers = [explorer.run(job.assignment) for job in _queued(explorer) if job.reason.startswith("branch")]
    assert "expensive" in [r.outcome.value for r in [child, *answers]]
