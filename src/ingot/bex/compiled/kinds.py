"""The compiled tier's kind inference: locals that only ever hold an int, a float or a bool.

A flow-insensitive fixpoint over the stores into each local, from the declared
parameter types, constants and the opcode table's result kinds; the code
generator drops the type tests of such locals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ingot.bex.opcodes import OPCODES, Kind, Op

if TYPE_CHECKING:
    from ingot.bex.compiled.translation import Translation
    from ingot.bex.program import BexFunction


class KindInference:
    """Static kinds of locals (a mixin of the translator: it reads `fn`, `code`, `mod` and the CFG)."""

    fn: BexFunction
    code: list[tuple[Op, Any]]
    mod: Translation
    block_end: dict[int, int]

    def pops(self, op: Op, arg: Any) -> int:
        raise NotImplementedError

    def infer_kinds(self, depth: dict[int, int]) -> dict[int, str]:
        """Locals that only ever hold an int (or only a bool): their checks can go."""
        fn, code = self.fn, self.code
        excluded = set(fn.cell_params) | {h.slot for h in fn.handlers}
        for op, arg in code:
            if op in (Op.LOAD_DEREF, Op.STORE_DEREF, Op.NEW_CELL, Op.CARRY_CELL, Op.LOAD_CELL):
                excluded.add(arg)
        kinds: dict[int, str] = {}
        for i, ty in enumerate(fn.param_types, start=1):
            name = getattr(ty, "name", None)
            if type(ty).__name__ == "Prim" and name in ("int", "bool", "float") and not fn.name.startswith("$"):
                kinds[i] = name
            else:
                excluded.add(i)
        stores: dict[int, list[Any]] = {}
        for b in depth:
            stack: list[Any] = [None] * depth[b]
            for pc in range(b, self.block_end[b]):
                op, arg = code[pc]
                n = self.pops(op, arg)
                args = stack[len(stack) - n:] if n else []
                if n:
                    del stack[len(stack) - n:]
                if op == Op.STORE_LOCAL:
                    stores.setdefault(arg, []).append(args[0])
                if OPCODES[op].pushes:
                    stack.append(self.value_kind(op, arg, args))
        result: dict[int, str] = {}
        for kind in ("int", "bool", "float"):
            # optimistic: a slot keeps the kind while every store into it provides the kind
            chosen = {s_ for s_ in stores if s_ not in excluded and (s_ > fn.arity or kinds.get(s_) == kind)}
            chosen |= {s_ for s_, k in kinds.items() if k == kind and s_ not in excluded}
            changed = True
            while changed:
                changed = False
                for s_ in list(chosen):
                    if any(self.kind_of(v, kind, chosen) != kind for v in stores.get(s_, [])):
                        chosen.discard(s_)
                        changed = True
            for s_ in chosen:
                result[s_] = kind
        return result

    def value_kind(self, op: Op, arg: Any, args: list[Any]) -> Any:
        """A symbolic kind: "int", "bool", ("slot", k), ("int-if", operands) or None (the opcode table's `kind`)."""
        kind = OPCODES[op].kind
        if kind is Kind.CONST:
            return {int: "int", bool: "bool", float: "float"}.get(type(self.fn.consts[arg]))
        if kind is Kind.LOCAL:
            return ("slot", arg)
        if kind is Kind.NUMERIC:
            return ("int-if", tuple(args))
        if kind is Kind.INT or kind is Kind.BOOL:
            return kind.value
        if kind is Kind.BUILTIN:
            key = self.mod.program.builtin_keys[arg[0]]
            if key in ("array.length", "string.length", "array.push"):
                return "int"
            return None
        if kind is Kind.RETURN:
            callee = self.mod.program.functions[arg[0]]
            ret = callee.ret
            if (type(ret).__name__ == "Prim" and getattr(ret, "name", None) in ("int", "bool")
                    and not callee.name.startswith("$") and callee.kind == "body"):
                return ret.name
        return None

    def kind_of(self, v: Any, kind: str, chosen: set[int]) -> str | None:
        if v is None or isinstance(v, str):
            return v
        if v[0] == "slot":
            return kind if v[1] in chosen else None
        if kind in ("int", "float") and all(self.kind_of(x, kind, chosen) == kind for x in v[1]):
            return kind
        return None
