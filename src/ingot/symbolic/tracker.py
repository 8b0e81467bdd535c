"""The tracker: an opt-in VM extension that runs a program with shadow symbolic state.

`TrackedVM` is a second dispatch loop beside the plain one (the plain VM pays
nothing for it): a loop over the transfer table (`ingot.symbolic.transfer`),
whose row for each instruction executes it concretely, exactly as the VM does,
and applies its transfer function to a shadow of the operand stack, the locals
and the heap (fields, elements, cells): `None` where a value is concrete-only. At each branch or switch on a symbolic
condition it appends an entry to the path condition (SymCC's
`push_path_constraint`); at each operation that can panic on symbolic
operands it records a CHECK whose alternative is "this panics"; where it
cannot model an operation it fixes the operands to their values with a
CONCRETIZE entry, so the path condition stays sound.

The shadow heap, the path condition (branch, check, concretize, assume) and
hot-site pruning are `ingot.symbolic.runtime.TrackerRuntime`, which both
trackers share. It is built against `ingot.view` (branch successors, switch
targets, transfer records) and the runtime value model only.
"""

from __future__ import annotations

from typing import Any, Protocol

from ingot.bex.api import (
    VM,
    BexFunction,
    Cell,
    bounded_trace,
    check_entry,
    value_callee,
)
from ingot.bex.api import Op as B
from ingot.runtime.errors import ERRORS, BamlRaise
from ingot.symbolic import operators
from ingot.symbolic.expr import Expr, Interner
from ingot.symbolic.runtime import (
    RunTrace,
    SiteInfo,
    TrackerRuntime,
    panic_builtin_indices,
    pruned_count,
)
from ingot.symbolic.shadow import Shadow
from ingot.symbolic.transfer import STEPS, TRANSFER
from ingot.view import FunctionView, ProgramView

__all__ = ["Environment", "Frame", "RunTrace", "SiteInfo", "TrackedVM", "build_site_info", "pruned_count"]


class Environment(Protocol):
    """Where values the program cannot control come from (LLM results)."""

    def llm_result(self, fn: BexFunction, site: str, occurrence: int) -> tuple[Any, Shadow]: ...

    def llm_failure(self, fn: BexFunction, site: str, occurrence: int) -> tuple[bool, Expr]:
        """Whether this call fails (a BOOL input), for calls a `catch` protects."""
        ...


class Frame:
    __slots__ = ("fn", "code", "consts", "locals", "shadows", "stack", "sstack", "pc", "cells", "site", "ctx")

    def __init__(self, fn: BexFunction, locals_: list[Any], shadows: list[Shadow], cells: tuple[Cell, ...],
                 site: SiteInfo, ctx: int) -> None:
        self.fn = fn
        self.code = fn.code
        self.consts = fn.consts
        self.locals = locals_
        self.shadows = shadows
        self.stack: list[Any] = []
        self.sstack: list[Shadow] = []
        self.pc = 0
        self.cells = cells
        self.site = site
        self.ctx = ctx


