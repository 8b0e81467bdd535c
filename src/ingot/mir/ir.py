"""MIR: a control-flow graph of basic blocks per function. Types only.

Conventions follow rustc's and BAML's MIR: local `_0` is the return place,
`_1.._arity` are the parameters, everything after is a user variable or a
compiler temporary. A block is a list of statements and exactly one
terminator; calls are terminators, so control moves between blocks only
through terminators. Statements may still *trap* (an index out of range, a
division by zero): a trap raises a panic value that reaches a `catch` handler
through the function's catch regions, which list their protected blocks
exactly (blocks of a region need not be contiguous after layout).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Union

from ingot.fields_repr import FieldsRepr
from ingot.semantics.types import Ty
from ingot.syntax.diagnostics import Span

PRELUDE_PREFIX = "$prelude."  # the names of the BAML-written built-ins (bex/prelude.baml)

BlockId = int
Local = int


# -- operands -----------------------------------------------------------------
@dataclass(frozen=True, slots=True, repr=False)
class Copy(FieldsRepr):
    """Read a local (through its cell when the local is captured)."""

    local: Local


@dataclass(frozen=True, slots=True, repr=False)
class Const(FieldsRepr):
    """A constant: None/bool/int/float/str, or one of the references below."""

    value: Any


@dataclass(frozen=True, slots=True, repr=False)
class FnConst(FieldsRepr):
    """A function used as a value: a user function, a lambda or a prelude function."""

    name: str


@dataclass(frozen=True, slots=True, repr=False)
class VariantConst(FieldsRepr):
    enum: str
    variant: str


@dataclass(frozen=True, slots=True, repr=False)
class GlobalConst(FieldsRepr):
    """A `const` global, evaluated on first use."""

    name: str


Operand = Union[Copy, Const]


# -- places -------------------------------------------------------------------
@dataclass(frozen=True, slots=True, repr=False)
class LocalPlace(FieldsRepr):
    local: Local


@dataclass(frozen=True, slots=True, repr=False)
class FieldPlace(FieldsRepr):
    base: Local
    cls: str
    index: int
    name: str


@dataclass(frozen=True, slots=True, repr=False)
class IndexPlace(FieldsRepr):
    """`base[index]` on an array or a map (the VM dispatches on the value)."""

    base: Local
    index: Local


Place = Union[LocalPlace, FieldPlace, IndexPlace]


# -- rvalues ------------------------------------------------------------------
class BinOp(Enum):
    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "/"
    MOD = "%"
    BIT_AND = "&"
    BIT_OR = "|"
    BIT_XOR = "^"
    SHL = "<<"
    SHR = ">>"
    EQ = "=="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="


class UnOp(Enum):
    NEG = "-"
    NOT = "!"  # logical not of the operand's truthiness
    BIT_NOT = "~"
    TRUTHY = "truthy"  # the operand's truthiness as a bool
    IS_PANIC = "is_panic"  # is the value a baml.panics.* instance


@dataclass(frozen=True, slots=True, repr=False)
class Use(FieldsRepr):
    operand: Operand


@dataclass(frozen=True, slots=True, repr=False)
class BinaryOp(FieldsRepr):
    op: BinOp
    left: Operand
    right: Operand


@dataclass(frozen=True, slots=True, repr=False)
class UnaryOp(FieldsRepr):
    op: UnOp
    operand: Operand


@dataclass(frozen=True, slots=True, repr=False)
class ReadField(FieldsRepr):
    base: Operand
    cls: str
    index: int
    name: str


@dataclass(frozen=True, slots=True, repr=False)
class ReadIndex(FieldsRepr):
    """`base[index]`: an array element or a map value; traps when absent."""

    base: Operand
    index: Operand


@dataclass(frozen=True, slots=True, repr=False)
class Len(FieldsRepr):
    """Length of an array (used by `for-in`, which re-reads it every step)."""

    base: Operand


@dataclass(frozen=True, slots=True, repr=False)
class MakeArray(FieldsRepr):
    elements: tuple[Operand, ...]


@dataclass(frozen=True, slots=True, repr=False)
class MakeMap(FieldsRepr):
    entries: tuple[tuple[Operand, Operand], ...]


@dataclass(frozen=True, slots=True, repr=False)
class MakeInstance(FieldsRepr):
    cls: str
    fields: tuple[Operand, ...]  # in declaration order


@dataclass(frozen=True, slots=True, repr=False)
class MakeClosure(FieldsRepr):
    function: str  # the lambda's MIR function name
    captures: tuple[Local, ...]  # locals whose cells the closure shares


@dataclass(frozen=True, slots=True, repr=False)
class BoundMethod(FieldsRepr):
    function: str
    receiver: Operand


@dataclass(frozen=True, slots=True, repr=False)
class IsType(FieldsRepr):
    operand: Operand
    ty: Ty


@dataclass(frozen=True, slots=True, repr=False)
class Format(FieldsRepr):
    """A template string: literal pieces and operands rendered as BAML renders them."""

    parts: tuple[str | Operand, ...]


Rvalue = Union[Use, BinaryOp, UnaryOp, ReadField, ReadIndex, Len, MakeArray, MakeMap, MakeInstance,
               MakeClosure, BoundMethod, IsType, Format]


# -- statements ---------------------------------------------------------------
@dataclass(frozen=True, slots=True, repr=False)
class Assign(FieldsRepr):
    place: Place
    value: Rvalue
    span: Span


@dataclass(frozen=True, slots=True, repr=False)
class StorageLive(FieldsRepr):
    """A `let` begins: a captured local gets a fresh cell (one per loop iteration).

    With `carry`, the new cell starts with the old cell's value: a C-style `for`
    gives each iteration its own copy of its loop variable, as JavaScript does.
    """

    local: Local
    span: Span
    carry: bool = False


Statement = Union[Assign, StorageLive]


# -- terminators --------------------------------------------------------------
@dataclass(frozen=True, slots=True, repr=False)
class Goto(FieldsRepr):
    target: BlockId
    span: Span


@dataclass(frozen=True, slots=True, repr=False)
class Branch(FieldsRepr):
    """Branch on the truthiness of `cond` (BAML conditions need not be bool)."""

    cond: Operand
    then_bb: BlockId
    else_bb: BlockId
    span: Span


@dataclass(frozen=True, slots=True, repr=False)
class Switch(FieldsRepr):
    """Jump to the arm whose constant equals the value (type-strict), else `otherwise`."""

    value: Operand
    arms: tuple[tuple[Any, BlockId], ...]  # constant (python value / VariantConst) -> block
    otherwise: BlockId
    span: Span


@dataclass(frozen=True, slots=True, repr=False)
class Return(FieldsRepr):
    span: Span


@dataclass(frozen=True, slots=True, repr=False)
class FnCallee(FieldsRepr):
    name: str  # user function, static method, method (receiver first), prelude function


@dataclass(frozen=True, slots=True, repr=False)
class BuiltinCallee(FieldsRepr):
    key: str  # "string.length", "int.parse", ...


@dataclass(frozen=True, slots=True, repr=False)
class ValueCallee(FieldsRepr):
    callee: Operand


Callee = Union[FnCallee, BuiltinCallee, ValueCallee]


@dataclass(frozen=True, slots=True, repr=False)
class Call(FieldsRepr):
    callee: Callee
    args: tuple[Operand, ...]
    dest: Local
    target: BlockId
    span: Span


@dataclass(frozen=True, slots=True, repr=False)
class Throw(FieldsRepr):
    value: Operand
    span: Span


@dataclass(frozen=True, slots=True, repr=False)
class Rethrow(FieldsRepr):
    """Re-raise a caught value no arm matched, keeping its original trace."""

    value: Operand
    span: Span


@dataclass(frozen=True, slots=True, repr=False)
class Unreachable(FieldsRepr):
    span: Span


Terminator = Union[Goto, Branch, Switch, Return, Call, Throw, Rethrow, Unreachable]


# -- containers ---------------------------------------------------------------
@dataclass(slots=True, repr=False)
class LocalDecl(FieldsRepr):
    name: str | None  # None for temporaries
    ty: Ty
    span: Span | None
    captured: bool = False  # lives in a cell shared with closures
    capture_index: int | None = None  # in a lambda: this local *is* captured slot i


@dataclass(slots=True, repr=False)
class BasicBlock(FieldsRepr):
    statements: list[Statement] = field(default_factory=list)
    terminator: Terminator | None = None


@dataclass(slots=True, repr=False)
class CatchRegion(FieldsRepr):
    blocks: frozenset[BlockId]
    handler: BlockId
    error_local: Local


class FnKind(Enum):
    BODY = "body"
    LLM = "llm"


@dataclass(slots=True, repr=False)
class MirFunction(FieldsRepr):
    name: str  # "F", "Counter.bump", "F.$lambda0", "$test.name", "$const.K"
    arity: int  # parameters, including `self` for methods
    param_names: list[str]
    ret: Ty
    locals: list[LocalDecl]
    blocks: list[BasicBlock]
    catch_regions: list[CatchRegion]
    span: Span
    kind: FnKind = FnKind.BODY
    doc: str | None = None
    n_captures: int = 0  # for lambdas: how many cells the closure carries
    synthetic: bool = False  # prelude, lambda, const initialiser or test body


@dataclass(slots=True, repr=False)
class MirProgram(FieldsRepr):
    functions: dict[str, MirFunction]
    consts: list[str]  # const names in declaration order ("$const.NAME" initialisers)
    tests: list[tuple[str, str | None, str]]  # (test name, testset, function name)
