"""Symbolic expressions: a hash-consed DAG with constant folding.

Nodes are built only through an `Interner`, which returns the existing node
for a structurally equal one: equal expressions are the *same object*, so
caches key on node identity. Constants fold at construction (`c1 + c2`,
`x + 0`, `not not e`). A node knows the input variables it depends on (for
constraint-independence slicing) and its size (to cap runaway expressions).

`bool(expr)` raises: `if a == b:` on a symbolic value would be silently
wrong (the claripy lesson).

Sorts follow BAML: INT is BAML's 63-bit int (checked against overflow by the
tracker's CHECK entries, not by the sort), FLOAT is modelled as a real number
(see DESIGN.md: rounding and NaN are not modelled; replay catches the rare
mismatch), BOOL, STRING.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from ingot.symbolic import string_ops as so


class Sort(Enum):
    INT = "int"
    FLOAT = "float"
    BOOL = "bool"
    STRING = "string"


class Op(Enum):
    CONST = "const"
    VAR = "var"
    # arithmetic (INT or FLOAT): DIV and MOD truncate toward zero, as BAML does
    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "/"
    MOD = "%"
    NEG = "neg"
    TO_FLOAT = "to_float"
    # comparisons -> BOOL
    EQ = "=="
    LT = "<"
    LE = "<="
    # boolean
    AND = "and"
    OR = "or"
    NOT = "not"
    ITE = "ite"
    # strings
    CONCAT = "concat"
    LENGTH = "length"
    CONTAINS = "contains"
    PREFIX = "starts_with"
    SUFFIX = "ends_with"
    CASELESS = "caseless"  # ASCII only, no letters of the case named by the value ("upper"/"lower")
    # string positions, substrings and conversions (SMT-LIB meaning: `symbolic/string_ops.py`)
    INDEX_OF = "index_of"  # (s, t, start) -> INT
    LAST_INDEX_OF = "last_index_of"  # (s, t) -> INT
    SUBSTR = "substr"  # (s, start, count) -> STRING
    REPLACE = "replace"  # (s, t, u) -> STRING, the first occurrence
    REPLACE_ALL = "replace_all"  # (s, t, u) -> STRING
    TO_INT = "to_int"  # (s) -> INT
    TO_CODE = "to_code"  # (s) -> INT
    FROM_INT = "from_int"  # (n) -> STRING
    IN_RE = "in_re"  # (s) -> BOOL, in the language of the value (a `string_ops.Regex`)


@dataclass(frozen=True, slots=True, eq=False, repr=False)  # its own __repr__ below
class Expr:
    """One node. Compare with `is`; build only through `Interner`."""

    op: Op
    sort: Sort
    args: tuple[Expr, ...]
    value: Any  # the constant for CONST, the name for VAR, else None
    id: int
    vars: frozenset[str]
    depth: int  # longest path to a leaf; the tracker concretizes past a limit
    is_const: bool  # op is CONST (a field, not a property: it is asked on every operation)

    def __bool__(self) -> bool:
        raise TypeError("a symbolic expression has no truth value; compare it through the Interner")

    def __repr__(self) -> str:
        return show(self)


def show(e: Expr) -> str:
    if e.op is Op.CONST:
        return repr(e.value)
    if e.op is Op.VAR:
        return str(e.value)
    if len(e.args) == 2 and e.op.value in ("+", "-", "*", "/", "%", "==", "<", "<="):
        return f"({show(e.args[0])} {e.op.value} {show(e.args[1])})"
    return f"{e.op.value}(" + ", ".join(show(a) for a in e.args) + ")"


INT_MIN = -(1 << 62)
INT_MAX = (1 << 62) - 1


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _trunc_mod(a: int, b: int) -> int:
    return a - b * _trunc_div(a, b)


@dataclass
class Interner:
    """Owns the nodes of one exploration; folds constants as it builds."""

    table: dict[tuple[Any, ...], Expr] = field(default_factory=dict)
    counter: itertools.count = field(default_factory=itertools.count)
    # Constants by (value, its type, the sort asked for): a tracked run lifts every concrete
    # operand it meets, so this skips working out the sort and building the table key.
    _consts: dict[tuple[Any, type, Sort | None], Expr] = field(default_factory=dict, init=False, repr=False)

    def _node(self, op: Op, sort: Sort, args: tuple[Expr, ...], value: Any = None) -> Expr:
        # The hot path of every tracked run: keys use the members' plain values (an Enum's
        # own hash is a Python-level call) and unary/binary nodes avoid generic loops.
        n = len(args)
        if n == 2:
            a, b = args
            ids: tuple[int, ...] = (a.id, b.id)
        elif n == 1:
            ids = (args[0].id,)
        else:
            ids = tuple([a.id for a in args])
        if op is Op.CONST:
            key: tuple[Any, ...] = (op._value_, sort._value_, ids, value, type(value))
        elif op is Op.VAR or op is Op.CASELESS or op is Op.IN_RE:
            key = (op._value_, sort._value_, ids, value)
        else:
            key = (op._value_, sort._value_, ids)
        node = self.table.get(key)
        if node is None:
            node = self._new(op, sort, args, value)
            self.table[key] = node
        return node

    def _new(self, op: Op, sort: Sort, args: tuple[Expr, ...], value: Any) -> Expr:
        if op is Op.VAR:
            vs: frozenset[str] = frozenset((value,))
        elif len(args) == 1:
            vs = args[0].vars
        elif len(args) == 2:
            va, vb = args[0].vars, args[1].vars
            vs = va if not vb or va is vb else vb if not va else va | vb
        else:
            vs = frozenset().union(*(a.vars for a in args))
        depth = 1 + max([a.depth for a in args], default=0)
        return Expr(op, sort, args, value, next(self.counter), vs, depth, op is Op.CONST)

    # -- leaves ------------------------------------------------------------------------
    def const(self, value: Any, sort: Sort | None = None) -> Expr:
        key = (value, type(value), sort)
        node = self._consts.get(key)
        if node is not None:
            return node
        kind = sort_of(value) if sort is None else sort
        node = self._node(Op.CONST, kind, (), float(value) if kind is Sort.FLOAT else value)
        if value == value:  # not NaN (a NaN key is never found again)
            self._consts[key] = node
        return node

    def var(self, name: str, sort: Sort) -> Expr:
        return self._node(Op.VAR, sort, (), name)

    def true(self) -> Expr:
        return self.const(True, Sort.BOOL)

    def false(self) -> Expr:
        return self.const(False, Sort.BOOL)

    # -- arithmetic ----------------------------------------------------------------------
    def arith(self, op: Op, a: Expr, b: Expr) -> Expr:
        sort = Sort.FLOAT if Sort.FLOAT in (a.sort, b.sort) else Sort.INT
        if sort is Sort.FLOAT:
            a, b = self.to_float(a), self.to_float(b)
        if a.is_const and b.is_const:
            folded = _fold_arith(op, a.value, b.value, sort)
            if folded is not None:
                return self.const(folded, sort)
        zero = 0.0 if sort is Sort.FLOAT else 0
        if op is Op.ADD:
            if b.is_const and b.value == zero:
                return a
            if a.is_const and a.value == zero:
                return b
        if op is Op.SUB and b.is_const and b.value == zero:
            return a
        if op is Op.MUL:
            if b.is_const and b.value == 1:
                return a
            if a.is_const and a.value == 1:
                return b
        return self._node(op, sort, (a, b))

    def neg(self, a: Expr) -> Expr:
        if a.is_const:
            return self.const(-a.value, a.sort)
        if a.op is Op.NEG:
            return a.args[0]
        return self._node(Op.NEG, a.sort, (a,))

    def to_float(self, a: Expr) -> Expr:
        if a.sort is Sort.FLOAT:
            return a
        if a.is_const:
            return self.const(float(a.value), Sort.FLOAT)
        return self._node(Op.TO_FLOAT, Sort.FLOAT, (a,))

    # -- comparisons --------------------------------------------------------------------
    def eq(self, a: Expr, b: Expr) -> Expr:
        if a is b:
            return self.true()
        if a.sort is not b.sort:
            if {a.sort, b.sort} <= {Sort.INT, Sort.FLOAT}:
                # BAML: 1 == 1.0 is false (different types are never equal).
                return self.false()
            return self.false()
        if a.is_const and b.is_const:
            return self.const(a.value == b.value, Sort.BOOL)
        if a.sort is Sort.BOOL:
            if b.is_const:
                return a if b.value else self.not_(a)
            if a.is_const:
                return b if a.value else self.not_(b)
        if a.id > b.id:
            a, b = b, a  # canonical order: x == y and y == x are one node
        return self._node(Op.EQ, Sort.BOOL, (a, b))

    def lt(self, a: Expr, b: Expr) -> Expr:
        return self._order(Op.LT, a, b)

    def le(self, a: Expr, b: Expr) -> Expr:
        return self._order(Op.LE, a, b)

    def _order(self, op: Op, a: Expr, b: Expr) -> Expr:
        if a.sort is not b.sort and {a.sort, b.sort} <= {Sort.INT, Sort.FLOAT}:
            a, b = self.to_float(a), self.to_float(b)
        if a.is_const and b.is_const:
            return self.const(a.value < b.value if op is Op.LT else a.value <= b.value, Sort.BOOL)
        if a is b:
            return self.const(op is Op.LE, Sort.BOOL)
        return self._node(op, Sort.BOOL, (a, b))

    # -- booleans ---------------------------------------------------------------------------
    def not_(self, a: Expr) -> Expr:
        if a.is_const:
            return self.const(not a.value, Sort.BOOL)
        if a.op is Op.NOT:
            return a.args[0]
        return self._node(Op.NOT, Sort.BOOL, (a,))

    def and_(self, *parts: Expr) -> Expr:
        flat = []
        for p in parts:
            if p.is_const:
                if not p.value:
                    return self.false()
                continue
            flat.append(p)
        if not flat:
            return self.true()
        if len(flat) == 1:
            return flat[0]
        return self._node(Op.AND, Sort.BOOL, tuple(flat))

    def or_(self, *parts: Expr) -> Expr:
        flat = []
        for p in parts:
            if p.is_const:
                if p.value:
                    return self.true()
                continue
            flat.append(p)
        if not flat:
            return self.false()
        if len(flat) == 1:
            return flat[0]
        return self._node(Op.OR, Sort.BOOL, tuple(flat))

    def ite(self, c: Expr, a: Expr, b: Expr) -> Expr:
        if c.is_const:
            return a if c.value else b
        if a is b:
            return a
        return self._node(Op.ITE, a.sort, (c, a, b))

    # -- strings ------------------------------------------------------------------------------
    def concat(self, a: Expr, b: Expr) -> Expr:
        if a.is_const and b.is_const:
            return self.const(a.value + b.value, Sort.STRING)
        if a.is_const and a.value == "":
            return b
        if b.is_const and b.value == "":
            return a
        return self._node(Op.CONCAT, Sort.STRING, (a, b))

    def length(self, a: Expr) -> Expr:
        if a.is_const:
            return self.const(len(a.value), Sort.INT)
        if a.op is Op.CONCAT:
            return self.arith(Op.ADD, self.length(a.args[0]), self.length(a.args[1]))
        return self._node(Op.LENGTH, Sort.INT, (a,))

    def str_pred(self, op: Op, s: Expr, part: Expr) -> Expr:
        """`s.includes(part)`, `s.starts_with(part)`, `s.ends_with(part)`."""
        if s.is_const and part.is_const:
            fn = {Op.CONTAINS: str.__contains__, Op.PREFIX: str.startswith, Op.SUFFIX: str.endswith}[op]
            return self.const(bool(fn(s.value, part.value)), Sort.BOOL)
        if part.is_const and part.value == "":
            return self.true()
        return self._node(op, Sort.BOOL, (s, part))


    def caseless(self, s: Expr, case: str) -> Expr:
        """`s` is ASCII without `case` letters, so lowering (or raising) it changes nothing."""
        if s.is_const:
            return self.const(caseless_value(s.value, case), Sort.BOOL)
        return self._node(Op.CASELESS, Sort.BOOL, (s,), case)

    def str_op(self, op: Op, *args: Expr, value: Any = None) -> Expr:
        """One of the string operations of `string_ops` (folded when every argument is constant)."""
        sort = _STRING_OP_SORTS[op]
        if all(a.is_const for a in args):
            return self.const(_eval_string_op(op, value, [a.value for a in args]), sort)
        return self._node(op, sort, args, value)


_STRING_OP_SORTS = {Op.INDEX_OF: Sort.INT, Op.LAST_INDEX_OF: Sort.INT, Op.SUBSTR: Sort.STRING,
                    Op.REPLACE: Sort.STRING, Op.REPLACE_ALL: Sort.STRING, Op.TO_INT: Sort.INT,
                    Op.TO_CODE: Sort.INT, Op.FROM_INT: Sort.STRING, Op.IN_RE: Sort.BOOL}


def _eval_string_op(op: Op, value: Any, a: list[Any]) -> Any:
    if op is Op.IN_RE:
        return so.matches(a[0], value)
    return _STRING_OP_FUNCTIONS[op](*a)


_STRING_OP_FUNCTIONS: dict[Op, Callable[..., Any]] = {
    Op.INDEX_OF: so.index_of, Op.LAST_INDEX_OF: so.last_index_of, Op.SUBSTR: so.substr, Op.REPLACE: so.replace,
    Op.REPLACE_ALL: so.replace_all, Op.TO_INT: so.to_int, Op.TO_CODE: so.to_code, Op.FROM_INT: so.from_int}


def caseless_value(s: str, case: str) -> bool:
    bad = str.isupper if case == "upper" else str.islower
    return all(ord(c) < 128 and not bad(c) for c in s)


def sort_of(value: Any) -> Sort:
    if isinstance(value, bool):
        return Sort.BOOL
    if isinstance(value, int):
        return Sort.INT
    if isinstance(value, float):
        return Sort.FLOAT
    if isinstance(value, str):
        return Sort.STRING
    raise TypeError(f"no sort for {type(value).__name__}")


def _fold_arith(op: Op, a: Any, b: Any, sort: Sort) -> Any:
    """The constant result, or None when it would trap (the tracker records that as a CHECK)."""
    if sort is Sort.FLOAT:
        try:
            if op is Op.ADD:
                return a + b
            if op is Op.SUB:
                return a - b
            if op is Op.MUL:
                return a * b
            if op is Op.DIV:
                return a / b if b != 0 else None
        except (OverflowError, ZeroDivisionError):
            return None
        return None
    if op is Op.ADD:
        r = a + b
    elif op is Op.SUB:
        r = a - b
    elif op is Op.MUL:
        r = a * b
    elif op is Op.DIV:
        if b == 0:
            return None
        r = _trunc_div(a, b)
    elif op is Op.MOD:
        if b == 0:
            return None
        r = _trunc_mod(a, b)
    else:
        return None
    return r if INT_MIN <= r <= INT_MAX else None


# What evaluating an expression raises where it has no value (a division by zero, a variable
# left out of the assignment, a string where a number was expected)
EVALUATION_ERRORS = (KeyError, TypeError, ValueError, ZeroDivisionError, ArithmeticError, IndexError)


def evaluate(e: Expr, env: dict[str, Any], memo: dict[int, Any] | None = None,
             order: list[Expr] | None = None) -> Any:
    """The value of `e` under an assignment of its variables (BAML semantics). `order`: `e`'s
    nodes children first (`post_order(e, {})`), for a caller that evaluates `e` many times."""
    if memo is None:
        memo = {}
    for node in post_order(e, memo) if order is None else order:
        if node.id not in memo:
            memo[node.id] = _eval_node(node, env, [memo[a.id] for a in node.args])
    return memo[e.id]


def post_order(root: Expr, done: dict[int, Any]) -> list[Expr]:
    """Nodes under `root` not yet in `done`, children before parents (no recursion: paths can be deep)."""
    order: list[Expr] = []
    seen: set[int] = set()
    stack: list[tuple[Expr, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        if node.id in done or (node.id in seen and not expanded):
            continue
        if expanded:
            order.append(node)
            continue
        seen.add(node.id)
        stack.append((node, True))
        stack.extend((a, False) for a in node.args if a.id not in done and a.id not in seen)
    return order


def nodes(entries: list[Expr]) -> Iterator[Expr]:
    """Every node of the entries, once each, children before parents."""
    seen: dict[int, Any] = {}
    for e in entries:
        for node in post_order(e, seen):
            seen[node.id] = None
            yield node


def _eval_node(e: Expr, env: dict[str, Any], a: list[Any]) -> Any:  # noqa: C901 - one row per op
    """The value of `e` given its arguments' values `a` (`evaluate`, one node at a time)."""
    op = e.op
    if op is Op.CONST:
        return e.value
    if op is Op.VAR:
        return env[e.value]
    if op is Op.ADD:
        return a[0] + a[1]
    if op is Op.SUB:
        return a[0] - a[1]
    if op is Op.MUL:
        return a[0] * a[1]
    if op is Op.DIV:
        if e.sort is Sort.FLOAT:
            return a[0] / a[1] if a[1] else float("nan")
        return _trunc_div(a[0], a[1]) if a[1] else 0
    if op is Op.MOD:
        return _trunc_mod(a[0], a[1]) if a[1] else 0
    if op is Op.NEG:
        return -a[0]
    if op is Op.TO_FLOAT:
        return float(a[0])
    if op is Op.EQ:
        return a[0] == a[1]
    if op is Op.LT:
        return a[0] < a[1]
    if op is Op.LE:
        return a[0] <= a[1]
    if op is Op.AND:
        return all(a)
    if op is Op.OR:
        return any(a)
    if op is Op.NOT:
        return not a[0]
    if op is Op.ITE:
        return a[1] if a[0] else a[2]
    if op is Op.CONCAT:
        return a[0] + a[1]
    if op is Op.LENGTH:
        return len(a[0])
    if op is Op.CONTAINS:
        return a[1] in a[0]
    if op is Op.PREFIX:
        return a[0].startswith(a[1])
    if op is Op.SUFFIX:
        return a[0].endswith(a[1])
    if op is Op.CASELESS:
        return caseless_value(a[0], e.value)
    if op in _STRING_OP_SORTS:
        return _eval_string_op(op, e.value, a)
    raise AssertionError(op)
