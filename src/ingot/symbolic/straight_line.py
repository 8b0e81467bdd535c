"""Straight-line forms of queries over `split`'s parts (`string_models._Parts`).

A split's definition is a disjunction over its number of parts `c`: `count == c`, the cut
string `s` equal to the `c` parts joined by the separator, no separator inside a part. Z3's
string solver pays dearly for it: with `s` equal to one of several concatenations of
variables, each query over the parts solves word equations, and once lines are split again
(a nested definition on a part) a query costs 10^5 to 10^6 resource units.

The loop over the parts compares the count with constants, so most queries leave few
counts possible. For the combination of counts the query allows with the fewest parts, the
case is chosen here and `s`, when it is a variable, is replaced by its join wherever it
occurs (in the other definitions too): the query is then straight-line (each string a
concatenation of parts), which Z3 answers in a few thousand units. The first sat case
answers, and so does unknown (the whole query is dearer still); after an unsat case the
next combination is tried (a few, while they cost less than one whole query), and unsat is
an answer only when every combination was. Otherwise the caller asks the whole query.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import z3

from ingot.symbolic import string_ops as so
from ingot.symbolic.expr import Expr, Op, Sort
from ingot.symbolic.z3_strings import string_val

if TYPE_CHECKING:
    from ingot.symbolic.solver import Result, Solver

# Values an expression is followed through (`_possible`) before it counts as unknown.
MAX_VALUES = 16
# Combinations of counts tried one by one (while each is unsat, and together they cost less than
# one string query's resource limit) before the whole query is asked: a column found third in a
# header is a case of three parts, not the fewest.
MAX_CASES = 8


@dataclass(frozen=True)
class Definition:
    node: Expr  # the disjunction, one of the query's entries
    count: str  # the count variable's name
    source: Expr  # the string that was cut
    cases: dict[int, tuple[Expr, Expr]]  # count -> (the case, the parts joined)

    # The names follow `_Parts`: `$split<id>.<separator in hex>.$len` and `...[j]` for the parts.
    @property
    def separator(self) -> str:
        return bytes.fromhex(self.count[: -len(".$len")].rsplit(".", 1)[1]).decode()

    def outputs(self) -> list[str]:
        """The variables the definition defines: its count, then its parts in order."""
        prefix = self.count[: -len(".$len")]
        return [self.count, *(f"{prefix}[{j}]" for j in range(len(self.cases)))]

    def writable(self) -> list[str]:
        """The outputs a search may write a string into: the parts."""
        return self.outputs()[1:]

    def derive(self, text: str) -> dict[str, Any]:
        """The outputs' values for `text` cut (the parts past its count empty)."""
        parts = text.split(self.separator)
        count, *names = self.outputs()
        return {count: len(parts), **{name: parts[j] if j < len(parts) else "" for j, name in enumerate(names)}}

    def written(self, text: str, name: str, value: str) -> str | None:
        """`text` with the part `name` replaced by `value` (fields added up to it where it has fewer)."""
        j = self.writable().index(name)
        fields = text.split(self.separator)
        fields += [""] * (j + 1 - len(fields))
        fields[j] = value
        return self.separator.join(fields)


def definition_of(e: Expr) -> Definition | None:
    """The split definition `e` is (`_Parts.definition`), or None."""
    if e.op is not Op.OR:
        return None
    cases: dict[int, tuple[Expr, Expr]] = {}
    count = source = None
    for case in e.args:
        if case.op is not Op.AND or len(case.args) < 2:
            return None
        pinned, equal = case.args[0], case.args[1]
        if pinned.op is not Op.EQ or equal.op is not Op.EQ:
            return None
        var, c = sorted(pinned.args, key=lambda a: a.is_const)
        if var.op is not Op.VAR or not c.is_const or not var.value.startswith("$split") \
                or not var.value.endswith(".$len") or (count is not None and var.value != count):
            return None
        count = var.value
        prefix = count[: -len(".$len")] + "["
        joined, cut = equal.args
        if not _only(joined, prefix):
            joined, cut = cut, joined
        if not _only(joined, prefix) or cut.vars & joined.vars or (source is not None and cut is not source):
            return None
        source = cut
        cases[int(c.value)] = (case, joined)
    if count is None or source is None:
        return None
    return Definition(e, count, source, cases)


