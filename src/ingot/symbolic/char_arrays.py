"""A string query asked as arithmetic: every string of a fixed length, each character a number.

Z3's string solver spends millions of units on queries a person answers at a glance: a date
cut at `-` into parts of 4, 2 and 2 characters, each parsed with `int.parse` (the sign and
digit checks of the model) and the month range-checked, came back unknown at the per-query
limit. Once each string's length is fixed, the same question is plain integer arithmetic: a
string is a list of character codes, `length` a number, `contains` a disjunction over
positions, `to_int` a sum of digits times powers of ten, a regular membership a dynamic program
over (sub-expression, start, end). Z3 answers that in a few thousand units.

`solve` picks the lengths first, from an over-approximation of the query in which every string
is its length alone (`_Lengths`: a concatenation is a sum, an equality of strings one of
lengths, any other test of characters a free Boolean; when no lengths fit, the query is unsat),
then asks the arithmetic question for those lengths (`_Lowering`). Lengths under which no characters fit are blocked and others tried,
a few times. Characters are drawn from printable ASCII with tab, line feed and carriage return
(inputs a user can read in a report and paste into a test), and from a few characters past
ASCII that the query's classes name (`_beyond_ascii`: a digit `int.parse` rejects).

Past the lengths' question, only a model is taken from here: the lengths and the alphabet are
choices, so "no answer" proves nothing, and the caller asks Z3's string solver as before. Both
passes walk the query's own expressions (`Expr`), not Z3's terms: the walk is a Python loop over interned nodes, and
every operator that is not about strings is translated by the solver's own table
(`Solver._translate`), so the two cannot differ on arithmetic. An operator the lowering has no
rule for (a `substr` at a position the lengths do not fix, `replace`) gives up at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import z3

from ingot.symbolic.expr import Expr, Op, Sort, nodes
from ingot.symbolic.string_ops import Regex, leaves

if TYPE_CHECKING:
    from ingot.symbolic.solver import Solver

# Lengths tried before giving up: each try is one cheap question of lengths and one of characters.
TRIES = 3
# The most characters the lowering builds (all strings together), and the most terms it makes:
# past either the arithmetic is no longer the cheap question.
MAX_CHARS = 160
MAX_TERMS = 40_000
# The most lowered nodes kept for later queries (a long search asks thousands).
MAX_KEPT = 200_000
ASCII_LAST = 126  # the last printable ASCII character

Check = Callable[[z3.Solver], z3.CheckSatResult]


class Unsupported(Exception):
    """An operator the lowering has no rule for: the query goes to Z3's string solver."""


