"""A two-file project explored once per test session: the support router (an LLM call, a
helper in the other file) and the cart pricer, each on a small budget so some branches
stay uncovered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import ingot
from ingot.concolic.explore import Exploration, Explorer, Options
from ingot.coverage import Coverage, build

HERE = Path(__file__).parent
PROJECT = HERE / "project"
ROOT = HERE.parent.parent  # the repository: reports name files relative to it


def explore(program: ingot.Program, function: str, **options: Any) -> Exploration:
    return Explorer(program.view, function, Options(seed=0, timeout_s=60, **options)).explore()


def source_paths(program: ingot.Program) -> dict[str, str]:
    """Source name -> path relative to the repository root, as the CLI names them when run from there."""
    return {s.name: str(Path(program.source_path(s.name) or s.name).resolve().relative_to(ROOT))
            for s in program.compiled.sources}


@pytest.fixture(scope="session", name="explore")
def explore_fixture() -> Any:
    """`explore(program, function, **options)`: an exploration with seed 0."""
    return explore


@pytest.fixture(scope="session", name="source_paths")
def source_paths_fixture() -> Any:
    return source_paths


@pytest.fixture(scope="session")
def project() -> ingot.Program:
    return ingot.load(PROJECT, resolve_hosts=False)


@pytest.fixture(scope="session")
def explorations(project: ingot.Program) -> list[Exploration]:
    return [explore(project, "RouteTicket", max_runs=150), explore(project, "CartTotal", max_runs=150)]


@pytest.fixture(scope="session")
def coverage(project: ingot.Program, explorations: list[Exploration]) -> Coverage:
    return build(project.view, explorations, source_paths(project))
