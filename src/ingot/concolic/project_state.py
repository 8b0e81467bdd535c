"""Checkpoint and resume of a whole project's exploration: a state directory of directories.

    DIR/project.json             what the run explores: ingot's version, the sources' digests,
                                 the options and the selected functions (resuming must match)
    DIR/functions/NAME/          one function's exploration: `exploration.state` (the
                                 single-function checkpoint of `checkpoint.StateDir`, written
                                 between generations) while it runs, then `result.json`
                                 (its final report, edges and coverage) once it is done

Each job writes only its own function's directory, every file atomically (a temporary file,
flushed, renamed over), so workers never share a file and an interruption at any moment
leaves each function either finished (`result.json`), resumable from its last checkpoint, or
not started. `--resume DIR` reads the finished functions' results, continues the others from
their checkpoints and starts the rest, so the merged report is the uninterrupted run's.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ingot.concolic.checkpoint import (
    STATE_FILE,
    StateDir,
    StateError,
    _digest,
    _ingot_version,
    _source_differences,
)
from ingot.files import write_atomic_bytes

if TYPE_CHECKING:
    from ingot.concolic.explore import Options

PROJECT_FILE = "project.json"
FUNCTIONS_DIR = "functions"
RESULT_FILE = "result.json"
FORMAT_VERSION = 1


class ProjectState:
    """The state directory of a project's exploration with these sources, options and functions."""

    def __init__(self, path: str | os.PathLike[str], sources: Mapping[str, str], options: Options,
                 functions: Sequence[str]) -> None:
        self.path = Path(path)
        self.sources = dict(sources)
        self.fingerprint: dict[str, Any] = {"format": FORMAT_VERSION, "ingot": _ingot_version(),
                            "sources": {name: _digest(text.encode()) for name, text in sources.items()},
                            "options": dataclasses.asdict(options), "functions": sorted(functions)}

    def create(self) -> None:
        """Start a new state directory; refuse one that holds a state already."""
        if (self.path / PROJECT_FILE).exists() or (self.path / FUNCTIONS_DIR).exists():
            raise StateError(f"{self.path} already holds a project exploration's state: continue it with "
                             f"--resume {self.path}, or remove it to start over")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StateError(f"cannot create state directory {self.path}: {e.strerror}") from None
        write_atomically(self.path / PROJECT_FILE, json.dumps(self.fingerprint, indent=1).encode())

    def check(self) -> None:
        """Refuse to resume a state of another exploration, naming what differs."""
        file = self.path / PROJECT_FILE
        try:
            saved = json.loads(file.read_text(encoding="utf-8"))
        except FileNotFoundError:
            hint = " (it holds one function's state: give that FUNCTION)" if (self.path / STATE_FILE).exists() else ""
            raise StateError(f"{self.path} holds no project exploration state ({PROJECT_FILE} is missing){hint}") from None
        except (OSError, ValueError) as e:
            raise StateError(f"cannot read {file}: {e}") from None
        if not isinstance(saved, dict):
            raise StateError(f"{file} is damaged")
        differences = self.differences(saved)
        if differences:
            raise StateError(f"cannot resume from {self.path}: " + "; ".join(differences))

    def differences(self, saved: dict[str, Any]) -> list[str]:
        given = self.fingerprint
        out = []
        if saved.get("format") != given["format"]:
            out.append(f"it has state format {saved.get('format')}, this ingot reads format {given['format']}")
        if saved.get("ingot") != given["ingot"]:
            out.append(f"it was written by ingot {saved.get('ingot')}, this is ingot {given['ingot']}")
        if saved.get("functions") != given["functions"]:
            was, now = set(saved.get("functions") or ()), set(given["functions"])
            parts = [f"{', '.join(sorted(now - was))} not explored then" if now - was else "",
                     f"{', '.join(sorted(was - now))} not selected now" if was - now else ""]
            out.append("the selected functions differ (" + "; ".join(p for p in parts if p) + ")")
        out.extend(_source_differences(saved.get("sources") or {}, given["sources"]))
        saved_options = saved.get("options") or {}
        for name, value in given["options"].items():
            if saved_options.get(name) != value:
                out.append(f"option {name} was {saved_options.get(name)!r}, now {value!r}")
        return out

    def finished(self) -> dict[str, dict[str, Any]]:
        """The results of the functions already finished (function -> `result.json`'s data)."""
        out = {}
        for name in self.fingerprint["functions"]:
            file = function_dir(self.path, name) / RESULT_FILE
            try:
                data = json.loads(file.read_text(encoding="utf-8"))
            except FileNotFoundError:
                continue
            except (OSError, ValueError) as e:
                raise StateError(f"cannot read {file}: {e}") from None
            if not isinstance(data, dict) or data.get("function") != name:
                raise StateError(f"{file} is damaged")
            out[name] = data
        return out


def function_dir(path: str | os.PathLike[str], function: str) -> Path:
    return Path(path) / FUNCTIONS_DIR / function


def function_state(path: str | os.PathLike[str], function: str, sources: Mapping[str, str]) -> StateDir:
    """The checkpoint of one function's exploration in the project state at `path` (created)."""
    state = StateDir(function_dir(path, function), sources)
    try:
        state.path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StateError(f"cannot create state directory {state.path}: {e.strerror}") from None
    return state


def save_result(path: str | os.PathLike[str], function: str, data: dict[str, Any]) -> None:
    """Record a function as finished, then drop its checkpoint (the result is all a resume needs)."""
    directory = function_dir(path, function)
    directory.mkdir(parents=True, exist_ok=True)
    write_atomically(directory / RESULT_FILE, json.dumps(data).encode())
    with contextlib.suppress(FileNotFoundError):
        (directory / STATE_FILE).unlink()


def write_atomically(file: Path, payload: bytes) -> None:
    try:
        write_atomic_bytes(file, payload, private=True, durable=True)
    except OSError as e:
        raise StateError(f"cannot write {file}: {e.strerror}") from None