class CharArrays:
    """The two passes for one `Solver`, with what they built kept from query to query: a node's
    length abstraction is the same in every query, and its lowering the same in every query that
    gives its strings the same lengths. (Z3's Python side is slow to build terms: without the
    memo, building cost more than Z3's answer on the queries of a loop over characters.)"""

    def __init__(self, solver: Solver) -> None:
        self.solver = solver
        self.lengths = _Lengths(solver)
        # (node id, its strings' lengths) -> its term, or its characters for a string node
        self.lowered: dict[tuple[int, tuple[tuple[str, int], ...]], Any] = {}
        self.chars: dict[tuple[str, int], z3.ArithRef] = {}  # a string variable's character -> its code
        self.alphabets: dict[tuple[str, int, tuple[int, ...]], z3.BoolRef] = {}  # ... that it is in the alphabet
        self.numbers: dict[int, z3.ArithRef] = {}

    def solve(self, query: list[Expr], make_solver: Callable[[], z3.Solver], checked: Check,
              max_length: int) -> dict[str, str | z3.ExprRef] | str | None:
        """Values for the variables of `query` (strings of at most `max_length` characters; the
        others' as Z3 values) under which it holds, found with every string's length chosen first; "unsat" when no lengths
        fit (the lengths' question over-approximates the query: a proof); None proves nothing.
        `make_solver` gives a fresh Z3 solver (with the caller's limits), `checked` asks it."""
        try:
            abstract = [self.lengths.term(c) for c in query]
        except (Unsupported, z3.Z3Exception):
            return None
        names = sorted({n for c in query for n in c.vars if _is_string_var(self.solver, n)})
        if not names:
            return None
        variables = {n: self.lengths.variable(n) for n in names}
        choices = [e for e in nodes(query) if e.op is Op.ITE and e.sort is Sort.STRING]
        if len(self.lowered) > MAX_KEPT:
            self.lowered.clear()
        by_length = make_solver()
        by_length.add(*abstract, *self.lengths.side(query))
        by_length.add(*[z3.And(v >= 0, v <= max_length) for v in variables.values()])
        for attempt in range(TRIES):
            fit = checked(by_length)
            if fit == z3.unsat and attempt == 0:
                return "unsat"  # (later, the lengths blocked were only those without characters in the alphabet)
            if fit != z3.sat:
                return None
            m = by_length.model()
            chosen = {n: m.eval(v, model_completion=True).as_long() for n, v in variables.items()}
            if sum(chosen.values()) > MAX_CHARS:
                return None
            try:
                tests = {e.id: self.lengths.term(e.args[0]) for e in choices}
                branches = {i: z3.is_true(m.eval(c, model_completion=True)) for i, c in tests.items()}
                lowering = _Lowering(self, chosen, branches)
                lowered = [lowering.term(c) for c in query]
            except (Unsupported, z3.Z3Exception):
                return None
            # ASCII first (an input a user can read), then with the characters the classes name
            for beyond in dict.fromkeys([(), _beyond_ascii(query)]):
                s = make_solver()
                s.add(*lowered, *lowering.assumed, *lowering.alphabet(beyond))
                status = checked(s)
                if status == z3.sat:
                    return lowering.values(s.model(), query)
                if status != z3.unsat:
                    return None
            by_length.add(z3.Or([variables[n] != k for n, k in chosen.items()]
                                + [tests[i] != z3.BoolVal(b, self.solver.ctx) for i, b in branches.items()]))
        return None


def _is_string_var(solver: Solver, name: str) -> bool:
    found = solver.variable(name)
    return found is not None and found[0] is Sort.STRING


def _mentions_strings(solver: Solver, e: Expr) -> bool:
    """Does `e` read a string variable? (Without one, Z3 needs no string solving for it.)"""
    for name in e.vars:
        found = solver.variable(name)
        if found is None or found[0] is Sort.STRING:
            return True
    return False


def _strings_of(e: Expr) -> bool:
    return any(a.sort is Sort.STRING for a in e.args)


