"""Typed HIR -> MIR.

Expressions lower through two modes: `operand(e)` evaluates `e` and returns
an operand (a constant, or a copy of the local holding the value), creating
blocks as needed; `into(e, local)` evaluates `e` into a given local, which
is how `if`, `match` and blocks deliver values from several branches. Calls
are terminators, so a call ends the current block and lowering continues in
the call's target block.

This module holds `lower_program`, functions and bodies, statements, loops,
conditions and the `into` mode; lower_base.py holds the state and helpers,
lower_expr.py the `operand` mode, lower_patterns.py `match` and patterns.
"""

from __future__ import annotations

from ingot.mir import ir
from ingot.mir.builder import CfgBuilder
from ingot.mir.lower_base import (
    BINOPS,
    PRELUDE_KEYS,
    PROMPT_PREFIX,
    FnState,
    LoopTargets,
    LowerError,
)
from ingot.mir.lower_expr import ExprLowerer
from ingot.mir.lower_patterns import PatternLowerer
from ingot.semantics.hir import (
    FieldRef,
    LocalRef,
    LocalVar,
    TypedProgram,
)
from ingot.semantics.resolve import Items
from ingot.semantics.types import ANY, BOOL, INT, NULL, STRING, ListT, Ty, expand, widen
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Diagnostic, Span


