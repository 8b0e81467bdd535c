"""The symbolic map models (`ingot.stdlib.maps`) agree with the implementation.

A model is right when, for any input the path condition it recorded admits, the expressions it
returned evaluate to what the built-in computes on that input. The property test runs a random
sequence of map operations on a symbolic input map (the slots `InputBuilder.map` makes) under one
assignment, then takes another random assignment: if it satisfies every entry the run recorded,
the concrete operations on its map must give the values the recorded expressions give.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from ingot.cli import main
from ingot.stdlib import REGISTRY, maps
from ingot.symbolic.expr import Expr, Interner, Sort, evaluate
from ingot.symbolic.runtime import TrackerRuntime
from ingot.symbolic.shadow import Opt

SLOTS = 3
KEYS = st.sampled_from(["a", "b", "c"])
FRAME = SimpleNamespace(fn=SimpleNamespace(name="F", index=0), pc=1, ctx=0)


class Tracker(TrackerRuntime):
    """The tracker runtime alone (no VM): what a model may ask of it."""

    def equality(self, frame: Any, a: Any, b: Any, sa: Any, sb: Any) -> Expr | None:  # pragma: no cover
        raise AssertionError("map models do not compare values")


def symbolic_map(t: Tracker, env: dict[str, Any]) -> dict[str, int]:
    """The input map of `env` (as `InputBuilder.map` builds it): slots, then values' shadows."""
    x = t.x
    n = env["m.$len"]
    n_var = x.var("m.$len", Sort.INT)
    keys = tuple(x.var(f"m.$key[{i}]", Sort.STRING) for i in range(SLOTS))
    m = {env[f"m.$key[{i}]"]: env[f"m[{i}]"] for i in range(n)}
    for i in range(n):
        t.hset(m, ("k", env[f"m.$key[{i}]"]), x.var(f"m[{i}]", Sort.INT))
    t.hset(m, maps.SLOTS, maps.MapSlots(tuple(x.lt(x.const(i), n_var) for i in range(SLOTS)), keys,
                                        tuple(i < n for i in range(SLOTS)), n_var))
    return m


@st.composite
def assignments(draw: st.DrawFn) -> dict[str, Any]:
    keys = draw(st.lists(KEYS, min_size=SLOTS, max_size=SLOTS, unique=True))
    env: dict[str, Any] = {"m.$len": draw(st.integers(0, SLOTS)), "q": draw(KEYS)}
    for i in range(SLOTS):
        env[f"m.$key[{i}]"] = keys[i]
        env[f"m[{i}]"] = draw(st.integers(-3, 3))
    return env


OPS = st.lists(st.tuples(st.sampled_from(["has", "get", "read", "write", "set", "delete", "get_or_insert",
                                          "length", "keys", "values", "clear"]),
                         st.one_of(KEYS, st.just("$q")), st.integers(-3, 3)), max_size=6)


def run_ops(env: dict[str, Any], ops: list[tuple[str, str, int]], t: Tracker | None) -> list[Any]:
    """Run `ops`; with a tracker, return (concrete result, its expression or None) per op."""
    if t is None:
        m = {env[f"m.$key[{i}]"]: env[f"m[{i}]"] for i in range(env["m.$len"])}
    else:
        m = symbolic_map(t, env)
    out: list[Any] = []
    for name, key, value in ops:
        k = env["q"] if key == "$q" else key
        sk = t.x.var("q", Sort.STRING) if t is not None and key == "$q" else None
        if name == "read":
            if k not in m:
                out.append(("missing", None))
                continue
            if t is None:
                out.append((m[k], None))
            else:
                out.append((m[k], t.hget(m, ("k", k)) if maps.lookup(t, FRAME, m, k, sk) else None))
            continue
        if name == "write":
            if t is None:
                m[k] = value
            else:
                maps.store(t, FRAME, m, k, sk, lambda k=k, value=value: m.__setitem__(k, value))
                t.hset(m, ("k", k), None)
            out.append((None, None))
            continue
        spec = REGISTRY[f"map.{name}"]
        args: list[Any] = [m] + ([k] if name not in ("length", "keys", "values", "clear") else []) + \
            ([value] if name in ("set", "get_or_insert") else [])
        if t is None:
            out.append((spec.impl(*args), None))  # type: ignore[misc]
            continue
        shadows = [None, sk, None][: len(args)]
        result, shadow = spec.model(t, FRAME, spec.impl, args, shadows)  # type: ignore[misc]
        if name in ("keys", "values"):
            shadow = ([t.hget(result, i) for i in range(len(result))], t.hget(result, "$len"))
        out.append((list(result) if isinstance(result, list) else result, shadow))
    out.append((list(m.items()), None))
    return out