class _Lengths:
    """Each node with every string replaced by its length: an over-approximation (any model of a
    query gives one of this). The free Booleans and numbers it introduces come with what they
    imply, kept per node (`side`)."""

    def __init__(self, solver: Solver) -> None:
        self.solver = solver
        self.ctx = solver.ctx
        self._memo: dict[int, z3.ExprRef] = {}
        self._sides: dict[int, list[z3.BoolRef]] = {}
        self._adding: list[z3.BoolRef] = []
        self._vars: dict[str, z3.ArithRef] = {}

    def variable(self, name: str) -> z3.ArithRef:
        """The length of the string variable `name`."""
        if name not in self._vars:
            self._vars[name] = z3.Int(f"$length[{name}]", self.ctx)
        return self._vars[name]

    def side(self, query: list[Expr]) -> list[z3.BoolRef]:
        """What the abstraction of `query`'s nodes implies."""
        out: list[z3.BoolRef] = []
        for node in nodes(query):
            out += self._sides.get(node.id, ())
            out += self._sides.get(-node.id - 1, ())
        return out

    def _memoized(self, key: int, build: Callable[[], z3.ExprRef]) -> z3.ExprRef:
        if key not in self._memo:
            outer, self._adding = self._adding, []
            try:
                self._memo[key] = build()
                if self._adding:
                    self._sides[key] = self._adding
            finally:
                self._adding = outer
        return self._memo[key]

    def _fresh(self, make: Callable[..., Any], e: Expr) -> Any:
        return make(f"$abstract{e.id}", self.ctx)

    def length(self, e: Expr) -> z3.ArithRef:
        # (a string node's length beside its other uses in the memo)
        return self._memoized(-e.id - 1, lambda: self._length(e))  # type: ignore[return-value]

    def _length(self, e: Expr) -> z3.ArithRef:
        ctx, op = self.ctx, e.op
        if op is Op.CONST:
            return z3.IntVal(len(e.value), ctx)
        if op is Op.VAR:
            return self.variable(e.value)
        if op is Op.CONCAT:
            return self.length(e.args[0]) + self.length(e.args[1])
        if op is Op.SUBSTR:
            s, i, n = self.length(e.args[0]), self.term(e.args[1]), self.term(e.args[2])
            return z3.If(z3.Or(i < 0, n <= 0, i >= s), 0, z3.If(n < s - i, n, s - i))
        if op is Op.ITE:
            return z3.If(self.term(e.args[0]), self.length(e.args[1]), self.length(e.args[2]))
        for a in e.args:  # replace, from_int: any length (their arguments' variables still get one)
            if a.sort is Sort.STRING:
                self.length(a)
            else:
                self.term(a)
        n = self._fresh(z3.Int, e)
        self._adding.append(n >= 0)
        return n

    def term(self, e: Expr) -> z3.ExprRef:
        return self._memoized(e.id, lambda: self._term(e))

    def _term(self, e: Expr) -> z3.ExprRef:  # noqa: C901 - one case per operator
        op = e.op
        if e.sort is Sort.STRING:
            raise Unsupported("a string where a value was expected")
        if not _mentions_strings(self.solver, e):
            return self.solver.to_z3(e)  # (translated before, once for every query)
        if op is Op.LENGTH:
            return self.length(e.args[0])
        if not _strings_of(e):
            return self.solver._translate(e, [self.term(a) for a in e.args])
        lens = [self.length(a) if a.sort is Sort.STRING else self.term(a) for a in e.args]
        if op in (Op.TO_INT, Op.TO_CODE, Op.INDEX_OF, Op.LAST_INDEX_OF):
            n = self._fresh(z3.Int, e)
            self._adding.append(n >= -1)
            if op is Op.TO_INT:
                self._adding.append(z3.Implies(n >= 0, lens[0] >= 1))
            elif op is Op.TO_CODE:
                self._adding.append(z3.Implies(n >= 0, lens[0] == 1))
            else:
                self._adding.append(n <= lens[0])
            return n
        b = self._fresh(z3.Bool, e)
        if op is Op.EQ:
            self._adding.append(z3.Implies(b, lens[0] == lens[1]))
        elif op in (Op.PREFIX, Op.SUFFIX, Op.CONTAINS):
            self._adding.append(z3.Implies(b, lens[1] <= lens[0]))
        elif op is Op.IN_RE:
            low, high = _regex_lengths(e.value)
            self._adding.append(z3.Implies(b, lens[0] >= low))
            if high is not None:
                self._adding.append(z3.Implies(b, lens[0] <= high))
        elif op not in (Op.LT, Op.LE, Op.CASELESS):
            raise Unsupported(op.value)
        return b


def _regex_lengths(r: Regex) -> tuple[int, int | None]:
    """The shortest and longest (None: unbounded) strings a regular expression accepts."""
    kind = r[0]
    if kind == "set":
        return 1, 1
    if kind in ("lit", "nocase"):
        return len(r[1]), len(r[1])
    if kind == "comp":
        return 0, None
    if kind == "loop":
        _, inner, low, high = r
        inner_low, inner_high = _regex_lengths(inner)
        return low * inner_low, None if high is None or inner_high is None else high * inner_high
    parts = [_regex_lengths(p) for p in r[1:]]
    highs = [h for _, h in parts]
    top = None if None in highs else [h for h in highs if h is not None]
    if kind == "seq":
        return sum(lo for lo, _ in parts), None if top is None else sum(top)
    return min(lo for lo, _ in parts), None if top is None else max(top)  # alt


