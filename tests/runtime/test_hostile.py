"""Hostile programs end within their limits, with a clear BAML panic and bounded memory.

Each program runs through `ingot run` in a child process (exit status, message and the
child's peak resident memory checked) and through `Program.call` on both tiers. Where the
defaults take long to reach (100M steps, a 4Mi-entry map), the run lowers one limit; the
defaults themselves are run by the slow suite.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import ingot
from ingot.bex.compiled import CompiledVM
from ingot.bex.vm import CAUGHT_KEPT, TRACE_HEAD, TRACE_TAIL, VM
from ingot.runtime import limits

ROOT = Path(__file__).resolve().parents[2]

HOSTILE = """
function Forever() -> int {
  let i = 0;
  while (true) { i += 1; }
  i
}

function DoubleString() -> int {
  let s = "x";
  while (true) { s = s + s; }
  s.length()
}

function DoubleTemplate() -> int {
  let s = "x";
  while (true) { s = `${s}${s}`; }
  s.length()
}

function DoubleArray() -> int {
  let xs = [1];
  while (true) { xs = xs.concat(xs); }
  xs.length()
}

function PushForever() -> int {
  let xs: int[] = [];
  let i = 0;
  while (true) { xs.push(i); i += 1; }
  xs.length()
}

function HugeRepeat() -> int {
  "x".repeat(4611686018427387903).length()
}

function Deep(n: int) -> int {
  Deep(n + 1) + 1
}

function Recurse(n: int) -> int {
  Recurse(n + 1) catch (e) { baml.panics.StackOverflow => Recurse(n + 1) }
}

function HugeMap() -> int {
  let m: map<string, int> = {};
  let i = 0;
  while (true) { m[i.to_string()] = i; i += 1; }
  m.length()
}

function ManyStrings() -> int {
  let xs: string[] = [];
  let s = "y".repeat(1000000);
  while (true) { xs.push(s + "z"); }
  xs.length()
}

