"""Panic sites whose operands are concrete, found by aiming at the conditions before them.

Each program in `concrete_panics/` plants one panic whose operands no input reaches directly:
an index from a loop counter after a retry loop, a constant table indexed by a count, a running
total over an `int[]` input that overflows, a division by the count of matching items; each
behind three or more conditions. Witnesses prove every branch edge feasible and the bug real on
the real engine (baml_bridge, under `-m slow`) and on ingot; exploration at the default budget
finds the bug on seed 0 (seeds 1 and 2 under `-m slow`), and its panic-site figures are true.
"""

from __future__ import annotations

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
from ingot.concolic.literals import panic_sites
from ingot.concolic.report import as_json

HERE = Path(__file__).resolve().parent / "concrete_panics"
INT_MAX = 2**62 - 1  # BAML ints are 63-bit: this plus 1 overflows

# name -> (entry function, planted bug (kind, line), witnesses: (args, value or {"error": kind}))
PROGRAMS: dict[str, tuple[str, tuple[str, int], list[tuple[dict[str, Any], Any]]]] = {
    "attempt": ("AttemptLabel", ("IndexOutOfBounds", 20), [
        ({"replies": [], "strict": False}, "none"),
        ({"replies": ["x"], "strict": False}, "none"),
        ({"replies": ["ok"], "strict": False}, "first"),
        ({"replies": ["x", "ok"], "strict": True}, "second"),
        ({"replies": ["fail"], "strict": True}, "gave up"),
        ({"replies": ["a", "b", "c", "ok"], "strict": False}, {"error": "IndexOutOfBounds"}),
    ]),
    "severity": ("Severity", ("IndexOutOfBounds", 14), [
        ({"levels": [], "threshold": -1}, "invalid"),
        ({"levels": [], "threshold": 0}, "none"),
        ({"levels": [5, 0], "threshold": 1}, "low"),
        ({"levels": [2, 2, 2, 2], "threshold": 1}, {"error": "IndexOutOfBounds"}),
    ]),
    "total": ("CappedTotal", ("IntegerOverflow", 9), [
        ({"amounts": [-1, 3], "cap": 0}, 3),
        ({"amounts": [5], "cap": 2}, 2),
        ({"amounts": [1], "cap": 5}, 1),
        ({"amounts": [INT_MAX, 1], "cap": 0}, {"error": "IntegerOverflow"}),
    ]),
    "average": ("AverageOver", ("DivisionByZero", 13), [
        ({"scores": [5, 1], "min": 3, "mode": "avg"}, 5),
        ({"scores": [5], "min": 3, "mode": "avg"}, 5),
        ({"scores": [], "min": 0, "mode": "sum"}, 0),
        ({"scores": [4, 6], "min": 3, "mode": "x"}, 10),
        ({"scores": [1, 2], "min": 3, "mode": "avg"}, {"error": "DivisionByZero"}),
    ]),
}
NAMES = sorted(PROGRAMS)


test_witnesses_take_every_edge_and_reach_the_bug_on_ingot, test_witnesses_give_the_same_outcomes_on_the_real_engine = \
    witness_tests(HERE, PROGRAMS)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", NAMES)
def test_exploration_finds_the_planted_panic(name: str, seed: int) -> None:
    ex, bug = explored(HERE, PROGRAMS, name, seed=seed)
    assert bug in bugs_found(ex)
    assert len(ex.covered) == len(ex.edges)
    # the figures are true: every site aimed at was reached, every reached one is a panic site
    sites = panic_sites(ingot.load(HERE / f"{name}.baml").view.bytecode, [PROGRAMS[name][0]])
    assert ex.panic_sites == len(sites)
    assert 1 <= ex.panic_sites_aimed <= ex.panic_sites_reached <= ex.panic_sites
    assert ex.panic_runs <= Options().panic_runs


def test_the_planted_site_is_aimed_through_the_path() -> None:
    """`names[count]` never has a symbolic operand: it is aimed at only through the branches
    that counted, and the search says so (children aimed, the site among the aimed)."""
    program = ingot.load(HERE / "severity.baml")
    explorer = Explorer(program.view, "Severity", Options(seed=0))
    ex = explorer.explore()
    assert ex.panic_aims > 0
    aimed = explorer.aims.aimed()
    bex = program.view.bytecode.by_name["Severity"]
    assert any(bex.line_at(pc) == 14 for _, pc in aimed)


def test_same_seed_same_report() -> None:
    program = ingot.load(HERE / "average.baml")
    reports = [as_json(program.view, Explorer(program.view, "AverageOver", Options(seed=1)).explore())
               for _ in range(2)]
    assert reports[0] == reports[1]


def test_aimed_mutations_give_a_held_key_a_value_that_may_panic() -> None:
    """A key the program looks up gets 0, -1 or one of its own counts after the program's
    separators ("per=0"); a function with no one-character separator has no such settings."""
    import random

    from ingot.concolic.literals import Dictionary

    source = 'function F(q: string) -> int {\n  let p = q.split("&");\n  if (q.includes("per")) {\n    return 10 / p.length();\n  }\n  0\n}\n'
    program = ingot.load_source(source)
    words = Dictionary.of(program.view.bytecode, ["F"])
    assert "per&0" in words.settings["per"]
    rng = random.Random(0)
    outs = {words.mutate_string(rng, "per&x", 32, None, 1.0) for _ in range(200)}
    assert "per&0&x" in outs
    bare = ingot.load_source('function G(q: string) -> bool {\n  q == "per"\n}\n')
    empty = Dictionary.of(bare.view.bytecode, ["G"])
    assert all(empty.settings.values())
    assert {empty.mutate_string(rng, "per", 32, None, 1.0) for _ in range(50)}  # no crash
