"""Lowering's state and helpers: the per-function state (`FnState`), the CFG builder
in use, temps, blocks, and `LowerError`.

`Lowerer` (lower.py) is this base plus one mixin per part: expressions as operands
(lower_expr.py), `match` arms and patterns (lower_patterns.py), programs, statements,
conditions and `into` (lower.py). The methods one part calls in another are declared here.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingot.mir import ir
from ingot.mir.builder import CfgBuilder
from ingot.semantics import builtins as B
from ingot.semantics.hir import (
    LocalVar,
    TypedProgram,
)
from ingot.semantics.resolve import Items
from ingot.semantics.types import ANY, Ty
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Diagnostic, Span

BINOPS = {op.value: op for op in ir.BinOp}

# Methods implemented in BAML (bex/prelude.baml) rather than natively: the registry's prelude rows.
PRELUDE_KEYS = B.PRELUDE_KEYS


PROMPT_PREFIX = "$prompt."


def prelude_function(key: str) -> str:
    return ir.PRELUDE_PREFIX + key.replace(".", "_")


class LowerError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


@dataclass(slots=True)
class LoopTargets:
    break_to: ir.BlockId
    continue_to: ir.BlockId


@dataclass(slots=True)
class FnState:
    """Lowering state of one function body."""

    cfg: CfgBuilder
    owner: object
    vars: dict[LocalVar, ir.Local] = field(default_factory=dict)
    loops: list[LoopTargets] = field(default_factory=list)
    catch_stack: list[list[ir.BlockId]] = field(default_factory=list)
    regions: list[ir.CatchRegion] = field(default_factory=list)
    output_format: LocalVar | None = None  # in a `$prompt.` function: what ctx.output_format() reads


class LowererBase:
    """State shared by the lowering parts; see the module docstring."""

    def __init__(self, tp: TypedProgram, items: Items) -> None:
        self.tp = tp
        self.items = items
        self.functions: dict[str, ir.MirFunction] = {}
        self.lambda_names: dict[A.Lambda, str] = {}
        self.lambda_counter: dict[str, int] = {}
        self.st: FnState | None = None
        self.fn_name = ""

    # -- helpers ----------------------------------------------------------------
    @property
    def cfg(self) -> CfgBuilder:
        assert self.st is not None
        return self.st.cfg

    def temp(self, ty: Ty = ANY) -> ir.Local:
        return self.cfg.new_local(ty)

    def type_of(self, e: object) -> Ty:
        return self.tp.types.get(e, ANY)

    def new_block(self) -> ir.BlockId:
        b = self.cfg.new_block()
        assert self.st is not None
        for protected in self.st.catch_stack:
            protected.append(b)
        return b

    def switch_to(self, b: ir.BlockId) -> None:
        self.cfg.switch_to(b)

    def dead_block(self) -> None:
        """Continue lowering in an unreachable block (after return/throw/break)."""
        self.switch_to(self.new_block())

    def var_local(self, var: LocalVar) -> ir.Local:
        assert self.st is not None
        if var not in self.st.vars:
            self.st.vars[var] = self.cfg.new_local(var.ty, var.name, var.span, var.captured)
        return self.st.vars[var]

    def assign(self, local: ir.Local, rv: ir.Rvalue, span: Span) -> None:
        self.cfg.assign(ir.LocalPlace(local), rv, span)

    def materialize(self, op: ir.Operand, span: Span) -> ir.Operand:
        """Copy a local's current value into a temp (when later code may change the local)."""
        if isinstance(op, ir.Copy):
            t = self.temp(self.cfg.locals[op.local].ty)
            self.assign(t, ir.Use(op), span)
            return ir.Copy(t)
        return op

    def rvalue_operand(self, rv: ir.Rvalue, span: Span, ty: Ty = ANY) -> ir.Operand:
        t = self.temp(ty)
        self.assign(t, rv, span)
        return ir.Copy(t)

    def unsupported(self, what: str, span: Span) -> LowerError:
        return LowerError(Diagnostic(Code.UNSUPPORTED, f"{what} is not supported yet", span))

    # -- implemented by the parts (lower_expr, lower_patterns, lower) --------------------
    def operand(self, e: A.Expr) -> ir.Operand:
        raise NotImplementedError

    def into(self, e: A.Expr | A.Block, dest: ir.Local) -> None:
        raise NotImplementedError

    def stmt(self, s: A.Stmt) -> None:
        raise NotImplementedError

    def branch_on(self, cond: A.Expr, then_bb: ir.BlockId, else_bb: ir.BlockId) -> None:
        raise NotImplementedError

    def pattern(self, p: A.Pattern, value: ir.Operand, on_match: ir.BlockId, on_fail: ir.BlockId) -> None:
        raise NotImplementedError

    def lower_body(self, name: str, owner: object, params: list[LocalVar], body: A.Block, ret: Ty,
                   span: Span, doc: str | None = None, synthetic: bool = False,
                   captures: list[LocalVar] | None = None,
                   output_format: LocalVar | None = None) -> ir.MirFunction:
        raise NotImplementedError
