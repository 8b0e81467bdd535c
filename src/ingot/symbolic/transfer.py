"""The transfer table: one row per BEX instruction saying what it does to shadows.

`TRANSFER[op]` is read by both trackers:

- `shadow` is the instruction's transfer function: given the concrete operands
  (and, where the concrete result decides it, the result) and their shadows, it
  returns the result's shadow and records path-condition entries through the
  tracker runtime (`check`, `concretize`, `assume`, `record`). The compiled
  tracker's generated code calls these same functions (`TR<op>` in its
  namespace); the interpreter-tracker calls them from `step`. Instructions whose
  shadow only moves with the value (a local load, a return) or never exists (a
  constant, a closure) have no function, and say why in `none`.
- `step` is the interpreter-tracker's arm: it pops the operands from the frame's
  value and shadow stacks, runs the instruction concretely (the opcode table's
  `impl` where there is one) and pushes the result and the shadow `shadow` gave.
  The interpreter's loop (`TrackedVM.execute`) is a loop over these; it keeps as
  its own only the value moves and the instructions that switch frames (`loop`).

Transfer functions take the tracker (`rt`: a `TrackedVM`, whose methods a
subclass may override, as packing overrides `arith`, `equality`, `concretize`
and `external_call`) and the frame the operation happens in (anything with
`fn`, `pc` one past the instruction, `ctx` and `site`), so a site is
`(frame.fn.index, frame.pc - 1)`. The operator models are
`ingot.symbolic.operators`; built-ins are their registry rows' models
(`ingot.symbolic.builtin_models`). Adding an instruction's symbolic semantics is
one row here (and its emission in `compiled_tracker`); `tests/symbolic` fails on
an opcode without a row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ingot.bex.api import BINARY, OPCODES, Cell, Closure, Op
from ingot.runtime import ops
from ingot.runtime.errors import BamlRaise, is_panic_value, panic
from ingot.runtime.values import Instance
from ingot.symbolic import builtin_models
from ingot.symbolic.operators import (
    binary,
    branch,
    format_shadow,
    neg,
    read_index,
    switch,
    type_test,
    write_index,
)
from ingot.symbolic.shadow import Shadow

if TYPE_CHECKING:
    from ingot.symbolic.tracker import Frame, TrackedVM

__all__ = ["TRANSFER", "Transfer", "STEPS", "UNMODELLED_UNARY"]

Step = Callable[["TrackedVM", "Frame", Any], None]


@dataclass(frozen=True, slots=True)
class Transfer:
    """What one instruction does to shadows (see the module docstring)."""

    shadow: Callable[..., Any] | None  # the transfer function both trackers call
    step: Step | None  # the interpreter-tracker's arm (None: the loop's own, see `loop`)
    none: str = ""  # why there is no transfer function
    loop: bool = False  # the interpreter's loop runs it inline (a value move or a frame switch)


# -- transfer functions without a model of their own --------------------------------------------------
def logical_not(rt: TrackedVM, frame: Any, value: Any, shadow: Shadow) -> Shadow:
    """`!value`: the negated truthiness (a list's truth is its maybe-symbolic length)."""
    cond = rt.truthy(shadow, value)
    return None if cond is None else rt.x.not_(cond)


def unmodelled_unary(rt: TrackedVM, frame: Any, value: Any, shadow: Shadow) -> Shadow:
    """A unary operator without a model (`~`): the operand is fixed, the result concrete."""
    rt.concretize(frame, shadow, value)
    return None


def field_load(rt: TrackedVM, frame: Any, obj: Any, index: int) -> Shadow:
    """A field's shadow is the heap's (the compiled tracker inlines this lookup)."""
    return rt.hget(obj, index)


def field_store(rt: TrackedVM, frame: Any, obj: Any, index: int, shadow: Shadow) -> None:
    rt.hset(obj, index, shadow)


def length(rt: TrackedVM, frame: Any, base: Any) -> Shadow:
    """A list's length may be symbolic (the heap's `$len`); a string's or map's is not tracked here."""
    return rt.hget(base, "$len") if isinstance(base, list) else None


def cell_load(rt: TrackedVM, frame: Any, cell: Cell) -> Shadow:
    return rt.hget(cell, "v")


def cell_store(rt: TrackedVM, frame: Any, cell: Cell, shadow: Shadow) -> None:
    rt.hset(cell, "v", shadow)


def cell_carry(rt: TrackedVM, frame: Any, old: Cell, new: Cell) -> None:
    """A loop's fresh cell starts with the old one's value and shadow."""
    rt.hset(new, "v", rt.hget(old, "v"))


def elements(rt: TrackedVM, frame: Any, obj: Any, shadows: list[Shadow]) -> Shadow:
    """A new array or instance: its elements' shadows go to the heap; the object itself is concrete."""
    for i, s in enumerate(shadows):
        if s is not None:
            rt.hset(obj, i, s)
    return None


def map_entries(rt: TrackedVM, frame: Any, m: dict[Any, Any], keys: list[Any], key_shadows: list[Shadow],
                value_shadows: list[Shadow]) -> Shadow:
    """A map literal: symbolic keys are fixed, the values' shadows go to the heap."""
    for key, sk, sv in zip(keys, key_shadows, value_shadows):
        rt.concretize(frame, sk, key)
        if sv is not None:
            rt.hset(m, ("k", key), sv)
    return None


def external(rt: TrackedVM, frame: Any, fn: Any, args: list[Any], shadows: list[Shadow]) -> tuple[Any, Shadow]:
    """A call of a function without bytecode (LLM or host): the environment's value (`external_call`)."""
    return rt.external_call(frame, fn, args, shadows)


# -- the interpreter-tracker's arms ---------------------------------------------------------------------
def _pop(frame: Frame, n: int) -> tuple[list[Any], list[Shadow]]:
    if not n:
        return [], []
    stack, sstack = frame.stack, frame.sstack
    values, shadows = stack[len(stack) - n:], sstack[len(sstack) - n:]
    del stack[len(stack) - n:]
    del sstack[len(sstack) - n:]
    return values, shadows


def _binary_step(op: Op) -> Step:
    impl: Callable[[Any, Any], Any] = OPCODES[op].impl  # type: ignore[assignment]
    model = TRANSFER_FUNCTIONS[op]

    divides = op in (Op.DIV, Op.MOD)
    compares = op in (Op.EQ, Op.NE)

    def step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
        stack, sstack = frame.stack, frame.sstack
        if divides:  # a panic site: how far the divisor is from zero (`concolic.aiming`)
            vm.reached_division((frame.fn.name, frame.pc - 1), stack[-1])
        b, sb = stack.pop(), sstack.pop()
        a, sa = stack[-1], sstack[-1]
        if sa is None and sb is None or vm.pruned(frame):
            if compares and type(a) is str and type(b) is str and a != b:
                vm.compared_strings(a, b)  # (the solver cannot see this one: the random rounds may)
            stack[-1] = impl(a, b)
            sstack[-1] = None
            return
        symbolic = model(vm, frame, a, b, sa, sb)
        stack[-1] = impl(a, b)  # may raise the panic a CHECK above aimed at
        sstack[-1] = symbolic

    step.__name__ = f"step_{op.name.lower()}"
    return step


def _neg_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    stack, sstack = frame.stack, frame.sstack
    value, shadow = stack[-1], sstack[-1]
    sstack[-1] = None if shadow is None or vm.pruned(frame) else neg(vm, frame, value, shadow)
    stack[-1] = ops.neg(value)


def _not_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    stack, sstack = frame.stack, frame.sstack
    value = stack[-1]
    stack[-1] = not ops.truthy(value)
    sstack[-1] = logical_not(vm, frame, value, sstack[-1])


def _unmodelled_step(op: Op) -> Step:
    impl: Callable[[Any], Any] = OPCODES[op].impl  # type: ignore[assignment]

    def step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
        stack, sstack = frame.stack, frame.sstack
        sstack[-1] = unmodelled_unary(vm, frame, stack[-1], sstack[-1])
        stack[-1] = impl(stack[-1])

    return step


def _is_panic_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    frame.stack[-1] = is_panic_value(frame.stack[-1])
    frame.sstack[-1] = None


def _is_type_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    stack, sstack = frame.stack, frame.sstack
    value, shadow = stack[-1], sstack[-1]
    test = frame.fn.type_tests[arg]
    result = test(value)
    stack[-1] = result
    sstack[-1] = None if shadow is None else type_test(vm, frame, test, value, shadow, result)


def _read_field_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    obj = frame.stack[-1]
    frame.stack[-1] = obj.fields[arg]
    frame.sstack[-1] = field_load(vm, frame, obj, arg)


def _write_field_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    (obj, value), (_, shadow) = _pop(frame, 2)
    obj.fields[arg] = value
    field_store(vm, frame, obj, arg, shadow)


def _read_index_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    vm.reached_index((frame.fn.name, frame.pc - 1), frame.stack[-2], frame.stack[-1])
    (base, index), (_, sindex) = _pop(frame, 2)
    value, shadow = read_index(vm, frame, base, index, sindex)
    frame.stack.append(value)
    frame.sstack.append(shadow)


def _write_index_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    vm.reached_store((frame.fn.name, frame.pc - 1), frame.stack[-3], frame.stack[-2])
    (base, index, value), (_, sindex, shadow) = _pop(frame, 3)
    write_index(vm, frame, base, index, sindex, value, shadow)


def _len_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    base = frame.stack[-1]
    frame.stack[-1] = len(base)
    frame.sstack[-1] = length(vm, frame, base)


def _jump_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    if arg < frame.pc and vm.max_steps is not None:
        vm.tick()
    frame.pc = arg


def _branch_step(vm: TrackedVM, frame: Frame, else_pc: Any) -> None:
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
        vm.trace.edges.append((frame.fn.name, block, then_bb if taken else else_bb))
    branch(vm, frame, site, pc, value, shadow, taken)


def _switch_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    value, shadow = frame.stack.pop(), frame.sstack.pop()
    pc = frame.pc - 1
    table, otherwise_pc = frame.fn.switch_tables[arg]
    frame.pc = table.get((type(value), value), otherwise_pc)
    site = frame.site.switches.get(pc)
    if site is not None:
        switch(vm, frame, site, pc, value, shadow)


def _load_deref_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    cell = frame.locals[arg]
    frame.stack.append(cell.value)
    frame.sstack.append(cell_load(vm, frame, cell))


def _load_capture_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    cell = frame.cells[arg]
    frame.stack.append(cell.value)
    frame.sstack.append(cell_load(vm, frame, cell))


def _store_deref_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    cell = frame.locals[arg]
    cell.value = frame.stack.pop()
    cell_store(vm, frame, cell, frame.sstack.pop())


def _store_capture_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    cell = frame.cells[arg]
    cell.value = frame.stack.pop()
    cell_store(vm, frame, cell, frame.sstack.pop())


def _new_cell_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    frame.locals[arg] = Cell()


def _carry_cell_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    old = frame.locals[arg]
    new = Cell(old.value)
    cell_carry(vm, frame, old, new)
    frame.locals[arg] = new


def _push_concrete(frame: Frame, value: Any) -> None:
    frame.stack.append(value)
    frame.sstack.append(None)


def _load_cell_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    _push_concrete(frame, frame.locals[arg])


def _load_capture_cell_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    _push_concrete(frame, frame.cells[arg])


def _load_global_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    _push_concrete(frame, vm.load_global(arg))


def _make_array_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    items, shadows = _pop(frame, arg)
    _push_concrete(frame, items)
    elements(vm, frame, items, shadows)


def _make_map_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    flat, sflat = _pop(frame, 2 * arg)
    m = {flat[i]: flat[i + 1] for i in range(0, 2 * arg, 2)}
    map_entries(vm, frame, m, flat[0::2], sflat[0::2], sflat[1::2])
    _push_concrete(frame, m)


def _make_instance_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    cls = list(vm.program.classes.values())[arg]
    values, shadows = _pop(frame, len(cls.field_names))
    inst = Instance(cls, values)
    elements(vm, frame, inst, shadows)
    _push_concrete(frame, inst)


def _make_closure_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    target = vm.program.functions[arg]
    captured, _ = _pop(frame, target.n_captures)
    _push_concrete(frame, Closure(target, tuple(captured)))


def _bound_method_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    frame.stack[-1] = Closure(vm.program.functions[arg], (), frame.stack[-1], True)
    frame.sstack[-1] = None


def _format_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    shape = frame.fn.formats[arg]
    values, shadows = _pop(frame, shape.count(None))
    text, shadow = format_shadow(vm, frame, shape, values, shadows)
    frame.stack.append(text)
    frame.sstack.append(shadow)


def _call_builtin_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    index, argc = arg
    if index in vm.panic_builtins:  # `assert.*`, `baml.sys.panic`: a panic site (`concolic.aiming`)
        vm.reached_at((frame.fn.name, frame.pc - 1))
    args, shadows = _pop(frame, argc)
    value, shadow = builtin_models.call(vm, frame, vm.program.builtin_keys[index], vm.program.builtins[index],
                                        args, shadows)
    frame.stack.append(value)
    frame.sstack.append(shadow)


def _throw_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    frame.sstack.pop()
    raise BamlRaise(frame.stack.pop())


def _rethrow_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    frame.sstack.pop()
    raise vm.pending_rethrow(frame.stack.pop())


def _unreachable_step(vm: TrackedVM, frame: Frame, arg: Any) -> None:
    raise panic("Unreachable", message="entered unreachable code")


# -- the table ----------------------------------------------------------------------------------------
def _binary_model(op: Op) -> Callable[..., Shadow]:
    def model(rt: TrackedVM, frame: Any, a: Any, b: Any, sa: Shadow, sb: Shadow) -> Shadow:
        return binary(rt, frame, op, a, b, sa, sb)

    model.__name__ = f"binary_{op.name.lower()}"
    return model


# Unary operators without a model (their operand is concretized): read from the opcode table.
UNMODELLED_UNARY = frozenset(op for op, info in OPCODES.items()
                             if info.pops == 1 and info.impl is not None) - {Op.NEG, Op.NOT, Op.IS_PANIC}

TRANSFER_FUNCTIONS: dict[Op, Callable[..., Any]] = {op: _binary_model(op) for op in BINARY}

MOVES = "the shadow moves with the value"
NEVER = "the result is never symbolic"
_ROWS: dict[Op, Transfer] = {
    Op.LOAD_CONST: Transfer(None, None, NEVER, loop=True),
    Op.LOAD_LOCAL: Transfer(None, None, MOVES, loop=True),
    Op.STORE_LOCAL: Transfer(None, None, MOVES, loop=True),
    Op.LOAD_DEREF: Transfer(cell_load, _load_deref_step),
    Op.STORE_DEREF: Transfer(cell_store, _store_deref_step),
    Op.NEW_CELL: Transfer(None, _new_cell_step, "a new cell holds nothing"),
    Op.LOAD_CELL: Transfer(None, _load_cell_step, "a cell reference is never symbolic"),
    Op.LOAD_CAPTURE: Transfer(cell_load, _load_capture_step),
    Op.STORE_CAPTURE: Transfer(cell_store, _store_capture_step),
    Op.LOAD_CAPTURE_CELL: Transfer(None, _load_capture_cell_step, "a cell reference is never symbolic"),
    Op.LOAD_GLOBAL: Transfer(None, _load_global_step, "constants are concrete"),
    **{op: Transfer(TRANSFER_FUNCTIONS[op], _binary_step(op)) for op in BINARY},
    Op.NEG: Transfer(neg, _neg_step),
    Op.NOT: Transfer(logical_not, _not_step),
    **{op: Transfer(unmodelled_unary, _unmodelled_step(op)) for op in UNMODELLED_UNARY},
    Op.IS_PANIC: Transfer(None, _is_panic_step, "whether a value is a panic is never symbolic"),
    Op.JUMP: Transfer(None, _jump_step, "a jump moves no value"),
    Op.POP_JUMP_IF_FALSE: Transfer(branch, _branch_step),
    Op.SWITCH: Transfer(switch, _switch_step),
    Op.READ_FIELD: Transfer(field_load, _read_field_step),
    Op.WRITE_FIELD: Transfer(field_store, _write_field_step),
    Op.READ_INDEX: Transfer(read_index, _read_index_step),
    Op.WRITE_INDEX: Transfer(write_index, _write_index_step),
    Op.LEN: Transfer(length, _len_step),
    Op.MAKE_ARRAY: Transfer(elements, _make_array_step),
    Op.MAKE_MAP: Transfer(map_entries, _make_map_step),
    Op.MAKE_INSTANCE: Transfer(elements, _make_instance_step),
    Op.MAKE_CLOSURE: Transfer(None, _make_closure_step, "captures are cells, whose shadows the heap keeps"),
    Op.BOUND_METHOD: Transfer(None, _bound_method_step, "a bound method is never symbolic"),
    Op.IS_TYPE: Transfer(type_test, _is_type_step),
    Op.FORMAT: Transfer(format_shadow, _format_step),
    # Calls of BAML code pass the arguments' shadows to the callee's parameters (the loop switches frames).
    Op.CALL: Transfer(external, None, loop=True),
    Op.CALL_BUILTIN: Transfer(builtin_models.call, _call_builtin_step),
    Op.CALL_VALUE: Transfer(external, None, loop=True),
    Op.RETURN: Transfer(None, None, MOVES, loop=True),
    Op.THROW: Transfer(None, _throw_step, "a raised value's shadow is dropped"),
    Op.RETHROW: Transfer(None, _rethrow_step, "a raised value's shadow is dropped"),
    Op.UNREACHABLE: Transfer(None, _unreachable_step, "it only panics"),
    Op.CARRY_CELL: Transfer(cell_carry, _carry_cell_step),
}

TRANSFER: MappingProxyType[Op, Transfer] = MappingProxyType(_ROWS)

# The interpreter-tracker's arms indexed by opcode number (None: the loop's own).
STEPS: tuple[Step | None, ...] = tuple(_ROWS[Op(i)].step if i in Op._value2member_map_ else None
                                       for i in range(max(Op) + 1))
