"""The compiled tier at run time: `CompiledVM`, the names generated code reads, traces from Python frames."""

from __future__ import annotations

import sys
import threading
from typing import Any

from ingot.bex.calls import check_entry, stack_overflow, value_callee, wrong_arity
from ingot.bex.compiled.translation import _MODULES, translate
from ingot.bex.opcodes import RUNTIME_FUNCTIONS
from ingot.bex.program import BexFunction, BexProgram, Cell, Closure
from ingot.bex.vm import VM, bounded_trace, read_index, write_index
from ingot.runtime import ops
from ingot.runtime.errors import BamlRaise, Frame, panic
from ingot.runtime.limits import check_array, join_text
from ingot.runtime.render import render_value
from ingot.runtime.values import Instance


def _trace_frames(tb: Any, above: Any) -> list[Frame]:
    """A BAML trace from Python frames: `above` and its callers (up to the run's entry),
    then the traceback's frames (from the catching frame down to the raise). Only the frames
    the bounded trace keeps are built (a line number is looked up for those alone)."""
    modules, entry = _MODULES, _ENTRY_CODE
    outer: list[tuple[Any, BexFunction, Any]] = []  # (module, function, Python frame), innermost first
    f = above
    while f is not None:
        code = f.f_code
        if code is entry:
            break
        mod = modules.get(code.co_filename)
        if mod is not None:
            fn = mod.by_code_name.get(code.co_name)
            if fn is not None:
                outer.append((mod, fn, f))
        f = f.f_back
    outer.reverse()
    entries: list[tuple[Any, BexFunction, Any]] = outer
    while tb is not None:
        code = tb.tb_frame.f_code
        mod = modules.get(code.co_filename)
        if mod is not None:
            fn = mod.by_code_name.get(code.co_name)
            if fn is not None:
                entries.append((mod, fn, tb))
        tb = tb.tb_next
    return bounded_trace(entries, _function_of, _frame_of)


def _function_of(entry: tuple[Any, BexFunction, Any]) -> BexFunction:
    return entry[1]


def _frame_of(entry: tuple[Any, BexFunction, Any]) -> Frame:
    mod, fn, where = entry  # a Python frame (its current line) or a traceback entry (the raising line)
    return mod.frame(fn, where.f_lineno if hasattr(where, "f_lineno") else where.tb_lineno)


def run_entry(f: Any, cells: tuple[Cell, ...], args: list[Any]) -> Any:
    """The boundary of one run: traces stop here."""
    try:
        return f(1, cells, *args)
    except BamlRaise as e:
        if not e.trace:
            e.trace = _trace_frames(e.__traceback__, None)
        raise


_ENTRY_CODE = run_entry.__code__


def run_guarded(f: Any, cells: tuple[Cell, ...], args: list[Any], max_depth: int) -> Any:
    """`run_entry` with room for `max_depth` BAML frames on Python's stack (one Python frame per
    BAML frame, two through `_call_value`); Python's own overflow is BAML's."""
    ensure_recursion_limit(2 * max_depth + 5_000)
    try:
        return run_entry(f, cells, args)
    except RecursionError:
        raise stack_overflow() from None


def make_catch(vm: VM) -> Any:
    remember = vm.remember_caught
    getframe = sys._getframe

    def _catch(e: BamlRaise) -> None:
        if not e.trace:
            frame = getframe(1)
            e.trace = _trace_frames(e.__traceback__, frame.f_back)
        e.__traceback__ = None
        remember(e)

    return _catch


# Python's recursion limit is one setting for every thread of the process: it is raised (under a
# lock) to what the deepest VM needs and never lowered while a call runs, so calls in several
# threads cannot cut each other's stacks short.
_recursion_lock = threading.Lock()


def ensure_recursion_limit(need: int) -> None:
    """Make Python's recursion limit at least `need` (never lower it)."""
    if sys.getrecursionlimit() < need:
        with _recursion_lock:
            if sys.getrecursionlimit() < need:
                sys.setrecursionlimit(need)


STATIC_NAMES = {
    "BamlRaise": BamlRaise,
    "Cell": Cell,
    "Closure": Closure,
    "Instance": Instance,
    **RUNTIME_FUNCTIONS,  # `_add`, `_lt`, `_truthy`, ...: the opcode table's definitions
    "_truthy": ops.truthy,  # a branch's condition
    "_render": render_value,
    "_join": join_text,  # a template's pieces, checked against the string limit
    "_check_array": check_array,  # the AllocFailure of an inlined `push` past MAXA
    "_read_index": read_index, "_write_index": write_index,
    "_overflow": stack_overflow,
    "_unreachable": lambda: panic("Unreachable", message="entered unreachable code"),
}


class CompiledVM(VM):
    """A `VM` whose functions run as generated Python code; same options, same results."""

    def __init__(self, program: BexProgram, *args: Any, **options: Any) -> None:
        # The step count and the step of the next limit check are globals of the generated code
        # (`_steps`, `_NEXT`): this dict until the namespace exists, then the namespace itself.
        self._counters: dict[str, Any] = {"_steps": 0, "_NEXT": 0}
        super().__init__(program, *args, **options)
        self._funcs: list[Any] | None = None

    @property  # type: ignore[override]
    def steps(self) -> int:
        return int(self._counters["_steps"])

    @steps.setter
    def steps(self, value: int) -> None:
        self._counters["_steps"] = value

    @property  # type: ignore[override]
    def _next_check(self) -> int:
        return int(self._counters["_NEXT"])

    @_next_check.setter
    def _next_check(self, value: int) -> None:
        self._counters["_NEXT"] = value

    def functions(self) -> list[Any]:
        """This VM's Python function per BAML function (None for LLM functions)."""
        if self._funcs is None:
            self._funcs = self._instantiate()
        return self._funcs

    def _instantiate(self) -> list[Any]:
        program = self.program
        mod = translate(program, self.counting, hosts=frozenset(self.hosts))
        ns: dict[str, Any] = dict(STATIC_NAMES)
        ns.update(mod.consts)
        for i, b in enumerate(program.builtins):
            ns[f"B{i}"] = b
        max_depth = self.max_depth
        ns["MAXD"] = max_depth
        ns["MAXA"] = self.sizes.array if self.sizes.array is not None else 2**62
        ns["_global"] = self.load_global
        ns["_call_external"] = self.call_external
        ns["_rethrow"] = self.pending_rethrow
        ns["_tick"] = self.tick
        ns["_check"] = self.check_limits
        ns.update(self._counters)
        self._counters = ns
        ns["_catch"] = make_catch(self)
        ns["__name__"] = "ingot.bex.compiled_program"
        exec(mod.code, ns)  # noqa: S102 - our own generated code
        funcs: list[Any] = [ns.get(f"f{fn.index}") if fn.kind == "body" else None for fn in program.functions]
        outside = self.outside
        by_arity: dict[int, dict[BexFunction, Any]] = {}
        for fn, f in zip(program.functions, funcs):
            if not outside[fn.index]:  # a bound function's calls go to its callable
                by_arity.setdefault(fn.arity, {})[fn] = f
        for argc in mod.value_argcs:
            ns[f"FV{argc}"] = by_arity.get(argc, {})
        call_external = self.call_external
        tick = self.tick if self.counting else None

        def _call_value(d: int, target: Any, args: list[Any]) -> Any:
            callee, args, _, cells = value_callee(target, args)
            if outside[callee.index]:
                return call_external(callee, args)
            check_entry(d, max_depth, callee, len(args), tick)
            return funcs[callee.index](d + 1, cells, *args)

        ns["_call_value"] = _call_value
        return funcs

    def run(self, fn: BexFunction, args: list[Any], cells: tuple[Cell, ...] = ()) -> Any:
        if len(args) != fn.arity:
            raise wrong_arity(fn, len(args))
        return run_guarded(self.functions()[fn.index], cells, args, self.max_depth)
