"""The files of a BAML project: what `ingot.load` and every command compile as one program.

A project is given as files and directories. A directory contributes every `.baml` file below
it (hidden directories skipped, symlinked directories not followed); a file given by name is
taken whatever its suffix. All of them form one namespace, as the BAML engine compiles a
`baml_src/` folder. Each file is named relative to the project's root (the directory given, or
the directory holding the files), so `baml_src/models.baml` is `models.baml` in diagnostics and
traces, as the engine names it.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ingot.syntax.diagnostics import Code, CompileError, Diagnostic, SourceFile, Span

SUFFIX = ".baml"


@dataclass(frozen=True, slots=True)
class ProjectFile:
    path: Path  # where it is read from
    name: str  # what diagnostics and traces call it: relative to the project root, "/"-separated


def project_files(paths: Sequence[str | os.PathLike[str]]) -> list[ProjectFile]:
    """The `.baml` files the paths name, each once, in a stable order (sorted within a directory).

    A missing path is a `FileNotFoundError` naming it; a directory with no `.baml` file below
    it is one too (there is nothing to compile).
    """
    if not paths:
        raise ValueError("no files or directories given")
    found: dict[Path, None] = {}
    roots: list[Path] = []
    for given in map(Path, paths):
        if given.is_dir():
            below = list(baml_files_below(given))
            if not below:
                raise FileNotFoundError(errno.ENOENT, f"no {SUFFIX} files under directory", str(given))
            roots.append(given.absolute())
            found.update(dict.fromkeys(below))
        elif given.is_file():
            roots.append(given.absolute().parent)
            found[given] = None
        else:
            raise FileNotFoundError(errno.ENOENT, "no such file or directory", str(given))
    root = Path(os.path.commonpath(roots))
    out: list[ProjectFile] = []
    seen: set[Path] = set()
    for path in found:
        real = path.resolve()
        if real in seen:  # the same file named twice (or through a directory and by name)
            continue
        seen.add(real)
        out.append(ProjectFile(path, path.absolute().relative_to(root).as_posix()))
    return out


def baml_files_below(directory: Path) -> Iterable[Path]:
    for top, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            if name.endswith(SUFFIX) and not name.startswith("."):
                yield Path(top) / name


def read_sources(files: Sequence[ProjectFile]) -> list[tuple[str, str]]:
    """(name, text) of each file; a file that is not UTF-8 is a diagnostic at its first bad byte."""
    out: list[tuple[str, str]] = []
    problems: list[Diagnostic] = []
    for f in files:
        data = f.path.read_bytes()
        try:
            out.append((f.name, data.decode("utf-8")))
        except UnicodeDecodeError as e:
            text = data.decode("utf-8", errors="replace")
            at = len(data[: e.start].decode("utf-8"))
            problems.append(Diagnostic(Code.SYNTAX, f"file is not UTF-8 text (byte 0x{data[e.start]:02x})",
                                       Span(SourceFile(f.name, text), at, at + 1)))
    if problems:
        raise CompileError(problems)
    return out


__all__ = ["ProjectFile", "project_files", "read_sources", "SUFFIX"]