def _only(e: Expr, prefix: str) -> bool:
    return bool(e.vars) and all(v.startswith(prefix) for v in e.vars) and e.op in (Op.VAR, Op.CONCAT)


def feasible_counts(d: Definition, query: list[Expr]) -> list[int]:
    """The counts no entry of the query on `d`'s count rules out (as far as constants decide)."""
    on_count = [q for q in query if d.count in q.vars and q is not d.node]
    out = []
    for c in sorted(d.cases):
        env = {d.count: c}
        if all(_maybe_true(q, env) for q in on_count):
            out.append(c)
    return out


def _maybe_true(e: Expr, env: dict[str, Any]) -> bool:
    values = _possible(e, env, {})
    return values is None or True in values


def _possible(e: Expr, env: dict[str, Any], memo: dict[int, frozenset[Any] | None]) -> frozenset[Any] | None:
    """The values `e` may take with `env`'s variables fixed and the others free (None: any)."""
    if e.id in memo:
        return memo[e.id]
    out: frozenset[Any] | None = None
    if e.op is Op.CONST:
        out = frozenset((e.value,))
    elif e.op is Op.VAR:
        out = frozenset((env[e.value],)) if e.value in env else None
    elif e.op is Op.ITE:
        cond = _possible(e.args[0], env, memo)
        branches = [b for b, v in ((e.args[1], True), (e.args[2], False)) if cond is None or v in cond]
        sets = [_possible(b, env, memo) for b in branches]
        out = None if any(s is None for s in sets) else frozenset().union(*sets)  # type: ignore[arg-type]
    elif e.op in _COMBINE:
        sets = [_possible(a, env, memo) for a in e.args]
        if e.op in (Op.AND, Op.OR, Op.NOT):
            sets = [frozenset((True, False)) if s is None else s for s in sets]
        if all(s is not None for s in sets) and _product_size(sets) <= MAX_VALUES:
            out = frozenset(_COMBINE[e.op](*vs) for vs in itertools.product(*sets))  # type: ignore[arg-type]
            if len(out) > MAX_VALUES:
                out = None
        elif e.sort is Sort.BOOL:
            out = frozenset((True, False))
    memo[e.id] = out
    return out


def _product_size(sets: list[Any]) -> int:
    n = 1
    for s in sets:
        n *= len(s)
    return n


_COMBINE: dict[Op, Any] = {
    Op.ADD: lambda a, b: a + b, Op.SUB: lambda a, b: a - b, Op.MUL: lambda a, b: a * b,
    Op.NEG: lambda a: -a, Op.EQ: lambda a, b: a == b, Op.LT: lambda a, b: a < b,
    Op.LE: lambda a, b: a <= b, Op.NOT: lambda a: not a,
    Op.AND: lambda *a: all(a), Op.OR: lambda *a: any(a),
}


def combinations(choices: list[list[int]]) -> Iterator[tuple[int, ...]]:
    """Every choice of one count per definition, fewest parts (then earlier definitions) first."""
    return iter(sorted(itertools.product(*choices), key=lambda combo: (sum(combo), combo)))


