"""Signatures of BAML's built-in members and functions, for the checker.

One row per built-in: the receiver kind and name form the key the runtime
uses too ("string.length" is `ingot.runtime.builtins.BUILTINS["string.length"]`,
or a prelude function written in BAML for the higher-order ones). `T` is the
array element type, `K`/`V` the map key/value types, `U` a fresh type inferred
from a callback's result.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

from ingot.semantics.types import (
    ANY,
    BOOL,
    FLOAT,
    INT,
    NEVER,
    NULL,
    STRING,
    EnumT,
    FuncT,
    ListT,
    Ty,
    TypeVar,
    optional,
)

T, U, K, V = TypeVar("T"), TypeVar("U"), TypeVar("K"), TypeVar("V")
ORDERING = EnumT("baml.ops.Ordering")


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


STRING_METHODS = {
    "length": sig(ret=INT),
    "byte_length": sig(ret=INT),
    "char_count": sig(ret=INT),
    "is_empty": sig(ret=BOOL),
    "to_lower_case": sig(ret=STRING),
    "to_upper_case": sig(ret=STRING),
    "trim": sig(ret=STRING),
    "trim_start": sig(ret=STRING),
    "trim_end": sig(ret=STRING),
    "includes": sig(STRING, ret=BOOL),
    "starts_with": sig(STRING, ret=BOOL),
    "ends_with": sig(STRING, ret=BOOL),
    "split": sig(STRING, ret=ListT(STRING)),
    "chars": sig(ret=ListT(STRING)),
    "lines": sig(ret=ListT(STRING)),
    "slice": sig(INT, INT, ret=STRING, min_args=1),
    "replace": sig(STRING, STRING, ret=STRING),
    "replace_all": sig(STRING, STRING, ret=STRING),
    "index_of": sig(STRING, ret=optional(INT)),
    "last_index_of": sig(STRING, ret=optional(INT)),
    "at": sig(INT, ret=optional(STRING)),
    "code_point_at": sig(INT, ret=optional(INT)),
    "repeat": sig(INT, ret=STRING),
    "to_string": sig(ret=STRING),
    "add": sig(STRING, ret=STRING),
    "to_code_points": sig(ret=ListT(INT)),
    "is_numeric": sig(ret=BOOL),
    "is_alphabetic": sig(ret=BOOL),
    "is_alphanumeric": sig(ret=BOOL),
    "is_uppercase": sig(ret=BOOL),
    "is_lowercase": sig(ret=BOOL),
    "is_whitespace": sig(ret=BOOL),
    **{name: sig(ret=BOOL) for name in (
        "is_control", "is_graphic", "is_ascii", "is_ascii_alphabetic", "is_ascii_alphanumeric",
        "is_ascii_control", "is_ascii_graphic", "is_ascii_hex", "is_ascii_lowercase", "is_ascii_numeric",
        "is_ascii_uppercase", "is_ascii_whitespace")},
    "min": sig(STRING, ret=STRING),
    "max": sig(STRING, ret=STRING),
    "clamp": sig(STRING, STRING, ret=STRING),
    "cmp": sig(STRING, ret=ORDERING),
}

ARRAY_METHODS = {
    "length": sig(ret=INT),
    "at": sig(INT, ret=optional(T)),
    "push": sig(T, ret=INT),
    "pop": sig(ret=optional(T)),
    "concat": sig(ListT(T), ret=ListT(T)),
    "slice": sig(INT, INT, ret=ListT(T), min_args=1),
    "reverse": sig(ret=ListT(T)),
    "sort": sig(ret=ListT(T)),
    "includes": sig(T, ret=BOOL),
    "index_of": sig(T, ret=optional(INT)),
    "last_index_of": sig(T, ret=optional(INT)),
    "join": sig(STRING, ret=STRING),
    "sum": sig(ret=T),  # `array.sum_float` on float[]: an empty float sum is -0.0
    "mean": sig(ret=FLOAT),
    "median": sig(ret=FLOAT),
    "to_string": sig(ret=STRING),
    "remove_at": sig(INT, ret=T),
    "unshift": sig(T, ret=INT),
    "insert": sig(T, INT, ret=INT),
    "splice": sig(INT, INT, ListT(T), ret=ListT(T), min_args=2),
    "clear": sig(ret=NULL),
    "shift": sig(ret=optional(T)),
    # Higher-order: implemented in BAML (bex/prelude.baml).
    "map": sig(FuncT((T,), U), ret=ListT(U)),
    "filter": sig(FuncT((T,), BOOL), ret=ListT(T)),
    "reduce": sig(FuncT((U, T), U), U, ret=U),
    "some": sig(FuncT((T,), BOOL), ret=BOOL),
    "every": sig(FuncT((T,), BOOL), ret=BOOL),
    "find": sig(FuncT((T,), BOOL), ret=optional(T)),
    "find_index": sig(FuncT((T,), BOOL), ret=optional(INT)),
    "find_last": sig(FuncT((T,), BOOL), ret=optional(T)),
    "find_last_index": sig(FuncT((T,), BOOL), ret=optional(INT)),
    "for_each": sig(FuncT((T,), ANY), ret=NULL),
    "flat_map": sig(FuncT((T,), ListT(U)), ret=ListT(U)),
    "filter_map": sig(FuncT((T,), optional(U)), ret=ListT(U)),
    "sort_by": sig(FuncT((T, T), ORDERING), ret=ListT(T)),
    "sort_by_key": sig(FuncT((T,), U), ret=ListT(T)),
}

MAP_METHODS = {
    "length": sig(ret=INT),
    "to_string": sig(ret=STRING),
    "keys": sig(ret=ListT(K)),
    "values": sig(ret=ListT(V)),
    "has": sig(K, ret=BOOL),
    "get": sig(K, ret=optional(V)),
    "set": sig(K, V, ret=optional(V)),
    "delete": sig(K, ret=optional(V)),
    "get_or_insert": sig(K, V, ret=V),
    "clear": sig(ret=NULL),
}

INT_METHODS = {
    "abs": sig(ret=INT),
    "pow": sig(INT, ret=INT),
    "isqrt": sig(ret=INT),
    "to_string": sig(ret=STRING),
    "ilog": sig(INT, ret=INT),
    "leading_zeros": sig(ret=INT),
    "trailing_zeros": sig(ret=INT),
    "count_ones": sig(ret=INT),
    "count_zeros": sig(ret=INT),
    "leading_ones": sig(ret=INT),
    "trailing_ones": sig(ret=INT),
    "min": sig(INT, ret=INT),
    "max": sig(INT, ret=INT),
    "clamp": sig(INT, INT, ret=INT),
    "cmp": sig(INT, ret=ORDERING),
}

FLOAT_METHODS = {
    **{name: sig(ret=FLOAT) for name in (
        "floor", "ceil", "round", "trunc", "fract", "sqrt", "exp", "ln", "abs", "signum", "cbrt",
        "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
        "log2", "log10", "to_degrees", "to_radians")},
    "min": sig(FLOAT, ret=FLOAT),
    "max": sig(FLOAT, ret=FLOAT),
    "clamp": sig(FLOAT, FLOAT, ret=FLOAT),
    "cmp": sig(FLOAT, ret=ORDERING),
    "hypot": sig(FLOAT, ret=FLOAT),
    "is_nan": sig(ret=BOOL),
    "is_infinite": sig(ret=BOOL),
    "is_finite": sig(ret=BOOL),
    "to_string": sig(ret=STRING),
    "itrunc": sig(ret=INT),
    "iround": sig(ret=INT),
    "ifloor": sig(ret=INT),
    "iceil": sig(ret=INT),
    "pow": sig(FLOAT, ret=FLOAT),
    "log": sig(FLOAT, ret=FLOAT),
    "atan2": sig(FLOAT, ret=FLOAT),
}

BOOL_METHODS = {
    "to_string": sig(ret=STRING),
    "min": sig(BOOL, ret=BOOL),
    "max": sig(BOOL, ret=BOOL),
    "clamp": sig(BOOL, BOOL, ret=BOOL),
    "cmp": sig(BOOL, ret=ORDERING),
}

METHODS: MappingProxyType[str, dict[str, Signature]] = MappingProxyType({
    "string": STRING_METHODS,
    "array": ARRAY_METHODS,
    "map": MAP_METHODS,
    "int": INT_METHODS,
    "float": FLOAT_METHODS,
    "bool": BOOL_METHODS,
})

# Functions reached through a namespace or a type name: key -> signature.
FUNCTIONS: MappingProxyType[str, Signature] = MappingProxyType({
    "int.parse": sig(STRING, ret=INT),
    "int.max_value": sig(ret=INT),
    "int.min_value": sig(ret=INT),
    "float.parse": sig(STRING, ret=FLOAT),
    "float.pi": sig(ret=FLOAT),
    "float.e": sig(ret=FLOAT),
    "float.nan": sig(ret=FLOAT),
    "float.inf": sig(ret=FLOAT),
    "float.epsilon": sig(ret=FLOAT),
    "float.golden_ratio": sig(ret=FLOAT),
    "float.max_finite": sig(ret=FLOAT),
    "float.min_finite": sig(ret=FLOAT),
    "string.from": sig(ANY, ret=STRING),
    "string.from_code_points": sig(ListT(INT), ret=STRING),
    "baml.deep_copy": sig(T, ret=T),
    "baml.sys.panic": sig(STRING, ret=NEVER),
    "baml.sys.exit": sig(INT, ret=NEVER),
    "assert.is_true": sig(BOOL, ret=NULL),
    "assert.equal": sig(ANY, ANY, ret=NULL),
    "assert.not_null": sig(ANY, ret=NULL),
    "assert.approx_equal": sig(FLOAT, FLOAT, FLOAT, ret=NULL),
    "assert.contains": sig(ANY, ANY, ret=NULL),
})

# Namespaces that exist only as prefixes of FUNCTIONS keys or of built-in types.
NAMESPACES = frozenset({"baml", "baml.sys", "baml.ops", "assert", "baml.panics", "baml.errors", "ai",
                        "ai.errors"})

# Receiver kinds whose names are also types with static functions (`int.parse`).
STATIC_RECEIVERS = frozenset({"int", "float", "string", "bool"})
