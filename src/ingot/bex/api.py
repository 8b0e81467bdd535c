"""The public door to BEX for executors and runtimes built on it.

The trackers (`ingot.symbolic`), the explorer (`ingot.concolic`), the pack tracer
(`ingot.pack`), the annotation layer (`ingot.meta`) and the coverage replay
(`ingot.coverage`) reach the bytecode, the opcode table, the interpreter and the
compiled tier only through this module (an import-linter contract enforces it):
what is listed here is what they may build on; everything else in `ingot.bex` may
change without notice.
"""

from __future__ import annotations

from ingot.bex.calls import (
    check_entry,
    leaves_bytecode,
    not_callable,
    runs_host,
    stack_overflow,
    value_callee,
    wrong_arity,
)
from ingot.bex.compiled import (
    STATIC_NAMES,
    FunctionTranslator,
    Translation,
    ensure_recursion_limit,
    inline_builtin,
    literal,
    make_catch,
    run_entry,
    run_guarded,
    templates,
    translate,
)
from ingot.bex.opcodes import (
    ARITH,
    BINARY,
    OPCODES,
    ORDER,
    Shadow,
)
from ingot.bex.program import (
    PRELUDE_PREFIX,
    BexFunction,
    BexProgram,
    Cell,
    Closure,
    Op,
)
from ingot.bex.vm import (
    VM,
    bounded_trace,
    read_index,
    write_index,
)

__all__ = [
    "ARITH",
    "BINARY",
    "BexFunction",
    "BexProgram",
    "Cell",
    "Closure",
    "FunctionTranslator",
    "OPCODES",
    "ORDER",
    "Op",
    "PRELUDE_PREFIX",
    "STATIC_NAMES",
    "Shadow",
    "Translation",
    "VM",
    "bounded_trace",
    "check_entry",
    "ensure_recursion_limit",
    "inline_builtin",
    "leaves_bytecode",
    "literal",
    "make_catch",
    "not_callable",
    "read_index",
    "run_entry",
    "run_guarded",
    "runs_host",
    "stack_overflow",
    "templates",
    "translate",
    "value_callee",
    "write_index",
    "wrong_arity",
]
