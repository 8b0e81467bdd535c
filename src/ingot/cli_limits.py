"""The limits of a run as command-line options, shared by `ingot run` and `ingot test`, and the
`Seconds` type every `--timeout` takes."""

from __future__ import annotations

import math
from typing import Any

import click

from ingot.runtime import limits


class Seconds(click.FloatRange):
    """A finite number of seconds in a range: NaN compares false with any bound, so a range
    alone lets `--timeout nan` (and `inf`) through to the code that counts down from it."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        seconds = super().convert(value, param, ctx)
        if not math.isfinite(seconds):
            self.fail(f"{value!r} is not a finite number of seconds.", param, ctx)
        return seconds


def limit_options(command: Any) -> Any:
    """The limits of a run (README, "Limits"), as options; 0 lifts a limit."""
    specs = [
        ("--max-steps", limits.MAX_STEPS, int, "Budget of loop iterations and calls (InstructionLimit)."),
        ("--timeout", limits.TIMEOUT_S, float, "Seconds of wall clock per run (Cancelled)."),
        ("--max-memory", limits.MAX_MEMORY_MB, int, "MiB of resident memory a run may add to the process "
                                                   "(AllocFailure)."),
        ("--max-string-length", limits.MAX_STRING_LENGTH, int, "Longest string, in characters (AllocFailure)."),
        ("--max-array-length", limits.MAX_ARRAY_LENGTH, int, "Longest array, in elements (AllocFailure)."),
        ("--max-map-length", limits.MAX_MAP_LENGTH, int, "Largest map, in entries (AllocFailure)."),
    ]
    for flag, default, kind, text in reversed(specs):
        command = click.option(flag, type=Seconds(min=0) if kind is float else click.IntRange(min=0),
                               default=default, show_default=True, help=text + " 0: no limit.")(command)
    return click.option("--max-depth", default=20_000, show_default=True, type=click.IntRange(min=1),
                        help="Maximum BAML call depth (StackOverflow).")(command)


def call_options(values: dict[str, Any]) -> dict[str, Any]:
    """The `CallOptions` of the `limit_options` values a command received (removed from `values`)."""
    names = ("max_depth", "max_steps", "timeout", "max_memory", "max_string_length", "max_array_length",
             "max_map_length")
    return {n: values.pop(n) if n == "max_depth" else values.pop(n) or None for n in names}
