"""The shape of one built-in: `BuiltinSpec`, and the helpers that write registry rows.

A built-in is defined once, as one row in the module of its receiver type
(`stdlib/strings.py` for `string.*`, ...). Every consumer reads the same row:

- the checker reads `signature` and `elements` (`semantics/builtins.py` derives
  its tables);
- both tiers call `impl` (the emitter resolves keys to it), and the compiled
  tier inlines `inline` where the row has one and the program did not bind
  another implementation;
- the compiled tier's kind inference reads `result` (a Python type name the
  value always has);
- the trackers call `model` when an argument has a shadow, and otherwise
  concretize (`mutates` tells them the receiver's contents changed);
- `prelude` rows have no Python implementation: the lowering calls the BAML
  function of that name in `bex/prelude.baml` (the higher-order methods).

Rows are frozen; the registry (`stdlib/__init__.py`) is an immutable mapping
built once at import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol

from ingot.semantics.types import EnumT, Ty, TypeVar
from ingot.symbolic.expr import Expr, Interner
from ingot.symbolic.intervals import IntRanges
from ingot.symbolic.shadow import Shadow

# Type variables of signatures: `T` the array element, `K`/`V` a map's key and
# value, `U` a fresh type inferred from a callback's result.
T, U, K, V = TypeVar("T"), TypeVar("U"), TypeVar("K"), TypeVar("V")
ORDERING = EnumT("baml.ops.Ordering")

class Tracker(Protocol):
    """What a model may ask of the tracker running it (both trackers and packing provide it).

    `frame` is the tracker's current frame, opaque to models: they pass it back so an
    entry is recorded at the calling instruction's site.
    """

    x: Interner  # builds hash-consed expressions
    max_parts: int  # a `split`/`lines` result is modelled up to this many parts (more: concretized)
    int_ranges: IntRanges  # the bounds every value of an int expression keeps

    def scalar(self, shadow: Shadow, value: Any) -> Expr | None: ...
    def lift(self, shadow: Shadow, value: Any) -> Expr | None: ...
    def truthy(self, shadow: Shadow, value: Any) -> Expr | None: ...
    def equality(self, frame: Any, a: Any, b: Any, sa: Shadow, sb: Shadow) -> Expr | None: ...
    def hget(self, obj: Any, key: Any) -> Shadow: ...
    def hset(self, obj: Any, key: Any, shadow: Shadow) -> None: ...
    def check(self, frame: Any, kind: str, safe: Expr, holds: bool) -> None: ...
    def concretize(self, frame: Any, shadow: Shadow, value: Any, modelled: Expr | None = None) -> None: ...
    def assume(self, frame: Any, cond: Expr) -> None: ...
    def define(self, frame: Any, definition: Expr) -> None: ...


# A symbolic model: (tracker, frame, the concrete implementation, arguments, their shadows)
# -> (result, its shadow). It calls the implementation itself, so concrete semantics stay
# the row's own.
Model = Callable[[Tracker, Any, Callable[..., Any], list[Any], list[Shadow]], tuple[Any, Shadow]]


class Kind(Enum):
    METHOD = "method"      # `receiver.name(...)` on a value: `s.length()`
    FUNCTION = "function"  # reached through a type or namespace: `int.parse(s)`, `assert.equal(a, b)`
    INTERNAL = "internal"  # emitted by the compiler only (indexing, `float[].sum`)


@dataclass(frozen=True, slots=True)
class Signature:
    params: tuple[Ty, ...]
    ret: Ty
    min_args: int | None = None  # fewer than all params allowed (trailing optionals)

    @property
    def required(self) -> int:
        return len(self.params) if self.min_args is None else self.min_args


def sig(*params: Ty, ret: Ty, min_args: int | None = None) -> Signature:
    return Signature(tuple(params), ret, min_args)


@dataclass(frozen=True, slots=True)
class BuiltinSpec:
    """Everything ingot knows about one built-in, keyed `"<receiver>.<name>"`."""

    key: str
    kind: Kind
    signature: Signature | None        # None only for INTERNAL rows
    impl: Callable[..., Any] | None    # None for prelude rows
    mutates: bool = False              # changes its receiver (the first argument) in place
    model: Model | None = None         # symbolic model; None: the trackers concretize
    deep_model: bool = False           # reads below its arguments' first level (no model: fixes it all)
    inline: str | None = None          # Python statements storing the result in `{target}`; `{0}`..
                                       # are the arguments (the compiled tier inlines them)
    result: str | None = None          # the static kind every result has ("int"), for kind inference
    nonnegative: bool = False          # every result is an int >= 0 (a length): sign tests can go
    prelude: str | None = None         # implemented in BAML: `$prelude.<prelude>`
    # Never panics, whatever its arguments (no size limit checked, no index failing): a `catch`
    # around such calls alone has no panic to rethrow (`mir.catch_panics`); `throws` names the one
    # error class it throws instead, if any (`int.parse`: `baml.errors.ParseError`).
    never_panics: bool = False
    throws: str | None = None
    # An array member that exists only on arrays of these element types, as the engine declares
    # it for `Array<int>` or `Array<float>` alone (`sum`, `mean`, `sort`): on `string[]` the
    # checker reports "no member". None: on every array.
    elements: frozenset[Ty] | None = None

    @property
    def receiver(self) -> str:
        return self.key.rsplit(".", 1)[0]

    @property
    def name(self) -> str:
        return self.key.rsplit(".", 1)[1]


class Rows:
    """Collects the rows of one receiver module: `rows.method("length", impl, sig(...), ...)`."""

    def __init__(self, receiver: str) -> None:
        self.receiver = receiver
        self.specs: list[BuiltinSpec] = []

    def _add(self, name: str, kind: Kind, signature: Signature | None,
             impl: Callable[..., Any] | None, **slots: Any) -> None:
        self.specs.append(BuiltinSpec(f"{self.receiver}.{name}", kind, signature, impl, **slots))

    def method(self, name: str, impl: Callable[..., Any], signature: Signature, **slots: Any) -> None:
        self._add(name, Kind.METHOD, signature, impl, **slots)

    def function(self, name: str, impl: Callable[..., Any], signature: Signature, **slots: Any) -> None:
        self._add(name, Kind.FUNCTION, signature, impl, **slots)

    def internal(self, name: str, impl: Callable[..., Any], **slots: Any) -> None:
        self._add(name, Kind.INTERNAL, None, impl, **slots)

    def prelude(self, name: str, signature: Signature) -> None:
        """A method written in BAML (`bex/prelude.baml`), e.g. `array.map`."""
        self._add(name, Kind.METHOD, signature, None,
                  prelude=f"{self.receiver}_{name}")
