"""BEX opcodes: the one definition of every instruction.

Each row of `OPCODES` says everything an executor or an analysis needs to know
about one instruction, the way CPython's bytecodes.c does:

- its operand and stack effect (`stack_effect` resolves the variable ones from
  the operand: an array's element count, a class's field count, a call's
  argument count, ...), whether it jumps or ends a block;
- the semantic operation its transfer record names (`transfer`);
- static facts about its result: the kind of value it is known to be (`kind`,
  read by the compiled tier's kind inference) and whether it may carry a
  symbolic shadow and is a scalar (`shadow`, `scalar`, read by the compiled
  tracker's symbolic-slots pass);
- for operators, the concrete template the compiled tier inlines: the Python
  operator (`py`), the guard under which it computes BAML's result (`fast`), and
  the runtime function that is the fallback and the definition (`impl`, which
  the interpreter and both trackers call too).

Readers: the interpreter (`vm.py`), the emitter (`emit.py`), the disassembler
(`dis.py`), the compiled tier (`compiled.py`), the trackers
(`ingot.symbolic.translate_ops`). Adding an instruction is a row here, its
symbolic semantics a row of the trackers' transfer table
(`ingot.symbolic.transfer`), plus one arm per concrete executor; a test runs
every opcode on every executor and fails on one that does not handle it.

Instructions are `(Op, arg)` tuples; `arg` is an int (slot, constant index,
jump target) or a small tuple for calls.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum, IntEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ingot.runtime import ops
from ingot.runtime.errors import is_panic_value

if TYPE_CHECKING:
    from ingot.bex.program import BexFunction, BexProgram


class Operand(IntEnum):
    NONE = 0
    SLOT = 1  # a local slot
    CONST = 2  # index into the function's constant pool
    TARGET = 3  # absolute instruction index
    CAPTURE = 4  # index into the closure's captured cells
    GLOBAL = 5  # index into the program's global (const) table
    FIELD = 6  # field index
    COUNT = 7  # number of stack operands
    CLASS = 8  # index into the program's class table
    FUNCTION = 9  # index into the program's function table
    CALL = 10  # (function index, argc)
    BUILTIN = 11  # (builtin key index, argc)
    TABLE = 12  # index into the function's side tables (switch, type test, format)


class Kind(Enum):
    """What an instruction's result is known to be before the program runs."""

    NONE = "none"  # no result
    UNKNOWN = "unknown"
    INT = "int"
    BOOL = "bool"
    NUMERIC = "numeric"  # an int when every operand is, a float when every operand is
    CONST = "const"  # the constant's type
    LOCAL = "local"  # whatever the local holds
    RETURN = "return"  # the callee's declared return type
    BUILTIN = "builtin"  # the built-in's result kind


class Shadow(Enum):
    """When an instruction's result may carry a symbolic shadow (the tracker's static question)."""

    NONE = "none"  # no result
    NEVER = "never"
    OPERANDS = "operands"  # when any operand may
    TRUTH = "truth"  # when the operand may, or is a container (a list's truth is its length)
    ALWAYS = "always"  # read from the shadow heap or returned by a call
    LOCAL = "local"  # whatever the local's shadow is


class Fast(Enum):
    """The guard under which the compiled tier computes an operator inline with `py`."""

    NONE = "none"  # always the runtime function
    INT_RANGE = "int-range"  # two ints whose exact result stays in BAML's 64-bit range
    NONNEG = "nonneg"  # two ints, dividend >= 0 and divisor > 0 (Python's // and % agree with BAML's)
    ORDER = "order"  # two ints, or two floats in BAML's total order
    EQUALITY = "equality"  # a known type on one side turns BAML's strict equality into `==`/`is`


# How many operands an instruction with a variable stack effect pops, from its argument.
PopCount = Callable[[Any, "BexFunction", "BexProgram"], int]


@dataclass(frozen=True, slots=True)
class OpInfo:
    name: str
    operand: Operand
    pops: int | PopCount
    pushes: int
    transfer: str  # the semantic operation, as the transfer table names it
    kind: Kind = Kind.NONE
    shadow: Shadow = Shadow.NONE
    scalar: bool = True  # the result is never a list, map or instance whose shadow the heap keeps
    jumps: bool = False
    ends_block: bool = False
    py: str = ""  # the Python operator the compiled tier inlines
    fast: Fast = Fast.NONE
    impl: Callable[..., Any] | None = None  # the runtime function: the definition and the slow path

    @property
    def runtime_name(self) -> str:
        """The name generated code calls `impl` by."""
        return "_" + self.name.lower()


