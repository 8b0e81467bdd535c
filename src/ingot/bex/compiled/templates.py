"""The concrete Python of each instruction, defined once for both translators.

The compiled tier (`codegen.py`) and the tracked translator (`ingot.symbolic.compiled_tracker`)
emit the same concrete code for an instruction; the tracked one composes it with its shadow
code. Each template takes the operands' Python expressions (and the static facts a translator
has, such as an index known to be an int) and returns an expression or a statement. The binary
operators' template (`binary`) takes each operand's facts (`Operand`: static kind, int range,
constant value; the tracked translator has kinds and constants but no ranges) and gives the
fastest code those facts allow, as one expression and as the statements the compiled tier writes.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, assert_never

from ingot.bex.compiled.operands import OP_RUNTIME, OP_SYMBOL, float_operands, float_order
from ingot.bex.compiled.ranges import FULL, Interval, arith, clip, fits, quotient
from ingot.bex.opcodes import OPCODES, Fast, Kind, Op
from ingot.runtime.values import INT_MAX, INT_MIN

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


_CAPTURE_CELLS = (Op.LOAD_CAPTURE, Op.STORE_CAPTURE, Op.LOAD_CAPTURE_CELL)


def cell(op: Op, arg: int) -> str:
    """The cell a cell instruction reads or writes: the function's captures' (`C`) or a local's."""
    return f"C[{arg}]" if op in _CAPTURE_CELLS else f"l{arg}"


def cell_value(cell_expr: str) -> str:
    """LOAD_DEREF / LOAD_CAPTURE: the value in the cell."""
    return f"{cell_expr}.value"


def set_cell(cell_expr: str, value: str) -> str:
    """STORE_DEREF / STORE_CAPTURE."""
    return f"{cell_expr}.value = {value}"


def new_cell(value: str = "") -> str:
    """A fresh cell (NEW_CELL: empty; CARRY_CELL: holding the old cell's value, for the next iteration)."""
    return f"Cell({value})"


def load_global(arg: int) -> str:
    """LOAD_GLOBAL: the VM's value of global `arg` (a constant's first load runs its initialiser)."""
    return f"_global({arg})"


def length(a: str) -> str:
    """LEN."""
    return f"len({a})"


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


# -- binary operators ----------------------------------------------------------------------------

_LIM = INT_MAX + 1


@dataclass(frozen=True, slots=True)
class Operand:
    """What a translator knows of a binary operator's operand before the program runs."""

    expr: str  # its Python expression
    kind: str = ""  # "int" / "float" / "str" / "bool" / "none" / "other" when known, else ""
    range: Interval = FULL  # an int's bounds (`ranges`; FULL when unknown)
    value: int | None = None  # an int constant's value

    @property
    def bounds(self) -> Interval:
        return (self.value, self.value) if self.value is not None else self.range

    @property
    def nonneg(self) -> bool:
        """An int known to be >= 0."""
        return self.kind == "int" and self.bounds[0] >= 0


@dataclass(frozen=True, slots=True)
class Binary:
    """A binary operator's concrete code: the value of the first arm whose test holds, else `otherwise`."""

    arms: tuple[tuple[str, str], ...]  # (test, value)
    otherwise: str
    kind: str = ""  # the result's static kind ("" when unknown)
    range: Interval = FULL  # an int result's bounds
    branches: bool = False  # the compiled tier writes it as an `if` statement (an int sum's tests)

    @property
    def expr(self) -> str:
        """The code as one Python expression (a conditional expression when there are tests)."""
        return "".join(f"{value} if {test} else " for test, value in self.arms) + self.otherwise

    def lines(self, target: str) -> list[str]:
        """Statements storing the result in `target` (nested lines indented by four spaces)."""
        if not self.branches:
            return [f"{target} = {self.expr}"]
        out: list[str] = []
        for i, (test, value) in enumerate(self.arms):
            out += [f"{'el' if i else ''}if {test}:", f"    {target} = {value}"]
        return [*out, "else:", f"    {target} = {self.otherwise}"]


def binary(op: Op, a: Operand, b: Operand, unchecked: bool = False) -> Binary:
    """BAML's `a op b` as Python, as fast as the operands' facts allow (same results as `ingot.runtime.ops`).

    Ints and floats get the Python operator (the opcode table's `py`) under the guard its `fast`
    column names, the runtime function (`impl`) otherwise; a known kind drops its type test, a
    known range its overflow or sign test. `unchecked`: the loop's version test has ruled out this sum's overflow.
    """
    info = OPCODES[op]
    match info.fast:  # the opcode table's guard for the operator
        case Fast.INT_RANGE:
            return _arith(op, a, b, unchecked)
        case Fast.NONNEG:
            return _division(op, a, b)
        case Fast.ORDER:
            return _order(op, a, b)
        case Fast.EQUALITY:
            return _equality(op, a, b)
        case Fast.NONE:  # the bitwise operators
            return Binary((), _slow(op, a, b), "int" if info.kind is Kind.INT else "")
        case _:
            assert_never(info.fast)


