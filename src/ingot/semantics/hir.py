"""The typed HIR: the syntax tree plus what the checker learned about it.

Rather than copy the tree, the checker fills side tables keyed by syntax
nodes (which hash by identity): the type of every expression, what every
name and member refers to, how every call dispatches and which arguments it
passes in parameter order. Lowering reads the tree through these tables only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Union

from ingot.fields_repr import FieldsRepr
from ingot.semantics.types import Ty
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Span


@dataclass(eq=False, slots=True, repr=False)
class LocalVar(FieldsRepr):
    """A variable: parameter, `let`, loop variable, pattern binding or catch binding."""

    name: str
    ty: Ty
    span: Span
    owner: object  # the A.Function / A.Lambda / A.TestDecl / A.Const whose frame holds it
    captured: bool = False  # referenced from a lambda nested inside its owner


# -- what a name refers to ------------------------------------------------------
@dataclass(frozen=True, slots=True, repr=False)
class LocalRef(FieldsRepr):
    var: LocalVar


@dataclass(frozen=True, slots=True, repr=False)
class FuncRef(FieldsRepr):
    name: str  # item name: "F", "Counter.zero" (static method), "$lambda" never


@dataclass(frozen=True, slots=True, repr=False)
class ConstRef(FieldsRepr):
    name: str


@dataclass(frozen=True, slots=True, repr=False)
class ClientRef(FieldsRepr):
    name: str


@dataclass(frozen=True, slots=True, repr=False)
class BuiltinRef(FieldsRepr):
    """A built-in function used as a value or callee: "int.parse", "baml.deep_copy"."""

    key: str


@dataclass(frozen=True, slots=True, repr=False)
class TypeRef(FieldsRepr):
    """A name that denotes a type or namespace (`Color`, `int`, `baml.panics`): not a value."""

    path: str


NameRes = Union[LocalRef, FuncRef, ConstRef, ClientRef, BuiltinRef, TypeRef]


# -- what a member access refers to -------------------------------------------
@dataclass(frozen=True, slots=True, repr=False)
class FieldRef(FieldsRepr):
    cls: str
    index: int


@dataclass(frozen=True, slots=True, repr=False)
class VariantRef(FieldsRepr):
    enum: str
    variant: str


@dataclass(frozen=True, slots=True, repr=False)
class MethodRef(FieldsRepr):
    """A user method bound to its receiver (`c.bump`): the method's item name."""

    name: str


@dataclass(frozen=True, slots=True, repr=False)
class InterfaceMethodRef(FieldsRepr):
    """A method called through an interface-typed value: dispatched on the receiver's class."""

    interface: str
    method: str


@dataclass(frozen=True, slots=True, repr=False)
class BuiltinMethodRef(FieldsRepr):
    """A built-in method bound to its receiver (`s.length`): "string.length"."""

    key: str


MemberRes = Union[FieldRef, VariantRef, MethodRef, InterfaceMethodRef, BuiltinMethodRef, FuncRef, BuiltinRef, TypeRef,
                  ConstRef]


# -- calls ----------------------------------------------------------------------
@dataclass(slots=True, repr=False)
class CallInfo(FieldsRepr):
    """How a call dispatches.

    kind:
      "function"  user function or static method `target`; args are all the arguments
      "method"    user method `target`; args[0] is the receiver
      "builtin"   built-in `target` ("string.length", "int.parse"); receiver first for methods
      "value"     call a function value: args[0] is the callee expression
      "interface" method `target` ("Shape.area") of the receiver's class; args[0] is the receiver
    args are in parameter order with defaults filled in; None never appears.
    """

    kind: str
    target: str
    args: list[A.Expr]


# -- patterns -----------------------------------------------------------------
@dataclass(frozen=True, slots=True, repr=False)
class TypeTest(FieldsRepr):
    """A pattern that tests the scrutinee's runtime type."""

    ty: Ty


@dataclass(frozen=True, slots=True, repr=False)
class VariantTest(FieldsRepr):
    enum: str
    variant: str


PatternRes = Union[TypeTest, VariantTest]


@dataclass(slots=True, repr=False)
class TypedProgram(FieldsRepr):
    module: A.Module
    types: dict[object, Ty] = field(default_factory=dict)  # expr -> type
    names: dict[A.Name, NameRes] = field(default_factory=dict)
    members: dict[A.FieldAccess, MemberRes] = field(default_factory=dict)
    calls: dict[A.Call | A.Binary, CallInfo] = field(default_factory=dict)  # Binary: `baml.ops.Add`
    bindings: dict[object, LocalVar] = field(default_factory=dict)  # Let/Param/ForIn/BindPat/Catch -> var
    patterns: dict[object, PatternRes] = field(default_factory=dict)
    locals_of: dict[object, list[LocalVar]] = field(default_factory=dict)  # owner -> its vars
    lambda_captures: dict[A.Lambda, list[LocalVar]] = field(default_factory=dict)
    class_literals: dict[A.ClassLit, str] = field(default_factory=dict)
