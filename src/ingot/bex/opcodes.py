"""BEX opcodes: one table, one row per instruction.

Each row gives the mnemonic, the operand kind, the stack effect
(pops, pushes; None where the operand decides), whether it jumps or ends a
block, and the semantic operation its transfer record names. The VM, the
emitter's stack-depth check, the disassembler and the transfer table all
read this table, so they cannot drift apart.

Instructions are `(opcode, arg)` tuples; `arg` is an int (slot, constant
index, jump target) or a small tuple for calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from types import MappingProxyType


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


@dataclass(frozen=True, slots=True)
class OpInfo:
    name: str
    operand: Operand
    pops: int | None
    pushes: int
    transfer: str  # the semantic operation, as the transfer table names it
    jumps: bool = False
    ends_block: bool = False


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
    TRUTHY = 30
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
    POP = 54
    CARRY_CELL = 55


K = Operand  # short name for the table below
_ROWS: dict[Op, OpInfo] = {
    Op.LOAD_CONST: OpInfo("LOAD_CONST", K.CONST, 0, 1, "const"),
    Op.LOAD_LOCAL: OpInfo("LOAD_LOCAL", K.SLOT, 0, 1, "local.load"),
    Op.STORE_LOCAL: OpInfo("STORE_LOCAL", K.SLOT, 1, 0, "local.store"),
    Op.LOAD_DEREF: OpInfo("LOAD_DEREF", K.SLOT, 0, 1, "cell.load"),
    Op.STORE_DEREF: OpInfo("STORE_DEREF", K.SLOT, 1, 0, "cell.store"),
    Op.NEW_CELL: OpInfo("NEW_CELL", K.SLOT, 0, 0, "cell.new"),
    Op.LOAD_CELL: OpInfo("LOAD_CELL", K.SLOT, 0, 1, "cell.ref"),
    Op.LOAD_CAPTURE: OpInfo("LOAD_CAPTURE", K.CAPTURE, 0, 1, "capture.load"),
    Op.STORE_CAPTURE: OpInfo("STORE_CAPTURE", K.CAPTURE, 1, 0, "capture.store"),
    Op.LOAD_CAPTURE_CELL: OpInfo("LOAD_CAPTURE_CELL", K.CAPTURE, 0, 1, "capture.ref"),
    Op.LOAD_GLOBAL: OpInfo("LOAD_GLOBAL", K.GLOBAL, 0, 1, "global.load"),
    Op.ADD: OpInfo("ADD", K.NONE, 2, 1, "arith.add"),
    Op.SUB: OpInfo("SUB", K.NONE, 2, 1, "arith.sub"),
    Op.MUL: OpInfo("MUL", K.NONE, 2, 1, "arith.mul"),
    Op.DIV: OpInfo("DIV", K.NONE, 2, 1, "arith.div"),
    Op.MOD: OpInfo("MOD", K.NONE, 2, 1, "arith.mod"),
    Op.BIT_AND: OpInfo("BIT_AND", K.NONE, 2, 1, "bit.and"),
    Op.BIT_OR: OpInfo("BIT_OR", K.NONE, 2, 1, "bit.or"),
    Op.BIT_XOR: OpInfo("BIT_XOR", K.NONE, 2, 1, "bit.xor"),
    Op.SHL: OpInfo("SHL", K.NONE, 2, 1, "bit.shl"),
    Op.SHR: OpInfo("SHR", K.NONE, 2, 1, "bit.shr"),
    Op.EQ: OpInfo("EQ", K.NONE, 2, 1, "cmp.eq"),
    Op.NE: OpInfo("NE", K.NONE, 2, 1, "cmp.ne"),
    Op.LT: OpInfo("LT", K.NONE, 2, 1, "cmp.lt"),
    Op.LE: OpInfo("LE", K.NONE, 2, 1, "cmp.le"),
    Op.GT: OpInfo("GT", K.NONE, 2, 1, "cmp.gt"),
    Op.GE: OpInfo("GE", K.NONE, 2, 1, "cmp.ge"),
    Op.NEG: OpInfo("NEG", K.NONE, 1, 1, "arith.neg"),
    Op.NOT: OpInfo("NOT", K.NONE, 1, 1, "logic.not"),
    Op.BIT_NOT: OpInfo("BIT_NOT", K.NONE, 1, 1, "bit.not"),
    Op.TRUTHY: OpInfo("TRUTHY", K.NONE, 1, 1, "logic.truthy"),
    Op.IS_PANIC: OpInfo("IS_PANIC", K.NONE, 1, 1, "type.is_panic"),
    Op.JUMP: OpInfo("JUMP", K.TARGET, 0, 0, "jump", jumps=True, ends_block=True),
    Op.POP_JUMP_IF_FALSE: OpInfo("POP_JUMP_IF_FALSE", K.TARGET, 1, 0, "branch", jumps=True),
    Op.SWITCH: OpInfo("SWITCH", K.TABLE, 1, 0, "switch", jumps=True, ends_block=True),
    Op.READ_FIELD: OpInfo("READ_FIELD", K.FIELD, 1, 1, "field.get"),
    Op.WRITE_FIELD: OpInfo("WRITE_FIELD", K.FIELD, 2, 0, "field.set"),
    Op.READ_INDEX: OpInfo("READ_INDEX", K.NONE, 2, 1, "index.get"),
    Op.WRITE_INDEX: OpInfo("WRITE_INDEX", K.NONE, 3, 0, "index.set"),
    Op.LEN: OpInfo("LEN", K.NONE, 1, 1, "array.len"),
    Op.MAKE_ARRAY: OpInfo("MAKE_ARRAY", K.COUNT, None, 1, "array.new"),
    Op.MAKE_MAP: OpInfo("MAKE_MAP", K.COUNT, None, 1, "map.new"),
    Op.MAKE_INSTANCE: OpInfo("MAKE_INSTANCE", K.CLASS, None, 1, "instance.new"),
    Op.MAKE_CLOSURE: OpInfo("MAKE_CLOSURE", K.FUNCTION, None, 1, "closure.new"),
    Op.BOUND_METHOD: OpInfo("BOUND_METHOD", K.FUNCTION, 1, 1, "method.bind"),
    Op.IS_TYPE: OpInfo("IS_TYPE", K.TABLE, 1, 1, "type.test"),
    Op.FORMAT: OpInfo("FORMAT", K.TABLE, None, 1, "string.format"),
    Op.CALL: OpInfo("CALL", K.CALL, None, 1, "call"),
    Op.CALL_BUILTIN: OpInfo("CALL_BUILTIN", K.BUILTIN, None, 1, "call.builtin"),
    Op.CALL_VALUE: OpInfo("CALL_VALUE", K.COUNT, None, 1, "call.value"),
    Op.RETURN: OpInfo("RETURN", K.NONE, 1, 0, "return", ends_block=True),
    Op.THROW: OpInfo("THROW", K.NONE, 1, 0, "throw", ends_block=True),
    Op.RETHROW: OpInfo("RETHROW", K.NONE, 1, 0, "rethrow", ends_block=True),
    Op.UNREACHABLE: OpInfo("UNREACHABLE", K.NONE, 0, 0, "unreachable", ends_block=True),
    Op.POP: OpInfo("POP", K.NONE, 1, 0, "pop"),
    Op.CARRY_CELL: OpInfo("CARRY_CELL", K.SLOT, 0, 0, "cell.carry"),
}
assert set(_ROWS) == set(Op), "every opcode needs a row"

OPCODES: MappingProxyType[Op, OpInfo] = MappingProxyType(_ROWS)

# MIR binary operators -> opcodes (the emitter's only mapping for operators).
BINARY_OPCODES = MappingProxyType({
    "+": Op.ADD, "-": Op.SUB, "*": Op.MUL, "/": Op.DIV, "%": Op.MOD,
    "&": Op.BIT_AND, "|": Op.BIT_OR, "^": Op.BIT_XOR, "<<": Op.SHL, ">>": Op.SHR,
    "==": Op.EQ, "!=": Op.NE, "<": Op.LT, "<=": Op.LE, ">": Op.GT, ">=": Op.GE,
})
UNARY_OPCODES = MappingProxyType({
    "-": Op.NEG, "!": Op.NOT, "~": Op.BIT_NOT, "truthy": Op.TRUTHY, "is_panic": Op.IS_PANIC,
})


def stack_effect(op: Op, arg: object, argc: int | None = None) -> tuple[int, int]:
    """(pops, pushes) of one instruction; `argc` resolves variable-arity rows."""
    info = OPCODES[op]
    if info.pops is not None:
        return info.pops, info.pushes
    assert argc is not None, f"{info.name} needs its operand count"
    return argc, info.pushes
