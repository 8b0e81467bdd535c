"""The Z3 layer: translation of expressions (memoised per node), queries, caching.

Everything goes through `Solver.solve(constraints)`: a conjunction of BOOL
expressions. Before calling Z3 the solver tries the cache (keyed by the set
of constraint nodes) and the last few models (often one still satisfies the
query). Each query gets two budgets: a Z3 resource limit (`rlimit`, counted in Z3's
own units of work, so it runs out at the same point of the search on any machine
under any load) and a wall-clock timeout as the upper bound; `timeout_ms` 0 drops the
clock, so the resource limit alone decides and answers never depend on load. `deadline`, the
end of the caller's global budget, interrupts a query still running when it passes
(`checked`): Z3's own timeout is the same on every query, since setting a solver's
parameters resets its state, and a timeout cut to the time left made the answers of a
budget's last seconds depend on the machine's speed. A query stopped by either is
`unknown`: counted by cause (`unknown_rlimit`, `unknown_timeout`), never taken as
unsat, and it never hangs the run; given the values of the run the query came from, the
solver then searches near them (`nearby`). One `z3.Context` and one incremental Z3 solver
per `Solver` (a push/pop scope per query), fixed random seeds: the same sequence of
queries gives the same models, and the same answers whenever the resource limit, not
the clock, stops a query.

Encodings: INT is Z3 `Int` (BAML's range is asserted for every int variable;
overflow is a CHECK the tracker records), DIV/MOD are encoded to truncate
toward zero; FLOAT is Z3 `Real`; STRING is Z3 `String`, its constants and model values
written and read by code point (`z3_strings.string_val`, `string_of`: no escape text).
"""

from __future__ import annotations

import functools
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import z3

from ingot.symbolic import char_arrays, nearby, parsed_numbers, straight_line
from ingot.symbolic.expr import INT_MAX, INT_MIN, Expr, Op, Sort, evaluate, nodes, post_order
from ingot.symbolic.string_ops import ranges_in
from ingot.symbolic.z3_strings import STRING_OPS, ascii_view, string_of, string_val
from ingot.symbolic.z3_strings import translate as translate_string_op


@dataclass
class SolverStats:
    queries: int = 0
    sat: int = 0
    unsat: int = 0
    unknown: int = 0
    unknown_rlimit: int = 0  # stopped by the resource limit (the same on every machine)
    unknown_timeout: int = 0  # stopped by the wall clock (depends on the machine and its load)
    unknown_budget: int = 0  # not asked: over the string models' terms, past `model_units_cap`
    cache_hits: int = 0
    model_reuse: int = 0
    z3_calls: int = 0
    # Z3 resource units spent on queries over the string models' terms (positions, parts,
    # regular memberships): deterministic, so budgets on it give the same search anywhere.
    model_units: int = 0
    # Z3 resource units of every query over strings (`model_units` and the rest, each charged
    # `QUERY_UNITS` more): the costly work, in a count that is the same on every machine, by
    # which the explorer shares its time with random inputs (`Explorer.fuzz_turn`).
    string_units: int = 0
    # Unknown answers turned sat by a search near the run's values (`nearby`), and its evaluations
    nearby_sat: int = 0
    nearby_evaluations: int = 0
    # String queries answered by their lengths and characters as numbers (`char_arrays`), and
    # those found unsat by their lengths alone
    by_characters: int = 0
    by_lengths_unsat: int = 0
    time_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"queries": self.queries, "sat": self.sat, "unsat": self.unsat, "unknown": self.unknown,
                "unknown_rlimit": self.unknown_rlimit, "unknown_timeout": self.unknown_timeout,
                "unknown_budget": self.unknown_budget,
                "cache_hits": self.cache_hits, "model_reuse": self.model_reuse, "z3_calls": self.z3_calls,
                "model_units": self.model_units, "string_units": self.string_units, "nearby_sat": self.nearby_sat,
                "nearby_evaluations": self.nearby_evaluations, "by_characters": self.by_characters,
                "by_lengths_unsat": self.by_lengths_unsat,
                "time_s": round(self.time_s, 4)}


@dataclass(frozen=True)
class Result:
    status: str  # "sat", "unsat", "unknown"
    model: dict[str, Any] | None = None


