"""The tracker on the compiled tier: BEX translated to Python with the transfer functions built in.

SymCC's lesson: instrumentation compiled into the program beats interpreting
it. `TrackedTranslator` extends the compiled tier's translator
(`ingot.bex.compiled`): the same block layout, but each stack slot and local
gets a shadow variable (`t<i>`, `m<k>`) only where a static pass says the value
can be symbolic (parameters, call results, heap reads, and what flows from
them: `symbolic_locals`, a transfer function for the compiled tier's block
walker, `walk_block`), and only instructions that touch such a value call the tracker. The
calls go to the transfer functions of `ingot.symbolic.transfer.TRANSFER`, the
table the interpreter-tracker runs (`TR<op>(T, F, ...)`, with the VM `T`, so
the hooks a subclass overrides, as packing does, are honoured), so both
trackers record the same path entries, edges and LLM calls. Pure heap moves
(a field's, a cell's or a length's shadow) are inlined as one heap lookup.
Concrete-only code stays plain Python: the concrete part of an instruction is
the compiled tier's template (`ingot.bex.api.templates`), composed here with
its shadow code.

Generated functions take `(d, C, X, l1..ln, m1..mn)` (depth, captured cells,
the call-stack context hash, arguments, their shadows) and return
`(value, shadow)`. Branch and switch sites come from `ingot.view`, read when
the program is translated (cached per program like the concrete tier). The
translation is shared by all VMs on the program, so nothing of one VM is a
global of it: the functions are defined inside `_instantiate(T, _hget, ...)`
(`VM_NAMES`), which each VM calls once for functions closing over its own
tracker runtime, trace and counters (closure cells, read as fast as globals).
"""

from __future__ import annotations

from typing import Any

from ingot.bex.api import (
    BINARY,
    OPCODES,
    STATIC_NAMES,
    BexFunction,
    FunctionTranslator,
    Op,
    Translation,
    check_entry,
    inline_builtin,
    leaves_bytecode,
    make_catch,
    run_guarded,
    templates,
    translate,
    value_callee,
    wrong_arity,
)
from ingot.symbolic import builtin_models
from ingot.symbolic.runtime import panic_builtin_indices, pruned_count
from ingot.symbolic.shadow import Shadow
from ingot.symbolic.tracker import Frame, SiteInfo, TrackedVM, build_site_info
from ingot.symbolic.transfer import TRANSFER, UNMODELLED_UNARY
from ingot.symbolic.translate_ops import Entry, literal_of, static_result
from ingot.view import ProgramView

__all__ = ["CompiledTrackedVM", "TrackedTranslator"]

_BINARY = BINARY
_SCALARS = frozenset({int, float, bool, str, type(None)})
_CONST_KINDS = {bool: "bool", int: "int", float: "float", str: "str", type(None): "none"}  # as the concrete tier


def tr(op: Op) -> str:
    """The name generated code calls `op`'s transfer function by (`TRANSFER[op].shadow`)."""
    return f"TR{int(op)}"


# What the generated functions read from the VM that runs them. They are the parameters of
# the module's one function, `_instantiate`, which defines the BAML functions inside it: each
# VM calls it once and gets functions that close over its own heap, trace and methods, while
# the translation's namespace holds only what every VM shares (constants, transfer functions).
VM_NAMES = ("T", "_hget", "_hset", "MAXD", "MAXA", "_global", "_rethrow", "_tick", "_catch", "_heap", "_heap_get",
            "_heap_pop", "_owners", "_call_value", "_H", "_tracked_at", "_reached", "_reached_division",
            "_reached_index", "_reached_store", "_edges", "_compared")


