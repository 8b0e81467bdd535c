"""Typed HIR -> MIR.

Expressions lower through two modes: `operand(e)` evaluates `e` and returns
an operand (a constant, or a copy of the local holding the value), creating
blocks as needed; `into(e, local)` evaluates `e` into a given local, which
is how `if`, `match` and blocks deliver values from several branches. Calls
are terminators, so a call ends the current block and lowering continues in
the call's target block.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingot.mir import ir
from ingot.mir.builder import CfgBuilder
from ingot.semantics import builtins as B
from ingot.semantics.clients import ROLE_CLOSE, ROLE_OPEN
from ingot.semantics.coverage import alternatives, is_catch_all
from ingot.semantics.hir import (
    BuiltinRef,
    CallInfo,
    ClientRef,
    ConstRef,
    FieldRef,
    FuncRef,
    LocalRef,
    LocalVar,
    MethodRef,
    TypedProgram,
    TypeTest,
    VariantRef,
    VariantTest,
)
from ingot.semantics.resolve import Items
from ingot.semantics.types import ANY, BOOL, INT, NULL, STRING, ClassT, Ty
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Diagnostic, Span

BINOPS = {op.value: op for op in ir.BinOp}

# Methods implemented in BAML (bex/prelude.baml) rather than natively: the registry's prelude rows.
PRELUDE_KEYS = B.PRELUDE_KEYS


PROMPT_PREFIX = "$prompt."


def prelude_function(key: str) -> str:
    return ir.PRELUDE_PREFIX + key.replace(".", "_")


class LowerError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass(slots=True)
class LoopTargets:
    break_to: ir.BlockId
    continue_to: ir.BlockId


@dataclass(slots=True)
class FnState:
    """Lowering state of one function body."""

    cfg: CfgBuilder
    owner: object
    vars: dict[LocalVar, ir.Local] = field(default_factory=dict)
    loops: list[LoopTargets] = field(default_factory=list)
    catch_stack: list[list[ir.BlockId]] = field(default_factory=list)
    regions: list[ir.CatchRegion] = field(default_factory=list)
    output_format: LocalVar | None = None  # in a `$prompt.` function: what ctx.output_format() reads


class Lowerer:
    def __init__(self, tp: TypedProgram, items: Items) -> None:
        self.tp = tp
        self.items = items
        self.functions: dict[str, ir.MirFunction] = {}
        self.lambda_names: dict[A.Lambda, str] = {}
        self.lambda_counter: dict[str, int] = {}
        self.st: FnState | None = None
        self.fn_name = ""

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

    # -- helpers ----------------------------------------------------------------
    @property
    def cfg(self) -> CfgBuilder:
        assert self.st is not None
        return self.st.cfg

    def temp(self, ty: Ty = ANY) -> ir.Local:
        return self.cfg.new_local(ty)

    def type_of(self, e: object) -> Ty:
        return self.tp.types.get(e, ANY)

    def new_block(self) -> ir.BlockId:
        b = self.cfg.new_block()
        assert self.st is not None
        for protected in self.st.catch_stack:
            protected.append(b)
        return b

    def switch_to(self, b: ir.BlockId) -> None:
        self.cfg.switch_to(b)

    def dead_block(self) -> None:
        """Continue lowering in an unreachable block (after return/throw/break)."""
        self.switch_to(self.new_block())

    def var_local(self, var: LocalVar) -> ir.Local:
        assert self.st is not None
        if var not in self.st.vars:
            self.st.vars[var] = self.cfg.new_local(var.ty, var.name, var.span, var.captured)
        return self.st.vars[var]

    def assign(self, local: ir.Local, rv: ir.Rvalue, span: Span) -> None:
        self.cfg.assign(ir.LocalPlace(local), rv, span)

    def materialize(self, op: ir.Operand, span: Span) -> ir.Operand:
        """Copy a local's current value into a temp (when later code may change the local)."""
        if isinstance(op, ir.Copy):
            t = self.temp(self.cfg.locals[op.local].ty)
            self.assign(t, ir.Use(op), span)
            return ir.Copy(t)
        return op

    def rvalue_operand(self, rv: ir.Rvalue, span: Span, ty: Ty = ANY) -> ir.Operand:
        t = self.temp(ty)
        self.assign(t, rv, span)
        return ir.Copy(t)

    def unsupported(self, what: str, span: Span) -> LowerError:
        return LowerError(Diagnostic(Code.UNSUPPORTED, f"{what} is not supported yet", span))

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
            ref = self.tp.members[target]
            assert isinstance(ref, FieldRef)
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
        seq = self.local_of(self.materialize(self.operand(s.iterable), s.span), s.span)
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
        then_bb, else_bb, join = self.new_block(), self.new_block(), self.new_block()
        if isinstance(e.cond, A.IfLet):
            value = self.materialize(self.operand(e.cond.value), e.cond.span)
            bind_bb = self.new_block()
            self.pattern(e.cond.pattern, value, bind_bb, else_bb)
            self.switch_to(bind_bb)
            self.cfg.goto(then_bb, e.span)
        else:
            self.branch_on(e.cond, then_bb, else_bb)
        self.switch_to(then_bb)
        self.into(e.then, dest)
        if not self.cfg.is_terminated():
            self.cfg.goto(join, e.span)
        self.switch_to(else_bb)
        if e.otherwise is None:
            self.assign(dest, ir.Use(ir.Const(None)), e.span)
        else:
            self.into(e.otherwise, dest)
        if not self.cfg.is_terminated():
            self.cfg.goto(join, e.span)
        self.switch_to(join)

    def match_into(self, e: A.Match, dest: ir.Local) -> None:
        scrut = self.materialize(self.operand(e.scrutinee), e.scrutinee.span)
        join = self.new_block()
        self.arms(e.arms, scrut, dest, join, e.span, catch=False)
        self.switch_to(join)

    def arms(self, arms: list[A.MatchArm], scrut: ir.Operand, dest: ir.Local, join: ir.BlockId,
             span: Span, catch: bool) -> None:
        """Test arms in order; fall off the end into Unreachable (match) or Rethrow (catch)."""
        if not catch and self.switchable(arms):
            self.switch_arms(arms, scrut, dest, join, span)
            return
        for arm in arms:
            body_bb, next_bb = self.new_block(), self.new_block()
            if catch and is_catch_all(arm.pattern):
                # `_` and `let e` never catch a panic: a panic is caught only by naming it.
                panicky = self.rvalue_operand(ir.UnaryOp(ir.UnOp.IS_PANIC, scrut), arm.span, BOOL)
                test_bb = self.new_block()
                self.cfg.terminate(ir.Branch(panicky, next_bb, test_bb, arm.span))
                self.switch_to(test_bb)
            guard_bb = self.new_block() if arm.guard is not None else body_bb
            self.pattern(arm.pattern, scrut, guard_bb, next_bb)
            if arm.guard is not None:
                self.switch_to(guard_bb)
                self.branch_on(arm.guard, body_bb, next_bb)
            self.switch_to(body_bb)
            self.into(arm.body, dest)
            if not self.cfg.is_terminated():
                self.cfg.goto(join, arm.span)
            self.switch_to(next_bb)
        if catch:
            self.cfg.terminate(ir.Rethrow(scrut, span))
        else:
            self.cfg.terminate(ir.Unreachable(span))

    def switchable(self, arms: list[A.MatchArm]) -> bool:
        """A match on literals and enum variants, at most a final `_`: one Switch terminator."""
        if len(arms) < 2:
            return False
        for i, arm in enumerate(arms):
            if arm.guard is not None:
                return False
            if isinstance(arm.pattern, A.WildcardPat) and i == len(arms) - 1:
                continue
            for p in alternatives(arm.pattern):
                if isinstance(p, A.LiteralPat) and not isinstance(p.value, float):
                    continue
                if isinstance(self.tp.patterns.get(p), VariantTest):
                    continue
                return False
        return True

    def switch_arms(self, arms: list[A.MatchArm], scrut: ir.Operand, dest: ir.Local,
                    join: ir.BlockId, span: Span) -> None:
        cases: list[tuple[object, ir.BlockId]] = []
        otherwise: ir.BlockId | None = None
        bodies: list[tuple[A.MatchArm, ir.BlockId]] = []
        seen: set[object] = set()
        for arm in arms:
            bb = self.new_block()
            bodies.append((arm, bb))
            if isinstance(arm.pattern, A.WildcardPat):
                otherwise = bb
                continue
            for p in alternatives(arm.pattern):
                key = self.switch_key(p)
                marker = (type(key), key)
                if marker not in seen:
                    seen.add(marker)
                    cases.append((key, bb))
        if otherwise is None:
            otherwise = self.new_block()
            here = self.cfg.current
            self.switch_to(otherwise)
            self.cfg.terminate(ir.Unreachable(span))
            self.switch_to(here)
        self.cfg.terminate(ir.Switch(scrut, tuple(cases), otherwise, span))
        for arm, bb in bodies:
            self.switch_to(bb)
            self.into(arm.body, dest)
            if not self.cfg.is_terminated():
                self.cfg.goto(join, arm.span)

    def switch_key(self, p: A.Pattern) -> object:
        if isinstance(p, A.LiteralPat):
            return p.value
        res = self.tp.patterns[p]
        assert isinstance(res, VariantTest)
        return ir.VariantConst(res.enum, res.variant)

    def pattern(self, p: A.Pattern, value: ir.Operand, on_match: ir.BlockId, on_fail: ir.BlockId) -> None:
        """Test `value` against `p`; bind its variables; jump to on_match / on_fail."""
        if isinstance(p, A.WildcardPat):
            self.cfg.goto(on_match, p.span)
            return
        if isinstance(p, A.LiteralPat):
            eq = self.rvalue_operand(ir.BinaryOp(ir.BinOp.EQ, value, ir.Const(p.value)), p.span, BOOL)
            self.cfg.terminate(ir.Branch(eq, on_match, on_fail, p.span))
            return
        if isinstance(p, A.BindPat):
            var = self.tp.bindings[p]
            local = self.var_local(var)
            if p.type is not None:
                test = self.tp.patterns[p]
                assert isinstance(test, TypeTest)
                ok = self.rvalue_operand(ir.IsType(value, test.ty), p.span, BOOL)
                bind_bb = self.new_block()
                self.cfg.terminate(ir.Branch(ok, bind_bb, on_fail, p.span))
                self.switch_to(bind_bb)
            if var.captured:
                self.cfg.push(ir.StorageLive(local, p.span))
            self.assign(local, ir.Use(value), p.span)
            self.cfg.goto(on_match, p.span)
            return
        if isinstance(p, A.PathPat):
            res = self.tp.patterns[p]
            if isinstance(res, VariantTest):
                rv: ir.Rvalue = ir.BinaryOp(ir.BinOp.EQ, value, ir.Const(ir.VariantConst(res.enum, res.variant)))
            else:
                assert isinstance(res, TypeTest)
                rv = ir.IsType(value, res.ty)
            ok = self.rvalue_operand(rv, p.span, BOOL)
            self.cfg.terminate(ir.Branch(ok, on_match, on_fail, p.span))
            return
        if isinstance(p, A.ClassPat):
            res = self.tp.patterns[p]
            assert isinstance(res, TypeTest)
            ok = self.rvalue_operand(ir.IsType(value, res.ty), p.span, BOOL)
            fields_bb = self.new_block()
            self.cfg.terminate(ir.Branch(ok, fields_bb, on_fail, p.span))
            self.switch_to(fields_bb)
            cls = self.items.classes[p.name]
            for fname, sub in p.fields:
                found = cls.field(fname)
                assert found is not None
                fv = self.rvalue_operand(ir.ReadField(value, cls.name, found[0], fname), p.span, found[1].ty)
                nxt = self.new_block()
                self.pattern(sub, fv, nxt, on_fail)
                self.switch_to(nxt)
            self.cfg.goto(on_match, p.span)
            return
        if isinstance(p, A.ArrayPat):
            self.array_pattern(p, value, on_match, on_fail)
            return
        if isinstance(p, A.TypePat):
            res = self.tp.patterns[p]
            assert isinstance(res, TypeTest)
            ok = self.rvalue_operand(ir.IsType(value, res.ty), p.span, BOOL)
            self.cfg.terminate(ir.Branch(ok, on_match, on_fail, p.span))
            return
        if isinstance(p, A.OrPat):
            for alt in p.alternatives[:-1]:
                nxt = self.new_block()
                self.pattern(alt, value, on_match, nxt)
                self.switch_to(nxt)
            self.pattern(p.alternatives[-1], value, on_match, on_fail)
            return
        raise AssertionError(p)

    def array_pattern(self, p: A.ArrayPat, value: ir.Operand, on_match: ir.BlockId,
                      on_fail: ir.BlockId) -> None:
        """`[a, b, ..rest]`: an array of exactly (or, with a rest, at least) n elements."""
        is_list = self.rvalue_operand(ir.IsType(value, self.tp.patterns[p].ty), p.span, BOOL)  # type: ignore[union-attr]
        len_bb = self.new_block()
        self.cfg.terminate(ir.Branch(is_list, len_bb, on_fail, p.span))
        self.switch_to(len_bb)
        n = self.rvalue_operand(ir.Len(value), p.span, INT)
        k = len(p.elements)
        op = ir.BinOp.GE if p.has_rest else ir.BinOp.EQ
        fits = self.rvalue_operand(ir.BinaryOp(op, n, ir.Const(k)), p.span, BOOL)
        elems_bb = self.new_block()
        self.cfg.terminate(ir.Branch(fits, elems_bb, on_fail, p.span))
        self.switch_to(elems_bb)
        for i, sub in enumerate(p.elements):
            item = self.rvalue_operand(ir.ReadIndex(value, ir.Const(i)), p.span)
            nxt = self.new_block()
            self.pattern(sub, item, nxt, on_fail)
            self.switch_to(nxt)
        if p.rest is not None:
            rest = self.temp()
            nxt = self.new_block()
            self.cfg.terminate(ir.Call(ir.BuiltinCallee("array.slice"), (value, ir.Const(k), n), rest, nxt, p.span))
            self.switch_to(nxt)
            self.pattern(p.rest, ir.Copy(rest), on_match, on_fail)
            return
        self.cfg.goto(on_match, p.span)

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

    # -- expressions as operands -------------------------------------------------------
    def operand(self, e: A.Expr) -> ir.Operand:  # noqa: C901 - one dispatch
        if isinstance(e, (A.IntLit, A.FloatLit, A.StringLit, A.BoolLit)):
            return ir.Const(e.value)
        if isinstance(e, A.NullLit):
            return ir.Const(None)
        if isinstance(e, A.Name):
            return self.name(e)
        if isinstance(e, A.FieldAccess):
            return self.member(e)
        if isinstance(e, A.Index):
            base = self.operand(e.obj)
            if has_effects(e.index):
                base = self.materialize(base, e.span)
            index = self.operand(e.index)
            return self.rvalue_operand(ir.ReadIndex(base, index), e.span, self.type_of(e))
        if isinstance(e, A.Call):
            return self.call(e)
        if isinstance(e, A.Unary):
            value = self.operand(e.operand)
            op = {"-": ir.UnOp.NEG, "!": ir.UnOp.NOT, "~": ir.UnOp.BIT_NOT}[e.op]
            return self.rvalue_operand(ir.UnaryOp(op, value), e.span, self.type_of(e))
        if isinstance(e, A.Binary):
            if e.op in ("&&", "||", "??"):
                t = self.temp(self.type_of(e))
                self.into(e, t)
                return ir.Copy(t)
            if e in self.tp.calls:  # an operator a class implements (`baml.ops.Add`): a method call
                return self.method_call(self.tp.calls[e], e.span, self.type_of(e))
            left = self.operand(e.left)
            if has_effects(e.right):
                left = self.materialize(left, e.span)
            right = self.operand(e.right)
            return self.rvalue_operand(ir.BinaryOp(BINOPS[e.op], left, right), e.span, self.type_of(e))
        if isinstance(e, A.IsType):
            value = self.operand(e.expr)
            test = self.tp.patterns[e]
            assert isinstance(test, TypeTest)
            return self.rvalue_operand(ir.IsType(value, test.ty), e.span, BOOL)
        if isinstance(e, (A.Block, A.If, A.Match, A.Catch, A.IsPattern)):
            t = self.temp(self.type_of(e))
            self.into(e, t)
            return ir.Copy(t)
        if isinstance(e, A.Template):
            return self.template(e)
        if isinstance(e, A.ArrayLit):
            elems = self.operands(e.elements, e.span)
            return self.rvalue_operand(ir.MakeArray(tuple(elems)), e.span, self.type_of(e))
        if isinstance(e, A.MapLit):
            flat = self.operands([x for kv in e.entries for x in kv], e.span)
            pairs = tuple((flat[i], flat[i + 1]) for i in range(0, len(flat), 2))
            return self.rvalue_operand(ir.MakeMap(pairs), e.span, self.type_of(e))
        if isinstance(e, A.ClassLit):
            return self.class_lit(e)
        if isinstance(e, A.Lambda):
            return self.lambda_(e)
        raise self.unsupported(f"expression `{type(e).__name__}`", e.span)

    def operands(self, exprs: list[A.Expr], span: Span) -> list[ir.Operand]:
        """Evaluate left to right; earlier values are pinned when later ones have effects."""
        out: list[ir.Operand] = []
        for i, x in enumerate(exprs):
            op = self.operand(x)
            if any(has_effects(y) for y in exprs[i + 1 :]):
                op = self.materialize(op, span)
            out.append(op)
        return out

    def name(self, e: A.Name) -> ir.Operand:
        res = self.tp.names.get(e)
        if isinstance(res, LocalRef):
            return ir.Copy(self.var_local(res.var))
        if isinstance(res, FuncRef):
            return ir.Const(ir.FnConst(res.name))
        if isinstance(res, ConstRef):
            return self.rvalue_operand(ir.Use(ir.Const(ir.GlobalConst(res.name))), e.span, self.type_of(e))
        if isinstance(res, ClientRef):
            return ir.Const(res.name)
        raise self.unsupported(f"using `{e.ident}` as a value", e.span)

    def member(self, e: A.FieldAccess) -> ir.Operand:
        res = self.tp.members.get(e)
        if isinstance(res, VariantRef):
            return ir.Const(ir.VariantConst(res.enum, res.variant))
        if isinstance(res, FuncRef):
            return ir.Const(ir.FnConst(res.name))
        if isinstance(res, BuiltinRef) and res.key in B.FUNCTIONS:
            raise self.unsupported("a built-in function as a value", e.span)
        obj = self.operand(e.obj)
        if isinstance(res, FieldRef):
            read: ir.Rvalue = ir.ReadField(obj, res.cls, res.index, e.name)
        elif isinstance(res, MethodRef):
            read = ir.BoundMethod(res.name, obj)
        else:
            raise self.unsupported("a built-in method as a value", e.span)
        if not e.optional:
            return self.rvalue_operand(read, e.span, self.type_of(e))
        # `a?.f`: null when `a` is null, else the field.
        obj = self.materialize(obj, e.span)
        dest = self.temp(self.type_of(e))
        is_null = self.rvalue_operand(ir.BinaryOp(ir.BinOp.EQ, obj, ir.Const(None)), e.span, BOOL)
        null_bb, read_bb, join = self.new_block(), self.new_block(), self.new_block()
        self.cfg.terminate(ir.Branch(is_null, null_bb, read_bb, e.span))
        self.switch_to(null_bb)
        self.assign(dest, ir.Use(ir.Const(None)), e.span)
        self.cfg.goto(join, e.span)
        self.switch_to(read_bb)
        self.assign(dest, read, e.span)
        self.cfg.goto(join, e.span)
        self.switch_to(join)
        return ir.Copy(dest)

    def template(self, e: A.Template) -> ir.Operand:
        parts: list[str | ir.Operand] = []
        exprs = [p for p in e.parts if not isinstance(p, str)]
        for i, part in enumerate(e.parts):
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, A.TemplateStmt):
                for s in part.stmts:
                    self.stmt(s)
            else:
                op = self.operand(part)
                later = exprs[exprs.index(part) + 1 :]
                if any(isinstance(x, A.TemplateStmt) or has_effects(x) for x in later):
                    op = self.materialize(op, part.span)
                parts.append(op)
            del i
        return self.rvalue_operand(ir.Format(tuple(parts)), e.span, self.type_of(e))

    def class_lit(self, e: A.ClassLit) -> ir.Operand:
        cls = self.items.classes[self.tp.class_literals[e]]
        # Source order decides: the spread overrides fields written before it.
        exprs = [v for _, v, _ in e.fields]
        if e.spread is not None:
            exprs.insert(e.spread_at, e.spread)
        values = self.operands(exprs, e.span)
        spread = None
        if e.spread is not None:
            spread = values.pop(e.spread_at)
        by_name = {}
        for i, ((name, _, _), value) in enumerate(zip(e.fields, values)):
            if spread is None or i >= e.spread_at:
                by_name[name] = value
        fields: list[ir.Operand] = []
        for i, f in enumerate(cls.fields):
            if f.name in by_name:
                fields.append(by_name[f.name])
            elif spread is not None:
                fields.append(self.rvalue_operand(ir.ReadField(spread, cls.name, i, f.name), e.span, f.ty))
            else:
                fields.append(ir.Const(None))
        return self.rvalue_operand(ir.MakeInstance(cls.name, tuple(fields)), e.span, self.type_of(e))

    def lambda_(self, e: A.Lambda) -> ir.Operand:
        n = self.lambda_counter.get(self.fn_name, 0)
        self.lambda_counter[self.fn_name] = n + 1
        name = f"{self.fn_name}.$lambda{n}"
        captures = self.tp.lambda_captures.get(e, [])
        outer = [self.var_local(v) for v in captures]
        params = [self.tp.bindings[p] for p in e.params]
        self.lower_body(name, e, params, e.body, ANY, e.span, synthetic=True, captures=captures)
        return self.rvalue_operand(ir.MakeClosure(name, tuple(outer)), e.span, self.type_of(e))

    def call(self, e: A.Call) -> ir.Operand:
        info = self.tp.calls.get(e)
        if info is None:
            raise self.unsupported("this call", e.span)
        if info.target == "ctx.output_format":
            assert self.st is not None
            if self.st.output_format is None:
                raise self.unsupported("`ctx.output_format()` outside a prompt", e.span)
            return ir.Copy(self.var_local(self.st.output_format))
        if info.target == "ctx.role":  # a marker the LLM client splits the rendered prompt at
            role = self.operands(info.args, e.span)[0]
            return self.rvalue_operand(ir.Format((ROLE_OPEN, role, ROLE_CLOSE)), e.span, STRING)
        args = self.operands(info.args, e.span)
        if info.kind == "interface":
            return self.interface_call(info.target, args, e)
        if info.kind in ("function", "method"):
            callee: ir.Callee = ir.FnCallee(info.target)
        elif info.kind == "builtin":
            if info.target in PRELUDE_KEYS:
                callee = ir.FnCallee(prelude_function(info.target))
            else:
                callee = ir.BuiltinCallee(info.target)
        else:
            callee = ir.ValueCallee(args[0])
            args = args[1:]
        dest = self.temp(self.type_of(e))
        nxt = self.new_block()
        self.cfg.terminate(ir.Call(callee, tuple(args), dest, nxt, e.span))
        self.switch_to(nxt)
        return ir.Copy(dest)


    def method_call(self, info: CallInfo, span: Span, ty: Ty) -> ir.Operand:
        args = self.operands(info.args, span)
        dest = self.temp(ty)
        nxt = self.new_block()
        self.cfg.terminate(ir.Call(ir.FnCallee(info.target), tuple(args), dest, nxt, span))
        self.switch_to(nxt)
        return ir.Copy(dest)

    def interface_call(self, target: str, args: list[ir.Operand], e: A.Call) -> ir.Operand:
        """`shape.area()` on an interface-typed value: test the receiver's class, call its method."""
        interface, method = target.split(".")
        classes = self.items.implementors[interface]
        receiver = self.materialize(args[0], e.span)
        dest = self.temp(self.type_of(e))
        join = self.new_block()
        for i, cls in enumerate(classes):
            nxt = None
            if i < len(classes) - 1:  # the last class needs no test
                call_bb, nxt = self.new_block(), self.new_block()
                is_cls = self.rvalue_operand(ir.IsType(receiver, ClassT(cls)), e.span, BOOL)
                self.cfg.terminate(ir.Branch(is_cls, call_bb, nxt, e.span))
                self.switch_to(call_bb)
            self.cfg.terminate(ir.Call(ir.FnCallee(f"{cls}.{method}"), (receiver, *args[1:]), dest, join, e.span))
            if nxt is not None:
                self.switch_to(nxt)
        self.switch_to(join)
        return ir.Copy(dest)


