"""`match` and patterns: arms as a chain of tests, or as a switch when every arm tests
a literal or variant; each pattern lowers to tests branching to `on_match`/`on_fail`."""

from __future__ import annotations

from ingot.mir import ir
from ingot.mir.lower_base import (
    LowererBase,
)
from ingot.semantics.coverage import alternatives, is_catch_all
from ingot.semantics.hir import (
    TypeTest,
    VariantTest,
)
from ingot.semantics.types import BOOL, INT
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Span


class PatternLowerer(LowererBase):
    """Match arms and pattern tests."""

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
