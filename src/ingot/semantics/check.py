"""Type checking of bodies: scopes, narrowing, calls, patterns; fills the typed HIR.

The checker is deliberately close to what the BAML engine accepts: where the
engine's rule is known (sections 4 and 7 of the language notes) it is
enforced with the engine's error code and wording; where it is not, the
checker errs on the side of accepting the program, since the VM checks
values dynamically anyway.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingot.runtime.values import INT_MAX, INT_MIN
from ingot.semantics import builtins as B
from ingot.semantics.coverage import Coverage, alternatives
from ingot.semantics.hir import (
    BuiltinMethodRef,
    BuiltinRef,
    CallInfo,
    ClientRef,
    ConstRef,
    FieldRef,
    FuncRef,
    InterfaceMethodRef,
    LocalRef,
    LocalVar,
    MethodRef,
    TypedProgram,
    TypeRef,
    TypeTest,
    VariantRef,
    VariantTest,
)
from ingot.semantics.resolve import FuncItem, Items, Resolver
from ingot.semantics.types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NEVER,
    NULL,
    PRIMS,
    STRING,
    AliasT,
    ClassT,
    EnumT,
    FuncT,
    ListT,
    Lit,
    MapT,
    Prim,
    Special,
    Ty,
    TypeVar,
    UnionT,
    VariantT,
    assignable,
    expand,
    members_of,
    optional,
    union,
    widen,
    without_null,
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


class Checker:
    def __init__(self, module: A.Module, allow_any: bool = False) -> None:
        self.resolver = Resolver(module, allow_any)
        self.items: Items = self.resolver.collect()
        self.diagnostics: list[Diagnostic] = self.resolver.diagnostics
        self.tp = TypedProgram(module)
        self.scopes: list[dict[str, LocalVar]] = []
        self.narrowed: list[Facts] = []
        self.frames: list[Frame] = []
        self.in_prompt = False

    # -- reporting ------------------------------------------------------------
    def error(self, code: Code, message: str, span: Span, primary: str | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, message, span, primary))

    def mismatch(self, expected: Ty, found: Ty, span: Span) -> None:
        self.error(Code.MISMATCH, "mismatched types", span, f"expected `{expected}`, found `{found}`")

    def assignable(self, src: Ty, dst: Ty) -> bool:
        return assignable(src, dst, self.items)

    # -- program ----------------------------------------------------------------
    def check(self) -> TypedProgram:
        for name, const in self.items.consts.items():
            self.check_const(name, const)
        for fn in list(self.items.functions.values()):
            self.check_function(fn)
        for test in self.items.tests:
            self.check_body(test, test.body, None, [])
        return self.tp

    def check_const(self, name: str, const: A.Const) -> None:
        declared = self.resolver.resolve_type(const.type) if const.type else None
        self.frames.append(Frame(const, declared))
        self.push_scope()
        try:
            ty = self.expr(const.value, declared)
            if declared is not None:
                self.expect_value(const.value, ty, declared, const.value.span)
        finally:
            self.pop_scope()
            self.frames.pop()
        self.tp.types[const] = declared if declared is not None else widen(ty)

    def check_function(self, fn: FuncItem) -> None:
        decl = fn.decl
        params: list[tuple[str, Ty, object, Span]] = []
        if fn.is_method and fn.owner_class is not None:
            params.append(("self", ClassT(fn.owner_class), decl, decl.name_span))
        for p, info in zip(decl.params, fn.params):
            params.append((p.name, info.ty, p, p.span))
            if p.default is not None:
                self.frames.append(Frame(decl, None))
                try:
                    dty = self.expr(p.default, info.ty)
                    self.expect_value(p.default, dty, info.ty, p.default.span)
                finally:
                    self.frames.pop()
        if isinstance(decl.body, A.LlmBody):
            self.check_llm_body(decl, decl.body, params)
            return
        self.resolver.type_params = self.resolver.generic_scope(decl, fn.owner_class)
        try:
            self.check_body(decl, decl.body, fn.ret, params)
        finally:
            self.resolver.type_params = frozenset()

    def check_body(self, owner: object, body: A.Block, ret: Ty | None,
                   params: list[tuple[str, Ty, object, Span]]) -> Ty:
        frame = Frame(owner, ret if ret is not None else NULL)
        if isinstance(owner, A.Lambda) and ret is None:
            frame.ret = None
        self.frames.append(frame)
        self.tp.locals_of.setdefault(owner, [])
        self.push_scope()
        try:
            for name, ty, node, span in params:
                var = self.declare(name, ty, span)
                self.tp.bindings[node if name != "self" else (owner, "self")] = var
            expected = frame.ret if not isinstance(owner, A.TestDecl) else None
            ty = self.block(body, expected if expected != NULL else None)
            if frame.ret is not None and frame.ret != NULL and not isinstance(owner, A.TestDecl):
                self.expect_value(body, ty, frame.ret, body.span)
            elif frame.ret is None:
                frame.returns.append(ty)
        finally:
            self.pop_scope()
            self.frames.pop()
        if frame.ret is None:
            return widen(union(frame.returns))
        return frame.ret

    def check_llm_body(self, decl: A.Function, body: A.LlmBody,
                       params: list[tuple[str, Ty, object, Span]]) -> None:
        self.frames.append(Frame(decl, NULL))
        self.tp.locals_of.setdefault(decl, [])
        self.push_scope()
        self.in_prompt = True
        try:
            for name, ty, node, span in params:
                self.tp.bindings[node] = self.declare(name, ty, span)
            client = body.client
            if isinstance(client, A.Name):
                if client.ident in self.items.clients:
                    self.tp.names[client] = ClientRef(client.ident)
                    self.tp.types[client] = ANY
                else:
                    self.error(Code.UNRESOLVED_NAME, f"unresolved name: `{client.ident}`", client.span)
            elif not isinstance(client, A.StringLit):
                self.expr(client, None)
            self.expr(body.prompt, STRING)
        finally:
            self.in_prompt = False
            self.pop_scope()
            self.frames.pop()

    # -- scopes -----------------------------------------------------------------
    def push_scope(self) -> None:
        self.scopes.append({})
        self.narrowed.append({})

    def pop_scope(self) -> None:
        self.scopes.pop()
        self.narrowed.pop()

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

    def apply_facts(self, facts: Facts) -> None:
        self.narrowed[-1].update(facts)

    def forget(self, var: LocalVar) -> None:
        """An assignment ends narrowing of `var` in every enclosing scope."""
        for facts in self.narrowed:
            facts.pop(var, None)

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

    # -- blocks and statements --------------------------------------------------
    def block(self, b: A.Block, expected: Ty | None) -> Ty:
        self.push_scope()
        try:
            diverges = False
            for s in b.stmts:
                if self.stmt(s):
                    diverges = True
            if b.tail is not None:
                ty = self.expr(b.tail, expected)
                if ty == NEVER:
                    diverges = True
            else:
                ty = NULL
        finally:
            self.pop_scope()
        self.tp.types[b] = NEVER if diverges else ty
        return NEVER if diverges else ty

    def stmt(self, s: A.Stmt) -> bool:
        """Check a statement; True when it never completes (return, throw, ...)."""
        try:
            return self._stmt(s)
        except CheckAbort:
            return False

    def _stmt(self, s: A.Stmt) -> bool:
        if isinstance(s, A.Let):
            if s.name == "root":
                self.error(Code.RESERVED_NAME, "`root` is the path to this package and cannot name a binding, "
                           "an item, or a type parameter", s.span.source.span(s.span.start_offset, s.name_span.end_offset),
                           "`root` is this package")
            declared = self.resolver.resolve_type(s.type) if s.type else None
            ty = self.expr(s.value, declared)
            if declared is not None:
                self.expect_value(s.value, ty, declared, s.value.span)
                var_ty = declared
            else:
                var_ty = self.let_type(s, ty)
            var = self.declare(s.name, var_ty, s.name_span)
            self.tp.bindings[s] = var
            if declared is not None and ty != NEVER and not isinstance(ty, Special):
                narrowed = self.narrow_to(declared, ty)
                if narrowed is not None:
                    self.apply_facts({var: narrowed})
            return ty == NEVER
        if isinstance(s, A.LetPattern):
            return self.let_pattern(s)
        if isinstance(s, A.ExprStmt):
            return self.expr(s.expr, None) == NEVER
        if isinstance(s, A.Assign):
            self.assign(s)
            return False
        if isinstance(s, A.Return):
            frame = self.frames[-1]
            if s.value is None:
                ty = NULL
            else:
                ty = self.expr(s.value, frame.ret)
            if frame.ret is None:
                frame.returns.append(ty)
            elif s.value is not None:
                self.expect_value(s.value, ty, frame.ret, s.value.span)
            elif frame.ret != NULL and not self.assignable(NULL, frame.ret):
                self.mismatch(frame.ret, NULL, s.span)
            return True
        if isinstance(s, (A.Break, A.Continue)):
            if self.frames[-1].loops == 0:
                word = "break" if isinstance(s, A.Break) else "continue"
                self.error(Code.SYNTAX, f"`{word}` outside of a loop", s.span)
            return True
        if isinstance(s, A.Throw):
            self.expr(s.value, None)
            return True
        if isinstance(s, A.While):
            true_facts, _ = self.condition(s.cond)
            self.loop_body(s.body, true_facts)
            return False
        if isinstance(s, A.ForC):
            self.push_scope()
            try:
                if s.init is not None:
                    self.stmt(s.init)
                facts: Facts = {}
                if s.cond is not None:
                    facts, _ = self.condition(s.cond)
                self.loop_body(s.body, facts)
                if s.step is not None:
                    self.frames[-1].loops += 1
                    try:
                        self.stmt(s.step)
                    finally:
                        self.frames[-1].loops -= 1
            finally:
                self.pop_scope()
            return False
        if isinstance(s, A.ForIn):
            it = self.expr(s.iterable, None)
            elem = self.element_type(it, s.iterable.span)
            self.push_scope()
            try:
                var = self.declare(s.name, elem, s.span)
                self.tp.bindings[s] = var
                self.loop_body(s.body, {})
            finally:
                self.pop_scope()
            return False
        raise AssertionError(s)

    def let_pattern(self, s: A.LetPattern) -> bool:
        declared = s.pattern.type if isinstance(s.pattern, A.BindPat) else None
        ty = self.expr(s.value, self.resolver.resolve_type(declared) if declared is not None else None)
        if isinstance(s.pattern, A.ClassPat) and s.pattern.name not in self.items.classes:
            span = s.span.source.span(s.span.start_offset, s.pattern.span.end_offset)
            self.error(Code.UNRESOLVED_TYPE, f"unresolved type: {s.pattern.name}", span)
            raise CheckAbort
        first_pattern_error = len(self.diagnostics)
        bound = self.pattern(s.pattern, ty)
        if s.otherwise is not None:
            self.block(s.otherwise, None)
        elif not self.irrefutable(s.pattern, ty):
            # Reported before the pattern's own errors, over `let ... = value`, as the engine does.
            span = s.span.source.span(s.span.start_offset, s.value.span.end_offset)
            self.diagnostics.insert(first_pattern_error, Diagnostic(
                Code.REFUTABLE_LET, "refutable pattern in let binding; refutable patterns belong in `match`", span))
        for name, var in bound:
            self.scopes[-1][name] = var
        return ty == NEVER

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

    def let_type(self, s: A.Let, ty: Ty) -> Ty:
        if isinstance(s.value, A.MapLit) and not s.value.entries:
            self.error(Code.ANNOTATION_NEEDED, "type annotations needed", s.value.span,
                       "full type: `map<string, !error>`")
        if isinstance(ty, VariantT):
            return ty  # the engine keeps a variant's literal type (`let c = C.R` is `C.R`)
        return widen(ty)

    def loop_body(self, body: A.Block, facts: Facts) -> None:
        self.frames[-1].loops += 1
        self.push_scope()
        try:
            self.apply_facts(facts)
            self.block(body, None)
        finally:
            self.pop_scope()
            self.frames[-1].loops -= 1

    def element_type(self, it: Ty, span: Span) -> Ty:
        t = expand(it, self.items)
        if isinstance(t, ListT):
            return t.elem
        parts = members_of(t, self.items)
        if len(parts) > 1 and all(isinstance(m, ListT) for m in parts):
            return union(m.elem for m in parts if isinstance(m, ListT))
        if t == ANY:
            return ANY
        if isinstance(t, MapT):
            self.error(Code.NOT_CALLABLE, f"cannot iterate over type `{it}`", span)
            return ANY
        self.error(Code.NOT_CALLABLE, f"cannot iterate over type `{it}`", span)
        return ANY

    def assign(self, s: A.Assign) -> None:
        target_ty = self.place(s.target)
        if s.op is None:
            ty = self.expr(s.value, target_ty)
        else:
            vty = self.expr(s.value, None)
            ty = self.binary_type(s.op, target_ty, vty, s.span)
        if target_ty != ANY:
            self.expect_value(s.value, ty, target_ty, s.value.span)
        if isinstance(s.target, A.Name):
            var = self.lookup(s.target.ident)
            if var is not None:
                self.forget(var)
                narrowed = self.narrow_to(var.ty, ty)
                if narrowed is not None and s.op is None:
                    self.apply_facts({var: narrowed})

    def narrow_to(self, declared: Ty, value: Ty) -> Ty | None:
        """After `x = v`, x holds v's type if that is a strictly narrower member set."""
        if not isinstance(expand(declared, self.items), UnionT):
            return None
        wv = widen(value)
        if self.assignable(wv, declared) and wv != declared:
            return wv
        return None

    def place(self, target: A.Expr) -> Ty:
        """The type of an assignment target (a variable, field or element)."""
        if isinstance(target, A.Name):
            var = self.lookup(target.ident)
            if var is None:
                if target.ident in self.items.consts:
                    self.error(Code.SYNTAX, f"cannot assign to constant `{target.ident}`", target.span)
                else:
                    self.error(Code.UNRESOLVED_NAME, f"unresolved name: `{target.ident}`", target.span)
                return ANY
            self.note_capture(var)
            self.tp.names[target] = LocalRef(var)
            self.tp.types[target] = var.ty
            return var.ty
        if isinstance(target, A.FieldAccess):
            ty = self.expr(target, None)
            if not isinstance(self.tp.members.get(target), FieldRef) and self.path_of(target.obj) is not None:
                path = f"{self.path_of(target.obj)}.{target.name}"
                self.error(Code.SYNTAX, f"invalid assignment target; `{path}` is not a variable, "
                           "so it cannot be assigned to", target.span)
                raise CheckAbort
            return ty
        if isinstance(target, A.Index):
            return self.expr(target, None)
        self.error(Code.SYNTAX, "invalid assignment target", target.span)
        return ANY

    # -- value checks -----------------------------------------------------------
    def expect_value(self, node: A.Expr | A.Block, ty: Ty, expected: Ty, span: Span) -> None:
        """Report E0029/E0001 when a value of type `ty` is used where `expected` is needed."""
        if self.assignable(ty, expected):
            return
        if isinstance(node, A.Block) and isinstance(node.tail, A.If) and node.tail.otherwise is None:
            node = node.tail
        if isinstance(node, A.If) and node.otherwise is None:
            self.error(Code.MISSING_VALUE, "missing value", node.span,
                       f"expected `{expected}`, but an `if` without `else` evaluates to `null`; "
                       "add an `else` branch")
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

    # -- expressions ------------------------------------------------------------
    def expr(self, e: A.Expr, expected: Ty | None) -> Ty:
        try:
            ty = self._expr(e, expected)
        except CheckAbort:
            ty = ANY
        self.tp.types[e] = ty
        return ty

    def _expr(self, e: A.Expr, expected: Ty | None) -> Ty:  # noqa: C901 - one dispatch
        if isinstance(e, A.IntLit):
            if not -(1 << 63) <= e.value < (1 << 63):
                self.error(Code.INT_TOO_LARGE, "integer literal is too large", e.span,
                           "does not fit in `int`; use a `bigint` literal (`n` suffix) for arbitrary precision")
            elif not INT_MIN <= e.value <= INT_MAX:
                self.error(Code.INT_RANGE,
                           f"integer literal `{e.value}` is out of range for `int` (which holds "
                           f"{INT_MIN} to {INT_MAX}); append `n` to write it as a `bigint`", e.span)
            return Lit(e.value)
        if isinstance(e, A.FloatLit):
            return FLOAT
        if isinstance(e, A.StringLit):
            return Lit(e.value)
        if isinstance(e, A.BoolLit):
            return Lit(e.value)
        if isinstance(e, A.NullLit):
            return NULL
        if isinstance(e, A.Template):
            return self.template(e)
        if isinstance(e, A.Name):
            return self.name(e)
        if isinstance(e, A.FieldAccess):
            return self.member(e)
        if isinstance(e, A.Index):
            return self.index(e)
        if isinstance(e, A.Call):
            return self.call(e, expected)
        if isinstance(e, A.Unary):
            return self.unary(e)
        if isinstance(e, A.Binary):
            return self.binary(e)
        if isinstance(e, A.IsType):
            self.expr(e.expr, None)
            self.tp.patterns[e] = TypeTest(self.resolver.resolve_type(e.type))
            return BOOL
        if isinstance(e, A.IsPattern):
            self.pattern(e.pattern, self.expr(e.expr, None))  # its bindings are not in scope anywhere
            return BOOL
        if isinstance(e, A.Block):
            return self.block(e, expected)
        if isinstance(e, A.If):
            return self.if_expr(e, expected)
        if isinstance(e, A.Match):
            return self.match(e, expected)
        if isinstance(e, A.Catch):
            return self.catch(e, expected)
        if isinstance(e, A.ArrayLit):
            return self.array_lit(e, expected)
        if isinstance(e, A.MapLit):
            return self.map_lit(e, expected)
        if isinstance(e, A.ClassLit):
            return self.class_lit(e)
        if isinstance(e, A.Lambda):
            return self.lambda_(e, expected)
        if isinstance(e, A.Assign):
            self.error(Code.SYNTAX, "assignment is not allowed in expression position; assignment is a statement",
                       e.span, "assignment not allowed here")
            return ANY
        raise AssertionError(e)

    def template(self, e: A.Template) -> Ty:
        for part in e.parts:
            if isinstance(part, str):
                continue
            if isinstance(part, A.TemplateStmt):
                for s in part.stmts:
                    self.stmt(s)
                continue
            ty = self.expr(part, None)
            if ty != NULL and ty != ANY and NULL in members_of(ty, self.items):
                self.error(Code.MISMATCH, f"cannot interpolate a value of type `{ty}` — it may be null; "
                           "coalesce with `?? \"…\"` or unwrap it first", _hole_span(e, part) or part.span)
            if ty == NULL:
                span = Span(part.span.source, part.span.start_offset, part.span.end_offset)
                self.error(Code.MISMATCH, "cannot interpolate a value of type `null`; to run the expression "
                           "without rendering it, end it with `;`", _hole_span(e, part) or span)
        return STRING

    def name(self, e: A.Name) -> Ty:
        var = self.lookup(e.ident)
        if var is not None:
            self.note_capture(var)
            self.tp.names[e] = LocalRef(var)
            return self.var_type(var)
        items = self.items
        if e.ident in items.functions:
            fn = items.functions[e.ident]
            self.tp.names[e] = FuncRef(e.ident)
            return fn.func_type()
        if e.ident in items.consts:
            self.tp.names[e] = ConstRef(e.ident)
            const = items.consts[e.ident]
            if const in self.tp.types:
                return self.tp.types[const]
            return self.resolver.resolve_type(const.type) if const.type else ANY
        if e.ident in items.clients:
            self.tp.names[e] = ClientRef(e.ident)
            return ANY
        if self.is_type_path(e.ident):
            self.tp.names[e] = TypeRef(e.ident)
            return ANY
        if e.ident == "ctx" and self.in_prompt:
            self.tp.names[e] = TypeRef("ctx")
            return ANY
        self.error(Code.UNRESOLVED_NAME, f"unresolved name: `{e.ident}`", e.span)
        raise CheckAbort

    def is_type_path(self, path: str) -> bool:
        items = self.items
        return (path in items.classes or path in items.enums or path in PRIMS or path in B.NAMESPACES
                or path in items.aliases or path in items.alias_types)

    def path_of(self, e: A.Expr) -> str | None:
        """The dotted path of `e` when it names a type or namespace rather than a value."""
        if isinstance(e, A.Name):
            if self.lookup(e.ident) is not None or e.ident in self.items.consts:
                return None
            if self.is_type_path(e.ident) or (e.ident == "ctx" and self.in_prompt):
                self.tp.names[e] = TypeRef(e.ident)
                self.tp.types[e] = ANY
                return e.ident
            return None
        if isinstance(e, A.FieldAccess):
            base = self.path_of(e.obj)
            if base is None:
                return None
            full = f"{base}.{e.name}"
            if full in B.NAMESPACES or full in self.items.classes or full in self.items.enums:
                self.tp.members[e] = TypeRef(full)
                self.tp.types[e] = ANY
                return full
        return None

    def member(self, e: A.FieldAccess) -> Ty:
        base = self.path_of(e.obj)
        if base is not None:
            return self.static_member(e, base)
        obj_ty = self.expr(e.obj, None)
        return self.value_member(e, obj_ty, called=False)

    def static_member(self, e: A.FieldAccess, base: str) -> Ty:
        """`Color.RED`, `Counter.zero`, `int.parse`, `baml.deep_copy` ..."""
        full = f"{base}.{e.name}"
        items = self.items
        if base in items.enums:
            decl = items.enums[base]
            if any(v.name == e.name for v in decl.variants):
                self.tp.members[e] = VariantRef(base, e.name)
                return VariantT(base, e.name)
            self.error(Code.NO_MEMBER, f"type `{base}` has no member `{e.name}`", e.span)
            raise CheckAbort
        if full in items.functions and items.functions[full].owner_class == base:
            # A method named through its class (`Employee.full_name`) takes the receiver first.
            self.tp.members[e] = FuncRef(full)
            fn = items.functions[full]
            fty = fn.func_type()
            return FuncT((ClassT(base), *fty.params), fty.ret) if fn.is_method else fty
        if full in B.FUNCTIONS:
            self.tp.members[e] = BuiltinRef(full)
            sig = B.FUNCTIONS[full]
            return FuncT(sig.params, sig.ret)
        if full == "ctx.output_format" and self.in_prompt:
            self.tp.members[e] = BuiltinRef(full)
            return FuncT((), STRING)
        if full in B.NAMESPACES or full in items.classes:
            self.tp.members[e] = TypeRef(full)
            return ANY
        self.error(Code.UNRESOLVED_NAME, f"unresolved name: `{full}`", e.span)
        raise CheckAbort

    def value_member(self, e: A.FieldAccess, obj_ty: Ty, called: bool,
                     err_span: Span | None = None) -> Ty:
        """A field or method of a value; `?.` maps over the non-null part."""
        if obj_ty == ANY:
            return ANY
        t = expand(obj_ty, self.items)
        if e.optional:
            inner = without_null(t, self.items)
            if inner == NEVER:
                return NULL
            return optional(self.member_of(e, expand(inner, self.items), obj_ty, err_span or e.span))
        return self.member_of(e, t, obj_ty, err_span or e.span)

    def member_of(self, e: A.FieldAccess, t: Ty, obj_ty: Ty, err_span: Span) -> Ty:
        if isinstance(obj_ty, AliasT) and obj_ty.name in self.items.interfaces:
            declared = any(m.name == e.name for m in self.items.interfaces[obj_ty.name].methods)
            impls = self.items.implementors.get(obj_ty.name, [])
            if declared and impls:
                fn = self.items.functions[f"{impls[0]}.{e.name}"]
                self.tp.members[e] = InterfaceMethodRef(obj_ty.name, e.name)
                return fn.func_type()
        if isinstance(t, ClassT) and t.name in self.items.classes:
            cls = self.items.classes[t.name]
            found = cls.field(e.name)
            if found is not None:
                index, info = found
                self.tp.members[e] = FieldRef(cls.name, index)
                return info.ty
            if e.name in cls.methods:
                fn = self.items.functions[f"{cls.name}.{e.name}"]
                if fn.is_method:
                    self.tp.members[e] = MethodRef(fn.name)
                    return fn.func_type()
        kind = receiver_kind(t)
        if kind is not None and e.name in B.METHODS[kind]:
            self.tp.members[e] = BuiltinMethodRef(f"{kind}.{e.name}")
            sig = B.METHODS[kind][e.name]
            env = bind_receiver(t)
            return FuncT(tuple(subst(p, env) for p in sig.params), subst(sig.ret, env))
        self.error(Code.NO_MEMBER, f"type `{obj_ty}` has no member `{e.name}`", err_span)
        raise CheckAbort

    def index(self, e: A.Index) -> Ty:
        obj_ty = self.expr(e.obj, None)
        t = expand(obj_ty, self.items)
        if isinstance(t, ListT):
            ity = self.expr(e.index, INT)
            if not self.assignable(ity, INT):
                self.mismatch(INT, ity, e.index.span)
            return t.elem
        if isinstance(t, MapT):
            kty = self.expr(e.index, t.key)
            if not self.assignable(kty, t.key):
                self.mismatch(t.key, kty, e.index.span)
            return t.value
        self.expr(e.index, None)
        if t == ANY:
            return ANY
        self.error(Code.NOT_INDEXABLE, f"cannot index into type `{obj_ty}`", e.span)
        raise CheckAbort

    def unary(self, e: A.Unary) -> Ty:
        ty = self.expr(e.operand, None)
        if e.op == "!":
            return BOOL
        base = widen(expand(ty, self.items))
        if e.op == "-" and base in (INT, FLOAT):
            return base
        if e.op == "~" and base == INT:
            return INT
        if ty == ANY:
            return ANY
        self.error(Code.BAD_OPERATOR, f"operator `{e.op}` cannot be applied to `{ty}`", e.span)
        return ANY

    def binary(self, e: A.Binary) -> Ty:
        if e.op in ("&&", "||"):
            true_facts, false_facts = self.condition(e.left)
            self.push_scope()
            try:
                self.apply_facts(true_facts if e.op == "&&" else false_facts)
                self.expr(e.right, None)
            finally:
                self.pop_scope()
            return BOOL
        left = self.expr(e.left, None)
        if e.op == "??":
            base = without_null(left, self.items)
            right = self.expr(e.right, base if base != NEVER else None)
            if self.assignable(right, base):
                return base
            return union([base, right])
        lt = expand(left, self.items)
        if isinstance(lt, ClassT) and (lt.name, e.op) in self.items.operators:
            return self.operator_call(e, self.items.functions[self.items.operators[(lt.name, e.op)]])
        right = self.expr(e.right, None)
        return self.binary_type(e.op, left, right, e.span)

    def operator_call(self, e: A.Binary, fn: FuncItem) -> Ty:
        """`a + b` on a class implementing `baml.ops.Add`: the call `a.add(b)`."""
        call = A.Call(A.FieldAccess(e.left, fn.name.rsplit(".", 1)[1], False, e.span, e.op_span),
                      [A.Arg(None, e.right, e.right.span)], e.span)
        ret = self.call_item(call, fn, e.left)
        self.tp.calls[e] = self.tp.calls.pop(call)
        return ret

    def binary_type(self, op: str, left: Ty, right: Ty, span: Span) -> Ty:
        if op in EQUALITY:
            return BOOL
        if left == ANY or right == ANY:
            return BOOL if op in ORDER else ANY
        lt, rt = widen(expand(left, self.items)), widen(expand(right, self.items))
        if op in ARITH:
            if lt in (INT, FLOAT) and rt in (INT, FLOAT):
                return INT if lt == rt == INT else FLOAT
            if op == "+" and lt == STRING and rt == STRING:
                return STRING
        elif op in BITWISE:
            if lt == INT and rt == INT:
                return INT
        elif op in ORDER:
            if lt == rt and lt in (INT, FLOAT, STRING, BOOL):
                return BOOL
            if isinstance(lt, Prim) and isinstance(rt, Prim) and lt != rt:
                self.error(Code.BAD_OPERATOR,
                           f"cannot order `{left}` and `{right}` with `{op}`: ordering requires both "
                           "operands to have the same type", span)
                return BOOL
            if lt == rt:
                self.error(Code.BAD_OPERATOR, f"`{left}` does not implement `Compare`", span)
                return BOOL
        self.error(Code.BAD_OPERATOR, f"operator `{op}` cannot be applied to `{left}` and `{right}`", span)
        return BOOL if op in ORDER else ANY

    # -- narrowing ----------------------------------------------------------------
    def condition(self, e: A.Expr) -> tuple[Facts, Facts]:
        """Check a condition; return what holds when it is true / false."""
        self.expr(e, None)
        return self.facts(e)

    def facts(self, e: A.Expr) -> tuple[Facts, Facts]:
        if isinstance(e, A.Unary) and e.op == "!":
            t, f = self.facts(e.operand)
            return f, t
        if isinstance(e, A.Binary) and e.op == "&&":
            lt, _ = self.facts(e.left)
            rt, _ = self.facts(e.right)
            return {**lt, **rt}, {}
        if isinstance(e, A.Binary) and e.op == "||":
            _, lf = self.facts(e.left)
            _, rf = self.facts(e.right)
            return {}, {**lf, **rf}
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
        self.push_scope()
        try:
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
                self.pop_scope()
            if e.otherwise is None:
                if then_ty == NEVER:
                    # `if (x == null) { return ...; }`: the rest of the block sees x narrowed.
                    self.narrowed[-2].update(false_facts)
                return union([then_ty, NULL]) if then_ty != NEVER else NULL
            self.push_scope()
            try:
                self.apply_facts(false_facts)
                else_ty = self.expr(e.otherwise, expected) if isinstance(e.otherwise, A.If) \
                    else self.branch_value(e.otherwise, expected)
            finally:
                self.pop_scope()
            if then_ty == NEVER and else_ty != NEVER:
                self.narrowed[-2].update(false_facts)
            elif else_ty == NEVER and then_ty != NEVER:
                self.narrowed[-2].update(true_facts)
            return union([then_ty, else_ty])
        finally:
            facts_after = self.narrowed[-1]
            self.pop_scope()
            if facts_after:
                self.narrowed[-1].update(facts_after)

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
    def pattern(self, p: A.Pattern, scrut: Ty) -> list[tuple[str, LocalVar]]:
        """Resolve a pattern; return the variables it binds."""
        if isinstance(p, A.WildcardPat):
            return []
        if isinstance(p, A.LiteralPat):
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

    # -- literals -------------------------------------------------------------------
    def array_lit(self, e: A.ArrayLit, expected: Ty | None) -> Ty:
        exp = expand(expected, self.items) if expected is not None else None
        elem_expected = exp.elem if isinstance(exp, ListT) else None
        types = [self.expr(x, elem_expected) for x in e.elements]
        if elem_expected is not None and all(self.assignable(t, elem_expected) for t in types):
            return ListT(elem_expected)
        if not types:
            if expected is None and not self.resolver.allow_any:
                self.error(Code.ANNOTATION_NEEDED, "type annotations needed", e.span, None)
                self.diagnostics[-1].notes.append("full type: `!error[]`")
            return ListT(ANY)
        return ListT(widen(union(types)))

    def map_lit(self, e: A.MapLit, expected: Ty | None) -> Ty:
        exp = expand(expected, self.items) if expected is not None else None
        kexp = exp.key if isinstance(exp, MapT) else None
        vexp = exp.value if isinstance(exp, MapT) else None
        ks = [self.expr(k, kexp) for k, _ in e.entries]
        vs = [self.expr(v, vexp) for _, v in e.entries]
        if isinstance(exp, MapT) and all(self.assignable(k, exp.key) for k in ks) and \
                all(self.assignable(v, exp.value) for v in vs):
            return exp
        if not e.entries:
            return MapT(ANY, ANY)
        return MapT(widen(union(ks)), widen(union(vs)))

    def class_lit(self, e: A.ClassLit) -> Ty:
        cls = self.items.classes.get(e.name)
        if cls is None or cls.decl is None:
            self.error(Code.UNRESOLVED_TYPE, f"unresolved type: {e.name}", e.name_span)
            for _, value, _ in e.fields:
                self.expr(value, None)
            raise CheckAbort
        self.tp.class_literals[e] = cls.name
        given: set[str] = set()
        for fname, value, span in e.fields:
            found = cls.field(fname)
            if found is None:
                self.error(Code.NO_MEMBER, f"class `{e.name}` has no field `{fname}`", span)
                self.expr(value, None)
                continue
            given.add(fname)
            fty = found[1].ty
            vty = self.expr(value, fty)
            self.expect_value(value, vty, fty, value.span)
        if e.spread is not None:
            sty = self.expr(e.spread, ClassT(cls.name))
            if not self.assignable(sty, ClassT(cls.name)):
                self.mismatch(ClassT(cls.name), sty, e.spread.span)
        else:
            for f in cls.fields:
                if f.name not in given and not self.assignable(NULL, f.ty):
                    self.error(Code.MISMATCH, f"class `{e.name}` is missing required field: `{f.name}`", e.span)
                    break
        return ClassT(cls.name)

    def lambda_(self, e: A.Lambda, expected: Ty | None) -> Ty:
        exp = expand(expected, self.items) if expected is not None else None
        exp_params = exp.params if isinstance(exp, FuncT) else ()
        params: list[tuple[str, Ty, object, Span]] = []
        for i, p in enumerate(e.params):
            if p.type is not None:
                ty = self.resolver.resolve_param_type(p.type)
            elif i < len(exp_params) and not isinstance(exp_params[i], TypeVar):
                ty = exp_params[i]
            else:
                ty = ANY
            params.append((p.name, ty, p, p.span))
        ret = self.resolver.resolve_type(e.ret) if e.ret is not None else None
        self.tp.lambda_captures.setdefault(e, [])
        body_ret = self.check_body(e, e.body, ret, params)
        return FuncT(tuple(t for _, t, _, _ in params), body_ret)

    # -- calls ----------------------------------------------------------------------
    def prompt_role(self, e: A.Call) -> Ty:
        """`${role("system")}` in a prompt: starts a chat message with that role."""
        named = {a.name: a.value for a in e.args if a.name is not None}
        positional = [a.value for a in e.args if a.name is None]
        name = positional[0] if positional else named.pop("name", None)
        if name is None or len(positional) > 1 or set(named) - {"metadata"}:
            self.error(Code.BAD_ARGUMENTS, "role(...) takes the role's name, e.g. `role(\"system\")`", e.span)
            raise CheckAbort
        self.expr(name, STRING)
        if "metadata" in named:
            self.expr(named["metadata"], None)
        self.tp.calls[e] = CallInfo("builtin", "ctx.role", [name])
        return STRING

    def call(self, e: A.Call, expected: Ty | None) -> Ty:
        callee = e.callee
        if isinstance(callee, A.Name) and self.lookup(callee.ident) is None:
            items = self.items
            if callee.ident in items.functions:
                fn = items.functions[callee.ident]
                self.tp.names[callee] = FuncRef(fn.name)
                self.tp.types[callee] = fn.func_type()
                return self.call_item(e, fn, None)
            if callee.ident == "role" and self.in_prompt:
                return self.prompt_role(e)
            if callee.ident not in items.consts and callee.ident not in items.clients:
                if callee.ident in items.classes or callee.ident in PRIMS:
                    self.error(Code.NOT_CALLABLE, f"`{callee.ident}` is not a function and cannot be called",
                               e.span)
                    raise CheckAbort
                self.error(Code.UNRESOLVED_NAME, f"unresolved name: `{callee.ident}`", callee.span)
                for a in e.args:
                    self.expr(a.value, None)
                raise CheckAbort
        if isinstance(callee, A.FieldAccess):
            base = self.path_of(callee.obj)
            if base is not None:
                return self.call_static(e, callee, base)
            obj_ty = self.expr(callee.obj, None)
            fty = self.value_member(callee, obj_ty, called=True, err_span=e.span)
            self.tp.types[callee] = fty
            res = self.tp.members.get(callee)
            if isinstance(res, MethodRef):
                return self.call_item(e, self.items.functions[res.name], callee.obj)
            if isinstance(res, InterfaceMethodRef):
                first = self.items.implementors[res.interface][0]
                ret = self.call_item(e, self.items.functions[f"{first}.{res.method}"], callee.obj)
                info = self.tp.calls[e]
                self.tp.calls[e] = CallInfo("interface", f"{res.interface}.{res.method}", info.args)
                return ret
            if isinstance(res, BuiltinMethodRef):
                kind, name = res.key.split(".", 1)
                sig = B.METHODS[kind][name]
                receiver = expand(obj_ty, self.items)
                key = res.key
                if key == "array.sum" and isinstance(receiver, ListT) and widen(receiver.elem) == FLOAT:
                    key = "array.sum_float"  # an empty float sum is -0.0, an empty int sum 0
                return self.call_builtin(e, key, sig, callee.obj, receiver)
        fty = self.expr(callee, None)
        return self.call_value(e, fty)

    def call_static(self, e: A.Call, callee: A.FieldAccess, base: str) -> Ty:
        full = f"{base}.{callee.name}"
        fn = self.items.functions.get(full)
        if fn is not None and fn.owner_class == base and not fn.is_method:
            self.tp.members[callee] = FuncRef(full)
            self.tp.types[callee] = fn.func_type()
            return self.call_item(e, fn, None)
        if fn is not None and fn.owner_class == base and fn.is_method:
            return self.call_unbound_method(e, fn, base)
        if full in B.FUNCTIONS:
            self.tp.members[callee] = BuiltinRef(full)
            self.tp.types[callee] = ANY
            return self.call_builtin(e, full, B.FUNCTIONS[full], None, None)
        if full == "ctx.output_format" and self.in_prompt:
            self.tp.members[callee] = BuiltinRef(full)
            self.tp.calls[e] = CallInfo("builtin", full, [])
            return STRING
        if base in self.items.enums or base in self.items.classes:
            self.error(Code.NO_MEMBER, f"type `{base}` has no member `{callee.name}`", e.span)
        else:
            self.error(Code.UNRESOLVED_NAME, f"unresolved name: `{full}`", callee.span)
        for a in e.args:
            self.expr(a.value, None)
        raise CheckAbort

    def call_unbound_method(self, e: A.Call, fn: FuncItem, base: str) -> Ty:
        """`Employee.full_name(e)`: the method with its receiver passed as the first argument."""
        required = sum(1 for p in fn.params if p.default is None) + 1
        positional = sum(1 for a in e.args if a.name is None)
        if not e.args or e.args[0].name is not None or not required <= positional <= len(fn.params) + 1:
            self.error(Code.BAD_ARGUMENTS, f"expected {required} argument(s), got {len(e.args)}", e.span)
            raise CheckAbort
        receiver = e.args[0].value
        self.expect_value(receiver, self.expr(receiver, ClassT(base)), ClassT(base), receiver.span)
        rest = A.Call(e.callee, e.args[1:], e.span)
        ret = self.call_item(rest, fn, receiver)
        self.tp.calls[e] = self.tp.calls.pop(rest)
        return ret

    def order_args(self, e: A.Call, names: list[str], defaults: list[A.Expr | None],
                   where: str = "") -> list[A.Expr | None]:
        """Match positional and named arguments to parameters; report E0005."""
        slots: list[A.Expr | None] = [None] * len(names)
        positional = [a for a in e.args if a.name is None]
        named = [a for a in e.args if a.name is not None]
        required = sum(1 for d in defaults if d is None)
        if len(positional) > len(names):
            self.error(Code.BAD_ARGUMENTS, f"expected {required} argument(s), got {len(e.args)}", e.span)
            raise CheckAbort
        for i, a in enumerate(positional):
            if defaults[i] is not None:
                self.error(Code.BAD_ARGUMENTS, f"defaulted parameter `{names[i]}` must be passed by name", a.span)
            slots[i] = a.value
        for a in named:
            if a.name not in names:
                self.error(Code.BAD_ARGUMENTS, f"unknown parameter `{a.name}`", a.span)
                continue
            i = names.index(a.name)  # type: ignore[arg-type]
            if slots[i] is not None:
                self.error(Code.BAD_ARGUMENTS, f"parameter `{a.name}` passed twice", a.span)
            slots[i] = a.value
        missing = [n for n, s, d in zip(names, slots, defaults) if s is None and d is None]
        if missing:
            self.error(Code.BAD_ARGUMENTS, f"expected {required} argument(s), got {len(e.args)}", e.span)
            raise CheckAbort
        return [s if s is not None else d for s, d in zip(slots, defaults)]

    def call_item(self, e: A.Call, fn: FuncItem, receiver: A.Expr | None) -> Ty:
        names = [p.name for p in fn.params]
        defaults = [p.default for p in fn.params]
        ordered = self.order_args(e, names, defaults)
        args: list[A.Expr] = []
        for value, p in zip(ordered, fn.params):
            assert value is not None
            if any(value is a.value for a in e.args):
                ty = self.expr(value, p.ty)
                self.expect_value(value, ty, p.ty, value.span)
            args.append(value)
        if receiver is not None:
            self.tp.calls[e] = CallInfo("method", fn.name, [receiver, *args])
        else:
            self.tp.calls[e] = CallInfo("function", fn.name, args)
        return fn.ret

    def call_builtin(self, e: A.Call, key: str, sig: B.Signature, receiver: A.Expr | None,
                     receiver_ty: Ty | None) -> Ty:
        if any(a.name is not None for a in e.args):
            self.error(Code.BAD_ARGUMENTS, "built-in functions take positional arguments", e.span)
        n = len(e.args)
        if not sig.required <= n <= len(sig.params):
            self.error(Code.BAD_ARGUMENTS, f"expected {len(sig.params)} argument(s), got {n}", e.span)
            raise CheckAbort
        env = bind_receiver(receiver_ty) if receiver_ty is not None else {}
        for a, pty in zip(e.args, sig.params):
            want = subst(pty, env)
            ty = self.expr(a.value, want if not has_typevar(want) else strip_unbound(want))
            unify(pty, ty, env)
            want = subst(pty, env)
            if not has_typevar(want) and not self.assignable(ty, want):
                self.expect_value(a.value, ty, want, a.value.span)
        args = [a.value for a in e.args]
        self.tp.calls[e] = CallInfo("builtin", key, ([receiver] if receiver is not None else []) + args)
        ret = subst(sig.ret, env)
        return strip_unbound(ret)

    def call_value(self, e: A.Call, fty: Ty) -> Ty:
        t = expand(fty, self.items)
        args = [a.value for a in e.args]
        if isinstance(t, FuncT):
            if len(args) != len(t.params):
                self.error(Code.BAD_ARGUMENTS, f"expected {len(t.params)} argument(s), got {len(args)}", e.span)
            for a, pty in zip(args, t.params):
                ty = self.expr(a, pty)
                self.expect_value(a, ty, pty, a.span)
            ret = t.ret
        else:
            for a in args:
                self.expr(a, None)
            if t != ANY:
                self.error(Code.NOT_CALLABLE, f"`{fty}` is not a function and cannot be called", e.span)
            ret = ANY
        self.tp.calls[e] = CallInfo("value", "", [e.callee, *args])
        return ret


