"""The syntax tree: types only, one class per construct, every node with a span.

Nodes compare and hash by identity (`eq=False`), so later phases key side
tables (types, resolutions) by the node itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeVar, Union, dataclass_transform

from ingot.fields_repr import FieldsRepr
from ingot.syntax.diagnostics import Span

_T = TypeVar("_T")


# A bare alias `node = dataclass(eq=False, slots=True)` hides the generated
# `__init__` from type checkers; `dataclass_transform` tells them what it makes.
@dataclass_transform(eq_default=False, field_specifiers=(field,))
def node(cls: type[_T]) -> type[_T]:
    return dataclass(eq=False, repr=False, slots=True)(cls)


# -- attributes ---------------------------------------------------------------
@node
class Attribute(FieldsRepr):
    """`@name(args)` or `@@name(args)`; args kept as expressions."""

    name: str  # dotted: "description", "stream.done"
    block: bool  # True for @@
    args: list[Expr]
    span: Span


# -- types --------------------------------------------------------------------
@node
class NamedType(FieldsRepr):
    name: str  # "int", "Point", "baml.panics.DivisionByZero"
    span: Span
    args: list[TypeExpr] = field(default_factory=list)  # `Box<int>`


@node
class OptionalType(FieldsRepr):
    inner: TypeExpr
    span: Span


@node
class UnionType(FieldsRepr):
    members: list[TypeExpr]
    span: Span


@node
class ArrayType(FieldsRepr):
    element: TypeExpr
    span: Span


@node
class MapType(FieldsRepr):
    key: TypeExpr
    value: TypeExpr
    span: Span


@node
class LiteralType(FieldsRepr):
    value: int | float | str | bool
    span: Span


@node
class FunctionType(FieldsRepr):
    params: list[TypeExpr]
    ret: TypeExpr
    span: Span
    throws: TypeExpr | None = None  # required by the engine (`throws never`)


TypeExpr = Union[NamedType, OptionalType, UnionType, ArrayType, MapType, LiteralType, FunctionType]


# -- patterns -----------------------------------------------------------------
@node
class WildcardPat(FieldsRepr):
    span: Span


@node
class LiteralPat(FieldsRepr):
    value: int | float | str | bool | None
    span: Span


@node
class BindPat(FieldsRepr):
    """`let name` or `let name: T`."""

    name: str
    type: TypeExpr | None
    span: Span


@node
class PathPat(FieldsRepr):
    """A dotted path: a type name (`int`, `A`, `baml.panics.X`) or an enum variant (`Color.RED`)."""

    path: list[str]
    span: Span


@node
class ClassPat(FieldsRepr):
    """`A { v: 1, w: let x }`."""

    name: str
    fields: list[tuple[str, Pattern]]
    span: Span


@node
class OrPat(FieldsRepr):
    alternatives: list[Pattern]
    span: Span


@node
class ArrayPat(FieldsRepr):
    """`[]`, `[let a, 0]`, `[let first, ..let rest]`."""

    elements: list[Pattern]
    has_rest: bool
    rest: Pattern | None
    span: Span


@node
class TypePat(FieldsRepr):
    """A type that is not a plain name: `int[]`, `string?`, `map<string, int>`."""

    type: TypeExpr
    span: Span


Pattern = Union[WildcardPat, LiteralPat, BindPat, PathPat, ClassPat, OrPat, ArrayPat, TypePat]


# -- expressions --------------------------------------------------------------
@node
class IntLit(FieldsRepr):
    value: int
    span: Span


@node
class FloatLit(FieldsRepr):
    value: float
    span: Span


@node
class StringLit(FieldsRepr):
    value: str
    span: Span


@node
class BoolLit(FieldsRepr):
    value: bool
    span: Span


@node
class NullLit(FieldsRepr):
    span: Span


@node
class TemplateStmt(FieldsRepr):
    """`${ stmt; }` inside a template: runs, renders nothing."""

    stmts: list[Stmt]
    span: Span


@node
class Template(FieldsRepr):
    parts: list[str | Expr | TemplateStmt]
    span: Span


@node
class Name(FieldsRepr):
    ident: str
    span: Span


@node
class FieldAccess(FieldsRepr):
    obj: Expr
    name: str
    optional: bool  # `?.`
    span: Span
    name_span: Span


@node
class Index(FieldsRepr):
    obj: Expr
    index: Expr
    span: Span


@node
class Arg(FieldsRepr):
    name: str | None  # named argument `f(x = 1)`
    value: Expr
    span: Span


@node
class Call(FieldsRepr):
    callee: Expr
    args: list[Arg]
    span: Span


@node
class Unary(FieldsRepr):
    op: str  # "-", "!", "~"
    operand: Expr
    span: Span


@node
class Binary(FieldsRepr):
    op: str  # arithmetic, comparison, bitwise, "&&", "||", "??"
    left: Expr
    right: Expr
    span: Span
    op_span: Span


@node
class IsType(FieldsRepr):
    expr: Expr
    type: TypeExpr
    span: Span


@node
class IsPattern(FieldsRepr):
    """`v is 1 | 2`, `v is let _`, `v is Color.Red`: a pattern test that is not a plain type."""

    expr: Expr
    pattern: Pattern
    span: Span


@node
class Block(FieldsRepr):
    stmts: list[Stmt]
    tail: Expr | None  # the trailing expression without `;`
    span: Span


@node
class IfLet(FieldsRepr):
    """The condition of `if let name: T = expr`."""

    pattern: Pattern
    value: Expr
    span: Span


@node
class If(FieldsRepr):
    cond: Expr | IfLet
    then: Block
    otherwise: Block | If | None
    span: Span


@node
class MatchArm(FieldsRepr):
    pattern: Pattern
    guard: Expr | None
    body: Expr
    span: Span


@node
class Match(FieldsRepr):
    scrutinee: Expr
    arms: list[MatchArm]
    span: Span


@node
class Catch(FieldsRepr):
    """`expr catch (e) { arms }`."""

    expr: Expr
    binding: str
    arms: list[MatchArm]
    span: Span


@node
class ArrayLit(FieldsRepr):
    elements: list[Expr]
    span: Span


@node
class MapLit(FieldsRepr):
    entries: list[tuple[Expr, Expr]]
    span: Span


@node
class ClassLit(FieldsRepr):
    name: str
    name_span: Span
    fields: list[tuple[str, Expr, Span]]
    spread: Expr | None
    span: Span
    spread_at: int = 0  # explicit fields before the spread; the spread overrides those


@node
class Param(FieldsRepr):
    name: str
    type: TypeExpr | None
    default: Expr | None
    span: Span
    attributes: list[Attribute] = field(default_factory=list)


@node
class Lambda(FieldsRepr):
    params: list[Param]
    ret: TypeExpr | None
    body: Block
    span: Span
    throws: TypeExpr | None = None  # checked like a function's: not enforced


@node
class Assign(FieldsRepr):
    """Only valid as a statement; the parser also builds it in expression position to report E0010."""

    target: Expr
    op: str | None  # None for `=`, "+" for `+=` ...
    value: Expr
    span: Span


Expr = Union[
    IntLit, FloatLit, StringLit, BoolLit, NullLit, Template, Name, FieldAccess, Index, Call,
    Unary, Binary, IsType, IsPattern, Block, If, Match, Catch, ArrayLit, MapLit, ClassLit, Lambda, Assign,
]


# -- statements ---------------------------------------------------------------
@node
class Let(FieldsRepr):
    name: str
    type: TypeExpr | None
    value: Expr
    span: Span
    name_span: Span


@node
class ExprStmt(FieldsRepr):
    expr: Expr
    span: Span


@node
class Return(FieldsRepr):
    value: Expr | None
    span: Span


@node
class Break(FieldsRepr):
    span: Span


@node
class Continue(FieldsRepr):
    span: Span


@node
class Throw(FieldsRepr):
    value: Expr
    span: Span


@node
class While(FieldsRepr):
    cond: Expr
    body: Block
    span: Span


@node
class ForC(FieldsRepr):
    init: Stmt | None
    cond: Expr | None
    step: Stmt | None
    body: Block
    span: Span


@node
class ForIn(FieldsRepr):
    name: str
    iterable: Expr
    body: Block
    span: Span


@node
class LetPattern(FieldsRepr):
    """`let Point { x, y } = p;` or `let n: int = v else { return 0; };`: bind by a pattern;
    `otherwise` (which must leave the block) runs when the value does not match."""

    pattern: Pattern
    value: Expr
    otherwise: Block | None
    span: Span


Stmt = Union[Let, LetPattern, ExprStmt, Assign, Return, Break, Continue, Throw, While, ForC, ForIn]


# -- items --------------------------------------------------------------------
@node
class LlmBody(FieldsRepr):
    client: Expr
    prompt: Expr
    span: Span


@node
class Function(FieldsRepr):
    name: str
    params: list[Param]
    ret: TypeExpr | None
    throws: TypeExpr | None
    body: Block | LlmBody
    span: Span
    name_span: Span
    doc: str | None = None
    attributes: list[Attribute] = field(default_factory=list)
    has_self: bool = False
    type_params: list[str] = field(default_factory=list)  # `function First<T>(...)`
    abstract: bool = False  # an interface method without a body


@node
class FieldDecl(FieldsRepr):
    name: str
    type: TypeExpr
    attributes: list[Attribute]
    span: Span
    doc: str | None = None


@node
class ClassDecl(FieldsRepr):
    name: str
    fields: list[FieldDecl]
    methods: list[Function]
    attributes: list[Attribute]
    span: Span
    name_span: Span
    doc: str | None = None
    type_params: list[str] = field(default_factory=list)  # `class Box<T>`


@node
class EnumVariant(FieldsRepr):
    name: str
    attributes: list[Attribute]
    span: Span
    doc: str | None = None


@node
class EnumDecl(FieldsRepr):
    name: str
    variants: list[EnumVariant]
    attributes: list[Attribute]
    span: Span
    name_span: Span
    doc: str | None = None


@node
class TypeAlias(FieldsRepr):
    name: str
    type: TypeExpr
    span: Span
    name_span: Span


@node
class Const(FieldsRepr):
    name: str
    type: TypeExpr | None
    value: Expr
    span: Span
    name_span: Span


@node
class ClientDecl(FieldsRepr):
    name: str
    value: Expr
    span: Span
    name_span: Span


@node
class TestDecl(FieldsRepr):
    name: str
    body: Block
    span: Span
    group: str | None = None  # the enclosing testset's name


@node
class TestSet(FieldsRepr):
    name: str
    items: list[TestDecl | TestSet]
    span: Span


@node
class InterfaceDecl(FieldsRepr):
    """`interface Shape { function area(self) -> int throws never }`; methods may have a default body."""

    name: str
    methods: list[Function]
    requires: list[str]
    span: Span
    name_span: Span


@node
class ImplDecl(FieldsRepr):
    """`implements Shape for Square { ...methods... }` (also spelled `implement`)."""

    interface: str
    target: str
    methods: list[Function]
    span: Span
    interface_span: Span
    target_span: Span


Item = Union[Function, ClassDecl, EnumDecl, TypeAlias, Const, ClientDecl, TestDecl, TestSet, InterfaceDecl, ImplDecl]


@node
class Module(FieldsRepr):
    items: list[Item]
    span: Span