# Z3 resource units a query may spend (`rlimit`). How many Z3 counts a second depends on the
# theory: about 1 M on arithmetic, 0.16 M on the string models' queries (a loaded core).
DEFAULT_RLIMIT = 1_000_000
# Units an exploration's queries over the string models' terms may spend in all (then the
# explorer turns the models off and the solver refuses such queries): seconds of string solving.
# A few hundred queries: most cost little more than `QUERY_UNITS`, one asked as arithmetic over
# characters 60-400 k (`char_arrays`). At an eighth of this (1.5 M) the budget went in the first
# dozen runs of a parser's exploration, and with the models off every condition after a `split`
# or `chars()` was left to fuzzing (a path with three ".." parts and nothing left to pop); at half
# of it, the date parser of `booking_intent` spent its tranche in 110 queries, before a month parsed.
DEFAULT_STRING_MODEL_UNITS = 12_000_000
# What a query over those terms is charged beyond its units: setting up a fresh string solver
# and its regular languages costs time Z3 does not count (~10-50 ms, as much as 10-20 k units).
QUERY_UNITS = 15_000
# The most one query over strings may spend while the string models have a budget (`Solver.string_rlimit`).
STRING_QUERY_RLIMIT = 300_000
# Z3's "no timeout" (the parameter's largest value): the timeout of every query when `timeout_ms` is 0.
NO_TIMEOUT = 2**32 - 1


