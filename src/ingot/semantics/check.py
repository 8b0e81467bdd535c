"""Type checking: the `Checker` (bodies, blocks, statements, assignments) and `check_module`.

The checker fills the typed HIR. Its other parts are mixins: check_base.py (state, scopes,
reporting), check_expr.py (expressions), check_calls.py (calls, unification), narrowing.py
(conditions, patterns, `if`/`match`/`catch`).

The checker is deliberately close to what the BAML engine accepts: where the
engine's rule is known (sections 4 and 7 of the language notes) it is
enforced with the engine's error code and wording; where it is not, the
checker errs on the side of accepting the program, since the VM checks
values dynamically anyway.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from ingot.semantics.check_base import CheckAbort, Facts, Frame
from ingot.semantics.check_calls import CallChecker
from ingot.semantics.check_expr import ExprChecker
from ingot.semantics.hir import (
    ClientRef,
    FieldRef,
    LocalRef,
    TypedProgram,
)
from ingot.semantics.narrowing import NarrowingChecker
from ingot.semantics.resolve import FuncItem, Items
from ingot.semantics.types import (
    ANY,
    FLOAT,
    INT,
    NEVER,
    NULL,
    STRING,
    ClassT,
    EnumT,
    ListT,
    MapT,
    Ty,
    VariantT,
    expand,
    members_of,
    union,
    widen,
)
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Diagnostic, Span


class Checker(ExprChecker, CallChecker, NarrowingChecker):
    """The whole checker: bodies and statements here, the rest in its mixins."""

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
        self.resolver.self_class = fn.owner_class
        try:
            self.check_body(decl, decl.body, fn.ret, params)
        finally:
            self.resolver.type_params, self.resolver.self_class = frozenset(), None

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
            if isinstance(owner, A.TestDecl) and body.tail is not None and not self.assignable(ty, NULL):
                self.error(Code.MISMATCH, "mismatched types", body.tail.span,
                           f"expected `null`, found `{ty}`; end this with `;` to discard the value")
            if frame.ret is not None and frame.ret != NULL and not isinstance(owner, A.TestDecl):
                self.expect_value(body, ty, frame.ret, body.span)
            elif frame.ret == NULL and body.tail is not None:
                self.null_valued_if(body.tail)
            elif frame.ret is None:
                frame.returns.append(ty)
        finally:
            self.pop_scope()
            self.frames.pop()
        self.report_unsettled(owner)
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

    # -- blocks and statements --------------------------------------------------
    def block(self, b: A.Block, expected: Ty | None) -> Ty:
        self.push_scope()
        diverges = False
        try:
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
            if diverges:
                self.pop_scope()
            else:
                self.pop_block()  # what its assignments established holds after it
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
            empty = declared is None and _is_empty_collection(s.value)
            ty = self.expr(s.value, ListT(ANY) if empty and isinstance(s.value, A.ArrayLit) else declared)
            if declared is not None:
                self.expect_value(s.value, ty, declared, s.value.span)
                var_ty = declared
            else:
                self.null_valued_if(s.value)
                var_ty = ty if empty else self.let_type(s, ty)
            var = self.declare(s.name, var_ty, s.name_span)
            self.tp.bindings[s] = var
            if empty:
                self.unsettled[var] = s.value
            # (a declared type is the variable's type from here on, as on the engine: `let t: Tool =
            # Echo { }` is a Tool, not narrowed to the initializer's Echo)
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
                self.error(Code.MISSING_VALUE, "missing value", s.span,
                           f"expected a value of type `{frame.ret}`, but a bare `return` returns `null`")
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
            self.loop(s)
            # `while (true)` that no `break` leaves ends only by `return` or `throw`
            return isinstance(s.cond, A.BoolLit) and s.cond.value and not _breaks_out(s.body)
        if isinstance(s, A.ForC):
            self.push_scope()
            try:
                if s.init is not None:
                    self.stmt(s.init)
                after = self.loop(s)
            finally:
                self.pop_scope()
            self.apply_facts(after)
            return False
        if isinstance(s, A.ForIn):
            it = self.expr(s.iterable, None)
            self.loop(s, self.element_type(it, s.iterable.span))
            return False
        raise AssertionError(s)

    def let_pattern(self, s: A.LetPattern) -> bool:
        declared = s.pattern.type if isinstance(s.pattern, A.BindPat) else None
        declared_ty = self.resolver.resolve_type(declared) if declared is not None else None
        ty = self.expr(s.value, declared_ty)
        if isinstance(s.pattern, A.ClassPat) and s.pattern.name not in self.items.classes:
            span = s.span.source.span(s.span.start_offset, s.pattern.span.end_offset)
            self.error(Code.UNRESOLVED_TYPE, f"unresolved type: {s.pattern.name}", span)
            raise CheckAbort
        first_pattern_error = len(self.diagnostics)
        # `let t: Tool = Echo { }` binds a Tool, as on the engine (not the initializer's narrower type)
        bound = self.pattern(s.pattern, declared_ty if declared_ty is not None and self.assignable(ty, declared_ty) else ty)
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

    def settle_by_assignment(self, target: A.Expr, ty: Ty) -> None:
        """`xs = [1]`, `xs[0] = 1`, `m["a"] = 1` fix an unsettled collection's type."""
        if isinstance(target, A.Name):
            self.settle(target, widen(ty))
        elif isinstance(target, A.Index):
            holder = expand(self.tp.types.get(target.obj, ANY), self.items)
            if isinstance(holder, MapT):
                self.settle(target.obj, MapT(widen(self.tp.types.get(target.index, ANY)), widen(ty)))
            elif isinstance(holder, ListT):
                self.settle(target.obj, ListT(widen(ty)))

    def let_type(self, s: A.Let, ty: Ty) -> Ty:
        if isinstance(s.value, A.MapLit) and not s.value.entries:
            self.error(Code.ANNOTATION_NEEDED, "type annotations needed", s.value.span,
                       "full type: `map<string, !error>`")
        if isinstance(ty, VariantT):
            return ty  # the engine keeps a variant's literal type (`let c = C.R` is `C.R`)
        return widen(ty)

    def loop(self, s: A.While | A.ForC | A.ForIn, elem: Ty = ANY) -> Facts:
        """Check a loop (`elem`: a `for`-`in`'s element type). As on the engine, a variable assigned
        anywhere in the loop has its declared type at the loop's head, so in the condition and
        the whole body, and after the loop, where the condition's falsity narrows it unless a
        `break` may leave the loop. Returns the facts after the loop (applied here)."""
        self.apply_facts({var: var.ty for name in _assigned_names(s) if (var := self.lookup(name)) is not None})
        self.push_scope()
        self.frames[-1].loops += 1
        try:
            cond = s.cond if isinstance(s, (A.While, A.ForC)) else None
            true_facts, false_facts = self.condition(cond) if cond is not None else ({}, {})
            self.push_scope()
            try:
                self.apply_facts(true_facts)
                if isinstance(s, A.ForIn):
                    self.tp.bindings[s] = self.declare(s.name, elem, s.span)
                self.block(s.body, None)
                if isinstance(s, A.ForC) and s.step is not None:
                    self.stmt(s.step)
            finally:
                self.pop_scope()
        finally:
            self.frames[-1].loops -= 1
            self.pop_scope()  # (each variable assigned in the loop is back to its declared type)
        after = false_facts if not _breaks_out(s.body) else {}
        self.apply_facts(after)
        return after

    def element_type(self, it: Ty, span: Span) -> Ty:
        t = expand(it, self.items)
        if isinstance(t, ListT):
            return t.elem
        parts = members_of(t, self.items)
        if len(parts) > 1 and all(isinstance(m, ListT) for m in parts):
            return union(m.elem for m in parts if isinstance(m, ListT))
        if t == ANY:
            return ANY
        if widen(t) == STRING:  # a string's characters (code points), as `chars()` gives them
            return STRING
        if isinstance(t, MapT):
            self.error(Code.NOT_CALLABLE, f"cannot iterate over type `{it}`", span)
            return ANY
        self.error(Code.NOT_CALLABLE, f"cannot iterate over type `{it}`", span)
        return ANY

    def assign(self, s: A.Assign) -> None:
        target_ty = self.place(s.target)
        if s.op is None:
            unsettled = isinstance(s.target, A.Name) and self.lookup(s.target.ident) in self.unsettled
            ty = self.expr(s.value, None if unsettled else target_ty)  # (`xs = [1]` gives `xs` its type)
        else:
            vty = self.expr(s.value, None)
            # (the engine points at the right-hand side: `t += 1` on a string is an error at `1`)
            ty = self.binary_type(s.op, target_ty, vty, s.value.span)
        if target_ty != ANY:
            self.expect_value(s.value, ty, target_ty, s.value.span)
        if s.op is None:
            self.settle_by_assignment(s.target, ty)
        if isinstance(s.target, A.Name):
            var = self.lookup(s.target.ident)
            if var is not None:
                self.assigned_type(var, ty if s.op is None else var.ty)

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


