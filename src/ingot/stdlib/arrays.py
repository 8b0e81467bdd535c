"""`array.*`: BAML's array members, their symbolic models and registry rows.

Verified on the engine:

- `includes`/`index_of`/`last_index_of` use a fixed equality, not `==`:
  numbers, strings, bools and null by value (`NaN` matches `NaN`, `0.0`
  matches `-0.0`), enum values by identity, arrays, maps and instances by
  *reference* (`[[1]].includes([1])` is false).
- `int[].sum()` checks every running total (`IntegerOverflow`); `float[].sum()`
  starts from `-0.0`, so `[].sum()` on a `float[]` is `-0.0`. An empty list
  does not say its element type, so `array.sum` returns the `int` `0` for it;
  the checker, which knows the element is `float`, calls `array.sum_float`.
- `sort` only exists for arrays of one orderable type (`int`, `float`,
  `string`, `bool`, or a class implementing `baml.ops.Compare`, which the
  checker sorts through the prelude's `sort_by` with the class's `cmp`);
  floats sort by the total order (`NaN` last), stably.
- `IndexOutOfBounds.index` is the index as written (`-5`, not `-4`).

The higher-order members (`map`, `filter`, `sort_by`, ...) are prelude rows:
written in BAML in `bex/prelude.baml`, so they run, raise and are tracked
like user code.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ingot.runtime.errors import panic, throw_error
from ingot.runtime.limits import array_limit, check_array, join_text
from ingot.runtime.ops import add, float_key
from ingot.runtime.render import render_value
from ingot.runtime.values import INT_MAX, INT_MIN
from ingot.semantics.types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NULL,
    STRING,
    AliasT,
    FuncT,
    ListT,
    optional,
)
from ingot.stdlib import contents
from ingot.stdlib.ordering import equals_rows
from ingot.stdlib.spec import ORDERING as ORDERING_TYPE
from ingot.stdlib.spec import Rows, T, Tracker, U, sig
from ingot.stdlib.string_models import parts_beyond
from ingot.symbolic.expr import Expr, Op
from ingot.symbolic.shadow import Opt, Shadow


def _invalid(message: str) -> Exception:
    return throw_error("InvalidArgument", message)



# ======================================================================= array


def _same(a: Any, b: Any) -> bool:
    """The fixed equality of `includes`/`index_of`: values for scalars, else identity."""
    if a is b:
        return True
    t = type(a)
    if t is not type(b):
        return False
    if t is int or t is str or t is bool:
        return a == b
    if t is float:
        return a == b or (a != a and b != b)
    return False


def array_length(xs: list[Any]) -> int:
    return len(xs)


def array_at(xs: list[Any], index: int) -> Any:
    n = len(xs)
    if index < 0:
        index += n
    return xs[index] if 0 <= index < n else None


def array_get_index(xs: list[Any], index: int) -> Any:
    """`xs[i]`: negative from the end; out of range panics with `i` as written."""
    n = len(xs)
    j = index + n if index < 0 else index
    if 0 <= j < n:
        return xs[j]
    raise panic("IndexOutOfBounds", index=index, length=n)


def array_set_index(xs: list[Any], index: int, value: Any) -> None:
    """`xs[i] = v`: like `get_index`; never grows the array."""
    n = len(xs)
    j = index + n if index < 0 else index
    if 0 <= j < n:
        xs[j] = value
        return
    raise panic("IndexOutOfBounds", index=index, length=n)


def array_push(xs: list[Any], item: Any) -> int:
    limit = array_limit()
    if limit is not None and len(xs) >= limit:
        check_array(len(xs) + 1)
    xs.append(item)
    return len(xs)


def array_pop(xs: list[Any]) -> Any:
    return xs.pop() if xs else None


def array_concat(xs: list[Any], other: list[Any]) -> list[Any]:
    check_array(len(xs) + len(other))
    return xs + other


def array_slice(xs: list[Any], start: int, end: int) -> list[Any]:
    return xs[start:end]


def array_reverse(xs: list[Any]) -> list[Any]:
    return xs[::-1]


def array_sort(xs: list[Any]) -> list[Any]:
    """Sort in place (stable, natural order; floats by the total order) and return `xs`."""
    if len(xs) > 1:
        if type(xs[0]) is float:
            xs.sort(key=float_key)
        else:
            xs.sort()
    return xs


def array_includes(xs: list[Any], item: Any) -> bool:
    return any(_same(x, item) for x in xs)


def array_index_of(xs: list[Any], item: Any) -> int | None:
    for i, x in enumerate(xs):
        if _same(x, item):
            return i
    return None


def array_last_index_of(xs: list[Any], item: Any) -> int | None:
    for i in range(len(xs) - 1, -1, -1):
        if _same(xs[i], item):
            return i
    return None


def array_join(xs: list[Any], separator: str) -> str:
    return join_text([render_value(x) for x in xs], separator)


def _sum_float(xs: list[float]) -> float:
    total = -0.0  # Rust's f64 `Sum` starts from -0.0
    for x in xs:
        total += x
    return total


def array_sum(xs: list[Any]) -> Any:
    """`int[].sum()` (checked at every step) or `float[].sum()`, by the elements' type."""
    if xs and type(xs[0]) is float:
        return _sum_float(xs)
    total = 0
    for x in xs:
        total = add(total, x)
    return total


