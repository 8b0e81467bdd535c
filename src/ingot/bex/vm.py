"""The BEX interpreter: a loop over one function's code, with an explicit frame stack.

Calls push a frame instead of recursing in Python, so BAML recursion depth is
bounded by `max_depth` (a `StackOverflow` panic), not by Python's stack. A
raise (panic or throw) looks for a handler in the current function's
exception table, then unwinds frame by frame; the BAML trace is taken where
the value was first raised.

The loop dispatches on `Op` members (the emitter stores them in the code);
operators without an inline fast path call their runtime definition from the
opcode table. It reads only code, constants and side tables, never the
transfer table: the tracker has its own loop, so a plain run pays nothing for it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, TypeVar

from ingot.bex.calls import (
    check_entry,
    outside_table,
    runs_host,
    stack_overflow,
    value_callee,
    wrong_arity,
)
from ingot.bex.opcodes import BINARY, OPCODES, Op
from ingot.bex.program import PRELUDE_PREFIX, BexFunction, BexProgram, Cell, Closure
from ingot.runtime import limits, ops
from ingot.runtime.errors import BamlError, BamlRaise, Frame, panic
from ingot.runtime.limits import Sizes, join_text
from ingot.runtime.render import render_value
from ingot.runtime.values import INT_MAX, INT_MIN, Instance
from ingot.stdlib import BUILTINS

DEFAULT_MAX_DEPTH = 20_000

# A trace longer than TRACE_HEAD + TRACE_TAIL frames keeps its outermost and innermost frames
# around one that counts the others: a caught stack overflow costs a few hundred objects, not
# twenty thousand. A handler catching a panic charges the run a step per frame of its whole
# trace (the compiled tier walks the stack to build it), so catching panics deep down, again
# and again, cannot outrun the step budget.
TRACE_HEAD = 20
TRACE_TAIL = 40
# Caught values remembered for `rethrow` (to re-raise them with their first trace); past this
# the oldest are forgotten, and rethrowing one of those starts a new trace at the rethrow.
CAUGHT_KEPT = 256

# A stop request: asked every `limits.CHECK_EVERY` steps; a reason (a str) stops the run.
StopRequest = Callable[[], "str | None"]

# Called for every call of an LLM function: (vm, function, arguments) -> the parsed result.
LlmHandler = Callable[["VM", BexFunction, list[Any]], Any]

# The opcodes as module globals: `op is LOAD_LOCAL` is a cached global load, `Op.LOAD_LOCAL` an
# enum attribute lookup per test (several times slower in this loop).
ADD = Op.ADD
BOUND_METHOD = Op.BOUND_METHOD
CALL = Op.CALL
CALL_BUILTIN = Op.CALL_BUILTIN
CALL_VALUE = Op.CALL_VALUE
CARRY_CELL = Op.CARRY_CELL
EQ = Op.EQ
FORMAT = Op.FORMAT
GT = Op.GT
IS_TYPE = Op.IS_TYPE
JUMP = Op.JUMP
LEN = Op.LEN
LOAD_CAPTURE = Op.LOAD_CAPTURE
LOAD_CAPTURE_CELL = Op.LOAD_CAPTURE_CELL
LOAD_CELL = Op.LOAD_CELL
LOAD_CONST = Op.LOAD_CONST
LOAD_DEREF = Op.LOAD_DEREF
LOAD_GLOBAL = Op.LOAD_GLOBAL
LOAD_LOCAL = Op.LOAD_LOCAL
LT = Op.LT
MAKE_ARRAY = Op.MAKE_ARRAY
MAKE_CLOSURE = Op.MAKE_CLOSURE
MAKE_INSTANCE = Op.MAKE_INSTANCE
MAKE_MAP = Op.MAKE_MAP
NEW_CELL = Op.NEW_CELL
POP_JUMP_IF_FALSE = Op.POP_JUMP_IF_FALSE
READ_FIELD = Op.READ_FIELD
READ_INDEX = Op.READ_INDEX
RETHROW = Op.RETHROW
RETURN = Op.RETURN
STORE_CAPTURE = Op.STORE_CAPTURE
STORE_DEREF = Op.STORE_DEREF
STORE_LOCAL = Op.STORE_LOCAL
SUB = Op.SUB
SWITCH = Op.SWITCH
THROW = Op.THROW
UNREACHABLE = Op.UNREACHABLE
WRITE_FIELD = Op.WRITE_FIELD
WRITE_INDEX = Op.WRITE_INDEX

# The operators without an inline fast path here: their runtime definitions, from the opcode table.
BINARY_IMPL: dict[Op, Callable[[Any, Any], Any]] = {
    op: impl for op in BINARY - {Op.ADD, Op.SUB, Op.LT, Op.GT, Op.EQ} if (impl := OPCODES[op].impl) is not None}
UNARY_IMPL: dict[Op, Callable[[Any], Any]] = {
    op: info.impl for op, info in OPCODES.items() if info.pops == 1 and info.impl is not None}

_UNSET = object()
_INITIALISING = object()


class VM:
    """Runs functions of one program. Not thread-safe; cheap to create."""

    def __init__(self, program: BexProgram, max_depth: int = DEFAULT_MAX_DEPTH,
                 max_steps: int | None = None, llm: LlmHandler | None = None, *,
                 timeout: float | None = None, max_memory: int | None = None, sizes: Sizes | None = None,
                 stop: StopRequest | None = None, hosts: Mapping[str, Callable[..., Any]] | None = None) -> None:
        """`max_steps` bounds loop iterations and calls, `timeout` the seconds of a `call`,
        `max_memory` the MiB of resident memory a `call` may add to the process; `sizes` holds
        the string, array and map limits (default: the running context's); `stop` is asked
        every `limits.CHECK_EVERY` steps and a reason it gives ends the run (`Cancelled`).
        Without any of these (the default) the generated code counts no steps at all.
        `hosts` binds functions to Python callables (`Program.bind`): this VM's calls of them
        run the callable; the program itself is never changed, so VMs with other bindings
        can share it."""
        self.program = program
        self.hosts: Mapping[str, Callable[..., Any]] = MappingProxyType(dict(hosts or {}))
        self.outside = outside_table(program, self.hosts)  # per function: its calls leave the bytecode
        self.max_depth = max_depth
        self.max_steps = max_steps
        self.steps = 0
        self.llm = llm
        self.globals: list[Any] = [_UNSET] * len(program.globals)
        self.caught: dict[int, BamlRaise] = {}  # id(value) -> its raise, for `rethrow`
        self.timeout = timeout
        self.max_memory = max_memory
        self.stop = stop
        base = sizes if sizes is not None else limits.current()
        if max_memory is not None:
            base = limits.new_sizes(base.string, base.array, base.map, max_memory)
        self.sizes = base
        self.deadline: float | None = None
        self.periodic = timeout is not None or max_memory is not None or stop is not None
        self.counting = max_steps is not None or self.periodic  # ticks are generated and counted
        self._stopped: BamlRaise | None = None  # the limit panic that ended the run, raised again on every tick
        self._next_check = 0  # the step count at which `tick` looks at the limits
        self._next_periodic = 0

    # -- entry points ---------------------------------------------------------------
    def call(self, fn: BexFunction | Closure, args: list[Any]) -> Any:
        """Run a function to completion within the VM's limits; a value escaping it raises `BamlError`."""
        if self.timeout is not None:
            self.deadline = time.monotonic() + self.timeout
        try:
            with limits.using(self.sizes):
                return self.invoke(fn, args)
        except BamlRaise as e:
            raise BamlError(e.value, e.trace) from None

    def invoke(self, fn: BexFunction | Closure, args: list[Any]) -> Any:
        cells: tuple[Cell, ...] = ()
        if isinstance(fn, Closure):
            fn, args, _, cells = value_callee(fn, args)
        if self.outside[fn.index]:  # the compiled tier has no function for it
            return self.call_external(fn, args)
        return self.run(fn, args, cells)

    def call_external(self, fn: BexFunction, args: list[Any]) -> Any:
        """A call of a function without bytecode: an LLM function or a host (FFI) function."""
        if runs_host(fn, self.hosts):
            return self.call_host(fn, args)
        if self.llm is None:
            raise panic("HostUnavailable",
                        message=f"LLM function `{fn.name}` has no client to call (LLM calls are not "
                                "supported by this runner; pass mocks)")
        return self.llm(self, fn, args)

    def call_host(self, fn: BexFunction, args: list[Any]) -> Any:
        """Run the Python callable bound to a host function; its failures become BAML panics."""
        target = self.hosts.get(fn.name)
        if target is None:
            raise panic("HostUnavailable", resource=fn.name,
                        message=f"host function `{fn.name}` is not bound: call program.bind({fn.name!r}, fn) "
                                "or name a target with @@ingot(host=\"module:callable\") and allow hosts")
        try:
            return target(*args)
        except BamlRaise:
            raise
        except Exception as e:  # noqa: BLE001 - a host failure is the program's panic, not ingot's crash
            raise panic("HostContractViolation", message=f"host function `{fn.name}` raised "
                        f"{type(e).__name__}: {e}", class_name=type(e).__name__, language="python") from None

    def load_global(self, index: int) -> Any:
        value = self.globals[index]
        if value is _UNSET:
            name = self.program.globals[index]
            self.globals[index] = _INITIALISING
            try:
                value = self.invoke(self.program.by_name["$const." + name], [])
            except BaseException:
                self.globals[index] = _UNSET
                raise
            self.globals[index] = value
        elif value is _INITIALISING:
            raise panic("UserPanic", message=f"constant `{self.program.globals[index]}` depends on itself")
        return value

    # -- the loop ---------------------------------------------------------------------
    def run(self, fn: BexFunction, args: list[Any], cells: tuple[Cell, ...] = ()) -> Any:  # noqa: C901
        """Execute `fn`; nested BAML calls push frames onto a local stack."""
        frames: list[tuple[Any, ...]] = []
        code, consts = fn.code, fn.consts
        locals_ = self.enter(fn, args)
        stack: list[Any] = []
        pc = 0
        program = self.program
        functions = program.functions
        outside = self.outside
        builtins = program.builtins
        classes = list(program.classes.values())
        max_depth = self.max_depth - 1
        budget = True if self.counting else None
        add, sub, eq, lt, gt, truthy = ops.add, ops.sub, ops.eq, ops.lt, ops.gt, ops.truthy
        binary_impl, unary_impl = BINARY_IMPL, UNARY_IMPL
        while True:
            try:
                while True:
                    op, arg = code[pc]
                    pc += 1
                    if op is LOAD_LOCAL:
                        stack.append(locals_[arg])
                    elif op is STORE_LOCAL:
                        locals_[arg] = stack.pop()
                    elif op is LOAD_CONST:
                        stack.append(consts[arg])
                    elif op is POP_JUMP_IF_FALSE:
                        v = stack.pop()
                        if v is False or (v is not True and not truthy(v)):
                            pc = arg
                    elif op is JUMP:
                        if arg < pc and budget is not None:
                            self.tick()
                        pc = arg
                    elif op is ADD:
                        b = stack.pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            r = a + b
                            if INT_MIN <= r <= INT_MAX:
                                stack[-1] = r
                                continue
                        stack[-1] = add(a, b)
                    elif op is LT:
                        b = stack.pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a < b
                        else:
                            stack[-1] = lt(a, b)
                    elif op is EQ:
                        b = stack.pop()
                        stack[-1] = eq(stack[-1], b)
                    elif op is SUB:
                        b = stack.pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            r = a - b
                            if INT_MIN <= r <= INT_MAX:
                                stack[-1] = r
                                continue
                        stack[-1] = sub(a, b)
                    elif op is CALL:
                        index, argc = arg
                        callee = functions[index]
                        call_args = stack[len(stack) - argc:] if argc else []
                        if argc:
                            del stack[len(stack) - argc:]
                        if outside[index]:
                            stack.append(self.call_external(callee, call_args))
                            continue
                        if len(frames) >= max_depth:
                            raise stack_overflow()
                        if budget is not None:
                            self.tick()
                        frames.append((fn, code, consts, locals_, stack, pc, cells))
                        fn, code, consts, cells = callee, callee.code, callee.consts, ()
                        locals_ = self.enter(callee, call_args)
                        stack = []
                        pc = 0
                    elif op is RETURN:
                        value = stack.pop()
                        if not frames:
                            return value
                        fn, code, consts, locals_, stack, pc, cells = frames.pop()
                        stack.append(value)
                    elif op is READ_INDEX:
                        i = stack.pop()
                        base = stack[-1]
                        if type(base) is list and type(i) is int and 0 <= i < len(base):
                            stack[-1] = base[i]
                        else:
                            stack[-1] = read_index(base, i)
                    elif op is READ_FIELD:
                        stack[-1] = stack[-1].fields[arg]
                    elif op is LEN:
                        stack[-1] = len(stack[-1])
                    elif op is CALL_BUILTIN:
                        index, argc = arg
                        call_args = stack[len(stack) - argc:] if argc else []
                        if argc:
                            del stack[len(stack) - argc:]
                        stack.append(builtins[index](*call_args))
                    elif op is GT:
                        b = stack.pop()
                        a = stack[-1]
                        stack[-1] = a > b if type(a) is int and type(b) is int else gt(a, b)
                    elif op in binary_impl:  # the other operators: the runtime's definition
                        b = stack.pop()
                        stack[-1] = binary_impl[op](stack[-1], b)
                    elif op in unary_impl:
                        stack[-1] = unary_impl[op](stack[-1])
                    elif op is LOAD_DEREF:
                        stack.append(locals_[arg].value)
                    elif op is STORE_DEREF:
                        locals_[arg].value = stack.pop()
                    elif op is LOAD_CAPTURE:
                        stack.append(cells[arg].value)
                    elif op is STORE_CAPTURE:
                        cells[arg].value = stack.pop()
                    elif op is NEW_CELL:
                        locals_[arg] = Cell()
                    elif op is LOAD_CELL:
                        stack.append(locals_[arg])
                    elif op is LOAD_CAPTURE_CELL:
                        stack.append(cells[arg])
                    elif op is LOAD_GLOBAL:
                        stack.append(self.load_global(arg))
                    elif op is WRITE_FIELD:
                        value = stack.pop()
                        stack.pop().fields[arg] = value
                    elif op is WRITE_INDEX:
                        value = stack.pop()
                        i = stack.pop()
                        write_index(stack.pop(), i, value)
                    elif op is SWITCH:
                        v = stack.pop()
                        table, otherwise = fn.switch_tables[arg]
                        pc = table.get((type(v), v), otherwise)
                    elif op is IS_TYPE:
                        stack[-1] = fn.type_tests[arg](stack[-1])
                    elif op is MAKE_ARRAY:
                        if arg:
                            items = stack[len(stack) - arg:]
                            del stack[len(stack) - arg:]
                            stack.append(items)
                        else:
                            stack.append([])
                    elif op is MAKE_MAP:
                        n = 2 * arg
                        flat = stack[len(stack) - n:] if n else []
                        if n:
                            del stack[len(stack) - n:]
                        stack.append({flat[i]: flat[i + 1] for i in range(0, n, 2)})
                    elif op is MAKE_INSTANCE:
                        cls = classes[arg]
                        n = len(cls.field_names)
                        values = stack[len(stack) - n:] if n else []
                        if n:
                            del stack[len(stack) - n:]
                        stack.append(Instance(cls, values))
                    elif op is MAKE_CLOSURE:
                        target = functions[arg]
                        n = target.n_captures
                        captured = tuple(stack[len(stack) - n:]) if n else ()
                        if n:
                            del stack[len(stack) - n:]
                        stack.append(Closure(target, captured))
                    elif op is BOUND_METHOD:
                        stack[-1] = Closure(functions[arg], (), stack[-1], True)
                    elif op is FORMAT:
                        shape = fn.formats[arg]
                        n = shape.count(None)
                        values = stack[len(stack) - n:] if n else []
                        if n:
                            del stack[len(stack) - n:]
                        it = iter(values)
                        stack.append(join_text([p if p is not None else render_value(next(it)) for p in shape]))
                    elif op is CALL_VALUE:
                        argc = arg
                        call_args = stack[len(stack) - argc:] if argc else []
                        if argc:
                            del stack[len(stack) - argc:]
                        callee, call_args, _, callee_cells = value_callee(stack.pop(), call_args)
                        if outside[callee.index]:
                            stack.append(self.call_external(callee, call_args))
                            continue
                        check_entry(len(frames), max_depth, callee, len(call_args), self.tick if budget else None)
                        frames.append((fn, code, consts, locals_, stack, pc, cells))
                        fn, code, consts, cells = callee, callee.code, callee.consts, callee_cells
                        locals_ = self.enter(callee, call_args)
                        stack = []
                        pc = 0
                    elif op is THROW:
                        raise BamlRaise(stack.pop())
                    elif op is RETHROW:
                        value = stack.pop()
                        raise self.pending_rethrow(value)
                    elif op is UNREACHABLE:
                        raise panic("Unreachable", message="entered unreachable code")
                    elif op is CARRY_CELL:
                        locals_[arg] = Cell(locals_[arg].value)
                    else:
                        raise AssertionError(f"unknown opcode {op}")
            except BamlRaise as exc:
                if not exc.trace:
                    exc.trace = self.error_trace(frames, fn, pc)
                while True:
                    handler = fn.handler_at(pc - 1)
                    if handler is not None:
                        locals_[handler.slot] = handler.slot_value(exc.value)
                        self.remember_caught(exc)
                        stack = []
                        pc = handler.target
                        break
                    if not frames:
                        raise
                    fn, code, consts, locals_, stack, pc, cells = frames.pop()
            except RecursionError:
                raise stack_overflow() from None

    def pending_rethrow(self, value: Any) -> BamlRaise:
        """Re-raise a caught value with the trace it had when first raised."""
        original = self.caught.pop(id(value), None)
        if original is not None and original.value is value:
            return BamlRaise(value, original.trace)
        return BamlRaise(value)

    def enter(self, fn: BexFunction, args: list[Any]) -> list[Any]:
        """A new frame's slots: _0, the arguments, then empty locals."""
        if len(args) != fn.arity:
            raise wrong_arity(fn, len(args))
        locals_ = [None, *args]
        locals_.extend([None] * (fn.n_locals - fn.arity - 1))
        for slot in fn.cell_params:
            locals_[slot] = Cell(locals_[slot])
        return locals_

    def remember_caught(self, exc: BamlRaise) -> None:
        """A handler caught `exc`: charge its trace's frames as steps (see TRACE_HEAD) and keep it
        for `rethrow`; the oldest go past `CAUGHT_KEPT`."""
        self.steps += sum(f.omitted or 1 for f in exc.trace)
        caught = self.caught
        caught[id(exc.value)] = exc
        if len(caught) > CAUGHT_KEPT:
            del caught[next(iter(caught))]

    def tick(self) -> None:
        """One step (a backward jump or a call): count it; now and then look at the limits."""
        self.steps += 1
        if self.steps >= self._next_check:
            self.check_limits()

    def check_limits(self) -> None:
        """Raise the panic of the first limit passed; once stopped, every later tick raises again
        (with the first trace), so a `catch` cannot outlive a limit."""
        if self._stopped is not None:
            self._next_check = 0
            raise BamlRaise(self._stopped.value, self._stopped.trace)
        if self.max_steps is not None and self.steps > self.max_steps:
            raise self.stopped(panic("InstructionLimit", message=f"instruction budget of {self.max_steps} "
                                     "exceeded (max_steps)"))
        if self.periodic and self.steps >= self._next_periodic:
            self._next_periodic = self.steps + limits.CHECK_EVERY
            reason = self.stop() if self.stop is not None else None
            if reason is None and self.deadline is not None and time.monotonic() > self.deadline:
                reason = f"time limit of {self.timeout:g} s exceeded (timeout)"
            if reason is not None:
                raise self.stopped(panic("Cancelled", message=reason))
            self.sizes.check_memory()
        ends = self.max_steps + 1 if self.max_steps is not None else 2**62
        self._next_check = min(ends, self._next_periodic) if self.periodic else ends

    def stopped(self, exc: BamlRaise) -> BamlRaise:
        self._stopped = exc
        self._next_check = 0
        return exc

    def error_trace(self, frames: list[tuple[Any, ...]], fn: BexFunction, pc: int) -> list[Frame]:
        entries = [(f[0], f[5]) for f in frames]
        entries.append((fn, pc))
        return bounded_trace(entries, lambda e: e[0], lambda e: Frame(e[0].qualified, e[0].file, e[0].line_at(e[1] - 1)))



def read_index(base: Any, index: Any) -> Any:
    if isinstance(base, list):
        return _ARRAY_GET(base, index)
    return _MAP_GET(base, index)


def write_index(base: Any, index: Any, value: Any) -> None:
    if isinstance(base, list):
        _ARRAY_SET(base, index, value)
    else:
        _MAP_SET(base, index, value)


_ARRAY_GET = BUILTINS["array.get_index"]
_ARRAY_SET = BUILTINS["array.set_index"]
_MAP_GET = BUILTINS["map.get_index"]
_MAP_SET = BUILTINS["map.set_index"]


E = TypeVar("E")


def bounded_trace(entries: list[E], function_of: Callable[[E], BexFunction], frame_of: Callable[[E], Frame]) -> list[Frame]:
    """The trace of a stack given outermost first: prelude frames left out (unless nothing else is
    left), at most TRACE_HEAD + TRACE_TAIL frames built, the others counted by one marker frame."""
    prelude = PRELUDE_PREFIX
    user = [e for e in entries if not function_of(e).qualified.startswith(prelude)] or entries
    if len(user) <= TRACE_HEAD + TRACE_TAIL:
        return [frame_of(e) for e in user]
    omitted = len(user) - TRACE_HEAD - TRACE_TAIL
    return ([frame_of(e) for e in user[:TRACE_HEAD]] + [Frame("...", "", 0, omitted)]
            + [frame_of(e) for e in user[-TRACE_TAIL:]])


def user_frames(frames: list[Frame]) -> list[Frame]:
    """A trace without the prelude's frames (its functions are built-ins to the user), unless
    nothing else is left."""
    return [f for f in frames if not f.function.startswith(PRELUDE_PREFIX)] or frames