class TrackedTranslator(FunctionTranslator):
    """Emits one BAML function with shadow variables and tracker calls where values can be symbolic."""

    TICK = "_tick()"  # the tracked VM counts steps in `VM.tick`
    STEP_GLOBALS = False

    @classmethod
    def module_head(cls, mod: Translation) -> list[str]:
        return [f"def _instantiate({', '.join(VM_NAMES)}):"]

    @classmethod
    def module_tail(cls, mod: Translation) -> list[str]:
        """`_instantiate` returns the Python function per BAML function (None where none was emitted)."""
        emitted = {fn.index: name for name, fn in mod.by_code_name.items()}
        return [f"    return [{', '.join(emitted.get(i, 'None') for i in range(len(mod.program.functions)))}]"]

    def out(self, text: str) -> None:
        self.mod.emit(self.indent + 1, text, self.pc)  # inside `_instantiate`

    # -- what can be symbolic ---------------------------------------------------------------
    def analyse(self) -> None:
        super().analyse()
        view: ProgramView = self.mod.context
        self.site: SiteInfo = build_site_info(view.function(self.fn.name))
        self.symbolic, self.scalar_locals = self.symbolic_locals()

    def symbolic_locals(self) -> tuple[set[int], set[int]]:
        """Locals whose shadow can be non-None, and locals that only ever hold scalars (a fixpoint)."""
        fn = self.fn
        symbolic = set(range(1, fn.arity + 1))
        not_scalar = set(range(1, fn.arity + 1)) | {h.slot for h in fn.handlers} | set(fn.cell_params)
        changed = True

        def step(pc: int, op: Op, arg: Any, args: list[Any], stack: list[Any]) -> Any:
            nonlocal changed
            if op == Op.STORE_LOCAL:
                sym, scalar = args[0]
                if sym and arg not in symbolic:
                    symbolic.add(arg)
                    changed = True
                if not scalar and arg not in not_scalar:
                    not_scalar.add(arg)
                    changed = True
            elif op in (Op.NEW_CELL, Op.CARRY_CELL) and arg not in not_scalar:
                not_scalar.add(arg)
                changed = True
            if op == Op.LOAD_LOCAL:
                return (arg in symbolic, arg not in not_scalar)
            return static_result(Op(op), fn, arg, args) if OPCODES[Op(op)].pushes else None

        while changed:
            changed = False
            for b, depth in self.depth.items():
                self.walk(b, [(True, False)] * depth, step)
        return symbolic, set(range(fn.n_locals)) - not_scalar

    # -- function frame -------------------------------------------------------------------------
    def signature(self) -> str:
        n = self.fn.arity
        params = "".join(f", l{i}" for i in range(1, n + 1)) + "".join(f", m{i}" for i in range(1, n + 1))
        return f"def {self.name}(d, C, X{params}):"

    def empty_return(self) -> str:
        return "return None, None"

    def prologue(self) -> None:
        fn = self.fn
        # only locals some instruction reads need a value before their first store (as in the concrete tier)
        others = [f"l{i}" for i in range(fn.arity + 1, fn.n_locals) if i in self.read]
        shadows = [f"m{i}" for i in sorted(self.symbolic) if i > fn.arity and i in self.read]
        # the tracker's frame is made at the first instruction that calls the tracker (`at`):
        # a call whose operands all stay concrete never makes one
        self.out(" = ".join(["l0", *others, *shadows, "F", "None"]))
        self.frame_args = f"{self.const(fn, 'fn')}, {self.const(self.site, 'site')}, X"
        for slot in fn.cell_params:
            self.out(f"l{slot} = {templates.new_cell(f'l{slot}')}")
            self.out(f"_hset(l{slot}, 'v', m{slot})")
            self.out(f"m{slot} = None")

    def on_catch(self, handler: Any) -> None:
        if handler.slot in self.symbolic:
            self.out(f"m{handler.slot} = None")

    def const(self, value: Any, hint: str) -> str:
        return self.mod.const_name(value, f"{hint}{self.fn.index}_{self.pc}")

    def pruned_else(self, concrete: str) -> None:
        """Open the symbolic arm of an operation, after hot-site pruning (`TrackedVM.pruned`) inline.

        `_H[j]`, one per instruction, counts down the executions until the next one the
        interpreter-tracker's `prune_site` would track (a subtraction and a test per
        execution); at zero the operation is tracked and `_tracked_at(j)` sets the next
        countdown, otherwise it runs `concrete`. The pruned executions are counted from
        the counters after the run (`CompiledTrackedVM.inline_pruned`).
        """
        j = self.mod.counter(self.fn.index, self.pc)  # copies of one instruction count together
        self.out("else:")
        self.indent += 1
        self.out(f"_h = _H[{j}] - 1; _H[{j}] = _h")
        self.out(f"if _h: {concrete}")
        self.out("else:")
        self.indent += 1
        self.out(f"_tracked_at({j})")

    def at(self) -> None:
        """Tracker methods name sites by `frame.pc - 1`: point the frame (made now if need be) here."""
        self.out(f"if F is None: F = _frame({self.frame_args})")
        self.out(f"F.pc = {self.pc + 1}")

    # -- the stack of entries -----------------------------------------------------------------
    def flush(self, stack: list[Entry], slot: int | None = None) -> None:  # type: ignore[override]
        """Materialise deferred loads (all entries, or those reading `slot`) into s<i>/t<i>."""
        for i, e in enumerate(stack):
            if e.slot is not None and (slot is None or e.slot == slot) or \
                    slot is None and (e.expr != f"s{i}" or e.sh != f"t{i}"):
                if e.expr != f"s{i}":
                    self.out(f"s{i} = {e.expr}")
                if (slot is None or e.sh is not None) and e.sh != f"t{i}":
                    self.out(f"t{i} = {e.sh or 'None'}")
                stack[i] = Entry(f"s{i}", f"t{i}" if slot is None or e.sh is not None else None,
                                 scalar=e.scalar, kind=e.kind)

    def block(self, start: int, end: int, depth: int) -> tuple[str, str] | None:  # type: ignore[override]
        """Emit one block; return how it exits, like the concrete translator."""
        stack = [Entry(f"s{i}", f"t{i}") for i in range(depth)]
        pc = start
        skip = False
        while pc < end:
            op, arg = self.code[pc]
            self.pc = pc
            if skip:
                skip = False
            elif op == Op.STORE_LOCAL and pc in self.forward:
                skip = True  # a temporary read once, right here: it stays on the stack
            else:
                exit_ = self.instruction(Op(op), arg, stack, end)
                if exit_ is not False:
                    return exit_
            pc += 1
        self.flush(stack)
        self.pc = end - 1
        return ("goto", "") if end < len(self.code) else None

    def push(self, stack: list[Entry], op: Op, arg: Any, operands: list[Entry], kind: str = "") -> tuple[str, str]:
        """The result's variables (s<i>, t<i>) and its entry, with the static facts every pass agrees on."""
        i = len(stack)
        sym, scalar = static_result(op, self.fn, arg, [(e.sh is not None, e.scalar) for e in operands])
        stack.append(Entry(f"s{i}", f"t{i}" if sym else None, scalar=scalar, kind=kind))
        return f"s{i}", f"t{i}"

    @staticmethod
    def pop(stack: list[Entry], n: int) -> list[Entry]:
        if not n:
            return []
        items = stack[len(stack) - n:]
        del stack[len(stack) - n:]
        return items

    def instruction(self, op: Op, arg: Any, stack: list[Entry], end: int) -> Any:  # noqa: C901 - one dispatch
        """Emit one instruction; False to go on, else the block's exit."""
        fn = self.fn
        if op == Op.LOAD_LOCAL:
            stack.append(Entry(f"l{arg}", f"m{arg}" if arg in self.symbolic else None, slot=arg,
                               scalar=arg in self.scalar_locals, kind=self.kinds.get(arg, "")))
        elif op == Op.LOAD_CONST:
            value = fn.consts[arg]
            lit = literal_of(value) or self.mod.const_name(value, f"{fn.index}_{arg}")
            stack.append(Entry(lit, None, scalar=type(value) in _SCALARS, kind=_CONST_KINDS.get(type(value), ""),
                               value=value if type(value) is int else None))
        elif op == Op.STORE_LOCAL:
            (v,) = self.pop(stack, 1)
            self.flush(stack, arg)
            if v.expr != f"l{arg}":
                self.out(f"l{arg} = {v.expr}")
            if arg in self.symbolic:
                self.out(f"m{arg} = {v.sh or 'None'}")
        elif op in (Op.LOAD_DEREF, Op.LOAD_CAPTURE):
            cell = templates.cell(op, arg)
            s, t = self.push(stack, op, arg, [])
            self.out(f"{s} = {templates.cell_value(cell)}; {t} = _hget({cell}, 'v')")
        elif op in (Op.STORE_DEREF, Op.STORE_CAPTURE):
            (v,) = self.pop(stack, 1)
            cell = templates.cell(op, arg)
            self.out(f"{templates.set_cell(cell, v.expr)}; _hset({cell}, 'v', {v.sh or 'None'})")
        elif op == Op.NEW_CELL:
            self.flush(stack, arg)
            self.out(f"l{arg} = {templates.new_cell()}")
        elif op == Op.CARRY_CELL:  # the new cell takes the old one's value and its shadow
            self.flush(stack, arg)
            self.out(f"_n = {templates.new_cell(templates.cell_value(f'l{arg}'))}; "
                     f"_hset(_n, 'v', _hget(l{arg}, 'v')); l{arg} = _n")
        elif op in (Op.LOAD_CELL, Op.LOAD_CAPTURE_CELL):
            stack.append(Entry(templates.cell(op, arg), None, slot=arg if op == Op.LOAD_CELL else None, scalar=True))
        elif op == Op.LOAD_GLOBAL:
            s, _ = self.push(stack, op, arg, [])
            self.out(f"{s} = {templates.load_global(arg)}")
        elif op in _BINARY:
            self.binary(op, stack)
        elif op == Op.NOT:
            (a,) = self.pop(stack, 1)
            self.truth(op, a, stack)
        elif op == Op.NEG:
            (a,) = self.pop(stack, 1)
            s, t = self.push(stack, op, arg, [a])
            plain = templates.negate(a.expr)
            if a.sh is None:
                self.out(f"{s} = {plain}")
            else:
                self.out(f"if {a.sh} is None: {s} = {plain}; {t} = None")
                self.pruned_else(f"{s} = {plain}; {t} = None")
                self.at()
                self.out(f"_s = {tr(op)}(T, F, {a.expr}, {a.sh}); {s} = _neg({a.expr}); {t} = _s")
                self.indent -= 2
        elif op in UNMODELLED_UNARY:  # `~` and any unary operator without a model: concrete operand
            (a,) = self.pop(stack, 1)
            if a.sh is not None:
                self.at()
                self.out(f"{tr(op)}(T, F, {a.expr}, {a.sh})")
            s, _ = self.push(stack, op, arg, [a])
            self.out(f"{s} = {OPCODES[op].runtime_name}({a.expr})")
        elif op == Op.IS_PANIC:
            (a,) = self.pop(stack, 1)
            s, _ = self.push(stack, op, arg, [a], kind="bool")
            self.out(f"{s} = _is_panic({a.expr})")
        elif op == Op.IS_TYPE:
            (a,) = self.pop(stack, 1)
            test = templates.type_test(self.mod, fn, arg)
            s, t = self.push(stack, op, arg, [a], kind="bool")
            if a.sh is None:
                self.out(f"{s} = {templates.is_type(self.mod, fn, arg, a.expr)}")
            else:
                self.out(f"_v = {test}({a.expr})")
                self.at()
                self.out(f"_s = None if {a.sh} is None else {tr(op)}(T, F, {test}, {a.expr}, {a.sh}, _v)")
                self.out(f"{s} = _v; {t} = _s")
        else:
            return self.heap_or_control(op, arg, stack, end)
        return False

    # -- operators ----------------------------------------------------------------------------------
    def binary(self, op: Op, stack: list[Entry]) -> None:
        a, b = self.pop(stack, 2)
        if op in (Op.DIV, Op.MOD):
            self.reached("_reached_division", b.expr)
        code = templates.binary(op, a.operand(), b.operand())
        s, t = self.push(stack, op, None, [a, b], kind=code.kind)
        concrete = f"{s} = {code.expr}"
        if op in (Op.EQ, Op.NE):
            # strings compared unequal, concretely (`TrackerRuntime.compared_strings`), noted
            # before the result's variable is assigned: it may be an operand's
            concrete = (f"type({a.expr}) is str and type({b.expr}) is str and {a.expr} != {b.expr}"
                        f" and _compared({a.expr}, {b.expr}); {concrete}")
        dyn = [e.sh for e in (a, b) if e.sh is not None]
        if not dyn:
            self.out(concrete)
            return
        self.out(f"if {' and '.join(f'{x} is None' for x in dyn)}: {concrete}; {t} = None")
        self.pruned_else(f"{concrete}; {t} = None")
        self.at()
        self.out(f"_s = {tr(op)}(T, F, {a.expr}, {b.expr}, {a.sh or 'None'}, {b.sh or 'None'})")
        # the concrete operation may raise the panic a CHECK above aimed at
        self.out(f"{s} = CB{int(op)}({a.expr}, {b.expr}); {t} = _s")
        self.indent -= 2

    def may_have_shadow(self, a: Entry) -> str | None:
        """A run-time test for "the tracker could know something about this value's truth"."""
        tests = []
        if a.sh is not None:
            tests.append(f"{a.sh} is not None")
        if not a.scalar:
            tests.append(f"type({a.expr}) is list")  # a list's length can be symbolic
        return " or ".join(tests) if tests else None

    def truth(self, op: Op, a: Entry, stack: list[Entry]) -> None:
        test = self.may_have_shadow(a)
        s, t = self.push(stack, op, None, [a], kind="bool")
        value = templates.falsy(a.expr, a.kind)
        if test is None:
            self.out(f"{s} = {value}")
            return
        self.out(f"_s = {tr(op)}(T, F, {a.expr}, {a.sh or 'None'}) if {test} else None")
        self.out(f"{s} = {value}; {t} = _s")

    # -- heap, calls, control ----------------------------------------------------------------------
    def heap_or_control(self, op: Op, arg: Any, stack: list[Entry], end: int) -> Any:  # noqa: C901
        fn, mod = self.fn, self.mod
        if op == Op.READ_FIELD:
            (a,) = self.pop(stack, 1)
            s, t = self.push(stack, op, arg, [a])
            # the shadow heap read inline (`hget`): one dict lookup, no call
            self.out(f"_v = {templates.read_field(a.expr, arg)}; {t} = _heap_get((_o, {arg})) if _owners and (_o := id({a.expr})) in _owners "
                     f"else None; {s} = _v")
        elif op == Op.WRITE_FIELD:
            o, v = self.pop(stack, 2)
            self.out(templates.write_field(o.expr, arg, v.expr))
            self.heap_store(o.expr, str(arg), v.sh)
        elif op == Op.READ_INDEX:
            b, i = self.pop(stack, 2)
            self.reached("_reached_index", b.expr, i.expr)
            s, t = self.push(stack, op, arg, [b, i])
            self.out(f"if {self.plain_index(b, i)}: {s} = {b.expr}[{i.expr}]; "
                     f"{t} = _heap_get((_o, {i.expr})) if _owners and _o in _owners else None")
            self.out("else:")
            self.indent += 1
            self.at()
            self.out(f"{s}, {t} = {tr(op)}(T, F, {b.expr}, {i.expr}, {i.sh or 'None'})")
            self.indent -= 1
        elif op == Op.WRITE_INDEX:
            b, i, v = self.pop(stack, 3)
            self.reached("_reached_store", b.expr, i.expr)
            self.out(f"if {self.plain_index(b, i)}:")
            self.indent += 1
            self.out(f"{b.expr}[{i.expr}] = {v.expr}")
            self.heap_store(b.expr, i.expr, v.sh)
            self.indent -= 1
            self.out("else:")
            self.indent += 1
            self.at()
            self.out(f"{tr(op)}(T, F, {b.expr}, {i.expr}, {i.sh or 'None'}, {v.expr}, {v.sh or 'None'})")
            self.indent -= 1
        elif op == Op.LEN:
            (a,) = self.pop(stack, 1)
            s, t = self.push(stack, op, arg, [a])
            self.out(f"_v = {templates.length(a.expr)}; {t} = _heap_get((_o, '$len')) if type({a.expr}) is list "
                     f"and _owners and (_o := id({a.expr})) in _owners else None; {s} = _v")
        elif op in (Op.MAKE_ARRAY, Op.MAKE_INSTANCE):
            n = arg if op == Op.MAKE_ARRAY else templates.instance_size(mod, arg)
            items = self.pop(stack, n)
            s, _ = self.push(stack, op, arg, items)
            exprs = [e.expr for e in items]
            made = templates.make_array(exprs) if op == Op.MAKE_ARRAY else templates.make_instance(mod, arg, exprs)
            self.out(f"_v = {made}")
            for k, e in enumerate(items):
                if e.sh is not None:  # a new object has no heap entries to clear: store only shadows
                    self.out(f"if {e.sh} is not None: _hset(_v, {k}, {e.sh})")
            self.out(f"{s} = _v")
        elif op == Op.MAKE_MAP:
            flat = self.pop(stack, 2 * arg)
            s, _ = self.push(stack, op, arg, flat)
            pairs = [(flat[i], flat[i + 1]) for i in range(0, 2 * arg, 2)]
            self.out(f"_v = {templates.make_map([e.expr for e in flat])}")
            if any(e.sh is not None for e in flat):
                if any(key.sh is not None for key, _ in pairs):
                    self.at()
                keys = ", ".join(key.expr for key, _ in pairs)
                key_shadows = ", ".join(key.sh or "None" for key, _ in pairs)
                shadows = ", ".join(v.sh or "None" for _, v in pairs)
                self.out(f"{tr(op)}(T, F, _v, [{keys}], [{key_shadows}], [{shadows}])")
            self.out(f"{s} = _v")
        elif op == Op.MAKE_CLOSURE:
            target = mod.program.functions[arg]
            items = self.pop(stack, target.n_captures)
            s, _ = self.push(stack, op, arg, items)
            self.out(f"{s} = {templates.make_closure(mod, arg, [e.expr for e in items])}")
        elif op == Op.BOUND_METHOD:
            (a,) = self.pop(stack, 1)
            s, _ = self.push(stack, op, arg, [a])
            self.out(f"{s} = {templates.bound_method(mod, arg, a.expr)}")
        elif op == Op.FORMAT:
            self.format(arg, stack)
        elif op in (Op.CALL, Op.CALL_BUILTIN, Op.CALL_VALUE):
            self.call(op, arg, stack)
        elif op == Op.JUMP:
            self.flush(stack)
            return ("goto", "tick")
        elif op == Op.POP_JUMP_IF_FALSE:
            (a,) = self.pop(stack, 1)
            self.flush(stack)
            return ("cond", f"not {self.branch(a)}")
        elif op == Op.SWITCH:
            (a,) = self.pop(stack, 1)
            self.flush(stack)
            site = self.site.switches.get(self.pc)
            if site is not None:
                self.at()
                self.out(f"{tr(op)}(T, F, {self.const(site, 'sws')}, {self.pc}, {a.expr}, {a.sh or 'None'})")
            for line in templates.switch(mod, fn, arg, a.expr):
                self.out(line)
            return None
        elif op == Op.RETURN:
            (a,) = self.pop(stack, 1)
            self.out(f"return {a.expr}, {a.sh or 'None'}")
            return None
        elif op in templates.RAISES:
            operand = self.pop(stack, 1)[0].expr if op != Op.UNREACHABLE else ""
            self.out(templates.RAISES[op].format(operand))
            return None
        else:  # pragma: no cover - every opcode has an arm; a test runs the corpus through this translator
            raise AssertionError(f"tracked translation: unhandled opcode {op.name}")
        return False

    def reached(self, method: str, *operands: str) -> None:
        """A panic site executes here: `TrackerRuntime.reached_at` (or its division and index
        forms, with the operands), as the interpreter-tracker calls it."""
        self.out(f"{method}({', '.join((self.const((self.fn.name, self.pc), 'ps'), *operands))})")

    @staticmethod
    def plain_index(b: Entry, i: Entry) -> str:
        """The test for `b[i]` needing no index check: a concrete in-range index into a list of concrete length.

        There `index_check` records nothing, so the element and its shadow are read inline.
        """
        tests = [f"{i.sh} is None"] if i.sh is not None else []
        tests += [templates.index_guard(b.expr, i.expr, i.kind), f"(not _owners or (_o := id({b.expr})) not in _owners or (_o, '$len') not in _heap)"]
        return " and ".join(tests)

    def heap_store(self, obj: str, key: str, sh: str | None) -> None:
        """`hset(obj, key, shadow)`: a concrete value only clears what the heap held there."""
        if sh is None:
            self.out(f"if _owners and (_o := id({obj})) in _owners: _heap_pop((_o, {key}), None)")
        else:
            self.out(f"if {sh} is None:")
            self.out(f"    if _owners and (_o := id({obj})) in _owners: _heap_pop((_o, {key}), None)")
            self.out(f"else: _hset({obj}, {key}, {sh})")

    def branch(self, a: Entry) -> str:
        """Emit a conditional jump's bookkeeping; return the Python name holding the truth value."""
        self.out(f"_c = {templates.truthy(a.expr, a.kind)}")
        site = self.site.branches.get(self.pc)
        if site is None:
            return "_c"
        block, then_bb, else_bb = site
        if self.site.track_coverage:
            then_edge = self.const((self.fn.name, block, then_bb), "et")
            else_edge = self.const((self.fn.name, block, else_bb), "ee")
            self.out(f"_edges.append({then_edge} if _c else {else_edge})")
        test = self.may_have_shadow(a)
        if test is not None:
            self.out(f"if {test}:")
            self.indent += 1
            self.at()
            self.out(f"{tr(Op.POP_JUMP_IF_FALSE)}(T, F, {self.const(site, 'br')}, {self.pc}, {a.expr}, {a.sh or 'None'}, _c)")
            self.indent -= 1
        return "_c"

    def format(self, arg: int, stack: list[Entry]) -> None:
        shape = self.fn.formats[arg]
        items = self.pop(stack, shape.count(None))
        s, t = self.push(stack, Op.FORMAT, arg, items)
        if all(e.sh is None for e in items):
            self.out(f"{s} = {templates.format_text(shape, [e.expr for e in items])}")
            return
        self.at()
        name = self.mod.const_name(shape, f"fmt{self.fn.index}_{arg}")
        self.out(f"{s}, {t} = {tr(Op.FORMAT)}(T, F, {name}, [{', '.join(e.expr for e in items)}], "
                 f"[{', '.join(e.sh or 'None' for e in items)}])")

    def call(self, op: Op, arg: Any, stack: list[Entry]) -> None:
        mod = self.mod
        argc = arg[1] if op != Op.CALL_VALUE else arg
        items = self.pop(stack, argc)
        target = self.pop(stack, 1)[0] if op == Op.CALL_VALUE else None
        s, t = self.push(stack, op, arg, items)
        values = ", ".join(e.expr for e in items)
        shadows = ", ".join(e.sh or "None" for e in items)
        if op == Op.CALL_VALUE:
            assert target is not None
            self.at()
            self.out(f"{s}, {t} = _call_value(d, F, X, {self.pc + 1}, {target.expr}, [{values}], [{shadows}])")
            return
        index = arg[0]
        if op == Op.CALL_BUILTIN:
            key = mod.program.builtin_keys[index]
            if index in panic_builtin_indices(mod.program.builtin_keys):
                self.reached("_reached")
            plain = [f"{e.sh} is None" for e in items if e.sh is not None]
            # a container no shadow was ever stored under gives the model nothing to follow
            # (`baml.deep_copy` reads below the first level, so it always goes to its model)
            owned = "" if key in builtin_models.DEEP else " or not _owners or id({0}) not in _owners"
            plain += [f"(type({e.expr}) in _SCALARS{owned.format(e.expr)})" for e in items if not e.scalar]
            model = (f"{s}, {t} = {tr(op)}(T, F, {key!r}, B{index}, [{values}], [{shadows}])")
            call = inline_builtin(mod.program, index, [e.expr for e in items], s) or f"{s} = B{index}({values})"
            if not plain:
                self.out(f"{call}; {t} = None")
                return
            self.out(f"if {' and '.join(plain)}: {call}; {t} = None")
            self.out("else:")
            self.indent += 1
            self.at()
            self.out(model)
            self.indent -= 1
            return
        callee = mod.program.functions[index]
        if leaves_bytecode(callee, mod.hosts):
            self.at()
            self.out(f"{s}, {t} = {tr(op)}(T, F, {mod.const_name(callee, f'fn{index}')}, [{values}], [{shadows}])")
            return
        self.out(templates.DEPTH_TEST)
        if mod.budget:
            self.out("_tick()")
        args = [f"hash((X, {self.fn.index}, {self.pc + 1}))", *(e.expr for e in items), *(e.sh or "None" for e in items)]
        self.out(f"{s}, {t} = {templates.call_function(index, '()', args)}")


