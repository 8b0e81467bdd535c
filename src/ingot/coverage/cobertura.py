"""Cobertura XML, as CI systems (GitLab, Jenkins, Azure) read coverage: a package per directory,
a class per source file, each executable line with its hits and, on branch lines, how many of
the line's branch edges the tests took."""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from pathlib import Path, PurePosixPath

from ingot.coverage.lcov import write_text_atomically
from ingot.coverage.model import Coverage, FileCoverage

DTD = '<!DOCTYPE coverage SYSTEM "http://cobertura.sourceforge.net/xml/coverage-04.dtd">'


def _rate(hit: int, total: int) -> str:
    return f"{hit / total:.4f}" if total else "1.0000"


def cobertura_xml(coverage: Coverage, timestamp: int | None = None) -> str:
    root = ET.Element("coverage", {
        "line-rate": _rate(coverage.lines_hit, coverage.lines_found),
        "branch-rate": _rate(coverage.branches_hit, coverage.branches_found),
        "lines-covered": str(coverage.lines_hit), "lines-valid": str(coverage.lines_found),
        "branches-covered": str(coverage.branches_hit), "branches-valid": str(coverage.branches_found),
        "complexity": "0", "version": "ingot",
        "timestamp": str(int(time.time() * 1000) if timestamp is None else timestamp)})
    ET.SubElement(ET.SubElement(root, "sources"), "source").text = "."
    packages = ET.SubElement(root, "packages")
    by_dir: dict[str, list[FileCoverage]] = {}
    for f in coverage.files:
        by_dir.setdefault(str(PurePosixPath(Path(f.path).as_posix()).parent), []).append(f)
    for directory, files in sorted(by_dir.items()):
        lines = sum(len(f.lines) for f in files)
        branches = sum(len(f.branches) for f in files)
        package = ET.SubElement(packages, "package", {
            "name": directory.replace("/", "."), "complexity": "0",
            "line-rate": _rate(sum(f.lines_hit for f in files), lines),
            "branch-rate": _rate(sum(f.branches_hit for f in files), branches)})
        classes = ET.SubElement(package, "classes")
        for f in files:
            _class(classes, f)
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" ?>\n{DTD}\n{body}\n'


def _class(parent: ET.Element, f: FileCoverage) -> None:
    cls = ET.SubElement(parent, "class", {
        "name": PurePosixPath(Path(f.path).as_posix()).stem, "filename": Path(f.path).as_posix(), "complexity": "0",
        "line-rate": _rate(f.lines_hit, len(f.lines)), "branch-rate": _rate(f.branches_hit, len(f.branches))})
    ET.SubElement(cls, "methods")
    lines = ET.SubElement(cls, "lines")
    for number, hits in f.lines.items():
        attrs = {"number": str(number), "hits": str(hits), "branch": "false"}
        on_line = f.branches_on(number)
        if on_line:
            taken = sum(1 for b in on_line if b.taken > 0)
            percent = round(100 * taken / len(on_line))
            attrs.update({"branch": "true", "condition-coverage": f"{percent}% ({taken}/{len(on_line)})"})
        line = ET.SubElement(lines, "line", attrs)
        if on_line:
            conditions = ET.SubElement(line, "conditions")
            sites = sorted({b.site for b in on_line})
            for site in sites:
                edges = [b for b in on_line if b.site == site]
                covered = sum(1 for b in edges if b.taken > 0)
                ET.SubElement(conditions, "condition", {
                    "number": str(site), "type": "jump", "coverage": f"{round(100 * covered / len(edges))}%"})


def write_cobertura(coverage: Coverage, path: Path) -> None:
    write_text_atomically(path, cobertura_xml(coverage))
