"""The checker's state and the services every part of it uses: reporting, scopes and
narrowing facts, capture tracking, and the value check `expect_value`.

`Checker` (check.py) is this base plus one mixin per concern, as mypy splits its checker:
expressions and members (check_expr.py), calls and unification (check_calls.py), patterns,
narrowing and control-flow expressions (narrowing.py), statements and bodies (check.py).
The methods one mixin calls in another are declared here, so each module type-checks alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingot.semantics.hir import (
    LocalRef,
    LocalVar,
    TypedProgram,
)
from ingot.semantics.resolve import FuncItem, Items, Resolver
from ingot.semantics.types import (
    ANY,
    NEVER,
    NULL,
    ClassT,
    ListT,
    MapT,
    Ty,
    UnionT,
    assignable,
    expand,
    holds,
)
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Diagnostic, Span

ARITH = {"+", "-", "*", "/", "%"}
BITWISE = {"&", "|", "^", "<<", ">>"}
ORDER = {"<", "<=", ">", ">="}
EQUALITY = {"==", "!="}

Facts = dict[LocalVar, Ty]


class CheckAbort(Exception):
    """Internal: stop checking an expression after its error was reported."""


@dataclass(slots=True)
class Frame:
    """One function-like body being checked: its owner node and return type."""

    owner: object
    ret: Ty | None  # None: infer (lambdas without `->`)
    returns: list[Ty] = field(default_factory=list)
    loops: int = 0


class CheckerBase:
    """State shared by the checker's parts; see the module docstring."""

    def __init__(self, module: A.Module, allow_any: bool = False) -> None:
        self.resolver = Resolver(module, allow_any)
        self.items: Items = self.resolver.collect()
        self.diagnostics: list[Diagnostic] = self.resolver.diagnostics
        self.tp = TypedProgram(module)
        self.scopes: list[dict[str, LocalVar]] = []
        self.narrowed: list[Facts] = []
        # Per scope, the variables of enclosing scopes assigned in it: their facts describe the
        # state where the scope ends, which a construct either joins (`if` branches, loops) or forgets.
        self.assigned: list[set[LocalVar]] = []
        self.forgets = 0  # how many times `forget` ran: facts computed before then may be stale
        self.frames: list[Frame] = []
        self.in_prompt = False
        # Variables bound to an empty `[]` or `{}` without an annotation, and the literal: their
        # element types come from the first use that fixes them (`settle`), as the engine infers
        # them; one that no use fixes is E0155 at the end of its function (`report_unsettled`).
        self.unsettled: dict[LocalVar, A.Expr] = {}

    # -- reporting ------------------------------------------------------------
    def error(self, code: Code, message: str, span: Span, primary: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, message, span, primary))

    def mismatch(self, expected: Ty, found: Ty, span: Span) -> None:
        self.error(Code.MISMATCH, "mismatched types", span, f"expected `{expected}`, found `{found}`")

    def assignable(self, src: Ty, dst: Ty) -> bool:
        return assignable(src, dst, self.items)

    # -- scopes -----------------------------------------------------------------
    def push_scope(self) -> None:
        self.scopes.append({})
        self.narrowed.append({})
        self.assigned.append(set())

    def pop_scope(self) -> None:
        """End a scope whose end state no construct joins (a `match` arm, a lambda body, ...):
        what its assignments established is forgotten everywhere, as the engine does."""
        for var in self._pop():
            self.forget(var)

    def pop_branch(self) -> Facts:
        """End a scope whose end state the caller joins: the types of the variables assigned in
        it, as they are where it ends. Enclosing facts stay, for the caller to update."""
        state = {var: self.var_type(var) for var in self.assigned[-1]}
        self._pop()
        return state

    def pop_block(self) -> None:
        """End a block that completes normally: what holds at its end holds after it."""
        facts = self.narrowed[-1]
        self._pop()
        if self.narrowed:
            self.narrowed[-1].update(facts)

    def _pop(self) -> set[LocalVar]:
        """Pop a scope; return the enclosing variables assigned in it, now assigned in its parent too."""
        declared = set(self.scopes.pop().values())
        self.narrowed.pop()
        assigned = {var for var in self.assigned.pop() if var not in declared}
        if self.assigned:
            self.assigned[-1].update(assigned)
        return assigned

    def declare(self, name: str, ty: Ty, span: Span) -> LocalVar:
        owner = self.frames[-1].owner
        var = LocalVar(name, ty, span, owner)
        self.scopes[-1][name] = var
        self.tp.locals_of.setdefault(owner, []).append(var)
        return var

    def lookup(self, name: str) -> LocalVar | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def var_type(self, var: LocalVar) -> Ty:
        for facts in reversed(self.narrowed):
            if var in facts:
                return facts[var]
        return var.ty

    def settle(self, e: A.Expr, ty: Ty) -> Ty | None:
        """Fix the type of the unsettled variable `e` names to `ty` (an array or map type with
        known elements); the type fixed, or None when `e` is no such variable or `ty` no such type."""
        ref = self.tp.names.get(e) if isinstance(e, A.Name) else None
        var = ref.var if isinstance(ref, LocalRef) else None
        t = expand(ty, self.items)
        if var is None or var not in self.unsettled or not isinstance(t, (ListT, MapT)) or has_any(t):
            return None
        del self.unsettled[var]
        var.ty = ty
        return ty

    def report_unsettled(self, owner: object) -> None:
        """E0155 for the variables of `owner`'s frame whose empty collection no use gave a type."""
        for var, literal in list(self.unsettled.items()):
            if var.owner is owner:
                del self.unsettled[var]
                self.error(Code.ANNOTATION_NEEDED, "type annotations needed", literal.span, None)
                full = "`!error[]`" if isinstance(literal, A.ArrayLit) else "`map<string, !error>`"
                self.diagnostics[-1].notes.append(f"full type: {full}")

    def apply_facts(self, facts: Facts) -> None:
        self.narrowed[-1].update(facts)

    def forget(self, var: LocalVar) -> None:
        """End narrowing of `var` in every enclosing scope."""
        self.forgets += 1
        for facts in self.narrowed:
            facts.pop(var, None)

    def assigned_type(self, var: LocalVar, ty: Ty) -> None:
        """`var = value` of type `ty`: from here on `var` has that type (when narrower than its
        declared one) until a later assignment, or a join of branches or loop edges."""
        self.forgets += 1  # facts computed before may be stale
        self.narrowed[-1][var] = self.narrow_to(var.ty, ty) or var.ty
        self.assigned[-1].add(var)

    def note_capture(self, var: LocalVar) -> None:
        """A variable of an enclosing body used inside a lambda is captured by reference."""
        if var.owner is self.frames[-1].owner:
            return
        var.captured = True
        for frame in reversed(self.frames):
            if frame.owner is var.owner:
                break
            if isinstance(frame.owner, A.Lambda):
                caps = self.tp.lambda_captures.setdefault(frame.owner, [])
                if var not in caps:
                    caps.append(var)

    # -- value checks -----------------------------------------------------------
    def user_eq_class(self, ty: Ty, seen: frozenset[str] = frozenset()) -> str | None:
        """A class with its own `eq` (`baml.ops.Equals`) that a value of type `ty` can hold, at
        any depth: in a list, a map's values, a union or a field."""
        t = expand(ty, self.items)
        if isinstance(t, ClassT):
            if (t.name, "==") in self.items.operators:
                return t.name
            cls = self.items.classes.get(t.name)
            if cls is None or t.name in seen:
                return None
            return next((c for c in (self.user_eq_class(f.ty, seen | {t.name}) for f in cls.fields)
                         if c is not None), None)
        if isinstance(t, ListT):
            return self.user_eq_class(t.elem, seen)
        if isinstance(t, MapT):
            return self.user_eq_class(t.value, seen)
        if isinstance(t, UnionT):
            return next((c for c in (self.user_eq_class(m, seen) for m in t.members) if c is not None), None)
        return None

    def reject_user_equality(self, what: str, types: tuple[Ty, ...], span: Span) -> None:
        """I0002 where a structural comparison would meet a class with its own `eq`: the engine
        calls `eq` there, ingot's structural `==` would not."""
        for ty in types:
            inner = self.user_eq_class(ty)
            if inner is not None:
                self.error(Code.UNSUPPORTED,
                           f"{what} would compare `{inner}` with its own `eq` inside the values: ingot calls "
                           f"`eq` only for `==`/`!=` between two `{inner}` values; narrow optionals first "
                           "(`if (x != null)`) or compare element by element", span)
                return

    def expect_value(self, node: A.Expr | A.Block, ty: Ty, expected: Ty, span: Span) -> None:
        """Report E0029/E0001 when a value of type `ty` is used where `expected` is needed."""
        if isinstance(node, A.Block) and isinstance(node.tail, A.If) and node.tail.otherwise is None:
            node = node.tail
        if isinstance(node, A.If) and node.otherwise is None and expected not in (ANY, NULL):
            # (even where `expected` holds null: the engine wants the `else` written out)
            self.error(Code.MISSING_VALUE, "missing value", node.span,
                       f"expected `{expected}`, but an `if` without `else` evaluates to `null`; "
                       "add an `else` branch")
            return
        if self.assignable(ty, expected):
            return
        if isinstance(node, A.Block) and node.tail is None and ty == NULL:
            last = node.stmts[-1] if node.stmts else None
            if isinstance(last, A.ExprStmt):
                self.error(Code.MISSING_VALUE, "missing value", last.expr.span,
                           f"expected `{expected}`, but this value is discarded; remove the `;` to use it")
            else:
                self.error(Code.MISSING_VALUE, "missing value", node.span,
                           f"expected `{expected}`, but this block has no value")
            return
        self.mismatch(expected, ty, span)

    def null_valued_if(self, e: A.Expr) -> None:
        """E0001 for a value in the `then` branch of an `if` without `else` whose value is used
        without an expected type (`let s = if (c) { "x" };`): such an `if` is `null`, and the
        engine checks the branch's value against that."""
        while isinstance(e, A.If) and isinstance(e.otherwise, A.If):
            e = e.otherwise
        if not isinstance(e, A.If) or e.otherwise is not None or e.then.tail is None:
            return
        ty = self.tp.types.get(e.then, NULL)
        if ty not in (NULL, NEVER, ANY):
            self.error(Code.MISMATCH, "mismatched types", e.then.tail.span,
                       f"an `if` without `else` evaluates to `null`, so its branch cannot produce `{ty}`; "
                       "add an `else` branch")

    # -- implemented by the mixins (check_expr, check_calls, narrowing, check) ------------
    def expr(self, e: A.Expr, expected: Ty | None) -> Ty:
        raise NotImplementedError

    def block(self, b: A.Block, expected: Ty | None) -> Ty:
        raise NotImplementedError

    def stmt(self, s: A.Stmt) -> bool:
        raise NotImplementedError

    def check_body(self, owner: object, body: A.Block, ret: Ty | None,
                   params: list[tuple[str, Ty, object, Span]]) -> Ty:
        raise NotImplementedError

    def path_of(self, e: A.Expr) -> str | None:
        raise NotImplementedError

    def value_member(self, e: A.FieldAccess, obj_ty: Ty, called: bool,
                     err_span: Span | None = None) -> Ty:
        raise NotImplementedError

    def call(self, e: A.Call, expected: Ty | None) -> Ty:
        raise NotImplementedError

    def call_item(self, e: A.Call, fn: FuncItem, receiver: A.Expr | None) -> Ty:
        raise NotImplementedError

    def condition(self, e: A.Expr) -> tuple[Facts, Facts]:
        raise NotImplementedError

    def logical(self, e: A.Binary) -> Ty:
        raise NotImplementedError

    def if_expr(self, e: A.If, expected: Ty | None) -> Ty:
        raise NotImplementedError

    def match(self, e: A.Match, expected: Ty | None) -> Ty:
        raise NotImplementedError

    def catch(self, e: A.Catch, expected: Ty | None) -> Ty:
        raise NotImplementedError

    def pattern(self, p: A.Pattern, scrut: Ty) -> list[tuple[str, LocalVar]]:
        raise NotImplementedError

    def narrow_to(self, declared: Ty, value: Ty) -> Ty | None:
        raise NotImplementedError


def has_any(t: Ty) -> bool:
    """Does `t` hold the unknown type anywhere (`int[]` does not, `map<string, unknown>` does)?"""
    return holds(t, lambda m: m == ANY)