# -- helpers ----------------------------------------------------------------------
def _hole_span(template: A.Template, part: A.Expr) -> Span | None:
    """The engine points at `{...}` of a `${...}` hole."""
    s = part.span
    text = s.source.text
    start = text.rfind("{", template.span.start_offset, s.start_offset + 1)
    end = text.find("}", s.end_offset - 1, template.span.end_offset)
    if start < 0 or end < 0:
        return None
    return Span(s.source, start, end + 1)


def receiver_kind(t: Ty) -> str | None:
    t = widen(t)
    if isinstance(t, Prim) and t.name in ("string", "int", "float", "bool"):
        return t.name
    if isinstance(t, ListT):
        return "array"
    if isinstance(t, MapT):
        return "map"
    return None


def bind_receiver(t: Ty | None) -> dict[str, Ty]:
    if isinstance(t, ListT):
        return {"T": t.elem}
    if isinstance(t, MapT):
        return {"K": t.key, "V": t.value}
    return {}


def subst(t: Ty, env: dict[str, Ty]) -> Ty:
    if isinstance(t, TypeVar):
        return env.get(t.name, t)
    if isinstance(t, ListT):
        return ListT(subst(t.elem, env))
    if isinstance(t, MapT):
        return MapT(subst(t.key, env), subst(t.value, env))
    if isinstance(t, FuncT):
        return FuncT(tuple(subst(p, env) for p in t.params), subst(t.ret, env))
    if isinstance(t, UnionT):
        return union(subst(m, env) for m in t.members)
    return t


