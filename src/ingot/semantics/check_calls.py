"""Checking calls (functions, methods, built-ins, values) and unifying built-in signatures'
type variables with the argument types."""

from __future__ import annotations

from ingot.semantics import builtins as B
from ingot.semantics.check_base import (
    CheckAbort,
    CheckerBase,
)
from ingot.semantics.hir import (
    BuiltinMethodRef,
    BuiltinRef,
    CallInfo,
    FuncRef,
    InterfaceMethodRef,
    MethodRef,
)
from ingot.semantics.resolve import FuncItem
from ingot.semantics.types import (
    ANY,
    FLOAT,
    NEVER,
    NULL,
    PRIMS,
    STRING,
    ClassT,
    FuncT,
    ListT,
    MapT,
    Prim,
    Ty,
    TypeVar,
    UnionT,
    expand,
    holds,
    is_literal_union,
    is_optional,
    optional,
    union,
    widen,
    without_null,
)
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code


class CallChecker(CheckerBase):
    """Calls: argument order and defaults, dispatch (`CallInfo`), built-in signatures."""

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
            ret = self.call_member(e, callee, obj_ty)
            # `s?.trim()`: null when the receiver is (the lowering skips the call)
            return optional(ret) if callee.optional and ret != ANY and is_optional(obj_ty, self.items) else ret
        fty = self.expr(callee, None)
        return self.call_value(e, fty)

    def call_member(self, e: A.Call, callee: A.FieldAccess, obj_ty: Ty) -> Ty:
        """A call of a member of a value: a method, a built-in method, or a field holding a function."""
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
            receiver = expand(without_null(obj_ty, self.items) if callee.optional else obj_ty, self.items)
            key = res.key
            if key == "array.sum" and isinstance(receiver, ListT) and widen(receiver.elem) == FLOAT:
                key = "array.sum_float"  # an empty float sum is -0.0, an empty int sum 0
            ret = self.call_builtin(e, key, sig, callee.obj, receiver)
            self.settle_by_call(callee.obj, receiver, sig, [a.value for a in e.args])
            if key == "array.sort" and isinstance(receiver, ListT):
                self.sort_with_cmp(e, callee.obj, expand(receiver.elem, self.items))
            return ret
        # A field holding a function, or a member of a receiver already in error (ANY):
        # checking `callee` again would report the receiver's error twice.
        return self.call_value(e, fty)

    def settle_by_call(self, obj: A.Expr, receiver: Ty, sig: B.Signature, args: list[A.Expr]) -> None:
        """`xs.push(1)`, `m.set("a", 1)`: a method taking elements fixes an unsettled collection's type."""
        env = self.bind_type_params(sig.params, args)
        if isinstance(receiver, ListT) and "T" in env:
            self.settle(obj, ListT(env["T"]))
        elif isinstance(receiver, MapT) and "K" in env and "V" in env:
            self.settle(obj, MapT(env["K"], env["V"]))

    def sort_with_cmp(self, e: A.Call, receiver: A.Expr, elem: Ty) -> None:
        """`xs.sort()` on instances of a class implementing `baml.ops.Compare` is the prelude's
        `xs.sort_by(C.cmp)`: the method, its receiver first, is the comparator."""
        cmp = self.items.functions.get(f"{elem.name}.cmp") if isinstance(elem, ClassT) else None
        if cmp is None:  # not a class, or its impl lacks `cmp` (reported: E0113)
            return
        ref = A.Name(cmp.name, receiver.span)
        self.tp.names[ref] = FuncRef(cmp.name)
        self.tp.types[ref] = FuncT((elem, elem), cmp.ret)
        self.tp.calls[e] = CallInfo("builtin", "array.sort_by", [receiver, ref])

    def call_static(self, e: A.Call, callee: A.FieldAccess, base: str) -> Ty:
        # `string.trim(s)` is `baml.String.trim(s)`: a primitive's name stands for its namespace
        base = PRIMITIVE_NAMESPACES.get(base, base)
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
        return self.instantiated_return(fn, args) if fn.generic is not None else fn.ret

    def instantiated_return(self, fn: FuncItem, args: list[A.Expr]) -> Ty:
        """A generic function's result type at a call: each type parameter bound to the union of
        what the arguments give it (`Pick(Ver { ... })` is a `Ver`); one no argument binds is `ANY`.
        (The engine rejects arguments that bind one parameter to different types, E0155; the
        union accepts them, as the erased body runs them.)"""
        assert fn.generic is not None
        return strip_unbound(subst(fn.generic.ret, self.bind_type_params(fn.generic.params, args)))

    def bind_type_params(self, patterns: tuple[Ty, ...], args: list[A.Expr]) -> dict[str, Ty]:
        """Each type variable of `patterns` bound to the union of what the (checked) arguments give it."""
        bound: dict[str, Ty] = {}
        for pattern, arg in zip(patterns, args):
            env: dict[str, Ty] = {}
            unify(pattern, self.tp.types.get(arg, ANY), env)
            for name, ty in env.items():
                bound[name] = union([bound[name], ty]) if name in bound else ty
        return bound

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
        if key == "assert.equal":
            self.reject_user_equality("`assert.equal`", tuple(self.tp.types.get(a, ANY) for a in args), e.span)
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


PRIMITIVE_NAMESPACES = {"string": "baml.String", "int": "baml.Int", "float": "baml.Float", "bool": "baml.Bool"}


def receiver_kind(t: Ty) -> str | None:
    """Which built-in methods a value of type `t` has; a union of literals has none (as the engine)."""
    if is_literal_union(t):
        return None
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
    return holds(t, lambda m: isinstance(m, TypeVar))


def strip_unbound(t: Ty) -> Ty:
    return subst(t, _AnyEnv())


class _AnyEnv(dict):  # type: ignore[type-arg]
    def get(self, key, default=None):  # type: ignore[no-untyped-def, override]
        return ANY


