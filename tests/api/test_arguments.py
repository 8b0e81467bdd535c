"""Arguments crossing into BAML: BAML arguments only through `call`, options through their own
channel, and every invalid payload an `ArgumentError` naming the value's full path."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ingot
from ingot.cli import main

SOURCE = """
enum Mode {
  FAST
  SLOW
}

class Tag {
  name string
  weight float?
}

class Job {
  id int
  tags Tag[]?
  mode Mode
  labels map<string, int[]>
  kind "batch" | "stream"
  parent Job?
}

type Json = int | string | bool | null | Json[] | map<string, Json>

function Check(job: Job, extra: Json, pick: int | string[] | Tag, max_steps: int, llm: string?) -> int {
  max_steps + 1
}

function Spin(n: int) -> int {
  let i = 0;
  while (true) { i += 1; }
  i
}
"""

JOB = {"id": 1, "tags": [{"name": "a", "weight": 0.5}], "mode": "FAST", "labels": {"x": [1, 2]}, "kind": "batch",
       "parent": None}
GOOD = {"job": JOB, "extra": {"a": [1, "b", None]}, "pick": 3, "max_steps": 41}


@pytest.fixture(scope="module")
def program() -> ingot.Program:
    return ingot.load_source(SOURCE)


def error(program: ingot.Program, args: Any) -> str:
    with pytest.raises(ingot.ArgumentError) as info:
        program.run("Check", args)
    return str(info.value)


def test_a_parameter_of_any_name_is_an_argument_and_options_go_separately(program: ingot.Program) -> None:
    assert program.call("Check", **GOOD) == 42  # `max_steps` and `llm` are BAML parameters here
    assert program.call("Check", **GOOD, llm="x") == 42
    assert program.options(max_steps=10_000, tier="interp").call("Check", **GOOD) == 42
    assert program.run("Check", GOOD, options=ingot.CallOptions(max_steps=10_000)) == 42
    with pytest.raises(ingot.BamlError):
        program.options(max_steps=1000).call("Spin", n=1)
    with pytest.raises(ingot.ArgumentError, match=r"args.tier: Check has no parameter `tier` \(tier is a call option"):
        program.call("Check", **GOOD, tier="interp")
    with pytest.raises(TypeError, match="unknown call option 'steps'"):
        program.options(steps=3)


def test_optional_parameters_may_be_left_out(program: ingot.Program) -> None:
    assert program.run("Check", GOOD) == 42  # llm: string? is null
    assert "args.pick: missing required argument" in error(program, {k: v for k, v in GOOD.items() if k != "pick"})


@pytest.mark.parametrize(("args", "message"), [
    ({**GOOD, "job": {**JOB, "tags": [{"name": "a"}, {"name": 1}]}}, "args.job.tags[1].name: expected string, got 1"),
    ({**GOOD, "job": {**JOB, "parent": {**JOB, "mode": "MEDIUM"}}}, "args.job.parent.mode: expected one of FAST, SLOW"),
    ({**GOOD, "job": {**JOB, "labels": {"x": [1, "2"]}}}, 'args.job.labels.x[1]: expected int, got "2"'),
    ({**GOOD, "job": {**JOB, "labels": {"a b": [True]}}}, 'args.job.labels["a b"][0]: expected int, got true'),
    ({**GOOD, "pick": {"name": "t", "weight": "heavy"}}, 'args.pick.weight: expected float | null, got "heavy"'),
    ({**GOOD, "pick": ["a", 2]}, "args.pick[1]: expected string, got 2"),
    ({**GOOD, "extra": {"k": [1, 2.5]}}, "args.extra.k[1]"),
    ({**GOOD, "max_steps": 2**63}, "args.max_steps: 9223372036854775808 is outside the BAML int range"),
    ({**GOOD, "max_steps": 10**5000}, "args.max_steps: <int of 16610 bits> is outside the BAML int range"),
    ({**GOOD, "job": {**JOB, "tags": [{"name": "a", "weight": 10**400}]}}, "args.job.tags[0].weight: <int of 1329 bits> is too large for a float"),
    ({**GOOD, "llm": "ok\ud800"}, "args.llm: a string holds a lone surrogate U+D800 at index 2"),
    ({**GOOD, "job": {**JOB, "labels": {"\udfff": []}}}, "a string holds a lone surrogate U+DFFF"),
    ({**GOOD, 7: 1}, "args[7]: parameter names are strings"),
    ({**GOOD, "job": {**JOB, 7: 1}}, "args.job[7]: class Job has no field `7`"),
    ([1, 2], "args: expected a mapping of parameter names to values, got [1, 2]"),
    ("job", 'args: expected a mapping of parameter names to values, got "job"'),
])
def test_invalid_payloads_name_the_full_path(program: ingot.Program, args: Any, message: str) -> None:
    assert message in error(program, args)


def test_deep_nesting_is_an_argument_error_not_a_recursion_error(program: ingot.Program) -> None:
    deep: list[Any] = []
    cursor = deep
    for _ in range(100_000):
        cursor.append([])
        cursor = cursor[0]
    assert "nests more than 64 levels deep" in error(program, {**GOOD, "extra": deep})
    assert "args.pick" in error(program, {**GOOD, "pick": deep})
    parent: dict[str, Any] = dict(JOB)
    for _ in range(5_000):
        parent = {**JOB, "parent": parent}
    assert "nests more than 64 levels deep" in error(program, {**GOOD, "job": parent})


def test_the_command_line_rejects_a_lone_surrogate_with_exit_2(tmp_path: Any) -> None:
    src = tmp_path / "f.baml"
    src.write_text("function F(s: string) -> int {\n  s.length()\n}\n")
    result = CliRunner().invoke(main, ["run", str(src), "F", "--args", '{"s": "a\\ud800"}'], catch_exceptions=False)
    assert result.exit_code == 2 and "args.s: a string holds a lone surrogate U+D800" in result.stderr
    result = CliRunner().invoke(main, ["run", str(src), "F", "--args", '{"s": "a\\u00e9"}'], catch_exceptions=False)
    assert result.exit_code == 0 and result.stdout == "2\n"


# -- hostile payloads, generated ------------------------------------------------------------------------

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=2**62, max_value=2**4000),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4),
    st.text(alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=2),
    st.sampled_from(["FAST", "SLOW", "batch", "stream", "a", ""]), st.binary(max_size=2),
    st.builds(object), st.just(math.nan),
)
keys = st.one_of(st.sampled_from(list(JOB) + list(GOOD) + ["name", "weight", "x"]), st.text(max_size=3),
                 st.integers(), st.none(), st.tuples(st.integers()))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner), st.dictionaries(keys, inner, max_size=4),
    st.frozensets(st.integers(), max_size=2)), max_leaves=20)


def mutate(draw: Any, value: Any, depth: int = 0) -> Any:
    """A valid payload with one hostile value swapped in somewhere along a random path."""
    if depth > 6 or draw(st.integers(0, 3)) == 0:
        return draw(values)
    if isinstance(value, dict) and value:
        key = draw(st.sampled_from(sorted(value, key=str)))
        return {**value, key: mutate(draw, value[key], depth + 1)}
    if isinstance(value, list) and value:
        i = draw(st.integers(0, len(value) - 1))
        return [*value[:i], mutate(draw, value[i], depth + 1), *value[i + 1:]]
    return draw(values)


@st.composite
def payloads(draw: Any) -> Any:
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(values)  # anything at all, maybe not a mapping
    if choice == 1:
        return draw(st.dictionaries(keys, values, max_size=6))
    return mutate(draw, GOOD)


def only_argument_errors(program: ingot.Program, args: Any) -> None:
    try:
        result = program.run("Check", args)
    except ingot.ArgumentError as e:
        str(e)  # the message renders
        assert e.path.startswith("args")
        return
    assert result == args["max_steps"] + 1
    json.dumps(args["job"], allow_nan=True)  # what was accepted is plain data


@settings(max_examples=120, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(payloads())
def test_only_argument_error_ever_escapes(program: ingot.Program, args: Any) -> None:
    only_argument_errors(program, args)


@pytest.mark.slow
@settings(max_examples=10_000, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(payloads())
def test_only_argument_error_ever_escapes_10k(program: ingot.Program, args: Any) -> None:
    only_argument_errors(program, args)
