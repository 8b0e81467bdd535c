"""An LCOV tracefile (`geninfo`'s format, as genhtml and editor coverage gutters read it)."""

from __future__ import annotations

import errno
from pathlib import Path

from ingot.coverage.model import Coverage, FileCoverage
from ingot.files import write_atomic


def lcov_text(coverage: Coverage, test_name: str = "") -> str:
    """One record per source file: functions (FN/FNDA), branches (BRDA), lines (DA), with totals."""
    out: list[str] = []
    for f in coverage.files:
        out.append(f"TN:{test_name}")
        out.extend(_record(f))
    return "\n".join(out) + "\n"


def _record(f: FileCoverage) -> list[str]:
    out = [f"SF:{f.path}"]
    for fn in f.functions:
        out.append(f"FN:{fn.line},{fn.name}")
    for fn in f.functions:
        out.append(f"FNDA:{fn.calls},{fn.name}")
    out.append(f"FNF:{len(f.functions)}")
    out.append(f"FNH:{f.functions_hit}")
    for b in f.branches:
        # `-`: the branch's condition never ran (LCOV's "block never executed"); 0: it ran, never this way.
        out.append(f"BRDA:{b.line},{b.site},{b.index},{b.taken if b.reached else '-'}")
    out.append(f"BRF:{len(f.branches)}")
    out.append(f"BRH:{f.branches_hit}")
    for line, hits in f.lines.items():
        out.append(f"DA:{line},{hits}")
    out.append(f"LF:{len(f.lines)}")
    out.append(f"LH:{f.lines_hit}")
    out.append("end_of_record")
    return out


def write_text_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file beside it: a failure leaves no partial file."""
    path = Path(path)
    require_directory(path.parent)
    write_atomic(path, text)


def require_directory(directory: Path) -> None:
    """The directory a report goes into must exist (named in the error, not a temporary file)."""
    if not directory.is_dir():
        raise FileNotFoundError(errno.ENOENT, "no such directory", str(directory))


def write_lcov(coverage: Coverage, path: Path) -> None:
    write_text_atomically(path, lcov_text(coverage))
