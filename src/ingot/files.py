"""Writing files users keep: whole or not at all, and never through a planted link.

A fixed temporary name beside the target (`out.json.tmp`) can be pre-created by
another user of a shared directory as a symlink to a file of the victim's;
writing through it clobbers that file. `write_atomic` creates its temporary
file with `O_CREAT | O_EXCL` under a random name (`tempfile.mkstemp`, which
also refuses to follow a link), syncs it, then renames it over the target, so
a reader sees the old file or the new one, and a failure leaves no partial file.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, text: str, encoding: str = "utf-8") -> None:
    """Replace `path` by an ordinary file holding `text`, atomically (same directory, rename)."""
    write_atomic_bytes(path, text.encode(encoding))


def write_atomic_bytes(path: Path, payload: bytes, *, private: bool = False, durable: bool = False) -> None:
    """Replace `path` by a file holding `payload`, atomically. `private` keeps mkstemp's 0600
    (saved search state); `durable` also syncs the directory, so the rename itself survives a
    crash (a checkpoint a resume relies on). An OSError leaves the old file and no temporary."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(payload)
            f.flush()
            os.fsync(f.fileno())
        if not private:
            os.chmod(tmp, 0o666 & ~umask())  # mkstemp makes 0600; a written report is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    """Make a rename in `path` durable (where directories can be opened)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def umask() -> int:
    """The process umask, read without changing it (`os.umask` would, for every thread)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    return 0o022
