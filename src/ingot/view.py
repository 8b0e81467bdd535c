"""The program view: a small, read-only view of a compiled program, its MIR and its bytecode.

With `ingot.bex.api` (the bytecode types, opcode table and executors), this module is
the only way `ingot.symbolic`, `ingot.concolic`, `ingot.coverage`, `ingot.pack` and
`ingot.meta` see compiled programs (an import-linter contract enforces it). It exposes:

- the program: functions, classes (fields with types), enums, aliases,
  tests, and the `_meta.ingot` annotations;
- per function: parameters and their types, locals, basic blocks and the
  entry block; per block its statements and one terminator, each with a
  stable id `StmtId(function, block, index)` (index -1 is the terminator)
  and a source span;
- the branch edges of each function (the unit of coverage);
- per BEX instruction, its transfer record, so a consumer can map an
  executing instruction back to MIR and source.

Each consumer builds what it needs from a `ProgramView` with plain functions
(the explorer its branch edges and literal dictionary, the pack lowering its
torch graph, the annotation layer its tools and commands); there is no
registration step. Internals behind this view may change; the view changes
only deliberately.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from ingot.bex.program import BexFunction, BexProgram, TransferRecord
from ingot.fields_repr import FieldsRepr
from ingot.mir import ir, pretty
from ingot.mir.catch_panics import dead_catch_edges
from ingot.mir.cleanup import successors
from ingot.mir.static_branches import static_dead_edges
from ingot.semantics.clients import ClientRef, ClientSpec, EnvRef
from ingot.semantics.resolve import Items
from ingot.semantics.types import (  # re-exported: consumers name types through this module
    ANY,
    BOOL,
    FLOAT,
    INT,
    NULL,
    STRING,
    AliasT,
    ClassT,
    EnumT,
    FuncT,
    ListT,
    Lit,
    MapT,
    Prim,
    Special,
    Ty,
    UnionT,
    VariantT,
)
from ingot.syntax.diagnostics import Span


@dataclass(frozen=True, slots=True, order=True, repr=False)
class StmtId(FieldsRepr):
    """A stable id of a MIR statement; index -1 names the block's terminator."""

    function: str
    block: int
    index: int

    def __str__(self) -> str:
        return f"{self.function}:bb{self.block}[{'T' if self.index < 0 else self.index}]"


@dataclass(frozen=True, slots=True, repr=False)
class StatementView(FieldsRepr):
    id: StmtId
    kind: str  # "assign", "storage_live"
    text: str
    span: Span


@dataclass(frozen=True, slots=True, repr=False)
class TerminatorView(FieldsRepr):
    id: StmtId
    kind: str  # "goto", "branch", "switch", "return", "call", "throw", "rethrow", "unreachable"
    successors: tuple[int, ...]
    text: str
    span: Span
    callee: str | None = None  # for calls: function name or built-in key


@dataclass(frozen=True, slots=True, repr=False)
class BlockView(FieldsRepr):
    id: int
    statements: tuple[StatementView, ...]
    terminator: TerminatorView


@dataclass(frozen=True, slots=True, order=True, repr=False)
class Edge(FieldsRepr):
    """A branch edge: from the terminator `site` of block `source` to block `target`."""

    site: StmtId
    target: int
    label: str  # "true", "false", a switch case, or "otherwise"

    @property
    def source(self) -> int:
        return self.site.block

    def __str__(self) -> str:
        return f"{self.site}->bb{self.target} ({self.label})"


@dataclass(frozen=True, slots=True, repr=False)
class LocalView(FieldsRepr):
    index: int
    name: str | None
    ty: Ty
    is_param: bool


@dataclass(frozen=True, slots=True, repr=False)
class FieldView(FieldsRepr):
    name: str
    ty: Ty
    description: str | None
    alias: str | None
    doc: str | None
    skip: bool = False


@dataclass(frozen=True, slots=True, repr=False)
class ClassView(FieldsRepr):
    name: str
    fields: tuple[FieldView, ...]
    doc: str | None
    description: str | None
    alias: str | None = None


@dataclass(frozen=True, slots=True, repr=False)
class VariantView(FieldsRepr):
    name: str
    alias: str | None
    description: str | None
    doc: str | None
    skip: bool


@dataclass(frozen=True, slots=True, repr=False)
class EnumView(FieldsRepr):
    name: str
    variants: tuple[str, ...]
    doc: str | None
    members: tuple[VariantView, ...] = ()
    alias: str | None = None
    description: str | None = None


_TERMINATOR_KINDS = {
    ir.Goto: "goto", ir.Branch: "branch", ir.Switch: "switch", ir.Return: "return", ir.Call: "call",
    ir.Throw: "throw", ir.Rethrow: "rethrow", ir.Unreachable: "unreachable",
}


