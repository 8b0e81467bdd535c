"""The disassembler (`ingot dis`): offset, instruction, operand, and where it came from.

Lines look like CPython's `dis`: the source line is shown when it changes;
each instruction also names its MIR origin (`bb2[1]`, `bb2[T]` for the
terminator) and its transfer operation.
"""

from __future__ import annotations

from typing import Any

from ingot.bex.opcodes import OPCODES, Op, Operand
from ingot.bex.program import PRELUDE_PREFIX, BexFunction, BexProgram


def operand_text(program: BexProgram, fn: BexFunction, op: Op, arg: Any) -> str:
    kind = OPCODES[op].operand
    if kind is Operand.NONE:
        return ""
    if kind is Operand.CONST:
        return f"{arg} ({fn.consts[arg]!r})"
    if kind is Operand.TARGET:
        return f"-> {arg}"
    if kind is Operand.CALL:
        index, argc = arg
        return f"{program.functions[index].name}/{argc}"
    if kind is Operand.BUILTIN:
        index, argc = arg
        return f"{program.builtin_keys[index]}/{argc}"
    if kind is Operand.FUNCTION:
        return program.functions[arg].name
    if kind is Operand.CLASS:
        return list(program.classes.values())[arg].name
    if kind is Operand.GLOBAL:
        return program.globals[arg]
    if kind is Operand.TABLE and op is Op.SWITCH:
        table, otherwise = fn.switch_tables[arg]
        cases = ", ".join(f"{v!r} -> {t}" for (_, v), t in table.items())
        return f"[{cases}; otherwise -> {otherwise}]"
    return str(arg)


def disassemble(program: BexProgram, fn: BexFunction) -> str:
    lines = [f"function {fn.name} (arity {fn.arity}, {fn.n_locals} slots, {len(fn.code)} instructions)"]
    if fn.kind == "llm":
        lines.append("    <LLM function: no bytecode; calls go to the LLM client>")
        return "\n".join(lines)
    last_line = -1
    starts: dict[int, int] = {}
    for b, pc in enumerate(fn.block_starts):
        starts.setdefault(pc, b)  # an empty block shares its pc with the next one
    for pc, (op_code, arg) in enumerate(fn.code):
        op = Op(op_code)
        rec = fn.transfer[pc]
        line = fn.lines[pc]
        shown_line = f"{line:>4}" if line != last_line else "    "
        last_line = line
        label = f"bb{starts[pc]}:" if pc in starts else ""
        _, block, index = rec.mir
        origin = f"bb{block}[{'T' if index < 0 else index}]"
        lines.append(f"{shown_line} {label:>6} {pc:>4}  {op.name:<18} {operand_text(program, fn, op, arg):<28}"
                     f" ; {origin} {rec.op}")
    for h in fn.handlers:
        ranges = ", ".join(f"{a}..{b}" for a, b in h.ranges)
        lines.append(f"    handler: [{ranges}] -> {h.target} (error in slot {h.slot})")
    return "\n".join(lines)


def disassemble_program(program: BexProgram, only: str | None = None) -> str:
    out = []
    for fn in program.functions:
        if only is not None and fn.name != only and not fn.name.startswith(only + ".$lambda"):
            continue
        if only is None and fn.name.startswith(PRELUDE_PREFIX):
            continue
        out.append(disassemble(program, fn))
    return "\n\n".join(out)
