"""Functions reached through a namespace: `baml.*`, `baml.sys.*`, `assert.*`.

`assert.*` failures are `AssertionFailed` panics with the engine's messages;
`baml.sys.panic` is a `UserPanic`; `baml.deep_copy` copies containers and
instances, keeping shared references shared (as the engine does).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ingot.runtime import ops
from ingot.runtime.errors import panic
from ingot.runtime.ops import eq
from ingot.runtime.render import render_value
from ingot.runtime.values import Instance
from ingot.semantics.types import ANY, BOOL, FLOAT, INT, NEVER, NULL, STRING
from ingot.stdlib.spec import Rows, T, Tracker, sig
from ingot.symbolic.shadow import Opt, Shadow

# ===================================================================== globals


def deep_copy(value: Any) -> Any:
    """`baml.deep_copy`: copies arrays, maps and instances; sharing and cycles survive."""
    t = type(value)
    if t is not list and t is not dict and t is not Instance:
        return value
    copies: dict[int, Any] = {}
    pending: list[Any] = []

    def shell(obj: Any) -> Any:
        k = type(obj)
        if k is list:
            new: Any = [None] * len(obj)
        elif k is dict:
            new = {}
        else:
            new = Instance(obj.cls, [None] * len(obj.fields))
        copies[id(obj)] = new
        pending.append(obj)
        return new

    def child(v: Any) -> Any:
        k = type(v)
        if k is not list and k is not dict and k is not Instance:
            return v
        got = copies.get(id(v))
        return got if got is not None else shell(v)

    root = shell(value)
    while pending:
        obj = pending.pop()
        new = copies[id(obj)]
        if type(obj) is list:
            for i, v in enumerate(obj):
                new[i] = child(v)
        elif type(obj) is dict:
            for k, v in obj.items():
                new[k] = child(v)
        else:
            fields = new.fields
            for i, v in enumerate(obj.fields):
                fields[i] = child(v)
    return root


def sys_panic(message: str) -> Any:
    raise panic("UserPanic", message=message)


def sys_exit(code: int) -> Any:
    raise panic("Exit", code=code)


def _assert_failed(message: str) -> Exception:
    return panic("AssertionFailed", message=f"assertion failed: {message}")


def assert_is_true(condition: bool) -> None:
    if not condition:
        raise _assert_failed("expected true")


def assert_not_null(value: Any) -> None:
    if value is None:
        raise _assert_failed("expected non-null value")


def _assert_operand(v: Any) -> str:
    return f'"{v}"' if type(v) is str else render_value(v)


def assert_equal(actual: Any, expected: Any) -> None:
    if not eq(actual, expected):
        raise _assert_failed(
            f"left = {_assert_operand(actual)}, right = {_assert_operand(expected)}"
        )


def assert_approx_equal(actual: float, expected: float, eps: float) -> None:
    if eps < 0.0 or eps != eps:
        raise _assert_failed("epsilon must be a non-negative number")
    delta = abs(actual - expected)
    if delta != delta or delta > eps:
        r = render_value
        raise _assert_failed(
            f'|left - right| = "{r(delta)}", eps = "{r(eps)}", '
            f'left = "{r(actual)}", right = "{r(expected)}"'
        )


def assert_contains(haystack: str, needle: str) -> None:
    if needle not in haystack:
        raise _assert_failed("string does not contain expected substring")


# ====================================================================== models


def _assert_equal(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
                  shadows: list[Shadow]) -> tuple[Any, Shadow]:
    if shadows[0] is not None or shadows[1] is not None:
        cond = t.equality(frame, args[0], args[1], shadows[0], shadows[1])
        if cond is not None:
            t.check(frame, "AssertionFailed", cond, ops.eq(args[0], args[1]))
    return fn(*args), None


def _assert_is_true(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
                    shadows: list[Shadow]) -> tuple[Any, Shadow]:
    cond = t.truthy(shadows[0], args[0])
    if cond is not None:
        t.check(frame, "AssertionFailed", cond, ops.truthy(args[0]))
    return fn(*args), None


def _assert_not_null(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
                     shadows: list[Shadow]) -> tuple[Any, Shadow]:
    s = shadows[0]
    if isinstance(s, Opt):
        t.check(frame, "AssertionFailed", s.present, args[0] is not None)
    return fn(*args), None


def _deep_copy(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
               shadows: list[Shadow]) -> tuple[Any, Shadow]:
    result = fn(*args)
    _copy_shadows(t, args[0], result, 0)
    return result, shadows[0]


def _copy_shadows(t: Tracker, src: Any, dst: Any, depth: int) -> None:
    """Give a deep copy the shadows of its original, element by element."""
    if depth > 64 or src is dst:
        return
    if isinstance(src, list) and isinstance(dst, list):
        t.hset(dst, "$len", t.hget(src, "$len"))
        for i, (a, b) in enumerate(zip(src, dst)):
            t.hset(dst, i, t.hget(src, i))
            _copy_shadows(t, a, b, depth + 1)
    elif isinstance(src, Instance) and isinstance(dst, Instance):
        for i, (a, b) in enumerate(zip(src.fields, dst.fields)):
            t.hset(dst, i, t.hget(src, i))
            _copy_shadows(t, a, b, depth + 1)
    elif isinstance(src, dict) and isinstance(dst, dict):
        t.hset(dst, "$slots", t.hget(src, "$slots"))  # the same keys in the same order
        for k in src:
            if k in dst:
                t.hset(dst, ("k", k), t.hget(src, ("k", k)))
                _copy_shadows(t, src[k], dst[k], depth + 1)


# ======================================================================== rows

baml_rows = Rows("baml")
sys_rows = Rows("baml.sys")
assert_rows = Rows("assert")
baml_rows.function("deep_copy", deep_copy, sig(T, ret=T), model=_deep_copy, deep_model=True)
sys_rows.function("panic", sys_panic, sig(STRING, ret=NEVER))
sys_rows.function("exit", sys_exit, sig(INT, ret=NEVER))
assert_rows.function("is_true", assert_is_true, sig(BOOL, ret=NULL), model=_assert_is_true)
assert_rows.function("not_null", assert_not_null, sig(ANY, ret=NULL), model=_assert_not_null)
assert_rows.function("equal", assert_equal, sig(ANY, ANY, ret=NULL), model=_assert_equal)
assert_rows.function("approx_equal", assert_approx_equal, sig(FLOAT, FLOAT, FLOAT, ret=NULL))
assert_rows.function("contains", assert_contains, sig(ANY, ANY, ret=NULL))

SPECS = tuple(baml_rows.specs + sys_rows.specs + assert_rows.specs)