def _printable(code: z3.ArithRef, k: Callable[[int], z3.ArithRef], beyond: tuple[int, ...]) -> z3.BoolRef:
    return z3.Or(z3.And(code >= k(32), code <= k(126)), code == k(9), code == k(10), code == k(13),
                 *[code == k(c) for c in beyond])


# Past ASCII, a character class stands for itself by the first characters of its first few ranges
# (`Unicode digits`: U+0660 ...): a query that needs a digit `int.parse` rejects, or a letter that
# is not ASCII, has one to use. At most this many per class, and in the alphabet of one query.
CLASS_SAMPLES = 4
MAX_SAMPLES = 16


def _samples(ranges: tuple[tuple[int, int], ...]) -> list[int]:
    return [lo for lo, _ in ranges if lo > ASCII_LAST][:CLASS_SAMPLES]


def _beyond_ascii(query: list[Expr]) -> tuple[int, ...]:
    """The characters past ASCII the query's classes name (`_samples`): the alphabet's extras."""
    out: set[int] = set()
    for node in nodes(query):
        if node.op is Op.IN_RE:
            for leaf in leaves(node.value):
                if leaf[0] == "set":
                    out.update(_samples(leaf[1]))
    return tuple(sorted(out)[:MAX_SAMPLES])


def _constant(t: z3.ExprRef) -> int | None:
    t = z3.simplify(t)
    return t.as_long() if z3.is_int_value(t) else None


