"""The compiled tier: each BEX function translated to a Python function.

The translator reads only the bytecode and its side tables (the opcode table
gives every instruction's stack effect). Per program it generates one Python
module: one `def` per BAML function, compiled once with `compile()` and cached
(per program, and per budget mode: with `max_steps` set, backward jumps and
calls tick the budget exactly as the interpreter does; without, no tick code
exists at all). Each `CompiledVM` executes that module in its own namespace,
so VM options (`max_depth`, `llm`, ...) are plain globals of the generated code.

Translation:

- The operand stack disappears: its depth is static (BEX is stack-balanced per
  block), loads of locals and constants stay symbolic until used, other
  results live in Python locals `s0, s1, ...`; BAML locals are Python locals
  `l0, l1, ...` (captured ones hold `Cell` objects, as in the interpreter).
- Basic blocks are laid out in reverse postorder as arms of a `while True`
  dispatch over `pc`: an arm falls through to the next, forward jumps skip
  arms, backward jumps `continue`. A block with one predecessor is inlined
  into it (so loop-free functions become plain if/else code), small blocks
  ending in a jump are copied into their predecessors, and each innermost
  loop runs in its own nested `while True`.
- Ints, floats and bools get inline fast paths (`a + b` with the 63-bit range
  check, BAML's total float order, ...). A flow-insensitive pass finds the
  locals that only ever hold an int, a float or a bool (from the declared
  parameter types, constants and operators), and their type tests go away.
  A temporary that is stored and read once right away never leaves the stack.
- Blocks covered by an exception handler are wrapped in
  `try/except BamlRaise`, which stores the value in the handler's slot and
  jumps to the handler block.
- Calls are Python calls carrying the BAML depth `d`; a call at depth
  `max_depth` panics `StackOverflow` in the caller, like the interpreter.
- Traces are rebuilt from Python frames (each generated line maps to the BEX
  instruction it implements), so the happy path pays nothing for them.
"""

from ingot.bex.compiled.codegen import (
    OP_RUNTIME,
    OP_SYMBOL,
    FunctionTranslator,
    float_operands,
    float_order,
    inline_builtin,
    literal,
)
from ingot.bex.compiled.runtime import STATIC_NAMES, CompiledVM, make_catch, run_entry
from ingot.bex.compiled.translation import Translation, forget, source_of, translate

__all__ = ["CompiledVM", "FunctionTranslator", "Translation", "translate", "source_of", "forget", "run_entry",
           "make_catch", "STATIC_NAMES", "literal", "inline_builtin", "OP_RUNTIME", "OP_SYMBOL", "float_operands",
           "float_order"]
