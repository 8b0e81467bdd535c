"""The BEX interpreter: a loop over one function's code, with an explicit frame stack.

Calls push a frame instead of recursing in Python, so BAML recursion depth is
bounded by `max_depth` (a `StackOverflow` panic), not by Python's stack. A
raise (panic or throw) looks for a handler in the current function's
exception table, then unwinds frame by frame; the BAML trace is taken where
the value was first raised.

The plain loop reads only code, constants and side tables; it never looks at
the transfer table. Observers (the tracker) attach through `ingot.bex.hooks`
and get their own loop, so a plain run pays nothing for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ingot.bex.program import PRELUDE_PREFIX, BexFunction, BexProgram, Cell, Closure
from ingot.runtime import ops
from ingot.runtime.errors import BamlError, BamlRaise, Frame, is_panic_value, panic
from ingot.runtime.render import render_value
from ingot.runtime.values import INT_MAX, INT_MIN, Instance
from ingot.stdlib import BUILTINS

DEFAULT_MAX_DEPTH = 20_000

# Called for every call of an LLM function: (vm, function, arguments) -> the parsed result.
LlmHandler = Callable[["VM", BexFunction, list[Any]], Any]

_UNSET = object()
_INITIALISING = object()


class VM:
    """Runs functions of one program. Not thread-safe; cheap to create."""

    def __init__(self, program: BexProgram, max_depth: int = DEFAULT_MAX_DEPTH,
                 max_steps: int | None = None, llm: LlmHandler | None = None) -> None:
        self.program = program
        self.max_depth = max_depth
        self.max_steps = max_steps
        self.steps = 0
        self.llm = llm
        self.globals: list[Any] = [_UNSET] * len(program.globals)
        self.caught: dict[int, BamlRaise] = {}  # id(value) -> its raise, for `rethrow`

    # -- entry points ---------------------------------------------------------------
    def call(self, fn: BexFunction | Closure, args: list[Any]) -> Any:
        """Run a function to completion; a value escaping it raises `BamlError`."""
        try:
            return self.invoke(fn, args)
        except BamlRaise as e:
            raise BamlError(e.value, e.trace) from None

    def invoke(self, fn: BexFunction | Closure, args: list[Any]) -> Any:
        cells: tuple[Cell, ...] = ()
        if isinstance(fn, Closure):
            cells = fn.cells
            if fn.bound:
                args = [fn.receiver, *args]
            fn = fn.function
        if fn.kind == "llm":
            return self.call_external(fn, args)
        return self.run(fn, args, cells)

    def call_external(self, fn: BexFunction, args: list[Any]) -> Any:
        """A call of a function without bytecode: an LLM function or a host (FFI) function."""
        if fn.kind == "host":
            return self.call_host(fn, args)
        if self.llm is None:
            raise panic("HostUnavailable",
                        message=f"LLM function `{fn.name}` has no client to call (LLM calls are not "
                                "supported by this runner; pass mocks)")
        return self.llm(self, fn, args)

    def call_host(self, fn: BexFunction, args: list[Any]) -> Any:
        """Run the Python callable bound to a host function; its failures become BAML panics."""
        target = self.program.host_callables.get(fn.name)
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
        builtins = program.builtins
        classes = list(program.classes.values())
        max_depth = self.max_depth - 1
        budget = self.max_steps
        add, sub, mul, div, mod = ops.add, ops.sub, ops.mul, ops.div, ops.mod
        eq, lt, le, gt, ge, truthy = ops.eq, ops.lt, ops.le, ops.gt, ops.ge, ops.truthy
        while True:
            try:
                while True:
                    op, arg = code[pc]
                    pc += 1
                    if op == 1:  # LOAD_LOCAL
                        stack.append(locals_[arg])
                    elif op == 2:  # STORE_LOCAL
                        locals_[arg] = stack.pop()
                    elif op == 0:  # LOAD_CONST
                        stack.append(consts[arg])
                    elif op == 33:  # POP_JUMP_IF_FALSE
                        v = stack.pop()
                        if v is False or (v is not True and not truthy(v)):
                            pc = arg
                    elif op == 32:  # JUMP
                        if arg < pc and budget is not None:
                            self.tick()
                        pc = arg
                    elif op == 11:  # ADD
                        b = stack.pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            r = a + b
                            if INT_MIN <= r <= INT_MAX:
                                stack[-1] = r
                                continue
                        stack[-1] = add(a, b)
                    elif op == 23:  # LT
                        b = stack.pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            stack[-1] = a < b
                        else:
                            stack[-1] = lt(a, b)
                    elif op == 21:  # EQ
                        b = stack.pop()
                        stack[-1] = eq(stack[-1], b)
                    elif op == 12:  # SUB
                        b = stack.pop()
                        a = stack[-1]
                        if type(a) is int and type(b) is int:
                            r = a - b
                            if INT_MIN <= r <= INT_MAX:
                                stack[-1] = r
                                continue
                        stack[-1] = sub(a, b)
                    elif op == 47:  # CALL
                        index, argc = arg
                        callee = functions[index]
                        call_args = stack[len(stack) - argc:] if argc else []
                        if argc:
                            del stack[len(stack) - argc:]
                        if callee.kind != "body":
                            stack.append(self.call_external(callee, call_args))
                            continue
                        if len(frames) >= max_depth:
                            raise panic("StackOverflow", message="stack overflow")
                        if budget is not None:
                            self.tick()
                        frames.append((fn, code, consts, locals_, stack, pc, cells))
                        fn, code, consts, cells = callee, callee.code, callee.consts, ()
                        locals_ = self.enter(callee, call_args)
                        stack = []
                        pc = 0
                    elif op == 50:  # RETURN
                        value = stack.pop()
                        if not frames:
                            return value
                        fn, code, consts, locals_, stack, pc, cells = frames.pop()
                        stack.append(value)
                    elif op == 37:  # READ_INDEX
                        i = stack.pop()
                        base = stack[-1]
                        if type(base) is list and type(i) is int and 0 <= i < len(base):
                            stack[-1] = base[i]
                        else:
                            stack[-1] = read_index(base, i)
                    elif op == 35:  # READ_FIELD
                        stack[-1] = stack[-1].fields[arg]
                    elif op == 39:  # LEN
                        stack[-1] = len(stack[-1])
                    elif op == 48:  # CALL_BUILTIN
                        index, argc = arg
                        call_args = stack[len(stack) - argc:] if argc else []
                        if argc:
                            del stack[len(stack) - argc:]
                        stack.append(builtins[index](*call_args))
                    elif op == 24:  # LE
                        b = stack.pop()
                        stack[-1] = le(stack[-1], b)
                    elif op == 25:  # GT
                        b = stack.pop()
                        a = stack[-1]
                        stack[-1] = a > b if type(a) is int and type(b) is int else gt(a, b)
                    elif op == 26:  # GE
                        b = stack.pop()
                        stack[-1] = ge(stack[-1], b)
                    elif op == 22:  # NE
                        b = stack.pop()
                        stack[-1] = ops.ne(stack[-1], b)
                    elif op == 13:  # MUL
                        b = stack.pop()
                        stack[-1] = mul(stack[-1], b)
                    elif op == 14:  # DIV
                        b = stack.pop()
                        stack[-1] = div(stack[-1], b)
                    elif op == 15:  # MOD
                        b = stack.pop()
                        stack[-1] = mod(stack[-1], b)
                    elif op == 3:  # LOAD_DEREF
                        stack.append(locals_[arg].value)
                    elif op == 4:  # STORE_DEREF
                        locals_[arg].value = stack.pop()
                    elif op == 7:  # LOAD_CAPTURE
                        stack.append(cells[arg].value)
                    elif op == 8:  # STORE_CAPTURE
                        cells[arg].value = stack.pop()
                    elif op == 5:  # NEW_CELL
                        locals_[arg] = Cell()
                    elif op == 6:  # LOAD_CELL
                        stack.append(locals_[arg])
                    elif op == 9:  # LOAD_CAPTURE_CELL
                        stack.append(cells[arg])
                    elif op == 10:  # LOAD_GLOBAL
                        stack.append(self.load_global(arg))
                    elif op == 36:  # WRITE_FIELD
                        value = stack.pop()
                        stack.pop().fields[arg] = value
                    elif op == 38:  # WRITE_INDEX
                        value = stack.pop()
                        i = stack.pop()
                        write_index(stack.pop(), i, value)
                    elif op == 34:  # SWITCH
                        v = stack.pop()
                        table, otherwise = fn.switch_tables[arg]
                        pc = table.get((type(v), v), otherwise)
                    elif op == 45:  # IS_TYPE
                        stack[-1] = fn.type_tests[arg](stack[-1])
                    elif op == 28:  # NOT
                        stack[-1] = not truthy(stack[-1])
                    elif op == 30:  # TRUTHY
                        stack[-1] = truthy(stack[-1])
                    elif op == 27:  # NEG
                        stack[-1] = ops.neg(stack[-1])
                    elif op == 29:  # BIT_NOT
                        stack[-1] = ops.bit_not(stack[-1])
                    elif op == 16:  # BIT_AND
                        b = stack.pop()
                        stack[-1] = ops.bit_and(stack[-1], b)
                    elif op == 17:  # BIT_OR
                        b = stack.pop()
                        stack[-1] = ops.bit_or(stack[-1], b)
                    elif op == 18:  # BIT_XOR
                        b = stack.pop()
                        stack[-1] = ops.bit_xor(stack[-1], b)
                    elif op == 19:  # SHL
                        b = stack.pop()
                        stack[-1] = ops.shl(stack[-1], b)
                    elif op == 20:  # SHR
                        b = stack.pop()
                        stack[-1] = ops.shr(stack[-1], b)
                    elif op == 31:  # IS_PANIC
                        stack[-1] = is_panic_value(stack[-1])
                    elif op == 40:  # MAKE_ARRAY
                        if arg:
                            items = stack[len(stack) - arg:]
                            del stack[len(stack) - arg:]
                            stack.append(items)
                        else:
                            stack.append([])
                    elif op == 41:  # MAKE_MAP
                        n = 2 * arg
                        flat = stack[len(stack) - n:] if n else []
                        if n:
                            del stack[len(stack) - n:]
                        stack.append({flat[i]: flat[i + 1] for i in range(0, n, 2)})
                    elif op == 42:  # MAKE_INSTANCE
                        cls = classes[arg]
                        n = len(cls.field_names)
                        values = stack[len(stack) - n:] if n else []
                        if n:
                            del stack[len(stack) - n:]
                        stack.append(Instance(cls, values))
                    elif op == 43:  # MAKE_CLOSURE
                        target = functions[arg]
                        n = target.n_captures
                        captured = tuple(stack[len(stack) - n:]) if n else ()
                        if n:
                            del stack[len(stack) - n:]
                        stack.append(Closure(target, captured))
                    elif op == 44:  # BOUND_METHOD
                        stack[-1] = Closure(functions[arg], (), stack[-1], True)
                    elif op == 46:  # FORMAT
                        shape = fn.formats[arg]
                        n = shape.count(None)
                        values = stack[len(stack) - n:] if n else []
                        if n:
                            del stack[len(stack) - n:]
                        it = iter(values)
                        stack.append("".join(p if p is not None else render_value(next(it)) for p in shape))
                    elif op == 49:  # CALL_VALUE
                        argc = arg
                        call_args = stack[len(stack) - argc:] if argc else []
                        if argc:
                            del stack[len(stack) - argc:]
                        target = stack.pop()
                        if not isinstance(target, Closure):
                            raise panic("UserPanic", message=f"cannot call a value of type {type(target).__name__}")
                        if target.bound:
                            call_args = [target.receiver, *call_args]
                        callee = target.function
                        if callee.kind != "body":
                            stack.append(self.call_external(callee, call_args))
                            continue
                        if len(frames) >= max_depth:
                            raise panic("StackOverflow", message="stack overflow")
                        frames.append((fn, code, consts, locals_, stack, pc, cells))
                        fn, code, consts, cells = callee, callee.code, callee.consts, target.cells
                        locals_ = self.enter(callee, call_args)
                        stack = []
                        pc = 0
                    elif op == 51:  # THROW
                        raise BamlRaise(stack.pop())
                    elif op == 52:  # RETHROW
                        value = stack.pop()
                        raise self.pending_rethrow(value)
                    elif op == 53:  # UNREACHABLE
                        raise panic("Unreachable", message="entered unreachable code")
                    elif op == 54:  # POP
                        stack.pop()
                    elif op == 55:  # CARRY_CELL
                        locals_[arg] = Cell(locals_[arg].value)
                    else:
                        raise AssertionError(f"unknown opcode {op}")
            except BamlRaise as exc:
                if not exc.trace:
                    exc.trace = self.error_trace(frames, fn, pc)
                while True:
                    handler = None
                    for h in fn.handlers:
                        if h.covers(pc - 1):
                            handler = h
                            break
                    if handler is not None:
                        if handler.slot_kind == "cell":
                            locals_[handler.slot] = Cell(exc.value)
                        else:
                            locals_[handler.slot] = exc.value
                        self.caught[id(exc.value)] = exc
                        stack = []
                        pc = handler.target
                        break
                    if not frames:
                        raise
                    fn, code, consts, locals_, stack, pc, cells = frames.pop()
            except RecursionError:
                raise panic("StackOverflow", message="stack overflow") from None

    def pending_rethrow(self, value: Any) -> BamlRaise:
        """Re-raise a caught value with the trace it had when first raised."""
        original = self.caught.pop(id(value), None)
        if original is not None and original.value is value:
            return BamlRaise(value, original.trace)
        return BamlRaise(value)

    def enter(self, fn: BexFunction, args: list[Any]) -> list[Any]:
        """A new frame's slots: _0, the arguments, then empty locals."""
        if len(args) != fn.arity:
            raise panic("UserPanic", message=f"{fn.name} expects {fn.arity} argument(s), got {len(args)}")
        locals_ = [None, *args]
        locals_.extend([None] * (fn.n_locals - fn.arity - 1))
        for slot in fn.cell_params:
            locals_[slot] = Cell(locals_[slot])
        return locals_

    def tick(self) -> None:
        self.steps += 1
        if self.max_steps is not None and self.steps > self.max_steps:
            raise panic("InstructionLimit", message=f"instruction budget of {self.max_steps} exceeded")

    def error_trace(self, frames: list[tuple[Any, ...]], fn: BexFunction, pc: int) -> list[Frame]:
        out = [Frame(f[0].qualified, f[0].file, f[0].line_at(f[5] - 1)) for f in frames]
        out.append(Frame(fn.qualified, fn.file, fn.line_at(pc - 1)))
        return user_frames(out)



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


def user_frames(frames: list[Frame]) -> list[Frame]:
    """A trace without the prelude's frames (its functions are built-ins to the user), unless
    nothing else is left."""
    return [f for f in frames if not f.function.startswith(PRELUDE_PREFIX)] or frames
