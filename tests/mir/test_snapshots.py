"""`ingot mir` and `ingot dis` output pinned as text, the way compilers test their IR dumps.

Set INGOT_BLESS=1 to rewrite the expected files after an intended change, then review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import ingot
from ingot.bex.dis import disassemble_program
from ingot.mir import pretty

HERE = Path(__file__).parent / "snapshots"
PROGRAMS = sorted(HERE.glob("*.baml"))


def check_snapshot(expected_path: Path, actual: str) -> None:
    if os.environ.get("INGOT_BLESS"):
        expected_path.write_text(actual + "\n")
        return
    assert expected_path.exists(), f"no snapshot {expected_path.name}; run with INGOT_BLESS=1"
    assert actual + "\n" == expected_path.read_text(), f"{expected_path.name} changed (INGOT_BLESS=1 to accept)"


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_mir_snapshot(path: Path) -> None:
    program = ingot.load(path)
    check_snapshot(path.with_suffix(".mir"), pretty.program(program.compiled.mir))


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_dis_snapshot(path: Path) -> None:
    program = ingot.load(path)
    check_snapshot(path.with_suffix(".dis"), disassemble_program(program.bex))
