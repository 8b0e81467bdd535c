"""What one run may use: sizes of strings, arrays and maps, resident memory, wall clock.

Steps and call depth are the VM's own counters (`VM.tick`, `max_depth`). The limits here are
read where values grow, by the built-ins and operators that build them (string `+`,
templates, `repeat`, `join`, `push`, `concat`, map insertion, ...): one check per growing
operation, the same on every tier because every tier calls the same definitions.

A run's `Sizes` live in a context variable that `VM.call` sets for the call's duration, so
concurrent calls in several threads each see their own limits and nothing has to be passed
through the opcode and built-in signatures. Going past a size limit panics
`baml.panics.AllocFailure` *before* the value is built; the engine's class for "this
allocation would exhaust memory" (it aborts the process on the same programs).

The memory guard compares the process's resident set (read from `/proc/self/statm`, a
`pread` of a file kept open: about a microsecond) with a cap fixed when the call starts:
what the process held then plus `max_memory`. It is asked every `CHECK_EVERY` steps by the
VM and after every `MEMORY_CHECK_UNITS` characters or elements of large allocations, so
no run grows far past the cap between two checks. A caller that would rather stop the run
than panic (the explorer cuts it and goes on) gives `over_cap`, the exception to raise instead.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from ingot.runtime.errors import BamlRaise, panic

# The defaults of every entry point (`ingot run`, `ingot test`, `Program.call`; `ingot mcp` keeps
# its own, tighter step and time limits). README's "Limits" table lists them.
MAX_STEPS = 100_000_000  # loop iterations and calls: tens of seconds to minutes of pure looping
TIMEOUT_S = 600.0  # wall clock of one call, LLM and host calls included
MAX_MEMORY_MB = 2048  # resident memory a call may add to the process
MAX_STRING_LENGTH = 2**28  # characters (256 Mi): 60x the longest prompt any model reads
MAX_ARRAY_LENGTH = 2**24  # elements (16 Mi): 128 MiB of references alone
MAX_MAP_LENGTH = 2**22  # entries (4 Mi): about 400 MiB in a dict of short keys

CHECK_EVERY = 1024  # steps between two checks of the clock, the memory and a stop request
MEMORY_CHECK_UNITS = 2**24  # characters or elements of large allocations between memory checks
LARGE = 2**16  # an allocation from this size on counts towards MEMORY_CHECK_UNITS

_MB = 2**20


@dataclass(slots=True)
class Sizes:
    """One run's size limits (None: unlimited) and its memory cap in resident bytes."""

    string: int | None = MAX_STRING_LENGTH
    array: int | None = MAX_ARRAY_LENGTH
    map: int | None = MAX_MAP_LENGTH
    memory_cap: int | None = None  # resident bytes past which the run panics
    memory_mb: int | None = None  # the allowance the cap was computed from (for the message)
    pending: int = 0  # large-allocation units since the last memory check
    over_cap: Callable[[], BaseException] | None = None  # raised past the cap instead of the panic

    def check_memory(self) -> None:
        """Panic `AllocFailure` when the process holds more than the cap."""
        self.pending = 0
        if self.memory_cap is None:
            return
        rss = resident_bytes()
        if rss is not None and rss > self.memory_cap:
            if self.over_cap is not None:
                raise self.over_cap()
            start = (self.memory_cap - (self.memory_mb or 0) * _MB) // _MB
            raise panic("AllocFailure", message=f"out of memory: the process holds {rss // _MB} MiB, more than "
                        f"the {start} MiB it held when the call started plus the max_memory limit of "
                        f"{self.memory_mb} MiB")


DEFAULT_SIZES = Sizes()
_CURRENT: ContextVar[Sizes] = ContextVar("ingot_sizes", default=DEFAULT_SIZES)


def current() -> Sizes:
    """The running call's size limits (the defaults outside a call)."""
    return _CURRENT.get()


@contextmanager
def using(sizes: Sizes) -> Iterator[Sizes]:
    """Run the block with `sizes` as this context's limits."""
    token = _CURRENT.set(sizes)
    try:
        yield sizes
    finally:
        _CURRENT.reset(token)


def new_sizes(string: int | None = MAX_STRING_LENGTH, array: int | None = MAX_ARRAY_LENGTH,
              map: int | None = MAX_MAP_LENGTH, memory_mb: int | None = None) -> Sizes:
    """Limits for a call starting now: the memory cap is what the process holds plus `memory_mb`."""
    cap = None
    if memory_mb is not None:
        rss = resident_bytes()
        cap = None if rss is None else rss + memory_mb * _MB
    return Sizes(string, array, map, cap, memory_mb)


def _too_big(what: str, size: int, unit: str, limit: int, option: str) -> BamlRaise:
    return panic("AllocFailure", message=f"{what} of {size} {unit} exceeds the {option} limit of {limit}")


def _grown(s: Sizes, size: int) -> None:
    s.pending += size
    if s.pending >= MEMORY_CHECK_UNITS:
        s.check_memory()


def check_string(length: int) -> None:
    """Before building a string of `length` characters."""
    s = _CURRENT.get()
    if s.string is not None and length > s.string:
        raise _too_big("a string", length, "characters", s.string, "max_string_length")
    if length >= LARGE:
        _grown(s, length)


def check_array(length: int) -> None:
    """Before building or growing an array to `length` elements."""
    s = _CURRENT.get()
    if s.array is not None and length > s.array:
        raise _too_big("an array", length, "elements", s.array, "max_array_length")
    if length >= LARGE:
        _grown(s, length)


def check_map(length: int) -> None:
    """Before growing a map to `length` entries."""
    s = _CURRENT.get()
    if s.map is not None and length > s.map:
        raise _too_big("a map", length, "entries", s.map, "max_map_length")


def array_limit() -> int | None:
    return _CURRENT.get().array


def join_text(pieces: Iterable[str], separator: str = "") -> str:
    """`separator.join(pieces)`, checked against the string limit before it is built."""
    parts = pieces if isinstance(pieces, (list, tuple)) else list(pieces)
    total = sum(map(len, parts))
    if parts and separator:
        total += len(separator) * (len(parts) - 1)
    check_string(total)
    return separator.join(parts)


# ------------------------------------------------------------------------- resident memory

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_statm: tuple[int, int] | None = None  # (pid, fd): a forked child opens its own
_statm_lock = threading.Lock()


def resident_bytes() -> int | None:
    """The process's resident memory, or None where /proc is not available."""
    global _statm
    try:
        opened = _statm
        if opened is None or opened[0] != os.getpid():
            with _statm_lock:
                opened = _statm = (os.getpid(), os.open("/proc/self/statm", os.O_RDONLY))
        return int(os.pread(opened[1], 128, 0).split()[1]) * _PAGE
    except (OSError, ValueError, IndexError, AttributeError):
        return None


__all__ = ["Sizes", "current", "using", "new_sizes", "check_string", "check_array", "check_map", "join_text",
           "resident_bytes", "MAX_STEPS", "TIMEOUT_S", "MAX_MEMORY_MB", "MAX_STRING_LENGTH", "MAX_ARRAY_LENGTH",
           "MAX_MAP_LENGTH", "CHECK_EVERY"]