class Lowerer(ExprLowerer, PatternLowerer):
    """The whole lowering: programs, statements and `into` here, the rest in its parts."""

    # -- program ----------------------------------------------------------------
    def lower_program(self) -> ir.MirProgram:
        consts = []
        for name, const in self.items.consts.items():
            self.lower_const(name, const)
            consts.append(name)
        for fn in self.items.functions.values():
            self.lower_function(fn.name, fn.decl, fn.is_method, fn.owner_class, fn.ret)
        tests = []
        for i, test in enumerate(self.items.tests):
            fname = f"$test.{i}"
            self.lower_body(fname, test, [], test.body, NULL, test.span, synthetic=True)
            tests.append((test.name, test.group, fname))
        return ir.MirProgram(self.functions, consts, tests)

    def lower_const(self, name: str, const: A.Const) -> None:
        ty = self.tp.types.get(const, ANY)
        body = A.Block([], const.value, const.value.span)
        self.lower_body(f"$const.{name}", const, [], body, ty, const.span, synthetic=True)

    def lower_function(self, name: str, decl: A.Function, is_method: bool, owner: str | None,
                       ret: Ty) -> None:
        params: list[LocalVar] = []
        if is_method:
            params.append(self.tp.bindings[(decl, "self")])
        params += [self.tp.bindings[p] for p in decl.params]
        if isinstance(decl.body, A.LlmBody):
            self.lower_llm_function(name, decl, decl.body, params, ret)
            return
        self.lower_body(name, decl, params, decl.body, ret, decl.span, doc=decl.doc)

    def lower_llm_function(self, name: str, decl: A.Function, body: A.LlmBody, params: list[LocalVar],
                           ret: Ty) -> None:
        """An LLM function has no bytecode body; its prompt becomes `$prompt.NAME`.

        `$prompt.NAME(output_format, params...)` returns the rendered prompt; the
        LLM client computes `output_format` (what `ctx.output_format()` renders)
        from the return type and passes it in.
        """
        cfg = CfgBuilder()
        locals_ = [ir.LocalDecl(None, ret, decl.span)] + [ir.LocalDecl(v.name, v.ty, v.span) for v in params]
        cfg.terminate(ir.Unreachable(decl.span))
        self.functions[name] = ir.MirFunction(
            name, len(params), [v.name for v in params], ret, locals_, cfg.blocks, [], decl.span,
            ir.FnKind.LLM, decl.doc)
        hidden = LocalVar("output_format", STRING, body.span, decl)
        prompt_body = A.Block([], body.prompt, body.prompt.span)
        self.lower_body(PROMPT_PREFIX + name, decl, [hidden, *params], prompt_body, STRING, body.span,
                        synthetic=True, output_format=hidden)

    def lower_body(self, name: str, owner: object, params: list[LocalVar], body: A.Block, ret: Ty,
                   span: Span, doc: str | None = None, synthetic: bool = False,
                   captures: list[LocalVar] | None = None,
                   output_format: LocalVar | None = None) -> ir.MirFunction:
        saved, saved_name = self.st, self.fn_name
        cfg = CfgBuilder()
        st = FnState(cfg, owner, output_format=output_format)
        self.st, self.fn_name = st, name
        try:
            cfg.new_local(ret, None, span)  # _0
            for v in params:
                st.vars[v] = cfg.new_local(v.ty, v.name, v.span, v.captured)
            for i, v in enumerate(captures or []):
                local = cfg.new_local(v.ty, v.name, v.span)
                cfg.locals[local].capture_index = i
                st.vars[v] = local
            self.into(body, 0)
            if not cfg.is_terminated():
                cfg.terminate(ir.Return(body.span))
            fn = ir.MirFunction(name, len(params), [v.name for v in params], ret, cfg.locals, cfg.blocks,
                                st.regions, span, ir.FnKind.BODY, doc, len(captures or []), synthetic)
            self.functions[name] = fn
            return fn
        finally:
            self.st, self.fn_name = saved, saved_name

    # -- statements -------------------------------------------------------------
    def stmt(self, s: A.Stmt) -> None:
        if isinstance(s, A.Let):
            var = self.tp.bindings[s]
            local = self.var_local(var)
            value = self.operand(s.value)
            if var.captured:
                self.cfg.push(ir.StorageLive(local, s.span))
            self.assign(local, ir.Use(value), s.span)
        elif isinstance(s, A.LetPattern):
            self.let_pattern(s)
        elif isinstance(s, A.ExprStmt):
            self.effect(s.expr)
        elif isinstance(s, A.Assign):
            self.assignment(s)
        elif isinstance(s, A.Return):
            if s.value is not None:
                self.into(s.value, 0)
            else:
                self.assign(0, ir.Use(ir.Const(None)), s.span)
            self.cfg.terminate(ir.Return(s.span))
            self.dead_block()
        elif isinstance(s, A.Break):
            assert self.st is not None
            self.cfg.goto(self.st.loops[-1].break_to, s.span)
            self.dead_block()
        elif isinstance(s, A.Continue):
            assert self.st is not None
            self.cfg.goto(self.st.loops[-1].continue_to, s.span)
            self.dead_block()
        elif isinstance(s, A.Throw):
            value = self.operand(s.value)
            self.cfg.terminate(ir.Throw(value, s.span))
            self.dead_block()
        elif isinstance(s, A.While):
            self.while_loop(s)
        elif isinstance(s, A.ForC):
            self.for_c(s)
        elif isinstance(s, A.ForIn):
            self.for_in(s)
        else:
            raise AssertionError(s)

    def let_pattern(self, s: A.LetPattern) -> None:
        value = self.materialize(self.operand(s.value), s.value.span)
        matched, failed = self.new_block(), self.new_block()
        self.pattern(s.pattern, value, matched, failed)
        self.switch_to(failed)
        if s.otherwise is not None:
            self.effect(s.otherwise)
        if not self.cfg.is_terminated():  # the checker proved the pattern cannot fail here
            self.cfg.terminate(ir.Unreachable(s.span))
        self.switch_to(matched)

    def effect(self, e: A.Expr) -> None:
        """Evaluate for side effects only."""
        if isinstance(e, (A.If, A.Match, A.Block, A.Catch)):
            t = self.temp(self.type_of(e))
            self.into(e, t)
        else:
            self.operand(e)

    def assignment(self, s: A.Assign) -> None:
        target = s.target
        if isinstance(target, A.Name):
            res = self.tp.names[target]
            assert isinstance(res, LocalRef)
            local = self.var_local(res.var)
            place: ir.Place = ir.LocalPlace(local)
            current: ir.Rvalue = ir.Use(ir.Copy(local))
        elif isinstance(target, A.FieldAccess):
            ref = self.tp.members.get(target)
            if not isinstance(ref, FieldRef):  # a member of a value whose type is erased (`Box<T>`'s `T`)
                raise self.unsupported("assigning to a member of a value of a generic type", target.span)
            base = self.local_of(self.operand(target.obj), target.span)
            place = ir.FieldPlace(base, ref.cls, ref.index, target.name)
            current = ir.ReadField(ir.Copy(base), ref.cls, ref.index, target.name)
        elif isinstance(target, A.Index):
            base = self.local_of(self.operand(target.obj), target.span)
            index = self.local_of(self.materialize(self.operand(target.index), target.span), target.span)
            place = ir.IndexPlace(base, index)
            current = ir.ReadIndex(ir.Copy(base), ir.Copy(index))
        else:
            raise AssertionError(target)
        if s.op is None:
            value: ir.Rvalue = ir.Use(self.operand(s.value))
        else:
            old = self.rvalue_operand(current, s.span)
            rhs = self.operand(s.value)
            value = ir.BinaryOp(BINOPS[s.op], old, rhs)
        self.cfg.assign(place, value, s.span)

    def local_of(self, op: ir.Operand, span: Span) -> ir.Local:
        if isinstance(op, ir.Copy):
            return op.local
        t = self.temp()
        self.assign(t, ir.Use(op), span)
        return t

    def loop(self, header: ir.BlockId, cond: A.Expr | None, body: A.Block, latch: ir.BlockId,
             exit_bb: ir.BlockId, span: Span) -> None:
        """header: test cond -> body | exit; body falls through to latch."""
        assert self.st is not None
        self.switch_to(header)
        body_bb = self.new_block()
        if cond is not None:
            self.branch_on(cond, body_bb, exit_bb)
        else:
            self.cfg.goto(body_bb, span)
        self.switch_to(body_bb)
        self.st.loops.append(LoopTargets(exit_bb, latch))
        try:
            t = self.temp(self.type_of(body))
            self.into(body, t)
        finally:
            self.st.loops.pop()
        if not self.cfg.is_terminated():
            self.cfg.goto(latch, span)

    def while_loop(self, s: A.While) -> None:
        header, exit_bb = self.new_block(), self.new_block()
        self.cfg.goto(header, s.span)
        self.loop(header, s.cond, s.body, header, exit_bb, s.span)
        self.switch_to(exit_bb)

    def for_c(self, s: A.ForC) -> None:
        if s.init is not None:
            self.stmt(s.init)
        header, latch, exit_bb = self.new_block(), self.new_block(), self.new_block()
        self.cfg.goto(header, s.span)
        if s.cond is None:
            raise self.unsupported("a C-style `for` without a condition", s.span)
        self.loop(header, s.cond, s.body, latch, exit_bb, s.span)
        self.switch_to(latch)
        if isinstance(s.init, A.Let) and self.tp.bindings[s.init].captured:
            local = self.var_local(self.tp.bindings[s.init])
            self.cfg.push(ir.StorageLive(local, s.span, carry=True))
        if s.step is not None:
            self.stmt(s.step)
        self.cfg.goto(header, s.span)
        self.switch_to(exit_bb)

    def for_in(self, s: A.ForIn) -> None:
        seq = self.local_of(self.materialize(self.iterated(s.iterable), s.span), s.span)
        idx = self.temp(INT)
        self.assign(idx, ir.Use(ir.Const(0)), s.span)
        header, body_bb, latch, exit_bb = (self.new_block() for _ in range(4))
        self.cfg.goto(header, s.span)
        self.switch_to(header)
        n = self.rvalue_operand(ir.Len(ir.Copy(seq)), s.span, INT)
        more = self.rvalue_operand(ir.BinaryOp(ir.BinOp.LT, ir.Copy(idx), n), s.span, BOOL)
        self.cfg.terminate(ir.Branch(more, body_bb, exit_bb, s.span))
        self.switch_to(body_bb)
        var = self.tp.bindings[s]
        local = self.var_local(var)
        if var.captured:
            self.cfg.push(ir.StorageLive(local, s.span))
        self.assign(local, ir.ReadIndex(ir.Copy(seq), ir.Copy(idx)), s.span)
        assert self.st is not None
        self.st.loops.append(LoopTargets(exit_bb, latch))
        try:
            t = self.temp(self.type_of(s.body))
            self.into(s.body, t)
        finally:
            self.st.loops.pop()
        if not self.cfg.is_terminated():
            self.cfg.goto(latch, s.span)
        self.switch_to(latch)
        self.assign(idx, ir.BinaryOp(ir.BinOp.ADD, ir.Copy(idx), ir.Const(1)), s.span)
        self.cfg.goto(header, s.span)
        self.switch_to(exit_bb)

    def iterated(self, e: A.Expr) -> ir.Operand:
        """The array a `for` runs over: `e` itself, or a string's characters (`chars()`)."""
        seq = self.operand(e)
        if widen(expand(self.type_of(e), self.items)) != STRING:
            return seq
        chars = self.temp(ListT(STRING))
        nxt = self.new_block()
        self.cfg.terminate(ir.Call(ir.BuiltinCallee("string.chars"), (seq,), chars, nxt, e.span))
        self.switch_to(nxt)
        return ir.Copy(chars)

    # -- conditions ---------------------------------------------------------------
    def branch_on(self, cond: A.Expr, then_bb: ir.BlockId, else_bb: ir.BlockId) -> None:
        """Jump on a condition; `&&`, `||` and `!` become control flow."""
        if isinstance(cond, A.Binary) and cond.op in ("&&", "||"):
            mid = self.new_block()
            if cond.op == "&&":
                self.branch_on(cond.left, mid, else_bb)
            else:
                self.branch_on(cond.left, then_bb, mid)
            self.switch_to(mid)
            self.branch_on(cond.right, then_bb, else_bb)
            return
        if isinstance(cond, A.Unary) and cond.op == "!":
            self.branch_on(cond.operand, else_bb, then_bb)
            return
        if isinstance(cond, A.IsPattern):
            self.pattern(cond.pattern, self.operand(cond.expr), then_bb, else_bb)
            return
        value = self.operand(cond)
        self.cfg.terminate(ir.Branch(value, then_bb, else_bb, cond.span))

    # -- expressions into a local ---------------------------------------------------
    def into(self, e: A.Expr | A.Block, dest: ir.Local) -> None:
        if isinstance(e, A.Block):
            for s in e.stmts:
                self.stmt(s)
            if e.tail is not None:
                self.into(e.tail, dest)
            else:
                self.assign(dest, ir.Use(ir.Const(None)), e.span)
        elif isinstance(e, A.If):
            self.if_into(e, dest)
        elif isinstance(e, A.Match):
            self.match_into(e, dest)
        elif isinstance(e, A.Catch):
            self.catch_into(e, dest)
        elif (isinstance(e, A.Binary) and e.op in ("&&", "||")) or isinstance(e, A.IsPattern):
            t_bb, f_bb, join = self.new_block(), self.new_block(), self.new_block()
            self.branch_on(e, t_bb, f_bb)
            for bb, val in ((t_bb, True), (f_bb, False)):
                self.switch_to(bb)
                self.assign(dest, ir.Use(ir.Const(val)), e.span)
                self.cfg.goto(join, e.span)
            self.switch_to(join)
        elif isinstance(e, A.Binary) and e.op == "??":
            left = self.operand(e.left)
            is_null = self.rvalue_operand(ir.BinaryOp(ir.BinOp.EQ, left, ir.Const(None)), e.span, BOOL)
            use_right, use_left, join = self.new_block(), self.new_block(), self.new_block()
            self.cfg.terminate(ir.Branch(is_null, use_right, use_left, e.span))
            self.switch_to(use_left)
            self.assign(dest, ir.Use(left), e.span)
            self.cfg.goto(join, e.span)
            self.switch_to(use_right)
            self.into(e.right, dest)
            if not self.cfg.is_terminated():
                self.cfg.goto(join, e.span)
            self.switch_to(join)
        else:
            value = self.operand(e)
            self.assign(dest, ir.Use(value), e.span)

    def if_into(self, e: A.If, dest: ir.Local) -> None:
        """An `if` and its `else if` chain, in a loop: each link branches to its `then` block
        or to an `else` block holding the next link; the joins close innermost first."""
        joins: list[tuple[ir.BlockId, Span]] = []
        link: A.If | None = e
        while link is not None:
            then_bb, else_bb, join = self.new_block(), self.new_block(), self.new_block()
            if isinstance(link.cond, A.IfLet):
                value = self.materialize(self.operand(link.cond.value), link.cond.span)
                bind_bb = self.new_block()
                self.pattern(link.cond.pattern, value, bind_bb, else_bb)
                self.switch_to(bind_bb)
                self.cfg.goto(then_bb, link.span)
            else:
                self.branch_on(link.cond, then_bb, else_bb)
            self.switch_to(then_bb)
            self.into(link.then, dest)
            if not self.cfg.is_terminated():
                self.cfg.goto(join, link.span)
            self.switch_to(else_bb)
            span = link.span
            joins.append((join, span))
            otherwise, link = link.otherwise, None
            if otherwise is None:
                self.assign(dest, ir.Use(ir.Const(None)), span)
            elif isinstance(otherwise, A.If):
                link = otherwise
            else:
                self.into(otherwise, dest)
        for join, span in reversed(joins):
            if not self.cfg.is_terminated():
                self.cfg.goto(join, span)
            self.switch_to(join)

    def catch_into(self, e: A.Catch, dest: ir.Local) -> None:
        assert self.st is not None
        body_bb, handler, join = self.cfg.new_block(), self.cfg.new_block(), self.cfg.new_block()
        for protected in self.st.catch_stack:  # all three belong to enclosing regions
            protected += [body_bb, handler, join]
        self.cfg.goto(body_bb, e.span)
        protected_blocks = [body_bb]
        self.st.catch_stack.append(protected_blocks)
        self.switch_to(body_bb)
        try:
            self.into(e.expr, dest)
        finally:
            self.st.catch_stack.pop()
        if not self.cfg.is_terminated():
            self.cfg.goto(join, e.span)
        err = self.var_local(self.tp.bindings[e])
        self.st.regions.append(ir.CatchRegion(frozenset(protected_blocks), handler, err))
        self.switch_to(handler)
        self.arms(e.arms, ir.Copy(err), dest, join, e.span, catch=True)
        self.switch_to(join)


def lower_program(tp: TypedProgram, items: Items) -> tuple[ir.MirProgram, list[Diagnostic]]:
    lowerer = Lowerer(tp, items)
    try:
        return lowerer.lower_program(), []
    except LowerError as e:
        return ir.MirProgram({}, [], []), [e.diagnostic]


__all__ = ["LowerError", "Lowerer", "PRELUDE_KEYS", "PROMPT_PREFIX", "lower_program"]
