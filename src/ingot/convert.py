"""Values crossing the boundary: Python/JSON arguments -> BAML values, results -> plain Python.

Arguments are validated against the parameter's declared type; an error names
the path of the offending value (`args.r.w: expected float, got "x"`).
Results come back as `ingot run --json` prints them: instances and maps as
dicts, enum values as variant names.
"""

from __future__ import annotations

import json
import math
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


def show(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class ArgumentConverter:
    def __init__(self, program: BexProgram, items: Items) -> None:
        self.program = program
        self.items = items

    def convert(self, value: Any, ty: Ty, path: str, depth: int = 0) -> Any:  # noqa: C901
        if depth > 64:
            raise ArgumentError(path, "value nests too deeply")
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
            return {self.convert(k, ty.key, f"{path}.<key {show(k)}>", depth + 1):
                    self.convert(v, ty.value, f"{path}.{k}", depth + 1) for k, v in value.items()}
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
                    raise ArgumentError(path, f"{value} is outside the BAML int range")
                return value
        elif name == "float":
            if type(value) is float:
                return value
            if type(value) is int:
                return float(value)
            if ops.FLOAT_LIKE and isinstance(value, ops.FLOAT_LIKE):
                return value  # a tensor standing in for a float (ingot.pack.tensors)
        elif name == "string":
            if type(value) is str:
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
                raise ArgumentError(f"{path}.{key}", f"class {name} has no field `{key}`")
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
        if isinstance(value, (list, tuple)):
            return [self.plain(x, f"{path}[{i}]", depth + 1) for i, x in enumerate(value)]
        if isinstance(value, dict):
            return {k: self.plain(v, f"{path}.{k}", depth + 1) for k, v in value.items()}
        raise ArgumentError(path, f"cannot pass a Python {type(value).__name__}")


def to_python(value: Any, depth: int = 0) -> Any:
    """A BAML value as plain Python data (what `ingot run --json` prints)."""
    if depth > 200:
        return "<too deep>"
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [to_python(x, depth + 1) for x in value]
    if isinstance(value, dict):
        return {k: to_python(v, depth + 1) for k, v in value.items()}
    if isinstance(value, Instance):
        return {n: to_python(v, depth + 1) for n, v in zip(value.cls.field_names, value.fields)}
    if isinstance(value, Variant):
        return value.name
    if isinstance(value, Closure):
        return f"<function {value.function.name}>"
    if ops.FLOAT_LIKE and isinstance(value, ops.FLOAT_LIKE):
        return value  # tensors stay tensors for Python callers
    return repr(value)


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