class _Lowering:
    """The query with each string a list of character codes (`lengths` fixed per variable).
    What it builds goes into its owner's memo, keyed by the node and its strings' lengths."""

    def __init__(self, owner: CharArrays, lengths: dict[str, int], branches: dict[int, bool]) -> None:
        self.owner = owner
        self.solver = owner.solver
        self.ctx = owner.solver.ctx
        self.lengths = lengths
        # A choice between strings of two lengths (`ite(s.ends_with("\r"), cut, s)`) takes the
        # branch the lengths were chosen with (by the `ITE` node's id), and assumes its test.
        self.branches = branches
        self.assumed: list[z3.BoolRef] = []
        self._local: dict[Any, Any] = {}  # what depends on such a choice: this lowering's alone
        self._chose = False
        self._made = 0

    def k(self, n: int) -> z3.ArithRef:
        """The number `n` as a Z3 term (made once: Z3's Python side parses every new numeral)."""
        numbers = self.owner.numbers
        if n not in numbers:
            numbers[n] = z3.IntVal(n, self.ctx)
        return numbers[n]

    def count(self, n: int = 1) -> None:
        self._made += n
        if self._made > MAX_TERMS:
            raise Unsupported("too large")

    def alphabet(self, beyond: tuple[int, ...]) -> list[z3.BoolRef]:
        """Every character of every string variable is printable ASCII or one of `beyond`."""
        alphabets, out = self.owner.alphabets, []
        for name, n in self.lengths.items():
            for i in range(n):
                key = (name, i, beyond)
                if key not in alphabets:
                    alphabets[key] = _printable(self._char(name, i), self.k, beyond)
                out.append(alphabets[key])
        return out

    def _char(self, name: str, i: int) -> z3.ArithRef:
        chars = self.owner.chars
        if (name, i) not in chars:
            chars[name, i] = z3.Int(f"{name}@{i}", self.ctx)
        return chars[name, i]

    def values(self, model: z3.ModelRef, query: list[Expr]) -> dict[str, str | z3.ExprRef]:
        """Each variable's value in `model`: a string variable's text, any other's Z3 value."""
        out: dict[str, str | z3.ExprRef] = {}
        for name in sorted({n for c in query for n in c.vars}):
            found = self.solver.variable(name)
            if name in self.lengths:
                codes = [self._char(name, i) for i in range(self.lengths[name])]
                out[name] = "".join(chr(model.eval(c, model_completion=True).as_long()) for c in codes)
            elif found is not None:
                out[name] = model.eval(found[1], model_completion=True)
        return out

    def _key(self, e: Expr) -> tuple[int, tuple[tuple[str, int], ...]]:
        return e.id, tuple(sorted((n, self.lengths[n]) for n in e.vars if n in self.lengths))

    # -- strings ------------------------------------------------------------------------------
    def string(self, e: Expr) -> list[z3.ArithRef]:
        return self._memoized(self._key(e), lambda: self._string(e))  # type: ignore[no-any-return]

    def _memoized(self, key: Any, build: Callable[[], Any]) -> Any:
        """`build()`, kept for later queries unless it took a branch of a choice (`branches`)."""
        if key in self._local:
            self._chose = True
            return self._local[key]
        if key in self.owner.lowered:
            return self.owner.lowered[key]
        outer, self._chose = self._chose, False
        value = build()
        (self._local if self._chose else self.owner.lowered)[key] = value
        self._chose = self._chose or outer
        return value

    def _string(self, e: Expr) -> list[z3.ArithRef]:
        op = e.op
        if op is Op.CONST:
            return [self.k(ord(c)) for c in e.value]
        if op is Op.VAR:
            return self._variable(e.value)
        if op is Op.CONCAT:
            return self.string(e.args[0]) + self.string(e.args[1])
        if op is Op.SUBSTR:
            s = self.string(e.args[0])
            i, n = _constant(self.term(e.args[1])), _constant(self.term(e.args[2]))
            if i is None or n is None:
                raise Unsupported("a cut at a position the lengths do not fix")
            return s[i:i + n] if 0 <= i < len(s) and n > 0 else []
        if op is Op.FROM_INT:
            n = _constant(self.term(e.args[0]))
            if n is None:
                raise Unsupported("the digits of a number the lengths do not fix")
            return [self.k(ord(c)) for c in (str(n) if n >= 0 else "")]
        if op is Op.ITE:
            a, b = self.string(e.args[1]), self.string(e.args[2])
            c = self.term(e.args[0])
            if len(a) != len(b):
                if e.id not in self.branches:
                    raise Unsupported("a choice between strings of two lengths")
                self._chose = True
                taken = self.branches[e.id]
                self.assumed.append(c if taken else z3.Not(c))
                return a if taken else b
            self.count(len(a))
            return [z3.If(c, x, y) for x, y in zip(a, b)]
        raise Unsupported(op.value)

    def _variable(self, name: str) -> list[z3.ArithRef]:
        if name not in self.lengths:
            raise Unsupported(f"no length for {name}")
        return [self._char(name, i) for i in range(self.lengths[name])]

    # -- values -------------------------------------------------------------------------------
    def term(self, e: Expr) -> z3.ExprRef:
        key = (-e.id - 1, self._key(e)[1])  # (beside the node's characters, for a string `ITE`'s test)

        def build() -> z3.ExprRef:
            self.count()
            return self._term(e)

        return self._memoized(key, build)  # type: ignore[no-any-return]

    def _term(self, e: Expr) -> z3.ExprRef:  # noqa: C901 - one case per operator
        ctx, op = self.ctx, e.op
        if e.sort is Sort.STRING:
            raise Unsupported("a string where a value was expected")
        if not _mentions_strings(self.solver, e):
            return self.solver.to_z3(e)
        if not _strings_of(e):
            return self.solver._translate(e, [self.term(a) for a in e.args])
        s = self.string(e.args[0])
        if op is Op.LENGTH:
            return z3.IntVal(len(s), ctx)
        if op is Op.TO_INT:
            return _to_int(s, ctx)
        if op is Op.TO_CODE:
            return s[0] if len(s) == 1 else z3.IntVal(-1, ctx)
        if op is Op.CASELESS:
            low, high = (65, 90) if e.value == "upper" else (97, 122)
            return _all([z3.And(c <= 127, z3.Or(c < low, c > high)) for c in s], ctx)
        if op is Op.IN_RE:
            return _Membership(self, s).holds(e.value, 0, len(s))
        t = self.string(e.args[1])
        if op is Op.EQ:
            return _equal(s, t, ctx)
        if op in (Op.LT, Op.LE):
            return _before(s, t, op is Op.LE, ctx)
        if op is Op.PREFIX:
            return _equal(t, s[:len(t)], ctx) if len(t) <= len(s) else z3.BoolVal(False, ctx)
        if op is Op.SUFFIX:
            return _equal(t, s[len(s) - len(t):], ctx) if len(t) <= len(s) else z3.BoolVal(False, ctx)
        if op is Op.CONTAINS:
            return _any(list(self._matches(s, t)), ctx)
        if op is Op.INDEX_OF:
            return self._index_of(s, t, self.term(e.args[2]))
        if op is Op.LAST_INDEX_OF:
            found: z3.ArithRef = z3.IntVal(-1, ctx)
            for k, at in enumerate(self._matches(s, t)):  # the last match wins
                found = z3.If(at, k, found)
            return found
        raise Unsupported(op.value)

    def _matches(self, s: list[z3.ArithRef], t: list[z3.ArithRef]) -> Iterator[z3.BoolRef]:
        """Whether `t` occurs at each position of `s` where it fits (0, 1, ...)."""
        for k in range(len(s) - len(t) + 1):
            self.count(len(t) + 1)
            yield _equal(t, s[k:k + len(t)], self.ctx)

    def _index_of(self, s: list[z3.ArithRef], t: list[z3.ArithRef], i: z3.ArithRef) -> z3.ArithRef:
        """SMT-LIB's `str.indexof`: the first `t` at or after `i`; -1 when there is none or `i` is
        outside [0, |s|] (`i` itself for an empty `t`)."""
        outside = z3.Or(i < 0, i > len(s))
        if not t:
            return z3.If(outside, -1, i)
        found: z3.ArithRef = z3.IntVal(-1, self.ctx)
        for k, at in reversed(list(enumerate(self._matches(s, t)))):  # the first match wins
            found = z3.If(z3.And(at, i <= k), k, found)
        return z3.If(outside, -1, found)