class Op(IntEnum):
    LOAD_CONST = 0
    LOAD_LOCAL = 1
    STORE_LOCAL = 2
    LOAD_DEREF = 3
    STORE_DEREF = 4
    NEW_CELL = 5
    LOAD_CELL = 6
    LOAD_CAPTURE = 7
    STORE_CAPTURE = 8
    LOAD_CAPTURE_CELL = 9
    LOAD_GLOBAL = 10
    ADD = 11
    SUB = 12
    MUL = 13
    DIV = 14
    MOD = 15
    BIT_AND = 16
    BIT_OR = 17
    BIT_XOR = 18
    SHL = 19
    SHR = 20
    EQ = 21
    NE = 22
    LT = 23
    LE = 24
    GT = 25
    GE = 26
    NEG = 27
    NOT = 28
    BIT_NOT = 29
    IS_PANIC = 31
    JUMP = 32
    POP_JUMP_IF_FALSE = 33
    SWITCH = 34
    READ_FIELD = 35
    WRITE_FIELD = 36
    READ_INDEX = 37
    WRITE_INDEX = 38
    LEN = 39
    MAKE_ARRAY = 40
    MAKE_MAP = 41
    MAKE_INSTANCE = 42
    MAKE_CLOSURE = 43
    BOUND_METHOD = 44
    IS_TYPE = 45
    FORMAT = 46
    CALL = 47
    CALL_BUILTIN = 48
    CALL_VALUE = 49
    RETURN = 50
    THROW = 51
    RETHROW = 52
    UNREACHABLE = 53
    CARRY_CELL = 55


def _array(arg: Any, fn: BexFunction, program: BexProgram) -> int:
    return int(arg)


def _map(arg: Any, fn: BexFunction, program: BexProgram) -> int:
    return 2 * int(arg)


def _instance(arg: Any, fn: BexFunction, program: BexProgram) -> int:
    return len(list(program.classes.values())[arg].field_names)


def _closure(arg: Any, fn: BexFunction, program: BexProgram) -> int:
    return program.functions[arg].n_captures


def _format(arg: Any, fn: BexFunction, program: BexProgram) -> int:
    return fn.formats[arg].count(None)


def _call(arg: Any, fn: BexFunction, program: BexProgram) -> int:
    return int(arg[1])


def _call_value(arg: Any, fn: BexFunction, program: BexProgram) -> int:
    return int(arg) + 1  # the callee, then the arguments


def _binary(name: str, transfer: str, kind: Kind, impl: Callable[[Any, Any], Any], py: str = "",
            fast: Fast = Fast.NONE) -> OpInfo:
    return OpInfo(name, K.NONE, 2, 1, transfer, kind, Shadow.OPERANDS, py=py, fast=fast, impl=impl)


def _unary(name: str, transfer: str, kind: Kind, impl: Callable[[Any], Any], shadow: Shadow) -> OpInfo:
    return OpInfo(name, K.NONE, 1, 1, transfer, kind, shadow, impl=impl)


