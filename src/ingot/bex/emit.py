"""MIR -> BEX bytecode, with the transfer table written beside the code.

Stackification is the simplest that is correct (BAML's OptLevel Zero): every
MIR local has a frame slot; a statement pushes its operands, applies its
operation and stores the result. A captured local's slot holds a `Cell`
(LOAD_DEREF/STORE_DEREF); inside a lambda, captured variables are reached
through the closure's cells (LOAD_CAPTURE/STORE_CAPTURE).
"""

from __future__ import annotations

from typing import Any

from ingot.bex.opcodes import BINARY_OPCODES, OPCODES, UNARY_OPCODES, Op
from ingot.bex.program import BexFunction, BexProgram, Closure, Handler, TransferRecord
from ingot.bex.typetest import predicate
from ingot.mir import ir
from ingot.mir.cleanup import successors
from ingot.runtime.errors import ERRORS, PANICS
from ingot.runtime.values import BUILTIN_ENUMS, ClassInfo, EnumInfo
from ingot.semantics.resolve import Items
from ingot.stdlib import BUILTINS
from ingot.syntax.diagnostics import Span


def qualify(name: str) -> str:
    """The runtime name of an item: user items live in the `user` namespace."""
    if name.startswith(("baml.", "ai.", "$")):
        return name
    return "user." + name


class Emitter:
    def __init__(self, mir: ir.MirProgram, items: Items, file: str) -> None:
        self.mir = mir
        self.items = items
        self.file = file
        self.classes: dict[str, ClassInfo] = {}
        for name, cls in items.classes.items():
            if cls.decl is None:
                continue
            self.classes[name] = ClassInfo(qualify(name), tuple(f.name for f in cls.fields))
        for info in list(PANICS.values()) + list(ERRORS.values()):
            self.classes[info.name] = info
        self.enums = {name: BUILTIN_ENUMS.get(name) or EnumInfo(qualify(name), tuple(v.name for v in decl.variants))
                      for name, decl in items.enums.items()}
        self.functions: dict[str, BexFunction] = {}
        for i, (name, fn) in enumerate(mir.functions.items()):
            qualified = qualify(name) if not name.startswith("$") else name
            self.functions[name] = BexFunction(
                name, qualified, i, fn.arity, len(fn.locals),
                "llm" if fn.kind is ir.FnKind.LLM else "body", file=file, n_captures=fn.n_captures,
                param_names=list(fn.param_names), param_types=[fn.locals[i + 1].ty for i in range(fn.arity)],
                ret=fn.ret, synthetic=fn.synthetic)
        self.builtin_keys: list[str] = []
        self.builtin_index: dict[str, int] = {}
        self.class_list = list(self.classes.values())
        self.class_index = {name: i for i, name in enumerate(self.classes)}

    def builtin(self, key: str) -> int:
        if key not in self.builtin_index:
            if key not in BUILTINS:
                raise KeyError(key)
            self.builtin_index[key] = len(self.builtin_keys)
            self.builtin_keys.append(key)
        return self.builtin_index[key]

    def qualified_class(self, name: str) -> str:
        if name in self.classes:
            return self.classes[name].name
        if name in self.enums:
            return self.enums[name].name
        return qualify(name)