def array_sum_float(xs: list[float]) -> float:
    """`float[].sum()`, for a caller that knows the element type (`[]` sums to `-0.0`)."""
    return _sum_float(xs)


def array_mean(xs: list[float]) -> float:
    if not xs:
        raise _invalid("float[].mean: cannot take the mean of an empty array")
    return _sum_float(xs) / len(xs)


def _midpoint(a: float, b: float) -> float:
    """Rust's `f64::midpoint`: the mean of two floats without intermediate overflow."""
    lo = sys.float_info.min * 2.0
    hi = sys.float_info.max / 2.0
    abs_a, abs_b = abs(a), abs(b)
    if abs_a <= hi and abs_b <= hi:
        return (a + b) / 2.0
    if abs_a < lo:
        return a + b / 2.0
    if abs_b < lo:
        return a / 2.0 + b
    return a / 2.0 + b / 2.0


def array_median(xs: list[float]) -> float:
    if not xs:
        raise _invalid("float[].median: cannot take the median of an empty array")
    ys = sorted(xs, key=float_key)
    n = len(ys)
    if n % 2:
        return ys[n // 2]
    return _midpoint(ys[n // 2 - 1], ys[n // 2])


def array_remove_at(xs: list[Any], index: int) -> Any:
    n = len(xs)
    if index < 0:
        index += n
    return xs.pop(index) if 0 <= index < n else None


def array_unshift(xs: list[Any], item: Any) -> int:
    check_array(len(xs) + 1)
    xs.insert(0, item)
    return len(xs)


def array_insert(xs: list[Any], item: Any, idx: int) -> int:
    """Insert `item` before position `idx` in `[-length, length]`; returns the new length."""
    n = len(xs)
    if not -n <= idx <= n:
        raise _invalid(f"array.insert: idx ({idx}) is out of range for length {n}")
    check_array(n + 1)
    xs.insert(idx + n if idx < 0 else idx, item)
    return len(xs)


def array_clear(xs: list[Any]) -> None:
    xs.clear()


def array_shift(xs: list[Any]) -> Any:
    return xs.pop(0) if xs else None


def array_splice(xs: list[Any], start: int, count: int, replace: list[Any]) -> None:
    n = len(xs)
    if not -n <= start <= n:
        raise _invalid(f"array.splice: start ({start}) is out of range for length {n}")
    if count < 0:
        raise _invalid(f"array.splice: count ({count}) is negative")
    if start < 0:
        start += n
    check_array(n - len(xs[start : start + count]) + len(replace))
    xs[start : start + count] = list(replace)


# ====================================================================== models


def _array_length(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
                  shadows: list[Shadow]) -> tuple[Any, Shadow]:
    return fn(*args), t.hget(args[0], "$len")


def _array_push(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
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


def _fixed_shape(t: Tracker, frame: Any, args: list[Any], shadows: list[Shadow]) -> None:
    """Fix what decides which elements a copy holds: the arrays' lengths and the other arguments."""
    for a, sh in zip(args, shadows):
        t.concretize(frame, sh, a)
        if isinstance(a, list):
            t.concretize(frame, t.hget(a, "$len"), len(a))


def _copying(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
             shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """`slice`/`reverse`/`concat`: a new array of the same elements, each keeping its shadow.

    The built-in itself says where each element comes from: run on arrays of positions (the
    same lengths, the same other arguments) it returns the positions it takes.
    """
    _fixed_shape(t, frame, args, shadows)
    result = fn(*args)
    sources = [a for a in args if isinstance(a, list)]
    positions = [[(k, i) for i in range(len(a))] for k, a in enumerate(sources)]
    taken = fn(*positions, *args[len(sources):])
    for j, (k, i) in enumerate(taken):
        t.hset(result, j, t.hget(sources[k], i))
    return result, None


@dataclass(frozen=True, slots=True)
class _Place:
    """A marker standing for an element in `_moving`'s rehearsal: the receiver's element at
    `index` (`new` False) or the argument at `index` (`new` True)."""

    new: bool
    index: int


def _moving(*items: int) -> Callable[..., tuple[Any, Shadow]]:
    """`pop`/`shift`/`remove_at`/`insert`/`unshift`/`clear`: the elements that stay keep their
    shadows at their new places, an element taken out is returned with its shadow, an element
    put in (the arguments at `items`) brings its own.

    The built-in is rehearsed on markers (`_Place`) to learn where each element went; the
    receiver's length and the other arguments (positions) are fixed.
    """
    def model(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
        xs = args[0]
        t.concretize(frame, t.hget(xs, "$len"), len(xs))
        for k in range(1, len(args)):
            if k not in items:
                t.concretize(frame, shadows[k], args[k])
        before = [t.hget(xs, i) for i in range(len(xs))]
        places = [_Place(False, i) for i in range(len(xs))]
        rehearsal = [places, *(_Place(True, k) if k in items else a for k, a in enumerate(args[1:], 1))]
        result = fn(*args)  # a panic here leaves the heap as it was
        taken = fn(*rehearsal)
        t.hset(xs, "$len", None)
        for j in range(len(before)):
            t.hset(xs, j, None)
        for j, place in enumerate(places):
            t.hset(xs, j, shadows[place.index] if place.new else before[place.index])
        return result, (before[taken.index] if isinstance(taken, _Place) and not taken.new else None)

    return model


def _array_at(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """`at(i)`: the element's shadow, at this run's index and length (both fixed)."""
    _fixed_shape(t, frame, args, shadows)
    xs, index = args
    result = fn(*args)
    position = index + len(xs) if index < 0 else index
    return result, (t.hget(xs, position) if 0 <= position < len(xs) else None)


def _array_sum(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
               shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """`int[].sum()`: the running totals of this run's elements, each checked for overflow as
    the built-in checks it (before the built-in runs, so a failing check is on the path when
    it panics). Float sums are fixed: their rounding is not modelled."""
    xs = args[0]
    if not xs or any(type(v) is not int for v in xs):
        contents.fix(t, frame, xs)
        return fn(*args), None
    t.concretize(frame, t.hget(xs, "$len"), len(xs))
    x = t.x
    total, concrete = x.const(0), 0
    lo, hi = x.const(INT_MIN), x.const(INT_MAX)
    for i, v in enumerate(xs):
        term = t.lift(t.hget(xs, i), v)
        assert term is not None  # an int lifts to its expression or a constant
        total, concrete = x.arith(Op.ADD, total, term), concrete + v
        holds = INT_MIN <= concrete <= INT_MAX
        t.check(frame, "IntegerOverflow", x.and_(x.le(lo, total), x.le(total, hi)), holds)
        if not holds:
            break
    return fn(*args), (None if total.is_const else total)


def _array_join(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
                shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """`join` of strings: the concatenation of this run's elements and separators.

    The number of elements is fixed to this run's (a symbolic length is concretized: which
    elements there are is decided by the path). Elements of other types are rendered, which
    no model follows: they are fixed, as for any built-in without a model.
    """
    xs, separator = args
    result = fn(*args)
    shadowed = [t.hget(xs, i) for i in range(len(xs))]
    if shadows[1] is None and t.hget(xs, "$len") is None and all(sh is None for sh in shadowed) \
            and all(type(v) is str for v in xs):
        return result, None  # nothing symbolic (a deep row: called for every join)
    sep = t.lift(shadows[1], separator)
    if sep is None or any(type(v) is not str for v in xs):
        contents.fix_arguments(t, frame, args, shadows)
        return result, None
    t.concretize(frame, t.hget(xs, "$len"), len(xs))
    x = t.x
    out: Expr | None = None
    for v, sh in zip(xs, shadowed):
        e = t.lift(sh, v)
        assert e is not None  # a string lifts to its expression or a constant
        out = e if out is None else x.concat(x.concat(out, sep), e)
    if out is None or out.is_const:
        return result, None
    return result, out


def _array_search(kind: str) -> Callable[..., tuple[Any, Shadow]]:
    """`includes`/`index_of`/`last_index_of` on ints, strings and bools: `_same` is `==` on them.

    Element `i` matches when it is there (`i < $len`, for a symbolic length) and equals the
    item. On a split's parts the elements a longer input would have are variables too
    (`parts_beyond`), so the model ranges over them, up to the split's bound: a column found
    third in a header the run cut into one field. Elsewhere elements past this run's length have
    no expression, so a symbolic length is assumed to be at most this run's (negatable, like a
    concretization).
    """
    def model(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
        xs, item = args
        result = fn(*args)
        x = t.x
        n = t.hget(xs, "$len")
        target = t.lift(shadows[1], item)
        if target is None or type(item) not in (int, str, bool):
            t.concretize(frame, shadows[1], item)
            return result, None
        matches = []
        for i, v in enumerate(xs):
            e = t.lift(t.hget(xs, i), v) if type(v) is type(item) else None
            match = x.false() if e is None else x.eq(e, target)
            if isinstance(n, Expr):
                match = x.and_(x.lt(x.const(i), n), match)
            matches.append(match)
        if isinstance(n, Expr):
            beyond = parts_beyond(t, xs) if type(item) is str else []
            for i, e in enumerate(beyond, len(xs)):
                matches.append(x.and_(x.lt(x.const(i), n), x.eq(e, target)))
            if not beyond:
                t.assume(frame, x.le(n, x.const(len(xs))))
        if kind == "includes":
            return result, x.or_(*matches)
        order = range(len(matches)) if kind == "index_of" else range(len(matches) - 1, -1, -1)
        position = x.const(-1)
        for i in reversed(order):
            position = x.ite(matches[i], x.const(i), position)
        present = x.or_(*matches)
        return result, (Opt(present, position) if not present.is_const else None)
    return model


# ======================================================================== rows

# The element types the engine declares some members for (probed on baml_bridge 0.23.0: `sum`
# on `string[]` or `(int | float)[]`, `mean` on `int[]`, `sort` on `E[]`, `int?[]` or `("a" | "b")[]`
# are "no member" errors). An alias of one of them counts; a literal type does not. An
# interface stands for the classes implementing it.
NUMBERS = frozenset({INT, FLOAT})
FLOATS = frozenset({FLOAT})
ORDERABLE = frozenset({INT, FLOAT, STRING, BOOL, AliasT("baml.ops.Compare")})  # and its implementors

rows = Rows("array")
rows.method("length", array_length, sig(ret=INT), model=_array_length, inline="{target} = len({0})", result="int", nonnegative=True, never_panics=True)
rows.method("at", array_at, sig(INT, ret=optional(T)), model=_array_at)
rows.internal("get_index", array_get_index)
rows.internal("set_index", array_set_index, mutates=True)
# inline: the push, or (past the VM's array limit, MAXA) the AllocFailure `array_push` raises too
rows.method("push", array_push, sig(T, ret=INT), mutates=True, model=_array_push, inline="{0}.append({1}) if len({0}) < MAXA else _check_array(len({0}) + 1); {target} = len({0})", result="int", nonnegative=True)
rows.method("pop", array_pop, sig(ret=optional(T)), mutates=True, model=_moving())
rows.method("concat", array_concat, sig(ListT(T), ret=ListT(T)), model=_copying)
rows.method("slice", array_slice, sig(INT, INT, ret=ListT(T)), model=_copying)
rows.method("reverse", array_reverse, sig(ret=ListT(T)), model=_copying)
rows.method("sort", array_sort, sig(ret=ListT(T)), mutates=True, elements=ORDERABLE)
rows.method("includes", array_includes, sig(T, ret=BOOL), model=_array_search("includes"))
rows.method("index_of", array_index_of, sig(T, ret=optional(INT)), model=_array_search("index_of"))
rows.method("last_index_of", array_last_index_of, sig(T, ret=optional(INT)), model=_array_search("last_index_of"))
rows.method("join", array_join, sig(STRING, ret=STRING), model=_array_join, deep_model=True)
rows.method("sum", array_sum, sig(ret=T), model=_array_sum, elements=NUMBERS)
rows.internal("sum_float", array_sum_float)
rows.method("mean", array_mean, sig(ret=FLOAT), elements=FLOATS)
rows.method("median", array_median, sig(ret=FLOAT), elements=FLOATS)
rows.method("remove_at", array_remove_at, sig(INT, ret=optional(T)), mutates=True, model=_moving())
rows.method("unshift", array_unshift, sig(T, ret=INT), mutates=True, model=_moving(1))
rows.method("insert", array_insert, sig(T, INT, ret=INT), mutates=True, model=_moving(1))
rows.method("clear", array_clear, sig(ret=NULL), mutates=True, model=_moving())
rows.method("shift", array_shift, sig(ret=optional(T)), mutates=True, model=_moving())
rows.method("splice", array_splice, sig(INT, INT, ListT(T), ret=NULL), mutates=True)
rows.method("to_string", render_value, sig(ret=STRING), model=contents.rendered, deep_model=True)
equals_rows(rows, ListT(T))
rows.prelude("map", sig(FuncT((T,), U), ret=ListT(U)))
rows.prelude("filter", sig(FuncT((T,), BOOL), ret=ListT(T)))
rows.prelude("reduce", sig(FuncT((U, T), U), U, ret=U))
rows.prelude("some", sig(FuncT((T,), BOOL), ret=BOOL))
rows.prelude("every", sig(FuncT((T,), BOOL), ret=BOOL))
rows.prelude("find", sig(FuncT((T,), BOOL), ret=optional(T)))
rows.prelude("find_index", sig(FuncT((T,), BOOL), ret=optional(INT)))
rows.prelude("find_last", sig(FuncT((T,), BOOL), ret=optional(T)))
rows.prelude("find_last_index", sig(FuncT((T,), BOOL), ret=optional(INT)))
rows.prelude("for_each", sig(FuncT((T,), ANY), ret=NULL))
rows.prelude("flat_map", sig(FuncT((T,), ListT(U)), ret=ListT(U)))
rows.prelude("filter_map", sig(FuncT((T,), optional(U)), ret=ListT(U)))
rows.prelude("sort_by", sig(FuncT((T, T), ORDERING_TYPE), ret=ListT(T)))
rows.prelude("sort_by_key", sig(FuncT((T,), U), ret=ListT(T)))

SPECS = tuple(rows.specs)