K = Operand  # short names for the table below
U, N = Kind.UNKNOWN, Shadow.NEVER
_ROWS: dict[Op, OpInfo] = {
    Op.LOAD_CONST: OpInfo("LOAD_CONST", K.CONST, 0, 1, "const", Kind.CONST, N),
    Op.LOAD_LOCAL: OpInfo("LOAD_LOCAL", K.SLOT, 0, 1, "local.load", Kind.LOCAL, Shadow.LOCAL),
    Op.STORE_LOCAL: OpInfo("STORE_LOCAL", K.SLOT, 1, 0, "local.store"),
    Op.LOAD_DEREF: OpInfo("LOAD_DEREF", K.SLOT, 0, 1, "cell.load", U, Shadow.ALWAYS, scalar=False),
    Op.STORE_DEREF: OpInfo("STORE_DEREF", K.SLOT, 1, 0, "cell.store"),
    Op.NEW_CELL: OpInfo("NEW_CELL", K.SLOT, 0, 0, "cell.new"),
    Op.LOAD_CELL: OpInfo("LOAD_CELL", K.SLOT, 0, 1, "cell.ref", U, N),
    Op.LOAD_CAPTURE: OpInfo("LOAD_CAPTURE", K.CAPTURE, 0, 1, "capture.load", U, Shadow.ALWAYS, scalar=False),
    Op.STORE_CAPTURE: OpInfo("STORE_CAPTURE", K.CAPTURE, 1, 0, "capture.store"),
    Op.LOAD_CAPTURE_CELL: OpInfo("LOAD_CAPTURE_CELL", K.CAPTURE, 0, 1, "capture.ref", U, N),
    Op.LOAD_GLOBAL: OpInfo("LOAD_GLOBAL", K.GLOBAL, 0, 1, "global.load", U, N, scalar=False),
    Op.ADD: _binary("ADD", "arith.add", Kind.NUMERIC, ops.add, "+", Fast.INT_RANGE),
    Op.SUB: _binary("SUB", "arith.sub", Kind.NUMERIC, ops.sub, "-", Fast.INT_RANGE),
    Op.MUL: _binary("MUL", "arith.mul", Kind.NUMERIC, ops.mul, "*", Fast.INT_RANGE),
    Op.DIV: _binary("DIV", "arith.div", Kind.NUMERIC, ops.div, "//", Fast.NONNEG),
    Op.MOD: _binary("MOD", "arith.mod", Kind.NUMERIC, ops.mod, "%", Fast.NONNEG),
    Op.BIT_AND: _binary("BIT_AND", "bit.and", Kind.INT, ops.bit_and),
    Op.BIT_OR: _binary("BIT_OR", "bit.or", Kind.INT, ops.bit_or),
    Op.BIT_XOR: _binary("BIT_XOR", "bit.xor", Kind.INT, ops.bit_xor),
    Op.SHL: _binary("SHL", "bit.shl", Kind.INT, ops.shl),
    Op.SHR: _binary("SHR", "bit.shr", Kind.INT, ops.shr),
    Op.EQ: _binary("EQ", "cmp.eq", Kind.BOOL, ops.eq, "==", Fast.EQUALITY),
    Op.NE: _binary("NE", "cmp.ne", Kind.BOOL, ops.ne, "!=", Fast.EQUALITY),
    Op.LT: _binary("LT", "cmp.lt", Kind.BOOL, ops.lt, "<", Fast.ORDER),
    Op.LE: _binary("LE", "cmp.le", Kind.BOOL, ops.le, "<=", Fast.ORDER),
    Op.GT: _binary("GT", "cmp.gt", Kind.BOOL, ops.gt, ">", Fast.ORDER),
    Op.GE: _binary("GE", "cmp.ge", Kind.BOOL, ops.ge, ">=", Fast.ORDER),
    Op.NEG: _unary("NEG", "arith.neg", Kind.NUMERIC, ops.neg, Shadow.OPERANDS),
    Op.NOT: _unary("NOT", "logic.not", Kind.BOOL, lambda v: not ops.truthy(v), Shadow.TRUTH),
    Op.BIT_NOT: _unary("BIT_NOT", "bit.not", Kind.INT, ops.bit_not, N),
    Op.IS_PANIC: _unary("IS_PANIC", "type.is_panic", Kind.BOOL, is_panic_value, N),
    Op.JUMP: OpInfo("JUMP", K.TARGET, 0, 0, "jump", jumps=True, ends_block=True),
    Op.POP_JUMP_IF_FALSE: OpInfo("POP_JUMP_IF_FALSE", K.TARGET, 1, 0, "branch", jumps=True),
    Op.SWITCH: OpInfo("SWITCH", K.TABLE, 1, 0, "switch", jumps=True, ends_block=True),
    Op.READ_FIELD: OpInfo("READ_FIELD", K.FIELD, 1, 1, "field.get", U, Shadow.ALWAYS, scalar=False),
    Op.WRITE_FIELD: OpInfo("WRITE_FIELD", K.FIELD, 2, 0, "field.set"),
    Op.READ_INDEX: OpInfo("READ_INDEX", K.NONE, 2, 1, "index.get", U, Shadow.ALWAYS, scalar=False),
    Op.WRITE_INDEX: OpInfo("WRITE_INDEX", K.NONE, 3, 0, "index.set"),
    Op.LEN: OpInfo("LEN", K.NONE, 1, 1, "array.len", Kind.INT, Shadow.ALWAYS),  # an array's length can be symbolic
    Op.MAKE_ARRAY: OpInfo("MAKE_ARRAY", K.COUNT, _array, 1, "array.new", U, N, scalar=False),
    Op.MAKE_MAP: OpInfo("MAKE_MAP", K.COUNT, _map, 1, "map.new", U, N, scalar=False),
    Op.MAKE_INSTANCE: OpInfo("MAKE_INSTANCE", K.CLASS, _instance, 1, "instance.new", U, N, scalar=False),
    Op.MAKE_CLOSURE: OpInfo("MAKE_CLOSURE", K.FUNCTION, _closure, 1, "closure.new", U, N),
    Op.BOUND_METHOD: OpInfo("BOUND_METHOD", K.FUNCTION, 1, 1, "method.bind", U, N),
    Op.IS_TYPE: OpInfo("IS_TYPE", K.TABLE, 1, 1, "type.test", Kind.BOOL, Shadow.OPERANDS),
    Op.FORMAT: OpInfo("FORMAT", K.TABLE, _format, 1, "string.format", U, Shadow.OPERANDS),
    Op.CALL: OpInfo("CALL", K.CALL, _call, 1, "call", Kind.RETURN, Shadow.ALWAYS, scalar=False),
    Op.CALL_BUILTIN: OpInfo("CALL_BUILTIN", K.BUILTIN, _call, 1, "call.builtin", Kind.BUILTIN, Shadow.ALWAYS,
                            scalar=False),
    Op.CALL_VALUE: OpInfo("CALL_VALUE", K.COUNT, _call_value, 1, "call.value", U, Shadow.ALWAYS, scalar=False),
    Op.RETURN: OpInfo("RETURN", K.NONE, 1, 0, "return", ends_block=True),
    Op.THROW: OpInfo("THROW", K.NONE, 1, 0, "throw", ends_block=True),
    Op.RETHROW: OpInfo("RETHROW", K.NONE, 1, 0, "rethrow", ends_block=True),
    Op.UNREACHABLE: OpInfo("UNREACHABLE", K.NONE, 0, 0, "unreachable", ends_block=True),
    Op.CARRY_CELL: OpInfo("CARRY_CELL", K.SLOT, 0, 0, "cell.carry"),
}
assert set(_ROWS) == set(Op), "every opcode needs a row"
assert all(info.name == op.name for op, info in _ROWS.items())

