"""A compiled BEX program: functions with bytecode and their side tables.

The side tables of a function run parallel to its code: `transfer[i]` says
what instruction i means (its MIR origin, its operation, its stack effect,
its source span) and `lines[i]` its source line. The plain VM never reads
`transfer`; the tracker and the disassembler do.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ingot.bex.opcodes import Op
from ingot.mir.ir import PRELUDE_PREFIX
from ingot.runtime.values import ClassInfo, EnumInfo
from ingot.semantics.types import Ty
from ingot.syntax.diagnostics import Span


@dataclass(frozen=True, slots=True)
class TransferRecord:
    """What one instruction means: its MIR origin and semantic operation."""

    mir: tuple[str, int, int]  # (function, block, statement index; -1 = the terminator)
    op: str  # "arith.add", "field.get Rect.w", "call Fib", "branch", ...
    pops: int
    pushes: int
    span: Span | None


@dataclass(frozen=True, slots=True)
class Handler:
    """An exception-table entry: raises at pc in `ranges` go to `target` with the error in `slot`."""

    ranges: tuple[tuple[int, int], ...]
    target: int
    slot: int
    slot_kind: str  # "local" or "cell"

    def covers(self, pc: int) -> bool:
        return any(a <= pc < b for a, b in self.ranges)

    def slot_value(self, value: Any) -> Any:
        """What the handler's slot holds once it caught `value` (a new cell when closures capture it)."""
        return Cell(value) if self.slot_kind == "cell" else value


@dataclass(eq=False, slots=True)
class BexFunction:
    name: str  # item name: "F", "Counter.bump", "F.$lambda0"
    qualified: str  # as traces print it: "user.F"
    index: int
    arity: int
    n_locals: int
    kind: str = "body"  # "body", "llm" or "host" (declared `@@ingot(host)`); never changed after emission
    code: list[tuple[Op, Any]] = field(default_factory=list)
    consts: list[Any] = field(default_factory=list)
    transfer: list[TransferRecord] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    handlers: list[Handler] = field(default_factory=list)
    cell_params: tuple[int, ...] = ()  # parameter slots that closures capture (wrapped at entry)
    switch_tables: list[tuple[dict[Any, int], int]] = field(default_factory=list)  # key -> pc
    switch_blocks: list[tuple[dict[Any, int], int]] = field(default_factory=list)  # key -> MIR block
    type_tests: list[Callable[[Any], bool]] = field(default_factory=list)
    formats: list[tuple[str | None, ...]] = field(default_factory=list)  # None marks an operand
    block_starts: list[int] = field(default_factory=list)  # pc of each MIR block (-1: not emitted)
    file: str = ""
    n_captures: int = 0
    param_names: list[str] = field(default_factory=list)
    param_types: list[Ty] = field(default_factory=list)
    ret: Ty | None = None
    synthetic: bool = False

    def handler_at(self, pc: int) -> Handler | None:
        """The handler that catches a raise at `pc` (the first listed that covers it), if any."""
        for h in self.handlers:
            if h.covers(pc):
                return h
        return None

    def line_at(self, pc: int) -> int:
        if 0 <= pc < len(self.lines):
            return self.lines[pc]
        return self.lines[-1] if self.lines else 0


class Cell:
    """A captured variable shared between a frame and its closures."""

    __slots__ = ("value",)

    def __init__(self, value: Any = None) -> None:
        self.value = value

    def __repr__(self) -> str:
        return f"Cell({self.value!r})"


@dataclass(eq=False, slots=True, repr=False)  # its own __repr__ below
class Closure:
    """A function value: a function plus the cells it captured."""

    function: BexFunction
    cells: tuple[Cell, ...] = ()
    receiver: Any = None  # a bound method's receiver
    bound: bool = False

    def __repr__(self) -> str:
        return f"<fn {self.function.name}>"


@dataclass(slots=True)
class BexProgram:
    functions: list[BexFunction]
    by_name: dict[str, BexFunction]
    classes: dict[str, ClassInfo]  # by the checker's name ("Point", "baml.panics.X")
    enums: dict[str, EnumInfo]
    globals: list[str]  # const names; initialiser is by_name["$const." + name]
    builtin_keys: list[str]
    builtins: list[Callable[..., Any]]
    tests: list[tuple[str, str | None, str]]
    file: str = "main.baml"
    # Host (FFI) functions declared in source: name -> the target it names ("pkg.mod:callable") or
    # None. The Python callables bound to functions are not the program's: each VM receives its
    # own table (`VM(hosts=...)`), so the program stays as the emitter left it.
    host_targets: dict[str, str | None] = field(default_factory=dict)
    # The compiled tier's translations of this program, by variant (`ingot.bex.compiled.translate`):
    # they live and die with the program, and a VM's bindings select an entry instead of clearing one.
    translations: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def reachable(self) -> list[BexFunction]:
        """The functions a run can enter: every function but the prelude's, and the prelude
        functions they reference (calls, closures, bound methods), transitively.

        The prelude is compiled into every program but most programs use none of it; the
        compiled tier translates only these, so a program pays for what it calls. A
        function can only be entered through a reference in some bytecode (or by name as
        an entry point, which no prelude function is), so nothing outside this set runs.
        """
        todo = [fn for fn in self.functions if not fn.name.startswith(PRELUDE_PREFIX)]
        seen = {fn.index for fn in todo}
        while todo:
            fn = todo.pop()
            for op, arg in fn.code:
                if op == Op.CALL:
                    index = arg[0]
                elif op == Op.MAKE_CLOSURE or op == Op.BOUND_METHOD:
                    index = arg
                else:
                    continue
                if index not in seen:
                    seen.add(index)
                    todo.append(self.functions[index])
        return [fn for fn in self.functions if fn.index in seen]

