"""The random rounds' inputs cost what their runs read, not every variable any run created.

A retry loop run with a large bound leaves thousands of reply variables in the input space;
the fresh inputs after it draw values only for the variables their own runs read (the
parameters up front, every other value as its run reads it), mutations pick among names kept
sorted rather than sorting them all again, a run the step budget stopped is no mutation base,
and a fresh input queued when the search state is saved is still one when the search resumes.
"""

from __future__ import annotations

import json
from pathlib import Path

import ingot
from ingot.concolic.checkpoint import StateDir
from ingot.concolic.explore import Explorer, Job, Options
from ingot.concolic.fuzzing import FreshAssignment

RETRY = Path(__file__).resolve().parents[2] / "bench" / "explore" / "apps" / "retry_extract.baml"
FUNCTION = json.loads(RETRY.with_suffix(".json").read_text())["function"]
LOOP_BOUND = 2000  # replies asked for by the run that fills the space (three variables each)
MANY_CALLS = 10 * LOOP_BOUND  # past the default cap on LLM calls per run, which would cut that run


def explorer_after_a_long_run(options: Options | None = None, state: StateDir | None = None) -> Explorer:
    program = ingot.load(RETRY)
    explorer = Explorer(program.view, FUNCTION, options or Options(seed=0, max_llm_calls=MANY_CALLS), state=state)
    explorer.record(explorer.run({}), 0.0)  # the search's first input
    long = explorer.run({"attempts": LOOP_BOUND})  # every reply parses to total 0: the loop runs to its bound
    explorer.record(long, 0.0)
    assert long.assignment in explorer._corpus and len(explorer.space.sorts) > 2 * LOOP_BOUND
    return explorer


def test_a_fresh_input_draws_values_only_for_the_variables_its_run_reads() -> None:
    explorer = explorer_after_a_long_run()
    for _ in range(20):
        fresh = explorer.fresh_assignment()
        assert set(fresh) == {"doc", "attempts"}  # the parameters, drawn up front; the rest as they are read
        run = explorer.run(fresh)
        assert dict(fresh) == run.assignment  # a drawn value for every variable read, and no other
        assert len(fresh) < LOOP_BOUND


def test_fresh_inputs_are_drawn_from_the_dictionary_and_the_variables_bounds() -> None:
    explorer = explorer_after_a_long_run()
    drawn = [explorer.run(explorer.fresh_assignment()).assignment for _ in range(50)]
    assert len({a["attempts"] for a in drawn}) > 5  # not the default 0
    replies = [v for a in drawn for k, v in a.items() if k.endswith(".currency")]
    assert any("EUR" in v or "USD" in v for v in replies)  # the program's own constants


def test_the_space_keeps_its_names_sorted_as_it_grows() -> None:
    explorer = explorer_after_a_long_run()
    space = explorer.space
    assert space.sorted_names() == sorted(space.sorts)
    explorer.run({"attempts": LOOP_BOUND + 10, "doc": "d"})
    assert space.sorted_names() == sorted(space.sorts)
    base = explorer._corpus[0]
    for _ in range(20):
        assert set(explorer.mutated(base)) <= set(space.sorts)


def test_a_run_the_step_budget_stopped_is_no_mutation_base() -> None:
    program = ingot.load(RETRY)
    explorer = Explorer(program.view, FUNCTION, Options(seed=0, max_steps=20_000, max_llm_calls=MANY_CALLS))
    hung = explorer.run({"attempts": 10**9})
    assert hung.outcome.error is not None and hung.outcome.error.kind == "InstructionLimit"
    explorer.record(hung, 0.0)
    assert explorer.result.tests and not explorer._corpus  # its test is kept, its input is not mutated
    finished = explorer.run({"attempts": 1})
    explorer.record(finished, 0.0)
    assert explorer._corpus == [finished.assignment]


def test_a_queued_fresh_input_resumes_as_a_fresh_input(tmp_path: Path) -> None:
    sources = {str(RETRY): RETRY.read_text()}
    options = Options(seed=0, max_llm_calls=MANY_CALLS)
    state = StateDir(tmp_path, sources)
    state.create()
    explorer = explorer_after_a_long_run(options, state)
    explorer.push(Job(explorer.fresh_assignment(), 0, None, "random"), 0)
    state.save(explorer)
    resumed = Explorer.resume(explorer.view, FUNCTION, options, StateDir(tmp_path, sources))
    job = resumed._queue[0][2]
    assert isinstance(job.assignment, FreshAssignment) and set(job.assignment) == {"doc", "attempts"}
    # Drawn from the resumed search's generator as the uninterrupted search draws them.
    assert resumed.run(job.assignment).assignment == explorer.run(explorer._queue[0][2].assignment).assignment