def unify(pattern: Ty, actual: Ty, env: dict[str, Ty]) -> None:
    """Bind type variables of `pattern` from `actual` (first binding wins)."""
    if isinstance(pattern, TypeVar):
        if pattern.name not in env and actual not in (ANY, NEVER):
            env[pattern.name] = widen(actual)
        return
    if isinstance(pattern, ListT) and isinstance(actual, ListT):
        unify(pattern.elem, actual.elem, env)
    elif isinstance(pattern, MapT) and isinstance(actual, MapT):
        unify(pattern.key, actual.key, env)
        unify(pattern.value, actual.value, env)
    elif isinstance(pattern, FuncT) and isinstance(actual, FuncT):
        for p, a in zip(pattern.params, actual.params):
            unify(p, a, env)
        unify(pattern.ret, actual.ret, env)
    elif isinstance(pattern, UnionT):
        non_null = [m for m in pattern.members if m != NULL]
        if len(non_null) == 1:
            unify(non_null[0], without_null_simple(actual), env)


def without_null_simple(t: Ty) -> Ty:
    if isinstance(t, UnionT):
        return union(m for m in t.members if m != NULL)
    return t


def has_typevar(t: Ty) -> bool:
    if isinstance(t, TypeVar):
        return True
    if isinstance(t, ListT):
        return has_typevar(t.elem)
    if isinstance(t, MapT):
        return has_typevar(t.key) or has_typevar(t.value)
    if isinstance(t, FuncT):
        return any(has_typevar(p) for p in t.params) or has_typevar(t.ret)
    if isinstance(t, UnionT):
        return any(has_typevar(m) for m in t.members)
    return False


def strip_unbound(t: Ty) -> Ty:
    return subst(t, _AnyEnv())


class _AnyEnv(dict):  # type: ignore[type-arg]
    def get(self, key, default=None):  # type: ignore[no-untyped-def, override]
        return ANY


def check_module(module: A.Module, allow_any: bool = False) -> tuple[TypedProgram, Items, list[Diagnostic]]:
    checker = Checker(module, allow_any)
    tp = checker.check()
    return tp, checker.items, checker.diagnostics


__all__ = ["check_module", "Checker", "EnumT", "INT", "FLOAT"]