class FunctionView:
    """One function: signature, CFG, branch edges, and its bytecode's transfer records."""

    def __init__(self, mir: ir.MirFunction, bex: BexFunction,
                 dead_edges: frozenset[tuple[int, int]] = frozenset()) -> None:
        self._mir = mir
        # (block, target) of the branch edges no input can take by construction (`_dead_edges`)
        self._dead_edges = dead_edges
        self._bex = bex
        self.name = mir.name
        self.is_llm = mir.kind is ir.FnKind.LLM
        self.synthetic = mir.synthetic
        self.doc = mir.doc
        self.span = mir.span
        self.params: tuple[tuple[str, Ty], ...] = tuple(
            (mir.param_names[i], mir.locals[i + 1].ty) for i in range(mir.arity))
        self.ret: Ty = mir.ret
        self.entry = 0
        self._blocks: tuple[BlockView, ...] | None = None

    @property
    def locals(self) -> tuple[LocalView, ...]:
        return tuple(LocalView(i, d.name, d.ty, 0 < i <= self._mir.arity) for i, d in enumerate(self._mir.locals))

    @property
    def blocks(self) -> tuple[BlockView, ...]:
        if self._blocks is None:
            self._blocks = tuple(self._block(i, b) for i, b in enumerate(self._mir.blocks))
        return self._blocks

    def _block(self, i: int, b: ir.BasicBlock) -> BlockView:
        stmts = tuple(
            StatementView(StmtId(self.name, i, j), "assign" if isinstance(s, ir.Assign) else "storage_live",
                          pretty.statement(s), s.span)
            for j, s in enumerate(b.statements))
        t = b.terminator
        assert t is not None
        callee = None
        if isinstance(t, ir.Call):
            c = t.callee
            callee = c.name if isinstance(c, ir.FnCallee) else c.key if isinstance(c, ir.BuiltinCallee) else None
        term = TerminatorView(StmtId(self.name, i, -1), _TERMINATOR_KINDS[type(t)], tuple(successors(t)),
                              pretty.terminator(t), t.span, callee)
        return BlockView(i, stmts, term)

    def branch_edges(self) -> tuple[Edge, ...]:
        """Every branch edge: two per `branch`, one per distinct target of a `switch`.

        An edge into a compiler-made `unreachable` block (the `otherwise` of an
        exhaustive match, the last type test of an exhaustive match on a union) is
        one no input can take by construction; it is not a branch edge. Nor is the rethrow
        of a panic by a `catch` whose protected code cannot panic, nor the side of an arm's
        error-class test the protected calls rule out (`ingot.mir.catch_panics`), nor the other
        side of a branch a constant or a type test decides, nor an edge out of a block only
        such edges reach (`ingot.mir.static_branches`).
        """
        edges: list[Edge] = []
        blocks = self._mir.blocks

        def dead(target: int) -> bool:
            return isinstance(blocks[target].terminator, ir.Unreachable) and not blocks[target].statements

        for i, b in enumerate(blocks):
            t = b.terminator
            site = StmtId(self.name, i, -1)
            if isinstance(t, ir.Branch):
                edges.extend(Edge(site, target, label) for target, label in ((t.then_bb, "true"), (t.else_bb, "false"))
                             if not dead(target) and (i, target) not in self._dead_edges)
            elif isinstance(t, ir.Switch):
                seen: set[int] = set()
                for key, target in t.arms:
                    if target not in seen and (i, target) not in self._dead_edges:
                        seen.add(target)
                        edges.append(Edge(site, target, pretty.constant(key)))
                if t.otherwise not in seen and not dead(t.otherwise) and (i, t.otherwise) not in self._dead_edges:
                    edges.append(Edge(site, t.otherwise, "otherwise"))
        return tuple(edges)

    # -- bytecode side ------------------------------------------------------------------
    @property
    def code_length(self) -> int:
        return len(self._bex.code)

    def transfer(self, pc: int) -> TransferRecord:
        """The transfer record of instruction `pc`."""
        return self._bex.transfer[pc]

    def transfers(self) -> Sequence[TransferRecord]:
        return tuple(self._bex.transfer)

    def stmt_at(self, pc: int) -> StmtId:
        fn, block, index = self._bex.transfer[pc].mir
        return StmtId(fn, block, index)

    def block_start(self, block: int) -> int:
        """The pc of the first instruction of `block` (its first instruction runs first)."""
        return self._bex.block_starts[block]

    def switch_targets(self, pc: int) -> tuple[Mapping[Any, int], int]:
        """For a `switch` instruction: (runtime key -> MIR block, otherwise block).

        Keys are `(type(value), value)` pairs, so `1` and `True` stay apart.
        """
        op, arg = self._bex.code[pc]
        table, otherwise = self._bex.switch_blocks[arg]
        return MappingProxyType(table), otherwise

    def pcs_of(self, stmt: StmtId) -> tuple[int, ...]:
        key = (stmt.function, stmt.block, stmt.index)
        return tuple(pc for pc, r in enumerate(self._bex.transfer) if r.mir == key)


