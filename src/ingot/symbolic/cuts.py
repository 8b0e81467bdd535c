"""A string cut at the first (or last) occurrence of a constant: the parts before and after it.

Parsers find a separator and slice around it: `let colon = line.index_of(":")`, then
`line.slice(0, colon)` and `line.slice(colon + 1, line.length())`. Posed to Z3 as `indexof`
and `substr` at a symbolic offset, a query on "the field is `id` and the value a number" costs
10^5 to 10^6 resource units, often more than a query may spend. Posed as a word equation,
`line = pre ++ ":" ++ post` with no ":" in `pre`, the same query costs a few thousand: the
two slices are the variables `pre` and `post` themselves.

So `index_of` with a constant search gives its position as `pre`'s length and its presence as
`contains(s, sep)` (the condition the program's null check branches on), and the cut is
defined on the path (`Tracker.define`): wherever `s` contains `sep`, `s` is `pre ++ sep ++
post` and `pre` holds no earlier occurrence (for the last one: `post` no later one). Where
`s` does not contain `sep` the definition says nothing of `pre` and `post`, and nothing reads
them there: the position is an optional's payload, meaningful only where it is present, and
a slice at it is `ite(contains(s, sep), pre, <the slice at -1>)` (`string_models._slice`).

The variables are named after the string and the separator (`$cut<id>.first.<hex>.pre`), so
every run, and every call on the same string, shares them. The nearby search computes them
from the string after every mutation (`Cut.derive`), as it computes a split's parts.
"""

from __future__ import annotations

from dataclasses import dataclass

from ingot.symbolic import string_ops as so
from ingot.symbolic.expr import Expr, Interner, Op, Sort

PREFIX = "$cut"


@dataclass(frozen=True)
class Cut:
    """The cut of `source` at `separator` (its last occurrence if `last`): `pre` and `post` by name."""

    source: Expr
    separator: str
    last: bool

    @property
    def name(self) -> str:
        # plain characters only: the name is an SMT-LIB symbol too
        return f"{PREFIX}{self.source.id}.{'last' if self.last else 'first'}.{self.separator.encode().hex()}"

    @classmethod
    def of_variable(cls, name: str, source: Expr) -> Cut | None:
        """The cut of `source` a `pre` or `post` variable's name stands for (`name`'s format), or
        None when it is no cut's variable or one of another string's cut."""
        if not name.startswith(PREFIX):
            return None
        head, side, hexed, _ = name[len(PREFIX):].split(".")
        if int(head) != source.id:
            return None
        return cls(source, bytes.fromhex(hexed).decode(), side == "last")

    @property
    def pre(self) -> str:
        return self.name + ".pre"

    @property
    def post(self) -> str:
        return self.name + ".post"

    def outputs(self) -> list[str]:
        """The variables the cut defines, as a split's `Definition.outputs` lists its own."""
        return [self.pre, self.post]

    def writable(self) -> list[str]:
        return self.outputs()

    def derive(self, text: str) -> dict[str, str]:
        """`pre` and `post` of `text` (empty where it holds no separator: nothing reads them there)."""
        parts = text.rpartition(self.separator) if self.last else text.partition(self.separator)
        if not parts[1]:
            return {self.pre: "", self.post: ""}
        return {self.pre: parts[0], self.post: parts[2]}

    def written(self, text: str, name: str, value: str) -> str | None:
        """`text` with the part `name` replaced by `value` (None where `text` has no separator,
        or the new part would move the cut)."""
        if self.separator not in text or self.separator in value:
            return None
        parts = self.derive(text)
        parts[name] = value
        return parts[self.pre] + self.separator + parts[self.post]


def cut(x: Interner, s: Expr, separator: str, last: bool) -> tuple[Cut, Expr, Expr]:
    """The cut of `s` at `separator` (non-empty), its definition and its presence condition."""
    c = Cut(s, separator, last)
    pre, post = x.var(c.pre, Sort.STRING), x.var(c.post, Sort.STRING)
    found = x.str_pred(Op.CONTAINS, s, x.const(separator))
    if last:  # no occurrence starting after the cut's, not even one overlapping it
        alone = x.str_op(Op.IN_RE, x.concat(x.const(separator[1:]), post), value=so.without(separator))
    else:
        alone = x.str_op(Op.IN_RE, x.concat(pre, x.const(separator[:-1])), value=so.without(separator))
    joined = x.concat(x.concat(pre, x.const(separator)), post)
    definition = x.or_(x.not_(found), x.and_(x.eq(s, joined), alone))
    return c, definition, found


def cut_of(definition: Expr) -> Cut | None:
    """The cut `definition` defines (`cut`'s definition), or None."""
    if definition.op is not Op.OR or len(definition.args) != 2:
        return None
    negated, case = definition.args
    if negated.op is not Op.NOT or negated.args[0].op is not Op.CONTAINS or case.op is not Op.AND:
        return None
    source, sep = negated.args[0].args
    if not sep.is_const or not isinstance(sep.value, str) or not sep.value:
        return None
    names = {v for v in case.vars if v.startswith(PREFIX)}
    for name in names:
        c = Cut.of_variable(name, source)
        if c is not None and c.separator == sep.value and names == {c.pre, c.post}:
            return c
    return None


def at_position(e: Expr, s: Expr) -> Cut | None:
    """The cut of `s` whose position `e` is (its `pre`'s length), or None (`e` another number,
    or a cut of another string)."""
    if e.op is not Op.LENGTH or e.args[0].op is not Op.VAR:
        return None
    return Cut.of_variable(e.args[0].value, s)


def after_position(e: Expr, s: Expr) -> Cut | None:
    """The cut of `s` when `e` is its position plus the separator's length (`colon + 1`), else None."""
    if e.op is not Op.ADD:
        return None
    for p, k in (e.args, reversed(e.args)):
        c = at_position(p, s)
        if c is not None and k.is_const and k.value == len(c.separator):
            return c
    return None
