"""The symbolic models of BEX's operators: what an operation does to its operands' shadows.

Each function takes the tracker (`rt`: a `TrackedVM`; `arith` and `equality` are
reached through it, so a tracker subclass may override them, as packing does),
the frame the operation happens in (`SiteFrame`: function, one past the pc,
call-stack context, the function's branch and switch sites), the concrete
operands and their shadows. It returns the result's shadow and records the path
entries the operation implies (a CHECK before an operation that can panic, a
CONCRETIZE where an operand is fixed) through the runtime. The transfer table
(`ingot.symbolic.transfer`) maps each instruction to these; both trackers call
them through it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ingot.bex.api import ARITH, ORDER
from ingot.bex.api import Op as B
from ingot.bex.api import read_index as concrete_read_index
from ingot.bex.api import write_index as concrete_write_index
from ingot.runtime.render import render_value
from ingot.runtime.values import INT_MAX, INT_MIN, Variant
from ingot.stdlib import contents, maps
from ingot.symbolic.exact import int_text
from ingot.symbolic.expr import Expr, Op, Sort
from ingot.symbolic.shadow import Alternative, EntryKind, Opt, Shadow, Tagged

if TYPE_CHECKING:
    from ingot.symbolic.tracker import TrackedVM

Frame = Any  # a `SiteFrame` with the function's `site` facts (the interpreter's `Frame`, the compiled tracker's light one)

__all__ = ["binary", "arith", "equality", "neg", "branch", "switch", "read_index", "write_index", "type_test",
           "format_shadow"]


ORDER_OPS = ORDER
ARITH_KIND = {B.ADD: Op.ADD, B.SUB: Op.SUB, B.MUL: Op.MUL, B.DIV: Op.DIV, B.MOD: Op.MOD}
assert set(ARITH_KIND) == ARITH


def branch(rt: TrackedVM, frame: Frame, site: tuple[int, int, int], pc: int, value: Any, shadow: Shadow,
           taken: bool) -> None:
    """Record a branch site's condition, if it is symbolic (the edge is recorded by the caller)."""
    cond = rt.truthy(shadow, value)
    if cond is None or cond.is_const or rt.prune_at(frame, pc):
        return
    block, then_bb, else_bb = site
    fn = frame.fn.name
    there = else_bb if taken else then_bb
    x = rt.x
    observed = cond if taken else x.not_(cond)
    rt.record(EntryKind.BRANCH, (frame.fn.index, pc), observed,
              (Alternative(x.not_(observed), (fn, block, there), "true" if not taken else "false"),), frame.ctx)


def binary(rt: TrackedVM, frame: Frame, op: B, a: Any, b: Any, sa: Shadow, sb: Shadow) -> Shadow:
    """The shadow of `a op b` when an operand is symbolic (the caller has asked `pruned`)."""
    x = rt.x
    if op in (B.EQ, B.NE):
        cond = rt.equality(frame, a, b, sa, sb)
        if cond is None:
            return None
        return cond if op is B.EQ else x.not_(cond)
    ea, eb = rt.lift(sa, a), rt.lift(sb, b)
    if ea is None or eb is None or isinstance(a, Variant) or isinstance(b, Variant):
        rt.concretize(frame, sa, a)
        rt.concretize(frame, sb, b)
        return None
    if op in ORDER_OPS:
        if (ea.sort is Sort.STRING) is not (eb.sort is Sort.STRING) or ea.sort is Sort.BOOL or eb.sort is Sort.BOOL:
            # Bools (and a string against a number) are not ordered symbolically: fix the operands.
            # Strings compare by code point, as Z3's `str.<` does.
            rt.concretize(frame, sa, a)
            rt.concretize(frame, sb, b)
            return None
        if op is B.LT:
            return x.lt(ea, eb)
        if op is B.LE:
            return x.le(ea, eb)
        return x.lt(eb, ea) if op is B.GT else x.le(eb, ea)
    if ea.sort is Sort.STRING and eb.sort is Sort.STRING and op is B.ADD:
        return x.concat(ea, eb)
    if ea.sort not in (Sort.INT, Sort.FLOAT) or eb.sort not in (Sort.INT, Sort.FLOAT) or op not in ARITH:
        rt.concretize(frame, sa, a)
        rt.concretize(frame, sb, b)
        return None
    return rt.arith(frame, op, a, b, sa, sb, ea, eb)


