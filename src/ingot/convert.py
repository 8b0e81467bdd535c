"""Values crossing the boundary: Python/JSON arguments -> BAML values, results -> plain Python.

Arguments are validated against the parameter's declared type; an error names
the path of the offending value (`args.r.w: expected float, got "x"`).
Results come back as `ingot run --json` prints them: instances and maps as
dicts, enum values as variant names.
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ingot.bex.program import BexProgram, Closure
from ingot.runtime import ops
from ingot.runtime.values import INT_MAX, INT_MIN, Instance, Variant
from ingot.semantics.resolve import Items
from ingot.semantics.types import (
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
    TypeVar,
    UnionT,
    VariantT,
)


class ArgumentError(ValueError):
    """A bad argument; `path` names it (`args.r.w`)."""

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.detail = message
        super().__init__(f"{path}: {message}")


MAX_DEPTH = 64  # of an argument value's nesting


def show(value: Any, limit: int = 60) -> str:
    """A short JSON-like rendering of any value, safe on deep nesting, huge ints and odd keys."""
    out: list[str] = []
    budget = [limit + 1]

    def emit(text: str) -> bool:
        out.append(text)
        budget[0] -= len(text)
        return budget[0] > 0

    def walk(v: Any, depth: int) -> bool:
        if depth > 8:
            return emit("...")
        if v is None or isinstance(v, bool):
            return emit(json.dumps(v))
        if isinstance(v, int):
            return emit(str(v) if v.bit_length() <= 256 else f"<int of {v.bit_length()} bits>")
        if isinstance(v, float):
            return emit(repr(v))
        if isinstance(v, str):
            return emit(json.dumps(v[:limit], ensure_ascii=False).encode("utf-8", "backslashreplace").decode())
        if isinstance(v, (list, tuple)):
            if not emit("["):
                return False
            for i, x in enumerate(v):
                if (i and not emit(", ")) or not walk(x, depth + 1):
                    return False
            return emit("]")
        if isinstance(v, Mapping):
            if not emit("{"):
                return False
            for i, (k, x) in enumerate(v.items()):
                if (i and not emit(", ")) or not walk(k, depth + 1) or not emit(": ") or not walk(x, depth + 1):
                    return False
            return emit("}")
        return emit(f"<{type(v).__name__}>")

    walk(value, 0)
    text = "".join(out)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def key_path(path: str, key: Any) -> str:
    """`path.key`, with a key that is not a plain name shown as a value."""
    if isinstance(key, str) and key.isidentifier():
        return f"{path}.{key}"
    return f"{path}[{show(key, 40)}]"


def surrogate_at(text: str) -> int:
    """The index of the first lone surrogate in `text` (not a Unicode scalar value), or -1."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        return e.start
    return -1


