"""Random inputs interleaved with the solver's children (`Explorer.fuzz_turn`), and strings
grown to the lengths a program compares with (`Dictionary.grow`).

A count a program keeps in a loop over a string's characters (digits seen, symbols of a
key) is fixed by each run's path, so the solver steps it up by one iteration per generation,
each a longer query over the characters' models; the programs in `counted_lengths/` compare
such a count with a literal (12, 15) and plant a panic behind two more conditions. While the
solver's children are queued, random inputs run in a share of its work (counted in Z3 units,
the same on every machine), and a mutation may grow a string to one of the program's numbers
by repeating one of its characters. Witnesses prove every branch edge feasible and the bug
real on the real engine (baml_bridge, under `-m slow`) and on ingot.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from witness_programs import (  # tests/ is no package
    SEEDS,
    bugs_found,
    explored,
    witness_tests,
)

import ingot
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.literals import Dictionary
from ingot.concolic.report import as_json

HERE = Path(__file__).resolve().parent / "counted_lengths"

# name -> (entry function, planted bug (kind, line), witnesses: (args, value or {"error": kind}))
PROGRAMS: dict[str, tuple[str, tuple[str, int], list[tuple[dict[str, Any], Any]]]] = {
    "licence_key": ("SeatsPerGroup", ("DivisionByZero", 22), [
        ({"key": ""}, 0),
        ({"key": "a b"}, -1),
        ({"key": "a-b"}, 0),
        ({"key": "abcdefghijklmnop"}, 16),
        ({"key": "abcde-fghij-klmno"}, 5),
        ({"key": "abcdefghij-klmno"}, 60),
        ({"key": "abcdefghijklmno"}, {"error": "DivisionByZero"}),
    ]),
    "pin_block": ("PinBlock", ("IndexOutOfBounds", 25), [
        ({"block": ""}, "too short"),
        ({"block": "1 2"}, "too short"),
        ({"block": "12a"}, "not a digit"),
        ({"block": "123456789012"}, "six"),
        ({"block": "1234567890123"}, "two"),
        ({"block": "700000000000"}, {"error": "IndexOutOfBounds"}),
    ]),
}
NAMES = sorted(PROGRAMS)


test_witnesses_take_every_edge_and_reach_the_bug_on_ingot, test_witnesses_give_the_same_outcomes_on_the_real_engine = \
    witness_tests(HERE, PROGRAMS)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", NAMES)
def test_exploration_covers_every_edge_and_finds_the_planted_panic(name: str, seed: int) -> None:
    ex, bug = explored(HERE, PROGRAMS, name, seed=seed)
    assert bug in bugs_found(ex)
    assert len(ex.covered) == len(ex.edges)
    assert ex.fuzz_runs > 0  # the string queries earned random inputs before the queue emptied


def test_a_string_grows_to_a_length_the_program_compares_with() -> None:
    words = Dictionary(ints=[-1, 2, 12, 40])
    assert words.longer_lengths(3, 32) == [12]  # longer than the string, within the limit
    assert words.longer_lengths(12, 32) == []
    rng = random.Random(0)
    for _ in range(20):
        out = words.grow(rng, "4-2", words.longer_lengths(3, 32))
        assert len(out) == 12
        assert is_grown("4-2", out)


def test_the_mutations_grow_strings_when_the_program_has_such_numbers() -> None:
    words = Dictionary.of(ingot.load(HERE / "pin_block.baml").view.bytecode, ["PinBlock"])
    rng = random.Random(0)
    outs = {words.mutate_string(rng, "12 3", 32) for _ in range(400)}
    grown = {len(out) for out in outs if is_grown("12 3", out)}
    assert {11, 12, 13} <= grown  # the program's 12, each ±1, by one character repeated


def is_grown(s: str, out: str) -> bool:
    """Is `out` the string `s` with one of its characters repeated where it stands?"""
    more = len(out) - len(s)
    return more > 0 and any(out == s[:i] + s[i] * more + s[i:] for i in range(len(s)))


def test_a_search_its_solver_finishes_cheaply_runs_no_fuzz_turns_and_says_so() -> None:
    program = ingot.load_source('function F(s: string, n: int) -> int {\n  if (s.starts_with("ab") && n > 10) {\n'
                                '    return 1;\n  }\n  if (s == "stop") {\n    return 2;\n  }\n  0\n}\n')
    ex = Explorer(program.view, "F", Options(seed=0)).explore()
    assert ex.solver_stats["string_units"] > 0  # its string queries are few and cheap: no turn earned
    assert len(ex.covered) == len(ex.edges)
    assert ex.fuzz_runs == 0
    assert as_json(program.view, ex)["fuzz_runs"] == 0


def test_the_same_seed_gives_the_same_fuzz_turns() -> None:
    program = ingot.load(HERE / "pin_block.baml")
    first, second = (Explorer(program.view, "PinBlock", Options(seed=1)).explore() for _ in range(2))
    assert first.fuzz_runs == second.fuzz_runs > 0
    assert [t.args for t in first.tests] == [t.args for t in second.tests]


CONFIG = """
function Workers(text: string) -> int {
  let cfg: map<string, string> = {};
  for (let line in text.lines()) {
    let kv = line.trim().split("=");
    if (kv.length() == 2) {
      cfg[kv[0].trim()] = kv[1].trim();
    }
  }
  if (cfg.has("mode") && cfg["mode"] == "batch") {
    return int.parse(cfg.get("workers") ?? "1") catch (e) {
      _ => 1
    };
  }
  0
}
"""


class ExpansionLog(Explorer):
    """Notes, for every run, whether it ran in the middle of another run's expansion."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.expanding = False
        self.runs_log: list[bool] = []  # for each run: was it inside an expansion?
        self.expanded: list[str] = []  # the reasons of the jobs expanded, in order

    def expand(self, job: Any, *args: Any, **kwargs: Any) -> None:
        self.expanded.append(job.reason)
        self.expanding = True
        try:
            super().expand(job, *args, **kwargs)
        finally:
            self.expanding = False

    def run(self, assignment: dict[str, Any]) -> Any:
        self.runs_log.append(self.expanding)
        return super().run(assignment)


def test_fuzz_turns_are_taken_between_the_queries_of_one_expansion() -> None:
    """A config parser's expansion asks its string queries over every line one after the other
    (some answered unknown at their limit): the random inputs their units earn run in between,
    not after the whole expansion, and those that covered an edge first are run again to be
    expanded. (Before, on seeds 0-8, this search took 2.1-3.8 s to full coverage; now 0.4-5.2 s,
    median 0.7 s.)"""
    program = ingot.load_source(CONFIG)
    ex = ExpansionLog(program.view, "Workers", Options(seed=2, max_runs=600))
    res = ex.explore()
    assert len(res.covered) == len(res.edges)
    inside = sum(ex.runs_log)
    assert res.fuzz_runs > 100 and inside > res.fuzz_runs // 2  # most turns came between two queries
    assert any(ex.runs_log[t.run - 1] for t in res.tests)  # such inputs covered edges first...
    assert "fuzz" in ex.expanded  # ...and were run again to be expanded