def arith(rt: TrackedVM, frame: Frame, op: B, a: Any, b: Any, sa: Shadow, sb: Shadow, ea: Expr, eb: Expr) -> Shadow:
    x = rt.x
    is_int = type(a) is int and type(b) is int
    fixed = None  # the divisor or factor concretized below (`fixed_operand` keeps what it stood for)
    if op in (B.DIV, B.MOD):
        if not eb.is_const and is_int:
            rt.check(frame, "DivisionByZero", x.not_(x.eq(eb, x.const(0))), b != 0)
        if not eb.is_const and not ea.is_const:
            rt.concretize(frame, sb, b)  # keep division linear (CUTE): fix the divisor
            fixed, eb = eb, x.const(b)
        elif not eb.is_const:
            rt.concretize(frame, sb, b)
            eb = x.const(b)
        if b == 0:
            return None  # the concrete operation panics (int) or yields inf/nan (float)
    if op is B.MUL and not ea.is_const and not eb.is_const:
        rt.concretize(frame, sb, b)  # a product of two symbolic values: fix one factor
        fixed, eb = eb, x.const(b, Sort.INT if type(b) is int else Sort.FLOAT)
    result = x.arith(ARITH_KIND[op], ea, eb) if fixed is None else rt.fixed_operand(ARITH_KIND[op], ea, fixed, b)
    if is_int and not result.is_const and op in (B.ADD, B.SUB, B.MUL):
        safe = x.and_(x.le(x.const(INT_MIN), result), x.le(result, x.const(INT_MAX)))
        concrete = a + b if op is B.ADD else a - b if op is B.SUB else a * b
        rt.check(frame, "IntegerOverflow", safe, INT_MIN <= concrete <= INT_MAX)
    if not is_int and op in (B.DIV, B.MOD):
        return None if op is B.MOD else result
    if op is B.MOD and not is_int:
        return None
    return result


def equality(rt: TrackedVM, frame: Frame, a: Any, b: Any, sa: Shadow, sb: Shadow) -> Expr | None:
    """The symbolic `a == b` (type-strict, like BAML)."""
    x = rt.x
    # Comparisons with null decide presence.
    if isinstance(sa, Opt) and b is None and sb is None:
        return x.not_(sa.present)
    if isinstance(sb, Opt) and a is None and sa is None:
        return x.not_(sb.present)
    if isinstance(sa, Opt) and b is not None or isinstance(sb, Opt) and a is not None:
        # An optional compared with a value: equal only if present and the payload matches
        # (the same condition whether this run's value is present or not).
        opt, other, other_value = (sa, sb, b) if isinstance(sa, Opt) and b is not None else (sb, sa, a)
        assert isinstance(opt, Opt)
        rhs = rt.lift(other, other_value)
        if isinstance(opt.payload, Expr) and rhs is not None and rhs.sort is opt.payload.sort:
            return x.and_(opt.present, x.eq(opt.payload, rhs))
        rt.concretize(frame, sa, a)
        rt.concretize(frame, sb, b)
        return None
    if isinstance(a, Variant) or isinstance(b, Variant):
        if isinstance(a, Variant) and isinstance(b, Variant) and a.enum is b.enum:
            ta = rt.scalar(sa, a)
            tb = rt.scalar(sb, b)
            return x.eq(ta if ta is not None else x.const(a.index, Sort.INT),
                        tb if tb is not None else x.const(b.index, Sort.INT))
        return None  # different types are never equal
    ea, eb = rt.lift(sa, a), rt.lift(sb, b)
    if ea is None or eb is None:
        rt.concretize(frame, sa, a)
        rt.concretize(frame, sb, b)
        return None
    if type(a) is not type(b):
        return None  # 1 == 1.0 is false in BAML whatever the values
    return x.eq(ea, eb)


def neg(rt: TrackedVM, frame: Frame, value: Any, shadow: Shadow) -> Shadow:
    """The shadow of `-value` (an overflow CHECK for `-INT_MIN`); the caller has asked `pruned`."""
    x = rt.x
    e = rt.scalar(shadow, value)
    if e is not None and e.sort in (Sort.INT, Sort.FLOAT):
        if e.sort is Sort.INT:
            rt.check(frame, "IntegerOverflow", x.not_(x.eq(e, x.const(INT_MIN))), value != INT_MIN)
        return x.neg(e)
    rt.concretize(frame, shadow, value)
    return None


