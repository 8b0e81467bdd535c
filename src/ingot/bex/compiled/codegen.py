"""The compiled tier's code generation: one BEX function to one Python function.

The operand stack disappears (its depth is static): loads of locals and
constants stay symbolic until used, other results live in Python locals
`s0, s1, ...`; BAML locals are `l0, l1, ...`. The concrete code of the
instructions the tracked translator also emits is `templates.py`'s, shared
with it: binary operators (the Python operator under the guard the operands'
static kinds and int ranges leave, the runtime function otherwise), cells'
and captures' loads and stores, LOAD_GLOBAL, LEN, making values, FORMAT,
SWITCH, the index guard, NEG, IS_TYPE, truth tests, raises, BAML calls. Arms are laid out as
`cfg.ControlFlow` decides: structured code (`while` loops and `if` statements)
where the CFG allows, a `pc` dispatch loop otherwise; blocks under a handler are
wrapped in `try/except BamlRaise`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ingot.bex.calls import leaves_bytecode
from ingot.bex.compiled.cfg import ControlFlow
from ingot.bex.compiled.kinds import KindInference
from ingot.bex.compiled.layout import ArmLayout
from ingot.bex.compiled.operands import inline_builtin, literal
from ingot.bex.compiled.ranges import FULL, LENGTH, Interval, IntRanges
from ingot.bex.compiled.steps import StepCounting
from ingot.bex.compiled.templates import (
    DEPTH_TEST,
    RAISES,
    Operand,
    binary,
    bound_method,
    call_function,
    cell,
    cell_value,
    falsy,
    format_text,
    index_guard,
    instance_size,
    is_type,
    length,
    load_global,
    make_array,
    make_closure,
    make_instance,
    make_map,
    negate,
    new_cell,
    read_field,
    set_cell,
    switch,
    write_field,
)
from ingot.bex.opcodes import BINARY, OPCODES, Kind, Op
from ingot.bex.program import BexFunction
from ingot.runtime.values import INT_MAX, INT_MIN

if TYPE_CHECKING:
    from ingot.bex.compiled.translation import Translation


class _Entry:
    """A value on the translation-time stack: a Python expression and what it is known to be."""

    __slots__ = ("expr", "slot", "kind", "value", "range")

    def __init__(self, expr: str, slot: int | None = None, kind: str = "", value: int | None = None,
                 range: Interval = FULL) -> None:
        self.expr = expr
        self.slot = slot  # the local it reads (deferred load), if any
        self.kind = kind  # "int" / "str" / "bool" / "none" / "other" for constants, "bool" for tests
        self.value = value  # an int constant's value
        self.range = (value, value) if value is not None else range  # an int's bounds (`ranges`)

    @property
    def nonneg(self) -> bool:
        """An int known to be >= 0."""
        return self.kind == "int" and self.range[0] >= 0

    def operand(self) -> Operand:
        """Its facts, as the operator templates take them."""
        return Operand(self.expr, self.kind, self.range, self.value)


class FunctionTranslator(ControlFlow, KindInference, IntRanges, StepCounting, ArmLayout):
    # Counted loops become `for ... in range(...)` (`cfg.counted_loop`); this class's `block`
    # leaves out their header's test and step. A variant with a `block` of its own keeps the
    # plain loops unless it says it honours that too (`__init_subclass__`).
    COUNTED_LOOPS = True
    # Innermost counted loops with sums are written twice (`ArmLayout.versioned`); only this
    # class's `block` writes the copy without the sums' tests.
    VERSIONED_LOOPS = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "block" in cls.__dict__ and "COUNTED_LOOPS" not in cls.__dict__:
            cls.COUNTED_LOOPS = False
        if "block" in cls.__dict__:
            cls.VERSIONED_LOOPS = False

    @classmethod
    def module_head(cls, mod: Translation) -> list[str]:
        """Lines before the functions (a variant that wraps them in a function of its own)."""
        return []

    @classmethod
    def module_tail(cls, mod: Translation) -> list[str]:
        """Lines after the functions (the end of that wrapper)."""
        return []

    def __init__(self, mod: Translation, fn: BexFunction) -> None:
        self.mod = mod
        self.fn = fn
        self.code = fn.code
        self.name = f"f{fn.index}"
        mod.by_code_name[self.name] = fn

    # -- output -----------------------------------------------------------------------
    def out(self, text: str) -> None:
        self.mod.emit(self.indent, text, self.pc)

    def run(self) -> None:
        self.indent = 0
        self.pc = 0
        self.out(self.signature())
        self.indent = self.base = 1
        if self.mod.budget and self.STEP_GLOBALS:
            self.out("global _steps")
        if not self.code:
            self.out(self.empty_return())
            return
        self.analyse()
        self.prologue()
        self.local_steps = self.uses_local_steps()
        if not self.local_steps:
            self.layout()
            return
        self.reload_steps()
        self.out("try:")  # (free in CPython until something raises)
        self.indent = self.base = 2
        self.layout()
        self.indent = 1
        self.out("finally:")
        self.indent = 2
        self.out("_steps += _b - _r")  # the steps still pending when it returns or a panic escapes

    def signature(self) -> str:
        params = "".join(f", l{i}" for i in range(1, self.fn.arity + 1))
        return f"def {self.name}(d, C{params}):"

    def empty_return(self) -> str:
        return "return None"

    def analyse(self) -> None:
        """Blocks, stack depths, kinds of locals and the temporaries that stay on the stack."""
        fn = self.fn
        all_leaders = self.leaders()
        self.leader_set = set(all_leaders)
        depth = self.depths(all_leaders)
        self.depth = depth
        self.block_end = {b: (all_leaders[i + 1] if i + 1 < len(all_leaders) else len(self.code))
                          for i, b in enumerate(all_leaders)}
        self.lists = self.list_slots(depth)
        self.kinds = self.infer_kinds(depth)
        self.nonneg = self.nonneg_slots(depth, self.kinds)
        self.ranges = self.int_ranges(self.kinds)
        code = self.code
        loads: dict[int, int] = {}
        for op, arg in code:
            if op == Op.LOAD_LOCAL:
                loads[arg] = loads.get(arg, 0) + 1
        pinned = {arg for op, arg in code
                  if op in (Op.LOAD_DEREF, Op.LOAD_CELL, Op.CARRY_CELL, Op.STORE_DEREF, Op.NEW_CELL)}
        pinned |= {h.slot for h in fn.handlers} | set(fn.cell_params)
        self.forward = {p for p, (op, arg) in enumerate(code)
                        if op == Op.STORE_LOCAL and p + 1 < len(code) and code[p + 1][0] == Op.LOAD_LOCAL
                        and code[p + 1][1] == arg and p + 1 not in self.leader_set
                        and loads.get(arg) == 1 and arg not in pinned}
        self.read = {arg for p, (op, arg) in enumerate(self.code)
                     if op in (Op.LOAD_DEREF, Op.LOAD_CELL, Op.CARRY_CELL, Op.STORE_DEREF)
                     or (op == Op.LOAD_LOCAL and p - 1 not in self.forward)}

    def prologue(self) -> None:
        fn = self.fn
        first = self.stored_first()
        unset = [f"l{i}" for i in [0, *range(fn.arity + 1, fn.n_locals)] if i not in first and (i == 0 or i in self.read)]
        if unset:
            self.out(" = ".join([*unset, "None"]))
        for slot in fn.cell_params:
            self.out(f"l{slot} = {new_cell(f'l{slot}')}")

    def stored_first(self) -> set[int]:
        """Locals every read of which follows a store into them in the same block: they need no
        `None` before the body (every other read local gets one, as the interpreter's slots)."""
        pinned = {arg for op, arg in self.code if op in (Op.LOAD_DEREF, Op.LOAD_CELL, Op.CARRY_CELL,
                                                         Op.STORE_DEREF, Op.NEW_CELL)}
        pinned |= {h.slot for h in self.fn.handlers} | set(self.fn.cell_params)
        stored: set[int] = set()
        unsafe: set[int] = set(pinned)
        for pc, (op, arg) in enumerate(self.code):
            if pc in self.leader_set:
                stored = set()
            if op == Op.STORE_LOCAL:
                stored.add(arg)
            elif op == Op.LOAD_LOCAL and arg not in stored:
                unsafe.add(arg)
        return {k for k in range(self.fn.n_locals) if k not in unsafe}

    pending_tick: int | None = None  # a backward jump's tick left to the counted loop's step that follows

    def on_catch(self, handler: Any) -> None:
        """Code after a handler stored the caught value (variants reset what they shadow)."""

    def body(self, b: int, level: int) -> None:
        """One block's code, then its exit; inlined successors follow in place."""
        if b in self.steps_of:  # a counted loop's `i = i + 1`: the `for` steps
            first, self.pending_tick = self.pending_tick, None
            self.pc = last = self.block_end[b] - 1
            if self.mod.budget and self.code[last][1] <= last:
                if first is not None:
                    self.double_tick(first, last)
                else:
                    self.tick()
            elif first is not None:
                self.pc = first
                self.tick()
            self.out("continue")
            return
        h = self.fn.handler_at(b)
        if h is not None:
            self.pc = b
            self.out("try:")
            self.indent += 1
            opened = len(self.mod.lines)
        term = self.block(b, self.block_end[b], self.depth[b])
        last = self.block_end[b] - 1
        follow: int | None = None
        if term is not None:
            kind, test = term
            ex = self.exits(b)
            if kind == "cond":
                target = ex[0][1]
                self.out(f"if {test}:")
                self.indent += 1
                if target in self.inlined:
                    self.body(target, level + 1)
                else:
                    self.jump(target, False, last)
                self.indent -= 1
                if len(ex) > 1:
                    fall = ex[1][1]
                    self.out("else:")
                    self.indent += 1
                    if fall in self.inlined:
                        self.body(fall, level + 1)
                    else:
                        self.jump(fall, False, last)
                    self.indent -= 1
            elif kind == "goto":
                target = ex[0][1]
                inline = target in self.inlined
                # a copy saves a round of the dispatch (structured code falls through instead);
                # inside this block's `try` it would be covered by its handler: only without one
                copy = (not inline and h is None and not self.structured and target in self.dup
                        and target not in self.path and len(self.path) < 4)
                if (inline or copy) and test == "tick" and self.mod.budget and target <= last:
                    # a backward JUMP ticks even when its target's code follows in place (into a
                    # counted loop's step, which ticks too, as one test: `double_tick`)
                    if inline and h is None and target in self.steps_of and self.local_steps:
                        self.pending_tick = self.pc
                    else:
                        self.tick()
                if inline:
                    follow = target
                elif copy:
                    self.path.append(target)
                    self.body(target, level)
                    self.path.pop()
                else:
                    self.jump(target, test == "tick", last)
        if h is not None:
            if len(self.mod.lines) == opened:
                self.out("pass")  # a block that only jumps to its (inlined) successor
            self.indent -= 1
            self.pc = b
            self.out("except BamlRaise as e:")
            self.indent += 1
            self.out("_catch(e)")
            self.flush_steps()  # (`_catch` charged the trace's frames)
            self.reload_steps()
            if h.slot_kind == "cell":
                self.out(f"l{h.slot} = {new_cell('e.value')}")
            else:
                self.out(f"l{h.slot} = e.value")
            self.on_catch(h)
            self.jump(h.target, False, b, always=True)
            self.indent -= 1
        if follow is not None:
            self.body(follow, level)

    def flush(self, stack: list[_Entry], slot: int | None = None) -> None:
        """Materialise deferred loads (all of them, or those reading `slot`)."""
        for i, e in enumerate(stack):
            if e.slot is not None and (slot is None or e.slot == slot):
                self.out(f"s{i} = {e.expr}")
                stack[i] = _Entry(f"s{i}", kind=e.kind, range=e.range)
            elif slot is None and e.expr != f"s{i}":
                self.out(f"s{i} = {e.expr}")
                stack[i] = _Entry(f"s{i}", kind=e.kind, range=e.range)

    @staticmethod
    def index_in_bounds(index: _Entry, facts: dict[int, Interval]) -> None:
        """After an array access with a local's value: it did not panic, so the index is in
        `[-len, len)` (both bounds strictly inside the int range)."""
        if index.slot is not None:
            lo, hi = facts.get(index.slot, index.range)
            facts[index.slot] = (max(lo, INT_MIN + 1), min(hi, INT_MAX - 1))

    def fusable(self, pc: int, end: int) -> bool:
        """A test whose result is stored, loaded once and branched on: `if not (a < b)`."""
        return (pc + 1 in self.forward and pc + 3 < end
                and self.code[pc + 3][0] == Op.POP_JUMP_IF_FALSE)

    def block(self, start: int, end: int, depth: int) -> tuple[str, str] | None:  # noqa: C901
        """Emit one block's code; return how it exits: ("goto", "tick" or ""), ("cond", test) or None."""
        fn, code, mod = self.fn, self.code, self.mod
        stack: list[_Entry] = [_Entry(f"s{i}") for i in range(depth)]
        facts = dict(self.ranges.get(start, {}))  # int locals' ranges here (`ranges`), kept up to date
        fx = fn.index
        pc = start
        skip = 0
        depth_checked = False  # a call earlier in the block tested `d` against the maximum depth
        while pc < end:
            op, arg = code[pc]
            self.pc = pc
            if skip:
                skip -= 1
                pc += 1
                continue
            # where the result goes: straight into a local when a STORE_LOCAL follows
            dest = f"s{len(stack)}"
            nxt = pc + 1

            def result_dest(npop: int, nxt: int = nxt) -> str:
                nonlocal skip
                d_ = f"s{len(stack) - npop}"
                if nxt < end and nxt not in self.leader_set and code[nxt][0] == Op.STORE_LOCAL:
                    stores = 1
                    if nxt in self.forward:  # a temporary read once right away: into the local it goes to?
                        after = nxt + 2
                        if not (after < end and after not in self.leader_set and after not in self.forward
                                and code[after][0] == Op.STORE_LOCAL and code[after][1] != code[nxt][1]):
                            return d_
                        nxt, stores = after, 3
                    slot = code[nxt][1]
                    keep = stack[:len(stack) - npop]
                    self.flush(keep, slot)
                    stack[:len(keep)] = keep
                    skip = stores
                    facts.pop(slot, None)
                    return f"l{slot}"
                return d_

            def push_result(target: str, kind: str = "", range: Interval = FULL) -> None:
                if target.startswith("l"):
                    if kind == "int" and range != FULL and self.kinds.get(int(target[1:])) == "int":
                        facts[int(target[1:])] = range
                elif target != "_c":
                    stack.append(_Entry(target, kind=kind, range=range if kind == "int" else FULL))

            if op == Op.LOAD_LOCAL:
                kind = self.kinds.get(arg) or ("list" if arg in self.lists else "")
                lo, hi = facts.get(arg, FULL) if kind == "int" else FULL
                if arg in self.nonneg:
                    lo = max(lo, 0)
                stack.append(_Entry(f"l{arg}", slot=arg, kind=kind, range=(lo, hi)))
            elif op == Op.LOAD_CONST:
                value = fn.consts[arg]
                lit = literal(value)
                if lit is None:
                    lit = mod.const_name(value, f"{fx}_{arg}")
                kind = {int: "int", str: "str", bool: "bool", type(None): "none",
                        float: "float"}.get(type(value), "other")
                stack.append(_Entry(lit, kind=kind, value=value if kind == "int" else None))
            elif op == Op.STORE_LOCAL and pc in self.forward:
                # a temporary read once, right here: it stays on the stack
                facts.pop(arg, None)
                stack[-1].kind = stack[-1].kind or self.kinds.get(arg, "")
                skip = 1
            elif op == Op.STORE_LOCAL:
                v = stack.pop()
                facts.pop(arg, None)
                if v.kind == "int" and v.range != FULL and self.kinds.get(arg) == "int":
                    facts[arg] = v.range
                self.flush(stack, arg)
                if v.expr != f"l{arg}" and arg in self.read:  # (stack entries are side-effect free)
                    self.out(f"l{arg} = {v.expr}")
            elif op in (Op.LOAD_DEREF, Op.LOAD_CAPTURE):
                self.out(f"{dest} = {cell_value(cell(Op(op), arg))}")
                stack.append(_Entry(dest))
            elif op in (Op.STORE_DEREF, Op.STORE_CAPTURE):
                v = stack.pop()
                self.out(set_cell(cell(Op(op), arg), v.expr))
            elif op in (Op.NEW_CELL, Op.CARRY_CELL):
                self.flush(stack, arg)
                self.out(f"l{arg} = {new_cell(cell_value(f'l{arg}') if op == Op.CARRY_CELL else '')}")
            elif op in (Op.LOAD_CELL, Op.LOAD_CAPTURE_CELL):
                stack.append(_Entry(cell(Op(op), arg), slot=arg if op == Op.LOAD_CELL else None))
            elif op == Op.LOAD_GLOBAL:
                self.flush_steps()  # (a constant's first load runs its initialiser)
                self.out(f"{dest} = {load_global(arg)}")
                self.reload_steps()
                stack.append(_Entry(dest))
            elif op in BINARY:
                b, a = stack[-1], stack[-2]
                bin_ = binary(Op(op), a.operand(), b.operand(), pc in self.unchecked)
                t = "_c" if bin_.kind == "bool" and self.fusable(pc, end) else result_dest(2)
                del stack[-2:]
                if t == "_c":  # fused into the branch that follows
                    stack.append(_Entry(f"({bin_.expr})", kind="bool"))
                else:
                    for line in bin_.lines(t):
                        self.out(line)
                push_result(t, bin_.kind, bin_.range)
            elif op in (Op.NEG, Op.NOT):
                a = stack[-1]
                t = result_dest(1)
                stack.pop()
                A = a.expr
                if op == Op.NEG:
                    self.out(f"{t} = {negate(A)}")
                    push_result(t, "int" if a.kind == "int" else "")
                else:
                    self.out(f"{t} = {falsy(A, a.kind)}")
                    push_result(t, "bool")
            elif OPCODES[op].impl is not None:
                # any other operator: a call of its runtime definition (the opcode table's `impl`)
                info = OPCODES[op]
                n = len(stack) - info.pops  # type: ignore[operator]
                operands = ", ".join(e.expr for e in stack[n:])
                t = result_dest(len(stack) - n)
                del stack[n:]
                self.out(f"{t} = {info.runtime_name}({operands})")
                push_result(t, {Kind.INT: "int", Kind.BOOL: "bool"}.get(info.kind, ""))
            elif op == Op.JUMP:
                self.flush(stack)
                return ("goto", "tick")
            elif op == Op.POP_JUMP_IF_FALSE:
                v = stack.pop()
                self.flush(stack)
                return ("cond", falsy(v.expr, v.kind))
            elif op == Op.SWITCH:
                v = stack.pop()
                self.flush(stack)
                for line in switch(mod, fn, arg, v.expr):
                    self.out(line)
                return None
            elif op == Op.READ_FIELD:
                a = stack[-1]
                t = result_dest(1)
                stack.pop()
                self.out(f"{t} = {read_field(a.expr, arg)}")
                push_result(t)
            elif op == Op.WRITE_FIELD:
                v = stack.pop()
                o = stack.pop()
                self.out(write_field(o.expr, arg, v.expr))
            elif op == Op.READ_INDEX:
                i_, b_ = stack[-1], stack[-2]
                t = result_dest(2)
                del stack[-2:]
                B, Ix = b_.expr, i_.expr
                if b_.kind == "list" and i_.kind == "int":  # Python's IndexError is the bounds test
                    self.index_in_bounds(i_, facts)
                    self.out(f"try: {t} = {B}[{Ix}]" if i_.nonneg else
                             f"try: {t} = {B}[{Ix}] if {Ix} >= 0 else _read_index({B}, {Ix})")
                    self.out(f"except IndexError: {t} = _read_index({B}, {Ix})")
                    push_result(t, self.elem_kinds.get(b_.slot, "") if b_.slot is not None else "")
                    pc += 1
                    continue
                self.out(f"{t} = {B}[{Ix}] if {index_guard(B, Ix, i_.kind)} else _read_index({B}, {Ix})")
                push_result(t)
            elif op == Op.WRITE_INDEX:
                v = stack.pop()
                i_ = stack.pop()
                b_ = stack.pop()
                B, Ix = b_.expr, i_.expr
                if b_.kind == "list" and i_.kind == "int":  # Python's IndexError is the bounds test
                    self.index_in_bounds(i_, facts)
                    if i_.nonneg:
                        self.out(f"try: {B}[{Ix}] = {v.expr}")
                        self.out(f"except IndexError: _write_index({B}, {Ix}, {v.expr})")
                    else:
                        self.out(f"if {Ix} >= 0:")
                        self.out(f"    try: {B}[{Ix}] = {v.expr}")
                        self.out(f"    except IndexError: _write_index({B}, {Ix}, {v.expr})")
                        self.out(f"else: _write_index({B}, {Ix}, {v.expr})")
                    pc += 1
                    continue
                self.out(f"if {index_guard(B, Ix, i_.kind)}: {B}[{Ix}] = {v.expr}")
                self.out(f"else: _write_index({B}, {Ix}, {v.expr})")
            elif op == Op.LEN:
                a = stack[-1]
                t = result_dest(1)
                stack.pop()
                self.out(f"{t} = {length(a.expr)}")
                push_result(t, "int", LENGTH)
            elif op == Op.MAKE_ARRAY:
                items = [e.expr for e in stack[len(stack) - arg:]] if arg else []
                t = result_dest(arg)
                if arg:
                    del stack[-arg:]
                self.out(f"{t} = {make_array(items)}")
                push_result(t)
            elif op == Op.MAKE_MAP:
                n = 2 * arg
                flat = [e.expr for e in stack[len(stack) - n:]] if n else []
                t = result_dest(n)
                if n:
                    del stack[-n:]
                self.out(f"{t} = {make_map(flat)}")
                push_result(t)
            elif op == Op.MAKE_INSTANCE:
                n = instance_size(mod, arg)
                items = [e.expr for e in stack[len(stack) - n:]] if n else []
                t = result_dest(n)
                if n:
                    del stack[-n:]
                self.out(f"{t} = {make_instance(mod, arg, items)}")
                push_result(t)
            elif op == Op.MAKE_CLOSURE:
                n = mod.program.functions[arg].n_captures
                items = [e.expr for e in stack[len(stack) - n:]] if n else []
                t = result_dest(n)
                if n:
                    del stack[-n:]
                self.out(f"{t} = {make_closure(mod, arg, items)}")
                push_result(t)
            elif op == Op.BOUND_METHOD:
                a = stack[-1]
                t = result_dest(1)
                stack.pop()
                self.out(f"{t} = {bound_method(mod, arg, a.expr)}")
                push_result(t)
            elif op == Op.IS_TYPE:
                a = stack[-1]
                t = result_dest(1)
                stack.pop()
                self.out(f"{t} = {is_type(mod, fn, arg, a.expr)}")
                push_result(t)
            elif op == Op.FORMAT:
                shape = fn.formats[arg]
                n = shape.count(None)
                values = [e.expr for e in stack[len(stack) - n:]] if n else []
                t = result_dest(n)
                if n:
                    del stack[-n:]
                self.out(f"{t} = {format_text(shape, values)}")
                push_result(t)
            elif op == Op.CALL:
                index, argc = arg
                args = [e.expr for e in stack[len(stack) - argc:]] if argc else []
                t = result_dest(argc)
                if argc:
                    del stack[-argc:]
                callee = mod.program.functions[index]
                if leaves_bytecode(callee, mod.hosts):
                    name = mod.const_name(callee, f"fn{index}")
                    self.flush_steps()
                    self.out(f"{t} = _call_external({name}, [{', '.join(args)}])")
                    self.reload_steps()
                else:
                    if not depth_checked:  # (`d` is the same for every call of this block)
                        self.out(DEPTH_TEST)
                        depth_checked = True
                    if mod.budget:
                        self.call_tick()
                    self.out(f"{t} = {call_function(index, '()', args)}")
                    self.reload_steps()
                push_result(t)
            elif op == Op.CALL_BUILTIN:
                index, argc = arg
                args = [e.expr for e in stack[len(stack) - argc:]] if argc else []
                t = result_dest(argc)
                if argc:
                    del stack[-argc:]
                inline = inline_builtin(mod.program, index, args, t)
                if inline is not None:
                    self.out(inline)
                    push_result(t, "int")
                else:
                    self.out(f"{t} = B{index}({', '.join(args)})")
                    push_result(t)
            elif op == Op.CALL_VALUE:
                argc = arg
                args = [e.expr for e in stack[len(stack) - argc:]] if argc else []
                target = f"({stack[len(stack) - argc - 1].expr})"  # (a literal needs the parentheses)
                t = result_dest(argc + 1)
                del stack[len(stack) - argc - 1:]
                mod.value_argcs.add(argc)
                self.out(f"if type({target}) is Closure and not {target}.bound and "
                          f"(_g := FV{argc}.get({target}.function)) is not None:")
                self.indent += 1
                self.out(DEPTH_TEST)
                if mod.budget:
                    self.call_tick()
                self.out(f"{t} = _g(d + 1, {target}.cells{''.join(', ' + x for x in args)})")
                self.reload_steps()
                self.indent -= 1
                self.out("else:")
                self.indent += 1
                self.flush_steps()
                self.out(f"{t} = _call_value(d, {target}, [{', '.join(args)}])")
                self.reload_steps()
                self.indent -= 1
                push_result(t)
            elif op == Op.RETURN:
                v = stack.pop()
                self.out(f"return {v.expr}")
                return None
            elif op in RAISES:
                self.out(RAISES[op].format(stack.pop().expr if op != Op.UNREACHABLE else ""))
                return None
            else:  # pragma: no cover - the opcode table and this switch are checked by a test
                raise AssertionError(f"unknown opcode {op}")
            pc += 1
        # fell off the block: into the next one
        self.flush(stack)
        self.pc = end - 1
        return ("goto", "") if end < len(code) else None
