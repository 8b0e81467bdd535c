"""The compiled tier's kind inference: locals that only ever hold an int, a float or a bool.

A flow-insensitive fixpoint over the stores into each local, from the declared
parameter types, constants and the opcode table's result kinds (each pass a
transfer function for `stack_walk.walk_block`); the code generator drops the
type tests of such locals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ingot.bex.compiled.stack_walk import Transfer
from ingot.bex.opcodes import OPCODES, Kind, Op
from ingot.stdlib import REGISTRY, BuiltinSpec

if TYPE_CHECKING:
    from ingot.bex.compiled.translation import Translation
    from ingot.bex.program import BexFunction


_SIGN_PRESERVING = frozenset({Op.ADD, Op.MUL, Op.DIV, Op.MOD})  # non-negative operands: a non-negative result


def nonneg(v: Any, chosen: set[int]) -> bool:
    if v is None or isinstance(v, str):
        return v == "nn"
    if v[0] == "slot":
        return bool(v[1] in chosen)
    return all(nonneg(x, chosen) for x in v[1])


def _array_of(op: Op, arg: Any, args: list[Any]) -> Any:
    """"list" for a new array, ("slot", k) for a local's value, None for anything else."""
    if op == Op.MAKE_ARRAY:
        return "list"
    if op == Op.LOAD_LOCAL:
        return ("slot", arg)
    return None