@dataclass
class Solver:
    # Per query; 0: no clock at all, not even the deadline (the resource limit alone, which must be set)
    timeout_ms: int = 10_000
    seed: int = 0
    max_string_length: int = 32
    rlimit: int = DEFAULT_RLIMIT  # per query; 0: no resource limit (the timeout alone)
    # Once `stats.model_units` reaches this, queries over the string models' terms are not
    # asked (unknown); None: no cap.
    model_units_cap: int | None = None
    # The program's literals for the search near a run's values when Z3 answers unknown
    # (`nearby`); None: no such search.
    nearby_tokens: nearby.Tokens | None = None
    stats: SolverStats = field(default_factory=SolverStats)

    def __post_init__(self) -> None:
        # perf_counter time past which no query may run: each query's timeout is the smaller of
        # `timeout_ms` and what is left (an exploration's global budget bounds its solving too)
        self.deadline: float | None = None
        self._timeout_set = self.clock_ms
        self.ctx = z3.Context()
        self._z3: z3.Solver | None = None
        self._domains: dict[str, list[z3.BoolRef]] = {}
        self._memo: dict[int, z3.ExprRef] = {}
        # Node ids whose term holds a string model's operation or derived variable (`$split...`)
        self._model_terms: set[int] = set()
        # IN_RE node id -> (its ASCII form, when the two agree): see `ascii_first`
        self._ascii_views: dict[int, tuple[z3.BoolRef, z3.BoolRef]] = {}
        self._char_arrays = char_arrays.CharArrays(self)
        self._units_seen = 0  # the context's Z3 resource count after the last query
        self._interrupted = False  # was the last check stopped at the deadline (`checked`)?
        self._vars: dict[str, tuple[Sort, z3.ExprRef]] = {}
        self._cache: dict[frozenset[int], Result] = {}
        self._recent: list[dict[str, Any]] = []
        # Every query Z3 was asked, in order, with its timeout: Z3's answers depend on this
        # history, so a resumed exploration asks it again (`replay`) before asking new ones.
        self.z3_log: list[tuple[int, tuple[int, ...]]] = []

    # -- translation ----------------------------------------------------------------------
    def var(self, name: str, sort: Sort) -> z3.ExprRef:
        if name not in self._vars:
            ctx = self.ctx
            make = {Sort.INT: z3.Int, Sort.FLOAT: z3.Real, Sort.BOOL: z3.Bool, Sort.STRING: z3.String}[sort]
            self._vars[name] = (sort, make(name, ctx))
        return self._vars[name][1]

    def variable(self, name: str) -> tuple[Sort, z3.ExprRef] | None:
        """The sort and Z3 constant of a variable a translated query mentioned, or None."""
        return self._vars.get(name)

    def to_z3(self, e: Expr) -> z3.ExprRef:
        memo, heavy = self._memo, self._model_terms
        for node in post_order(e, memo):
            memo[node.id] = self._translate(node, [memo[a.id] for a in node.args])
            if node.op is Op.IN_RE and (view := ascii_view(node.value, memo[node.args[0].id], self.ctx)):
                self._ascii_views[node.id] = view
            if node.op in STRING_OPS or (node.op is Op.VAR and node.value.startswith("$")) \
                    or any(a.id in heavy for a in node.args):
                heavy.add(node.id)
        return memo[e.id]

    def _translate(self, e: Expr, a: list[z3.ExprRef]) -> z3.ExprRef:  # noqa: C901 - one row per op
        ctx = self.ctx
        op = e.op
        if op is Op.CONST:
            r = _const(e.value, e.sort, ctx)
        elif op is Op.VAR:
            r = self.var(e.value, e.sort)
        else:
            if op is Op.ADD:
                r = a[0] + a[1]
            elif op is Op.SUB:
                r = a[0] - a[1]
            elif op is Op.MUL:
                r = a[0] * a[1]
            elif op is Op.DIV:
                r = a[0] / a[1] if e.sort is Sort.FLOAT else _trunc_div(a[0], a[1])
            elif op is Op.MOD:
                r = a[0] - a[1] * _trunc_div(a[0], a[1])
            elif op is Op.NEG:
                r = -a[0]
            elif op is Op.TO_FLOAT:
                r = z3.ToReal(a[0])
            elif op is Op.EQ:
                r = a[0] == a[1]
            elif op is Op.LT:
                r = a[0] < a[1]
            elif op is Op.LE:
                r = a[0] <= a[1]
            elif op is Op.AND:
                r = z3.And(*a)
            elif op is Op.OR:
                r = z3.Or(*a)
            elif op is Op.NOT:
                r = z3.Not(a[0])
            elif op is Op.ITE:
                r = z3.If(a[0], a[1], a[2])
            elif op is Op.CONCAT:
                r = z3.Concat(a[0], a[1])
            elif op is Op.LENGTH:
                r = z3.Length(a[0])
            elif op is Op.CONTAINS:
                r = z3.Contains(a[0], a[1])
            elif op is Op.PREFIX:
                r = z3.PrefixOf(a[1], a[0])
            elif op is Op.SUFFIX:
                r = z3.SuffixOf(a[1], a[0])
            elif op is Op.CASELESS:
                low, high = ("A", "Z") if e.value == "upper" else ("a", "z")
                allowed = z3.Union(z3.Range(chr(0), chr(ord(low) - 1), ctx=ctx),
                                   z3.Range(chr(ord(high) + 1), chr(127), ctx=ctx))
                r = z3.InRe(a[0], z3.Star(allowed))
            elif op in STRING_OPS:
                r = translate_string_op(op, e.value, a, ctx)
            else:
                raise AssertionError(op)
        return r

    def domain(self, name: str, sort: Sort) -> list[z3.BoolRef]:
        """The range constraints of a variable (built once: every query mentioning it asserts them)."""
        cached = self._domains.get(name)
        if cached is not None:
            return cached
        v = self.var(name, sort)
        out: list[z3.BoolRef] = []
        if sort is Sort.INT:
            out = [v >= INT_MIN, v <= INT_MAX]
        elif sort is Sort.STRING:
            out = [z3.Length(v) <= self.max_string_length]
        self._domains[name] = out
        return out

    # -- queries ----------------------------------------------------------------------------
    def solve(self, constraints: list[Expr], extra: list[Expr] | None = None,
              near: dict[str, Any] | None = None) -> Result:
        """Find values for the variables of `constraints` (and `extra`, e.g. input domains);
        where Z3 cannot answer, search near `near` (the values of the run the query came from)."""
        self.stats.queries += 1
        query = [c for c in constraints + (extra or []) if not (c.is_const and c.value)]
        if any(c.is_const and not c.value for c in query):
            self.stats.unsat += 1
            return Result("unsat")
        key = frozenset(c.id for c in query)
        if key in self._cache:
            self.stats.cache_hits += 1
            return self._count(self._cache[key])
        for model in self._recent:
            if _satisfies(query, model):
                self.stats.model_reuse += 1
                # Only the query's variables: the others keep the parent's values.
                names = set().union(*(c.vars for c in query))
                result = Result("sat", {k: v for k, v in model.items() if k in names})
                self._cache[key] = result
                return self._count(result)
        result = self._call_z3(query)
        if result.status == "unknown" and near is not None:
            result = self._search_near(query, near)
        if result.status != "unknown":
            self._cache[key] = result
        if result.model is not None:
            self._recent = [result.model, *self._recent[:3]]
        return self._count(result)

    def _search_near(self, query: list[Expr], near: dict[str, Any]) -> Result:
        """A model found by mutating the run's values (`nearby.search`), else unknown."""
        left = nearby.TOTAL_EVALUATIONS - self.stats.nearby_evaluations
        if self.nearby_tokens is None or left <= 0:
            return Result("unknown")
        start = time.perf_counter()
        rng = random.Random(self.seed * 1_000_003 + self.stats.queries)
        model, spent = nearby.search(query, near, self.nearby_tokens, rng,
                                     min(left, nearby.EVALUATIONS_PER_QUERY), self.max_string_length,
                                     self.deadline, functools.partial(parsed_numbers.solve, self))
        self.stats.nearby_evaluations += spent
        self.stats.time_s += time.perf_counter() - start
        if model is None:
            return Result("unknown")
        self.stats.nearby_sat += 1
        return Result("sat", model)

    def _count(self, result: Result) -> Result:
        if result.status == "sat":
            self.stats.sat += 1
        elif result.status == "unsat":
            self.stats.unsat += 1
        else:
            self.stats.unknown += 1
        return result

    def _call_z3(self, query: list[Expr]) -> Result:
        start = time.perf_counter()
        if self._over_budget(query):
            self.stats.unknown_budget += 1
            return Result("unknown")
        if self.timeout_ms and self.deadline is not None and start >= self.deadline:
            return Result("unknown")  # (without a clock per query, the time left bounds none either)
        self.stats.z3_calls += 1
        return self._ask(self._z3_solver(), query, self.clock_ms, start)

    def _ask(self, s: z3.Solver, query: list[Expr], timeout: int, start: float) -> Result:
        self.z3_log.append((timeout, tuple(c.id for c in query)))
        if timeout != self._timeout_set:
            s.set("timeout", timeout)
            self._timeout_set = timeout
        names: dict[str, Sort] = {}
        for c in query:
            for node_name in sorted(c.vars):
                names.setdefault(node_name, Sort.INT)
        if self._on_strings(query, names):
            return self._ask_strings(query, names, timeout, start)
        s.push()
        try:
            return self._check(s, query, names, start, timeout)
        finally:
            s.pop()

    def _ask_strings(self, query: list[Expr], names: dict[str, Sort], timeout: int, start: float) -> Result:
        """A query over strings. One that parses a number or tests a Unicode class (letters,
        digits of every script) is asked as arithmetic first: Z3's string solver rarely answers
        those within the limit. Any other goes to Z3's string solver first, which answers most
        at once, and is asked as arithmetic only when that was unknown."""
        first = _hard_for_z3(query)
        if first and (arithmetic := self.by_characters(query, timeout)) is not None:
            self.stats.time_s += time.perf_counter() - start
            return arithmetic
        # A split's definition as the straight-line case(s) the query allows: far cheaper.
        result = straight_line.solve(self, query, names, timeout)
        if result is not None:
            self.stats.time_s += time.perf_counter() - start
        else:
            # Z3's string solver slows down by orders of magnitude in an incremental solver that
            # has seen many queries: a string query gets a fresh solver (same context, same seed).
            fresh = self.fresh_z3(timeout, self.string_rlimit())
            result = self._check(fresh, query, names, start, timeout)
        if result.status == "unknown" and not first:
            begun = time.perf_counter()
            arithmetic = self.by_characters(query, timeout)
            self.stats.time_s += time.perf_counter() - begun
            if arithmetic is not None:
                return arithmetic
        return result

    @property
    def clock_ms(self) -> int:
        """Z3's timeout for a query: `timeout_ms`, or none at all when it is 0."""
        return self.timeout_ms or NO_TIMEOUT

    def string_rlimit(self) -> int:
        """The resource limit of a query over strings, lower than others' while the string models
        have a budget: one query Z3 finds hard (a parsed number past a bound) must leave the models
        running for the many cheap ones."""
        if self.model_units_cap is None:
            return self.rlimit
        return min(self.rlimit, STRING_QUERY_RLIMIT) if self.rlimit else STRING_QUERY_RLIMIT

    def unsat_at_any_size(self, query: list[Expr], domains: list[Expr]) -> bool:
        """Is `query` unsat for inputs of any size, not only those of up to `max_string_length`
        characters? `domains`: the inputs' own, with no cap on an array's length either. Asked
        of a Z3 context of its own, so the search's Z3 answers after it are those a resumed
        search gets by replaying `z3_log`; an unknown answer is not a proof (False)."""
        try:
            terms = [self.to_z3(c) for c in query + domains]
            names = sorted(set().union(*(c.vars for c in query + domains)))
            ranges = [d for n in names if n in self._vars and self._vars[n][0] is Sort.INT
                      for d in self.domain(n, Sort.INT)]
            ctx = z3.Context()
            s = self.fresh_z3(self.clock_ms, self.rlimit, ctx)
            for t in terms + ranges:
                s.add(t.translate(ctx))
            return bool(self.checked(s, ctx) == z3.unsat)  # the search's time left bounds it, as any query
        except z3.Z3Exception:
            return False

    def grow_strings(self, length: int) -> None:
        """Let strings be up to `length` characters from the next query on. Answers given under
        the old cap no longer hold (an unsat one may have been owed to it), so the cache goes;
        the change is logged in `z3_log`, as a negative timeout, for `replay`."""
        self.z3_log.append((-length, ()))
        self.max_string_length = length
        self._domains = {k: v for k, v in self._domains.items() if self._vars[k][0] is not Sort.STRING}
        self._cache.clear()

    def replay(self, log: list[tuple[int, list[Expr]]]) -> None:
        """Ask Z3 the queries of another `Solver`'s `z3_log` (as expressions), in order, so that
        this one's Z3 answers the queries after them as that one would (and its strings have
        the length cap that one's had). Stats are left as they were."""
        stats, self.stats = self.stats, SolverStats()
        try:
            for timeout, query in log:
                if timeout < 0:  # (`grow_strings`)
                    self.grow_strings(-timeout)
                    continue
                self._ask(self._z3_solver(), query, timeout, time.perf_counter())
        finally:
            self.stats = stats

    def _over_budget(self, query: list[Expr]) -> bool:
        """Is the query over the string models' terms with their budget spent?"""
        cap = self.model_units_cap
        if cap is None or self.stats.model_units < cap:
            return False
        try:
            for c in query:
                self.to_z3(c)
        except z3.Z3Exception:
            return False  # `_check` reports it
        return any(c.id in self._model_terms for c in query)

    def mentions_strings(self, query: list[Expr]) -> bool:
        """Does the query mention a string variable (whose length the domains cap)?"""
        names: dict[str, Sort] = {n: Sort.INT for c in query for n in c.vars}
        return self._on_strings(query, names)

    def _on_strings(self, query: list[Expr], names: dict[str, Sort]) -> bool:
        """Does the query mention a string variable? (Its terms are translated first: they know the sorts.)"""
        try:
            for c in query:
                self.to_z3(c)
        except z3.Z3Exception:
            return False  # `_check` reports it
        return any(self._vars[n][0] is Sort.STRING for n in names if n in self._vars)

    def checked(self, s: z3.Solver, ctx: z3.Context | None = None) -> z3.CheckSatResult:
        """`s.check()` (`s` in `ctx`, else the search's context), interrupted when the `deadline`
        passes before Z3's own timeout stops it (a timer, only for queries begun closer to the
        deadline than one timeout: the others cannot run past it). An interrupted query is
        unknown, counted under `unknown_timeout`."""
        self._interrupted = False
        left = None if self.deadline is None else self.deadline - time.perf_counter()
        if left is None or not self.timeout_ms or left * 1000 >= self.timeout_ms:
            return s.check()
        timer = threading.Timer(max(0.0, left), self._interrupt, (ctx if ctx is not None else self.ctx,))
        timer.start()
        try:
            status = s.check()
        finally:
            timer.cancel()
            timer.join()  # (a timer already firing has to finish before `_interrupted` is read)
        # The deadline may pass as Z3 answers: the timer then interrupts a context whose check is
        # over, and the solver has no model to give ("there is no current model"), so the
        # answer is as good as an interrupted one.
        return z3.unknown if self._interrupted else status

    def _interrupt(self, ctx: z3.Context) -> None:
        self._interrupted = True  # (Z3 gives the reason of a resource limit: "canceled")
        ctx.interrupt()

    def fresh_z3(self, timeout: int, rlimit: int, ctx: z3.Context | None = None) -> z3.Solver:
        """A Z3 solver of its own (in `ctx`, else the search's context), with the search's seed.
        Like the incremental one, it leaves Ctrl-C to the caller: by default Z3 takes SIGINT
        for itself while it checks, so a Ctrl-C landing in a string query came back as an
        unknown answer and the search ran on to its budget instead of stopping."""
        s = z3.Solver(ctx=ctx if ctx is not None else self.ctx)
        s.set("timeout", timeout)
        s.set("random_seed", self.seed)
        s.set("rlimit", rlimit)
        s.set("ctrl_c", False)
        return s

    def _z3_solver(self) -> z3.Solver:
        """One incremental Z3 solver per `Solver`, each query in its own push/pop scope.

        Building a fresh solver per query costs more than most queries (they are small:
        a sliced path prefix); the incremental core answers them several times faster.
        Its answers depend only on the queries asked before, so the same seed still gives
        the same report.
        """
        if self._z3 is None:
            self._z3 = z3.Solver(ctx=self.ctx)
            self._z3.set("timeout", self.clock_ms)
            self._z3.set("random_seed", self.seed)
            self._z3.set("rlimit", self.rlimit)
            # Z3 would take Ctrl-C during a check for itself (the query comes back unknown);
            # leave it to the caller, which stops the search between generations.
            self._z3.set("ctrl_c", False)
        return self._z3

    def _check(self, s: z3.Solver, query: list[Expr], names: dict[str, Sort], start: float,
               timeout: int) -> Result:
        try:
            for c in query:
                s.add(self.to_z3(c))
            # Domains for every variable the query mentions (sorts are known once translated).
            for name in sorted(names):
                if name in self._vars:
                    sort, _ = self._vars[name]
                    for d in self.domain(name, sort):
                        s.add(d)
            found = self.ascii_first(s, query, timeout)
            if found is not None:
                s, status = found, z3.sat
            else:
                status = self.checked(s)
                self._count_units(s, query)
        except z3.Z3Exception:
            self.stats.time_s += time.perf_counter() - start
            return self._unknown(s)
        self.stats.time_s += time.perf_counter() - start
        if status == z3.unsat:
            return Result("unsat")
        if status != z3.sat:
            return self._unknown(s)
        m = s.model()
        model = {}
        for name in sorted(names):
            if name in self._vars:
                sort, v = self._vars[name]
                model[name] = _value(m.eval(v, model_completion=True), sort)
        return Result("sat", model)

    def by_characters(self, query: list[Expr], timeout: int) -> Result | None:
        """A model of the query found with its strings' lengths chosen first and their characters
        solved as numbers (`char_arrays`), unsat when no lengths fit, or None, which proves
        nothing. Within half the query's timeout and its resource limit (each of the few Z3
        questions); a model is checked on the query itself, so a lowering that got a choice
        wrong costs time, never an answer."""
        def checked(s: z3.Solver) -> z3.CheckSatResult:  # (each a fresh solver: each charged `QUERY_UNITS`)
            status = self.checked(s)
            self._count_units(s, query)
            return status

        limits = (max(1, timeout // 2), max(1, self.string_rlimit() // 2))
        model = self._char_arrays.solve(query, lambda: self.fresh_z3(*limits), checked, self.max_string_length)
        if model == "unsat":
            self.stats.by_lengths_unsat += 1
            return Result("unsat")
        if not isinstance(model, dict):
            return None
        values = {name: v if isinstance(v, str) else _value(v, self._vars[name][0]) for name, v in model.items()}
        if not _satisfies(query, values):
            return None
        self.stats.by_characters += 1
        return Result("sat", values)

    def ascii_first(self, exact: z3.Solver, query: list[Expr], timeout: int,
                    joined: Callable[[z3.ExprRef], z3.ExprRef] = lambda t: t) -> z3.Solver | None:
        """A solver holding a model of the query asserted in `exact`, found with each large
        Unicode class tested on a whole string (`s.is_alphanumeric()`, a quantifier) replaced by
        the test of its ASCII characters and that string held to ASCII, where the two agree: any
        such model is a model of the query. None when the query has no such test or no model was
        found that way (within half the query's timeout and its resource limit); then `exact`
        decides, and only it can answer unsat. `joined` is the substitution already applied to
        the assertions (a split's parts, `straight_line`)."""
        if not self._ascii_views:
            return None
        viewed = [n.id for n in nodes(query) if n.id in self._ascii_views]
        if not viewed:
            return None
        pairs = [(joined(self._memo[n]), joined(self._ascii_views[n][0])) for n in viewed]
        begun = time.perf_counter()
        s = self.fresh_z3(max(1, timeout // 2), self.string_rlimit())
        try:
            s.add(*[z3.substitute(t, *pairs) for t in exact.assertions()], *[joined(self._ascii_views[n][1]) for n in viewed])
            status = self.checked(s)
            self._count_units(s, query)
        except z3.Z3Exception:
            status = z3.unknown  # the exact query decides
        if status == z3.sat:
            return s
        if exact is not self._z3:  # (a query of strings: always a solver of its own)
            # the exact query has what is left of the timeout, so the two stay within it
            exact.set("timeout", max(1, timeout - int((time.perf_counter() - begun) * 1000)))
        return None

    def _count_units(self, s: z3.Solver, query: list[Expr]) -> None:
        """Add the query's Z3 resource units to `string_units` when it is over strings (asked of
        a fresh solver), and to `model_units` when it is over a string model's terms."""
        seen = self._units_seen
        try:
            self._units_seen = s.statistics().get_key_value("rlimit count")
        except z3.Z3Exception:  # no work counted (a query Z3 answered while simplifying)
            return
        charged = self._units_seen - seen + QUERY_UNITS
        if s is not self._z3:
            self.stats.string_units += charged
        if any(c.id in self._model_terms for c in query):
            self.stats.model_units += charged

    def _unknown(self, s: z3.Solver) -> Result:
        """An unknown answer, counted by what stopped Z3 (the clock: "timeout"; the resource
        limit: "canceled" or "max. resource limit exceeded")."""
        try:
            reason = s.reason_unknown()
        except z3.Z3Exception:
            reason = ""
        interrupted, self._interrupted = self._interrupted, False
        if "timeout" in reason or interrupted:  # the query's clock, or the deadline's
            self.stats.unknown_timeout += 1
        elif "canceled" in reason or "resource" in reason:
            self.stats.unknown_rlimit += 1
        return Result("unknown")


def _trunc_div(a: z3.ArithRef, b: z3.ArithRef) -> z3.ArithRef:
    """Integer division truncating toward zero (Z3's `/` on Int is Euclidean)."""
    abs_q = z3.If(a >= 0, a, -a) / z3.If(b >= 0, b, -b)
    return z3.If((a >= 0) == (b >= 0), abs_q, -abs_q)


def _const(value: Any, sort: Sort, ctx: z3.Context) -> z3.ExprRef:
    if sort is Sort.BOOL:
        return z3.BoolVal(bool(value), ctx)
    if sort is Sort.INT:
        return z3.IntVal(int(value), ctx)
    if sort is Sort.FLOAT:
        return z3.RealVal(Fraction(value) if value == value and abs(value) != float("inf") else 0, ctx)
    return string_val(value, ctx)


def _value(v: z3.ExprRef, sort: Sort) -> Any:
    if sort is Sort.INT:
        return v.as_long()
    if sort is Sort.BOOL:
        return z3.is_true(v)
    if sort is Sort.FLOAT:
        if z3.is_rational_value(v):
            return float(Fraction(v.numerator_as_long(), v.denominator_as_long()))
        return float(v.as_decimal(17).rstrip("?"))
    return string_of(v)


# A regular membership holding more character ranges than this is a Unicode class (letters,
# digits of every script), which Z3 tests with a quantifier (`z3_strings.CLASS_AS_CODES`).
LOWERED_RANGES = 64


def _hard_for_z3(query: list[Expr]) -> bool:
    """Does the query read a number out of a string (`to_int`: `int.parse` and its kin) or test a
    Unicode class? Z3's string solver rarely answers either within the per-query limit."""
    return any(n.op is Op.TO_INT or (n.op is Op.IN_RE and ranges_in(n.value) > LOWERED_RANGES)
               for n in nodes(query))


def _satisfies(query: list[Expr], model: dict[str, Any]) -> bool:
    try:
        memo: dict[int, Any] = {}
        return all(evaluate(c, model, memo) is True for c in query)
    except (KeyError, TypeError, ZeroDivisionError, ArithmeticError):
        return False