# ----------------------------------------------------------------------------- runtime


def _light_frame(fn: BexFunction, site: SiteInfo, ctx: int) -> Frame:
    """A tracker frame with only what the tracker's methods read (function, pc, site, context)."""
    f = Frame.__new__(Frame)
    f.fn, f.site, f.ctx, f.pc = fn, site, ctx, 0
    return f


class _Runtime:
    """A tracked translation executed once: the namespace every VM's functions share.

    Nothing in it depends on a VM: each VM makes its own functions with `instantiate`,
    so VMs on one translation (an exploration's, one per run; other threads') never
    see each other's state.
    """

    def __init__(self, program: Any, mod: Translation) -> None:
        ns: dict[str, Any] = dict(STATIC_NAMES)
        ns.update(mod.consts)
        ns.update({f"B{i}": b for i, b in enumerate(program.builtins)})
        ns.update({f"CB{int(op)}": OPCODES[op].impl for op in _BINARY})
        # the transfer functions, from the table the interpreter-tracker runs too
        ns.update({tr(op): row.shadow for op, row in TRANSFER.items() if row.shadow is not None})
        ns.update(_frame=_light_frame, _SCALARS=_SCALARS,
                  __name__="ingot.symbolic.compiled_program")
        exec(mod.code, ns)  # noqa: S102 - our own generated code
        self.ns = ns
        self.instantiate = ns["_instantiate"]
        self.n_counters = mod.n_counters


