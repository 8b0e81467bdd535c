"""Inputs of an exploration: one table from BAML type to input factory.

An assignment maps input variable names to values; `InputBuilder.build`
turns a parameter type plus an assignment into a concrete BAML value and its
shadow, registering every variable it uses (with its sort and domain). Names
follow access paths, so they stay stable across runs: `t.severity`,
`xs.$len`, `xs[2]`, `m.$key[0]`, `opt.$some`, `u.$tag`, `Classify@Triage:12#0.label`.
Variables the assignment does not mention take defaults (0, "", false, the
first variant, absent, empty), unless the assignment draws their values as the
run reads them (the random rounds' fresh inputs: `fuzzing.FreshAssignment`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from ingot.runtime.values import INT_MAX, INT_MIN, Instance
from ingot.stdlib import maps
from ingot.symbolic.expr import Expr, Interner, Sort
from ingot.symbolic.shadow import Opt, Shadow, Tagged
from ingot.view import (
    AliasT,
    ClassT,
    EnumT,
    FuncT,
    ListT,
    Lit,
    MapT,
    Prim,
    ProgramView,
    Special,
    Ty,
    UnionT,
    VariantT,
)

DEFAULTS = {Sort.INT: 0, Sort.FLOAT: 0.0, Sort.BOOL: False, Sort.STRING: ""}
MAX_DEPTH = 16  # nesting (containers, unions, aliases) past which inputs stay empty


class UnsupportedInput(Exception):
    """A parameter type exploration cannot generate values for."""


@dataclass
class InputSpace:
    """Every variable seen so far: its sort and the constraints on its domain."""

    sorts: dict[str, Sort] = field(default_factory=dict)
    domains: dict[str, list[Expr]] = field(default_factory=dict)
    bounds: dict[str, tuple[int, int]] = field(default_factory=dict)  # bounded ints (lengths, tags)
    _sorted: list[str] = field(default_factory=list, repr=False, compare=False)
    _sorted_of: dict[str, Sort] | None = field(default=None, repr=False, compare=False)

    def sorted_names(self) -> list[str]:
        """Every variable's name, sorted. Variables are only added (at the end of `sorts`), so
        the list is kept and merged with the names added since: a round of the random phase
        does not sort tens of thousands of names again."""
        if self._sorted_of is not self.sorts:  # a new table (a resumed search)
            self._sorted, self._sorted_of = [], self.sorts
        names = self._sorted
        if len(names) != len(self.sorts):
            names.extend(sorted(itertools.islice(self.sorts, len(names), None)))
            names.sort()  # two sorted runs: merged in linear time
        return names


class InputBuilder:
    """Builds values (and shadows) for one run from an assignment."""

    def __init__(self, view: ProgramView, interner: Interner, space: InputSpace, assignment: dict[str, Any],
                 heap_set: Any, max_len: int, classes: dict[str, Any] | None = None) -> None:
        self.view = view
        self.x = interner
        self.space = space
        self.assignment = assignment
        self.hset = heap_set  # (obj, key, shadow) -> None: the tracker's shadow heap
        self.max_len = max_len
        self.used: dict[str, Any] = {}  # the variables this run read, with their values
        # A map input left with no slots by a cap (`max_len` 0, or nested `MAX_DEPTH` deep): its
        # lookups are concrete, so no query can ask for a key, and the search is not complete.
        self.capped_map = False
        self.program = view.bytecode
        # `classes`: the view's classes by name, when the caller keeps them across runs
        self._classes = classes if classes is not None else {c.name: c for c in view.classes()}

    def var(self, name: str, sort: Sort, domain: list[Expr] | None = None) -> tuple[Any, Expr]:
        v = self.x.var(name, sort)
        if name not in self.space.sorts:
            self.space.sorts[name] = sort
            self.space.domains[name] = domain or []
        value = self.assignment.get(name, DEFAULTS[sort])
        if sort is Sort.INT:
            value = max(INT_MIN, min(INT_MAX, int(value)))
        elif sort is Sort.FLOAT:
            value = float(value)
        self.used[name] = value
        return value, v

    def bounded(self, name: str, low: int, high: int) -> tuple[int, Expr]:
        """An int variable in [low, high] (enum tags, array lengths, union tags)."""
        x = self.x
        v = x.var(name, Sort.INT)
        self.space.bounds[name] = (low, high)
        value, _ = self.var(name, Sort.INT, [x.le(x.const(low), v), x.le(v, x.const(high))])
        value = max(low, min(high, value))
        self.used[name] = value
        return value, v

    def build(self, ty: Ty, name: str, depth: int = 0) -> tuple[Any, Shadow]:  # noqa: C901 - the type table
        if isinstance(ty, AliasT):
            return self.build(self.view.alias_target(ty.name), name, depth + 1)
        if isinstance(ty, Prim):
            if ty.name == "null":
                return None, None
            sort = {"int": Sort.INT, "float": Sort.FLOAT, "bool": Sort.BOOL, "string": Sort.STRING}[ty.name]
            return self.var(name, sort)
        if isinstance(ty, Lit):
            return ty.value, None
        if isinstance(ty, EnumT):
            info = self.program.enums[ty.name]
            tag, v = self.bounded(name, 0, len(info.variants) - 1)
            return info.variants[tag], v
        if isinstance(ty, VariantT):
            return self.program.enums[ty.enum].variant(ty.variant), None
        if isinstance(ty, ClassT):
            return self.instance(ty.name, name, depth)
        if isinstance(ty, ListT):
            return self.array(ty.elem, name, depth)
        if isinstance(ty, MapT):
            return self.map(ty.key, ty.value, name, depth)
        if isinstance(ty, UnionT):
            return self.union(ty, name, depth)
        if isinstance(ty, FuncT):
            raise UnsupportedInput(f"`{name}` has a function type; exploration needs data inputs")
        if isinstance(ty, Special):
            return None, None
        raise UnsupportedInput(f"no input factory for type {ty}")

    def instance(self, cls_name: str, name: str, depth: int) -> tuple[Any, Shadow]:
        info = self.program.classes[cls_name]
        view = self._classes.get(cls_name)
        if view is None:
            raise UnsupportedInput(f"`{name}`: class {cls_name} has no declaration")
        values, shadows = [], []
        for f in view.fields:
            value, shadow = self.build(f.ty, f"{name}.{f.name}", depth + 1)
            values.append(value)
            shadows.append(shadow)
        inst = Instance(info, values)
        for i, s in enumerate(shadows):
            self.hset(inst, i, s)
        return inst, None

    def array(self, elem: Ty, name: str, depth: int) -> tuple[Any, Shadow]:
        limit = self.max_len if depth < MAX_DEPTH else 0
        n, n_var = self.bounded(f"{name}.$len", 0, limit)
        items, shadows = [], []
        for i in range(n):
            value, shadow = self.build(elem, f"{name}[{i}]", depth + 1)
            items.append(value)
            shadows.append(shadow)
        for i, s in enumerate(shadows):
            self.hset(items, i, s)
        self.hset(items, "$len", n_var)
        return items, None

    def map(self, key: Ty, value: Ty, name: str, depth: int) -> tuple[Any, Shadow]:
        """A map of `m.$len` entries: keys `m.$key[i]`, values `m[i]` (shadows kept per key).

        String and int keys are symbolic: the map's slots (`stdlib.maps.MapSlots`) let lookups,
        `has`, `keys()` and `length()` be solved for, including keys of entries this run does not
        have yet (slots up to `max_len`, pairwise distinct by their domain). A key repeated by the
        assignment (random rounds) keeps its first entry, as a map literal would, and the map's
        keys then stay concrete.
        """
        limit = self.max_len if depth < MAX_DEPTH else 0
        self.capped_map = self.capped_map or limit == 0
        n, n_var = self.bounded(f"{name}.$len", 0, limit)
        out: dict[Any, Any] = {}
        shadows: dict[Any, Shadow] = {}
        key_shadows: list[Shadow] = []
        for i in range(n):
            k, k_shadow = self.build(key, f"{name}.$key[{i}]", depth + 1)
            v, shadow = self.build(value, f"{name}[{i}]", depth + 1)
            key_shadows.append(k_shadow)
            if k in out:
                continue
            out[k] = v
            shadows[k] = shadow
        for k, shadow in shadows.items():
            self.hset(out, ("k", k), shadow)
        slots = self.map_slots(key, name, n, n_var, limit, key_shadows)
        if slots is not None and len(out) == n:
            self.hset(out, maps.SLOTS, slots)
        return out, None

    def map_slots(self, key: Ty, name: str, n: int, n_var: Expr, limit: int,
                  built: list[Shadow]) -> maps.MapSlots | None:
        """The slots of an input map whose keys are strings or ints (None: keys stay concrete)."""
        while isinstance(key, AliasT):
            key = self.view.alias_target(key.name)
        sort = {"string": Sort.STRING, "int": Sort.INT}.get(key.name) if isinstance(key, Prim) else None
        if sort is None or not all(isinstance(k, Expr) for k in built):
            return None
        x = self.x
        keys: list[Expr] = []
        for i in range(limit):
            k = x.var(f"{name}.$key[{i}]", sort)
            if i >= n and k.value not in self.space.sorts:
                self.space.sorts[k.value] = sort
            # Distinct keys, as in any map: slot i, when present, differs from every slot before it.
            if keys:
                self.space.domains[k.value] = [
                    x.or_(x.le(n_var, x.const(i)), x.and_(*(x.not_(x.eq(k, j)) for j in keys)))]
            keys.append(k)
        guards = tuple(x.lt(x.const(i), n_var) for i in range(limit))
        return maps.MapSlots(guards, tuple(keys), tuple(i < n for i in range(limit)), n_var)

    def union(self, ty: UnionT, name: str, depth: int) -> tuple[Any, Shadow]:
        members = list(ty.members)
        non_null = [m for m in members if not (isinstance(m, Prim) and m.name == "null")]
        if len(non_null) == 1 and len(members) == 2:
            present, p_var = self.var(f"{name}.$some", Sort.BOOL)
            if depth >= MAX_DEPTH:
                present = False
                self.used[f"{name}.$some"] = False
            if not present:
                # A scalar payload still gets its variable, so `opt == "x"` stays symbolic.
                payload = non_null[0]
                if isinstance(payload, AliasT):
                    payload = self.view.alias_target(payload.name)
                if isinstance(payload, Prim) and payload.name in ("int", "float", "bool", "string"):
                    sort = {"int": Sort.INT, "float": Sort.FLOAT, "bool": Sort.BOOL, "string": Sort.STRING}
                    _, v = self.var(name, sort[payload.name])
                    return None, Opt(p_var, v)
                return None, Opt(p_var, None)
            value, shadow = self.build(non_null[0], name, depth + 1)
            return value, Opt(p_var, shadow)
        tag, t_var = self.bounded(f"{name}.$tag", 0, len(members) - 1)
        value, shadow = self.build(members[tag], f"{name}.${tag}", depth + 1)
        return value, Tagged(t_var, tag, shadow)


def assignment_for(view: ProgramView, ty: Ty, name: str, value: Any, out: dict[str, Any], depth: int = 0) -> None:
    """The variable assignment under which `InputBuilder.build(ty, name)` rebuilds `value`.

    Lets a concrete input (plain Python data, as `Program.call` takes it) seed an
    exploration or be replayed with tracking.
    """
    if depth > MAX_DEPTH * 4:
        return
    if isinstance(ty, AliasT):
        assignment_for(view, view.alias_target(ty.name), name, value, out, depth + 1)
    elif isinstance(ty, Prim):
        if ty.name != "null":
            out[name] = value
    elif isinstance(ty, EnumT):
        variants = next(e.variants for e in view.enums() if e.name == ty.name)
        out[name] = variants.index(value)
    elif isinstance(ty, ClassT):
        cls = next(c for c in view.classes() if c.name == ty.name)
        for f in cls.fields:
            assignment_for(view, f.ty, f"{name}.{f.name}", value.get(f.name), out, depth + 1)
    elif isinstance(ty, MapT):
        out[f"{name}.$len"] = len(value)
        for i, (k, v) in enumerate(value.items()):
            assignment_for(view, ty.key, f"{name}.$key[{i}]", k, out, depth + 1)
            assignment_for(view, ty.value, f"{name}[{i}]", v, out, depth + 1)
    elif isinstance(ty, ListT):
        out[f"{name}.$len"] = len(value)
        for i, item in enumerate(value):
            assignment_for(view, ty.elem, f"{name}[{i}]", item, out, depth + 1)
    elif isinstance(ty, UnionT):
        members = list(ty.members)
        non_null = [m for m in members if not (isinstance(m, Prim) and m.name == "null")]
        if len(non_null) == 1 and len(members) == 2:
            out[f"{name}.$some"] = value is not None
            if value is not None:
                assignment_for(view, non_null[0], name, value, out, depth + 1)
            return
        for i, m in enumerate(members):
            if value_fits(view, m, value):
                out[f"{name}.$tag"] = i
                assignment_for(view, m, f"{name}.${i}", value, out, depth + 1)
                return


def value_fits(view: ProgramView, ty: Ty, value: Any) -> bool:
    """Could `value` (plain Python data) be a value of `ty`? Picks a union member for a value."""
    if isinstance(ty, AliasT):
        return value_fits(view, view.alias_target(ty.name), value)
    if isinstance(ty, Prim):
        return {"int": type(value) is int, "float": type(value) is float, "bool": type(value) is bool,
                "string": type(value) is str, "null": value is None}[ty.name]
    if isinstance(ty, Lit):
        return type(value) is type(ty.value) and value == ty.value
    if isinstance(ty, ListT):
        return isinstance(value, list)
    if isinstance(ty, MapT):
        return isinstance(value, dict)
    if isinstance(ty, ClassT):
        cls = next((c for c in view.classes() if c.name == ty.name), None)
        return isinstance(value, dict) and cls is not None and set(value) == {f.name for f in cls.fields}
    if isinstance(ty, EnumT):
        return isinstance(value, str) and any(e.name == ty.name and value in e.variants for e in view.enums())
    return False
