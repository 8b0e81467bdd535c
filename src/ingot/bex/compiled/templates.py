"""The concrete Python of each instruction, defined once for both translators.

The compiled tier (`codegen.py`) and the tracked translator (`ingot.symbolic.compiled_tracker`)
emit the same concrete code for an instruction; the tracked one composes it with its shadow
code. Each template takes the operands' Python expressions (and the static facts a translator
has, such as an index known to be an int) and returns an expression or a statement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ingot.bex.opcodes import Op
from ingot.runtime.values import INT_MIN

if TYPE_CHECKING:
    from ingot.bex.compiled.translation import Translation
    from ingot.bex.program import BexFunction

# the statement a block-ending instruction is, given its operand (None: it has none)
RAISES = {Op.THROW: "raise BamlRaise({})", Op.RETHROW: "raise _rethrow({})", Op.UNREACHABLE: "raise _unreachable()"}
# a call of a BAML function past the depth limit panics (tested before the call)
DEPTH_TEST = "if d >= MAXD: raise _overflow()"


def truthy(expr: str, kind: str) -> str:
    """BAML's truth of a value: a bool is its own; anything else through the runtime, bools tested first.

    An operand that is no plain name (a literal, an index) goes straight to the runtime:
    `0 is True` is legal Python but a SyntaxWarning on every compile.
    """
    if kind == "bool":
        return expr
    if not expr.isidentifier():
        return f"_truthy({expr})"
    return f"({expr} is True or ({expr} is not False and _truthy({expr})))"


def falsy(expr: str, kind: str) -> str:
    """`not truthy(expr)`, with the same fast tests (a conditional jump's condition, NOT's result)."""
    if kind == "bool":
        return f"not {expr}"
    if not expr.isidentifier():
        return f"not _truthy({expr})"
    return f"{expr} is False or ({expr} is not True and not _truthy({expr}))"


def make_array(items: list[str]) -> str:
    return f"[{', '.join(items)}]"


def make_map(flat: list[str]) -> str:
    """A map from its keys and values, alternating."""
    return "{" + ", ".join(f"{flat[i]}: {flat[i + 1]}" for i in range(0, len(flat), 2)) + "}"


def make_instance(mod: Translation, arg: int, items: list[str]) -> str:
    cls = list(mod.program.classes.values())[arg]
    return f"Instance({mod.const_name(cls, f'cls{arg}')}, [{', '.join(items)}])"


def instance_size(mod: Translation, arg: int) -> int:
    """How many operands `MAKE_INSTANCE arg` takes: the class's fields."""
    return len(list(mod.program.classes.values())[arg].field_names)


def make_closure(mod: Translation, arg: int, items: list[str]) -> str:
    name = mod.const_name(mod.program.functions[arg], f"fn{arg}")
    return f"Closure({name}, ({''.join(x + ', ' for x in items)}))"


def bound_method(mod: Translation, arg: int, receiver: str) -> str:
    name = mod.const_name(mod.program.functions[arg], f"fn{arg}")
    return f"Closure({name}, (), {receiver}, True)"


def read_field(obj: str, arg: int) -> str:
    return f"{obj}.fields[{arg}]"


def write_field(obj: str, arg: int, value: str) -> str:
    return f"{obj}.fields[{arg}] = {value}"


def negate(a: str) -> str:
    """BAML's `-a`: Python's on an int other than the least (whose negation overflows)."""
    return f"-{a} if type({a}) is int and {a} != {INT_MIN} else _neg({a})"


def is_type(mod: Translation, fn: BexFunction, arg: int, a: str) -> str:
    return f"{type_test(mod, fn, arg)}({a})"


def type_test(mod: Translation, fn: BexFunction, arg: int) -> str:
    """The name of `IS_TYPE arg`'s test function."""
    return mod.const_name(fn.type_tests[arg], f"tt{fn.index}_{arg}")


def switch(mod: Translation, fn: BexFunction, arg: int, value: str) -> list[str]:
    """SWITCH: the table's target (else the otherwise) becomes `pc`, and the dispatch loop goes on."""
    table, otherwise = fn.switch_tables[arg]
    name = mod.const_name(table, f"sw{fn.index}_{arg}")
    return [f"pc = {name}.get((type({value}), {value}), {otherwise})", "continue"]


def format_text(shape: tuple[Any, ...], values: list[str]) -> str:
    """FORMAT: the literal parts and the rendered values joined (`_join` checks the size)."""
    it = iter(values)
    parts = [repr(p) if p is not None else f"_render({next(it)})" for p in shape]
    if not parts:
        return "''"
    if len(parts) == 1 and shape[0] is not None:
        return parts[0]
    return f"_join(({', '.join(parts)},))"


def index_guard(base: str, index: str, index_kind: str) -> str:
    """The test under which `base[index]` is Python's indexing: a list and an in-range int."""
    ichk = "" if index_kind == "int" else f" and type({index}) is int"
    return f"type({base}) is list{ichk} and 0 <= {index} < len({base})"


def call_function(index: int, captures: str, args: list[str]) -> str:
    """A call of BAML function `index`'s generated code (after `DEPTH_TEST`)."""
    return f"f{index}(d + 1, {captures}{''.join(', ' + x for x in args)})"
