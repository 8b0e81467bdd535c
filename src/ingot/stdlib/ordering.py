"""`min`/`max`/`clamp`/`cmp` (shared by every ordered type) and `bool.*` rows.

`baml.ops.Compare` semantics: ties keep the receiver, `NaN` is the greatest
float, `clamp(lo, hi)` is `min(hi).max(lo)` (so `lo > hi` gives `lo`), and
`cmp` returns a `baml.ops.Ordering` variant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ingot.runtime.ops import eq, ge, gt, le, lt, ne
from ingot.runtime.values import ORDERING, Variant
from ingot.semantics.types import BOOL, STRING, Ty
from ingot.stdlib.spec import ORDERING as ORDERING_TYPE
from ingot.stdlib.spec import Model, Rows, Tracker, sig
from ingot.symbolic.expr import Expr, Interner, Sort
from ingot.symbolic.shadow import Shadow

# ============================================================ min / max / clamp


def cmp_min(a: Any, b: Any) -> Any:
    """`a.min(b)` of `baml.ops.Compare`: ties keep `a`."""
    return b if lt(b, a) else a


def cmp_max(a: Any, b: Any) -> Any:
    """`a.max(b)`: ties keep `a`; `NaN` is the greatest float."""
    return b if lt(a, b) else a


def cmp_clamp(a: Any, lo: Any, hi: Any) -> Any:
    """`a.clamp(lo, hi)` = `a.min(hi).max(lo)`, so `lo > hi` gives `lo`."""
    return cmp_max(cmp_min(a, hi), lo)


def cmp(a: Any, b: Any) -> Variant:
    """`a.cmp(b)` -> baml.ops.Ordering (floats in the total order: NaN above everything)."""
    if lt(a, b):
        return ORDERING.variants[0]
    if eq(a, b):
        return ORDERING.variants[1]
    return ORDERING.variants[2]


def bool_to_string(b: bool) -> str:
    return "true" if b else "false"


# ====================================================================== models
# For numbers and strings: ints are Z3 Ints and floats Reals, ordered as the run orders them
# (NaN is not modelled, as for every float; replay catches the rare model it would break);
# strings are ordered by code point, as Z3's `str.<` orders them.


def _ordered(operands: list[Expr | None]) -> bool:
    """Operands the models order: all numbers, or all strings."""
    if any(e is None for e in operands):
        return False
    sorts = {e.sort for e in operands if e is not None}
    return sorts <= {Sort.INT, Sort.FLOAT} or sorts == {Sort.STRING}


def _numeric(build: Callable[..., Expr]) -> Model:
    def model(t: Tracker, frame: Any, fn: Callable[..., Any], args: list[Any],
              shadows: list[Shadow]) -> tuple[Any, Shadow]:
        result = fn(*args)
        if all(s is None for s in shadows):
            return result, None
        operands = [t.lift(s, a) for s, a in zip(shadows, args)]
        if not _ordered(operands):
            for s, a in zip(shadows, args):
                t.concretize(frame, s, a)
            return result, None
        return result, build(t.x, *operands)
    return model


def _cmp(x: Interner, a: Expr, b: Expr) -> Expr:
    """The tag of the `baml.ops.Ordering` variant `a.cmp(b)` returns (Less, Equal, Greater)."""
    less, equal, greater = (x.const(v.index) for v in ORDERING.variants)
    if a.sort is not b.sort:
        a, b = x.to_float(a), x.to_float(b)
    return x.ite(x.lt(a, b), less, x.ite(x.eq(a, b), equal, greater))


def _min(x: Interner, a: Expr, b: Expr) -> Expr:
    return x.ite(x.lt(b, a), b, a)  # ties keep the receiver, as `cmp_min` does


def _max(x: Interner, a: Expr, b: Expr) -> Expr:
    return x.ite(x.lt(a, b), b, a)


def _clamp(x: Interner, a: Expr, lo: Expr, hi: Expr) -> Expr:
    return _max(x, _min(x, a, hi), lo)


MIN_MODEL, MAX_MODEL, CLAMP_MODEL, CMP_MODEL = _numeric(_min), _numeric(_max), _numeric(_clamp), _numeric(_cmp)


LT_MODEL = _numeric(lambda x, a, b: x.lt(a, b))
LE_MODEL = _numeric(lambda x, a, b: x.le(a, b))
GT_MODEL = _numeric(lambda x, a, b: x.lt(b, a))
GE_MODEL = _numeric(lambda x, a, b: x.le(b, a))
EQ_MODEL = _numeric(lambda x, a, b: x.eq(a, b))
NEQ_MODEL = _numeric(lambda x, a, b: x.not_(x.eq(a, b)))


def compare_rows(rows: Rows, ty: Ty, numeric: bool) -> None:
    """The `baml.ops.Compare` and `baml.ops.Equals` members of one ordered type: `min`, `max`,
    `clamp`, `cmp`, and `lt`/`le`/`gt`/`ge`/`eq`/`neq`, the operators as methods.

    Ordered types (int, float, string: `numeric`) get the symbolic models; bools concretize.
    """
    rows.method("min", cmp_min, sig(ty, ret=ty), model=MIN_MODEL if numeric else None)
    rows.method("max", cmp_max, sig(ty, ret=ty), model=MAX_MODEL if numeric else None)
    rows.method("clamp", cmp_clamp, sig(ty, ty, ret=ty), model=CLAMP_MODEL if numeric else None)
    rows.method("cmp", cmp, sig(ty, ret=ORDERING_TYPE), model=CMP_MODEL if numeric else None)
    for name, impl, model in (("lt", lt, LT_MODEL), ("le", le, LE_MODEL), ("gt", gt, GT_MODEL),
                              ("ge", ge, GE_MODEL)):
        rows.method(name, impl, sig(ty, ret=BOOL), model=model if numeric else None, never_panics=True)
    equals_rows(rows, ty, numeric, scalar=True)


def equals_rows(rows: Rows, ty: Ty, numeric: bool = False, scalar: bool = False) -> None:
    """`eq` and `neq`, the `baml.ops.Equals` members every type has on the engine: `==` and
    `!=` as methods (structural on arrays and maps, so without a model they fix what they read)."""
    rows.method("eq", eq, sig(ty, ret=BOOL), model=EQ_MODEL if numeric else None, never_panics=scalar)
    rows.method("neq", ne, sig(ty, ret=BOOL), model=NEQ_MODEL if numeric else None, never_panics=scalar)




# ======================================================================== rows

rows = Rows("bool")
rows.method("to_string", bool_to_string, sig(ret=STRING))
compare_rows(rows, BOOL, numeric=False)

SPECS = tuple(rows.specs)
