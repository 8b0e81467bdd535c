"""Symbolic models of built-in functions, one row per built-in the tracker understands.

A model receives the concrete built-in, the arguments and their shadows,
calls the built-in (so concrete semantics stay the runtime's own) and
returns the result with its shadow. A built-in without a model concretizes
its symbolic arguments (CONCRETIZE entries keep the path condition sound) and
returns a concrete result; if it mutates a container, the container's element
shadows are dropped after fixing its symbolic length.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ingot.runtime.builtins import MUTATES
from ingot.runtime.values import INT_MIN, Instance
from ingot.symbolic.expr import Expr, Op, Sort, caseless_value
from ingot.symbolic.shadow import Opt, Shadow

if TYPE_CHECKING:
    from ingot.symbolic.tracker import Frame, TrackedVM

Model = Callable[["TrackedVM", "Frame", Callable[..., Any], list[Any], list[Shadow]], tuple[Any, Shadow]]


def call(t: TrackedVM, frame: Frame, key: str, fn: Callable[..., Any], args: list[Any],
         shadows: list[Shadow]) -> tuple[Any, Shadow]:
    model = MODELS.get(key)
    if model is not None:
        return model(t, frame, fn, args, shadows)
    for a, s in zip(args, shadows):
        t.concretize(frame, s, a)
    if key in MUTATES and args:
        forget_contents(t, frame, args[0])
    return fn(*args), None


def forget_contents(t: TrackedVM, frame: Frame, container: Any) -> None:
    """A container changed in a way no model follows: fix its length, drop element shadows."""
    if isinstance(container, list):
        t.concretize(frame, t.hget(container, "$len"), len(container))
        t.hset(container, "$len", None)
        for i in range(len(container) + 1):
            t.hset(container, i, None)
    elif isinstance(container, dict):
        for k in list(container):
            t.hset(container, ("k", k), None)


def _str_unary(build: Callable[[TrackedVM, Expr], Expr]) -> Model:
    def model(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
        result = fn(*args)
        e = t.scalar(shadows[0], args[0])
        return result, (build(t, e) if e is not None else None)
    return model


def _str_pred(op: Op) -> Model:
    def model(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
        result = fn(*args)
        if shadows[0] is None and shadows[1] is None:
            return result, None
        s, part = t.lift(shadows[0], args[0]), t.lift(shadows[1], args[1])
        if s is None or part is None:
            return result, None
        return result, t.x.str_pred(op, s, part)
    return model


def _concat(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
            shadows: list[Shadow]) -> tuple[Any, Shadow]:
    result = fn(*args)
    a, b = t.lift(shadows[0], args[0]), t.lift(shadows[1], args[1])
    if a is None or b is None or (shadows[0] is None and shadows[1] is None):
        return result, None
    return result, t.x.concat(a, b)


def _identity(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
    result = fn(*args)
    e = t.scalar(shadows[0], args[0])
    return result, (e if e is not None and e.sort is Sort.STRING and isinstance(result, str) else None)


def _case_change(case: str) -> Model:
    """`s.to_lower_case()`: on a string without upper-case letters it is `s` itself.

    The run assumes so (a CONCRETIZE-kind entry the explorer may negate); a string
    that has such letters is fixed to its value instead.
    """
    def model(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
        result = fn(*args)
        e = t.scalar(shadows[0], args[0])
        if e is None:
            return result, None
        x = t.x
        stable = x.caseless(e, case)
        if result != args[0] or not caseless_value(args[0], case):
            t.concretize(frame, shadows[0], args[0])
            return result, None
        t.assume(frame, stable)
        return result, e
    return model


def _trim(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
          shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """`s.trim()`: on a string without surrounding whitespace it is `s` itself (assumed, as above)."""
    result = fn(*args)
    e = t.scalar(shadows[0], args[0])
    if e is None:
        return result, None
    if result != args[0]:
        t.concretize(frame, shadows[0], args[0])
        return result, None
    x = t.x
    edges = []
    for ws in (" ", "\t", "\n", "\r"):
        edges.append(x.not_(x.str_pred(Op.PREFIX, e, x.const(ws))))
        edges.append(x.not_(x.str_pred(Op.SUFFIX, e, x.const(ws))))
    t.assume(frame, x.and_(*edges))
    return result, e


def _array_length(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
                  shadows: list[Shadow]) -> tuple[Any, Shadow]:
    return fn(*args), t.hget(args[0], "$len")


def _array_is_empty(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
                    shadows: list[Shadow]) -> tuple[Any, Shadow]:
    n = t.hget(args[0], "$len")
    return fn(*args), (t.x.eq(n, t.x.const(0)) if isinstance(n, Expr) else None)


def _array_push(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
                shadows: list[Shadow]) -> tuple[Any, Shadow]:
    xs = args[0]
    index = len(xs)
    n = t.hget(xs, "$len")
    result = fn(*args)
    t.hset(xs, index, shadows[1])
    if isinstance(n, Expr):
        grown = t.x.arith(Op.ADD, n, t.x.const(1))
        t.hset(xs, "$len", grown)
        return result, grown
    return result, None


def _int_abs(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
             shadows: list[Shadow]) -> tuple[Any, Shadow]:
    e = t.scalar(shadows[0], args[0])
    if e is None:
        return fn(*args), None
    x = t.x
    t.check(frame, "IntegerOverflow", x.not_(x.eq(e, x.const(INT_MIN))), args[0] != INT_MIN)
    result = fn(*args)
    return result, x.ite(x.lt(e, x.const(0)), x.neg(e), e)


def _assert_equal(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
                  shadows: list[Shadow]) -> tuple[Any, Shadow]:
    if shadows[0] is not None or shadows[1] is not None:
        cond = t.equality(frame, args[0], args[1], shadows[0], shadows[1])
        if cond is not None:
            from ingot.runtime import ops

            t.check(frame, "AssertionFailed", cond, ops.eq(args[0], args[1]))
    return fn(*args), None


def _assert_is_true(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
                    shadows: list[Shadow]) -> tuple[Any, Shadow]:
    cond = t.truthy(shadows[0], args[0])
    if cond is not None:
        from ingot.runtime import ops

        t.check(frame, "AssertionFailed", cond, ops.truthy(args[0]))
    return fn(*args), None


def _assert_not_null(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
                     shadows: list[Shadow]) -> tuple[Any, Shadow]:
    s = shadows[0]
    if isinstance(s, Opt):
        t.check(frame, "AssertionFailed", s.present, args[0] is not None)
    return fn(*args), None


def _deep_copy(t: TrackedVM, frame: Frame, fn: Callable[..., Any], args: list[Any],
               shadows: list[Shadow]) -> tuple[Any, Shadow]:
    result = fn(*args)
    copy_shadows(t, args[0], result, 0)
    return result, shadows[0]


def copy_shadows(t: TrackedVM, src: Any, dst: Any, depth: int) -> None:
    """Give a deep copy the shadows of its original, element by element."""
    if depth > 64 or src is dst:
        return
    if isinstance(src, list) and isinstance(dst, list):
        t.hset(dst, "$len", t.hget(src, "$len"))
        for i, (a, b) in enumerate(zip(src, dst)):
            t.hset(dst, i, t.hget(src, i))
            copy_shadows(t, a, b, depth + 1)
    elif isinstance(src, Instance) and isinstance(dst, Instance):
        for i, (a, b) in enumerate(zip(src.fields, dst.fields)):
            t.hset(dst, i, t.hget(src, i))
            copy_shadows(t, a, b, depth + 1)
    elif isinstance(src, dict) and isinstance(dst, dict):
        for k in src:
            if k in dst:
                t.hset(dst, ("k", k), t.hget(src, ("k", k)))
                copy_shadows(t, src[k], dst[k], depth + 1)


# Models that read shadows below their arguments' first level (the compiled tracker calls
# them even for a container that has no shadow of its own).
DEEP = frozenset({"baml.deep_copy"})

MODELS: dict[str, Model] = {
    "string.length": _str_unary(lambda t, e: t.x.length(e)),
    "string.char_count": _str_unary(lambda t, e: t.x.length(e)),
    "string.is_empty": _str_unary(lambda t, e: t.x.eq(t.x.length(e), t.x.const(0))),
    "string.includes": _str_pred(Op.CONTAINS),
    "string.starts_with": _str_pred(Op.PREFIX),
    "string.ends_with": _str_pred(Op.SUFFIX),
    "string.add": _concat,
    "string.to_lower_case": _case_change("upper"),
    "string.to_upper_case": _case_change("lower"),
    "string.trim": _trim,
    "string.to_string": _identity,
    "string.from": _identity,
    "array.length": _array_length,
    "array.is_empty": _array_is_empty,
    "array.push": _array_push,
    "int.abs": _int_abs,
    "baml.deep_copy": _deep_copy,
    "assert.equal": _assert_equal,
    "assert.is_true": _assert_is_true,
    "assert.not_null": _assert_not_null,
}
