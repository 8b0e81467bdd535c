"""The HTML coverage site: escaped, written atomically, and checked as headless Chromium renders it."""

from __future__ import annotations

import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

import ingot
from ingot.concolic.edges import edge_key
from ingot.concolic.explore import Exploration
from ingot.coverage import Coverage, html, write_html
from ingot.coverage.html import COLORS, HEADER_PX, ROW_PX

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (Debian package chromium; "
                                                              ".ci/run installs it)")


class Rows(HTMLParser):
    """Per source row (`tr#L<n>`): its classes, its edges (status, name) and its findings' kinds."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: dict[int, dict[str, Any]] = {}
        self.current: dict[str, Any] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "tr" and (a.get("id") or "").startswith("L"):
            self.current = self.rows[int(a["id"][1:])] = {"classes": classes, "edges": [], "findings": []}
        elif tag == "span" and self.current is not None and "edge" in classes:
            self.current["edges"].append((classes[1], a.get("data-edge")))
        elif tag == "span" and self.current is not None and "finding" in classes:
            self.current["findings"].append(a.get("data-kind"))

    def handle_endtag(self, tag: str) -> None:
        if tag == "tr":
            self.current = None


def rows_of(page: str) -> dict[int, dict[str, Any]]:
    parser = Rows()
    parser.feed(page)
    return parser.rows


def expected_uncovered(project: ingot.Program, explorations: list[Exploration]) -> dict[str, set[tuple[int, str]]]:
    """Source name -> (line, edge name) of every edge an exploration left uncovered (not proved infeasible)."""
    out: dict[str, set[tuple[int, str]]] = {}
    for ex in explorations:
        for e in ex.edges:
            if edge_key(e) in ex.covered or edge_key(e) in ex.infeasible:
                continue
            span = project.view.function(e.site.function).blocks[e.site.block].terminator.span
            name = f"{e.site.function}:bb{e.site.block}->bb{e.target} ({e.label})"
            out.setdefault(span.source.name, set()).add((span.start.line, name))
    return out


def test_sources_are_escaped(coverage: Coverage) -> None:
    pages = html.html_pages(coverage)
    support = pages["tests_coverage_reports_project_support.baml.html"]
    assert "&quot;${body}&quot; &amp; &lt;say&gt; what it is about." in support
    assert "<say>" not in support
    rows = rows_of(support)
    assert len(rows) == len(coverage.files[1].text.split("\n"))


def test_pages_name_every_file_and_finding(coverage: Coverage) -> None:
    pages = html.html_pages(coverage)
    index = pages["index.html"]
    for f in coverage.files:
        assert f'href="{f.path.replace("/", "_")}.html"' in index
    support = rows_of(pages["tests_coverage_reports_project_support.baml.html"])
    finding = coverage.files[1].findings[0]
    assert support[finding.line]["findings"] == ["UserPanic"]
    assert '&quot;vip&quot;: true' in pages["tests_coverage_reports_project_support.baml.html"]  # the witness input


def test_the_site_is_replaced_atomically(coverage: Coverage, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    write_html(coverage, site)
    before = {p.name: p.read_text() for p in site.iterdir()}
    write_html(coverage, site)  # an earlier report is replaced
    assert {p.name: p.read_text() for p in site.iterdir()} == before

    def broken(f: Any) -> str:
        raise RuntimeError("disk full")

    monkeypatch.setattr(html, "file_page", broken)
    with pytest.raises(RuntimeError):
        write_html(coverage, site)
    assert {p.name: p.read_text() for p in site.iterdir()} == before  # the old report, whole
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no temporary directory left
    with pytest.raises(RuntimeError):
        write_html(coverage, tmp_path / "fresh")
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


def test_a_directory_that_is_not_a_report_is_left_alone(coverage: Coverage, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="not an ingot coverage report"):
        write_html(coverage, tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def chromium(tmp_path: Path, name: str, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={tmp_path / ('profile-' + name)}", "--hide-scrollbars", "--force-device-scale-factor=1",
         *args], capture_output=True, text=True, timeout=180)


@needs_chromium
def test_chromium_shows_every_uncovered_branch_on_its_line(project: ingot.Program, explorations: list[Exploration],
                                                           coverage: Coverage, tmp_path: Path) -> None:
    from PIL import Image

    site = tmp_path / "site"
    write_html(coverage, site)
    expected = expected_uncovered(project, explorations)
    assert sum(len(v) for v in expected.values()) >= 5  # the budget leaves branches in both files uncovered
    for f in coverage.files:
        page = site / f"{f.path.replace('/', '_')}.html"
        dom = chromium(tmp_path, f.name + "-dom", "--dump-dom", page.as_uri())
        assert dom.returncode == 0, dom.stderr
        rows = rows_of(dom.stdout)
        lines = len(f.text.split("\n"))
        assert sorted(rows) == list(range(1, lines + 1))
        marked = {(n, name) for n, row in rows.items() for status, name in row["edges"] if status == "uncovered"}
        assert marked == expected.get(f.name, set())
        for n, _ in marked:
            assert "branch-miss" in rows[n]["classes"]

        # The screenshot: rows sit at fixed heights, so line n's branch mark is at a known place.
        height = HEADER_PX + ROW_PX * lines + 40
        shot = tmp_path / f"{f.name}.png"
        # Every compositor stage runs before the frame is drawn: on a loaded machine the screenshot
        # was once taken with the last rows not yet painted (all white).
        out = chromium(tmp_path, f.name + "-shot", f"--window-size=1200,{height}", f"--screenshot={shot}",
                       "--run-all-compositor-stages-before-draw", page.as_uri())
        assert out.returncode == 0 and shot.exists(), out.stderr
        image = Image.open(shot).convert("RGB")
        assert image.size == (1200, height)
        orange, green, red = (rgb(COLORS[k]) for k in ("branch-miss", "hit", "miss"))
        branch_lines = {n for n, _ in marked}
        for n in range(1, lines + 1):
            y = HEADER_PX + (n - 1) * ROW_PX + ROW_PX // 2
            assert (image.getpixel((3, y)) == orange) == (n in branch_lines), n
            row = {image.getpixel((x, y)) for x in range(0, 300)}
            hits = f.lines.get(n)
            assert (green in row) == (hits is not None and hits > 0), n
            assert (red in row) == (hits == 0), n


def rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)
