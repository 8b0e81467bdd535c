"""A model for a query Z3 could not answer, searched for near the values of the run it came from.

Z3's string solver answers `unknown` at the per-query limit on queries a person answers at a
glance: a line cut on `|`, trimmed, its second field parsed, and `total < 3600` negated, where
changing one digit of the run's own input ("60h 1m 5s" into "0h 1m 5s") is a model. The search
here is what a fuzzer guided by the query does (as JFS or the local search in Angora do): start
from the run's values (half the candidates) or the walk's current place, mutate a variable
once to three times (a character replaced, inserted or dropped, a field of the program's own
literals added at a separator, a number moved) or, a quarter of the time, write the literal a
failing entry equates a split part or a slice with where that string was read (`Query.aimed`:
the simplest answer to what Z3 leaves unknown on a long path), evaluate every entry of the query
with BAML's semantics (`expr.evaluate`) and move when no fewer entries hold and the others are
no farther from holding (Korel's branch distance). A model it returns satisfies the whole query by
evaluation, so it is as good as Z3's; finding none proves nothing (the answer stays unknown).

Where the query parses numbers, the walk's first step is the run's text with the numbers its
arithmetic needs written in (`Query.numbers_written`, solved by `parsed_numbers` with every
string held): "0:3-3:3" past a day is "0:3-24:4" in one step, where moving digits at random
takes most walks longer than their budget. When the numbers as they read fall short, the next
candidate writes each with its field's width ("01" for a month in "YYYY-MM-DD", whose
lengths the path checked).

The variables a `split` defines (`$split...`: its parts and their count) and those of a cut at
a separator (`$cut...`: the parts before and after it) are not searched: they are computed
from the string that was cut after every mutation, as the definition on the path says they are.

The number of evaluations is bounded per query and in all (`SolverStats.nearby_evaluations`),
and the random choices are seeded by the solver's seed and its query count: the same
exploration searches the same way on any machine, and after a resume.
"""

from __future__ import annotations

import functools
import math
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ingot.symbolic import parsed_numbers
from ingot.symbolic.cuts import Cut, cut_of
from ingot.symbolic.expr import (
    EVALUATION_ERRORS,
    INT_MAX,
    INT_MIN,
    Expr,
    Op,
    Sort,
    evaluate,
    post_order,
)
from ingot.symbolic.straight_line import Definition, definition_of

Derived = Definition | Cut  # what defines variables from a string: `outputs`, `writable`, `derive`, `written`

# Values for the numbers a query parses (node id -> number), given every variable's value.
NumberSolver = Callable[[list[Expr], dict[str, Any]], "dict[int, int] | None"]

# Candidate inputs evaluated per query: a few hundred evaluations of a query cost about what
# one unknown answer from Z3 costs at the string queries' resource limit.
EVALUATIONS_PER_QUERY = 200
# Evaluations in all, so that an exploration whose every string query is unknown (its models'
# budget spent) does not spend its time here: an evaluation costs 0.3-0.9 ms on the application
# benchmarks' queries, so this is half a minute at most (they use 4-11 k).
TOTAL_EVALUATIONS = 50_000
DIGITS = "0123456789"
# Candidates that write a literal where an entry equates a part with it (`Query.aimed`), rather
# than mutating at random: the rest still explore around the run's values.
AIMED_SHARE = 0.25
# Mutations of a string that move one of its numbers (`_moved_number`), where it has digits.
NUMBER_MOVES = 0.2
ALL_NUMBERS_SHARE = 0.25  # of the number moves: every run of digits moved at once (`_moved_number`)


@dataclass
class Tokens:
    """What mutations splice in: the program's literals (as the fuzzing dictionary has them)."""

    strings: list[str] = field(default_factory=list)
    separators: list[str] = field(default_factory=list)  # one-character literals
    ints: list[int] = field(default_factory=list)

    @functools.cached_property
    def alphabet(self) -> str:
        """The characters a mutation inserts or substitutes (computed once: the literals are fixed)."""
        chars = set(DIGITS + " -")
        for s in self.strings + self.separators:
            chars.update(s)
        return "".join(sorted(chars))

    def token(self, rng: random.Random) -> str:
        """A literal, or a run of digits (what `int.parse` reads)."""
        if self.strings and rng.random() < 0.7:
            return rng.choice(self.strings)
        return "".join(rng.choice(DIGITS) for _ in range(rng.randint(1, 3)))


