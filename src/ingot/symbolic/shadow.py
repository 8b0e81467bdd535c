"""Shadow values and path-condition entries: the tracker's vocabulary.

A shadow is what the tracker knows symbolically about one runtime value:
`None` when the value is concrete-only (most values), an `Expr` for a
scalar (int, float, bool, string; an enum value's shadow is its INT tag), an
`Opt` for a value of an optional type whose presence is symbolic, or a
`Tagged` for a union-typed input whose member choice is symbolic.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Union

from ingot.symbolic.expr import Expr


@dataclass(frozen=True, slots=True)
class Opt:
    """A `T?` value: `present` says whether it is non-null; `payload` shadows the value itself."""

    present: Expr
    payload: Shadow


@dataclass(frozen=True, slots=True)
class Tagged:
    """A union-typed input: `tag` indexes the member chosen; `payload` shadows the value."""

    tag: Expr
    index: int  # the member this run's value has
    payload: Shadow


Shadow = Union[Expr, Opt, Tagged, None]

# Where a path entry was recorded: (function index, pc), or (function index, pc, panic kind) for a check.
Site = Union[tuple[int, int], tuple[int, int, str]]


class EntryKind(Enum):
    BRANCH = "branch"  # a conditional jump on a symbolic condition
    CHECK = "check"  # an implicit panic condition (divisor, index, overflow, assert)
    CONCRETIZE = "concretize"  # a symbolic value the tracker had to fix to its concrete value


# The label prefix of a check's other side where the run failed (`"safe:ParseError"`): the
# alternative that carries the path on, where the check's own label aims at the failure.
SAFE_SIDE = "safe:"


@dataclass(frozen=True, slots=True)
class Alternative:
    """What the explorer can aim at by replacing an entry's observed condition with `cond`."""

    cond: Expr
    target: tuple[str, int, int] | None  # the MIR edge (function, block, target block) it leads to
    label: str


@dataclass(frozen=True, slots=True)
class PathEntry:
    kind: EntryKind
    site: Site  # (function index, pc); a check's also names its kind
    observed: Expr  # the condition that held on this run
    alternatives: tuple[Alternative, ...]
    ctx: int  # hash of the call stack, for back-off and de-duplication
    check: str | None = None  # for CHECK entries: the panic kind the alternative aims at