OPCODES: MappingProxyType[Op, OpInfo] = MappingProxyType(_ROWS)

# Derived sets (from the rows above; nothing else defines them).
BINARY = frozenset(op for op, info in _ROWS.items() if info.operand is K.NONE and info.pops == 2 and info.impl)
ORDER = frozenset(op for op, info in _ROWS.items() if info.fast is Fast.ORDER)
ARITH = frozenset(op for op in BINARY if _ROWS[op].transfer.startswith("arith."))
ENDS_BLOCK = frozenset(op for op, info in _ROWS.items() if info.ends_block)
RUNTIME_FUNCTIONS: MappingProxyType[str, Callable[..., Any]] = MappingProxyType(
    {info.runtime_name: info.impl for info in _ROWS.values() if info.impl is not None})

# MIR binary operators -> opcodes (the emitter's only mapping for operators).
BINARY_OPCODES = MappingProxyType({
    "+": Op.ADD, "-": Op.SUB, "*": Op.MUL, "/": Op.DIV, "%": Op.MOD,
    "&": Op.BIT_AND, "|": Op.BIT_OR, "^": Op.BIT_XOR, "<<": Op.SHL, ">>": Op.SHR,
    "==": Op.EQ, "!=": Op.NE, "<": Op.LT, "<=": Op.LE, ">": Op.GT, ">=": Op.GE,
})
UNARY_OPCODES = MappingProxyType({
    "-": Op.NEG, "!": Op.NOT, "~": Op.BIT_NOT, "is_panic": Op.IS_PANIC,
})


def stack_effect(op: Op, arg: Any, fn: BexFunction, program: BexProgram) -> tuple[int, int]:
    """(pops, pushes) of one instruction of `fn`: its argument decides the variable ones."""
    info = OPCODES[op]
    pops = info.pops if isinstance(info.pops, int) else info.pops(arg, fn, program)
    return pops, info.pushes
