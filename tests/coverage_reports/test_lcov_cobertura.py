"""LCOV and Cobertura files: their records agree with the model, genhtml reads the LCOV file cleanly."""

from __future__ import annotations

import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ingot.cli import main
from ingot.coverage import Coverage, cobertura_xml, lcov_text

ROOT = Path(__file__).parent.parent.parent


def parse_lcov(text: str) -> dict[str, dict[str, Any]]:
    """SF path -> {"DA": {line: hits}, "BRDA": [(line, block, branch, taken)], "FN": ..., totals}."""
    records: dict[str, dict[str, Any]] = {}
    current: dict[str, Any] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key == "SF":
            current = records[value] = {"DA": {}, "BRDA": [], "FN": {}, "FNDA": {}}
        elif key == "DA":
            n, hits = value.split(",")
            current["DA"][int(n)] = int(hits)
        elif key == "BRDA":
            n, block, branch, taken = value.split(",")
            current["BRDA"].append((int(n), int(block), int(branch), taken))
        elif key == "FN":
            n, name = value.split(",", 1)
            current["FN"][name] = int(n)
        elif key == "FNDA":
            hits, name = value.split(",", 1)
            current["FNDA"][name] = int(hits)
        elif key in ("LF", "LH", "BRF", "BRH", "FNF", "FNH"):
            current[key] = int(value)
        elif key == "end_of_record":
            current["ended"] = True
        else:
            assert key == "TN", line
    return records


def test_lcov_records_agree_with_the_model(coverage: Coverage) -> None:
    records = parse_lcov(lcov_text(coverage))
    assert list(records) == [f.path for f in coverage.files]
    for f in coverage.files:
        r = records[f.path]
        assert r["ended"]
        assert r["DA"] == f.lines
        assert (r["LF"], r["LH"]) == (len(f.lines), sum(1 for n in f.lines.values() if n))
        assert r["FN"] == {fn.name: fn.line for fn in f.functions}
        assert r["FNDA"] == {fn.name: fn.calls for fn in f.functions}
        assert (r["FNF"], r["FNH"]) == (len(f.functions), sum(1 for fn in f.functions if fn.calls))
        assert len(r["BRDA"]) == r["BRF"] == len(f.branches)
        assert r["BRH"] == sum(1 for _, _, _, taken in r["BRDA"] if taken not in ("-", "0"))
        for (line, _, _, taken), b in zip(r["BRDA"], f.branches, strict=True):
            assert line == b.line and line in f.lines  # a branch sits on an executable line
            assert taken == (str(b.taken) if b.reached else "-")
        # Every line with a branch some test took was itself executed.
        assert all(f.lines[line] > 0 for line, _, _, taken in r["BRDA"] if taken not in ("-", "0"))


def test_cobertura_numbers_agree_with_the_lcov_data(coverage: Coverage) -> None:
    records = parse_lcov(lcov_text(coverage))
    root = ET.fromstring(cobertura_xml(coverage, timestamp=0).split("\n", 2)[2])
    lf = sum(r["LF"] for r in records.values())
    lh = sum(r["LH"] for r in records.values())
    brf = sum(r["BRF"] for r in records.values())
    brh = sum(r["BRH"] for r in records.values())
    assert (int(root.get("lines-valid", "")), int(root.get("lines-covered", ""))) == (lf, lh)
    assert (int(root.get("branches-valid", "")), int(root.get("branches-covered", ""))) == (brf, brh)
    assert float(root.get("line-rate", "")) == pytest.approx(lh / lf, abs=1e-4)
    assert float(root.get("branch-rate", "")) == pytest.approx(brh / brf, abs=1e-4)
    classes = root.findall("./packages/package/classes/class")
    assert sorted(c.get("filename") for c in classes) == sorted(records)
    for c in classes:
        r = records[c.get("filename", "")]
        lines = c.findall("./lines/line")
        assert {int(x.get("number", "")): int(x.get("hits", "")) for x in lines} == r["DA"]
        assert float(c.get("line-rate", "")) == pytest.approx(r["LH"] / r["LF"], abs=1e-4)
        for x in lines:
            n = int(x.get("number", ""))
            on_line = [taken for line, _, _, taken in r["BRDA"] if line == n]
            assert (x.get("branch") == "true") == bool(on_line)
            if on_line:
                hit = sum(1 for t in on_line if t not in ("-", "0"))
                assert x.get("condition-coverage", "").endswith(f"({hit}/{len(on_line)})")


def explore_with_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *extra: str) -> tuple[int, str]:
    monkeypatch.chdir(ROOT)  # reports name files as given: relative to where ingot runs
    result = CliRunner().invoke(main, ["explore", "tests/coverage_reports/project", "RouteTicket", "--max-runs", "120",
                                       "--lcov", str(tmp_path / "cov.info"), "--cobertura", str(tmp_path / "cov.xml"),
                                       "--html", str(tmp_path / "site"), *extra], catch_exceptions=False)
    return result.exit_code, result.output


def test_cli_writes_all_three_reports(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, output = explore_with_reports(tmp_path, monkeypatch, "--json")
    assert code == 0, output
    records = parse_lcov((tmp_path / "cov.info").read_text())
    assert list(records) == ["tests/coverage_reports/project/billing.baml", "tests/coverage_reports/project/support.baml"]
    assert ET.parse(tmp_path / "cov.xml").getroot().tag == "coverage"
    assert sorted(p.name for p in (tmp_path / "site").iterdir()) == [
        ".ingot-coverage", "index.html", "tests_coverage_reports_project_billing.baml.html",
        "tests_coverage_reports_project_support.baml.html"]
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary left behind


def test_cli_names_a_missing_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, ["explore", "tests/coverage_reports/project", "CartTotal", "--max-runs", "5",
                                       "--lcov", str(tmp_path / "nowhere" / "cov.info")])
    assert result.exit_code == 1
    assert f"{tmp_path / 'nowhere'}: no such directory" in result.output


@pytest.mark.skipif(shutil.which("genhtml") is None,
                    reason="genhtml is not installed (Debian package lcov; .ci/run installs it)")
def test_genhtml_renders_the_lcov_file_without_warnings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, output = explore_with_reports(tmp_path, monkeypatch)
    assert code == 0, output
    out = subprocess.run(["genhtml", "--branch-coverage", "--function-coverage", "--output-directory",
                          str(tmp_path / "genhtml"), str(tmp_path / "cov.info")],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "WARNING" not in (out.stdout + out.stderr).upper()
    assert "branches" in out.stdout and (tmp_path / "genhtml" / "index.html").exists()
    (page,) = (tmp_path / "genhtml").rglob("support.baml.gcov.html")  # the source, annotated
    assert "baml.sys.panic" in page.read_text()
