"""The MIR extension interface: what extensions may rely on."""

from __future__ import annotations

from pathlib import Path

import ingot
from ingot.view import INT, ListT, ProgramView, StmtId

SNAPSHOTS = Path(__file__).parent / "snapshots"


def view(name: str) -> ProgramView:
    return ingot.load(SNAPSHOTS / name).view


def test_functions_params_and_types() -> None:
    v = view("branches.baml")
    assert [f.name for f in v.functions()] == ["Classify"]
    fn = v.function("Classify")
    assert fn.params[0] == ("x", INT)
    assert fn.params[1][1] == ListT(ingot.view.STRING)
    assert not fn.is_llm
    assert fn.locals[1].is_param and fn.locals[1].name == "x"


def test_blocks_have_one_terminator_and_stable_ids() -> None:
    fn = view("branches.baml").function("Classify")
    for block in fn.blocks:
        assert block.terminator.id == StmtId("Classify", block.id, -1)
        for i, stmt in enumerate(block.statements):
            assert stmt.id == StmtId("Classify", block.id, i)
            assert stmt.span.start.line >= 1
        for s in block.terminator.successors:
            assert 0 <= s < len(fn.blocks)


def test_branch_edges_count_branches_and_switch_targets() -> None:
    fn = view("branches.baml").function("Classify")
    edges = fn.branch_edges()
    branches = [b for b in fn.blocks if b.terminator.kind == "branch"]
    switches = [b for b in fn.blocks if b.terminator.kind == "switch"]
    assert len(switches) == 1
    # `1 | 2` share a target: three distinct targets (0, 1|2, otherwise).
    assert len(edges) == 2 * len(branches) + 3
    assert {e.label for e in edges if e.site.block == switches[0].id} == {"0_i64", "1_i64", "otherwise"}


def test_every_instruction_maps_back_to_mir_and_source() -> None:
    v = view("catch.baml")
    for fn in v.functions():
        blocks = fn.blocks
        for pc in range(fn.code_length):
            rec = fn.transfer(pc)
            sid = fn.stmt_at(pc)
            assert sid.function == fn.name
            block = blocks[sid.block]
            assert sid.index == -1 or sid.index < len(block.statements)
            assert rec.span is not None and rec.op
        for edge in fn.branch_edges():
            assert fn.pcs_of(edge.site), "every branch site has bytecode"


def test_calls_name_their_callee() -> None:
    fn = view("catch.baml").function("Safe")
    callees = {b.terminator.callee for b in fn.blocks if b.terminator.kind == "call"}
    assert callees == {"Check"}


def test_classes() -> None:
    v = view("catch.baml")
    assert [c.name for c in v.classes()] == ["Bad"]
    assert v.classes()[0].fields[0].name == "code"