class FunctionEmitter:
    def __init__(self, parent: Emitter, mir: ir.MirFunction, out: BexFunction) -> None:
        self.p = parent
        self.mir = mir
        self.out = out
        self.origin: tuple[str, int, int] = (mir.name, 0, 0)
        self.span: Span | None = mir.span
        self.const_index: dict[tuple[type, Any], int] = {}
        self.patches: list[tuple[int, int]] = []  # (pc, target block) for jumps

    # -- instruction output ---------------------------------------------------------
    def emit(self, op: Op, arg: Any = None, argc: int | None = None, detail: str = "") -> int:
        info = OPCODES[op]
        pops = info.pops if isinstance(info.pops, int) else (argc or 0)
        name = info.transfer + (" " + detail if detail else "")
        self.out.code.append((op, arg))
        self.out.transfer.append(TransferRecord(self.origin, name, pops, info.pushes, self.span))
        self.out.lines.append(self.span.start.line if self.span is not None else 0)
        return len(self.out.code) - 1

    def const(self, value: Any) -> int:
        key = (type(value), value if not isinstance(value, (list, dict)) else id(value))
        if key not in self.const_index:
            self.const_index[key] = len(self.out.consts)
            self.out.consts.append(value)
        return self.const_index[key]

    # -- operands -------------------------------------------------------------------
    def load(self, op: ir.Operand) -> None:
        if isinstance(op, ir.Copy):
            decl = self.mir.locals[op.local]
            if decl.capture_index is not None:
                self.emit(Op.LOAD_CAPTURE, decl.capture_index, detail=decl.name or "")
            elif decl.captured:
                self.emit(Op.LOAD_DEREF, op.local, detail=decl.name or "")
            else:
                self.emit(Op.LOAD_LOCAL, op.local, detail=decl.name or "")
            return
        value = op.value
        if isinstance(value, ir.GlobalConst):
            self.emit(Op.LOAD_GLOBAL, self.p.mir.consts.index(value.name), detail=value.name)
            return
        self.emit(Op.LOAD_CONST, self.const(self.runtime_constant(value)), detail=_show(value))

    def runtime_constant(self, value: Any) -> Any:
        if isinstance(value, ir.FnConst):
            return Closure(self.p.functions[value.name])
        if isinstance(value, ir.VariantConst):
            return self.p.enums[value.enum].variant(value.variant)
        return value

    def store_local(self, local: ir.Local) -> None:
        decl = self.mir.locals[local]
        if decl.capture_index is not None:
            self.emit(Op.STORE_CAPTURE, decl.capture_index, detail=decl.name or "")
        elif decl.captured:
            self.emit(Op.STORE_DEREF, local, detail=decl.name or "")
        else:
            self.emit(Op.STORE_LOCAL, local, detail=decl.name or "")

    def load_cell(self, local: ir.Local) -> None:
        decl = self.mir.locals[local]
        if decl.capture_index is not None:
            self.emit(Op.LOAD_CAPTURE_CELL, decl.capture_index, detail=decl.name or "")
        else:
            assert decl.captured, f"{self.mir.name}: _{local} is captured but has no cell"
            self.emit(Op.LOAD_CELL, local, detail=decl.name or "")

    # -- function ---------------------------------------------------------------------
    def run(self) -> None:
        mir, out = self.mir, self.out
        out.cell_params = tuple(i for i in range(1, mir.arity + 1) if mir.locals[i].captured)
        out.block_starts = [-1] * len(mir.blocks)
        if mir.kind is ir.FnKind.LLM:
            return
        order = list(range(len(mir.blocks)))
        for pos, b in enumerate(order):
            out.block_starts[b] = len(out.code)
            block = mir.blocks[b]
            for i, s in enumerate(block.statements):
                self.origin, self.span = (mir.name, b, i), s.span
                self.statement(s)
            assert block.terminator is not None
            self.origin, self.span = (mir.name, b, -1), block.terminator.span
            nxt = order[pos + 1] if pos + 1 < len(order) else None
            self.terminator(block.terminator, nxt)
        for pc, target in self.patches:
            op, _ = out.code[pc]
            out.code[pc] = (op, out.block_starts[target])
        # Switch tables name blocks; now that blocks have addresses, point them at pcs.
        out.switch_blocks = [(dict(table), otherwise) for table, otherwise in out.switch_tables]
        for i, (table, otherwise) in enumerate(out.switch_tables):
            out.switch_tables[i] = ({k: out.block_starts[b] for k, b in table.items()},
                                    out.block_starts[otherwise])
        self.handlers()

    def handlers(self) -> None:
        """Exception table: one entry per catch region, innermost (smallest) first."""
        mir, out = self.mir, self.out
        bounds = out.block_starts + [len(out.code)]  # blocks are laid out in id order
        regions = sorted(mir.catch_regions, key=lambda r: len(r.blocks))
        for r in regions:
            ranges = [(bounds[b], bounds[b + 1]) for b in sorted(r.blocks) if bounds[b] < bounds[b + 1]]
            kind = "cell" if mir.locals[r.error_local].captured else "local"
            out.handlers.append(Handler(tuple(ranges), out.block_starts[r.handler], r.error_local, kind))

    # -- statements -------------------------------------------------------------------
    def statement(self, s: ir.Statement) -> None:
        if isinstance(s, ir.StorageLive):
            self.emit(Op.CARRY_CELL if s.carry else Op.NEW_CELL, s.local,
                      detail=self.mir.locals[s.local].name or "")
            return
        place = s.place
        if isinstance(place, ir.LocalPlace):
            self.rvalue(s.value)
            self.store_local(place.local)
        elif isinstance(place, ir.FieldPlace):
            self.load(ir.Copy(place.base))
            self.rvalue(s.value)
            self.emit(Op.WRITE_FIELD, place.index, detail=f"{place.cls}.{place.name}")
        else:
            self.load(ir.Copy(place.base))
            self.load(ir.Copy(place.index))
            self.rvalue(s.value)
            self.emit(Op.WRITE_INDEX)

    def rvalue(self, rv: ir.Rvalue) -> None:  # noqa: C901 - one dispatch
        if isinstance(rv, ir.Use):
            self.load(rv.operand)
        elif isinstance(rv, ir.BinaryOp):
            self.load(rv.left)
            self.load(rv.right)
            self.emit(BINARY_OPCODES[rv.op.value])
        elif isinstance(rv, ir.UnaryOp):
            self.load(rv.operand)
            self.emit(UNARY_OPCODES[rv.op.value])
        elif isinstance(rv, ir.ReadField):
            self.load(rv.base)
            self.emit(Op.READ_FIELD, rv.index, detail=f"{rv.cls}.{rv.name}")
        elif isinstance(rv, ir.ReadIndex):
            self.load(rv.base)
            self.load(rv.index)
            self.emit(Op.READ_INDEX)
        elif isinstance(rv, ir.Len):
            self.load(rv.base)
            self.emit(Op.LEN)
        elif isinstance(rv, ir.MakeArray):
            for e in rv.elements:
                self.load(e)
            self.emit(Op.MAKE_ARRAY, len(rv.elements), argc=len(rv.elements))
        elif isinstance(rv, ir.MakeMap):
            for k, v in rv.entries:
                self.load(k)
                self.load(v)
            self.emit(Op.MAKE_MAP, len(rv.entries), argc=2 * len(rv.entries))
        elif isinstance(rv, ir.MakeInstance):
            for f in rv.fields:
                self.load(f)
            self.emit(Op.MAKE_INSTANCE, self.p.class_index[rv.cls], argc=len(rv.fields), detail=rv.cls)
        elif isinstance(rv, ir.MakeClosure):
            for c in rv.captures:
                self.load_cell(c)
            fn = self.p.functions[rv.function]
            self.emit(Op.MAKE_CLOSURE, fn.index, argc=len(rv.captures), detail=rv.function)
        elif isinstance(rv, ir.BoundMethod):
            self.load(rv.receiver)
            self.emit(Op.BOUND_METHOD, self.p.functions[rv.function].index, detail=rv.function)
        elif isinstance(rv, ir.IsType):
            self.load(rv.operand)
            test = predicate(rv.ty, self.p.items, self.p.qualified_class)
            self.out.type_tests.append(test)
            self.emit(Op.IS_TYPE, len(self.out.type_tests) - 1, detail=str(rv.ty))
        elif isinstance(rv, ir.Format):
            shape: list[str | None] = []
            n = 0
            for part in rv.parts:
                if isinstance(part, str):
                    shape.append(part)
                else:
                    self.load(part)
                    shape.append(None)
                    n += 1
            self.out.formats.append(tuple(shape))
            self.emit(Op.FORMAT, len(self.out.formats) - 1, argc=n)
        else:
            raise AssertionError(rv)

    # -- terminators --------------------------------------------------------------------
    def jump(self, target: ir.BlockId, nxt: ir.BlockId | None) -> None:
        if target != nxt:
            pc = self.emit(Op.JUMP, target)
            self.patches.append((pc, target))

    def terminator(self, t: ir.Terminator, nxt: ir.BlockId | None) -> None:
        if isinstance(t, ir.Goto):
            self.jump(t.target, nxt)
        elif isinstance(t, ir.Branch):
            self.load(t.cond)
            pc = self.emit(Op.POP_JUMP_IF_FALSE, t.else_bb)
            self.patches.append((pc, t.else_bb))
            self.jump(t.then_bb, nxt)
        elif isinstance(t, ir.Switch):
            self.load(t.value)
            table: dict[Any, int] = {}
            for key, bb in t.arms:
                value = self.runtime_constant(key)
                table[(type(value), value)] = bb
            self.out.switch_tables.append((table, t.otherwise))
            self.emit(Op.SWITCH, len(self.out.switch_tables) - 1)
        elif isinstance(t, ir.Return):
            self.load(ir.Copy(0))
            self.emit(Op.RETURN)
        elif isinstance(t, ir.Call):
            self.call(t)
            self.store_local(t.dest)
            self.jump(t.target, nxt)
        elif isinstance(t, ir.Throw):
            self.load(t.value)
            self.emit(Op.THROW)
        elif isinstance(t, ir.Rethrow):
            self.load(t.value)
            self.emit(Op.RETHROW)
        else:
            self.emit(Op.UNREACHABLE)

    def call(self, t: ir.Call) -> None:
        callee = t.callee
        if isinstance(callee, ir.ValueCallee):
            self.load(callee.callee)
        for a in t.args:
            self.load(a)
        n = len(t.args)
        if isinstance(callee, ir.FnCallee):
            fn = self.p.functions[callee.name]
            self.emit(Op.CALL, (fn.index, n), argc=n, detail=callee.name)
        elif isinstance(callee, ir.BuiltinCallee):
            self.emit(Op.CALL_BUILTIN, (self.p.builtin(callee.key), n), argc=n, detail=callee.key)
        else:
            self.emit(Op.CALL_VALUE, n, argc=n + 1)


def _show(value: Any) -> str:
    if isinstance(value, ir.FnConst):
        return f"fn {value.name}"
    if isinstance(value, ir.VariantConst):
        return f"{value.enum}.{value.variant}"
    return repr(value)


def emit_program(mir: ir.MirProgram, items: Items, file: str) -> BexProgram:
    emitter = Emitter(mir, items, file)
    for name, fn in mir.functions.items():
        FunctionEmitter(emitter, fn, emitter.functions[name]).run()
    funcs = list(emitter.functions.values())
    return BexProgram(funcs, dict(emitter.functions), emitter.classes, emitter.enums, list(mir.consts),
                      emitter.builtin_keys, [BUILTINS[k] for k in emitter.builtin_keys], list(mir.tests), file)


__all__ = ["emit_program", "qualify", "successors"]