def _slow(op: Op, a: Operand, b: Operand) -> str:
    return f"{OP_RUNTIME[op]}({a.expr}, {b.expr})"


def _type_tests(ty: str, *operands: Operand) -> list[str]:
    return [f"type({x.expr}) is {ty}" for x in operands if x.kind != ty]


def _arith(op: Op, a: Operand, b: Operand, unchecked: bool) -> Binary:
    A, B, sym = a.expr, b.expr, OP_SYMBOL[op]
    fast = f"{A} {sym} {B}"
    if float_operands(a.kind, b.kind):
        floats = _type_tests("float", a, b)
        kind = "float" if a.kind == b.kind == "float" else ""
        return Binary(((" and ".join(floats), fast),) if floats else (), _slow(op, a, b) if floats else fast, kind)
    exact = arith(op, a.bounds, b.bounds)
    ints = a.kind == b.kind == "int"
    if ints and (fits(exact) or unchecked):  # no overflow: the ranges rule it out, or the loop's version test
        return Binary((), fast, "int", clip(*exact))
    if b.value is not None and op != Op.MUL and abs(b.value) < 1 << 40:  # one bound against a constant
        k = b.value
        guard = f"{A} <= {INT_MAX - abs(k)}" if (op == Op.ADD) == (k >= 0) else f"{A} >= {INT_MIN + abs(k)}"
        arms = [(guard if a.kind == "int" else f"type({A}) is int and {guard}", fast)]
    else:
        arms = [(" and ".join([*_type_tests("int", a, b), _in_range(op, a, b)]), "_t")]
    if not (a.kind == "int" or b.kind == "int"):
        arms.append((f"type({A}) is float and type({B}) is float", fast))
    kind, bounds = ("int", clip(*exact)) if ints else ("", FULL)
    return Binary(tuple(arms), _slow(op, a, b), kind, bounds, branches=True)


def _in_range(op: Op, a: Operand, b: Operand) -> str:
    """The range test of `a op b` (binding `_t`): one bound when a non-negative operand rules
    out the other (ints are in range, so `a + b >= a >= INT_MIN` when `b >= 0`)."""
    t = f"(_t := {a.expr} {OP_SYMBOL[op]} {b.expr})"
    lo, hi = arith(op, a.bounds, b.bounds)  # (FULL for what is not known to be an int)
    if lo >= INT_MIN:
        return f"{t} < {_LIM}"
    if hi <= INT_MAX:
        return f"{t} >= {-_LIM}"
    return f"{-_LIM} <= {t} < {_LIM}"


def _division(op: Op, a: Operand, b: Operand) -> Binary:
    """`//` and `%` are BAML's `/` and `%` on a non-negative int and a positive one."""
    tests = _type_tests("int", a, b)
    if not a.nonneg:
        tests.append(f"{a.expr} >= 0")
    if not (b.kind == "int" and b.bounds[0] > 0):
        tests.append(f"{b.expr} > 0")
    fast = f"{a.expr} {OP_SYMBOL[op]} {b.expr}"
    kind, bounds = ("int", quotient(op, a.bounds, b.bounds)) if a.kind == b.kind == "int" else ("", FULL)
    if tests:
        return Binary(((" and ".join(tests), fast),), _slow(op, a, b), kind, bounds)
    return Binary((), fast, kind, bounds)


def _order(op: Op, a: Operand, b: Operand) -> Binary:
    """Two ints compare as Python's; two floats in BAML's total order (NaN after everything)."""
    if float_operands(a.kind, b.kind):
        tests, fast = _type_tests("float", a, b), float_order(op, a.expr, b.expr)
    else:
        tests, fast = _type_tests("int", a, b), f"{a.expr} {OP_SYMBOL[op]} {b.expr}"
    if tests:
        return Binary(((" and ".join(tests), f"({fast})"),), _slow(op, a, b), "bool")
    return Binary((), fast, "bool")


def _equality(op: Op, a: Operand, b: Operand) -> Binary:
    """BAML's strict equality: `==` on two ints or two strings, `is` against a bool or None
    (a literal on the other side goes to the runtime function)."""
    if a.kind and not b.kind:
        a, b = b, a
    A, B, neg = a.expr, b.expr, op == Op.NE
    if a.kind == b.kind and a.kind in ("int", "str"):
        expr = f"{A} {'!=' if neg else '=='} {B}"
    elif b.kind in ("int", "str"):
        expr = f"type({A}) is not {b.kind} or {A} != {B}" if neg else f"type({A}) is {b.kind} and {A} == {B}"
    elif b.kind in ("bool", "none") and not _number_or_text(A):  # (`1 is True`: a SyntaxWarning)
        expr = f"{A} is {'not ' if neg else ''}{B}"
    else:
        expr = f"{'_ne' if neg else '_eq'}({A}, {B})"
    return Binary((), expr, "bool")


def _number_or_text(expr: str) -> bool:
    """Is `expr` an int, float or string literal (which Python warns about next to `is`)?"""
    try:
        value = ast.literal_eval(expr)
    except (ValueError, SyntaxError):
        return False
    return type(value) in (int, float, str)