def switch(rt: TrackedVM, frame: Frame, site: tuple[int, Any, int], pc: int, value: Any, shadow: Shadow) -> None:
    """Record the edge a switch site takes and, if the key is symbolic, its condition."""
    block, blocks, otherwise = site
    here = blocks.get((type(value), value), otherwise)
    fn = frame.fn.name
    if frame.site.track_coverage:
        rt.trace.edges.append((fn, block, here))
    e = rt.scalar(shadow, value)
    if e is None or rt.prune_at(frame, pc):
        return
    x = rt.x
    conds: dict[int, list[Expr]] = {}
    for (_, key), target in blocks.items():
        k = key.index if isinstance(key, Variant) else key
        if isinstance(key, Variant) != isinstance(value, Variant):
            continue
        conds.setdefault(target, []).append(x.eq(e, x.const(k, e.sort)))
    def reach(target: int) -> Expr:
        if target == otherwise and target not in conds:
            return x.and_(*(x.not_(c) for cs in conds.values() for c in cs))
        return x.or_(*conds.get(target, []))
    observed = reach(here)
    targets = sorted(set(conds) | {otherwise})
    alts = tuple(Alternative(reach(t), (fn, block, t), f"switch->bb{t}") for t in targets if t != here)
    rt.record(EntryKind.BRANCH, (frame.fn.index, pc), observed, alts, frame.ctx)


def read_index(rt: TrackedVM, frame: Frame, base: Any, index: Any, sindex: Shadow) -> tuple[Any, Shadow]:
    """`base[index]` and its shadow (after the bounds or key check). A symbolic index into a
    lookup table (`selected`) reads the table's choice of element; any other is fixed."""
    if isinstance(base, dict):
        return read_key(rt, frame, base, index, sindex)
    chosen = None
    if isinstance(base, list) and sindex is not None and not rt.pruned(frame):
        ei = rt.scalar(sindex, index)
        chosen = None if ei is None else selected(rt, base, ei)
    index_check(rt, frame, base, index, sindex, fix=chosen is None)
    result = concrete_read_index(base, index)
    if chosen is not None:
        return result, chosen
    if isinstance(base, list):
        return result, rt.hget(base, index + len(base) if index < 0 else index)
    return result, rt.hget(base, ("k", index))


# The longest lookup table a symbolic index selects from (`selected`); past it, the index is fixed.
SELECT_MAX = 64
_SELECTABLE = (int, bool, str, float)


def selected(rt: TrackedVM, base: list[Any], ei: Expr) -> Expr | None:
    """The element of `base` at the symbolic index `ei`, as the choice among its elements
    (`ite(i == 0 || i == -n, xs[0], ...)`), for a table of a fixed length holding scalars of one
    type: the days of each month, labels by rank. A branch on the element (`day > days[m - 1]`)
    can then be negated through the index; fixing the index made it decided by the run. None
    for any other list (its index is fixed, as before)."""
    n = len(base)
    if not 0 < n <= SELECT_MAX or rt.hget(base, "$len") is not None:
        return None
    kind = type(base[0])
    if kind not in _SELECTABLE or any(type(v) is not kind for v in base):
        return None
    x = rt.x
    elements = [rt.scalar(rt.hget(base, k), v) for k, v in enumerate(base)]
    exprs = [e if e is not None else x.const(v) for e, v in zip(elements, base)]
    out = exprs[-1]
    for k in range(n - 2, -1, -1):
        out = x.ite(x.or_(x.eq(ei, x.const(k)), x.eq(ei, x.const(k - n))), exprs[k], out)
    return out


def write_index(rt: TrackedVM, frame: Frame, base: Any, index: Any, sindex: Shadow, value: Any,
                shadow: Shadow) -> None:
    """`base[index] = value`, moving its shadow into the heap."""
    if isinstance(base, dict):
        if not rt.pruned(frame) and (sindex is not None or rt.hget(base, maps.SLOTS) is not None):
            maps.store(rt, frame, base, index, sindex, lambda: concrete_write_index(base, index, value))
        else:
            rt.concretize(frame, sindex, index)
            concrete_write_index(base, index, value)
        rt.hset(base, ("k", index), shadow)
        return
    index_check(rt, frame, base, index, sindex)
    concrete_write_index(base, index, value)
    key = (index + len(base) if index < 0 else index) if isinstance(base, list) else ("k", index)
    rt.hset(base, key, shadow)


