"""The item table: every top-level declaration, and type expressions resolved to types.

Built once per program, before any body is checked, so bodies may refer to
items declared later in the file (BAML has no declaration order).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from ingot.runtime.errors import ERRORS, PANICS
from ingot.runtime.values import BUILTIN_ENUMS
from ingot.semantics import ops_interfaces
from ingot.semantics.types import (
    ANY,
    PRIMS,
    AliasT,
    ClassT,
    EnumT,
    FuncT,
    ListT,
    Lit,
    MapT,
    Ty,
    TypeVar,
    VariantT,
    optional,
    union,
)
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Diagnostic, SourceFile, Span

FIELD_ATTRIBUTES = ("description", "alias", "skip", "stream.done", "stream.must_exist")
CLASS_ATTRIBUTES = ("description", "alias", "stream.done")
VARIANT_ATTRIBUTES = ("description", "alias", "skip")
ENUM_ATTRIBUTES = ("description", "alias")


@dataclass(slots=True)
class FieldInfo:
    name: str
    ty: Ty
    decl: A.FieldDecl | None


@dataclass(slots=True)
class ClassItem:
    name: str  # as written for user classes; qualified for built-in ones
    fields: list[FieldInfo]
    methods: dict[str, A.Function]
    decl: A.ClassDecl | None

    def has_member(self, name: str) -> bool:
        return name in self.methods or self.field(name) is not None

    def field(self, name: str) -> tuple[int, FieldInfo] | None:
        for i, f in enumerate(self.fields):
            if f.name == name:
                return i, f
        return None


@dataclass(slots=True)
class ParamInfo:
    name: str
    ty: Ty
    default: A.Expr | None


@dataclass(slots=True)
class FuncItem:
    name: str  # "F", or "Class.method"
    params: list[ParamInfo]
    ret: Ty
    decl: A.Function
    owner_class: str | None = None
    is_method: bool = False  # takes self

    @property
    def is_llm(self) -> bool:
        return isinstance(self.decl.body, A.LlmBody)

    # A generic function's signature with its own type parameters as `TypeVar`s (None for
    # others): a call binds them from its arguments to type its result (`Pick(v)` is `v`'s
    # type), while the body is checked with them erased (`ANY`).
    generic: FuncT | None = None

    def func_type(self) -> FuncT:
        return FuncT(tuple(p.ty for p in self.params), self.ret)


@dataclass(slots=True)
class Items:
    classes: dict[str, ClassItem] = field(default_factory=dict)
    enums: dict[str, A.EnumDecl] = field(default_factory=dict)
    aliases: dict[str, A.TypeAlias] = field(default_factory=dict)
    alias_types: dict[str, Ty] = field(default_factory=dict)
    functions: dict[str, FuncItem] = field(default_factory=dict)
    consts: dict[str, A.Const] = field(default_factory=dict)
    clients: dict[str, A.ClientDecl] = field(default_factory=dict)
    tests: list[A.TestDecl] = field(default_factory=list)
    interfaces: dict[str, A.InterfaceDecl] = field(default_factory=dict)
    # The classes implementing each interface; the interface as a type is their union.
    implementors: dict[str, list[str]] = field(default_factory=dict)
    # `implements baml.ops.Add for V`: (class, operator) -> the method `a + b` calls.
    operators: dict[tuple[str, str], str] = field(default_factory=dict)

    def alias_target(self, name: str) -> Ty:
        return self.alias_types.get(name, ANY)


# The operator interfaces a class may implement: interface -> (operator, method). The engine
# defines only `baml.ops.Add` (`baml.ops.Sub` and the others are unresolved types there).
OPERATOR_INTERFACES = {
    "baml.ops.Add": ("+", "add"),
}


def builtin_classes() -> dict[str, ClassItem]:
    """The panic and error classes, usable in patterns and types by qualified name."""
    from ingot.semantics.types import INT, STRING

    ints = {"dividend", "index", "length", "code", "field_index", "field_count"}
    optional_ints = {"status_code", "retry_after_ms"}
    optional_strings = {"raw_body", "message", "error_type", "error_code"}
    out: dict[str, ClassItem] = {}
    for info in list(PANICS.values()) + list(ERRORS.values()):
        fields = []
        for n in info.field_names:
            if n in ints:
                ty: Ty = INT
            elif n in optional_ints:
                ty = optional(INT)
            elif n in optional_strings and info.name.startswith("ai."):
                ty = optional(STRING)
            else:
                ty = STRING
            fields.append(FieldInfo(n, ty, None))
        out[info.name] = ClassItem(info.name, fields, {}, None)
    return out


def builtin_enums() -> dict[str, A.EnumDecl]:
    """Enums the language defines (`baml.ops.Ordering`), as declarations the checker reads."""
    source = SourceFile("<builtin>", "")
    span = Span(source, 0, 0)
    out = {}
    for name, info in BUILTIN_ENUMS.items():
        variants = [A.EnumVariant(v, [], span) for v in info.variant_names]
        out[name] = A.EnumDecl(name, variants, [], span, span)
    return out


class Resolver:
    """Collects items and resolves type expressions; reports duplicates and bad attributes."""

    def __init__(self, module: A.Module, allow_any: bool = False) -> None:
        self.module = module
        self.items = Items()
        self.diagnostics: list[Diagnostic] = []
        self.allow_any = allow_any
        self.in_param = False  # resolving a parameter's type (see resolve_param_type)
        # Type parameters in scope (`T` of `class Box<T>`, `function First<T>`): generics are
        # checked by erasure, a type parameter standing for any type.
        self.type_params: frozenset[str] = frozenset()
        self.type_vars: frozenset[str] = frozenset()  # type parameters kept as `TypeVar`s (`_generic_signature`)
        # The class whose method is being resolved or checked: `Self` names it.
        self.self_class: str | None = None
        self._first_def: dict[str, tuple[str, Span]] = {}
        self._impl_spans: dict[tuple[str, str], Span] = {}  # (class, interface) -> its impl

    def error(self, code: Code, message: str, span: Span, primary: str | None = None,
              secondary: list[tuple[Span, str]] | None = None) -> None:
        self.diagnostics.append(Diagnostic(code, message, span, primary, secondary or []))

    # -- collection -----------------------------------------------------------
    def collect(self) -> Items:
        items = self.items
        items.classes.update(builtin_classes())
        items.enums.update(builtin_enums())
        # `baml.panics.Panic`: the union of every panic class.
        items.alias_types["baml.panics.Panic"] = union(ClassT(info.name) for info in PANICS.values())
        for item in self.module.items:
            self._declare(item)
        for name, decl in ops_interfaces.declarations().items():
            items.interfaces.setdefault(name, decl)
        self._declare_interface_types()
        for alias in items.aliases.values():
            items.alias_types[alias.name] = self.resolve_type(alias.type)
        for item in self.module.items:
            if isinstance(item, A.ClassDecl) and items.classes.get(item.name, None) is not None:
                self._fill_class(item)
            elif isinstance(item, A.EnumDecl):
                self._check_enum(item)
            elif isinstance(item, A.Function):
                self._declare_function(item, None)
        for item in self.module.items:
            if isinstance(item, A.InterfaceDecl):
                self._check_interface(item)
            elif isinstance(item, A.ImplDecl):
                self._fill_impl(item)
        self._complete_compare()
        return items

    # -- interfaces -------------------------------------------------------------
    def _declare_interface_types(self) -> None:
        """An interface, as a type, is the union of the classes that implement it."""
        items = self.items
        for item in self.module.items:
            if isinstance(item, A.ImplDecl) and item.interface in items.interfaces \
                    and item.target in items.classes:
                items.implementors.setdefault(item.interface, []).append(item.target)
        for name in items.interfaces:
            items.alias_types[name] = union(ClassT(c) for c in items.implementors.get(name, []))

    def _fill_operator_impl(self, impl: A.ImplDecl) -> None:
        """`implements baml.ops.Add<V> for V { function add(self, rhs: V) -> V ... }`: `a + b` calls it."""
        cls = self.items.classes.get(impl.target)
        if cls is None or not isinstance(cls.decl, A.ClassDecl):
            self.error(Code.UNRESOLVED_TYPE, f"unresolved type: {impl.target}", impl.target_span)
            return
        op, method = OPERATOR_INTERFACES[impl.interface]
        for m in impl.methods:
            if m.name in cls.methods or cls.field(m.name) is not None:
                self.error(Code.DUPLICATE_FIELD, f"duplicate field `{cls.name}.{m.name}`", m.name_span)
                continue
            cls.methods[m.name] = m
            self._declare_function(m, cls.name)
        if method not in cls.methods:
            self.error(Code.MISSING_IMPL, f"missing implementation of method `{method}` required by "
                       f"interface `{impl.interface}`", impl.interface_span)
            return
        self.items.operators[(cls.name, op)] = f"{cls.name}.{method}"

    def _check_interface(self, decl: A.InterfaceDecl) -> None:
        for m in decl.methods:
            if m.throws is None:
                self.error(Code.INTERFACE_THROWS, f"interface method `{m.name}` on `{decl.name}` must declare an "
                           "explicit `throws` clause", m.name_span)

    def _fill_impl(self, impl: A.ImplDecl) -> None:
        """The block's methods become the class's; default methods it leaves out are copied in."""
        if impl.interface in OPERATOR_INTERFACES:
            self._fill_operator_impl(impl)
            return
        iface = self.items.interfaces.get(impl.interface)
        if iface is None:
            self.error(Code.UNRESOLVED_TYPE, f"unresolved type: {impl.interface}", impl.interface_span)
            return
        cls = self.items.classes.get(impl.target)
        if cls is None or not isinstance(cls.decl, A.ClassDecl):
            self._bad_impl_target(impl)
            return
        first = self._impl_spans.setdefault((cls.name, iface.name), impl.interface_span)
        if first is not impl.interface_span:
            self.error(Code.OVERLAPPING_IMPL, "overlapping interface implementations for the same receiver/interface",
                       impl.interface_span, None, [(first, "conflicting implementation is here")])
            return
        declared = {m.name for m in iface.methods}
        methods = []
        for m in impl.methods:
            if m.name in declared:
                methods.append(m)
            else:
                self.error(Code.NOT_AN_INTERFACE_METHOD, f"`{m.name}` is not a method of interface `{iface.name}`",
                           m.span)
        given = {m.name for m in methods}
        for m in iface.methods:
            if m.name in given:
                continue
            if m.abstract:
                self.error(Code.MISSING_IMPL, f"missing implementation of method `{m.name}` required by "
                           f"interface `{iface.name}`", impl.interface_span)
                continue
            if iface.name in ops_interfaces.declarations() and ops_interfaces.shadowed(m.name, cls.has_member):
                continue  # as on the engine, the class's own field or method of that name wins
            # Each implementing class gets its own copy of a default method (its own `self`).
            methods.append(copy.deepcopy(m, {id(m.span.source): m.span.source}))
        self._add_methods(cls, methods)
        if iface.name in ops_interfaces.declarations():
            self._conform(iface, cls, [m for m in impl.methods if m.name in declared])
            for op, (name, method) in ops_interfaces.OPERATOR_METHODS.items():
                if name == iface.name and (method != "eq" or "eq" in given):
                    self.items.operators[(cls.name, op)] = f"{cls.name}.{method}"

    def _add_methods(self, cls: ClassItem, methods: list[A.Function]) -> None:
        for m in methods:
            if m.name in cls.methods or cls.field(m.name) is not None:
                self.error(Code.DUPLICATE_FIELD, f"duplicate field `{cls.name}.{m.name}`", m.name_span)
                continue
            cls.methods[m.name] = m
            self._declare_function(m, cls.name)

    def _bad_impl_target(self, impl: A.ImplDecl) -> None:
        builtin = impl.interface in ops_interfaces.declarations()
        if builtin and impl.target in PRIMS:  # the engine's own impl for `int` comes first
            self.error(Code.OVERLAPPING_IMPL, "overlapping interface implementations for the same "
                       "receiver/interface", impl.span)
        elif builtin and impl.target in self.items.aliases:
            self.error(Code.ORPHAN_IMPL, f"orphan rule: a foreign interface `{impl.interface}` can only be "
                       "implemented for a local type", impl.interface_span)
        elif impl.target in self.items.enums:
            self.error(Code.UNSUPPORTED, f"implementing `{impl.interface}` for the enum `{impl.target}` is "
                       "not supported yet", impl.target_span)
        else:
            self.error(Code.UNRESOLVED_TYPE, f"unresolved type: {impl.target}", impl.target_span)

    def _conform(self, iface: A.InterfaceDecl, cls: ClassItem, given: list[A.Function]) -> None:
        """E0120 for a method of a built-in interface's impl whose signature is not the declared
        one, `Self` standing for the class (`eq(self, other: string)`)."""
        declared = {m.name: m for m in iface.methods}
        for m in given:
            fn = self.items.functions.get(f"{cls.name}.{m.name}")
            if fn is None or fn.decl is not m:
                continue
            decl = declared[m.name]
            outer, self.self_class = self.self_class, cls.name
            try:
                want = [self.resolve_param_type(p.type) if p.type else ANY for p in decl.params]
                want_ret = self.resolve_type(decl.ret) if decl.ret else ANY
            finally:
                self.self_class = outer
            got = [p.ty for p in fn.params]
            if got != want or (m.ret is not None and fn.ret != want_ret):
                names = [p.name for p in fn.params]
                self.error(Code.NONCONFORMING_METHOD,
                           f"method `{m.name}` has signature {_signature(cls.name, names, got, fn.ret)}, which "
                           f"does not conform to interface `{iface.name}`'s declared "
                           f"{_signature(cls.name, names, want, want_ret)}", m.span)

    def _complete_compare(self) -> None:
        """A class implementing `baml.ops.Compare` has `Equals`' methods too (every class does
        on the engine): `eq` structural and `neq` its negation, unless it implements them."""
        equals = ops_interfaces.declarations()[ops_interfaces.EQUALS]
        for name in self.items.implementors.get(ops_interfaces.COMPARE, []):
            cls = self.items.classes[name]
            self._add_methods(cls, [copy.deepcopy(m, {id(m.span.source): m.span.source})
                                    for m in equals.methods if not ops_interfaces.shadowed(m.name, cls.has_member)])

    def _declare(self, item: A.Item) -> None:
        items = self.items
        if isinstance(item, A.TestDecl):
            items.tests.append(item)
            return
        if isinstance(item, A.TestSet):
            for sub in item.items:
                self._declare(sub)
            return
        if isinstance(item, A.ImplDecl):
            return
        kind = {A.Function: "function", A.ClassDecl: "class", A.EnumDecl: "enum", A.TypeAlias: "type",
                A.Const: "const", A.ClientDecl: "client", A.InterfaceDecl: "interface"}[type(item)]
        name = item.name
        if name in self._first_def:
            first_kind, first_span = self._first_def[name]
            self.error(Code.DUPLICATE_ITEM, f"duplicate {kind} `{name}`", item.name_span,
                       f"duplicate {kind} definition",
                       [(first_span, f"first defined as {first_kind} here")])
            return
        self._first_def[name] = (kind, item.name_span)
        if isinstance(item, A.ClassDecl):
            items.classes[name] = ClassItem(name, [], {}, item)
        elif isinstance(item, A.EnumDecl):
            items.enums[name] = item
        elif isinstance(item, A.TypeAlias):
            items.aliases[name] = item
        elif isinstance(item, A.Const):
            items.consts[name] = item
        elif isinstance(item, A.ClientDecl):
            items.clients[name] = item
        elif isinstance(item, A.InterfaceDecl):
            items.interfaces[name] = item

    def generic_scope(self, decl: A.Function, owner: str | None) -> frozenset[str]:
        """The type parameters visible in a function: its own and its class's."""
        cls = self.items.classes.get(owner) if owner is not None else None
        inherited = cls.decl.type_params if cls is not None and isinstance(cls.decl, A.ClassDecl) else []
        return frozenset([*decl.type_params, *inherited])

    def _fill_class(self, decl: A.ClassDecl) -> None:
        cls = self.items.classes[decl.name]
        if cls.decl is not decl:
            return
        self.type_params = frozenset(decl.type_params)
        try:
            self._fill_class_members(decl, cls)
        finally:
            self.type_params = frozenset()

    def _fill_class_members(self, decl: A.ClassDecl, cls: ClassItem) -> None:
        seen: set[str] = set()
        for f in decl.fields:
            if f.name in seen:
                self.error(Code.DUPLICATE_FIELD, f"duplicate field `{decl.name}.{f.name}`", f.span)
                continue
            seen.add(f.name)
            self._check_attributes(f.attributes, FIELD_ATTRIBUTES, "a class field")
            cls.fields.append(FieldInfo(f.name, self.resolve_type(f.type), f))
        self._check_attributes(decl.attributes, CLASS_ATTRIBUTES, "a class")
        for m in decl.methods:
            if m.name in cls.methods or m.name in seen:
                self.error(Code.DUPLICATE_FIELD, f"duplicate field `{decl.name}.{m.name}`", m.name_span)
                continue
            cls.methods[m.name] = m
            self._declare_function(m, decl.name)

    def _check_enum(self, decl: A.EnumDecl) -> None:
        seen: set[str] = set()
        for v in decl.variants:
            if v.name in seen:
                self.error(Code.DUPLICATE_FIELD, f"duplicate variant `{decl.name}.{v.name}`", v.span)
            seen.add(v.name)
            self._check_attributes(v.attributes, VARIANT_ATTRIBUTES, "an enum variant")
        self._check_attributes(decl.attributes, ENUM_ATTRIBUTES, "an enum")

    def _check_attributes(self, attrs: list[A.Attribute], allowed: tuple[str, ...], where: str) -> None:
        for a in attrs:
            if a.name not in allowed:
                marker = "@@" if a.block else "@"
                listed = ", ".join(f"`{marker}{n}`" for n in allowed)
                self.error(Code.UNKNOWN_ATTRIBUTE, f"unknown attribute `{marker}{a.name}`; valid on {where}: {listed}",
                           a.span, "unknown attribute")

    def _declare_function(self, decl: A.Function, owner: str | None) -> None:
        for a in decl.attributes:
            self.error(Code.MISPLACED_ATTRIBUTE,
                       f"attribute `@@{a.name}` is not valid on a function; allowed: none", a.span)
        name = decl.name if owner is None else f"{owner}.{decl.name}"
        if owner is None and self.items.functions.get(name) is not None:
            return
        seen: set[str] = set()
        for p in decl.params:
            if p.name in seen:
                self.error(Code.DUPLICATE_FIELD, f"duplicate parameter `{p.name}` in `{decl.name}`", p.span)
            seen.add(p.name)
        outer, self.type_params = self.type_params, self.generic_scope(decl, owner)
        outer_class, self.self_class = self.self_class, owner
        try:
            params = [ParamInfo(p.name, self.resolve_param_type(p.type) if p.type else ANY, p.default)
                      for p in decl.params]
            ret = self.resolve_type(decl.ret) if decl.ret else ANY
            generic = self._generic_signature(decl) if decl.type_params else None
        finally:
            self.type_params, self.self_class = outer, outer_class
        self.items.functions[name] = FuncItem(name, params, ret, decl, owner, decl.has_self, generic)

    def _generic_signature(self, decl: A.Function) -> FuncT:
        """`decl`'s parameter and return types with its own type parameters as `TypeVar`s (the
        types were resolved once already: their errors are not reported again)."""
        reported, self.type_vars = len(self.diagnostics), frozenset(decl.type_params)
        try:
            return FuncT(tuple(self.resolve_param_type(p.type) if p.type else ANY for p in decl.params),
                         self.resolve_type(decl.ret) if decl.ret else ANY)
        finally:
            self.type_vars = frozenset()
            del self.diagnostics[reported:]

    # -- type expressions -----------------------------------------------------
    def resolve_param_type(self, t: A.TypeExpr) -> Ty:
        """A parameter's type: there a function type may leave out its `throws` clause."""
        self.in_param = True
        try:
            return self.resolve_type(t)
        finally:
            self.in_param = False

    def resolve_type(self, t: A.TypeExpr) -> Ty:
        if isinstance(t, A.NamedType):
            return self._named(t)
        if isinstance(t, A.OptionalType):
            return optional(self.resolve_type(t.inner))
        if isinstance(t, A.UnionType):
            return union(self.resolve_type(m) for m in t.members)
        if isinstance(t, A.ArrayType):
            return ListT(self.resolve_type(t.element))
        if isinstance(t, A.MapType):
            return MapT(self.resolve_type(t.key), self.resolve_type(t.value))
        if isinstance(t, A.LiteralType):
            return Lit(t.value)
        if isinstance(t, A.FunctionType):
            if t.throws is None and not self.allow_any and not self.in_param:
                self.error(Code.FN_TYPE_THROWS, "function type must declare an explicit `throws` clause; "
                           "add `throws never` if calling it cannot throw", t.span)
            return FuncT(tuple(self.resolve_type(p) for p in t.params), self.resolve_type(t.ret))
        raise AssertionError(t)

    def _check_type_arg_count(self, t: A.NamedType, cls: ClassItem) -> None:
        """`Box<int, string>` for `class Box<T>`, `Box` alone, `P<int>` for a class without type
        parameters: E0001, as on the engine (inside the class itself its own name may stand alone)."""
        params = cls.decl.type_params if isinstance(cls.decl, A.ClassDecl) else []
        inside = self.self_class == cls.name or set(params) <= self.type_params
        if len(t.args) != len(params) and not (inside and not t.args):
            self.error(Code.MISMATCH, f"type `{t.name}` expects {len(params)} type argument(s), got {len(t.args)}",
                       t.span)

    def _named(self, t: A.NamedType) -> Ty:
        items, name = self.items, t.name
        for arg in t.args:  # erased, but they must name types
            self.resolve_type(arg)
        if name in self.type_vars:
            return TypeVar(name)
        if name in self.type_params:
            return ANY
        if name == "Self" and self.self_class is not None:
            return ClassT(self.self_class)
        if name == "map" or (name in PRIMS and t.args):  # (`map<K, V>` with its two arguments is a MapType)
            self.error(Code.BUILTIN_TYPE_ARGS, f"type `{name}` expects {2 if name == 'map' else 0} type "
                       f"argument(s), got {len(t.args)}", t.span, "invalid builtin type arguments")
            return ANY
        if name in PRIMS:
            return PRIMS[name]
        if name in items.classes:
            self._check_type_arg_count(t, items.classes[name])
            return ClassT(name)
        if name in items.enums:
            return EnumT(name)
        enum, _, variant = name.rpartition(".")
        if enum in items.enums and any(v.name == variant for v in items.enums[enum].variants):
            return VariantT(enum, variant)  # `-> C.A`: the one variant, as the engine allows
        if name in items.aliases or name in items.alias_types:
            return AliasT(name)
        if self.allow_any and name in ("any", "unknown"):
            return ANY
        if name in ("image", "audio", "pdf", "video", "bigint", "uint8array"):
            self.error(Code.UNSUPPORTED, f"the `{name}` type is not supported yet", t.span)
            return ANY
        self.error(Code.UNRESOLVED_TYPE, f"unresolved type: {name}", t.span)
        return ANY


def _signature(cls: str, names: list[str], params: list[Ty], ret: Ty) -> str:
    """`(self: Entity, other: string) -> bool throws never`, as the engine writes one."""
    listed = ", ".join([f"self: {cls}", *(f"{n}: {t}" for n, t in zip(names, params))])
    return f"({listed}) -> {ret} throws never"