def agrees(shadow: Any, concrete: Any, expected: Any, env: dict[str, Any]) -> bool:
    """Do the recorded expression(s) give `expected` under `env`? (`concrete`: the tracked run's
    result, which is all a part without an expression stands for.) An optional's absent payload
    and a list's elements past the tracked run's length say nothing of their value."""
    if shadow is None:
        return concrete == expected
    if isinstance(shadow, Expr):
        return evaluate(shadow, env) == expected
    if isinstance(shadow, Opt):
        present = evaluate(shadow.present, env)
        if not present or shadow.payload is None:
            return present == (expected is not None) and (present or expected is None)
        return evaluate(shadow.payload, env) == expected
    elements, length = shadow
    if length is not None and evaluate(length, env) != len(expected):
        return False
    return all(s is None or evaluate(s, env) == e for s, e in zip(elements, expected))


@settings(max_examples=300, deadline=None)
@given(assignments(), assignments(), OPS)
def test_the_map_models_agree_with_the_implementation_on_every_input_their_path_admits(
        first: dict[str, Any], second: dict[str, Any], ops: list[tuple[str, str, int]]) -> None:
    t = Tracker(Interner(), None)
    tracked = run_ops(first, ops, t)
    path = t.trace.path
    assert all(evaluate(e.observed, first) is True for e in path), "the run's own input satisfies its path"
    # Under the run's own input the expressions give the concrete results.
    for concrete, shadow in tracked:
        assert agrees(shadow, concrete, concrete, first)
    if not all(evaluate(e.observed, second) is True for e in path):
        return
    # Another input the path admits: the same operations take the same course, and the
    # expressions predict its results.
    replay = run_ops(second, ops, None)
    assert len(replay) == len(tracked)
    for (concrete, shadow), (expected, _) in zip(tracked, replay):
        assert shadow is None or agrees(shadow, concrete, expected, second), (concrete, shadow, expected)


# One small program per operation: every edge needs the solver to choose keys (or the number of
# entries) of the input map; exploration must cover them all and find the MapKeyNotFound.
PROGRAMS = """
function Has(m: map<string, int>) -> string {
  if (m.has("alpha")) {
    if (m.has("beta")) { return "both"; }
    return "alpha";
  }
  "none"
}

function Get(m: map<string, int>, k: string) -> string {
  let v = m.get(k);
  if (v == null) { return "absent"; }
  if (v == 7) { return "seven"; }
  "other"
}

function Index(m: map<string, int>) -> int {
  let limit = m["limit"];
  if (limit > 100) { return 100; }
  limit
}

function Write(m: map<string, int>, k: string) -> int {
  m[k] = 1;
  if (m.length() == 3) { return 3; }
  if (m.has("seen")) { return 2; }
  0
}

function Keys(m: map<string, int>) -> int {
  let n = 0;
  for (let k in m.keys()) {
    if (k == "x") { n += 10; } else { n += 1; }
  }
  if (n == 12) { return 1; }
  0
}

function Values(m: map<string, int>) -> int {
  let total = 0;
  for (let v in m.values()) {
    total += v;
  }
  if (total == 30 && m.length() == 2) { return 1; }
  0
}

function Delete(m: map<string, int>) -> int {
  let old = m.delete("gone");
  if (old != null && m.length() == 1) { return 1; }
  if (old == null) { return 2; }
  0
}

function Insert(m: map<string, int>, k: string) -> int {
  let v = m.get_or_insert(k, 5);
  if (v == 9 && k == "nine") { return 1; }
  if (m.length() == 2) { return 2; }
  0
}
"""


@pytest.mark.parametrize("tracker", ["interp", "compiled"])
@pytest.mark.parametrize("function", ["Has", "Get", "Index", "Write", "Keys", "Values", "Delete", "Insert"])
def test_each_map_operation_is_explored_to_full_coverage(function: str, tracker: str, tmp_path: Path) -> None:
    source = tmp_path / "maps.baml"
    source.write_text(PROGRAMS)
    result = CliRunner().invoke(main, ["explore", str(source), function, "--json", "--tracker", tracker,
                                       "--max-runs", "300", "--seed", "0"], catch_exceptions=False)
    report = json.loads(result.stdout)
    assert report["coverage"]["uncovered"] == [], report["coverage"]
    if function == "Index":
        assert {f["kind"] for f in report["findings"]} == {"MapKeyNotFound"}
