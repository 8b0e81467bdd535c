"""A catch's rethrow of a panic its code cannot raise is no branch edge; the string models' budget
is renewed for inputs found without them; aimed mutations drop a separator.

`catch_edges/quote.baml` retries an LLM call and parses its reply, each in a catch-all whose
rethrow of a panic no input can reach (an LLM call and `int.parse` do not panic): with those
edges counted, its search could never reach full coverage and ran to the timeout. Witnesses
prove every edge feasible and the bug real on the real engine (baml_bridge, under `-m slow`)
and on ingot; exploration at the default budget covers every edge, finds the bug and stops at
full coverage on seed 0 (seeds 1 and 2 under `-m slow`).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from witness_programs import SEEDS, bugs_found, checker, expected  # tests/ is no package

import ingot
from ingot.concolic import explore
from ingot.concolic.edges import edge_label, reachable_edges
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.literals import Dictionary

HERE = Path(__file__).resolve().parent / "catch_edges"
APPS = Path(__file__).resolve().parents[2] / "bench" / "explore" / "apps"
BUG = ("DivisionByZero", 34)




def reply(amount: str) -> list[str]:
    return ["ReadQuote", json.dumps({"amount": amount})]


# (args, the model's replies in call order (a reply that does not parse is followed by the repair
# turn's), value or {"error": kind})
WITNESSES: list[tuple[dict[str, Any], list[list[str]], Any]] = [
    ({"doc": "d", "tries": 0}, [], 0),
    ({"doc": "d", "tries": 1}, [["ReadQuote", "nothing"], ["ReadQuote", "still nothing"]], 0),
    ({"doc": "d", "tries": 1}, [reply("abc")], 0),
    ({"doc": "d", "tries": 1}, [reply("7")], 7),
    ({"doc": "d", "tries": 1}, [reply("100")], 100),
    ({"doc": "d", "tries": 3}, [reply("0"), reply("100")], 100),
    ({"doc": "d", "tries": 2}, [reply("-3"), reply("100")], {"error": "DivisionByZero"}),
]


def witness(args: dict[str, Any], llm: list[list[str]]) -> dict[str, Any]:
    return {"args": args, "llm": llm}


def test_witnesses_take_every_edge_and_reach_the_bug_on_ingot() -> None:
    program = ingot.load(HERE / "quote.baml")
    mod = checker()
    taken: set[tuple[str, int, int]] = set()
    for args, llm, value in WITNESSES:
        w = witness(args, llm)
        outcome, line = mod.ingot_outcome(program, "QuoteCents", w)
        assert outcome == expected(value), args
        if outcome[0] == "err":
            assert (outcome[1], line) == BUG
        taken |= mod.replay_edges(program, "QuoteCents", w)
    edges = {(e.site.function, e.site.block, e.target) for e in reachable_edges(program.view, "QuoteCents")}
    assert edges <= taken


@pytest.mark.slow
def test_witnesses_give_the_same_outcomes_on_the_real_engine() -> None:
    pytest.importorskip("baml_bridge")
    mod = checker()
    engine = mod.Engine()
    try:
        source = (HERE / "quote.baml").read_text()
        for args, llm, value in WITNESSES:
            assert engine.outcome(source, "QuoteCents", witness(args, llm)) == expected(value), args
    finally:
        engine.close()


@pytest.mark.parametrize("seed", SEEDS)
def test_exploration_covers_every_edge_finds_the_bug_and_stops(seed: int) -> None:
    program = ingot.load(HERE / "quote.baml")
    ex = Explorer(program.view, "QuoteCents", Options(seed=seed)).explore()
    assert len(ex.covered) == len(ex.edges)
    assert ex.stopped_by == "full-coverage"
    found = bugs_found(ex)
    assert BUG in found


RETHROWS = """
client Fast = openai.ChatClient.new(model = "gpt-4o-mini", api_key = "k", base_url = "http://127.0.0.1:9")

class Reply {
  n int
}

function Ask(q: string) -> Reply {
  client: Fast
  prompt: `${q} ${ctx.output_format()}`
}

function Wrapped(q: string) -> Reply {
  Ask(q)
}

function Parsed(s: string) -> int {
  int.parse(s) catch (e) {
    _ => 0
  }
}

function Asked(q: string) -> int {
  let r = Ask(q) catch (e) {
    _ => null
  };
  r?.n ?? 0
}

function Indexed(xs: string[]) -> int {
  int.parse(xs[0]) catch (e) {
    _ => 0
  }
}

function ThroughAFunction(q: string) -> int {
  let r = Wrapped(q) catch (e) {
    _ => null
  };
  r?.n ?? 0
}
"""


def rethrow_edges(program: ingot.Program, fn: str) -> list[str]:
    """The edges out of a catch's panic test (`is_panic(e)`), as labels."""
    out = []
    for e in program.view.function(fn).branch_edges():
        if "is_panic" in " ".join(s.text for s in program.view.function(fn).blocks[e.site.block].statements):
            out.append(edge_label(program.view, (e.site.function, e.site.block, e.target)))
    return out


def test_a_catch_whose_code_cannot_panic_has_no_rethrow_edge() -> None:
    program = ingot.load_source(RETHROWS)
    # int.parse throws ParseError and an LLM call fails by a thrown error: only the catch's own arm
    assert len(rethrow_edges(program, "Parsed")) == 1
    assert len(rethrow_edges(program, "Asked")) == 1
    # an index panics on a short list, and a BAML function may panic: both edges stay
    assert len(rethrow_edges(program, "Indexed")) == 2
    assert len(rethrow_edges(program, "ThroughAFunction")) == 2


def test_a_spent_model_budget_is_renewed_for_the_inputs_found_without_the_models(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`word_count` on seed 5 with fuzz turns at a third of today's share (100 runs a million
    string units, from the first million) and tranches of half today's size: the budget is spent
    before a message reaches the planted bug, the random rounds find messages with a word three
    times, and the search grants the models another tranche to expand them, still covering every
    edge and finding the bug. (At the default share and size the fuzz turns get there while the
    first tranche lasts.)"""
    monkeypatch.setattr(explore, "FUZZ_RUNS_PER_MEGAUNIT", 100)
    monkeypatch.setattr(explore, "FUZZ_AFTER_UNITS", 1_000_000)
    spec = json.loads((APPS / "word_count.json").read_text())
    program = ingot.load(APPS / "word_count.baml")
    ex = Explorer(program.view, spec["function"], Options(seed=5, string_model_units=6_000_000)).explore()
    assert ex.limits.get("string-models-renewed", 0) > 0
    assert len(ex.covered) == len(ex.edges)
    assert any(f.kind == "IndexOutOfBounds" for f in ex.findings)


def test_aimed_mutations_drop_one_separator() -> None:
    """A count of separators that divides (`16 / seps`) steps down when a mutation aimed at the
    site drops one."""
    program = ingot.load_source('function F(s: string) -> int {\n  s.split("-").length()\n}\n')
    words = Dictionary.of(program.view.bytecode, ["F"])
    rng = random.Random(0)
    aimed = {words.mutate_string(rng, "4000 0000-1234", 32, None, 0.5) for _ in range(200)}
    assert {"40000000-1234", "4000 00001234"} <= aimed
