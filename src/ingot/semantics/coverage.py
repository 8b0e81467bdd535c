"""What the arms of a `match` cover: the engine's E0062 (a value no arm matches) and E0063
(an arm every value of which an earlier arm already takes).

Coverage is tracked per kind of pattern: whole types (`int`, `A`, `let x: T`, class shapes,
whose fields are ignored, so `A { x: 1 }` after `A` is unreachable), literal values and enum
variants. A pattern that binds or ignores everything (`_`, `let x`) covers whatever is left.
Guarded arms cover nothing, but may themselves be unreachable.
"""
from __future__ import annotations

from collections.abc import Callable

from ingot.semantics.hir import PatternRes, TypeTest, VariantTest
from ingot.semantics.types import (
    ANY,
    BOOL,
    NULL,
    AliasT,
    EnumT,
    ListT,
    Lit,
    Ty,
    TypeEnv,
    UnionT,
    VariantT,
    expand,
)
from ingot.syntax import ast as A


def alternatives(p: A.Pattern) -> list[A.Pattern]:
    if isinstance(p, A.OrPat):
        out: list[A.Pattern] = []
        for a in p.alternatives:
            out += alternatives(a)
        return out
    return [p]


def is_catch_all(p: A.Pattern) -> bool:
    if isinstance(p, A.WildcardPat):
        return True
    if isinstance(p, A.BindPat):
        return p.type is None
    if isinstance(p, A.OrPat):
        return any(is_catch_all(a) for a in p.alternatives)
    return False


class Coverage:
    def __init__(self, scrutinee: Ty, env: TypeEnv, patterns: dict[object, PatternRes],
                 assignable: Callable[[Ty, Ty], bool], enum_variants: Callable[[str], list[str]],
                 open_types: frozenset[str] = frozenset()) -> None:
        self.scrutinee = scrutinee
        self.env = env
        self.patterns = patterns
        self.assignable = assignable
        self.enum_variants = enum_variants
        # Interfaces are open, as on the engine: a test for one covers values of its type (and a
        # `_` after it is unreachable), tests for the classes implementing it do not cover it.
        self.open_types = open_types
        self.interfaces: set[str] = set()  # the interfaces an arm tested for
        self.types: list[Ty] = []
        self.loose_types: list[Ty] = []
        self.literals: set[tuple[type, object]] = set()
        self.variants: set[tuple[str, str]] = set()
        self.everything = False

    # -- what is covered -------------------------------------------------------------
    def add(self, p: A.Pattern) -> None:
        """Record an unguarded arm's pattern."""
        for alt in alternatives(p):
            if is_catch_all(alt):
                self.everything = True
            elif isinstance(alt, A.LiteralPat):
                if alt.value is None:
                    self.types.append(NULL)
                else:
                    self.literals.add((type(alt.value), alt.value))
            elif isinstance(alt, A.ArrayPat):
                # For exhaustiveness, array patterns are taken together to cover every array
                # (length is not tracked); they never make a later arm unreachable.
                self.loose_types.append(ListT(ANY))
            elif isinstance(alt, A.ClassPat):
                if all(is_catch_all(sub) for _, sub in alt.fields):
                    self.add_test(self.patterns.get(alt))
            else:
                self.add_test(self.patterns.get(alt))

    def add_test(self, res: PatternRes | None) -> None:
        if isinstance(res, TypeTest) and isinstance(res.ty, AliasT) and res.ty.name in self.open_types:
            self.interfaces.add(res.ty.name)
            return
        if isinstance(res, TypeTest):
            self.types.append(res.ty)
        elif isinstance(res, VariantTest):
            self.variants.add((res.enum, res.variant))

    def covers(self, p: A.Pattern) -> bool:
        """Would every value `p` matches already have been taken?"""
        return all(self.covers_one(alt) for alt in alternatives(p))

    def covers_one(self, p: A.Pattern) -> bool:
        if self.everything:
            return True
        if is_catch_all(p):
            return not self.missing(strict=True)
        if isinstance(p, A.LiteralPat):
            if p.value is None:
                return self.covers_type(NULL)
            return (type(p.value), p.value) in self.literals or self.covers_type(Lit(p.value))
        res = self.patterns.get(p)
        if isinstance(res, VariantTest):
            return (res.enum, res.variant) in self.variants or self.covers_type(VariantT(res.enum, res.variant))
        if isinstance(res, TypeTest) and not isinstance(p, A.ArrayPat):
            return all(self.covers_type(m) for m in self.members(res.ty))
        return False

    def members(self, t: Ty) -> list[Ty]:
        """`t`'s member types, an interface kept whole (the classes implementing it do not cover it)."""
        if isinstance(t, AliasT) and t.name in self.open_types:
            return [t]
        if isinstance(t, UnionT):
            return [m for member in t.members for m in self.members(member)]
        expanded = expand(t, self.env)
        return [t] if expanded == t else self.members(expanded)

    def covers_type(self, t: Ty) -> bool:
        if isinstance(t, AliasT) and t.name in self.open_types:
            return t.name in self.interfaces
        if any(self.assignable(t, c) for c in self.types):
            return True
        if isinstance(t, EnumT):
            return all((t.name, v) in self.variants for v in self.enum_variants(t.name))
        if t == BOOL:
            return (bool, True) in self.literals and (bool, False) in self.literals
        if isinstance(t, Lit):  # a member of a literal union: `"a" | "b"`, `1 | 2`
            return (type(t.value), t.value) in self.literals
        return False

    def missing(self, strict: bool = False) -> list[Ty]:
        """The scrutinee's member types that no recorded pattern fully covers (`strict`: not
        counting array patterns as covering every array)."""
        if self.everything:
            return []
        out: list[Ty] = []
        for m in self.members(self.scrutinee):
            if isinstance(m, VariantT) and (m.enum, m.variant) in self.variants:
                continue
            if not strict and any(self.assignable(m, c) for c in self.loose_types):
                continue
            if not self.covers_type(m):
                out.append(m)
        return out
