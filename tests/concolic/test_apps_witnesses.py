"""The application benchmarks' witnesses: every claimed-feasible edge is taken by an input,
every planted bug is reached, and the outcomes agree between ingot and the real engine.

The ingot side runs by default; the engine side (baml_bridge, about 1.5 s to compile each
program) is marked slow.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

APPS = Path(__file__).resolve().parents[2] / "bench" / "explore" / "apps"
NAMES = sorted(p.stem for p in APPS.glob("*.json"))


def checker() -> ModuleType:
    if "apps_check_witnesses" not in sys.modules:
        spec = importlib.util.spec_from_file_location("apps_check_witnesses", APPS / "check_witnesses.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["apps_check_witnesses"] = module
        spec.loader.exec_module(module)
    return sys.modules["apps_check_witnesses"]


def test_there_are_at_least_twenty_programs() -> None:
    assert len(NAMES) >= 20


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