def _runtime(program: Any, mod: Translation) -> _Runtime:
    """The translation executed once, kept on the translation (so it lives as long as its program)."""
    rt = mod.attached.get("tracked")
    if rt is None:
        rt = mod.attached["tracked"] = _Runtime(program, mod)
    return rt


class CompiledTrackedVM(TrackedVM):
    """A `TrackedVM` whose runs execute instrumented generated code; same trace, same results."""

    def __init__(self, view: ProgramView, interner: Any, env: Any, **options: Any) -> None:
        super().__init__(view, interner, env, **options)
        self._funcs: list[Any] | None = None  # this VM's functions (`_Runtime.instantiate`)
        self._funcs_edges: list[Any] | None = None  # the trace's edge list they append to
        self._countdown: list[int] | None = None
        self._last_tracked: list[int] | None = None  # per inline counter: the count of its last tracked execution
        self._pruning = False  # has an inline counter passed the limit?

    def runtime(self) -> _Runtime:
        mod = translate(self.program, self.max_steps is not None, TrackedTranslator, self.view, frozenset(self.hosts))
        return _runtime(self.program, mod)

    def functions(self) -> list[Any]:
        """This VM's Python function per BAML function (None for functions without bytecode)."""
        if self._funcs is None or self._funcs_edges is not self.trace.edges:  # (a replaced trace)
            rt = self.runtime()
            funcs: list[Any] = []
            funcs.extend(rt.instantiate(**self.names(rt, funcs)))
            self._funcs, self._funcs_edges = funcs, self.trace.edges
        return self._funcs

    def names(self, rt: _Runtime, funcs: list[Any]) -> dict[str, Any]:
        """What the generated code reads from this VM (`VM_NAMES`; bound methods: subclass overrides count)."""
        return dict(T=self, _hget=self.hget, _hset=self.hset, MAXD=self.max_depth,
                    MAXA=self.sizes.array if self.sizes.array is not None else 2**62,
                    _global=self.load_global, _rethrow=self.pending_rethrow,
                    _tick=self.tick, _catch=make_catch(self),
                    _heap=self.heap, _heap_get=self.heap.get, _heap_pop=self.heap.pop, _owners=self.owners,
                    _call_value=self._value_caller(funcs), _H=self.counters(rt),
                    _tracked_at=self.tracked_at, _reached=self.reached_at,
                    _reached_division=self.reached_division, _reached_index=self.reached_index,
                    _reached_store=self.reached_store, _edges=self.trace.edges,
                    _compared=self.compared_strings)

    def counters(self, rt: _Runtime) -> list[int]:
        """This VM's countdowns for inline hot-site pruning (`_H` in the code; 1: the next is tracked)."""
        if self._countdown is None:
            self._countdown = [1] * rt.n_counters
            self._last_tracked = [0] * rt.n_counters
        return self._countdown

    def tracked_at(self, j: int) -> None:
        """Inline-counted instruction `j` is tracked at this execution: count down to the next."""
        assert self._countdown is not None and self._last_tracked is not None
        count = self.next_tracked_count(self._last_tracked[j])
        self._last_tracked[j] = count
        gap = self.next_tracked_count(count) - count
        self._countdown[j] = gap
        if gap > 1:
            self._pruning = True  # executions will be skipped from now on

    def inline_pruned(self) -> int:
        """How many executions the inline counters have pruned so far."""
        limit = self.prune_after
        if limit is None or not self._pruning or self._countdown is None or self._last_tracked is None:
            return 0
        counts = (self.next_tracked_count(last) - left for last, left in zip(self._last_tracked, self._countdown))
        return sum(pruned_count(c, limit) for c in counts if c > limit)

    def _value_caller(self, funcs: list[Any]) -> Any:
        max_depth, external, outside = self.max_depth, TRANSFER[Op.CALL_VALUE].shadow, self.outside
        tick = self.tick if self.max_steps is not None else None
        assert external is not None

        def _call_value(d: int, frame: Frame, ctx: int, pc1: int, target: Any, args: list[Any],
                        shadows: list[Shadow]) -> tuple[Any, Shadow]:
            callee, args, shadows, cells = value_callee(target, args, shadows)  # type: ignore[assignment]
            if outside[callee.index]:
                frame.pc = pc1
                return external(self, frame, callee, args, shadows)
            check_entry(d, max_depth, callee, len(args), tick)
            return funcs[callee.index](d + 1, cells, hash((ctx, frame.fn.index, pc1)), *args, *shadows)

        return _call_value

    def run_tracked(self, fn: BexFunction, args: list[Any], shadows: list[Shadow]) -> Any:
        """Run `fn` on `args` whose shadows are `shadows`; the trace is in `self.trace`."""
        if len(args) != fn.arity:
            raise wrong_arity(fn, len(args))
        funcs = self.functions()
        pruned_before = self.inline_pruned()
        try:
            value, self.result_shadow = run_guarded(funcs[fn.index], (), [0, *args, *shadows], self.max_depth)
            return value
        finally:
            self.trace.pruned += self.inline_pruned() - pruned_before
