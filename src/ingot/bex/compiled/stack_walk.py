"""One abstract walk of a block's operand stack, shared by every static pass over the bytecode.

The compiled tier's analyses (`kinds.py`: stored values, array element stores; `ranges.py`:
int intervals) and the tracked translator's symbolic-slots pass each give an abstract value
per stack slot; what differs between them is only what an instruction pushes. `walk_block`
pops each instruction's operands (`stack_effect` through `pops`), hands them to the pass's
transfer function and pushes its answer where the opcode table says the instruction pushes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ingot.bex.opcodes import OPCODES, Op

# transfer(pc, op, arg, operands, stack) -> the pushed value (ignored when `op` pushes nothing);
# `stack` is what remains below the operands, which the pass may rewrite in place
Transfer = Callable[[int, Op, Any, list[Any], list[Any]], Any]


def walk_block(code: list[tuple[Op, Any]], start: int, end: int, stack: list[Any],
               pops: Callable[[Op, Any], int], transfer: Transfer) -> list[Any]:
    """Run `transfer` over `code[start:end]` from the abstract `stack` (consumed); the stack at the end."""
    for pc in range(start, end):
        op, arg = code[pc]
        n = pops(op, arg)
        args = stack[len(stack) - n:] if n else []
        if n:
            del stack[len(stack) - n:]
        value = transfer(pc, op, arg, args, stack)
        if OPCODES[op].pushes:
            stack.append(value)
    return stack