@dataclass
class Query:
    """A query prepared for the search: its entries, the variables searched and those derived."""

    entries: list[Expr]
    free: dict[str, Sort]  # variables mutated
    derived: list[Derived]  # split and cut definitions, in an order where a source is computed first
    _orders: dict[int, list[Expr]] = field(default_factory=dict)  # entry id -> its nodes, children first

    def numbers_written(self, env: dict[str, Any], solve_numbers: NumberSolver,
                        padded: bool = False) -> dict[str, Any] | None:
        """Free values with the numbers the query parses solved for (`parsed_numbers`, every
        other string held at its value under `env`) and each written where its field was read,
        one after the other (each write re-reads the text the last one changed). None when no
        numbers were solved or none could be written. `padded`: each number written with as
        many digits as its field had characters (`_padded`)."""
        derived = dict(env)
        if not self._derive(derived):
            return None
        solved = solve_numbers(self.entries, derived)
        if not solved:
            return None
        out = {n: env[n] for n in self.free}
        wrote = False
        for node in self.parsed:
            if node.id not in solved:
                continue
            derived = dict(out)
            if not self._derive(derived):
                return None
            text = str(solved[node.id])
            if padded:
                try:
                    field = evaluate(node.args[0], derived, {})
                except EVALUATION_ERRORS:
                    field = None
                text = _padded(solved[node.id], len(field) if isinstance(field, str) else 0)
            wrote = self._write(out, derived, {}, node.args[0], text) or wrote
        return out if wrote else None

    @functools.cached_property
    def parsed(self) -> list[Expr]:
        """The query's `to_int` nodes: the numbers it parses out of its strings."""
        return parsed_numbers.parsed_nodes(self.entries)

    @functools.cached_property
    def parts(self) -> dict[str, Derived]:
        """Each part a split or a cut defines -> its definition."""
        return {name: d for d in self.derived for name in d.writable()}

    @classmethod
    def of(cls, entries: list[Expr]) -> Query:
        sorts: dict[str, Sort] = {}
        seen: dict[int, Any] = {}
        for e in entries:
            for node in post_order(e, seen):
                seen[node.id] = None
                if node.op is Op.VAR:
                    sorts[node.value] = node.sort
        defs: list[Derived] = [d for d in (definition_of(e) or cut_of(e) for e in entries) if d is not None]
        # A part whose definition is not in the query is as free as an input (a model that sets
        # it is a candidate the run confirms or not, as Z3's would be).
        derived_names = {n for d in defs for n in d.outputs()}
        free = {n: s for n, s in sorted(sorts.items()) if n not in derived_names}
        return cls(entries, free, _ordered(defs, set(free)))

    def score(self, env: dict[str, Any], at_least: int = 0) -> tuple[int, float] | None:
        """How many entries hold under `env` (its derived variables computed first), and how far
        the others are from holding (Korel's branch distance, less is nearer): `n * 10 > 5000`
        moves toward holding as `n` grows before it holds. None as soon as fewer than
        `at_least` can hold (most mutations break an entry of the path; the entry that broke
        it is asked first next time, as a solver watches the clause that failed last)."""
        if not self._derive(env):
            return None
        memo: dict[int, Any] = {}
        held, far, failed = 0, 0.0, 0
        room = len(self.entries) - at_least
        for i, e in enumerate(self.entries):
            try:
                if self._evaluate(e, env, memo) is True:
                    held += 1
                    continue
                far += _normalized(_distance(e, env, memo, True))
            except EVALUATION_ERRORS:
                far += 1.0
            failed += 1
            if failed > room:
                if i:
                    self.entries.insert(0, self.entries.pop(i))
                return None
        return held, -far

    def _evaluate(self, e: Expr, env: dict[str, Any], memo: dict[int, Any]) -> Any:
        """`evaluate(e, env, memo)` in an order computed once per entry: the walk scores
        hundreds of candidates on the same entries, and finding the order again took as long
        as evaluating."""
        order = self._orders.get(e.id)
        if order is None:
            order = self._orders[e.id] = post_order(e, {})
        return evaluate(e, env, memo, order)

    def aimed(self, env: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
        """Free values that make one of the entries failing under `env` hold, when it equates a
        string with a literal and that string is a variable (an input, a split part) or a slice
        of one: the literal is written where the string was read, the part into the text it was
        cut from, that text into its own, up to an input (`parts[1] == "fee"` on "+4 -2" gives
        "+4 fee"; `a.slice(at + 1, n) == "corp.example"` on "x@." gives "x@corp.example"). What
        Z3 leaves unknown on a long path is often just this; the whole query is evaluated on
        the result all the same. None when no failing entry is of that form."""
        derived = dict(env)
        if not self._derive(derived):
            return None
        memo: dict[int, Any] = {}
        wanted = []
        for e in self.entries:
            target = _equated_literal(e)
            if target is None:
                continue
            try:
                if evaluate(e, derived, memo) is not True:
                    wanted.append(target)
            except EVALUATION_ERRORS:
                continue
        if not wanted:
            return None
        where, text = rng.choice(wanted)
        out = {n: env[n] for n in self.free}
        return out if self._write(out, derived, memo, where, text) else None

    def _write(self, out: dict[str, Any], derived: dict[str, Any], memo: dict[int, Any], where: Expr, text: str,
               depth: int = 0) -> bool:
        """Make `where` read `text` by changing the free values in `out`; False where no way back
        to them is known (a computed string other than a slice)."""
        if depth > 8:
            return False
        if where.op is Op.SUBSTR:
            whole, start, count = where.args
            try:
                value, i, n = (evaluate(a, derived, memo) for a in (whole, start, count))
            except EVALUATION_ERRORS:
                return False
            if not isinstance(value, str) or not isinstance(i, int) or not isinstance(n, int) or not 0 <= i <= len(value):
                return False
            return self._write(out, derived, memo, whole, value[:i] + text + value[i + max(n, 0):], depth + 1)
        if where.op is Op.ITE:  # (a slice at a cut: the part where the separator is found)
            try:
                taken = evaluate(where.args[0], derived, memo)
            except EVALUATION_ERRORS:
                return False
            return self._write(out, derived, memo, where.args[1 if taken else 2], text, depth + 1)
        if where.op is not Op.VAR:
            return False
        if where.value in self.free:
            out[where.value] = text
            return True
        d = self.parts.get(where.value)
        if d is None:
            return False
        try:
            whole = evaluate(d.source, derived, memo)
        except EVALUATION_ERRORS:
            return False
        rewritten = d.written(whole, where.value, text) if isinstance(whole, str) else None
        return rewritten is not None and self._write(out, derived, memo, d.source, rewritten, depth + 1)

    def _derive(self, env: dict[str, Any]) -> bool:
        for d in self.derived:
            try:
                text = evaluate(d.source, env)
            except EVALUATION_ERRORS:
                return False
            if not isinstance(text, str):
                return False
            env.update(d.derive(text))
        return True


def search(entries: list[Expr], near: dict[str, Any], tokens: Tokens, rng: random.Random,
           evaluations: int, max_length: int, deadline: float | None = None,
           solve_numbers: NumberSolver | None = None) -> tuple[dict[str, Any] | None, int]:
    """A model of `entries` found by mutating `near`'s values, and the evaluations spent (fewer
    when the `deadline`, a `perf_counter` time, passes). `solve_numbers` (`parsed_numbers.solve`)
    gives the walk its first step where the query parses numbers: the run's text with the
    numbers the arithmetic needs written in."""
    q = Query.of(list(entries))
    if not q.free:
        return None, 0
    seed = {n: near[n] if n in near else _default(s) for n, s in q.free.items()}  # no `get`: a
    # fresh input's `get` would draw a value
    env, best = seed, q.score(dict(seed)) or (-1, 0.0)
    spent = 1
    if solve_numbers is not None and q.parsed and best[0] < len(entries) and spent < evaluations:
        # as the number reads, then with the field's width kept ("2025-\t\x00-31" -> "2025-01-31"
        # where the query checks that the month has two characters), when the first falls short
        for padded in (False, True):
            written = q.numbers_written(seed, solve_numbers, padded)
            if written is not None and spent < evaluations:
                spent += 1
                score = q.score(written, best[0])
                if score is not None and score >= best:
                    env, best = written, score
            if best[0] == len(entries):
                break
    names = list(q.free)
    alphabet = tokens.alphabet
    while best[0] < len(entries) and spent < evaluations:
        if deadline is not None and spent % 16 == 0 and time.perf_counter() > deadline:
            break
        # Most models are a mutation or two away from the run's own values: half the candidates
        # start from them again, the others from the walk's current place (a plateau of equal
        # scores is crossed by walking it).
        start = seed if rng.random() < 0.5 else env
        aimed = q.aimed(start, rng) if rng.random() < AIMED_SHARE else None
        candidate = dict(aimed if aimed is not None else start)
        for _ in range(0 if aimed is not None else rng.choice((1, 1, 2, 3))):
            name = rng.choice(names)
            candidate[name] = _mutated(rng, q.free[name], candidate[name], tokens, alphabet, max_length)
        score = q.score(candidate, best[0])
        spent += 1
        if score is not None and score >= best:
            env, best = candidate, score
    if best[0] < len(entries):
        return None, spent
    return {n: env[n] for n in q.free}, spent


def _padded(n: int, width: int) -> str:
    """`n` in decimal with leading zeros up to `width` characters (its sign included), which
    parses back to `n`: a field keeps its length, and the text after it its offsets."""
    digits = str(abs(n)).zfill(width - (n < 0))
    return "-" + digits if n < 0 else digits


def _equated_literal(e: Expr) -> tuple[Expr, str] | None:
    """(the string, the literal) when `e` is `string == "literal"`, else None."""
    if e.op is not Op.EQ:
        return None
    a, b = e.args
    where, lit = (a, b) if b.is_const else (b, a)
    if lit.is_const and isinstance(lit.value, str) and where.sort is Sort.STRING and not where.is_const:
        return where, lit.value
    return None


def _distance(e: Expr, env: dict[str, Any], memo: dict[int, Any], want: bool) -> float:
    """How far `e` is from evaluating to `want`: the gap of a comparison of numbers, the sum
    over a conjunction's failing parts, the least over a disjunction's; 1 where no gap is
    measured (strings, booleans)."""
    if e.op is Op.NOT:
        return _distance(e.args[0], env, memo, not want)
    if e.op in (Op.AND, Op.OR):
        parts = [_distance(a, env, memo, want) for a in e.args
                 if evaluate(a, env, memo) is not want]
        if not parts:
            return 0.0
        return sum(parts) if (e.op is Op.AND) == want else min(parts)
    if e.op in (Op.LT, Op.LE, Op.EQ):
        a, b = (evaluate(arg, env, memo) for arg in e.args)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
            gap = float(a) - float(b)
            if e.op is Op.EQ:
                return abs(gap) if want else 1.0
            strict = e.op is Op.LT
            if want:  # a < b (or a <= b) wanted: the amount a is too large by
                return max(gap + (1 if strict else 0), 0.0)
            return max(-gap + (0 if strict else 1), 0.0)  # a >= b (or a > b) wanted
    return 0.0 if evaluate(e, env, memo) is want else 1.0


def _normalized(d: float) -> float:
    """A distance in [0, 1): one more entry held always outweighs nearing another. On a log
    scale, so gaps of 10^15 and 10^16 (an overflow's bound) still compare."""
    if not math.isfinite(d):
        return 1.0
    g = math.log1p(d)
    return g / (g + 1.0)


def _mutated(rng: random.Random, sort: Sort, value: Any, tokens: Tokens, alphabet: str, max_length: int) -> Any:
    if sort is Sort.STRING:
        return _mutated_string(rng, value if isinstance(value, str) else "", tokens, alphabet)[:max_length]
    if sort is Sort.INT:
        return _mutated_int(rng, value if isinstance(value, int) else 0, tokens)
    if sort is Sort.BOOL:
        return not value
    if sort is Sort.FLOAT:
        return float(_mutated_int(rng, int(value) if isinstance(value, float) and value == value
                                  and abs(value) < 2**62 else 0, tokens))
    return value


def _mutated_string(rng: random.Random, s: str, tokens: Tokens, alphabet: str) -> str:
    if rng.random() < NUMBER_MOVES:
        moved = _moved_number(rng, s, tokens)
        if moved is not None:
            return moved
    roll = rng.random()
    at = rng.randint(0, len(s))
    if roll < 0.25 and s:  # one character for another, a digit for a digit most of all
        i = rng.randrange(len(s))
        pool = DIGITS if s[i].isdigit() and rng.random() < 0.7 else alphabet
        return s[:i] + rng.choice(pool) + s[i + 1:]
    if roll < 0.4 and s:  # a character or a short run dropped
        return s[:at] + s[at + rng.randint(1, 3):]
    if roll < 0.5:
        return s[:at] + rng.choice(alphabet) + s[at:]
    if roll < 0.55 and tokens.separators:
        return s[:at] + rng.choice(tokens.separators) + s[at:]
    if roll < 0.65:
        return s[:at] + tokens.token(rng) + s[at:]
    if roll < 0.9 and tokens.separators:
        # one more field or item, where the text has its separators: "60h" -> "60h 5m"
        sep = rng.choice(tokens.separators)
        cuts = [0, len(s)] + [i for i, c in enumerate(s) if c == sep]
        cut = rng.choice(cuts)
        piece = tokens.token(rng) + (rng.choice(tokens.strings) if tokens.strings and rng.random() < 0.5 else "")
        return s[:cut] + piece + sep + s[cut:] if cut == 0 else s[:cut] + sep + piece + s[cut:]
    if s and rng.random() < 0.5:  # a field or item dropped
        sep = rng.choice(tokens.separators) if tokens.separators else " "
        fields = s.split(sep)
        if len(fields) > 1:
            del fields[rng.randrange(len(fields))]
            return sep.join(fields)
    return rng.choice(tokens.strings) if tokens.strings else s


_DIGIT_RUN = re.compile(r"[0-9]+")


def _moved_number(rng: random.Random, s: str, tokens: Tokens) -> str | None:
    """`s` with one of its runs of digits read as a number and moved as an int variable is
    ("60h 5m" -> "30h 5m" -> "0h 5m"), half the time padded to the run's width: a sum of parsed
    fields under a bound is then a few steps of the walk, where a digit changed at random
    rarely lowers the right field; some of the time every run at once (`_every_number_moved`).
    None when `s` has no digits."""
    runs = list(_DIGIT_RUN.finditer(s))
    if not runs:
        return None
    if len(runs) > 1 and rng.random() < ALL_NUMBERS_SHARE:
        return _every_number_moved(rng, s)
    run = rng.choice(runs)
    digits = run.group()
    moved = str(abs(_mutated_int(rng, int(digits), tokens)) if rng.random() < 0.5 else
                rng.choice((0, int(digits) // 2)))
    if rng.random() < 0.5:
        moved = moved.zfill(len(digits))  # a field of fixed width keeps it: "43" -> "03", "09:30" -> "04:30"
    return s[:run.start()] + moved + s[run.end():]


_SAME_MOVES: tuple[Callable[[int], int], ...] = (lambda n: 0, lambda n: n * 2, lambda n: n * 10, lambda n: n // 2)


def _every_number_moved(rng: random.Random, s: str) -> str:
    """`s` with every run of digits moved the same way (zeroed, doubled, times ten or halved): a
    sum of parsed fields ("76h 76h 76h" under an hour) is then one step of the walk, where one
    field at a time takes several, each undone by the walk's restarts from the run's values."""
    move = rng.choice(_SAME_MOVES)
    return _DIGIT_RUN.sub(lambda m: str(move(int(m.group()))), s)


def _mutated_int(rng: random.Random, n: int, tokens: Tokens) -> int:
    roll = rng.random()
    if roll < 0.3 and tokens.ints:
        out = rng.choice(tokens.ints)
    elif roll < 0.7:
        out = n + rng.choice((-1, 1, -2, 2, -10, 10))
    elif roll < 0.8:
        out = -n
    elif roll < 0.9:
        out = n * rng.choice((2, 10)) if n else 1
    else:
        out = n // 2
    return max(INT_MIN, min(INT_MAX, out))


def _default(sort: Sort) -> Any:
    return {Sort.STRING: "", Sort.INT: 0, Sort.BOOL: False, Sort.FLOAT: 0.0}.get(sort, 0)


def _ordered(defs: Sequence[Derived], known: set[str]) -> list[Derived]:
    """The definitions in an order where each one's source is computable from what comes before
    (a line's fields are cut from a part of the lines); one whose source never is, is left out
    (its variables then stay as the query found them: the evaluation says no)."""
    out, pending, have = [], list(defs), set(known)
    while pending:
        ready = [d for d in pending if d.source.vars <= have]
        if not ready:
            break
        for d in ready:
            out.append(d)
            pending.remove(d)
            have.update(d.outputs())
    return out