def has_effects(e: A.Expr) -> bool:
    """Could evaluating `e` change a local read before it (a call, an assignment)?"""
    if isinstance(e, (A.IntLit, A.FloatLit, A.StringLit, A.BoolLit, A.NullLit, A.Name, A.Lambda)):
        return False
    if isinstance(e, A.FieldAccess):
        return has_effects(e.obj)
    if isinstance(e, A.Index):
        return has_effects(e.obj) or has_effects(e.index)
    if isinstance(e, A.Unary):
        return has_effects(e.operand)
    if isinstance(e, A.Binary):
        return has_effects(e.left) or has_effects(e.right)
    if isinstance(e, (A.IsType, A.IsPattern)):
        return has_effects(e.expr)
    if isinstance(e, A.ArrayLit):
        return any(has_effects(x) for x in e.elements)
    if isinstance(e, A.MapLit):
        return any(has_effects(k) or has_effects(v) for k, v in e.entries)
    if isinstance(e, A.ClassLit):
        return any(has_effects(v) for _, v, _ in e.fields) or (e.spread is not None and has_effects(e.spread))
    if isinstance(e, A.Template):
        return any(not isinstance(p, str) and (isinstance(p, A.TemplateStmt) or has_effects(p)) for p in e.parts)
    return True


def lower_program(tp: TypedProgram, items: Items) -> tuple[ir.MirProgram, list[Diagnostic]]:
    lowerer = Lowerer(tp, items)
    try:
        return lowerer.lower_program(), []
    except LowerError as e:
        return ir.MirProgram({}, [], []), [e.diagnostic]
