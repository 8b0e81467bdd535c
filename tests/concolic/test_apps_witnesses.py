"""The application benchmarks' witnesses: every claimed-feasible edge is taken by an input,
every planted bug is reached, and the outcomes agree between ingot and the real engine.

The ingot side runs by default; the engine side (baml_bridge, about 1.5 s to compile each
program) is marked slow.
"""

from __future__ import annotations

import pytest
from witness_programs import checker

NAMES = checker().names()  # the yardstick's programs, then the held-out ones (heldout/NAME)


def test_there_are_at_least_twenty_programs_and_some_held_out() -> None:
    assert len([n for n in NAMES if "/" not in n]) >= 20
    assert any(n.startswith("heldout/") for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_witnesses_take_every_feasible_edge_on_ingot(name: str) -> None:
    assert checker().check(name, None, False) == []


@pytest.mark.slow
def test_witnesses_give_the_same_outcomes_on_the_real_engine() -> None:
    pytest.importorskip("baml_bridge")
    mod = checker()
    engine = mod.Engine()
    try:
        errors = {name: mod.check(name, engine, False) for name in NAMES}
    finally:
        engine.close()
    assert {n: e for n, e in errors.items() if e} == {}


ENUM_ARGS = """
enum Tool {
  SEARCH
  FETCH
}
class Call {
  tool Tool
  tags string[]
}
function G(t: Tool, c: Call, o: Tool?, l: Tool[]) -> string {
  let a = match (t) { Tool.SEARCH => "s", Tool.FETCH => "f" };
  let b = match (c.tool) { Tool.SEARCH => "s", Tool.FETCH => "f" };
  a + b + (if (o == null) { "-" } else { "o" }) + l.length().to_string()
}
"""


@pytest.mark.slow
@pytest.mark.parametrize("args", [
    {"t": "SEARCH", "c": {"tool": "FETCH", "tags": []}, "o": None, "l": ["FETCH", "SEARCH"]},
    {"t": "FETCH", "c": {"tool": "SEARCH", "tags": ["a"]}, "o": "FETCH", "l": []},
])
def test_a_witness_names_an_enum_argument_by_its_variant_on_both_engines(args: dict) -> None:
    """Witnesses are JSON: an enum argument (or field, element, optional) is its variant's name,
    which the checker sends the real engine as the enum's variant, not as a string."""
    pytest.importorskip("baml_bridge")
    import ingot

    mod = checker()
    engine = mod.Engine()
    try:
        got = engine.outcome(ENUM_ARGS, "G", {"args": args})
    finally:
        engine.close()
    assert got == ("ok", ingot.load_source(ENUM_ARGS).call("G", **args))
