"""Samples to columns: each layout's rows and numeric inputs as tensors, in one pass per field.

`extract(program, "F", samples, dtype, device)` accepts either

- rows: a sequence of samples, each F's arguments by name (`{"dims": {"width": 20.0, ...}}`), or
- columns: one mapping shaped like a sample whose leaves are columns (lists, tuples, numpy
  arrays or tensors, one entry per sample): `{"dims": {"width": tensor, "anchor": [...]}}`,

and returns one `LayoutRows` per layout (the sample's strings, enum values, nulls and lengths;
see `trace.Layout`) with its rows' indices and numeric inputs stacked.

When every parameter is *flat* (numbers, strings, enums, optional ones of these, and classes of
flat fields), extraction is column-wise: each leaf is read once for all samples, validated with
set and tensor operations, and layouts are found with `torch.unique` over code columns. Other
signatures (arrays, maps, unions of classes) take the row-wise path: each sample is converted
and walked on its own. A sample the fast checks reject is converted on its own, so the error
names the field (and a note names the sample) exactly as `Program.call` would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from ingot.convert import ArgumentError
from ingot.pack.residual import sample_layout, stack_inputs
from ingot.pack.trace import Layout
from ingot.runtime.values import INT_MAX, INT_MIN
from ingot.view import AliasT, ClassT, EnumT, Prim, Ty, UnionT

if TYPE_CHECKING:
    from ingot.api import Program

__all__ = ["Extracted", "LayoutRows", "extract", "is_columnar"]

_NUMERIC = {"float": torch.float64, "int": torch.int64, "bool": torch.bool}
_ACCEPTED: dict[str, set[type]] = {"float": {float, int}, "int": {int}, "bool": {bool}, "string": {str}, "enum": {str}}


@dataclass
class LayoutRows:
    """The samples of one layout: their indices, their numeric inputs (one column per layout input)."""

    layout: Layout
    rows: torch.Tensor  # long, indices into the samples, ascending
    columns: list[torch.Tensor]  # row k of each column belongs to sample rows[k]
    sample: Callable[[int], Mapping[str, Any]]  # a sample's arguments by its index (to pack it)

    def to(self, device: torch.device, dtype: torch.dtype) -> LayoutRows:
        """On `device`, with float columns in `dtype` (a worker may have stacked another)."""
        columns = [c.to(device, dtype) if c.dtype.is_floating_point else c.to(device) for c in self.columns]
        return LayoutRows(self.layout, self.rows.to(device), columns, self.sample)


@dataclass
class Extracted:
    """Samples already split by layout (by `extract`, e.g. in a data loader's worker)."""

    size: int
    parts: list[LayoutRows]


class RowOf:
    """A sample by index from rows (picklable: it crosses from data loader workers)."""

    def __init__(self, rows: Sequence[Mapping[str, Any]]) -> None:
        self.rows = rows

    def __call__(self, i: int) -> Mapping[str, Any]:
        return self.rows[i]


class ColumnRowOf:
    """A sample by index from columns, as Python values (picklable)."""

    def __init__(self, columns: Mapping[str, Any]) -> None:
        self.columns = columns

    def __call__(self, i: int) -> dict[str, Any]:
        def build(node: Any) -> Any:
            return {k: build(v) for k, v in node.items()} if isinstance(node, Mapping) else cell(node, i)
        return {k: build(v) for k, v in self.columns.items()}


@dataclass(frozen=True)
class Leaf:
    """A scalar of a flat signature: where it is, what it holds."""

    keys: tuple[str, ...]  # parameter name, then field names
    kind: str  # float | int | bool | string | enum
    optional: bool
    variants: frozenset[str] = frozenset()

    @property
    def path(self) -> str:
        return ".".join(self.keys)  # the variable name `trace.shadow_sample` gives the field


def is_columnar(samples: Any) -> bool:
    return isinstance(samples, Mapping)


def extract(program: Program, function: str, samples: Any, dtype: torch.dtype,
            device: torch.device | str | None = None) -> tuple[int, list[LayoutRows]]:
    """The number of samples and their layouts (see the module docstring)."""
    params = program.view.function(function).params
    leaves = flat_leaves(program, [(name, ty) for name, ty in params])
    row: Callable[[int], Mapping[str, Any]]
    if is_columnar(samples):
        n = column_length(samples)
        row = ColumnRowOf(samples)
    else:
        samples = list(samples)
        n = len(samples)
        row = RowOf(samples)
    if leaves is not None and n:
        parts = flat_extract(program, function, samples, leaves, n, row, dtype, device)
        if parts is not None:
            return n, parts
    return n, rowwise_extract(program, function, [row(i) for i in range(n)], dtype, device)


# -- the signature ---------------------------------------------------------------------------------
def flat_leaves(program: Program, params: list[tuple[str, Ty]]) -> list[Leaf] | None:
    """The scalars of a flat signature in order, or None when a parameter is not flat."""
    classes = {c.name: c for c in program.view.classes()}
    enums = {e.name: e for e in program.view.enums()}
    out: list[Leaf] = []

    def walk(ty: Ty, keys: tuple[str, ...], optional: bool, depth: int) -> bool:
        if depth > 16:
            return False
        if isinstance(ty, AliasT):
            return walk(program.view.alias_target(ty.name), keys, optional, depth + 1)
        if isinstance(ty, UnionT):
            rest = [m for m in ty.members if not (isinstance(m, Prim) and m.name == "null")]
            return len(rest) == 1 and len(ty.members) == 2 and not optional and not isinstance(rest[0], ClassT) \
                and walk(rest[0], keys, True, depth + 1)
        if isinstance(ty, Prim) and ty.name in _ACCEPTED:
            out.append(Leaf(keys, ty.name, optional))
            return True
        if isinstance(ty, EnumT) and ty.name in enums:
            out.append(Leaf(keys, "enum", optional, frozenset(enums[ty.name].variants)))
            return True
        if isinstance(ty, ClassT) and ty.name in classes and not optional:
            return all(walk(f.ty, (*keys, f.name), False, depth + 1) for f in classes[ty.name].fields)
        return False

    return out if all(walk(ty, (name,), False, 0) for name, ty in params) else None


# -- columnar input ---------------------------------------------------------------------------------
def column_length(columns: Mapping[str, Any]) -> int:
    lengths: dict[int, str] = {}

    def walk(node: Any, path: str) -> None:
        if isinstance(node, Mapping):
            for k, v in node.items():
                walk(v, f"{path}.{k}")
        else:
            try:
                lengths.setdefault(len(node), path)
            except TypeError:
                raise ArgumentError(path, f"a column must be a list, an array or a tensor, got "
                                          f"{type(node).__name__}") from None

    for name, node in columns.items():
        walk(node, f"args.{name}")
    if len(lengths) > 1:  # name the first column that disagrees with the first one
        (a, pa), (b, pb) = list(lengths.items())[:2]
        raise ArgumentError(pb, f"has {b} rows but `{pa}` has {a}; columns must have one entry per sample")
    return next(iter(lengths), 0)


def cell(column: Any, i: int) -> Any:
    """One sample's value in a column, as a Python value."""
    v = column[i]
    return v.item() if hasattr(v, "item") and getattr(v, "ndim", 1) == 0 else v


# -- the column-wise path ----------------------------------------------------------------------------
class _Reject(Exception):
    """A fast check failed: the samples go through per-sample conversion."""


def flat_extract(program: Program, function: str, samples: Any, leaves: list[Leaf], n: int,
                 row: Callable[[int], Mapping[str, Any]], dtype: torch.dtype,
                 device: torch.device | str | None) -> list[LayoutRows] | None:
    try:
        read = ColumnReader(samples, n) if is_columnar(samples) else RowReader(samples, leaves)
        codes: list[torch.Tensor] = []
        numbers: dict[str, torch.Tensor] = {}
        for leaf in leaves:
            values, nulls = read.leaf(leaf)
            if nulls is not None:
                codes.append(nulls.to(torch.int64))
            if leaf.kind in _NUMERIC:
                numbers[leaf.path] = numeric_column(leaf, values, nulls, dtype)
            else:
                codes.append(code_column(leaf, values, nulls))
    except _Reject:
        report_bad_sample(program, function, row, n)
        return None  # stricter than conversion: let the row-wise path decide
    layout_of = layout_ids(codes, n)
    order = torch.argsort(layout_of, stable=True)
    parts = []
    for rows in torch.split(order, [k for k in torch.bincount(layout_of).tolist() if k]):
        first = int(rows[0])
        layout, _ = sample_layout(program, function, row(first))
        if any(path not in numbers for path, _ in layout.inputs):
            return None
        columns = [numbers[path].index_select(0, rows) for path, _ in layout.inputs]
        parts.append(LayoutRows(layout, rows.to(device), [c.to(device) for c in columns], row))
    return parts


def layout_ids(codes: list[torch.Tensor], n: int) -> torch.Tensor:
    """One small int per row, equal where all code columns are equal (mixed radix, renumbered
    after each column so the key never overflows)."""
    key = torch.zeros(n, dtype=torch.int64)
    for c in codes:
        key = torch.unique(key * (int(c.max()) + 1) + c, return_inverse=True)[1]
    return key


def numeric_column(leaf: Leaf, values: Any, nulls: torch.Tensor | None, dtype: torch.dtype) -> torch.Tensor:
    kind = dtype if leaf.kind == "float" else _NUMERIC[leaf.kind]
    if isinstance(values, torch.Tensor):
        if leaf.kind == "bool" and values.dtype is not torch.bool or leaf.kind == "int" and (
                values.dtype.is_floating_point or values.dtype.is_complex or values.dtype is torch.bool) or \
                leaf.kind == "float" and (values.dtype is torch.bool or values.dtype.is_complex):
            raise _Reject
        column = values.to(kind)  # gradients flow back to tensor columns
    else:
        if nulls is not None:
            values = [0 if v is None else v for v in values]
        elif not isinstance(values, (list, tuple)):
            values = list(values)
        if not set(map(type, values)) <= _ACCEPTED[leaf.kind]:
            raise _Reject
        try:
            column = torch.tensor(values, dtype=kind)
        except (OverflowError, RuntimeError, TypeError):
            raise _Reject from None
    if leaf.kind == "int" and len(column) and (int(column.min()) < INT_MIN or int(column.max()) > INT_MAX):
        raise _Reject
    return column


def code_column(leaf: Leaf, values: Any, nulls: torch.Tensor | None) -> torch.Tensor:
    """Strings and enum values as small ints (equal values, equal codes)."""
    if not isinstance(values, list):
        values = list(values.tolist() if hasattr(values, "tolist") else values)
    accepted = _ACCEPTED[leaf.kind] | ({type(None)} if nulls is not None else set())
    if not set(map(type, values)) <= accepted:
        raise _Reject
    table = {v: k for k, v in enumerate(dict.fromkeys(values))}
    codes = list(map(table.__getitem__, values))
    if leaf.kind == "enum" and not set(table) - {None} <= leaf.variants:
        raise _Reject
    return torch.tensor(codes, dtype=torch.int64)


class RowReader:
    """Leaves of row samples: each level (samples, then nested field values) is read once,
    and checked to hold known keys only."""

    def __init__(self, samples: list[Any], leaves: list[Leaf]) -> None:
        self.known: dict[tuple[str, ...], set[str]] = {}
        self.required: dict[tuple[str, ...], set[str]] = {}
        for leaf in leaves:
            for depth in range(len(leaf.keys)):
                self.known.setdefault(leaf.keys[:depth], set()).add(leaf.keys[depth])
                # A missing optional field is null, except a parameter: arguments are always given.
                if depth < len(leaf.keys) - 1 or depth == 0 or not leaf.optional:
                    self.required.setdefault(leaf.keys[:depth], set()).add(leaf.keys[depth])
        self.levels: dict[tuple[str, ...], Sequence[Any]] = {(): samples}
        self.fields: dict[tuple[str, ...], dict[str, Sequence[Any]]] = {}

    def level(self, keys: tuple[str, ...]) -> Sequence[Any]:
        if keys not in self.levels:
            self.levels[keys] = self.columns(keys[:-1])[keys[-1]]
        return self.levels[keys]

    def columns(self, keys: tuple[str, ...]) -> dict[str, Sequence[Any]]:
        """The required fields of the dicts at `keys`, one sequence per field."""
        if keys not in self.fields:
            level = self.level(keys)
            if not set(map(type, level)) <= {dict} or not all(map(self.known[keys].issuperset, level)):
                raise _Reject
            try:  # a comprehension per field beats itemgetter and zip(*rows) here
                self.fields[keys] = {name: [d[name] for d in level] for name in self.required.get(keys, ())}
            except KeyError:
                raise _Reject from None
        return self.fields[keys]

    def leaf(self, leaf: Leaf) -> tuple[Sequence[Any], torch.Tensor | None]:
        parent, name = leaf.keys[:-1], leaf.keys[-1]
        fields = self.columns(parent)
        values = fields[name] if name in fields else [d.get(name) for d in self.level(parent)]
        nulls = torch.tensor([v is None for v in values]) if leaf.optional else None
        return values, nulls


class ColumnReader:
    """Leaves of columnar samples: the column at each leaf's keys."""

    def __init__(self, columns: Mapping[str, Any], n: int) -> None:
        self.columns, self.n = columns, n  # unknown columns: the first sample of each layout is converted

    def leaf(self, leaf: Leaf) -> tuple[Any, torch.Tensor | None]:
        node: Any = self.columns
        for k in leaf.keys:
            if not isinstance(node, Mapping) or k not in node:
                if leaf.optional and isinstance(node, Mapping):
                    return [None] * self.n, torch.ones(self.n, dtype=torch.bool)
                raise _Reject
            node = node[k]
        if isinstance(node, Mapping):
            raise _Reject
        if not isinstance(node, torch.Tensor) and hasattr(node, "dtype") and leaf.kind in _NUMERIC:
            try:
                node = torch.as_tensor(node)  # a numpy array
            except (TypeError, RuntimeError):
                node = list(node.tolist())
        if isinstance(node, torch.Tensor):
            return node.reshape(-1), (torch.zeros(self.n, dtype=torch.bool) if leaf.optional else None)
        values = list(node)
        nulls = torch.tensor([v is None for v in values]) if leaf.optional else None
        return values, nulls


def report_bad_sample(program: Program, function: str, row: Callable[[int], Mapping[str, Any]], n: int) -> None:
    """Convert the samples one by one and raise the first one's error, naming the sample."""
    for i in range(n):
        try:
            program.convert_args(function, dict(row(i)))
        except ArgumentError as e:
            e.add_note(f"in sample {i} of {n}")
            raise


# -- the row-wise path --------------------------------------------------------------------------------
def rowwise_extract(program: Program, function: str, samples: list[Mapping[str, Any]], dtype: torch.dtype,
                    device: torch.device | str | None) -> list[LayoutRows]:
    layouts: dict[Layout, list[int]] = {}
    numbers: list[dict[str, Any]] = []
    for i, s in enumerate(samples):
        try:
            layout, values = sample_layout(program, function, s)
        except ArgumentError as e:
            e.add_note(f"in sample {i} of {len(samples)}")
            raise
        layouts.setdefault(layout, []).append(i)
        numbers.append(values)
    return [LayoutRows(layout, torch.tensor(rows, dtype=torch.long, device=device),
                       [c.to(device) for c in stack_inputs(layout, [numbers[i] for i in rows], dtype)],
                       RowOf(samples))
            for layout, rows in layouts.items()]
