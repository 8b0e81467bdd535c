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
