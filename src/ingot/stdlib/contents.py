"""A container's symbolic contents, when a built-in no model follows reads or changes them.

The shadows of what a container holds live in the tracker's heap, under the container: a
list's elements under their index and its length under `"$len"`, an instance's fields under
their index, a map's values under `("k", key)` and its keys in its slots (`maps`). A built-in
gets the container itself, whose own shadow is None. Unless its contents are fixed first, the
built-in's result depends on the inputs with no entry on the path saying so, and a query can
then be unsat for a feasible path: `[a].join(",") == a` would be recorded as `"" == a` on a run
where `a` is empty, and `a == "x"` behind it claimed infeasible.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ingot.runtime.values import Instance
from ingot.stdlib import maps
from ingot.stdlib.spec import Tracker
from ingot.symbolic.shadow import Shadow

_CONTAINERS = (list, dict, Instance)


def fix(t: Tracker, frame: Any, value: Any) -> None:
    """Fix every symbolic scalar `value` holds, at any depth, and every symbolic size in it
    (CONCRETIZE entries, which keep the path condition sound and can be negated)."""
    seen: set[int] = set()
    stack = [value]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        for key, item in _slots(t, frame, v):
            t.concretize(frame, t.hget(v, key), item)
            if isinstance(item, _CONTAINERS):
                stack.append(item)


def _slots(t: Tracker, frame: Any, v: Any) -> list[tuple[Any, Any]]:
    """The heap keys of what `v` holds, with the values held (its size fixed first)."""
    if isinstance(v, list):
        t.concretize(frame, t.hget(v, "$len"), len(v))
        return list(enumerate(v))
    if isinstance(v, dict):
        maps.settle(t, frame, v)
        return [(("k", k), item) for k, item in v.items()]
    if isinstance(v, Instance):
        return list(enumerate(v.fields))
    return []


def forget(t: Tracker, frame: Any, container: Any) -> None:
    """A container changed in a way no model follows: fix its length, drop element shadows."""
    if isinstance(container, list):
        t.concretize(frame, t.hget(container, "$len"), len(container))
        t.hset(container, "$len", None)
        for i in range(len(container) + 1):
            t.hset(container, i, None)
    elif isinstance(container, dict):
        maps.forget(t, frame, container)


def fix_arguments(t: Tracker, frame: Any, args: list[Any], shadows: list[Shadow]) -> None:
    """Fix the arguments of a built-in no model follows, and everything they hold."""
    for a, sh in zip(args, shadows):
        t.concretize(frame, sh, a)
        fix(t, frame, a)


def rendered(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
             shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """The model of a built-in that renders its arguments (`to_string`): the text is not
    followed, everything it was rendered from is fixed. A row with `deep_model` set, so the
    compiled tracker calls it for a container holding shadows only below its first level."""
    fix_arguments(t, frame, args, shadows)
    return fn(*args), None
