"""Files ingot writes for users: atomic, and never written through a link planted at a temp name."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from ingot.cli import main
from ingot.files import write_atomic

ROOT = Path(__file__).resolve().parents[1]


def test_emitted_tests_do_not_follow_a_link_planted_at_the_old_temp_name(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    for name in ("classify_Classify_tests.json.tmp", ".classify_Classify_tests.json.tmp"):
        (out / name).symlink_to(victim)
    result = CliRunner().invoke(main, ["explore", str(ROOT / "bench" / "explore" / "classify.baml"), "Classify",
                                       "--max-runs", "20", "--emit-tests", "json", str(out)], catch_exceptions=False)
    assert result.exit_code in (0, 1), result.output
    assert victim.read_text() == "precious"
    assert (out / "classify_Classify_tests.json").is_file()
    assert not (out / "classify_Classify_tests.json").is_symlink()


def test_a_failed_write_leaves_the_old_file_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "report.json"
    target.write_text("old")

    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "\ud800 lone surrogate")
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json"]


def test_written_files_get_ordinary_permissions(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    write_atomic(target, "x")
    mask = os.umask(0o022)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask
