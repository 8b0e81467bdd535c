"""The compiled tier at run time: `CompiledVM`, the names generated code reads, traces from Python frames."""

from __future__ import annotations

import sys
from typing import Any

from ingot.bex.compiled.translation import _MODULES, translate
from ingot.bex.opcodes import RUNTIME_FUNCTIONS
from ingot.bex.program import BexFunction, BexProgram, Cell, Closure
from ingot.bex.vm import (
    DEFAULT_MAX_DEPTH,
    VM,
    LlmHandler,
    not_callable,
    read_index,
    user_frames,
    write_index,
)
from ingot.runtime import ops
from ingot.runtime.errors import BamlRaise, Frame, panic
from ingot.runtime.render import render_value
from ingot.runtime.values import Instance


def _trace_frames(tb: Any, above: Any) -> list[Frame]:
    """A BAML trace from Python frames: `above` and its callers (up to the run's entry),
    then the traceback's frames (from the catching frame down to the raise)."""
    outer: list[Frame] = []
    f = above
    while f is not None and f.f_code is not _ENTRY_CODE:
        mod = _MODULES.get(f.f_code.co_filename)
        if mod is not None:
            fn = mod.by_code_name.get(f.f_code.co_name)
            if fn is not None:
                outer.append(mod.frame(fn, f.f_lineno))
        f = f.f_back
    outer.reverse()
    while tb is not None:
        code = tb.tb_frame.f_code
        mod = _MODULES.get(code.co_filename)
        if mod is not None:
            fn = mod.by_code_name.get(code.co_name)
            if fn is not None:
                outer.append(mod.frame(fn, tb.tb_lineno))
        tb = tb.tb_next
    return user_frames(outer)


def run_entry(f: Any, cells: tuple[Cell, ...], args: list[Any]) -> Any:
    """The boundary of one run: traces stop here."""
    try:
        return f(1, cells, *args)
    except BamlRaise as e:
        if not e.trace:
            e.trace = _trace_frames(e.__traceback__, None)
        raise


_ENTRY_CODE = run_entry.__code__


def make_catch(vm: VM) -> Any:
    caught = vm.caught
    getframe = sys._getframe

    def _catch(e: BamlRaise) -> None:
        if not e.trace:
            frame = getframe(1)
            e.trace = _trace_frames(e.__traceback__, frame.f_back)
        e.__traceback__ = None
        caught[id(e.value)] = e

    return _catch


STATIC_NAMES = {
    "BamlRaise": BamlRaise,
    "Cell": Cell,
    "Closure": Closure,
    "Instance": Instance,
    **RUNTIME_FUNCTIONS,  # `_add`, `_lt`, `_truthy`, ...: the opcode table's definitions
    "_truthy": ops.truthy,  # a branch's condition
    "_render": render_value,
    "_read_index": read_index, "_write_index": write_index,
    "_overflow": lambda: panic("StackOverflow", message="stack overflow"),
    "_unreachable": lambda: panic("Unreachable", message="entered unreachable code"),
}


class CompiledVM(VM):
    """A `VM` whose functions run as generated Python code; same options, same results."""

    def __init__(self, program: BexProgram, max_depth: int = DEFAULT_MAX_DEPTH,
                 max_steps: int | None = None, llm: LlmHandler | None = None) -> None:
        super().__init__(program, max_depth=max_depth, max_steps=max_steps, llm=llm)
        self._funcs: list[Any] | None = None

    def functions(self) -> list[Any]:
        """This VM's Python function per BAML function (None for LLM functions)."""
        if self._funcs is None:
            self._funcs = self._instantiate()
        return self._funcs

    def _instantiate(self) -> list[Any]:
        program = self.program
        mod = translate(program, self.max_steps is not None)
        ns: dict[str, Any] = dict(STATIC_NAMES)
        ns.update(mod.consts)
        for i, b in enumerate(program.builtins):
            ns[f"B{i}"] = b
        max_depth = self.max_depth
        ns["MAXD"] = max_depth
        ns["_global"] = self.load_global
        ns["_call_external"] = self.call_external
        ns["_rethrow"] = self.pending_rethrow
        ns["_tick"] = self.tick
        ns["_catch"] = make_catch(self)
        ns["__name__"] = "ingot.bex.compiled_program"
        exec(mod.code, ns)  # noqa: S102 - our own generated code
        funcs: list[Any] = [ns.get(f"f{fn.index}") if fn.kind == "body" else None for fn in program.functions]
        by_arity: dict[int, dict[BexFunction, Any]] = {}
        for fn, f in zip(program.functions, funcs):
            if f is not None:
                by_arity.setdefault(fn.arity, {})[fn] = f
        for argc in mod.value_argcs:
            ns[f"FV{argc}"] = by_arity.get(argc, {})
        call_external = self.call_external

        def _call_value(d: int, target: Any, args: list[Any]) -> Any:
            if not isinstance(target, Closure):
                raise not_callable(target)
            if target.bound:
                args = [target.receiver, *args]
            callee = target.function
            if callee.kind != "body":
                return call_external(callee, args)
            if d >= max_depth:
                raise panic("StackOverflow", message="stack overflow")
            if len(args) != callee.arity:
                raise panic("UserPanic", message=f"{callee.name} expects {callee.arity} argument(s), "
                                                 f"got {len(args)}")
            return funcs[callee.index](d + 1, target.cells, *args)

        ns["_call_value"] = _call_value
        return funcs

    def run(self, fn: BexFunction, args: list[Any], cells: tuple[Cell, ...] = ()) -> Any:
        if len(args) != fn.arity:
            raise panic("UserPanic", message=f"{fn.name} expects {fn.arity} argument(s), got {len(args)}")
        f = self.functions()[fn.index]
        # one Python frame per BAML frame (two through `_call_value`); restored afterwards
        need = 2 * self.max_depth + 5_000
        old = sys.getrecursionlimit()
        if old < need:
            sys.setrecursionlimit(need)
        try:
            return run_entry(f, cells, args)
        except RecursionError:
            raise panic("StackOverflow", message="stack overflow") from None
        finally:
            if old < need:
                sys.setrecursionlimit(old)
