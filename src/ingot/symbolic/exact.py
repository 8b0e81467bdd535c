"""Exact forms of expressions that hold a concretized operand (SAGE's check over a fixed value).

Keeping arithmetic linear fixes one operand of a product or a quotient of two symbolic values
(CUTE): `w * h` becomes `w * 6` with a CONCRETIZE entry `h == 6`. Everything computed from it
keeps the constant, so a panic check at a later site (`pages - 7 != 0` with `pages = w * h / p`)
is posed with `h` fixed: when no `w` works with `h = 6`, the check is unsat although another `h`
panics, and solving without the concretizations (optimistic solving) does not help, as the
constant is inside the expression, not in the dropped entry.

`ExactForms` remembers, per run, each such node (`w * 6`) with the expression it stands for
(`w * h`) and the CONCRETIZE entries that fixed it (`h == 6`). When a check is recorded, the
tracker rewrites its condition bottom-up through those nodes (`exact`): the result is the check
over the symbolic expressions that fed the concretizations, and the entries it releases. The
explorer poses that check without the released entries and keeps every other entry on the
operands' variables (`ingot.concolic.exact_checks`); its answer is only a candidate, since the
fixed operand may be where the model's nonlinear guesses go wrong, and the run decides.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingot.symbolic.expr import Expr, Interner, Op, Sort, post_order

_ARITH = (Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.MOD)
_STRING_PREDICATES = (Op.CONTAINS, Op.PREFIX, Op.SUFFIX)
_STRING_OPS = (Op.INDEX_OF, Op.LAST_INDEX_OF, Op.SUBSTR, Op.REPLACE, Op.REPLACE_ALL, Op.TO_INT,
               Op.TO_CODE, Op.FROM_INT, Op.IN_RE)


@dataclass
class ExactForms:
    """Nodes built over a fixed operand, with what they stand for, in one run."""

    x: Interner
    # fixed node id -> (exact expression, ids of the CONCRETIZE conditions that fixed it)
    forms: dict[int, tuple[Expr, frozenset[int]]] = field(default_factory=dict)
    _memo: dict[int, tuple[Expr, frozenset[int]]] = field(default_factory=dict)

    def note(self, fixed: Expr, exact: Expr, released: frozenset[int]) -> None:
        """`fixed` (a node over a concretized operand's constant) stands for `exact`, once the
        concretizations `released` (their conditions' ids) are lifted."""
        if fixed.is_const or fixed is exact or not released:
            return
        self.forms[fixed.id] = (exact, released)
        self._memo.clear()  # a node met before may now rewrite differently

    def exact(self, e: Expr) -> tuple[Expr, frozenset[int]]:
        """`e` with every fixed node under it replaced by its exact form, and the
        concretizations that lifts; `(e, ∅)` when no fixed node is under it."""
        if not self.forms:
            return e, frozenset()
        memo = self._memo
        for node in post_order(e, memo):
            form = self.forms.get(node.id)
            if form is not None:
                inner, released = self.exact(form[0]) if form[0].id not in memo else memo[form[0].id]
                memo[node.id] = (inner, released | form[1])
                continue
            args = [memo[a.id] for a in node.args]
            if all(a is b[0] for a, b in zip(node.args, args)):
                memo[node.id] = (node, frozenset())
                continue
            released = frozenset().union(*(r for _, r in args))
            memo[node.id] = (rebuild(self.x, node, [a for a, _ in args]), released)
        return memo[e.id]


def int_text(x: Interner, e: Expr) -> Expr:
    """The decimal text of the int `e`, as BAML renders it (SMT-LIB's `from_int` is "" below 0)."""
    digits = x.str_op(Op.FROM_INT, e)
    minus = x.concat(x.const("-"), x.str_op(Op.FROM_INT, x.neg(e)))
    return x.ite(x.lt(e, x.const(0, Sort.INT)), minus, digits)


def rebuild(x: Interner, node: Expr, args: list[Expr]) -> Expr:  # noqa: C901 - one row per op
    """`node`'s operation applied to new arguments (folding as the interner does)."""
    op = node.op
    if op in _ARITH:
        return x.arith(op, args[0], args[1])
    if op is Op.NEG:
        return x.neg(args[0])
    if op is Op.TO_FLOAT:
        return x.to_float(args[0])
    if op is Op.EQ:
        return x.eq(args[0], args[1])
    if op is Op.LT:
        return x.lt(args[0], args[1])
    if op is Op.LE:
        return x.le(args[0], args[1])
    if op is Op.NOT:
        return x.not_(args[0])
    if op is Op.AND:
        return x.and_(*args)
    if op is Op.OR:
        return x.or_(*args)
    if op is Op.ITE:
        return x.ite(args[0], args[1], args[2])
    if op is Op.CONCAT:
        return x.concat(args[0], args[1])
    if op is Op.LENGTH:
        return x.length(args[0])
    if op in _STRING_PREDICATES:
        return x.str_pred(op, args[0], args[1])
    if op is Op.CASELESS:
        return x.caseless(args[0], node.value)
    if op in _STRING_OPS:
        return x.str_op(op, *args, value=node.value)
    raise AssertionError(f"no rebuild for {op}")  # a new Op needs a row here