class ArgumentConverter:
    def __init__(self, program: BexProgram, items: Items) -> None:
        self.program = program
        self.items = items

    def arguments(self, function: str, params: Sequence[tuple[str, Ty, bool]], args: Any,
                  hint: Collection[str] = ()) -> list[Any]:
        """Named arguments checked against `(name, type, has_default)` parameters, as BAML values in order.

        An optional parameter (`T?`) may be left out: it is null. `hint` names options a
        caller might have meant (they are not arguments).
        """
        if not isinstance(args, Mapping):
            raise ArgumentError("args", f"expected a mapping of parameter names to values, got {show(args)}")
        for key in args:
            if not isinstance(key, str):
                raise ArgumentError(key_path("args", key), "parameter names are strings")
        names = {name for name, _, _ in params}
        for key in args:
            if key not in names:
                extra = f" ({key} is a call option: use program.options({key}=...))" if key in hint else ""
                raise ArgumentError(key_path("args", key), f"{function} has no parameter `{key}`{extra}")
        out = []
        for name, ty, has_default in params:
            path = key_path("args", name)
            if name in args:
                out.append(self.convert(args[name], ty, path))
            elif has_default:
                raise ArgumentError(path, "parameters with defaults must be given (defaults are evaluated at "
                                          "BAML call sites)")
            elif self.accepts_null(ty):
                out.append(None)
            else:
                raise ArgumentError(path, f"missing required argument of type {ty}")
        return out

    def accepts_null(self, ty: Ty) -> bool:
        try:
            self.convert(None, ty, "")
        except ArgumentError:
            return False
        return True

    def convert(self, value: Any, ty: Ty, path: str, depth: int = 0) -> Any:  # noqa: C901
        if depth > MAX_DEPTH:
            raise ArgumentError(path, f"value nests more than {MAX_DEPTH} levels deep")
        if isinstance(ty, AliasT):
            return self.convert(value, self.items.alias_target(ty.name), path, depth + 1)
        if isinstance(ty, Special) or isinstance(ty, TypeVar):
            return self.plain(value, path, depth)
        if isinstance(ty, Prim):
            return self.primitive(value, ty.name, path)
        if isinstance(ty, Lit):
            if type(value) is type(ty.value) and value == ty.value:
                return value
            raise ArgumentError(path, f"expected {ty}, got {show(value)}")
        if isinstance(ty, UnionT):
            return self.union(value, ty, path, depth)
        if isinstance(ty, ListT):
            if not isinstance(value, (list, tuple)):
                raise ArgumentError(path, f"expected {ty}, got {show(value)}")
            return [self.convert(x, ty.elem, f"{path}[{i}]", depth + 1) for i, x in enumerate(value)]
        if isinstance(ty, MapT):
            if not isinstance(value, dict):
                raise ArgumentError(path, f"expected {ty}, got {show(value)}")
            return {self.convert(k, ty.key, f"{path}.<key {show(k, 40)}>", depth + 1):
                    self.convert(v, ty.value, key_path(path, k), depth + 1) for k, v in value.items()}
        if isinstance(ty, ClassT):
            return self.instance(value, ty.name, path, depth)
        if isinstance(ty, (EnumT, VariantT)):
            return self.variant(value, ty, path)
        if isinstance(ty, FuncT):
            if isinstance(value, Closure):
                return value
            raise ArgumentError(path, f"expected a function, got {show(value)}")
        raise ArgumentError(path, f"cannot pass a value of type {ty}")

    def primitive(self, value: Any, name: str, path: str) -> Any:
        if name == "int":
            if type(value) is int:
                if not INT_MIN <= value <= INT_MAX:
                    raise ArgumentError(path, f"{show(value)} is outside the BAML int range "
                                              f"[{INT_MIN}, {INT_MAX}]")
                return value
        elif name == "float":
            if type(value) is float:
                return value
            if type(value) is int:
                try:
                    return float(value)
                except OverflowError:
                    raise ArgumentError(path, f"{show(value)} is too large for a float") from None
            if ops.FLOAT_LIKE and isinstance(value, ops.FLOAT_LIKE):
                return value  # a tensor standing in for a float (ingot.pack.tensors)
        elif name == "string":
            if type(value) is str:
                at = surrogate_at(value)
                if at >= 0:
                    raise ArgumentError(path, f"a string holds a lone surrogate U+{ord(value[at]):04X} at index {at} "
                                              "(strings are Unicode scalar values)")
                return value
        elif name == "bool":
            if type(value) is bool:
                return value
        elif name == "null":
            if value is None:
                return None
        raise ArgumentError(path, f"expected {name}, got {show(value)}")

    def union(self, value: Any, ty: UnionT, path: str, depth: int) -> Any:
        # Exact primitive matches first, so 3 stays an int in `int | float`.
        errors = []
        for m in sorted(ty.members, key=lambda m: 0 if isinstance(m, (Prim, Lit)) else 1):
            try:
                if isinstance(m, Prim) and m.name == "float" and type(value) is int and any(
                        isinstance(o, Prim) and o.name == "int" for o in ty.members):
                    continue
                return self.convert(value, m, path, depth + 1)
            except ArgumentError as e:
                errors.append(e)
        # An error inside a member the value has the shape of (a field of a class, an element of
        # an array) says more than "expected A | B": report the one that went deepest.
        # At the same depth, a specific complaint (out of range, a lone surrogate) beats "expected".
        deepest = max(errors, key=lambda e: (len(e.path), not e.detail.startswith("expected ")), default=None)
        if deepest is not None and (len(deepest.path) > len(path) or not deepest.detail.startswith("expected ")):
            raise deepest
        raise ArgumentError(path, f"expected {ty}, got {show(value)}")

    def instance(self, value: Any, name: str, path: str, depth: int) -> Instance:
        info = self.program.classes.get(name)
        cls = self.items.classes.get(name)
        if info is None or cls is None:
            raise ArgumentError(path, f"unknown class {name}")
        if isinstance(value, Instance) and value.cls is info:
            return value
        if not isinstance(value, dict):
            raise ArgumentError(path, f"expected {name}, got {show(value)}")
        known = {f.name for f in cls.fields}
        for key in value:
            if key not in known:
                raise ArgumentError(key_path(path, key), f"class {name} has no field `{show(key, 40)}`"
                                    if not isinstance(key, str) else f"class {name} has no field `{key}`")
        fields = []
        for f in cls.fields:
            fpath = f"{path}.{f.name}"
            if f.name in value:
                fields.append(self.convert(value[f.name], f.ty, fpath, depth + 1))
            else:
                try:
                    fields.append(self.convert(None, f.ty, fpath, depth + 1))
                except ArgumentError:
                    raise ArgumentError(fpath, f"missing required field of type {f.ty}") from None
        return Instance(info, fields)

    def variant(self, value: Any, ty: EnumT | VariantT, path: str) -> Variant:
        name = ty.name if isinstance(ty, EnumT) else ty.enum
        info = self.program.enums[name]
        if isinstance(value, Variant) and value.enum is info:
            return value
        if isinstance(value, str) and value in info.variant_names:
            if isinstance(ty, VariantT) and value != ty.variant:
                raise ArgumentError(path, f"expected {ty}, got {show(value)}")
            return info.variant(value)
        raise ArgumentError(path, f"expected one of {', '.join(info.variant_names)}, got {show(value)}")

    def plain(self, value: Any, path: str, depth: int) -> Any:
        """A value of unknown type: JSON data passes through unchanged."""
        if value is None or isinstance(value, (bool, int, float, str, Instance, Variant, Closure)):
            return value
        if depth > MAX_DEPTH:
            raise ArgumentError(path, f"value nests more than {MAX_DEPTH} levels deep")
        if isinstance(value, str) and surrogate_at(value) >= 0:
            return self.primitive(value, "string", path)
        if isinstance(value, (list, tuple)):
            return [self.plain(x, f"{path}[{i}]", depth + 1) for i, x in enumerate(value)]
        if isinstance(value, dict):
            return {k: self.plain(v, key_path(path, k), depth + 1) for k, v in value.items()}
        raise ArgumentError(path, f"cannot pass a Python {type(value).__name__}")