def solve(solver: Solver, query: list[Expr], names: dict[str, Sort], timeout: int) -> Result | None:
    """The answer from straight-line cases of the query's split definitions; None: ask the whole
    query. `timeout` (ms) bounds each case and, from the first, the cases in all."""
    from ingot.symbolic.solver import Result

    defs = [d for d in (definition_of(q) for q in query) if d is not None]
    if not defs:
        return None
    choices = [feasible_counts(d, query) for d in defs]
    if any(not c for c in choices):
        return Result("unsat")  # no count of parts is left for some split: the whole query is unsat too
    # The fewest parts first, then the next combinations while they are unsat and cheap; unsat
    # proves the whole query unsat only when every combination was tried (otherwise the whole
    # query decides, and Z3 picks the count itself).
    spent, begun = 0, time.perf_counter()
    for tried, combo in enumerate(combinations(choices), 1):
        late = (time.perf_counter() - begun) * 1000 >= timeout
        if late or spent >= solver.string_rlimit() or tried > MAX_CASES:
            return None
        before = solver._units_seen
        result = _solve_case(solver, query, defs, combo, names, timeout)
        spent += solver._units_seen - before
        if result is None or result.status != "unsat":
            return result
    return Result("unsat")


def _solve_case(solver: Solver, query: list[Expr], defs: list[Definition], combo: tuple[int, ...],
                names: dict[str, Sort], timeout: int) -> Result | None:
    from ingot.symbolic.solver import Result

    try:
        chosen = {d.node.id: d.cases[c][0] for d, c in zip(defs, combo)}
        pairs = [(solver.to_z3(d.source), solver.to_z3(d.cases[c][1]))
                 for d, c in zip(defs, combo) if d.source.op is Op.VAR]
        joins = _composed(pairs)
        s = solver.fresh_z3(timeout, solver.string_rlimit())
        for q in query:
            case = chosen.get(q.id)
            s.add(_substituted(solver.to_z3(q) if case is None else _case_z3(solver, case, defs), joins))
        for name in sorted(names):
            if name in solver._vars:
                for dom in solver.domain(name, solver._vars[name][0]):
                    s.add(_substituted(dom, joins))
        found = solver.ascii_first(s, query, timeout, lambda t: _substituted(t, joins))
        if found is not None:
            s, status = found, z3.sat
        else:
            status = solver.checked(s)
            solver._count_units(s, query)
    except z3.Z3Exception:
        return None
    if status == z3.unsat:
        return Result("unsat")
    if status != z3.sat:
        return Result("unknown")
    m = s.model()
    model = {}
    for name in sorted(names):
        if name in solver._vars:
            sort, v = solver._vars[name]
            model[name] = _value(m.eval(_substituted(v, joins), model_completion=True), sort)
    return Result("sat", model)


def _case_z3(solver: Solver, case: Expr, defs: list[Definition]) -> z3.BoolRef:
    """A chosen case in Z3, with "no separator in this part" as `not contains` where the separator
    is one character. The definition says it with a regular membership, which Z3 refutes fast
    beside the word equation `s == join`; in the straight-line form there is no such equation,
    and the membership of a complement (every character but one, up to U+2FFFF) costs far more
    than `not contains`: a header cut in three and a row in two, 1.2 M units against 32 k."""
    single = {so.without(d.separator): d.separator for d in defs if len(d.separator) == 1}
    terms = []
    for a in case.args:
        sep = single.get(a.value) if a.op is Op.IN_RE else None
        if sep is None:
            terms.append(solver.to_z3(a))
        else:
            part = solver.to_z3(a.args[0])
            terms.append(z3.Not(z3.Contains(part, string_val(sep, solver.ctx))))
    return z3.And(*terms)


def _composed(pairs: list[tuple[z3.ExprRef, z3.ExprRef]]) -> list[tuple[z3.ExprRef, z3.ExprRef]]:
    """The substitution with every join written over parts no other join replaces (nested splits)."""
    out = list(pairs)
    for _ in range(len(pairs)):
        out = [(v, z3.substitute(j, *out)) if out else (v, j) for v, j in out]
    return out


def _substituted(e: z3.ExprRef, joins: list[tuple[z3.ExprRef, z3.ExprRef]]) -> z3.ExprRef:
    return z3.substitute(e, *joins) if joins else e


def _value(v: z3.ExprRef, sort: Sort) -> Any:
    from ingot.symbolic.solver import _value as value_of

    return value_of(v, sort)
