"""Narrowing and patterns: the facts a condition establishes, `if`/`match`/`catch` as
expressions, pattern resolution and refutability."""

from __future__ import annotations

from dataclasses import dataclass

from ingot.semantics.check_base import (
    EQUALITY,
    CheckerBase,
    Facts,
)
from ingot.semantics.coverage import Coverage, alternatives
from ingot.semantics.hir import (
    LocalRef,
    LocalVar,
    TypeTest,
    VariantTest,
)
from ingot.semantics.types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NEVER,
    NULL,
    PRIMS,
    AliasT,
    ClassT,
    EnumT,
    ListT,
    Lit,
    Ty,
    TypeVar,
    UnionT,
    VariantT,
    expand,
    members_of,
    union,
    widen,
    without_null,
)
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code


class NarrowingChecker(CheckerBase):
    """Conditions narrow variables; patterns bind and test; branches join their types."""

    def irrefutable(self, p: A.Pattern, ty: Ty) -> bool:
        """Does every value of type `ty` match `p`?"""
        if isinstance(p, A.WildcardPat) or (isinstance(p, A.BindPat) and p.type is None):
            return True
        if isinstance(p, A.OrPat):
            return any(self.irrefutable(a, ty) for a in p.alternatives)
        test = self.tp.patterns.get(p)
        if not isinstance(test, TypeTest) or not self.assignable(ty, test.ty):
            return False
        if isinstance(p, A.ClassPat):
            cls = self.items.classes[p.name]
            return all(self.irrefutable(sub, found[1].ty) for f, sub in p.fields
                       if (found := cls.field(f)) is not None)
        return isinstance(p, (A.BindPat, A.PathPat, A.TypePat))

    def narrow_to(self, declared: Ty, value: Ty) -> Ty | None:
        """After `x = v`, x holds v's type if that is a strictly narrower member set."""
        if not isinstance(expand(declared, self.items), UnionT):
            return None
        wv = widen(value)
        if self.assignable(wv, declared) and wv != declared:
            return wv
        return None

    # -- narrowing ----------------------------------------------------------------
    def logical(self, e: A.Binary) -> Ty:
        """Check an `&&`/`||` left spine in a loop, innermost node first. Each right operand is
        checked where the facts of everything to its left hold (true ones after `&&`, false ones
        after `||`): a scope holding those facts, accumulated one operand at a time, under a
        fresh scope for what the operand itself establishes. Facts are computed in the
        enclosing scope, as `facts` would compute them for each node; should an operand forget
        a narrowing there (an assignment inside it), the accumulated facts are computed again."""
        spine = logical_spine(e)
        true_facts, false_facts = self.condition(spine[-1].left)
        true_facts, false_facts = dict(true_facts), dict(false_facts)
        forgets = self.forgets
        for links, node in enumerate(reversed(spine)):
            if self.forgets != forgets:
                true_facts, false_facts = self.spine_facts(spine, links)
                forgets = self.forgets
            self.narrowed.append(true_facts if node.op == "&&" else false_facts)
            self.push_scope()
            try:
                self.expr(node.right, None)
            finally:
                self.pop_scope()
                self.narrowed.pop()
            if node is not e:
                self.tp.types[node] = BOOL  # as `expr` records each node it checks
            true_facts, false_facts = self.join_facts(node.op, true_facts, false_facts, node.right)
        return BOOL

    def condition(self, e: A.Expr) -> tuple[Facts, Facts]:
        """Check a condition; return what holds when it is true / false."""
        self.expr(e, None)
        return self.facts(e)

    def facts(self, e: A.Expr) -> tuple[Facts, Facts]:
        """What holds when `e` is true / false, in the current scope. Pure: it reports nothing.
        `!` runs and `&&`/`||` left spines (thousands long in generated code) are walked in loops."""
        negated = False
        while isinstance(e, A.Unary) and e.op == "!":
            e, negated = e.operand, not negated
        if isinstance(e, A.Binary) and e.op in LOGICAL:
            spine = logical_spine(e)
            true_facts, false_facts = self.spine_facts(spine, len(spine))
        else:
            true_facts, false_facts = self.atom_facts(e)
        return (false_facts, true_facts) if negated else (true_facts, false_facts)

    def spine_facts(self, spine: list[A.Binary], links: int) -> tuple[Facts, Facts]:
        """The facts of the innermost `links` nodes of a spine (`logical_spine`'s order): an `&&`
        holds both sides' true facts (the right side's win) and no false ones; `||` the converse."""
        true_facts, false_facts = self.facts(spine[-1].left)
        true_facts, false_facts = dict(true_facts), dict(false_facts)
        for node in reversed(spine[len(spine) - links:]):
            true_facts, false_facts = self.join_facts(node.op, true_facts, false_facts, node.right)
        return true_facts, false_facts

    def join_facts(self, op: str, true_facts: Facts, false_facts: Facts,
                   right: A.Expr) -> tuple[Facts, Facts]:
        """`left op right`'s facts from the left side's (updated in place: a chain adds one
        operand's facts at a time, in time linear in its length)."""
        right_true, right_false = self.facts(right)
        if op == "&&":
            true_facts.update(right_true)
            return true_facts, {}
        false_facts.update(right_false)
        return {}, false_facts

    def atom_facts(self, e: A.Expr) -> tuple[Facts, Facts]:
        """The facts of a condition that is neither `!` nor `&&`/`||`."""
        if isinstance(e, A.Binary) and e.op in EQUALITY:
            var, other = self.narrowable(e.left), e.right
            if var is None:
                var, other = self.narrowable(e.right), e.left
            if var is not None and isinstance(other, A.NullLit):
                cur = self.var_type(var)
                non_null = without_null(cur, self.items)
                is_null: Facts = {var: NULL}
                not_null: Facts = {var: non_null}
                return (is_null, not_null) if e.op == "==" else (not_null, is_null)
            return {}, {}
        if isinstance(e, A.IsType):
            var = self.narrowable(e.expr)
            test = self.tp.patterns.get(e)
            if var is not None and isinstance(test, TypeTest):
                cur = self.var_type(var)
                yes = self.intersect(cur, test.ty)
                no = self.subtract(cur, test.ty)
                return {var: yes}, {var: no}
            return {}, {}
        if isinstance(e, A.IsPattern):
            return self.pattern_facts(e)
        var = self.narrowable(e)
        if var is not None:
            cur = self.var_type(var)
            if NULL in members_of(cur, self.items):
                return {var: without_null(cur, self.items)}, {}
        return {}, {}

    def pattern_facts(self, e: A.IsPattern) -> tuple[Facts, Facts]:
        """`v is int | bool` narrows `v` like `v is int | bool` as a type would; literal and
        variant alternatives narrow nothing (a value of the type may still fail them)."""
        var = self.narrowable(e.expr)
        tests = [self.tp.patterns.get(p) for p in alternatives(e.pattern)]
        if var is None or not all(isinstance(t, TypeTest) for t in tests):
            return {}, {}
        ty = union(t.ty for t in tests if isinstance(t, TypeTest))
        cur = self.var_type(var)
        return {var: self.intersect(cur, ty)}, {var: self.subtract(cur, ty)}

    def narrowable(self, e: A.Expr) -> LocalVar | None:
        if isinstance(e, A.Name):
            res = self.tp.names.get(e)
            if isinstance(res, LocalRef):
                return res.var
        return None

    def intersect(self, cur: Ty, test: Ty) -> Ty:
        keep = [m for m in members_of(cur, self.items) if self.assignable(m, test)]
        return union(keep) if keep else test

    def subtract(self, cur: Ty, test: Ty) -> Ty:
        keep = [m for m in members_of(cur, self.items) if not self.assignable(m, test)]
        return union(keep) if keep else cur

    # -- control-flow expressions ----------------------------------------------------
    def if_expr(self, e: A.If, expected: Ty | None) -> Ty:
        """An `if`, and the state after it: each variable a condition narrows or a branch assigns
        has the union of its types where the branches that complete end (a branch that returns,
        throws, breaks or continues adds nothing), as on the engine."""
        self.push_scope()
        try:
            then_ty, true_facts, false_facts, then_end = self.then_branch(e, expected)
            branches = [Branch(then_ty, true_facts, then_end)]
            if e.otherwise is None:
                branches.append(Branch(NULL, false_facts, {}))  # no `else`: the condition was false
                ty = union([then_ty, NULL]) if then_ty != NEVER else NULL
            else:
                self.push_scope()
                self.apply_facts(false_facts)
                if isinstance(e.otherwise, A.If):
                    else_ty, last_ty = self.else_if_chain(e.otherwise, expected, branches)
                else:
                    else_ty = last_ty = self.branch_value(e.otherwise, expected)
                # (the `else` scope holds every condition's falsity, and the last branch's assignments)
                falsity = dict(self.narrowed[-1])
                branches.append(Branch(last_ty, falsity, self.pop_branch()))
                ty = union([then_ty, else_ty])
            after = self.join_branches(branches)
        finally:
            facts_after = self.narrowed[-1]
            self.pop_scope()
            if facts_after:
                self.narrowed[-1].update(facts_after)
        self.apply_facts(after)
        return ty

    def join_branches(self, branches: list[Branch]) -> Facts:
        """The types after an `if` of the variables its conditions narrow or its branches assign:
        the union over the branches that complete of each one's type where it ends (its end state,
        else its condition's fact, else the type before the `if`)."""
        live = [b for b in branches if b.ty != NEVER]
        if not live:
            return {}
        joined: Facts = {}
        for b in branches:
            for var in (*b.facts, *b.end):
                if var in joined:
                    continue
                before = self.var_type(var)
                ty = union(b.end.get(var, b.facts.get(var, before)) for b in live)
                joined[var] = before if self.assignable(before, ty) else ty
        return joined

    def else_if_chain(self, first: A.If, expected: Ty | None, branches: list[Branch]) -> tuple[Ty, Ty]:
        """The `else if` links after an `if`, checked in a loop (a chain can be thousands of links
        long) inside the first `else`'s scope: each link's condition and branches see the facts
        every earlier condition's falsity establishes, as nested scopes would show them. Each
        link's `then` branch is added to `branches` (with the facts it saw, for `join_branches`);
        the caller adds the last `else` (or the missing one), whose state the `else` scope holds.
        Returns the chain's type and the last `else`'s (null when it is missing).

        The chain's type is one union of every branch's type, in order (`union` flattens, so
        this is the type nesting would give), recorded for the `if` heading the chain only:
        lowering walks the links itself, and a type per link would make the chain quadratic
        (link k's type has a member per branch after it when the branches are distinct literals).
        """
        branch_types: list[Ty] = []
        falsity = dict(self.narrowed[-1])  # what holds in the `else` scope: each earlier condition false
        link = first
        while True:
            then_ty, true_facts, false_facts, end = self.then_branch(link, expected)
            branch_types.append(then_ty)
            branches.append(Branch(then_ty, {**falsity, **true_facts} if then_ty != NEVER else true_facts, end))
            self.apply_facts(false_facts)
            falsity.update(false_facts)
            if link.otherwise is None:
                branch_types.append(NULL)  # no `else`: null (a diverging branch adds nothing)
                break
            if not isinstance(link.otherwise, A.If):
                branch_types.append(self.branch_value(link.otherwise, expected))
                break
            link = link.otherwise
        return union(branch_types), branch_types[-1]

    def then_branch(self, e: A.If, expected: Ty | None) -> tuple[Ty, Facts, Facts, Facts]:
        """An `if`'s condition and `then` branch: its type, the facts when true / false, and the
        types where the branch ends of the variables assigned in it."""
        if isinstance(e.cond, A.IfLet):
            vty = self.expr(e.cond.value, None)
            true_facts: Facts = {}
            false_facts: Facts = {}
            self.push_scope()
            bound = self.pattern(e.cond.pattern, vty)
        else:
            true_facts, false_facts = self.condition(e.cond)
            self.push_scope()
            bound = []
        try:
            for name, var in bound:
                self.scopes[-1][name] = var
            self.apply_facts(true_facts)
            then_ty = self.branch_value(e.then, expected)
        finally:
            end = self.pop_branch()
        return then_ty, true_facts, false_facts, end

    def branch_value(self, b: A.Block, expected: Ty | None) -> Ty:
        """A branch's block; a value of the wrong type is reported at the branch, as the engine does."""
        ty = self.block(b, expected)
        if expected is not None and ty != NEVER and b.tail is not None and not self.assignable(ty, expected):
            self.expect_value(b, ty, expected, b.span)
            return expected
        return ty

    def match(self, e: A.Match, expected: Ty | None) -> Ty:
        scrut = self.expr(e.scrutinee, None)
        coverage = self.coverage(scrut)
        arm_types = self.arms(e.arms, scrut, expected, self.narrowable(e.scrutinee), coverage)
        if scrut != ANY and coverage.missing():
            self.error(Code.NON_EXHAUSTIVE, f"non-exhaustive match on type {scrut}; missing: _", e.span)
        return union(arm_types)

    def coverage(self, scrut: Ty) -> Coverage:
        def variants(enum: str) -> list[str]:
            decl = self.items.enums.get(enum)
            return [v.name for v in decl.variants] if decl is not None else []
        return Coverage(scrut, self.items, self.tp.patterns, self.assignable, variants,
                        frozenset(self.items.interfaces))

    def arms(self, arms: list[A.MatchArm], scrut: Ty, expected: Ty | None,
             var: LocalVar | None, coverage: Coverage | None) -> list[Ty]:
        """Check each arm; with `coverage` (a match, not a catch) report arms no value reaches."""
        types: list[Ty] = []
        for arm in arms:
            self.push_scope()
            try:
                bound = self.pattern(arm.pattern, scrut)
                for name, v in bound:
                    self.scopes[-1][name] = v
                test = self.tp.patterns.get(arm.pattern)
                if var is not None and isinstance(test, TypeTest):
                    self.apply_facts({var: self.intersect(self.var_type(var), test.ty)})
                if coverage is not None:
                    if arm.guard is None and coverage.covers(arm.pattern):  # as the engine: guarded arms never
                        self.error(Code.UNREACHABLE_ARM, "unreachable arm", arm.body.span)
                    if arm.guard is None:
                        coverage.add(arm.pattern)
                if arm.guard is not None:
                    facts, _ = self.condition(arm.guard)
                    self.apply_facts(facts)
                ty = self.expr(arm.body, expected)
                if expected is not None and ty != NEVER and not self.assignable(ty, expected):
                    self.expect_value(arm.body, ty, expected, arm.body.span)  # reported at the arm
                    ty = expected
                types.append(ty)
            finally:
                self.pop_scope()
        return types

    def catch(self, e: A.Catch, expected: Ty | None) -> Ty:
        ty = self.expr(e.expr, expected)
        self.push_scope()
        try:
            var = self.declare(e.binding, ANY, e.span)
            self.tp.bindings[e] = var
            arm_types = self.arms(e.arms, ANY, expected, var, None)
        finally:
            self.pop_scope()
        return union([ty, *arm_types])

    # -- patterns -------------------------------------------------------------------
    def literal_pattern(self, p: A.LiteralPat, scrut: Ty) -> None:
        """E0001 for a literal no value of the scrutinee's type can equal (`"x" =>` on an int)."""
        lit = NULL if p.value is None else Lit(p.value)
        base = widen(lit)
        for m in members_of(scrut, self.items):
            w = widen(m)
            if w in (ANY, base) or isinstance(m, TypeVar) or (base == INT and w == FLOAT):
                return
        self.mismatch(scrut, lit, p.span)

    def pattern(self, p: A.Pattern, scrut: Ty) -> list[tuple[str, LocalVar]]:
        """Resolve a pattern; return the variables it binds."""
        if isinstance(p, A.WildcardPat):
            return []
        if isinstance(p, A.LiteralPat):
            self.literal_pattern(p, scrut)
            return []
        if isinstance(p, A.BindPat):
            if p.type is not None:
                ty = self.resolver.resolve_type(p.type)
                self.tp.patterns[p] = TypeTest(ty)
            else:
                ty = scrut
            var = LocalVar(p.name, ty, p.span, self.frames[-1].owner)
            self.tp.locals_of.setdefault(var.owner, []).append(var)
            self.tp.bindings[p] = var
            return [(p.name, var)]
        if isinstance(p, A.PathPat):
            self.path_pattern(p, scrut)
            return []
        if isinstance(p, A.ClassPat):
            cls = self.items.classes.get(p.name)
            if cls is None:
                self.error(Code.UNRESOLVED_TYPE, f"unresolved type: {p.name}", p.span)
                return []
            self.tp.patterns[p] = TypeTest(ClassT(cls.name))
            bound: list[tuple[str, LocalVar]] = []
            for fname, sub in p.fields:
                found = cls.field(fname)
                if found is None:
                    self.error(Code.NO_MEMBER, f"class `{p.name}` has no field `{fname}`", p.span)
                    continue
                bound += self.pattern(sub, found[1].ty)
            return bound
        if isinstance(p, A.OrPat):
            return self.or_pattern(p, scrut)
        if isinstance(p, A.TypePat):
            self.tp.patterns[p] = TypeTest(self.resolver.resolve_type(p.type))
            return []
        if isinstance(p, A.ArrayPat):
            lists = [m for m in members_of(scrut, self.items) if isinstance(m, ListT)]
            elem = lists[0].elem if len(lists) == 1 else ANY
            self.tp.patterns[p] = TypeTest(ListT(ANY))
            bound = []
            for sub in p.elements:
                bound += self.pattern(sub, elem)
            if p.rest is not None:
                bound += self.pattern(p.rest, ListT(elem))
            return bound
        raise AssertionError(p)

    def or_pattern(self, p: A.OrPat, scrut: Ty) -> list[tuple[str, LocalVar]]:
        """`A { x } | B { x }`: a name bound in several alternatives is one variable, whichever
        alternative matched, typed as the union of what each alternative binds."""
        shared: dict[str, LocalVar] = {}
        for alt in p.alternatives:
            for name, var in self.pattern(alt, scrut):
                first = shared.setdefault(name, var)
                if first is var:
                    continue
                first.ty = union([first.ty, var.ty])
                for node, bound in list(self.tp.bindings.items()):
                    if bound is var:
                        self.tp.bindings[node] = first
                self.tp.locals_of[var.owner].remove(var)
        return list(shared.items())

    def path_pattern(self, p: A.PathPat, scrut: Ty) -> None:
        full = ".".join(p.path)
        items = self.items
        if len(p.path) >= 2:
            enum, variant = ".".join(p.path[:-1]), p.path[-1]
            if enum in items.enums:
                if not any(v.name == variant for v in items.enums[enum].variants):
                    self.error(Code.NO_MEMBER, f"type `{enum}` has no member `{variant}`", p.span)
                    return
                self.tp.patterns[p] = VariantTest(enum, variant)
                st = expand(scrut, self.items)
                if isinstance(st, VariantT) and (st.enum, st.variant) != (enum, variant):
                    self.error(Code.MISMATCH, "mismatched types", p.span,
                               f"expected `{st}`, found `{enum}.{variant}`")
                return
        if full in PRIMS:
            self.tp.patterns[p] = TypeTest(PRIMS[full])
        elif full in items.classes:
            self.tp.patterns[p] = TypeTest(ClassT(full))
        elif full in items.enums:
            self.tp.patterns[p] = TypeTest(EnumT(full))
        elif full in items.aliases or full in items.alias_types:
            self.tp.patterns[p] = TypeTest(AliasT(full))
        else:
            self.error(Code.UNRESOLVED_TYPE, f"unresolved type: {full}", p.span)


@dataclass(slots=True)
class Branch:
    """One branch of an `if`: its type (NEVER: it does not complete), the facts its condition
    gave it, and the types where it ends of the variables assigned in it."""

    ty: Ty
    facts: Facts
    end: Facts


LOGICAL = ("&&", "||")


def logical_spine(e: A.Binary) -> list[A.Binary]:
    """`a && b || c`: the `&&`/`||` nodes down the left operands, outermost first."""
    spine = [e]
    while isinstance(spine[-1].left, A.Binary) and spine[-1].left.op in LOGICAL:
        spine.append(spine[-1].left)
    return spine