class TrackedVM(VM, TrackerRuntime):
    """A VM whose runs record a path condition over the shadowed inputs (the runtime: `TrackerRuntime`)."""

    def __init__(self, view: ProgramView, interner: Interner, env: Environment, prune_after: int | None = None,
                 **options: Any) -> None:
        VM.__init__(self, view_program(view), **options)
        TrackerRuntime.__init__(self, interner, prune_after)
        self.view = view
        self.env = env
        self.panic_builtins = panic_builtin_indices(self.program.builtin_keys)
        self.result_shadow: Shadow = None  # the shadow of the value the last run returned
        self._sites: dict[str, SiteInfo] = {}
        self._llm_counts: dict[str, int] = {}

    # -- per-function facts -------------------------------------------------------------------
    def site_info(self, fn: BexFunction) -> SiteInfo:
        info = self._sites.get(fn.name)
        if info is None:
            view = self.view.function(fn.name)
            info = build_site_info(view)
            self._sites[fn.name] = info
        return info

    # -- entry ----------------------------------------------------------------------------------
    def run_tracked(self, fn: BexFunction, args: list[Any], shadows: list[Shadow]) -> Any:
        """Run `fn` on `args` whose shadows are `shadows`; the trace is in `self.trace`."""
        return self.execute(self.new_frame(fn, args, shadows, (), 0))

    def new_frame(self, fn: BexFunction, args: list[Any], shadows: list[Shadow], cells: tuple[Cell, ...],
                  ctx: int) -> Frame:
        locals_ = self.enter(fn, args)
        slots: list[Shadow] = [None, *shadows]
        slots.extend([None] * (fn.n_locals - len(slots)))
        for slot in fn.cell_params:
            self.hset(locals_[slot], "v", slots[slot])
            slots[slot] = None
        return Frame(fn, locals_, slots, cells, self.site_info(fn), ctx)

    # -- the loop ---------------------------------------------------------------------------------
    def execute(self, frame: Frame) -> Any:
        """Run frames until the first returns: a loop over the transfer table's arms (`STEPS`).

        The loop keeps as its own the moves of a value and its shadow between the stack and
        the locals (most instructions, so no call for them) and the instructions that switch
        frames; every other instruction is its row's `step`.
        """
        frames: list[Frame] = []
        steps = STEPS
        while True:
            try:
                while True:
                    op, arg = frame.code[frame.pc]
                    frame.pc += 1
                    step = steps[op]
                    if step is not None:
                        step(self, frame, arg)
                    elif op == B.LOAD_LOCAL:
                        frame.stack.append(frame.locals[arg])
                        frame.sstack.append(frame.shadows[arg])
                    elif op == B.STORE_LOCAL:
                        frame.locals[arg] = frame.stack.pop()
                        frame.shadows[arg] = frame.sstack.pop()
                    elif op == B.LOAD_CONST:
                        frame.stack.append(frame.consts[arg])
                        frame.sstack.append(None)
                    elif op == B.RETURN:
                        value, shadow = frame.stack.pop(), frame.sstack.pop()
                        if not frames:
                            self.result_shadow = shadow
                            return value
                        frame = frames.pop()
                        frame.stack.append(value)
                        frame.sstack.append(shadow)
                    else:
                        callee = self.enter_call(frame, op, arg, len(frames))
                        if callee is not None:
                            frames.append(frame)
                            frame = callee
            except BamlRaise as exc:
                if not exc.trace:
                    exc.trace = self.frames_trace(frames, frame)
                while True:
                    handler = frame.fn.handler_at(frame.pc - 1)
                    if handler is not None:
                        frame.locals[handler.slot] = handler.slot_value(exc.value)
                        frame.shadows[handler.slot] = None
                        self.remember_caught(exc)
                        frame.stack, frame.sstack = [], []
                        frame.pc = handler.target
                        break
                    if not frames:
                        raise
                    frame = frames.pop()

    def enter_call(self, frame: Frame, op: int, arg: Any, depth: int) -> Frame | None:
        """CALL or CALL_VALUE: the callee's frame, or None when a call without bytecode left its result."""
        if op == B.CALL:
            index, argc = arg
            callee = self.program.functions[index]
            args, shadows = self.pop_args(frame, argc)
            cells: tuple[Cell, ...] = ()
            transfer = TRANSFER[B.CALL].shadow
        else:
            args, shadows = self.pop_args(frame, arg)
            target = frame.stack.pop()
            frame.sstack.pop()
            callee, args, shadows, cells = value_callee(target, args, shadows)  # type: ignore[assignment]
            transfer = TRANSFER[B.CALL_VALUE].shadow
        if self.outside[callee.index]:
            assert transfer is not None
            value, shadow = transfer(self, frame, callee, args, shadows)
            frame.stack.append(value)
            frame.sstack.append(shadow)
            return None
        check_entry(depth, self.max_depth - 1, callee, len(args), self.tick if self.max_steps is not None else None)
        return self.new_frame(callee, args, shadows, cells, hash((frame.ctx, frame.fn.index, frame.pc)))

    def frames_trace(self, frames: list[Frame], frame: Frame) -> list[Any]:
        from ingot.runtime.errors import Frame as TraceFrame

        return bounded_trace([*frames, frame], lambda f: f.fn,
                             lambda f: TraceFrame(f.fn.qualified, f.fn.file, f.fn.line_at(f.pc - 1)))

    def pop_args(self, frame: Frame, argc: int) -> tuple[list[Any], list[Shadow]]:
        if not argc:
            return [], []
        stack, sstack = frame.stack, frame.sstack
        args, shadows = stack[-argc:], sstack[-argc:]
        del stack[-argc:]
        del sstack[-argc:]
        return args, shadows

    # -- the operator models a subclass may override (packing does) -------------------------------
    arith = operators.arith
    equality = operators.equality

    # -- environment ----------------------------------------------------------------------------
    def external_call(self, frame: Frame, fn: BexFunction, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
        """A call of a function without bytecode (LLM or host).

        Exploration treats the result as a fresh symbolic input, named by call site and
        occurrence (the arguments are not needed); packing overrides this to run host
        functions and keep their tensor results as leaves.
        """
        site = f"{frame.fn.name}:{frame.pc - 1}"
        key = f"{fn.name}@{site}"
        k = self._llm_counts.get(key, 0)
        self._llm_counts[key] = k + 1
        if fn.kind == "llm" and any(h.covers(frame.pc - 1) for h in frame.fn.handlers):
            # A `catch` guards this call: whether the model call fails is an input too.
            fails, fail_var = self.env.llm_failure(fn, site, k)
            self.check(frame, "LlmFailure", self.x.not_(fail_var), not fails)
            if fails:
                self.trace.llm_calls.append((fn.name, f"{key}#{k}", None))
                raise BamlRaise(ERRORS["ai.errors.ParseFailed"].new(
                    provider="explore", raw_output="", message="the model's reply could not be parsed (explored)"))
        value, shadow = self.env.llm_result(fn, site, k)
        self.trace.llm_calls.append((fn.name, f"{key}#{k}", value))
        return value, shadow


def build_site_info(view: FunctionView) -> SiteInfo:
    """Which pcs are branch or switch sites, and the MIR edges they choose between."""
    branches: dict[int, tuple[int, int, int]] = {}
    switches: dict[int, tuple[int, Any, int]] = {}
    for block in view.blocks:
        term = block.terminator
        if term.kind not in ("branch", "switch"):
            continue
        for pc in view.pcs_of(term.id):
            rec = view.transfer(pc)
            if term.kind == "branch" and rec.op == "branch":
                branches[pc] = (block.id, term.successors[0], term.successors[1])
            elif term.kind == "switch" and rec.op == "switch":
                table, otherwise = view.switch_targets(pc)
                switches[pc] = (block.id, dict(table), otherwise)
    # Edges count in user functions and their lambdas (as `reachable_edges` counts them), not in
    # the prelude's or other compiler-made functions.
    return SiteInfo(branches, switches, track_coverage=not view.synthetic or ".$lambda" in view.name)


def view_program(view: ProgramView) -> Any:
    """The BEX program behind a view (the tracker executes it)."""
    return view.bytecode
