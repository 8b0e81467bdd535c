"""Argument fuzzing: any payload reaches a function as its value or as an `ArgumentError`.

Hypothesis draws payloads shaped like JSON and like what Python callers pass by
mistake (tuples, sets, bytes, NaN, ints past 64 bits or past Python's 4,300-digit
conversion limit, lone surrogates, nesting thousands deep, mappings with non-string
keys), mostly near the parameter's type so they get past the first check. Each goes
through `Program.run` (a mapping or anything else) and `ingot run --args` (JSON text).
Allowed: a value, `ArgumentError` naming a path under `args`, a BAML error from the run;
on the command line, exit 0, 1 or 2 with a message and no traceback. The default run
draws `EXAMPLES` payloads per entry point; `-m slow` draws `INGOT_ARGUMENT_CASES` (10,000).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ingot
from ingot.cli import main
from ingot.convert import ArgumentError

EXAMPLES = 250
SLOW_EXAMPLES = int(os.environ.get("INGOT_ARGUMENT_CASES", "10000"))

SOURCE = """
enum Priority { LOW HIGH @alias("urgent") }
class Address { street string  zip string? }
class Ticket {
  id int
  title string
  tags string[]
  priority Priority
  address Address?
  scores map<string, float>
  kind "bug" | "feature"
}
type Reply = Ticket | string | int[]

