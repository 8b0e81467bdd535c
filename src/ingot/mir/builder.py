"""A tiny CFG builder: new blocks, statements, and terminate-once (as rustc's builder/cfg.rs)."""

from __future__ import annotations

from ingot.mir import ir
from ingot.semantics.types import Ty
from ingot.syntax.diagnostics import Span


class CfgBuilder:
    def __init__(self) -> None:
        self.blocks: list[ir.BasicBlock] = []
        self.locals: list[ir.LocalDecl] = []
        self.current: ir.BlockId = self.new_block()

    def new_block(self) -> ir.BlockId:
        self.blocks.append(ir.BasicBlock())
        return len(self.blocks) - 1

    def new_local(self, ty: Ty, name: str | None = None, span: Span | None = None,
                  captured: bool = False) -> ir.Local:
        self.locals.append(ir.LocalDecl(name, ty, span, captured))
        return len(self.locals) - 1

    def push(self, stmt: ir.Statement) -> None:
        self.blocks[self.current].statements.append(stmt)

    def assign(self, place: ir.Place, value: ir.Rvalue, span: Span) -> None:
        self.push(ir.Assign(place, value, span))

    def terminate(self, term: ir.Terminator) -> None:
        block = self.blocks[self.current]
        assert block.terminator is None, f"bb{self.current} is already terminated"
        block.terminator = term

    def goto(self, target: ir.BlockId, span: Span) -> None:
        self.terminate(ir.Goto(target, span))

    def is_terminated(self) -> bool:
        return self.blocks[self.current].terminator is not None

    def switch_to(self, block: ir.BlockId) -> None:
        self.current = block

    def goto_new(self, span: Span) -> ir.BlockId:
        """End the current block with a jump to a fresh block and continue there."""
        nxt = self.new_block()
        if not self.is_terminated():
            self.goto(nxt, span)
        self.current = nxt
        return nxt
