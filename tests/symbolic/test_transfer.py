"""The transfer table: every instruction has a row, and both trackers read it."""

from __future__ import annotations

import pytest

import ingot
from ingot.bex.opcodes import Op
from ingot.concolic.explore import Explorer, Options
from ingot.symbolic.transfer import STEPS, TRANSFER


def test_every_opcode_has_a_transfer_row() -> None:
    assert set(TRANSFER) == set(Op), f"opcodes without a transfer row: {set(Op) - set(TRANSFER)}"


@pytest.mark.parametrize("op", list(Op), ids=lambda op: op.name)
def test_a_row_has_a_transfer_function_or_says_why_not(op: Op) -> None:
    row = TRANSFER[op]
    assert (row.shadow is not None) != bool(row.none), f"{op.name}: a transfer function, or a reason for none"
    # the interpreter-tracker runs the row's arm, or the instruction is one its loop keeps
    assert (row.step is not None) != row.loop
    assert STEPS[op] is row.step


SOURCE = """
function F(x: int, y: int) -> int {
  let t = x * 3 - y;
  if (t > 10) { return t / (y - 2); }
  t
}
"""


def test_both_trackers_call_the_rows_transfer_functions() -> None:
    """The compiled tracker's code calls the table's functions by name; the interpreter's arms call them too."""
    import inspect

    from ingot.bex.compiled import translate
    from ingot.symbolic.compiled_tracker import CompiledTrackedVM, TrackedTranslator, tr
    from ingot.symbolic.expr import Interner

    program = ingot.load(SOURCE)
    vm = CompiledTrackedVM(program.view, Interner(), None)
    ns = vm.runtime().ns
    code = translate(program.bex, True, TrackedTranslator, program.view).source
    for op, row in TRANSFER.items():
        if row.shadow is not None:
            assert ns[tr(op)] is row.shadow
    for op in (Op.GT, Op.SUB, Op.MUL, Op.DIV, Op.POP_JUMP_IF_FALSE):
        assert f"{tr(op)}(T, F, " in code, op.name
    for op in (Op.GT, Op.ADD):
        assert inspect.getclosurevars(TRANSFER[op].step).nonlocals["model"] is TRANSFER[op].shadow  # type: ignore[arg-type]


@pytest.mark.parametrize("tracker", ["interp", "compiled"])
def test_sites_are_function_index_and_pc(tracker: str) -> None:
    program = ingot.load(SOURCE)
    fn = program.bex.by_name["F"]
    run = Explorer(program.view, "F", Options(tracker=tracker)).run({"x": 5, "y": 1})
    kinds = {e.kind.value: e.site for e in run.trace.path}
    assert set(kinds) >= {"branch", "check"}
    branch, check = kinds["branch"], kinds["check"]
    assert branch[0] == fn.index and fn.code[branch[1]][0] == Op.POP_JUMP_IF_FALSE
    assert check[0] == fn.index and check[2] in ("IntegerOverflow", "DivisionByZero")