MAX_RESULT_DEPTH = 500  # of a result's nesting; deeper is an error, never a truncated value


class ResultTooDeep(ValueError):
    """A result nested deeper than `MAX_RESULT_DEPTH` levels (plain data could not carry it safely)."""


def to_python(value: Any, depth: int = 0) -> Any:
    """A BAML value as plain Python data (what `ingot run --json` prints).

    Map keys become plain too (an enum key is its variant name), so every result is JSON data.
    """
    if depth > MAX_RESULT_DEPTH:
        raise ResultTooDeep(f"the result nests more than {MAX_RESULT_DEPTH} levels deep")
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    # Loops, not comprehensions: one Python frame per level of nesting, so the depth limit
    # is reached well before Python's recursion limit.
    if isinstance(value, list):
        items = []
        for x in value:
            items.append(to_python(x, depth + 1))
        return items
    if isinstance(value, dict):
        entries = {}
        for k, v in value.items():
            entries[plain_key(k)] = to_python(v, depth + 1)
        return entries
    if isinstance(value, Instance):
        fields = {}
        for n, v in zip(value.cls.field_names, value.fields):
            fields[n] = to_python(v, depth + 1)
        return fields
    if isinstance(value, Variant):
        return value.name
    if isinstance(value, Closure):
        return f"<function {value.function.name}>"
    if ops.FLOAT_LIKE and isinstance(value, ops.FLOAT_LIKE):
        return value  # tensors stay tensors for Python callers
    return repr(value)


def plain_key(key: Any) -> Any:
    """A map key as plain data: an enum variant by name, anything else unchanged."""
    return key.name if isinstance(key, Variant) else key


def to_json_text(value: Any, indent: int | None = None) -> str:
    """JSON for a plain value; non-finite floats become strings ("inf", "nan")."""
    return json.dumps(_finite(value), indent=indent, ensure_ascii=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, list):
        return [_finite(x) for x in value]
    if isinstance(value, dict):
        return {str(k) if not isinstance(k, str) else k: _finite(v) for k, v in value.items()}
    return value
