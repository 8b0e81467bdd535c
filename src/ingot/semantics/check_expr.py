"""Checking expressions: literals, names, members and paths, operators, templates, lambdas."""

from __future__ import annotations

from ingot.runtime.values import INT_MAX, INT_MIN
from ingot.semantics import builtins as B
from ingot.semantics.check_base import (
    ARITH,
    BITWISE,
    EQUALITY,
    ORDER,
    CheckAbort,
    CheckerBase,
)
from ingot.semantics.check_calls import bind_receiver, receiver_kind, subst
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
    MethodRef,
    TypeRef,
    TypeTest,
    VariantRef,
)
from ingot.semantics.resolve import FuncItem
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
    FuncT,
    ListT,
    Lit,
    MapT,
    Prim,
    Ty,
    TypeVar,
    VariantT,
    expand,
    is_literal_union,
    members_of,
    optional,
    union,
    widen,
    without_null,
)
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Span


class ExprChecker(CheckerBase):
    """The expression dispatch `expr` and the checks of each expression kind but calls."""

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
            ty = self.name(e)
            # an unsettled `[]` where a typed array is expected (returned, passed) has that type
            return (self.settle(e, expected) or ty) if expected is not None else ty
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
            # (an implementation that lacks the method is E0113 already: no type to take from it)
            fn = self.items.functions.get(f"{impls[0]}.{e.name}") if declared and impls else None
            if fn is not None:
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
        if kind is not None and e.name in B.METHODS[kind] and self.has_elements_for(t, e.name):
            self.tp.members[e] = BuiltinMethodRef(f"{kind}.{e.name}")
            sig = B.METHODS[kind][e.name]
            env = bind_receiver(t)
            return FuncT(tuple(subst(p, env) for p in sig.params), subst(sig.ret, env))
        if is_literal_union(t):  # as the engine: no built-in methods on `"a" | "b"`
            self.error(Code.NO_MEMBER, f"type `{obj_ty}` has no member `{e.name}`: its members implement "
                       f"no common interface that declares `{e.name}`", err_span)
            raise CheckAbort
        self.error(Code.NO_MEMBER, f"type `{obj_ty}` has no member `{e.name}`", err_span)
        raise CheckAbort

    def has_elements_for(self, t: Ty, name: str) -> bool:
        """False for an array member the engine declares only for other element types
        (`sum` on `string[]`)."""
        allowed = B.ELEMENTS.get(name)
        if allowed is None or not isinstance(t, ListT):
            return True
        elem = expand(t.elem, self.items)
        if isinstance(elem, ClassT):
            return any(isinstance(a, AliasT) and elem.name in self.items.implementors.get(a.name, ())
                       for a in allowed)
        return elem == ANY or elem in allowed

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
            return self.logical(e)
        if e.op != "??":
            return self.binary_chain(e)
        left = self.expr(e.left, None)
        base = without_null(left, self.items)
        right = self.expr(e.right, base if base != NEVER else None)
        if self.assignable(right, base):
            return base
        return union([base, right])

    def binary_chain(self, e: A.Binary) -> Ty:
        """`a + b + c + ...` nests to the left: its left spine is checked in a loop, innermost
        first, each inner node recorded as `expr` would record it."""
        spine = [e]
        while isinstance(spine[-1].left, A.Binary) and spine[-1].left.op not in ("&&", "||", "??"):
            spine.append(spine[-1].left)
        left = self.expr(spine[-1].left, None)
        for node in reversed(spine[1:]):
            try:
                left = self.operator(node, left)
            except CheckAbort:
                left = ANY
            self.tp.types[node] = left
        return self.operator(e, left)

    def operator(self, e: A.Binary, left: Ty) -> Ty:
        """An arithmetic, bitwise or comparison operator whose left operand has type `left`."""
        lt = expand(left, self.items)
        method = self.items.operators.get((lt.name, e.op)) if isinstance(lt, ClassT) else None
        if method is not None and e.op not in EQUALITY:
            return self.operator_call(e, self.items.functions[method])
        right = self.expr(e.right, None)
        if e.op in EQUALITY:
            self.user_equality(e, left, right, method)
        return self.binary_type(e.op, left, right, e.span)

    def user_equality(self, e: A.Binary, left: Ty, right: Ty, method: str | None) -> None:
        """`a == b` between two instances of a class whose `baml.ops.Equals` impl writes `eq`:
        the call `a.eq(b)` (negated for `!=`). Such a class anywhere else in an operand's type
        (an optional, a list, a field) would need `eq` inside the structural comparison, which
        ingot does not make: an I0002 error (`reject_user_equality`), not a structural answer."""
        if method is not None and expand(right, self.items) == expand(left, self.items):
            self.tp.calls[e] = CallInfo("method", method, [e.left, e.right])
            return
        if NULL in (expand(left, self.items), expand(right, self.items)):
            return  # `x == null`: true only for null, whatever `eq` says
        self.reject_user_equality(f"`{e.op}` on `{left}` and `{right}`", (left, right), e.span)

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
        if op in ORDER:
            # As the engine: a single literal orders as its base type, a union of literals
            # (`if (c) { 2 } else { 10 }`) only with its own type.
            lt, rt = ordered_type(expand(left, self.items)), ordered_type(expand(right, self.items))
            if (is_literal_union(lt) or is_literal_union(rt)) and lt != rt:
                self.error(Code.BAD_OPERATOR,
                           f"cannot order `{left}` and `{right}` with `{op}`: ordering requires both "
                           "operands to have the same type", span)
                return BOOL
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

    # -- literals -------------------------------------------------------------------
    def array_lit(self, e: A.ArrayLit, expected: Ty | None) -> Ty:
        exp = expand(expected, self.items) if expected is not None else None
        elem_expected = exp.elem if isinstance(exp, ListT) else None
        types = [self.expr(x, elem_expected) for x in e.elements]
        if elem_expected is not None:
            # each element that does not fit is the error, where the engine reports it
            for x, ty in zip(e.elements, types):
                self.expect_value(x, ty, elem_expected, x.span)
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
        if isinstance(exp, MapT):
            # each key or value that does not fit is the error, where the engine reports it
            for (k, v), kt, vt in zip(e.entries, ks, vs):
                self.expect_value(k, kt, exp.key, k.span)
                self.expect_value(v, vt, exp.value, v.span)
            return exp
        if not e.entries:
            return MapT(ANY, ANY)
        return MapT(widen(union(ks)), widen(union(vs)))

    def class_lit(self, e: A.ClassLit) -> Ty:
        cls = self.items.classes.get(e.name)
        # (a built-in error or panic class has no declaration, and is constructed all the same)
        if cls is None or (cls.decl is None and not e.name.startswith("baml.")):
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
        miscounted = isinstance(exp, FuncT) and len(e.params) != len(exp_params)
        if miscounted:
            # (as the engine: the count is the error, not a mismatch of function types as well)
            self.error(Code.BAD_ARGUMENTS, f"expected {len(exp_params)} argument(s), got {len(e.params)}", e.span)
            exp_params = ()
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
        return ANY if miscounted else FuncT(tuple(t for _, t, _, _ in params), body_ret)


def _hole_span(template: A.Template, part: A.Expr) -> Span | None:
    """The engine points at `{...}` of a `${...}` hole."""
    s = part.span
    text = s.source.text
    start = text.rfind("{", template.span.start_offset, s.start_offset + 1)
    end = text.find("}", s.end_offset - 1, template.span.end_offset)
    if start < 0 or end < 0:
        return None
    return Span(s.source, start, end + 1)


def ordered_type(t: Ty) -> Ty:
    return t if is_literal_union(t) else widen(t)
