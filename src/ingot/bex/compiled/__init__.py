"""The compiled tier: each BEX function translated to a Python function.

The translator reads only the bytecode and its side tables (the opcode table
gives every instruction's stack effect and operator templates). Modules:
`cfg` (control-flow recovery), `kinds` (kind inference), `ranges` (int
intervals), `layout` (arms as structured code or a dispatch), `codegen` (code
generation), `templates` (the concrete code of each instruction, shared with
the tracked translator), `operands` (literals, inlined built-ins, the float
order), `steps` (step counting),
`translation` (the per-program cache), `runtime` (`CompiledVM`). Per program it generates one Python
module: one `def` per BAML function, compiled once with `compile()` and cached
(per program, and per budget mode: with `max_steps` set, backward jumps and
calls tick the budget exactly as the interpreter does, in Python locals inside
a function with loops (`steps`); without, no tick code exists at all). Each
`CompiledVM` executes that module in its own namespace,
so VM options (`max_depth`, `llm`, ...) are plain globals of the generated code.

Translation:

- The operand stack disappears: its depth is static (BEX is stack-balanced per
  block), loads of locals and constants stay symbolic until used, other
  results live in Python locals `s0, s1, ...`; BAML locals are Python locals
  `l0, l1, ...` (captured ones hold `Cell` objects, as in the interpreter).
- Control flow (`cfg`): basic blocks in reverse postorder, a block with one
  predecessor inlined into it. Where every remaining jump is structured (to
  the next arm, to the innermost loop's header, or just past that loop) the
  function is plain code: loops are `while True:` with `continue`/`break`,
  branches are `if`/`else`, there is no `pc`; a counted loop (`i < n` with `n`
  invariant and `i += 1` its only back edge) is `for i in range(i, n)`. Otherwise (handlers, switches,
  irreducible flow) the arms are a `while True` dispatch over `pc`, small
  blocks ending in a jump copied into their predecessors, each innermost loop
  in its own nested `while True`.
- Ints, floats and bools get inline fast paths from the operator templates
  (`templates.binary`, the opcode table's symbols: `a + b` with the 63-bit
  range check, BAML's total float order, ...). `kinds` finds the locals that only ever hold an int, a float or a
  bool (their type tests go), the never-negative ints (no sign test before
  `/`, `%`), the locals that only hold an array the function made (indexed
  without type tests: Python's `IndexError` is the bounds test) and the
  element kind of those arrays that never escape; `ranges` gives int locals
  intervals per block (dominating branches, copies, stores, accesses that
  did not panic), and an overflow or sign test the intervals rule out goes.
  An innermost counted loop with sums also has a copy without the sums'
  overflow tests, chosen by a test at its entry. A temporary that is stored and read once
  right away never leaves the stack; a store into a local nothing reads is
  dropped.
- Blocks covered by an exception handler are wrapped in
  `try/except BamlRaise`, which stores the value in the handler's slot and
  jumps to the handler block.
- Calls are Python calls carrying the BAML depth `d`; a call at depth
  `max_depth` panics `StackOverflow` in the caller, like the interpreter.
- Traces are rebuilt from Python frames (each generated line maps to the BEX
  instruction it implements), so the happy path pays nothing for them.
"""

from ingot.bex.compiled.codegen import FunctionTranslator
from ingot.bex.compiled.operands import inline_builtin, literal
from ingot.bex.compiled.runtime import (
    STATIC_NAMES,
    CompiledVM,
    ensure_recursion_limit,
    make_catch,
    run_entry,
    run_guarded,
)
from ingot.bex.compiled.translation import Translation, source_of, translate

__all__ = ["CompiledVM", "FunctionTranslator", "Translation", "translate", "source_of", "run_entry", "run_guarded",
           "make_catch", "ensure_recursion_limit", "STATIC_NAMES", "literal", "inline_builtin"]
