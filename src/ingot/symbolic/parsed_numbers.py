"""Numbers for the fields a query parses, solved with every string held at the run's text.

Z3's string solver answers `unknown` at the per-query limit on most queries that parse numbers
out of text: a window "0:3-3:3" cut at `-` and `:`, each field trimmed and parsed, and the
minutes it spans past a day (`total <= 1440` negated). Its arithmetic is plain once the text is
fixed: with every string held at the value the run (or the nearby walk, `nearby.search`) has, each
`to_int` of a field is an integer of its own, and Z3 answers the arithmetic over those at once
(hour 24, minutes 4). `nearby.Query.numbers_written` then writes each number where its field
was read, and the whole query is evaluated on the result, as any candidate of the walk is.

Which parsed numbers matter is decided by the held text: `int.parse` is modelled with its sign
(`ite(starts_with(p, "-"), -to_int(substr(p, 1, ..)), ..)`), and once `p` is a constant the
simplifier drops the branches not taken, so only the live fields get a number. Numbers the
query is content with keep their held values (a year "2025" stays, beside the month it needs
changed).

The question is asked of a Z3 context of its own, under a small resource limit, so that the
search's own Z3 answers stay those a resumed search gets by replaying `Solver.z3_log`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import z3

from ingot.symbolic.expr import EVALUATION_ERRORS, INT_MAX, Expr, Op, Sort, evaluate, post_order
from ingot.symbolic.z3_strings import string_val

if TYPE_CHECKING:
    from ingot.symbolic.solver import Solver

# Z3 units for the question: it is linear (or small non-linear) integer arithmetic over a few
# fields, answered in a few thousand units; a query Z3 finds hard here is left to the walk.
PARSED_RLIMIT = 200_000


def parsed_nodes(entries: list[Expr]) -> list[Expr]:
    """The query's `to_int` nodes (each once, in the order the entries first reach them)."""
    seen: dict[int, Any] = {}
    out = []
    for e in entries:
        for node in post_order(e, seen):
            seen[node.id] = None
            if node.op is Op.TO_INT:
                out.append(node)
    return out


def solve(solver: Solver, entries: list[Expr], held: dict[str, Any]) -> dict[int, int] | None:
    """Values of the live `to_int` nodes of `entries` (node id -> a natural number) under which
    every entry holds, with each variable of `held` (inputs and split parts, as computed from the
    inputs) fixed at its value, and as many as can be at their held values (`_model_keeping`);
    None when there are none, or Z3 finds none within its limit."""
    nodes = parsed_nodes(entries)
    if not nodes:
        return None
    ctx = z3.Context()
    try:
        fresh = {node.id: z3.Int(f"$parsed{node.id}", ctx) for node in nodes}
        terms = _held_terms(solver, entries, {node.id: node for node in nodes}, fresh, held, ctx)
        live = _constants(terms)
        fresh = {node_id: f for node_id, f in fresh.items() if f.decl().name() in live}
        if not fresh:
            return None
        s = solver.fresh_z3(solver.clock_ms, PARSED_RLIMIT, ctx)
        s.add(*terms)
        for f in fresh.values():
            s.add(f >= 0, f <= INT_MAX)  # (digits only: a sign is the text's own)
        model = _model_keeping(solver, s, ctx, fresh, _held_numbers(nodes, held))
    except z3.Z3Exception:
        return None
    if model is None:
        return None
    return {node_id: model.eval(f, model_completion=True).as_long() for node_id, f in fresh.items()}


def _held_numbers(nodes: list[Expr], held: dict[str, Any]) -> dict[int, int]:
    """Each `to_int` node's value under the held text, where its field is a number."""
    out = {}
    for node in nodes:
        try:
            value = evaluate(node, held, {})
        except EVALUATION_ERRORS:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= INT_MAX:
            out[node.id] = value
    return out


def _model_keeping(solver: Solver, s: z3.Solver, ctx: z3.Context, fresh: dict[int, z3.ExprRef],
                   held: dict[int, int]) -> z3.ModelRef | None:
    """A model of `s` that keeps as many numbers at their held values as it can, one at a time
    (a year "2025" the query is content with stays 2025, beside the month it needs changed, not
    the 0 Z3 gives first); None if `s` has none."""
    if solver.checked(s, ctx) != z3.sat:
        return None
    model = s.model()
    for node_id, f in fresh.items():
        if node_id not in held or model.eval(f, model_completion=True).as_long() == held[node_id]:
            continue
        s.push()
        s.add(f == held[node_id])
        if solver.checked(s, ctx) == z3.sat:
            model = s.model()  # (kept: the next ones are asked beside it)
        else:
            s.pop()
    return model


def _held_terms(solver: Solver, entries: list[Expr], nodes: dict[int, Expr], fresh: dict[int, z3.ExprRef],
                held: dict[str, Any], ctx: z3.Context) -> list[z3.ExprRef]:
    """The entries in `ctx` with each `to_int` node replaced by its integer in `fresh` and every
    variable of `held` by its value, simplified (the branches a held text does not take dropped)."""
    numbers = _Substitution([(solver.to_z3(node).translate(ctx), fresh[node_id]) for node_id, node in nodes.items()])
    values = _Substitution(_held_values(solver, held, ctx))
    return [z3.simplify(values(numbers(solver.to_z3(e).translate(ctx)))) for e in entries]


class _Substitution:
    """`z3.substitute(t, *pairs)` as a function of `t`, its arrays built once: z3's own checks
    every pair's sorts on every call, which took most of a query's time over a split's many
    parts (a hundred entries, as many held variables)."""

    def __init__(self, pairs: list[tuple[z3.ExprRef, z3.ExprRef]]) -> None:
        self.pairs = pairs  # (their references keep the arrays' terms alive)
        n = len(pairs)
        self.sources, self.targets = (z3.Ast * n)(), (z3.Ast * n)()
        for i, (a, b) in enumerate(pairs):
            self.sources[i], self.targets[i] = a.as_ast(), b.as_ast()

    def __call__(self, t: z3.ExprRef) -> z3.ExprRef:
        if not self.pairs:
            return t
        ctx = t.ctx
        return z3.z3._to_expr_ref(z3.Z3_substitute(ctx.ref(), t.as_ast(), len(self.pairs), self.sources, self.targets),
                                  ctx)


def _constants(terms: list[z3.ExprRef]) -> set[str]:
    """The names of the uninterpreted constants the terms mention (a number whose branch the
    simplifier dropped is not among them)."""
    out: set[str] = set()
    seen: set[int] = set()
    stack = list(terms)
    while stack:
        t = stack.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z3.is_const(t) and t.decl().kind() == z3.Z3_OP_UNINTERPRETED:
            out.add(t.decl().name())
        stack.extend(t.children())
    return out


def _held_values(solver: Solver, held: dict[str, Any], ctx: z3.Context) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
    """(variable, its value) in `ctx` for each string, int and bool variable of `held` Z3 knows."""
    out = []
    for name, value in held.items():
        known = solver.variable(name)
        if known is None:
            continue
        sort, v = known
        if sort is Sort.STRING and isinstance(value, str):
            out.append((v.translate(ctx), string_val(value, ctx)))
        elif sort is Sort.INT and isinstance(value, int) and not isinstance(value, bool):
            out.append((v.translate(ctx), z3.IntVal(value, ctx)))
        elif sort is Sort.BOOL and isinstance(value, bool):
            out.append((v.translate(ctx), z3.BoolVal(value, ctx)))
    return out