function Echo(t: Ticket, note: string?, limit: int, ratio: float, on: bool, reply: Reply,
              by_priority: map<Priority, int>, nested: int[][], max_steps: int?) -> string {
  t.title + " " + t.tags.length().to_string()
}
"""

PROGRAM = ingot.load_source(SOURCE, filename="fuzz_args.baml")
PARAMS = ("t", "note", "limit", "ratio", "on", "reply", "by_priority", "nested", "max_steps")

ODD_STRINGS = st.sampled_from(["", "\ud800", "a\udfffb", "\x00", "é😀", "x" * 10_000, "LOW", "urgent", "HIGH",
                               "bug", "feature", "Priority.LOW"])
ODD_INTS = st.one_of(st.sampled_from([0, -1, 2**63 - 1, 2**63, -(2**63) - 1, 2**62]),
                    # past Python's int-to-str limit (made lazily: hypothesis prints its constants)
                    st.sampled_from([1, -1]).map(lambda sign: sign * 10**5000))
ODD_FLOATS = st.sampled_from([0.0, -0.0, math.nan, math.inf, -math.inf, 1e308, 5e-324])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), ODD_INTS, st.floats(), ODD_FLOATS, st.text(max_size=8),
                    ODD_STRINGS, st.binary(max_size=4))


def nested(depth: int, leaf: Any) -> Any:
    for _ in range(depth):
        leaf = [leaf]
    return leaf


def deep_dict(depth: int) -> Any:
    value: Any = {}
    for _ in range(depth):
        value = {"street": value}
    return value


JSONISH = st.recursive(SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner), st.frozensets(st.integers(), max_size=3),
    st.dictionaries(st.one_of(st.text(max_size=6), st.sampled_from(list(PARAMS) + ["id", "title", "tags",
                                                                                   "priority", "scores", "kind"])),
                    inner, max_size=5),
    st.dictionaries(st.one_of(st.integers(), st.none()), inner, max_size=2)), max_leaves=12)

I64 = st.integers(-(2**63), 2**63 - 1)
TEXT = st.text(max_size=6)
VALID_ADDRESS = st.fixed_dictionaries({"street": TEXT}, optional={"zip": st.one_of(st.none(), TEXT)})
VALID_TICKET = st.fixed_dictionaries(
    {"id": I64, "title": TEXT, "tags": st.lists(TEXT, max_size=3), "priority": st.sampled_from(["LOW", "HIGH"]),
     "kind": st.sampled_from(["bug", "feature"]),
     "scores": st.dictionaries(TEXT, st.floats(allow_nan=False, allow_infinity=False), max_size=3)},
    optional={"address": st.one_of(st.none(), VALID_ADDRESS)})
VALID = {"t": VALID_TICKET, "note": st.one_of(st.none(), TEXT), "limit": I64,
         "ratio": st.floats(allow_nan=False, allow_infinity=False), "on": st.booleans(),
         "reply": st.one_of(VALID_TICKET, TEXT, st.lists(I64, max_size=3)),
         "by_priority": st.dictionaries(st.sampled_from(["LOW", "HIGH"]), I64, max_size=2),
         "nested": st.lists(st.lists(I64, max_size=3), max_size=3), "max_steps": st.one_of(st.none(), I64)}
HOSTILE = st.one_of(SCALARS, JSONISH, st.integers(1, 3000).map(lambda d: nested(d, 1)),
                    st.integers(1, 3000).map(deep_dict))


@st.composite
def one_bad_value(draw: st.DrawFn) -> dict[str, Any]:
    """A valid payload with one parameter, one ticket field or one element made hostile: the
    error is deep inside a value, where its path matters."""
    payload = draw(st.fixed_dictionaries(VALID))
    where = draw(st.sampled_from(["param", "ticket", "reply", "element", "address", "drop"]))
    bad = draw(HOSTILE)
    if where == "param":
        payload[draw(st.sampled_from(PARAMS))] = bad
    elif where in ("ticket", "reply"):
        ticket = draw(VALID_TICKET)
        ticket[draw(st.sampled_from(sorted(ticket)))] = bad
        payload["t" if where == "ticket" else "reply"] = ticket
    elif where == "element":
        payload["nested"] = [[1, 2], [3, bad]] if draw(st.booleans()) else [[1], bad]
        payload["t"]["tags"] = ["a", bad]
    elif where == "address":
        payload["t"]["address"] = {"street": "s", "zip": bad}
    else:
        del payload[draw(st.sampled_from(PARAMS))]
    return payload


PAYLOADS = st.one_of(st.fixed_dictionaries(VALID), one_bad_value(), one_bad_value(), JSONISH,
                     st.integers(1, 5000).map(lambda d: nested(d, {})))


def call_outcome(payload: Any) -> None:
    try:
        PROGRAM.run("Echo", payload)
    except ArgumentError as e:
        assert e.path.startswith("args"), e.path
        assert str(e)
    except ingot.BamlError:
        pass


def cli_outcome(payload: Any, tmp_path: Path) -> None:
    try:
        text = json.dumps(payload, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        return  # not JSON: the command line cannot receive it
    source = tmp_path / "fuzz_args.baml"
    if not source.exists():
        source.write_text(SOURCE)
    result = CliRunner().invoke(main, ["run", str(source), "Echo", "--args", text])
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output[-2000:])
    assert "Traceback" not in result.output


COMMON = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large,
                                                      HealthCheck.function_scoped_fixture], "derandomize": True}


@settings(max_examples=EXAMPLES, **COMMON)
@given(payload=PAYLOADS)
def test_program_run_raises_only_argument_errors(payload: Any) -> None:
    call_outcome(payload)


@settings(max_examples=EXAMPLES // 5, **COMMON)
@given(payload=PAYLOADS)
def test_ingot_run_args_exits_cleanly(payload: Any, tmp_path: Path) -> None:
    cli_outcome(payload, tmp_path)


@pytest.mark.slow
@settings(max_examples=SLOW_EXAMPLES, **{**COMMON, "derandomize": False})
@given(payload=PAYLOADS)
def test_program_run_at_scale(payload: Any) -> None:
    call_outcome(payload)


@pytest.mark.slow
@settings(max_examples=SLOW_EXAMPLES // 10, **{**COMMON, "derandomize": False})
@given(payload=PAYLOADS)
def test_ingot_run_args_at_scale(payload: Any, tmp_path: Path) -> None:
    cli_outcome(payload, tmp_path)