def _equal(a: list[z3.ArithRef], b: list[z3.ArithRef], ctx: z3.Context) -> z3.BoolRef:
    if len(a) != len(b):
        return z3.BoolVal(False, ctx)
    return _all([x == y for x, y in zip(a, b)], ctx)


def _all(terms: list[z3.BoolRef], ctx: z3.Context) -> z3.BoolRef:
    return z3.And(terms) if terms else z3.BoolVal(True, ctx)


def _any(terms: list[z3.BoolRef], ctx: z3.Context) -> z3.BoolRef:
    return z3.Or(terms) if terms else z3.BoolVal(False, ctx)


def _to_int(s: list[z3.ArithRef], ctx: z3.Context) -> z3.ArithRef:
    """SMT-LIB's `str.to_int`: the number the digits spell, -1 for "" or any non-digit."""
    if not s:
        return z3.IntVal(-1, ctx)
    value: z3.ArithRef = z3.IntVal(0, ctx)
    for c in s:
        value = value * 10 + (c - 48)
    return z3.If(_all([z3.And(c >= 48, c <= 57) for c in s], ctx), value, -1)


def _before(a: list[z3.ArithRef], b: list[z3.ArithRef], or_equal: bool, ctx: z3.Context) -> z3.BoolRef:
    """Lexicographic order of code points (SMT-LIB's `str.<` and `str.<=`)."""
    r: z3.BoolRef = z3.BoolVal(len(a) < len(b) or (or_equal and len(a) == len(b)), ctx)
    for x, y in reversed(list(zip(a, b))):
        r = z3.Or(x < y, z3.And(x == y, r))
    return r