class KindInference:
    """Static kinds of locals (a mixin of the translator: it reads `fn`, `code`, `mod` and the CFG)."""

    fn: BexFunction
    code: list[tuple[Op, Any]]
    mod: Translation
    block_end: dict[int, int]
    lists: set[int]  # (`list_slots`, found before the kinds)

    def walk(self, b: int, stack: list[Any], transfer: Transfer) -> list[Any]:
        raise NotImplementedError

    def infer_kinds(self, depth: dict[int, int]) -> dict[int, str]:
        """Locals that only ever hold an int (or only a bool): their checks can go.

        Jointly, the element kind of the arrays in `lists` that never escape (`element_stores`):
        an array the function made and only reads, indexes, measures and pushes onto holds
        only ints when every element it is given is one; reading it gives an int.
        """
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
        stores = self.stored_values(depth, self.value_kind)
        group, elements = self.element_stores(depth)
        self.elem_group = group
        result: dict[int, str] = {}
        self.elem_kinds: dict[int, str] = {}
        for kind in ("int", "bool", "float"):
            # optimistic: a slot keeps the kind while every store into it provides the kind
            chosen = {s_ for s_ in stores if s_ not in excluded and (s_ > fn.arity or kinds.get(s_) == kind)}
            chosen |= {s_ for s_, k in kinds.items() if k == kind and s_ not in excluded}
            self._elems = set(elements)  # (read by `kind_of`: the array groups still holding the kind)
            changed = True
            while changed:
                changed = False
                for s_ in list(chosen):
                    if any(self.kind_of(v, kind, chosen) != kind for v in stores.get(s_, [])):
                        chosen.discard(s_)
                        changed = True
                for g in list(self._elems):
                    if any(self.kind_of(v, kind, chosen) != kind for v in elements[g]):
                        self._elems.discard(g)
                        changed = True
            for s_ in chosen:
                result[s_] = kind
            self.elem_kinds.update((s_, kind) for s_, g in group.items() if g in self._elems)
        self._elems = set()
        return result

    def element_stores(self, depth: dict[int, int]) -> tuple[dict[int, int], dict[int, list[Any]]]:
        """The arrays of `lists` grouped by copies (`ys = xs` puts both in one group), and per
        group that never escapes, the abstract value (`value_kind`) of every element it gets:
        literal items, pushes and index writes. A group escapes when one of its locals is used
        any other way (passed to a call, returned, stored elsewhere, captured, left on the stack
        past its block...): then anything may be put into it, and it gets no entry."""
        lists = self.lists
        parent = {s_: s_ for s_ in lists}

        def root(s_: int) -> int:
            while parent[s_] != s_:
                s_ = parent[s_]
            return s_

        def listed(v: Any) -> int | None:
            return v[1] if type(v) is tuple and v[0] == "slot" and v[1] in lists else None

        items: dict[int, list[Any]] = {}  # a literal's items by the pc of its MAKE_ARRAY
        got: list[tuple[int, Any]] = []  # (local, element value)
        escaped: set[int] = set()
        def step(pc: int, op: Op, arg: Any, args: list[Any], stack: list[Any]) -> Any:
            allowed = self.list_uses(op, arg, args, got, items, root, listed)
            escaped.update(k for i, v in enumerate(args) if (k := listed(v)) is not None and i not in allowed)
            if op == Op.STORE_LOCAL and arg in lists and (k := listed(args[0])) is not None:
                parent[root(arg)] = root(k)
            if op == Op.MAKE_ARRAY:
                items[pc] = args
                return ("new", pc)
            return self.value_kind(op, arg, args)

        for b in depth:
            stack = self.walk(b, [None] * depth[b], step)
            escaped.update(k for v in stack if (k := listed(v)) is not None)
        gone = {root(k) for k in escaped}
        elements: dict[int, list[Any]] = {}
        for s_ in lists:
            if root(s_) not in gone:
                elements.setdefault(root(s_), [])
        for s_, v in got:
            if root(s_) in elements:
                elements[root(s_)].extend(items[v[1]] if type(v) is tuple and v[0] == "new" else [v])
        return {s_: root(s_) for s_ in lists if root(s_) in elements}, elements

    def list_uses(self, op: Op, arg: Any, args: list[Any], got: list[tuple[int, Any]],
                  items: dict[int, list[Any]], root: Callable[[int], int],
                  listed: Callable[[Any], int | None]) -> set[int]:
        """The operand positions of `op` where an array of `lists` stays in the function's hands
        (recording what it gets in `got`); an array anywhere else escapes."""
        if op in (Op.READ_INDEX, Op.LEN):
            return {0}
        if op == Op.WRITE_INDEX and (k := listed(args[0])) is not None:
            got.append((k, args[2]))
            return {0}
        if op == Op.STORE_LOCAL and arg in self.lists:
            if type(args[0]) is tuple and args[0][0] == "new":
                got.append((arg, args[0]))  # a literal: its items
            return {0}
        if op == Op.CALL_BUILTIN and self.builtin(arg[0]) is not None:
            key = self.mod.program.builtin_keys[arg[0]]
            if key == "array.length":
                return {0}
            if key == "array.push" and (k := listed(args[0])) is not None:
                got.append((k, args[1]))
                return {0}
        return set()

    def stored_values(self, depth: dict[int, int],
                      abstract: Callable[[Op, Any, list[Any]], Any]) -> dict[int, list[Any]]:
        """Per local, the abstract value (`abstract(op, arg, operands)`) of every store into it,
        from one walk of each block's stack (values entering a block are unknown: None)."""
        stores: dict[int, list[Any]] = {}

        def step(pc: int, op: Op, arg: Any, args: list[Any], stack: list[Any]) -> Any:
            if op == Op.STORE_LOCAL:
                stores.setdefault(arg, []).append(args[0])
            return abstract(op, arg, args)

        for b in depth:
            self.walk(b, [None] * depth[b], step)
        return stores

    def list_slots(self, depth: dict[int, int]) -> set[int]:
        """Locals (not parameters) that only ever hold an array the function made itself: every
        store is an array literal or a copy of such a local (a flow-insensitive fixpoint).
        Their indexing needs no type test."""
        excluded = set(self.fn.cell_params) | {h.slot for h in self.fn.handlers}
        for op, arg in self.code:
            if op in (Op.LOAD_DEREF, Op.STORE_DEREF, Op.NEW_CELL, Op.CARRY_CELL, Op.LOAD_CELL):
                excluded.add(arg)
        stores = self.stored_values(depth, _array_of)
        chosen = {s_ for s_ in stores if s_ > self.fn.arity and s_ not in excluded}
        changed = True
        while changed:
            changed = False
            for s_ in list(chosen):
                if not all(v == "list" or v == ("slot", s_) or type(v) is tuple and v[1] in chosen
                           for v in stores[s_]):
                    chosen.discard(s_)
                    changed = True
        return chosen

    def nonneg_slots(self, depth: dict[int, int], kinds: dict[int, str]) -> set[int]:
        """Int locals (not parameters) that are never negative: every store is a non-negative
        constant, a length, or `+ * / %` of such values (an overflow or a zero divisor panics
        rather than wraps). Their `/` and `%` need no sign test."""
        stores = self.stored_values(depth, self.sign_of)
        chosen = {s_ for s_ in stores if kinds.get(s_) == "int" and s_ > self.fn.arity}
        changed = True
        while changed:
            changed = False
            for s_ in list(chosen):
                if not all(nonneg(v, chosen) for v in stores[s_]):
                    chosen.discard(s_)
                    changed = True
        return chosen

    def sign_of(self, op: Op, arg: Any, args: list[Any]) -> Any:
        """"nn" (never negative), ("slot", k), ("all", operands) (when they all are) or None."""
        if op == Op.LOAD_CONST:
            v = self.fn.consts[arg]
            return "nn" if type(v) is int and v >= 0 else None
        if op == Op.LOAD_LOCAL:
            return ("slot", arg)
        if op in _SIGN_PRESERVING:
            return ("all", tuple(args))
        if op == Op.LEN or op == Op.CALL_BUILTIN and (spec := self.builtin(arg[0])) is not None \
                and spec.nonnegative:
            return "nn"
        return None

    def builtin(self, index: int) -> BuiltinSpec | None:
        """The registry row of built-in `index`, when the program runs the registry's implementation."""
        program = self.mod.program
        spec = REGISTRY.get(program.builtin_keys[index])
        return spec if spec is not None and program.builtins[index] is spec.impl else None

    def value_kind(self, op: Op, arg: Any, args: list[Any]) -> Any:
        """A symbolic kind: "int", "bool", ("slot", k), ("int-if", operands) or None (the opcode table's `kind`)."""
        if op == Op.READ_INDEX and args and type(args[0]) is tuple and args[0][0] == "slot" \
                and args[0][1] in self.lists:
            return ("elem", args[0][1])  # an element of an array the function keeps (`element_stores`)
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
            spec = self.builtin(arg[0])
            return spec.result if spec is not None else None
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
        if v[0] == "elem":
            return kind if self.elem_group.get(v[1]) in self._elems else None
        if v[0] == "new":
            return None
        if kind in ("int", "float") and all(self.kind_of(x, kind, chosen) == kind for x in v[1]):
            return kind
        return None