def check_module(module: A.Module, allow_any: bool = False) -> tuple[TypedProgram, Items, list[Diagnostic]]:
    checker = Checker(module, allow_any)
    tp = checker.check()
    return tp, checker.items, checker.diagnostics


__all__ = ["check_module", "Checker", "EnumT", "INT", "FLOAT"]


def _is_empty_collection(e: A.Expr) -> bool:
    return (isinstance(e, A.ArrayLit) and not e.elements) or (isinstance(e, A.MapLit) and not e.entries)


def _assigned_names(loop: A.While | A.ForC | A.ForIn) -> set[str]:
    """The names `loop` assigns to anywhere in it (in lambdas too: calling one may assign)."""
    return {x.target.ident for x in _syntax_nodes(loop) if isinstance(x, A.Assign) and isinstance(x.target, A.Name)}


def _breaks_out(body: A.Block) -> bool:
    """Does a `break` in `body` leave the loop it is the body of (not an inner loop's, not a lambda's)?"""
    return any(isinstance(x, A.Break) for x in _syntax_nodes(body, (A.While, A.ForC, A.ForIn, A.Lambda)))


def _syntax_nodes(root: object, opaque: tuple[type, ...] = ()) -> Iterator[object]:
    """`root` and every syntax node below it, not looking inside the `opaque` kinds of node
    below it (a loop of its own, a lambda's body)."""
    todo: list[object] = [root]
    while todo:
        x = todo.pop()
        yield x
        if isinstance(x, (list, tuple)):
            todo.extend(x)
        elif type(x).__module__ == A.__name__ and dataclasses.is_dataclass(x) \
                and (x is root or not isinstance(x, opaque)):
            todo.extend(getattr(x, f.name) for f in dataclasses.fields(x))  # type: ignore[arg-type]