class _Membership:
    """`s[i:j]` in a regular expression (`string_ops.Regex`), for each sub-expression and span."""

    def __init__(self, lowering: _Lowering, s: list[z3.ArithRef]) -> None:
        self.lowering = lowering
        self.ctx = lowering.ctx
        self.s = s
        # keyed by the `id` of a node of the expression (alive as long as the query), a tag and the span
        self.memo: dict[tuple[Any, ...], z3.BoolRef] = {}

    def holds(self, r: Regex, i: int, j: int) -> z3.BoolRef:
        key = ("holds", id(r), i, j)
        if key not in self.memo:
            self.lowering.count()
            self.memo[key] = self._holds(r, i, j)
        return self.memo[key]

    def _holds(self, r: Regex, i: int, j: int) -> z3.BoolRef:
        ctx, kind = self.ctx, r[0]
        if kind == "set":
            return self._in_set(r[1], self.s[i]) if j == i + 1 else z3.BoolVal(False, ctx)
        if kind in ("lit", "nocase"):
            text: str = r[1]
            if len(text) != j - i:
                return z3.BoolVal(False, ctx)
            return _all([self._letter(ch, c, kind == "nocase") for ch, c in zip(text, self.s[i:j])], ctx)
        if kind == "comp":
            return z3.Not(self.holds(r[1], i, j))
        if kind == "alt":
            return _any([self.holds(p, i, j) for p in r[1:]], ctx)
        if kind == "seq":
            return self._sequence(r, 1, i, j)
        if kind == "loop":
            _, inner, low, high = r
            return self._repeat(inner, low, high, i, j)
        raise Unsupported(kind)

    def _in_set(self, ranges: tuple[tuple[int, int], ...], c: z3.ArithRef) -> z3.BoolRef:
        # (characters are ASCII or a class's samples: the other ranges past ASCII can never hold)
        tests = [c == lo if lo == hi else z3.And(c >= lo, c <= hi) for lo, hi in ranges if lo <= ASCII_LAST]
        return _any(tests + [c == code for code in _samples(ranges)], self.ctx)

    def _letter(self, ch: str, c: z3.ArithRef, any_case: bool) -> z3.BoolRef:
        if any_case and ch.isalpha() and ch.lower() != ch.upper():
            return z3.Or(c == ord(ch.lower()), c == ord(ch.upper()))
        return c == ord(ch)

    def _sequence(self, seq: Regex, first: int, i: int, j: int) -> z3.BoolRef:
        """`s[i:j]` in the concatenation of `seq`'s parts from the `first` on."""
        if first == len(seq) - 1:
            return self.holds(seq[first], i, j)
        key = ("seq", id(seq), first, i, j)
        if key not in self.memo:
            self.lowering.count(j - i + 1)
            self.memo[key] = _any([z3.And(self.holds(seq[first], i, k), self._sequence(seq, first + 1, k, j))
                                   for k in range(i, j + 1)], self.ctx)
        return self.memo[key]

    def _repeat(self, body: Regex, low: int, high: int | None, i: int, j: int) -> z3.BoolRef:
        """`s[i:j]` in `low` to `high` (None: any number of) repetitions of `body`."""
        if body[0] == "set":  # one character each: the span's length decides the count
            n = j - i
            if n < low or (high is not None and n > high):
                return z3.BoolVal(False, self.ctx)
            self.lowering.count(n)
            return _all([self._in_set(body[1], c) for c in self.s[i:j]], self.ctx)
        if i == j:  # no repetition, or `low` empty ones
            return z3.BoolVal(True, self.ctx) if low == 0 else self.holds(body, i, i)
        if high == 0:
            return z3.BoolVal(False, self.ctx)
        key = ("repeat", id(body), low, high, i, j)
        if key not in self.memo:
            self.lowering.count(j - i)
            # one non-empty repetition first (an empty one changes nothing), then the rest
            rest_low, rest_high = max(low - 1, 0), None if high is None else high - 1
            self.memo[key] = _any([z3.And(self.holds(body, i, k), self._repeat(body, rest_low, rest_high, k, j))
                                   for k in range(i + 1, j + 1)], self.ctx)
        return self.memo[key]
