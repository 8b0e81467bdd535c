"""The tracker: an opt-in VM extension that runs a program with shadow symbolic state.

`TrackedVM` is a second dispatch loop beside the plain one (the plain VM pays
nothing for it). It executes each instruction concretely, exactly as the VM
does, and applies the instruction's transfer record to a shadow of the
operand stack, the locals and the heap (fields, elements, cells): `None`
where a value is concrete-only. At each branch or switch on a symbolic
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

from collections.abc import Callable
from typing import Any, Protocol

from ingot.bex.api import (
    ARITH,
    BINARY,
    OPCODES,
    ORDER,
    VM,
    BexFunction,
    Cell,
    Closure,
    bounded_trace,
    not_callable,
    read_index,
    write_index,
)
from ingot.bex.api import Op as B
from ingot.runtime import ops
from ingot.runtime.errors import ERRORS, BamlRaise, is_panic_value, panic
from ingot.runtime.render import render_value
from ingot.runtime.values import INT_MAX, INT_MIN, Instance, Variant
from ingot.stdlib import maps
from ingot.symbolic import builtin_models
from ingot.symbolic.expr import Expr, Interner, Op, Sort
from ingot.symbolic.runtime import (
    RunTrace,
    SiteInfo,
    TrackerRuntime,
    panic_builtin_indices,
    pruned_count,
)
from ingot.symbolic.shadow import Alternative, EntryKind, Opt, Shadow, Tagged
from ingot.view import FunctionView, ProgramView

__all__ = ["Environment", "Frame", "RunTrace", "SiteInfo", "TrackedVM", "build_site_info", "pruned_count",
           "UNMODELLED_UNARY"]


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
        self.result_shadow: Shadow = None  # the shadow of the value the last run returned
        self._sites: dict[str, SiteInfo] = {}
        self._llm_counts: dict[str, int] = {}
        self.panic_builtins = panic_builtin_indices(self.program.builtin_keys)

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
    def execute(self, frame: Frame) -> Any:  # noqa: C901 - one dispatch
        frames: list[Frame] = []
        max_depth = self.max_depth - 1
        while True:
            try:
                while True:
                    code = frame.code
                    op, arg = code[frame.pc]
                    frame.pc += 1
                    stack, sstack = frame.stack, frame.sstack
                    if op == B.LOAD_LOCAL:
                        stack.append(frame.locals[arg])
                        sstack.append(frame.shadows[arg])
                    elif op == B.STORE_LOCAL:
                        frame.locals[arg] = stack.pop()
                        frame.shadows[arg] = sstack.pop()
                    elif op == B.LOAD_CONST:
                        stack.append(frame.consts[arg])
                        sstack.append(None)
                    elif op == B.POP_JUMP_IF_FALSE:
                        self.branch(frame, arg)
                    elif op == B.JUMP:
                        if arg < frame.pc and self.max_steps is not None:
                            self.tick()
                        frame.pc = arg
                    elif op in BINARY:
                        self.binary(frame, B(op))
                    elif op == B.CALL:
                        index, argc = arg
                        callee = self.program.functions[index]
                        args, shadows = self.pop_args(frame, argc)
                        if callee.kind != "body":
                            value, shadow = self.external_call(frame, callee, args, shadows)
                            stack.append(value)
                            sstack.append(shadow)
                            continue
                        if len(frames) >= max_depth:
                            raise panic("StackOverflow", message="stack overflow")
                        if self.max_steps is not None:
                            self.tick()
                        frames.append(frame)
                        frame = self.new_frame(callee, args, shadows, (), hash((frame.ctx, frame.fn.name, frame.pc)))
                    elif op == B.CALL_VALUE:
                        args, shadows = self.pop_args(frame, arg)
                        target = stack.pop()
                        sstack.pop()
                        if not isinstance(target, Closure):
                            raise not_callable(target)
                        if target.bound:
                            args, shadows = [target.receiver, *args], [None, *shadows]
                        callee = target.function
                        if callee.kind != "body":
                            value, shadow = self.external_call(frame, callee, args, shadows)
                            stack.append(value)
                            sstack.append(shadow)
                            continue
                        if len(frames) >= max_depth:
                            raise panic("StackOverflow", message="stack overflow")
                        frames.append(frame)
                        frame = self.new_frame(callee, args, shadows, target.cells,
                                               hash((frame.ctx, frame.fn.name, frame.pc)))
                    elif op == B.RETURN:
                        value, shadow = stack.pop(), sstack.pop()
                        if not frames:
                            self.result_shadow = shadow
                            return value
                        frame = frames.pop()
                        frame.stack.append(value)
                        frame.sstack.append(shadow)
                    elif op == B.CALL_BUILTIN:
                        index, argc = arg
                        args, shadows = self.pop_args(frame, argc)
                        key = self.program.builtin_keys[index]
                        if index in self.panic_builtins:
                            self.reached_at((frame.fn.name, frame.pc - 1))
                        value, shadow = builtin_models.call(self, frame, key, self.program.builtins[index],
                                                            args, shadows)
                        stack.append(value)
                        sstack.append(shadow)
                    else:
                        self.simple(frame, B(op), arg)
            except BamlRaise as exc:
                if not exc.trace:
                    exc.trace = self.frames_trace(frames, frame)
                while True:
                    handler = next((h for h in frame.fn.handlers if h.covers(frame.pc - 1)), None)
                    if handler is not None:
                        if handler.slot_kind == "cell":
                            frame.locals[handler.slot] = Cell(exc.value)
                        else:
                            frame.locals[handler.slot] = exc.value
                        frame.shadows[handler.slot] = None
                        self.remember_caught(exc)
                        frame.stack, frame.sstack = [], []
                        frame.pc = handler.target
                        break
                    if not frames:
                        raise
                    frame = frames.pop()

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

    # -- control flow -------------------------------------------------------------------------------
    def branch(self, frame: Frame, else_pc: int) -> None:
        value, shadow = frame.stack.pop(), frame.sstack.pop()
        taken = ops.truthy(value)
        pc = frame.pc - 1
        site = frame.site.branches.get(pc)
        if not taken:
            frame.pc = else_pc
        if site is None:
            return
        block, then_bb, else_bb = site
        if frame.site.track_coverage:
            self.trace.edges.append((frame.fn.name, block, then_bb if taken else else_bb))
        self.branch_condition(frame, site, pc, value, shadow, taken)

    def branch_condition(self, frame: Frame, site: tuple[int, int, int], pc: int, value: Any, shadow: Shadow,
                         taken: bool) -> None:
        """Record a branch site's condition, if it is symbolic (the edge is recorded by the caller)."""
        cond = self.truthy(shadow, value)
        if cond is None or cond.is_const or self.prune_at(frame, pc):
            return
        block, then_bb, else_bb = site
        fn = frame.fn.name
        there = else_bb if taken else then_bb
        x = self.x
        observed = cond if taken else x.not_(cond)
        self.record(EntryKind.BRANCH, f"{fn}@{pc}", observed,
                    (Alternative(x.not_(observed), (fn, block, there), "true" if not taken else "false"),), frame.ctx)

    # -- operators ---------------------------------------------------------------------------------
    def binary(self, frame: Frame, op: B) -> None:
        stack, sstack = frame.stack, frame.sstack
        if op is B.DIV or op is B.MOD:
            self.reached_division((frame.fn.name, frame.pc - 1), stack[-1])
        b, sb = stack.pop(), sstack.pop()
        a, sa = stack[-1], sstack[-1]
        if sa is None and sb is None or self.pruned(frame):
            stack[-1] = CONCRETE_BINARY[op](a, b)
            sstack[-1] = None
            return
        symbolic = self.binary_shadow(frame, op, a, b, sa, sb)
        stack[-1] = CONCRETE_BINARY[op](a, b)  # may raise the panic the CHECK above aimed at
        sstack[-1] = symbolic

    def binary_shadow(self, frame: Frame, op: B, a: Any, b: Any, sa: Shadow, sb: Shadow) -> Shadow:
        """The shadow of `a op b` when an operand is symbolic (the caller has asked `pruned`)."""
        x = self.x
        if op in (B.EQ, B.NE):
            cond = self.equality(frame, a, b, sa, sb)
            if cond is None:
                return None
            return cond if op is B.EQ else x.not_(cond)
        ea, eb = self.lift(sa, a), self.lift(sb, b)
        if ea is None or eb is None or isinstance(a, Variant) or isinstance(b, Variant):
            self.concretize(frame, sa, a)
            self.concretize(frame, sb, b)
            return None
        if op in ORDER_OPS:
            if ea.sort is Sort.STRING or ea.sort is Sort.BOOL or eb.sort is Sort.BOOL:
                # String ordering is costly for Z3 (and rare in control flow): fix the operands.
                self.concretize(frame, sa, a)
                self.concretize(frame, sb, b)
                return None
            if op is B.LT:
                return x.lt(ea, eb)
            if op is B.LE:
                return x.le(ea, eb)
            return x.lt(eb, ea) if op is B.GT else x.le(eb, ea)
        if ea.sort is Sort.STRING and eb.sort is Sort.STRING and op is B.ADD:
            return x.concat(ea, eb)
        if ea.sort not in (Sort.INT, Sort.FLOAT) or eb.sort not in (Sort.INT, Sort.FLOAT) or op not in ARITH:
            self.concretize(frame, sa, a)
            self.concretize(frame, sb, b)
            return None
        return self.arith(frame, op, a, b, sa, sb, ea, eb)

    def arith(self, frame: Frame, op: B, a: Any, b: Any, sa: Shadow, sb: Shadow, ea: Expr, eb: Expr) -> Shadow:
        x = self.x
        is_int = type(a) is int and type(b) is int
        if op in (B.DIV, B.MOD):
            if not eb.is_const and is_int:
                self.check(frame, "DivisionByZero", x.not_(x.eq(eb, x.const(0))), b != 0)
            if not eb.is_const and not ea.is_const:
                self.concretize(frame, sb, b)  # keep division linear (CUTE): fix the divisor
                eb = x.const(b)
            elif not eb.is_const:
                self.concretize(frame, sb, b)
                eb = x.const(b)
            if b == 0:
                return None  # the concrete operation panics (int) or yields inf/nan (float)
        if op is B.MUL and not ea.is_const and not eb.is_const:
            self.concretize(frame, sb, b)  # a product of two symbolic values: fix one factor
            eb = x.const(b, Sort.INT if type(b) is int else Sort.FLOAT)
        result = x.arith(ARITH_KIND[op], ea, eb)
        if is_int and not result.is_const and op in (B.ADD, B.SUB, B.MUL):
            safe = x.and_(x.le(x.const(INT_MIN), result), x.le(result, x.const(INT_MAX)))
            concrete = a + b if op is B.ADD else a - b if op is B.SUB else a * b
            self.check(frame, "IntegerOverflow", safe, INT_MIN <= concrete <= INT_MAX)
        if not is_int and op in (B.DIV, B.MOD):
            return None if op is B.MOD else result
        if op is B.MOD and not is_int:
            return None
        return result

    def equality(self, frame: Frame, a: Any, b: Any, sa: Shadow, sb: Shadow) -> Expr | None:
        """The symbolic `a == b` (type-strict, like BAML)."""
        x = self.x
        # Comparisons with null decide presence.
        if isinstance(sa, Opt) and b is None and sb is None:
            return x.not_(sa.present)
        if isinstance(sb, Opt) and a is None and sa is None:
            return x.not_(sb.present)
        if isinstance(sa, Opt) and b is not None or isinstance(sb, Opt) and a is not None:
            # An optional compared with a value: equal only if present and the payload matches
            # (the same condition whether this run's value is present or not).
            opt, other, other_value = (sa, sb, b) if isinstance(sa, Opt) and b is not None else (sb, sa, a)
            assert isinstance(opt, Opt)
            rhs = self.lift(other, other_value)
            if isinstance(opt.payload, Expr) and rhs is not None and rhs.sort is opt.payload.sort:
                return x.and_(opt.present, x.eq(opt.payload, rhs))
            self.concretize(frame, sa, a)
            self.concretize(frame, sb, b)
            return None
        if isinstance(a, Variant) or isinstance(b, Variant):
            if isinstance(a, Variant) and isinstance(b, Variant) and a.enum is b.enum:
                ta = self.scalar(sa, a)
                tb = self.scalar(sb, b)
                return x.eq(ta if ta is not None else x.const(a.index, Sort.INT),
                            tb if tb is not None else x.const(b.index, Sort.INT))
            return None  # different types are never equal
        ea, eb = self.lift(sa, a), self.lift(sb, b)
        if ea is None or eb is None:
            self.concretize(frame, sa, a)
            self.concretize(frame, sb, b)
            return None
        if type(a) is not type(b):
            return None  # 1 == 1.0 is false in BAML whatever the values
        return x.eq(ea, eb)

    def simple(self, frame: Frame, op: B, arg: Any) -> None:  # noqa: C901 - one dispatch
        stack, sstack = frame.stack, frame.sstack
        x = self.x
        if op is B.READ_FIELD:
            obj = stack[-1]
            stack[-1] = obj.fields[arg]
            sstack[-1] = self.hget(obj, arg)
        elif op is B.WRITE_FIELD:
            value, shadow = stack.pop(), sstack.pop()
            obj = stack.pop()
            sstack.pop()
            obj.fields[arg] = value
            self.hset(obj, arg, shadow)
        elif op is B.READ_INDEX:
            self.reached_index((frame.fn.name, frame.pc - 1), stack[-2], stack[-1])
            self.read_index(frame)
        elif op is B.WRITE_INDEX:
            self.reached_store((frame.fn.name, frame.pc - 1), stack[-3], stack[-2])
            value, shadow = stack.pop(), sstack.pop()
            index, sindex = stack.pop(), sstack.pop()
            base = stack.pop()
            sstack.pop()
            self.write_index_tracked(frame, base, index, sindex, value, shadow)
        elif op is B.LEN:
            base = stack[-1]
            stack[-1] = len(base)
            sstack[-1] = self.hget(base, "$len") if isinstance(base, list) else None
        elif op is B.SWITCH:
            self.switch_on(frame, arg)
        elif op is B.NOT:
            value, shadow = stack[-1], sstack[-1]
            stack[-1] = not ops.truthy(value)
            cond = self.truthy(shadow, value)
            sstack[-1] = None if cond is None else x.not_(cond)
        elif op is B.NEG:
            value, shadow = stack[-1], sstack[-1]
            pruned = shadow is None or self.pruned(frame)
            sstack[-1] = None if pruned else self.neg_shadow(frame, value, shadow)
            stack[-1] = ops.neg(value)
        elif op in UNMODELLED_UNARY:  # `~` and any unary operator without a model: concrete operand
            self.concretize(frame, sstack[-1], stack[-1])
            stack[-1] = OPCODES[op].impl(stack[-1])  # type: ignore[misc]
            sstack[-1] = None
        elif op is B.IS_TYPE:
            value, shadow = stack[-1], sstack[-1]
            test = frame.fn.type_tests[arg]
            result = test(value)
            stack[-1] = result
            sstack[-1] = self.type_test_shadow(frame, test, value, shadow, result)
        elif op is B.IS_PANIC:
            stack[-1] = is_panic_value(stack[-1])
            sstack[-1] = None
        elif op is B.LOAD_DEREF or op is B.LOAD_CAPTURE:
            cell = frame.locals[arg] if op is B.LOAD_DEREF else frame.cells[arg]
            stack.append(cell.value)
            sstack.append(self.hget(cell, "v"))
        elif op is B.STORE_DEREF or op is B.STORE_CAPTURE:
            cell = frame.locals[arg] if op is B.STORE_DEREF else frame.cells[arg]
            cell.value = stack.pop()
            self.hset(cell, "v", sstack.pop())
        elif op is B.NEW_CELL:
            frame.locals[arg] = Cell()
        elif op is B.CARRY_CELL:
            old = frame.locals[arg]
            new = Cell(old.value)
            self.hset(new, "v", self.hget(old, "v"))
            frame.locals[arg] = new
        elif op is B.LOAD_CELL:
            stack.append(frame.locals[arg])
            sstack.append(None)
        elif op is B.LOAD_CAPTURE_CELL:
            stack.append(frame.cells[arg])
            sstack.append(None)
        elif op is B.LOAD_GLOBAL:
            stack.append(self.load_global(arg))
            sstack.append(None)
        elif op is B.MAKE_ARRAY:
            items = stack[len(stack) - arg:] if arg else []
            shadows = sstack[len(sstack) - arg:] if arg else []
            if arg:
                del stack[len(stack) - arg:]
                del sstack[len(sstack) - arg:]
            for i, s in enumerate(shadows):
                self.hset(items, i, s)
            stack.append(items)
            sstack.append(None)
        elif op is B.MAKE_MAP:
            n = 2 * arg
            flat = stack[len(stack) - n:] if n else []
            sflat = sstack[len(sstack) - n:] if n else []
            if n:
                del stack[len(stack) - n:]
                del sstack[len(sstack) - n:]
            m = {flat[i]: flat[i + 1] for i in range(0, n, 2)}
            for i in range(0, n, 2):
                self.concretize(frame, sflat[i], flat[i])
                self.hset(m, ("k", flat[i]), sflat[i + 1])
            stack.append(m)
            sstack.append(None)
        elif op is B.MAKE_INSTANCE:
            cls = list(self.program.classes.values())[arg]
            n = len(cls.field_names)
            values = stack[len(stack) - n:] if n else []
            shadows = sstack[len(sstack) - n:] if n else []
            if n:
                del stack[len(stack) - n:]
                del sstack[len(sstack) - n:]
            inst = Instance(cls, values)
            for i, s in enumerate(shadows):
                self.hset(inst, i, s)
            stack.append(inst)
            sstack.append(None)
        elif op is B.MAKE_CLOSURE:
            target = self.program.functions[arg]
            n = target.n_captures
            captured = tuple(stack[len(stack) - n:]) if n else ()
            if n:
                del stack[len(stack) - n:]
                del sstack[len(sstack) - n:]
            stack.append(Closure(target, captured))
            sstack.append(None)
        elif op is B.BOUND_METHOD:
            stack[-1] = Closure(self.program.functions[arg], (), stack[-1], True)
            sstack[-1] = None
        elif op is B.FORMAT:
            self.format(frame, arg)
        elif op is B.THROW:
            sstack.pop()
            raise BamlRaise(stack.pop())
        elif op is B.RETHROW:
            sstack.pop()
            raise self.pending_rethrow(stack.pop())
        elif op is B.UNREACHABLE:
            raise panic("Unreachable", message="entered unreachable code")
        elif op is B.BIT_AND or op is B.BIT_OR or op is B.BIT_XOR or op is B.SHL or op is B.SHR:
            raise AssertionError("bitwise operators go through binary()")
        else:
            raise AssertionError(f"tracked VM: unhandled opcode {op.name}")

    def neg_shadow(self, frame: Frame, value: Any, shadow: Shadow) -> Shadow:
        """The shadow of `-value` (an overflow CHECK for `-INT_MIN`); the caller has asked `pruned`."""
        x = self.x
        e = self.scalar(shadow, value)
        if e is not None and e.sort in (Sort.INT, Sort.FLOAT):
            if e.sort is Sort.INT:
                self.check(frame, "IntegerOverflow", x.not_(x.eq(e, x.const(INT_MIN))), value != INT_MIN)
            return x.neg(e)
        self.concretize(frame, shadow, value)
        return None

    def switch_on(self, frame: Frame, arg: int) -> None:
        value, shadow = frame.stack.pop(), frame.sstack.pop()
        pc = frame.pc - 1
        table, otherwise_pc = frame.fn.switch_tables[arg]
        frame.pc = table.get((type(value), value), otherwise_pc)
        site = frame.site.switches.get(pc)
        if site is not None:
            self.switch_record(frame, site, pc, value, shadow)

    def switch_record(self, frame: Frame, site: tuple[int, Any, int], pc: int, value: Any, shadow: Shadow) -> None:
        """Record the edge a switch site takes and, if the key is symbolic, its condition."""
        block, blocks, otherwise = site
        here = blocks.get((type(value), value), otherwise)
        fn = frame.fn.name
        if frame.site.track_coverage:
            self.trace.edges.append((fn, block, here))
        e = self.scalar(shadow, value)
        if e is None or self.prune_at(frame, pc):
            return
        x = self.x
        conds: dict[int, list[Expr]] = {}
        for (_, key), target in blocks.items():
            k = key.index if isinstance(key, Variant) else key
            if isinstance(key, Variant) != isinstance(value, Variant):
                continue
            conds.setdefault(target, []).append(x.eq(e, x.const(k, e.sort)))
        def reach(target: int) -> Expr:
            if target == otherwise and target not in conds:
                return x.and_(*(x.not_(c) for cs in conds.values() for c in cs))
            return x.or_(*conds.get(target, []))
        observed = reach(here)
        targets = sorted(set(conds) | {otherwise})
        alts = tuple(Alternative(reach(t), (fn, block, t), f"switch->bb{t}") for t in targets if t != here)
        self.record(EntryKind.BRANCH, f"{fn}@{pc}", observed, alts, frame.ctx)

    def read_index(self, frame: Frame) -> None:
        stack, sstack = frame.stack, frame.sstack
        index, sindex = stack.pop(), sstack.pop()
        base = stack[-1]
        sstack.pop()
        stack[-1], shadow = self.read_index_tracked(frame, base, index, sindex)
        sstack.append(shadow)

    def read_index_tracked(self, frame: Frame, base: Any, index: Any, sindex: Shadow) -> tuple[Any, Shadow]:
        """`base[index]` and its shadow (after the bounds or key check)."""
        if isinstance(base, dict):
            return self.read_key(frame, base, index, sindex)
        self.index_check(frame, base, index, sindex)
        result = read_index(base, index)
        if isinstance(base, list):
            return result, self.hget(base, index + len(base) if index < 0 else index)
        return result, self.hget(base, ("k", index))

    def write_index_tracked(self, frame: Frame, base: Any, index: Any, sindex: Shadow, value: Any,
                            shadow: Shadow) -> None:
        """`base[index] = value`, moving its shadow into the heap."""
        if isinstance(base, dict):
            if not self.pruned(frame) and (sindex is not None or self.hget(base, maps.SLOTS) is not None):
                maps.store(self, frame, base, index, sindex, lambda: write_index(base, index, value))
            else:
                self.concretize(frame, sindex, index)
                write_index(base, index, value)
            self.hset(base, ("k", index), shadow)
            return
        self.index_check(frame, base, index, sindex)
        write_index(base, index, value)
        key = (index + len(base) if index < 0 else index) if isinstance(base, list) else ("k", index)
        self.hset(base, key, shadow)

    def index_check(self, frame: Frame, base: Any, index: Any, sindex: Shadow) -> None:
        """`xs[i]` panics unless -n <= i < n; `m[k]` unless the key is present."""
        x = self.x
        if isinstance(base, list):
            n_shadow = self.hget(base, "$len")
            ei = self.scalar(sindex, index)
            if ei is None and not isinstance(n_shadow, Expr) or self.pruned(frame):
                return
            ei = ei if ei is not None else x.const(index)
            n = n_shadow if isinstance(n_shadow, Expr) else x.const(len(base))
            safe = x.and_(x.le(x.neg(n), ei), x.lt(ei, n))
            self.check(frame, "IndexOutOfBounds", safe, -len(base) <= index < len(base))
            if sindex is not None:
                self.concretize(frame, sindex, index)  # which element is read depends on the index
        elif sindex is not None and isinstance(base, dict):
            if self.pruned(frame):
                return
            key = self.scalar(sindex, index)
            if key is not None and type(index) in (str, int) and not isinstance(index, bool):
                present = [x.eq(key, x.const(k)) for k in base if type(k) is type(index)]
                self.check(frame, "MapKeyNotFound", x.or_(*present), index in base)
            self.concretize(frame, sindex, index)

    def read_key(self, frame: Frame, base: dict[Any, Any], key: Any, skey: Shadow) -> tuple[Any, Shadow]:
        """`m[key]`: panics `MapKeyNotFound` unless the key is present (a CHECK when the map's slots or
        the key are symbolic); the value's shadow, its slot pinned (`stdlib.maps`)."""
        followed = None
        if (skey is not None or self.hget(base, maps.SLOTS) is not None) and not self.pruned(frame):
            found = maps.key_expr(self, base, key, skey)
            if found is None:
                self.concretize(frame, skey, key)
            else:
                present = key in base if type(key) in maps.MODELLED_KEYS else False
                self.check(frame, "MapKeyNotFound", maps.has_expr(self, *found), present)
                followed = found
        result = read_index(base, key)  # panics when the key is missing
        shadow = self.hget(base, ("k", key))
        if followed is not None and shadow is not None:
            slots, ek = followed
            maps.pin(self, frame, slots, maps.slot_of(slots, base, key), ek)
        return result, shadow

    def type_test_shadow(self, frame: Frame, test: Callable[[Any], bool], value: Any, shadow: Shadow,
                         result: bool) -> Shadow:
        x = self.x
        if isinstance(shadow, Opt):
            null_passes = test(None)
            if value is None:
                # The value is null here; a present value of the payload type gives the other answer.
                return shadow.present if not null_passes else x.not_(shadow.present)
            if null_passes == result:
                return None
            return shadow.present if result else x.not_(shadow.present)
        if isinstance(shadow, Tagged):
            self.concretize(frame, Tagged(shadow.tag, shadow.index, None), value)
        return None

    def format(self, frame: Frame, arg: int) -> None:
        stack, sstack = frame.stack, frame.sstack
        shape = frame.fn.formats[arg]
        n = shape.count(None)
        values = stack[len(stack) - n:] if n else []
        shadows = sstack[len(sstack) - n:] if n else []
        if n:
            del stack[len(stack) - n:]
            del sstack[len(sstack) - n:]
        text, shadow = self.format_tracked(frame, shape, values, shadows)
        stack.append(text)
        sstack.append(shadow)

    def format_tracked(self, frame: Frame, shape: Any, values: list[Any], shadows: list[Shadow]) -> tuple[str, Shadow]:
        """An interpolated string and its shadow (a concatenation while the pieces are strings)."""
        if any(s is not None for s in shadows) and self.pruned(frame):
            rendered = iter(values)
            return "".join(p if p is not None else render_value(next(rendered)) for p in shape), None
        it = iter(zip(values, shadows))
        x = self.x
        expr: Expr | None = x.const("")
        pieces = []
        for part in shape:
            if part is not None:
                pieces.append(part)
                if expr is not None:
                    expr = x.concat(expr, x.const(part))
                continue
            v, s = next(it)
            text = render_value(v)
            pieces.append(text)
            e = self.scalar(s, v)
            if e is not None and e.sort is Sort.STRING and type(v) is str:
                expr = x.concat(expr, e) if expr is not None else None
            else:
                if s is not None:
                    self.concretize(frame, s, v)
                expr = x.concat(expr, x.const(text)) if expr is not None else None
        return "".join(pieces), (expr if expr is not None and not expr.is_const else None)

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


ORDER_OPS = ORDER
# Unary operators the tracker has no model for (their operand is concretized).
UNMODELLED_UNARY = frozenset(op for op, info in OPCODES.items()
                             if info.pops == 1 and info.impl is not None) - {B.NEG, B.NOT, B.IS_PANIC}
ARITH_KIND = {B.ADD: Op.ADD, B.SUB: Op.SUB, B.MUL: Op.MUL, B.DIV: Op.DIV, B.MOD: Op.MOD}
assert set(ARITH_KIND) == ARITH

# The concrete operators: the opcode table's runtime definitions.
CONCRETE_BINARY: dict[B, Callable[[Any, Any], Any]] = {op: OPCODES[op].impl for op in BINARY}  # type: ignore[misc]


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