def _dead_edges(fn: ir.MirFunction, llm: Set[str]) -> frozenset[tuple[int, int]]:
    """(block, target) of the branch edges of `fn` no input can take by construction."""
    return static_dead_edges(fn, dead_catch_edges(fn, llm))


class ProgramView:
    """The read-only view of a compiled program that extensions build on."""

    def __init__(self, mir: ir.MirProgram, bex: BexProgram, items: Items,
                 meta: Mapping[str, Mapping[str, Any]] | None = None,
                 clients: Mapping[str, ClientSpec] | None = None,
                 llm_clients: Mapping[str, ClientSpec] | None = None) -> None:
        self._mir = mir
        self._bex = bex
        self._items = items
        llm = {name for name, fn in mir.functions.items() if fn.kind is ir.FnKind.LLM}
        self._functions = {name: FunctionView(fn, bex.by_name[name], _dead_edges(fn, llm))
                           for name, fn in mir.functions.items()}
        self._meta = MappingProxyType(dict(meta or {}))
        self._clients = MappingProxyType(dict(clients or {}))
        self._llm_clients = MappingProxyType(dict(llm_clients or {}))

    def functions(self, include_synthetic: bool = False) -> tuple[FunctionView, ...]:
        return tuple(f for f in self._functions.values() if include_synthetic or not f.synthetic)

    def function(self, name: str) -> FunctionView:
        return self._functions[name]

    def classes(self) -> tuple[ClassView, ...]:
        out = []
        for name, cls in self._items.classes.items():
            if cls.decl is None:
                continue
            fields = tuple(
                FieldView(f.name, f.ty, _attr(f.decl.attributes, "description") if f.decl else None,
                          _attr(f.decl.attributes, "alias") if f.decl else None, f.decl.doc if f.decl else None,
                          _has(f.decl.attributes, "skip") if f.decl else False)
                for f in cls.fields)
            attrs = cls.decl.attributes
            out.append(ClassView(name, fields, cls.decl.doc, _attr(attrs, "description"), _attr(attrs, "alias")))
        return tuple(out)

    def enums(self) -> tuple[EnumView, ...]:
        out = []
        for name, d in self._items.enums.items():
            members = tuple(VariantView(v.name, _attr(v.attributes, "alias"), _attr(v.attributes, "description"),
                                        v.doc, _has(v.attributes, "skip")) for v in d.variants)
            out.append(EnumView(name, tuple(v.name for v in d.variants), d.doc, members,
                                _attr(d.attributes, "alias"), _attr(d.attributes, "description")))
        return tuple(out)

    def aliases(self) -> Mapping[str, Ty]:
        return MappingProxyType(dict(self._items.alias_types))

    def alias_target(self, name: str) -> Ty:
        return self._items.alias_target(name)

    def tests(self) -> tuple[tuple[str, str | None, str], ...]:
        return tuple(self._mir.tests)

    @property
    def meta(self) -> Mapping[str, Mapping[str, Any]]:
        """`_meta.ingot`: harvested @ingot annotations keyed by item (`Func`, `Func.param`, ...)."""
        return self._meta

    @property
    def bytecode(self) -> BexProgram:
        """The compiled BEX program the view describes (what a VM or tracker executes)."""
        return self._bex

    def clients(self) -> Mapping[str, ClientSpec]:
        """Declared clients by name (`client Fast = openai.ChatClient.new(...)`)."""
        return self._clients

    def client_of(self, function: str) -> ClientSpec | None:
        """The client an LLM function calls (a declared one, or its `"provider/model"` shorthand)."""
        return self._llm_clients.get(function)

    @staticmethod
    def prompt_function(function: str) -> str:
        """The synthetic function rendering an LLM function's prompt: `(output_format, params...) -> string`."""
        return "$prompt." + function


def _has(attrs: Sequence[Any], name: str) -> bool:
    return any(a.name == name for a in attrs)


def _attr(attrs: Sequence[Any], name: str) -> str | None:
    for a in attrs:
        if a.name == name and a.args:
            value = getattr(a.args[0], "value", None)
            return value if isinstance(value, str) else None
    return None


__all__ = [
    "ClientSpec", "EnvRef", "ANY", "BOOL", "FLOAT", "INT", "NULL", "STRING", "AliasT", "BlockView", "ClassT", "ClassView", "Edge",
    "EnumT", "EnumView", "FieldView", "FuncT", "FunctionView", "ListT", "Lit", "LocalView", "MapT",
    "Prim", "ProgramView", "Special", "StatementView", "StmtId", "TerminatorView", "Ty", "UnionT", "VariantT",
    "VariantView", "ClientRef",
]