function JoinedCopies() -> int {
  let s = "y".repeat(10000000);
  [s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s].join(",").length()
}
"""

MiB = 2**20


# Runs `ingot run` and reports the child's peak resident memory (VmHWM: its own address space's,
# unlike ru_maxrss, which inherits the forking parent's size) on the last line of stderr.
CHILD = """
import atexit, sys
def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            sys.stderr.write("\\n" + line)
atexit.register(peak)
from ingot.cli import entry
sys.argv[0] = "ingot"
entry()
"""


def run_cli(tmp_path: Path, function: str, *options: str, args: str = "{}") -> tuple[int, str, int, float]:
    """`ingot run` in a child: (exit status, stderr, peak resident bytes of the child, seconds)."""
    source = tmp_path / "hostile.baml"
    source.write_text(HOSTILE, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", CHILD, "run", str(source), function, "--args", args, *options],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True, timeout=600)
    seconds = time.monotonic() - started
    err, _, peak = proc.stderr.rstrip().rpartition("\n")
    assert peak.startswith("VmHWM:") and peak.endswith("kB"), proc.stderr[-2000:]
    return proc.returncode, err, int(peak.split()[1]) * 1024, seconds


def last_line(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


# ------------------------------------------------------------------------------ ingot run

@pytest.mark.parametrize(("function", "message"), [
    ("DoubleString", "a string of 536870912 characters exceeds the max_string_length limit of 268435456"),
    ("DoubleTemplate", "a string of 536870912 characters exceeds the max_string_length limit of 268435456"),
    ("DoubleArray", "an array of 33554432 elements exceeds the max_array_length limit of 16777216"),
    ("HugeRepeat", "a string of 4611686018427387903 characters exceeds the max_string_length limit of 268435456"),
])
def test_growing_values_stop_at_the_default_size_limits(tmp_path: Path, function: str, message: str) -> None:
    code, err, rss, _ = run_cli(tmp_path, function)
    assert code == 1
    assert last_line(err) == f"baml.panics.AllocFailure: {message}"
    assert rss < 1024 * MiB  # a 256 Mi-character string at most, and the one it was doubled from


def test_an_endless_loop_stops_at_the_step_limit(tmp_path: Path) -> None:
    code, err, rss, _ = run_cli(tmp_path, "Forever", "--max-steps", "300000")
    assert code == 1
    assert last_line(err) == "baml.panics.InstructionLimit: instruction budget of 300000 exceeded (max_steps)"
    assert rss < 200 * MiB


def test_an_endless_loop_stops_at_the_time_limit(tmp_path: Path) -> None:
    code, err, _, seconds = run_cli(tmp_path, "Forever", "--max-steps", "0", "--timeout", "1")
    assert code == 1
    assert last_line(err) == "baml.panics.Cancelled: time limit of 1 s exceeded (timeout)"
    assert seconds < 60


def test_deep_recursion_is_a_stack_overflow_with_a_bounded_trace(tmp_path: Path) -> None:
    code, err, rss, _ = run_cli(tmp_path, "Deep", args='{"n": 0}')
    assert code == 1
    lines = err.strip().splitlines()
    assert lines[-1] == "baml.panics.StackOverflow: stack overflow"
    assert len(lines) == 1 + TRACE_HEAD + 1 + TRACE_TAIL + 1
    assert lines[1 + TRACE_HEAD].strip() == f"... {20_000 - TRACE_HEAD - TRACE_TAIL} frames omitted ..."
    assert rss < 300 * MiB


def test_catching_stack_overflow_and_recursing_again_ends_within_the_step_limit(tmp_path: Path) -> None:
    code, err, rss, _ = run_cli(tmp_path, "Recurse", "--max-steps", "300000", args='{"n": 0}')
    assert code == 1
    assert last_line(err) == "baml.panics.InstructionLimit: instruction budget of 300000 exceeded (max_steps)"
    assert rss < 300 * MiB


def test_a_growing_map_stops_at_the_map_limit(tmp_path: Path) -> None:
    code, err, rss, _ = run_cli(tmp_path, "HugeMap", "--max-map-length", "50000")
    assert code == 1
    assert last_line(err) == "baml.panics.AllocFailure: a map of 50001 entries exceeds the max_map_length limit of 50000"
    assert rss < 300 * MiB


def test_many_values_under_the_size_limits_stop_at_the_memory_limit(tmp_path: Path) -> None:
    code, err, rss, _ = run_cli(tmp_path, "ManyStrings", "--max-memory", "150")
    assert code == 1
    assert last_line(err).startswith("baml.panics.AllocFailure: out of memory: the process holds ")
    assert "plus the max_memory limit of 150 MiB" in last_line(err)
    assert rss < 600 * MiB


@pytest.mark.slow
@pytest.mark.parametrize(("function", "kind"), [
    ("Forever", "InstructionLimit"), ("PushForever", "AllocFailure"), ("HugeMap", "AllocFailure"),
    ("ManyStrings", "AllocFailure"),
])
def test_hostile_programs_end_under_the_defaults(tmp_path: Path, function: str, kind: str) -> None:
    code, err, rss, _ = run_cli(tmp_path, function)
    assert code == 1
    assert last_line(err).startswith(f"baml.panics.{kind}: ")
    assert rss < (limits.MAX_MEMORY_MB + 512) * MiB


# ------------------------------------------------------------------------------ Program.call

@pytest.fixture(scope="module")
def program() -> ingot.Program:
    return ingot.load_source(HOSTILE, "hostile.baml")


def outcome(program: ingot.Program, tier: str, function: str, **options: Any) -> tuple[str, str]:
    args = {"n": 0} if function in ("Deep", "Recurse") else {}
    with pytest.raises(ingot.BamlError) as e:
        program.options(tier=tier, **options).run(function, args)
    return e.value.kind, e.value.message


SMALL = {"max_string_length": 4096, "max_array_length": 1000, "max_map_length": 500}


@pytest.mark.parametrize("tier", ["compiled", "interp"])
@pytest.mark.parametrize(("function", "options", "expected"), [
    ("Forever", {"max_steps": 5000}, ("InstructionLimit", "instruction budget of 5000 exceeded (max_steps)")),
    ("DoubleString", SMALL, ("AllocFailure", "a string of 8192 characters exceeds the max_string_length limit of 4096")),
    ("DoubleTemplate", SMALL, ("AllocFailure", "a string of 8192 characters exceeds the max_string_length limit of 4096")),
    ("DoubleArray", SMALL, ("AllocFailure", "an array of 1024 elements exceeds the max_array_length limit of 1000")),
    ("PushForever", SMALL, ("AllocFailure", "an array of 1001 elements exceeds the max_array_length limit of 1000")),
    ("HugeRepeat", {}, ("AllocFailure",
                        "a string of 4611686018427387903 characters exceeds the max_string_length limit of 268435456")),
    ("HugeMap", SMALL, ("AllocFailure", "a map of 501 entries exceeds the max_map_length limit of 500")),
    ("JoinedCopies", {}, ("AllocFailure", "a string of 280000027 characters exceeds the max_string_length limit of "
                                          "268435456")),
    ("Deep", {"max_depth": 300}, ("StackOverflow", "stack overflow")),
    ("Recurse", {"max_depth": 300, "max_steps": 100_000},
     ("InstructionLimit", "instruction budget of 100000 exceeded (max_steps)")),
])
def test_program_call_stops_hostile_programs_alike_on_both_tiers(program: ingot.Program, tier: str, function: str,
                                                                 options: dict[str, Any],
                                                                 expected: tuple[str, str]) -> None:
    assert outcome(program, tier, function, **options) == expected


@pytest.mark.parametrize("tier", ["compiled", "interp"])
def test_the_time_limit_and_a_stop_request_end_a_call(program: ingot.Program, tier: str) -> None:
    kind, message = outcome(program, tier, "Forever", max_steps=None, timeout=0.2)
    assert (kind, message) == ("Cancelled", "time limit of 0.2 s exceeded (timeout)")
    assert outcome(program, tier, "Forever", max_steps=None, stop=lambda: "enough") == ("Cancelled", "enough")


def test_options_lift_a_limit(program: ingot.Program) -> None:
    source = 'function Big() -> int { "ab".repeat(3000).length() }'
    assert ingot.load_source(source).options(max_string_length=None).call("Big") == 6000
    with pytest.raises(ingot.BamlError) as e:
        ingot.load_source(source).options(max_string_length=5999).call("Big")
    assert e.value.kind == "AllocFailure"


@pytest.mark.parametrize("cls", [CompiledVM, VM])
def test_caught_panics_keep_bounded_traces_and_memory(cls: type[VM]) -> None:
    source = """
function Down(n: int) -> int {
  if (n == 0) { return 1 / n; }
  Down(n - 1)
}
function CatchMany(times: int) -> int {
  let caught = 0;
  let i = 0;
  while (i < times) {
    caught += Down(200) catch (e) { baml.panics.DivisionByZero => 1 };
    i += 1;
  }
  caught
}
"""
    program = ingot.load_source(source)
    vm = cls(program.bex, max_steps=10_000_000)
    assert vm.call(program.function("CatchMany"), [400]) == 400
    assert len(vm.caught) <= CAUGHT_KEPT
    traces = [raised.trace for raised in vm.caught.values()]
    assert all(len(t) == TRACE_HEAD + 1 + TRACE_TAIL for t in traces)
    assert all(t[TRACE_HEAD].omitted == 202 - TRACE_HEAD - TRACE_TAIL for t in traces)
    # each caught trace was charged as steps: 400 catches of 202 frames, besides the 201 calls each
    assert vm.steps >= 400 * (202 + 201)
