"""Panic sites whose operands are concrete, found by aiming at the conditions before them.

Each program in `concrete_panics/` plants one panic whose operands no input reaches directly:
an index from a loop counter after a retry loop, a constant table indexed by a count, a running
total over an `int[]` input that overflows, a division by the count of matching items; each
behind three or more conditions. Witnesses prove every branch edge feasible and the bug real on
the real engine (baml_bridge, under `-m slow`) and on ingot; exploration at the default budget
finds the bug on seeds 0, 1 and 2, and its panic-site figures are true.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import ingot
from ingot.concolic.explore import Explorer, Options, reachable_edges
from ingot.concolic.literals import panic_sites
from ingot.concolic.report import as_json

HERE = Path(__file__).resolve().parent / "concrete_panics"
APPS = Path(__file__).resolve().parents[2] / "bench" / "explore" / "apps"
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


def checker() -> ModuleType:
    """The application benchmarks' witness checker (engine driver, tracker replay)."""
    if "apps_check_witnesses" not in sys.modules:
        spec = importlib.util.spec_from_file_location("apps_check_witnesses", APPS / "check_witnesses.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["apps_check_witnesses"] = module
        spec.loader.exec_module(module)
    return sys.modules["apps_check_witnesses"]


def expected(value: Any) -> tuple[str, Any]:
    return ("err", value["error"]) if isinstance(value, dict) else ("ok", value)


@pytest.mark.parametrize("name", NAMES)
def test_witnesses_take_every_edge_and_reach_the_bug_on_ingot(name: str) -> None:
    fn, bug, witnesses = PROGRAMS[name]
    program = ingot.load(HERE / f"{name}.baml")
    mod = checker()
    taken: set[tuple[str, int, int]] = set()
    for args, value in witnesses:
        w = {"args": args}
        outcome, line = mod.ingot_outcome(program, fn, w)
        assert outcome == expected(value), args
        if outcome[0] == "err":
            assert (outcome[1], line) == bug
        taken |= mod.replay_edges(program, fn, w)
    edges = {(e.site.function, e.site.block, e.target) for e in reachable_edges(program.view, fn)}
    assert edges <= taken


@pytest.mark.slow
def test_witnesses_give_the_same_outcomes_on_the_real_engine() -> None:
    pytest.importorskip("baml_bridge")
    mod = checker()
    engine = mod.Engine()
    try:
        for name in NAMES:
            fn, _, witnesses = PROGRAMS[name]
            source = (HERE / f"{name}.baml").read_text()
            for args, value in witnesses:
                assert engine.outcome(source, fn, {"args": args}) == expected(value), (name, args)
    finally:
        engine.close()


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", NAMES)
def test_exploration_finds_the_planted_panic(name: str, seed: int) -> None:
    fn, bug, _ = PROGRAMS[name]
    program = ingot.load(HERE / f"{name}.baml")
    ex = Explorer(program.view, fn, Options(seed=seed)).explore()
    found = {(f.kind, int(f.trace[-1].rsplit("line ", 1)[1].split(",")[0])) for f in ex.findings}
    assert bug in found
    assert len(ex.covered) == len(ex.edges)
    # the figures are true: every site aimed at was reached, every reached one is a panic site
    sites = panic_sites(program.view.bytecode, [fn])
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