def index_check(rt: TrackedVM, frame: Frame, base: Any, index: Any, sindex: Shadow, fix: bool = True) -> None:
    """`xs[i]` panics unless -n <= i < n; `m[k]` unless the key is present. A symbolic index
    is then fixed at its value, unless `fix` is false (the element read is `selected`)."""
    x = rt.x
    if isinstance(base, list):
        n_shadow = rt.hget(base, "$len")
        ei = rt.scalar(sindex, index)
        if ei is None and not isinstance(n_shadow, Expr) or rt.pruned(frame):
            return
        ei = ei if ei is not None else x.const(index)
        n = n_shadow if isinstance(n_shadow, Expr) else x.const(len(base))
        safe = x.and_(x.le(x.neg(n), ei), x.lt(ei, n))
        rt.check(frame, "IndexOutOfBounds", safe, -len(base) <= index < len(base))
        if sindex is not None and fix:
            rt.concretize(frame, sindex, index)  # which element is read depends on the index
    elif sindex is not None and isinstance(base, dict):
        if rt.pruned(frame):
            return
        key = rt.scalar(sindex, index)
        if key is not None and type(index) in (str, int) and not isinstance(index, bool):
            present = [x.eq(key, x.const(k)) for k in base if type(k) is type(index)]
            rt.check(frame, "MapKeyNotFound", x.or_(*present), index in base)
        rt.concretize(frame, sindex, index)


def read_key(rt: TrackedVM, frame: Frame, base: dict[Any, Any], key: Any, skey: Shadow) -> tuple[Any, Shadow]:
    """`m[key]`: panics `MapKeyNotFound` unless the key is present (a CHECK when the map's slots or
    the key are symbolic); the value's shadow, its slot pinned (`stdlib.maps`)."""
    followed = None
    if (skey is not None or rt.hget(base, maps.SLOTS) is not None) and not rt.pruned(frame):
        found = maps.key_expr(rt, base, key, skey)
        if found is None:
            rt.concretize(frame, skey, key)
        else:
            present = key in base if type(key) in maps.MODELLED_KEYS else False
            rt.check(frame, "MapKeyNotFound", maps.has_expr(rt, *found), present)
            followed = found
    result = concrete_read_index(base, key)  # panics when the key is missing
    shadow = rt.hget(base, ("k", key))
    if followed is not None and shadow is not None:
        slots, ek = followed
        maps.pin(rt, frame, slots, maps.slot_of(slots, base, key), ek)
    return result, shadow


def type_test(rt: TrackedVM, frame: Frame, test: Callable[[Any], bool], value: Any, shadow: Shadow,
                     result: bool) -> Shadow:
    x = rt.x
    if isinstance(shadow, Opt):
        null_passes = test(None)
        if value is None:
            # The value is null here; a present value of the payload type gives the other answer.
            return shadow.present if not null_passes else x.not_(shadow.present)
        if null_passes == result:
            return None
        return shadow.present if result else x.not_(shadow.present)
    if isinstance(shadow, Tagged):
        rt.concretize(frame, Tagged(shadow.tag, shadow.index, None), value)
    return None


def format_shadow(rt: TrackedVM, frame: Frame, shape: Any, values: list[Any], shadows: list[Shadow]) -> tuple[str, Shadow]:
    """An interpolated string and its shadow (a concatenation while the pieces are strings)."""
    if any(s is not None for s in shadows) and rt.pruned(frame):
        rendered = iter(values)
        return "".join(p if p is not None else render_value(next(rendered)) for p in shape), None
    it = iter(zip(values, shadows))
    x = rt.x
    expr: Expr | None = x.const("")
    exact: Expr = x.const("")  # the same with each fixed int piece's digits over its expression (`fixed_text`)
    released: list[Expr] = []
    pieces = []
    for part in shape:
        if part is not None:
            pieces.append(part)
            if expr is not None:
                expr, exact = x.concat(expr, x.const(part)), x.concat(exact, x.const(part))
            continue
        v, s = next(it)
        text = render_value(v)
        pieces.append(text)
        e = rt.scalar(s, v)
        if e is not None and e.sort is Sort.STRING and type(v) is str:
            expr, exact = (x.concat(expr, e), x.concat(exact, e)) if expr is not None else (None, exact)
        else:
            rt.concretize(frame, s, v)
            contents.fix(rt, frame, v)  # a container renders what it holds
            piece = x.const(text)
            if e is not None and e.sort is Sort.INT and type(v) is int:
                piece = int_text(x, e)
                released.append(x.eq(e, x.const(v, Sort.INT)))
            expr, exact = (x.concat(expr, x.const(text)), x.concat(exact, piece)) if expr is not None else (None, exact)
    if expr is None or expr.is_const:
        return "".join(pieces), None
    if released:
        rt.fixed_text(expr, exact, released)
    return "".join(pieces), expr

