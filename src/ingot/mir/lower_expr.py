"""Expressions as operands: `operand(e)` evaluates `e` and returns a constant or a copy of
the local holding its value: names, members, operators, literals, templates, lambdas, calls."""

from __future__ import annotations

from collections.abc import Callable

from ingot.mir import ir
from ingot.mir.lower_base import (
    BINOPS,
    PRELUDE_KEYS,
    LowererBase,
    prelude_function,
)
from ingot.semantics import builtins as B
from ingot.semantics.clients import ROLE_CLOSE, ROLE_OPEN
from ingot.semantics.hir import (
    BuiltinRef,
    CallInfo,
    ClientRef,
    ConstRef,
    FieldRef,
    FuncRef,
    LocalRef,
    MethodRef,
    TypeTest,
    VariantRef,
)
from ingot.semantics.types import ANY, BOOL, STRING, ClassT, Ty
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Span


class ExprLowerer(LowererBase):
    """The operand mode of expression lowering."""

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
                result = self.method_call(self.tp.calls[e], e.span, self.type_of(e))
                if e.op == "!=":  # `a != b` is `!a.eq(b)`, whatever `neq` says (as on the engine)
                    return self.rvalue_operand(ir.UnaryOp(ir.UnOp.NOT, result), e.span, self.type_of(e))
                return result
            return self.binary_chain(e)
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
        last_effect = max((i for i, x in enumerate(exprs) if has_effects(x)), default=-1)
        for i, x in enumerate(exprs):
            op = self.operand(x)
            if i < last_effect:
                op = self.materialize(op, span)
            out.append(op)
        return out

    def binary_chain(self, e: A.Binary) -> ir.Operand:
        """`a + b + c + ...` nests to the left: its left spine is walked in a loop, innermost first."""
        spine = [e]
        while isinstance(spine[-1].left, A.Binary) and spine[-1].left.op not in ("&&", "||", "??") \
                and spine[-1].left not in self.tp.calls:
            spine.append(spine[-1].left)
        left = self.operand(spine[-1].left)
        for node in reversed(spine):
            if has_effects(node.right):
                left = self.materialize(left, node.span)
            right = self.operand(node.right)
            left = self.rvalue_operand(ir.BinaryOp(BINOPS[node.op], left, right), node.span, self.type_of(node))
        return left

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
        elif res is None:  # the checker knew no type for the value (`Box<T>`'s `T` is erased)
            raise self.unsupported("a member of a value of a generic type", e.span)
        else:
            raise self.unsupported("a built-in method as a value", e.span)
        if not e.optional:
            return self.rvalue_operand(read, e.span, self.type_of(e))
        # `a?.f`: null when `a` is null, else the field.
        obj = self.materialize(obj, e.span)
        return self.unless_null(obj, self.type_of(e), e.span, lambda: read)

    def unless_null(self, receiver: ir.Operand, ty: Ty, span: Span, value: Callable[[], ir.Rvalue]) -> ir.Operand:
        """Null when `receiver` (materialized) is null, else `value()`, lowered only on that side."""
        dest = self.temp(ty)
        is_null = self.rvalue_operand(ir.BinaryOp(ir.BinOp.EQ, receiver, ir.Const(None)), span, BOOL)
        null_bb, value_bb, join = self.new_block(), self.new_block(), self.new_block()
        self.cfg.terminate(ir.Branch(is_null, null_bb, value_bb, span))
        self.switch_to(null_bb)
        self.assign(dest, ir.Use(ir.Const(None)), span)
        self.cfg.goto(join, span)
        self.switch_to(value_bb)
        self.assign(dest, value(), span)
        self.cfg.goto(join, span)
        self.switch_to(join)
        return ir.Copy(dest)

    def template(self, e: A.Template) -> ir.Operand:
        parts: list[str | ir.Operand] = []
        # A hole's value is pinned when a later hole may change what it read.
        last_effect = max((i for i, p in enumerate(e.parts) if not isinstance(p, str)
                           and (isinstance(p, A.TemplateStmt) or has_effects(p))), default=-1)
        for i, part in enumerate(e.parts):
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, A.TemplateStmt):
                for s in part.stmts:
                    self.stmt(s)
            else:
                op = self.operand(part)
                if i < last_effect:
                    op = self.materialize(op, part.span)
                parts.append(op)
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
        if isinstance(e.callee, A.FieldAccess) and e.callee.optional and info.kind != "value":
            return self.optional_call(info, e)
        return self.call_with(info, self.operands(info.args, e.span), e)

    def optional_call(self, info: CallInfo, e: A.Call) -> ir.Operand:
        """`s?.trim()`: null when the receiver is null, and then no other argument is evaluated."""
        receiver = self.materialize(self.operand(info.args[0]), e.span)
        return self.unless_null(receiver, self.type_of(e), e.span, lambda: ir.Use(
            self.call_with(info, [receiver, *self.operands(info.args[1:], e.span)], e)))

    def call_with(self, info: CallInfo, args: list[ir.Operand], e: A.Call) -> ir.Operand:
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
    """Could evaluating `e` change a local read before it (a call, an assignment)?

    A worklist rather than recursion: operator chains can be thousands of terms long."""
    todo: list[A.Expr] = [e]
    while todo:
        x = todo.pop()
        if isinstance(x, (A.IntLit, A.FloatLit, A.StringLit, A.BoolLit, A.NullLit, A.Name, A.Lambda)):
            continue
        if isinstance(x, A.FieldAccess):
            todo.append(x.obj)
        elif isinstance(x, A.Index):
            todo += (x.obj, x.index)
        elif isinstance(x, A.Unary):
            todo.append(x.operand)
        elif isinstance(x, A.Binary):
            todo += (x.left, x.right)
        elif isinstance(x, (A.IsType, A.IsPattern)):
            todo.append(x.expr)
        elif isinstance(x, A.ArrayLit):
            todo += x.elements
        elif isinstance(x, A.MapLit):
            todo += (y for kv in x.entries for y in kv)
        elif isinstance(x, A.ClassLit):
            todo += (v for _, v, _ in x.fields)
            if x.spread is not None:
                todo.append(x.spread)
        elif isinstance(x, A.Template):
            for p in x.parts:
                if isinstance(p, A.TemplateStmt):
                    return True
                if not isinstance(p, str):
                    todo.append(p)
        else:
            return True
    return False
