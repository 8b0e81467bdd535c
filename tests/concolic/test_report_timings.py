"""`ingot explore --timings`: when each test and finding was found, for time-to-coverage figures."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ingot.cli import main

BENCH = Path(__file__).resolve().parents[2] / "bench" / "explore"


def explore_json(*args: str) -> dict:
    result = CliRunner().invoke(main, ["explore", *args, "--json", "--max-runs", "300"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_timeline_says_when_each_test_and_finding_was_found() -> None:
    report = explore_json(str(BENCH / "triage.baml"), "Triage", "--timings")
    tl = report["timeline"]
    assert len(tl["tests_s"]) == len(report["tests"]) > 1
    assert len(tl["findings_s"]) == len(report["findings"]) == 1
    assert tl["tests_s"] == sorted(tl["tests_s"])  # found in order, during the exploration
    assert all(0 <= t <= tl["time_s"] for t in tl["tests_s"] + tl["findings_s"])
    assert tl["findings_s"][0] == tl["first_finding_s"]
    # the test that completed the coverage was found when coverage became full
    assert tl["full_coverage_s"] in tl["tests_s"]


def test_the_times_stay_out_of_the_report_without_timings() -> None:
    report = explore_json(str(BENCH / "triage.baml"), "Triage")
    assert "timeline" not in report
    assert all("time_s" not in t for t in report["tests"])
