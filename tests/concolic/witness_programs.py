"""What the test programs with witnesses share: each test module holds BAML programs that plant
one bug, and witnesses (inputs with their expected value or error) that prove every branch edge
feasible and the bug real, on ingot (replayed on the tracker) and on the real engine
(`baml_bridge`, through the application benchmarks' checker)."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import ingot
from ingot.concolic.edges import reachable_edges
from ingot.concolic.explore import Exploration, Explorer, Options
from ingot.symbolic.expr import Interner
from ingot.symbolic.tracker import TrackedVM

APPS = Path(__file__).resolve().parents[2] / "bench" / "explore" / "apps"

# name -> (entry function, planted bug (kind, line), witnesses: (args, value or {"error": kind}))
Programs = dict[str, tuple[str, tuple[str, int], list[tuple[dict[str, Any], Any]]]]

# Exploration seeds: seed 0 in the default run; seeds 1 and 2 (the same check under other search
# orders, seconds each) under `-m slow`.
SEEDS = [0, pytest.param(1, marks=pytest.mark.slow), pytest.param(2, marks=pytest.mark.slow)]


def checker() -> Any:
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


def bugs_found(ex: Exploration) -> set[tuple[str, int]]:
    """The findings as (kind, line of the innermost frame), as the programs name their bug."""
    return {(f.kind, int(f.trace[-1].rsplit("line ", 1)[1].split(",")[0])) for f in ex.findings}


def assert_witnesses_on_ingot(here: Path, programs: Programs, name: str) -> None:
    """Every witness has its expected outcome on ingot, an error only at the planted bug, and the
    witnesses together take every branch edge exploration counts."""
    fn, bug, witnesses = programs[name]
    program = ingot.load(here / f"{name}.baml")
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


def assert_witnesses_on_engine(here: Path, programs: Programs) -> None:
    """Every witness has the same outcome on the real engine."""
    mod = checker()
    engine = mod.Engine()
    try:
        for name, (fn, _, witnesses) in sorted(programs.items()):
            source = (here / f"{name}.baml").read_text()
            for args, value in witnesses:
                assert engine.outcome(source, fn, {"args": args}) == expected(value), (name, args)
    finally:
        engine.close()


def witness_tests(here: Path, programs: Programs) -> tuple[Callable[[str], None], Callable[[], None]]:
    """The two witness tests every such module runs, to be bound to `test_*` names there: each
    program's witnesses on ingot (`assert_witnesses_on_ingot`), and all of them on the real
    engine (slow: baml_bridge compiles each program in about 1.5 s)."""

    @pytest.mark.parametrize("name", sorted(programs))
    def on_ingot(name: str) -> None:
        assert_witnesses_on_ingot(here, programs, name)

    @pytest.mark.slow
    def on_engine() -> None:
        pytest.importorskip("baml_bridge")
        assert_witnesses_on_engine(here, programs)

    return on_ingot, on_engine


def exploration_test(here: Path, programs: Programs) -> Callable[[str, int], None]:
    """The test that explores each program from its entry function at the default budget on
    each of `SEEDS`, to be bound to a `test_*` name: every edge covered, the planted bug found."""

    @pytest.mark.parametrize("seed", SEEDS)
    @pytest.mark.parametrize("name", sorted(programs))
    def covers_every_edge_and_finds_the_bug(name: str, seed: int) -> None:
        ex, bug = explored(here, programs, name, seed=seed)
        assert bug in bugs_found(ex)
        assert len(ex.covered) == len(ex.edges)

    return covers_every_edge_and_finds_the_bug


def explored(here: Path, programs: Programs, name: str, **options: Any) -> tuple[Exploration, tuple[str, int]]:
    """The program `name` explored from its entry function with `Options(**options)`, and its planted bug."""
    fn, bug, _ = programs[name]
    program = ingot.load(here / f"{name}.baml")
    return Explorer(program.view, fn, Options(**options)).explore(), bug


def tracked_run(program: ingot.Program, fn: str, assignment: dict[str, Any]) -> TrackedVM:
    """One tracked run of `fn` on inputs given by access path (`"xs.$len"`, `"xs[0]"`), as the
    explorer runs a child: its path, checks and concretizations are in `vm.trace`."""
    from ingot.concolic.inputs import InputBuilder, InputSpace

    x = Interner()
    vm = TrackedVM(program.view, x, env=None)
    builder = InputBuilder(program.view, x, InputSpace(), assignment, vm.hset, 6)
    fview = program.view.function(fn)
    values, shadows = zip(*(builder.build(ty, pname) for pname, ty in fview.params))
    vm.run_tracked(program.view.bytecode.by_name[fn], list(values), list(shadows))
    return vm
