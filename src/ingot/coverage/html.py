"""A static HTML coverage site: an index and one page per source file.

Each page lists the source, one table row per line: a branch mark (orange where a branch
edge of the line was never taken), the line number, its hit count (green: executed, red:
executable and never executed, blank: not executable), the code, and notes: per branching
condition its source text and its edges (taken, never taken, proved infeasible), and the
findings (panics, uncaught throws) that end on the line, detailed with their witness inputs
below the listing. Rows are one fixed height (`ROW_PX`) under a header of fixed height
(`HEADER_PX`), so line N is always at the same place on screen.

Self-contained: one inline stylesheet, no script, nothing fetched. Every piece of source
or data is escaped. The directory is written beside its final place and renamed into it,
so a failure leaves the previous report (or nothing), never half of one.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from html import escape
from pathlib import Path
from typing import Any

from ingot.coverage.lcov import require_directory
from ingot.coverage.model import BranchCoverage, Coverage, FileCoverage
from ingot.files import umask

HEADER_PX = 96
ROW_PX = 20
MARKER = ".ingot-coverage"  # names a directory as one of these reports (so rewriting it may replace it)
COLORS = {"branch-miss": "#f08c00", "hit": "#2f9e44", "miss": "#e03131", "infeasible": "#868e96"}

CSS = f"""
body {{ margin: 0; font: 13px/1.4 system-ui, sans-serif; color: #212529; background: #fff; }}
header {{ height: {HEADER_PX}px; box-sizing: border-box; overflow: hidden; margin: 0; padding: 8px 12px;
          background: #f1f3f5; border-bottom: 1px solid #dee2e6; }}
header h1 {{ font-size: 16px; margin: 0 0 4px 0; white-space: nowrap; }}
header p {{ margin: 0; white-space: nowrap; }}
table.src {{ border-collapse: collapse; border-spacing: 0; margin: 0; }}
table.src td {{ height: {ROW_PX}px; padding: 0 6px; line-height: {ROW_PX}px; white-space: pre; vertical-align: top;
                font: 12px/{ROW_PX}px ui-monospace, "DejaVu Sans Mono", monospace; overflow: hidden; }}
table.src td.mark {{ width: 8px; min-width: 8px; padding: 0; }}
tr.branch-miss td.mark {{ background: {COLORS['branch-miss']}; }}
td.num {{ color: #868e96; text-align: right; }}
td.hits {{ text-align: right; min-width: 3em; }}
tr.hit td.hits {{ background: {COLORS['hit']}; color: #fff; }}
tr.miss td.hits {{ background: {COLORS['miss']}; color: #fff; }}
tr.miss td.code {{ background: #fff0f0; }}
tr.branch-miss td.code {{ background: #fff4e6; }}
span.cond {{ color: #495057; margin-left: 12px; }}
span.edge, span.finding {{ padding: 0 4px; margin-left: 4px; border-radius: 3px; }}
span.edge.covered {{ background: #d3f9d8; }}
span.edge.uncovered {{ background: {COLORS['branch-miss']}; color: #fff; }}
span.edge.infeasible {{ background: #e9ecef; color: #495057; text-decoration: line-through; }}
span.finding {{ background: #c92a2a; color: #fff; }}
section {{ padding: 8px 12px; }}
section pre {{ background: #f8f9fa; padding: 6px; white-space: pre-wrap; }}
table.files td, table.files th {{ padding: 2px 10px; text-align: left; }}
"""


def html_pages(coverage: Coverage) -> dict[str, str]:
    """File name -> page: `index.html` and one page per source file."""
    names = _page_names(coverage)
    pages = {names[f.path]: file_page(f) for f in coverage.files}
    pages["index.html"] = index_page(coverage, names)
    return pages


def write_html(coverage: Coverage, out: Path) -> None:
    """Write the site into directory `out` atomically (replacing an earlier report there)."""
    out = Path(out)
    if out.exists() and not (out.is_dir() and (not any(out.iterdir()) or (out / MARKER).exists())):
        raise FileExistsError(f"{out} exists and is not an ingot coverage report; remove it or choose another")
    require_directory(out.parent)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        os.chmod(tmp, 0o777 & ~umask())  # mkdtemp makes it private; the site is for reading
        for name, text in html_pages(coverage).items():
            (tmp / name).write_text(text, encoding="utf-8")
        (tmp / MARKER).write_text("written by ingot explore --html\n", encoding="utf-8")
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            os.rename(out, old / "report")
            os.rename(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.rename(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _page_names(coverage: Coverage) -> dict[str, str]:
    names: dict[str, str] = {}
    for f in coverage.files:
        base = re.sub(r"[^A-Za-z0-9._-]+", "_", f.path).strip("._") or "source"
        name, n = f"{base}.html", 1
        while name in names.values() or name == "index.html":
            n += 1
            name = f"{base}-{n}.html"
        names[f.path] = name
    return names


def _page(title: str, header: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width\"><title>{escape(title)}</title>"
            f"<style>{CSS}</style></head>\n<body><header>{header}</header>\n{body}\n</body></html>\n")


def _percent(hit: int, total: int) -> str:
    return f"{100 * hit / total:.1f}% ({hit}/{total})" if total else "n/a (0/0)"


def index_page(coverage: Coverage, names: dict[str, str]) -> str:
    header = (f"<h1>ingot coverage</h1><p>{coverage.tests} generated tests replayed"
              f"{' for ' + escape(', '.join(coverage.explored)) if coverage.explored else ''}</p>"
              f"<p>lines {_percent(coverage.lines_hit, coverage.lines_found)} &middot; "
              f"branches {_percent(coverage.branches_hit, coverage.branches_found)}</p>")
    rows = []
    for f in coverage.files:
        infeasible = sum(1 for b in f.branches if b.status == "infeasible")
        rows.append(f"<tr><td><a href=\"{escape(names[f.path])}\">{escape(f.path)}</a></td>"
                    f"<td>{_percent(f.lines_hit, len(f.lines))}</td><td>{_percent(f.branches_hit, len(f.branches))}</td>"
                    f"<td>{infeasible}</td><td>{_percent(f.functions_hit, len(f.functions))}</td>"
                    f"<td>{len(f.findings)}</td></tr>")
    body = ("<section><table class=\"files\"><thead><tr><th>file</th><th>lines</th><th>branches</th>"
            "<th>infeasible</th><th>functions</th><th>findings</th></tr></thead><tbody>"
            + "".join(rows) + "</tbody></table></section>")
    return _page("ingot coverage", header, body)


def file_page(f: FileCoverage) -> str:
    uncovered = sum(1 for b in f.branches if b.status == "uncovered")
    header = (f"<h1>{escape(f.path)}</h1><p><a href=\"index.html\">index</a> &middot; "
              f"lines {_percent(f.lines_hit, len(f.lines))} &middot; branches {_percent(f.branches_hit, len(f.branches))}"
              f" &middot; {uncovered} uncovered, {sum(1 for b in f.branches if b.status == 'infeasible')} infeasible"
              f" &middot; {len(f.findings)} finding{'s' if len(f.findings) != 1 else ''}</p>")
    findings_on: dict[int, list[int]] = {}
    for i, finding in enumerate(f.findings):
        findings_on.setdefault(finding.line, []).append(i)
    rows = []
    for number, text in enumerate(f.text.split("\n"), start=1):
        rows.append(_row(f, number, text.rstrip("\r").expandtabs(4), findings_on.get(number, [])))
    body = "<table class=\"src\"><tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n" + _findings(f)
    return _page(f.path, header, body)


def _row(f: FileCoverage, number: int, text: str, findings: list[int]) -> str:
    branches = f.branches_on(number)
    classes = ["line"]
    hits = f.lines.get(number)
    if hits is None:
        classes.append("noexec")
        hits_cell = ""
    else:
        classes.append("hit" if hits > 0 else "miss")
        hits_cell = str(hits)
    if any(b.status == "uncovered" for b in branches):
        classes.append("branch-miss")
    notes = _branch_notes(branches) + "".join(
        f"<a href=\"#F{i + 1}\"><span class=\"finding\" data-kind=\"{escape(f.findings[i].kind)}\">"
        f"&#9888; {escape(f.findings[i].kind)}</span></a>" for i in findings)
    return (f"<tr id=\"L{number}\" class=\"{' '.join(classes)}\" data-line=\"{number}\"><td class=\"mark\">&nbsp;</td>"
            f"<td class=\"num\">{number}</td><td class=\"hits\">{hits_cell}</td>"
            f"<td class=\"code\">{escape(text)}</td><td class=\"notes\">{notes}</td></tr>")


SYMBOL = {"covered": "&#10003;", "uncovered": "&#10007;", "infeasible": "&#8709;"}


def _branch_notes(branches: list[BranchCoverage]) -> str:
    out = []
    sites: dict[int, list[BranchCoverage]] = {}
    for b in branches:
        sites.setdefault(b.site, []).append(b)
    for edges in sites.values():
        out.append(f"<span class=\"cond\">{escape(edges[0].condition)}</span>")
        for b in edges:
            if b.status == "covered":
                title, text = f"taken {b.taken} time{'s' if b.taken != 1 else ''}", f"{escape(b.label)} &times;{b.taken}"
            elif b.status == "infeasible":
                title, text = "no input takes this edge (proved)", f"{escape(b.label)} infeasible"
            else:
                title = "never taken" + ("" if b.reached else " (the condition never ran)")
                text = f"{escape(b.label)} never"
            out.append(f"<span class=\"edge {b.status}\" data-edge=\"{escape(b.name)}\" title=\"{title}\">"
                       f"{SYMBOL[b.status]} {text}</span>")
    return "".join(out)


def _json(value: Any) -> str:
    return escape(json.dumps(value, ensure_ascii=False, indent=1))


def _findings(f: FileCoverage) -> str:
    if not f.findings:
        return ""
    items = []
    for i, x in enumerate(f.findings):
        mocks = f"<p>LLM results:</p><pre>{_json(x.mocks)}</pre>" if x.mocks else ""
        items.append(f"<li id=\"F{i + 1}\"><a href=\"#L{x.line}\">line {x.line}</a>: <b>{escape(x.kind)}</b> "
                     f"{escape(x.message)} (exploring {escape(x.function)})<pre>{_json(x.args)}</pre>{mocks}</li>")
    return "<section><h2>Findings</h2><ol>" + "".join(items) + "</ol></section>"
