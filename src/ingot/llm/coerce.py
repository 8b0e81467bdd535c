"""Schema-aligned parsing: fitting the candidates of `ingot.llm.jsonish` to a type.

Each coercion yields a `Coerced` value carrying *flags*: the liberties taken
to make it fit (a string read as a number, a missing optional field, a
single value wrapped in a list, ...). Every flag has a cost; where several
readings are possible (the candidates of a reply, the members of a union,
the items of an array coerced to one value) the cheapest wins, with the
engine's tie-breaking rules (`pick_best`). The costs and rules follow BAML's
schema-aligned parser, and `tests/llm/` checks the outcomes against the
engine itself.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ingot.llm import jsonish as J
from ingot.llm.schema import NULL, Schema
from ingot.runtime.values import INT_MAX, INT_MIN
from ingot.view import AliasT, ClassT, EnumT, ListT, Lit, MapT, Prim, Ty, UnionT

# The cost of each liberty (lower is better).
COST = {
    "InferredObject": 0, "OptionalDefaultFromNoValue": 1, "DefaultFromNoValue": 100,
    "DefaultButHadValue": 110, "ObjectFromFixedJson": 0, "DefaultButHadUnparseableValue": 2,
    "ObjectToMap": 1, "ObjectToString": 2, "ObjectToPrimitive": 2, "ExtraKey": 1,
    "SubstringMatch": 2, "ImpliedKey": 2, "JsonToString": 2, "SingleToArray": 1,
    "MapKeyParseError": 1, "MapValueParseError": 1, "FirstMatch": 1, "UnionMatch": 0,
    "StringToBool": 1, "StringToNull": 1, "StringToFloat": 1, "FloatToInt": 1, "NoFields": 1,
}


# A list or class costs its own liberties plus those of its items (weight 1). Other
# weights (BAML's sources show 10) or extra costs (a string read as an int, a value
# from a markdown block) disagree more often with `baml_bridge==0.23.0` on the
# corpus in tests/llm/cases/sap.json, so they are not used.
CHILD_WEIGHT = 1


class CoerceError(Exception):
    """The reply cannot be read as the declared type."""


@dataclass
class Coerced:
    kind: str  # int float bool string null list map class enum
    value: Any  # a primitive; list[Coerced]; dict[str, Coerced]; a variant name
    flags: list[tuple[str, Any]] = field(default_factory=list)
    name: str | None = None  # the class or enum
    keys: dict[str, Coerced] | None = None  # a map's keys, read as its key type

    def flag(self, name: str, arg: Any = None) -> Coerced:
        self.flags.append((name, arg))
        return self

    def has(self, *names: str) -> bool:
        return any(f[0] in names for f in self.flags)

    @property
    def composite(self) -> bool:
        return self.kind in ("list", "map", "class")

    def score(self) -> int:
        own = 0
        for name, arg in self.flags:
            if name == "ObjectFromMarkdown":
                own += arg
            elif name == "ArrayItemParseError":
                own += 1 + arg
            elif name == "StrMatchOneFromMany":
                own += sum(count for count, _ in arg)
            else:
                own += COST.get(name, 0)
        if self.kind == "list":
            own += CHILD_WEIGHT * sum(v.score() for v in self.value)
        elif self.kind == "class":
            own += CHILD_WEIGHT * sum(v.score() for v in self.value.values())
        return own

    def plain(self) -> Any:
        """Plain Python: classes as `{"__class__": name, field: ...}`, enums as `(enum, variant)`."""
        if self.kind == "list":
            return [v.plain() for v in self.value]
        if self.kind == "map":
            return {k: v.plain() for k, v in self.value.items()}
        if self.kind == "class":
            return {"__class__": self.name, **{k: v.plain() for k, v in self.value.items()}}
        if self.kind == "enum":
            return (self.name, self.value)
        return self.value


class Coercer:
    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self._visiting: set[tuple[Any, ...]] = set()

    def parse(self, text: str, ty: Ty) -> Coerced:
        """Read `text` (a whole reply) as `ty`; raises `CoerceError`."""
        return self.coerce(self.schema.canonical_parse(ty), J.parse(text))

    def coerce(self, ty: Ty, v: J.Value | None) -> Coerced:  # noqa: C901
        if isinstance(v, J.AnyOf):
            if ty == Prim("string") or isinstance(ty, EnumT) or (isinstance(ty, Lit) and isinstance(ty.value, str)):
                return self.coerce(ty, J.Str(v.raw))
            return self.singular(ty, v.choices)
        if isinstance(v, J.Markdown):
            return self.coerce(ty, v.inner).flag("ObjectFromMarkdown", 1 if ty == Prim("string") else 0)
        if isinstance(v, J.Fixed):
            return self.coerce(ty, v.inner).flag("ObjectFromFixedJson")
        exact = self.try_cast(ty, v)
        if exact is not None:
            return exact
        if isinstance(ty, Prim):
            return self.primitive(ty.name, v)
        if isinstance(ty, UnionT):
            return self.pick_best(ty, [self._try(m, v) for m in ty.members], union=True)
        if isinstance(ty, ListT):
            return self.array(ty, v)
        if isinstance(ty, MapT):
            return self.map(ty, v)
        if isinstance(ty, ClassT):
            return self.instance(ty, v)
        if isinstance(ty, EnumT):
            return self.enum(ty, v)
        if isinstance(ty, Lit):
            return self.literal(ty, v)
        if isinstance(ty, AliasT):
            return self.coerce(self.schema.alias_body(ty.name, sort=False), v)
        raise CoerceError(f"cannot parse into {ty}")

    def try_cast(self, ty: Ty, v: J.Value | None) -> Coerced | None:  # noqa: C901
        """An exact reading of `v` as `ty`, with no liberties taken; `None` if there is none."""
        if isinstance(ty, Prim):
            name = ty.name
            if name == "null":
                return Coerced("null", None) if v is None or isinstance(v, J.Null) else None
            if name == "int" and isinstance(v, J.Num) and v.is_int:
                n = int(v.text)
                return Coerced("int", n) if INT_MIN <= n <= INT_MAX else None
            if name == "float" and isinstance(v, J.Num):
                return Coerced("float", v.value)
            if name == "string" and isinstance(v, J.Str):
                return Coerced("string", v.value)
            if name == "bool" and isinstance(v, J.Bool):
                return Coerced("bool", v.value)
            return None
        if isinstance(ty, Lit):
            val = ty.value
            if isinstance(val, bool):
                ok = isinstance(v, J.Bool) and v.value is val
            elif isinstance(val, int):
                ok = isinstance(v, J.Num) and v.is_int and int(v.text) == val
            else:
                ok = isinstance(v, J.Str) and v.value == val
            return Coerced("string" if isinstance(val, str) else "int" if not isinstance(val, bool) else "bool",
                           val) if ok else None
        if isinstance(ty, ListT):
            if not isinstance(v, J.Arr):
                return None
            items = []
            for item in v.items:
                r = self.try_cast(ty.elem, item)
                if r is None:
                    return None
                items.append(r)
            return Coerced("list", items)
        if isinstance(ty, MapT):
            if not isinstance(v, J.Obj):
                return None
            out: dict[str, Coerced] = {}
            for k, item in v.items:
                r = self.try_cast(ty.value, item)
                if r is None or self.try_cast(ty.key, J.Str(k)) is None:
                    return None
                out[k] = r
            return Coerced("map", out)
        if isinstance(ty, EnumT):
            enum = self.schema.enums.get(ty.name)
            if enum is None or not isinstance(v, J.Str):
                return None
            hit = next((var for var in enum.visible if var.rendered == v.value), None)
            return Coerced("enum", hit.name, [], ty.name) if hit else None
        if isinstance(ty, ClassT):
            return self._cast_instance(ty, v)
        if isinstance(ty, UnionT):
            if (v is None or isinstance(v, J.Null)) and NULL in ty.members:
                return Coerced("null", None)
            found = [r for r in (self.try_cast(m, v) for m in ty.members if m != NULL) if r is not None]
            if not found:
                return None
            if len(found) == 1:
                return found[0]
            try:
                return self.pick_best(ty, found, union=True)
            except CoerceError:
                return None
        if isinstance(ty, AliasT):
            return self.try_cast(self.schema.alias_body(ty.name, sort=False), v)
        return None

    def _cast_instance(self, ty: ClassT, v: J.Value | None) -> Coerced | None:
        cls = self.schema.classes.get(ty.name)
        if cls is None or not isinstance(v, J.Obj):
            return None
        key = ("cast", ty.name, id(v))
        if key in self._visiting:
            return None
        self._visiting.add(key)  # type: ignore[arg-type]
        try:
            by_name = {f.rendered: f for f in cls.visible}
            got: dict[str, Coerced] = {}
            for k, item in v.items:
                f = by_name.get(k)
                if f is None:
                    return None
                if f.name in got:
                    continue
                r = self.try_cast(self.schema.canonical_parse(f.ty), item)
                if r is None:
                    return None
                got[f.name] = r
            done = {}
            for f in cls.fields:
                if f.skip:
                    done[f.name] = self.zero(self.schema.canonical_parse(f.ty))
                elif f.name in got:
                    done[f.name] = got[f.name]
                elif _optional(self.schema.canonical_parse(f.ty)):
                    done[f.name] = Coerced("null", None)
                else:
                    return None
            return Coerced("class", done, [], ty.name)
        finally:
            self._visiting.discard(key)  # type: ignore[arg-type]

    def _try(self, ty: Ty, v: J.Value | None) -> Coerced | CoerceError:
        try:
            return self.coerce(ty, v)
        except CoerceError as e:
            return e

    # -- primitives --------------------------------------------------------------------------
    def primitive(self, name: str, v: J.Value | None) -> Coerced:
        if name == "null":
            out = Coerced("null", None)
            if v is not None and not isinstance(v, J.Null):
                out.flag("DefaultButHadValue", v)
            return out
        if v is None or isinstance(v, J.Null):
            raise CoerceError(f"expected {name}, got null")
        if name == "string":
            if isinstance(v, J.Str):
                return Coerced("string", v.value)
            return Coerced("string", json_text(v)).flag("JsonToString", v)
        if isinstance(v, J.Arr):
            if not v.items:
                raise CoerceError(f"expected {name}, got empty array")
            return self.singular(Prim(name), list(v.items))
        if name == "int":
            return self._int(v)
        if name == "float":
            return self._float(v)
        if name == "bool":
            return self._bool(v)
        raise CoerceError(f"cannot parse into {name}")

    def _int(self, v: J.Value) -> Coerced:
        flags: list[tuple[str, Any]] = []
        if isinstance(v, J.Num):
            if v.is_int:
                n = int(v.text)
            else:
                f = v.value
                flags.append(("FloatToInt", f))
                n = _round(f)
        elif isinstance(v, J.Str):
            s = v.value.strip().rstrip(",")
            if re.fullmatch(r"[-+]?\d+", s):
                n = int(s)
            else:
                parsed = _parse_f64(s)
                if parsed is None:
                    parsed = _fraction(s)
                if parsed is None:
                    parsed = _comma_number(s)
                if parsed is None:
                    raise CoerceError(f"expected int, got {J.describe(v)}")
                flags.append(("FloatToInt", parsed))
                n = _round(parsed)
        else:
            raise CoerceError(f"expected int, got {J.describe(v)}")
        if not INT_MIN <= n <= INT_MAX:
            raise CoerceError(f"Integer was out of bounds: {J.describe(v)}")
        return Coerced("int", n, flags)

    def _float(self, v: J.Value) -> Coerced:
        if isinstance(v, J.Num):
            return Coerced("float", v.value)
        if isinstance(v, J.Str):
            s = v.value.strip().rstrip(",")
            parsed = _parse_f64(s)
            if parsed is None:
                parsed = _fraction(s)
            if parsed is not None:
                return Coerced("float", parsed)
            parsed = _comma_number(s)
            if parsed is not None:
                return Coerced("float", parsed).flag("StringToFloat", s)
        raise CoerceError(f"expected float, got {J.describe(v)}")

    def _bool(self, v: J.Value) -> Coerced:
        if isinstance(v, J.Bool):
            return Coerced("bool", v.value)
        if isinstance(v, J.Str):
            low = v.value.lower()
            if low in ("true", "false"):
                return Coerced("bool", low == "true").flag("StringToBool", v.value)
            try:
                hit, _ = match_string(v, [("true", ["true", "True", "TRUE"]),
                                          ("false", ["false", "False", "FALSE"])])
            except CoerceError:
                raise CoerceError(f"expected bool, got {J.describe(v)}") from None
            return Coerced("bool", hit == "true").flag("StringToBool", hit)
        raise CoerceError(f"expected bool, got {J.describe(v)}")

    # -- containers -------------------------------------------------------------------------
    def array(self, ty: ListT, v: J.Value | None) -> Coerced:
        out = Coerced("list", [])
        if isinstance(v, J.Arr):
            for i, item in enumerate(v.items):
                r = self._try(ty.elem, item)
                if isinstance(r, CoerceError):
                    out.flag("ArrayItemParseError", i)
                else:
                    out.value.append(r)
        elif v is not None:
            out.flag("SingleToArray")
            r = self._try(ty.elem, v)
            if isinstance(r, CoerceError):
                out.flag("ArrayItemParseError", 0)
            else:
                out.value.append(r)
        return out

    def map(self, ty: MapT, v: J.Value | None) -> Coerced:
        if not isinstance(v, J.Obj):
            raise CoerceError(f"expected {ty}, got {J.describe(v) if v is not None else 'nothing'}")
        out = Coerced("map", {}).flag("ObjectToMap", v)
        out.keys = {}
        for key, item in v.items:
            r = self._try(ty.value, item)
            if isinstance(r, CoerceError):
                out.flag("MapValueParseError", key)
                continue
            k = self._try(ty.key, J.Str(key))
            if isinstance(k, CoerceError):
                out.flag("MapKeyParseError", key)
                continue
            out.value[key] = r
            out.keys[key] = k
        return out

    def instance(self, ty: ClassT, v: J.Value | None) -> Coerced:  # noqa: C901
        cls = self.schema.classes.get(ty.name)
        if cls is None:
            raise CoerceError(f"unknown class {ty.name}")
        key = (ty.name, id(v))
        if v is not None and key in self._visiting:
            raise CoerceError(f"circular reference to {ty.name}")
        if v is not None:
            self._visiting.add(key)
        try:
            fields = cls.visible
            values: dict[str, Coerced | CoerceError] = {}
            flags: list[tuple[str, Any]] = []
            options: list[Coerced | CoerceError] = []
            one = fields[0] if len(fields) == 1 else None
            if isinstance(v, J.Obj):
                extra = []
                found = False
                for k, item in v.items:
                    f = next((f for f in fields if _same_key(k, f.rendered)), None)
                    if f is None:
                        extra.append((k, item))
                        continue
                    found = True
                    if f.name not in values:
                        values[f.name] = self._try(self.schema.canonical_parse(f.ty), item)
                implied = None
                if not found and extra and one is not None:
                    implied = self._try(self.schema.canonical_parse(one.ty), v)
                if isinstance(implied, Coerced):
                    values[one.name] = implied.flag("ImpliedKey", one.name)  # type: ignore[union-attr]
                else:
                    flags += [("ExtraKey", k) for k, _ in extra]
            elif isinstance(v, J.Arr):
                if one is not None:
                    r = self._try(self.schema.canonical_parse(one.ty), v)
                    values[one.name] = r.flag("ImpliedKey", one.name) if isinstance(r, Coerced) else r
                if v.items:
                    options.append(self._try_singular(ty, list(v.items)))
            elif v is not None and one is not None:
                r = (CoerceError(f"expected {ty.name}, got a string (inferred object)")
                     if isinstance(v, J.Str) else self._try(self.schema.canonical_parse(one.ty), v))
                if isinstance(r, Coerced):
                    r.flag("ImpliedKey", one.name)
                    flags.append(("InferredObject", v))
                else:
                    raise r
                values[one.name] = r
            elif v is not None:
                raise CoerceError(f"expected {ty.name}, got {J.describe(v)}")

            done: dict[str, Coerced] = {}
            missing, unparsed = [], []
            for f in fields:
                fty = self.schema.canonical_parse(f.ty)
                got = values.get(f.name)
                if isinstance(got, Coerced):
                    done[f.name] = got
                elif _optional(fty):
                    null = Coerced("null", None)
                    if got is None:
                        null.flag("OptionalDefaultFromNoValue")
                    else:
                        null.flag("DefaultButHadUnparseableValue", str(got))
                    done[f.name] = null
                else:
                    default = _default(fty, got)
                    if default is not None:
                        done[f.name] = default
                    elif got is None:
                        missing.append(f.name)
                    else:
                        unparsed.append(f.name)
            from_object = isinstance(v, J.Obj) or (one is not None and isinstance(values.get(one.name), Coerced))
            if not from_object:
                missing = [f.name for f in fields]
            if not missing and not unparsed:
                for f in cls.fields:
                    if f.skip:  # never read from the reply; the engine fills in the type's zero value
                        done[f.name] = self.zero(self.schema.canonical_parse(f.ty))
                done = {f.name: done[f.name] for f in cls.fields if f.name in done}
                options.insert(0, Coerced("class", done, flags, ty.name))
            elif not [o for o in options if isinstance(o, Coerced)]:
                raise CoerceError(f"{ty.name}: missing required fields {missing}, unparsable {unparsed}")
            return self.pick_best(ty, options)
        finally:
            self._visiting.discard(key)

    def zero(self, ty: Ty) -> Coerced:
        """The value a `@skip` field gets: `0`, `""`, `false`, `[]`, `{}`, `null`, ..."""
        if _optional(ty):
            return Coerced("null", None)
        if isinstance(ty, Prim):
            return Coerced(ty.name, {"int": 0, "float": 0.0, "bool": False, "string": ""}.get(ty.name))
        if isinstance(ty, ListT):
            return Coerced("list", [])
        if isinstance(ty, MapT):
            return Coerced("map", {})
        if isinstance(ty, Lit):
            return Coerced("string" if isinstance(ty.value, str) else "int", ty.value)
        if isinstance(ty, EnumT):
            enum = self.schema.enums.get(ty.name)
            first = enum.variants[0].name if enum and enum.variants else ""
            return Coerced("enum", first, [], ty.name)
        if isinstance(ty, ClassT):
            cls = self.schema.classes.get(ty.name)
            fields = {f.name: self.zero(self.schema.canonical_parse(f.ty)) for f in cls.fields} if cls else {}
            return Coerced("class", fields, [], ty.name)
        if isinstance(ty, UnionT):
            return self.zero(ty.members[0])
        if isinstance(ty, AliasT):
            return self.zero(self.schema.alias_body(ty.name, sort=False))
        return Coerced("null", None)

    def enum(self, ty: EnumT, v: J.Value | None) -> Coerced:
        enum = self.schema.enums.get(ty.name)
        if enum is None:
            raise CoerceError(f"unknown enum {ty.name}")
        candidates = []
        for var in enum.visible:
            desc = (var.description or "").strip()
            names = [var.rendered, desc, f"{var.rendered}: {desc}"] if desc else [var.rendered]
            candidates.append((var.name, names))
        hit, flags = match_string(v, candidates)
        return Coerced("enum", hit, flags, ty.name)

    def literal(self, ty: Lit, v: J.Value | None) -> Coerced:
        if v is None or isinstance(v, J.Null):
            raise CoerceError(f"expected {ty}, got null")
        if isinstance(v, J.Obj) and len(v.items) == 1 and isinstance(v.items[0][1], J.Num | J.Bool | J.Str):
            return self.literal(ty, v.items[0][1]).flag("ObjectToPrimitive", v)
        value = ty.value
        if isinstance(value, bool):
            got = self.primitive("bool", v)
            if got.value is value:
                return got
        elif isinstance(value, int):
            got = self.primitive("int", v)
            if got.value == value:
                return got
        elif isinstance(value, str):
            hit, flags = match_string(v, [(value, [value])])
            return Coerced("string", hit, flags)
        raise CoerceError(f"expected {ty}, got {J.describe(v)}")

    # -- choosing ------------------------------------------------------------------------------
    def singular(self, ty: Ty, items: Sequence[J.Value]) -> Coerced:
        best = self.pick_best(ty, [self._try(ty, item) for item in items])
        return best.flag("FirstMatch", 0)

    def _try_singular(self, ty: Ty, items: Sequence[J.Value]) -> Coerced | CoerceError:
        try:
            return self.singular(ty, items)
        except CoerceError as e:
            return e

    def pick_best(self, ty: Ty, results: Sequence[Coerced | CoerceError], union: bool = False) -> Coerced:
        if not results:
            raise CoerceError(f"expected {ty}, got nothing")
        if len(results) == 1:
            only = results[0]
            if isinstance(only, CoerceError):
                raise only
            return only
        valid = [(i, r) for i, r in enumerate(results) if isinstance(r, Coerced)]
        if not valid:
            raise CoerceError(f"Failed to find any {ty} in {len(results)} items: "
                              + "; ".join(str(r) for r in results))
        is_union = union or isinstance(ty, UnionT)
        def order(a: tuple[int, Coerced], b: tuple[int, Coerced]) -> int:
            return _compare(a, b, is_union)

        ranked = sorted(valid, key=functools.cmp_to_key(order))
        _, best = ranked[0]
        best.flag("UnionMatch" if is_union else "FirstMatch", ranked[0][0])
        return best


def _compare(a: tuple[int, Coerced], b: tuple[int, Coerced], union: bool) -> int:  # noqa: C901
    (ai, av), (bi, bv) = a, b
    if av.kind == "list" and bv.kind == "list":
        a_single, b_single = av.has("SingleToArray"), bv.has("SingleToArray")
        if a_single != b_single:
            return 1 if a_single else -1
        ua = sum(1 for f in av.flags if f[0] == "ArrayItemParseError")
        ub = sum(1 for f in bv.flags if f[0] == "ArrayItemParseError")
        if ua == 0 and ub > 0 and not bv.value:
            return -1
        if ua > 0 and ub == 0 and not av.value:
            return 1
    if av.kind == "class" and bv.kind == "class":
        if union:
            a_str, b_str = _coerced_string(av), _coerced_string(bv)
            if a_str != b_str:
                return 1 if a_str else -1
        a_def, b_def = _all_default(av), _all_default(bv)
        if a_def != b_def:
            return 1 if a_def else -1
    if not av.composite and bv.composite and av.has("JsonToString", "FirstMatch"):
        return 1
    if av.composite and not bv.composite and bv.has("JsonToString", "FirstMatch"):
        return -1
    ad, bd = _is_default_list(av), _is_default_list(bv)
    if ad != bd:
        return 1 if ad else -1
    sa, sb = av.score(), bv.score()
    if sa != sb:
        return -1 if sa < sb else 1
    return -1 if ai < bi else (1 if ai > bi else 0)


def _is_default_list(v: Coerced) -> bool:
    return v.kind == "list" and not v.value and v.has("SingleToArray")


def _coerced_string(v: Coerced) -> bool:
    fields = list(v.value.values())
    return len(fields) == 1 and fields[0].kind == "string" and fields[0].has("ImpliedKey")


def _all_default(v: Coerced) -> bool:
    return all(f.has("OptionalDefaultFromNoValue", "DefaultFromNoValue") for f in v.value.values())


def _optional(ty: Ty) -> bool:
    return ty == NULL or (isinstance(ty, UnionT) and NULL in ty.members)


def _default(ty: Ty, error: Coerced | CoerceError | None) -> Coerced | None:
    flag = ("DefaultFromNoValue", None) if error is None else ("DefaultButHadUnparseableValue", str(error))
    if isinstance(ty, ListT):
        return Coerced("list", [], [flag])
    if isinstance(ty, MapT):
        return Coerced("map", {}, [flag])
    if isinstance(ty, UnionT):
        for m in ty.members:
            d = _default(m, error)
            if d is not None:
                return d
    return None


def _same_key(key: str, name: str) -> bool:
    key = key.strip()
    return key == name or key.lower() == name.lower()


# -- string matching (enums, literal strings, booleans) ------------------------------------------
def match_string(v: J.Value | None, candidates: list[tuple[str, list[str]]]) -> tuple[str, list[tuple[str, Any]]]:
    """The candidate named by `v`: exact, then by substring, then ignoring punctuation and case."""
    if v is None or isinstance(v, J.Null):
        raise CoerceError("expected a string, got null")
    flags: list[tuple[str, Any]] = []
    if isinstance(v, J.Str):
        text = v.value
    elif isinstance(v, J.AnyOf):
        flags.append(("ObjectToString", v))
        text = v.raw
    else:
        flags.append(("ObjectToString", v))
        text = json_text(v)
    context = text.strip()
    for transform in (lambda s: s, _strip_punctuation, lambda s: _strip_punctuation(s).lower()):
        ctx = transform(context)
        cands = [(name, [transform(x) for x in values]) for name, values in candidates]
        hit = _string_match(ctx, cands, flags)
        if hit is not None:
            many = next((f[1] for f in flags if f[0] == "StrMatchOneFromMany"), None)
            if many is not None:
                raise CoerceError("Too many matches: " + ", ".join(f"{n} ({c} times)" for c, n in many))
            return hit, flags
    raise CoerceError(f"no variant matches {J.describe(v)}")


def _string_match(text: str, candidates: list[tuple[str, list[str]]], flags: list[tuple[str, Any]]) -> str | None:
    for name, values in candidates:
        if text in values:
            return name
    found = []
    for name, values in candidates:
        best: tuple[int, int] | None = None
        for value in values:
            if not value:
                continue
            count = text.count(value)
            if count == 0:
                continue
            hit = (count, text.find(value))
            if best is None or hit[0] > best[0] or (hit[0] == best[0] and hit[1] < best[1]):
                best = hit
        if best is not None:
            found.append((best[0], best[1], name))
    if not found:
        return None
    found.sort(key=lambda t: (-t[0], t[1]))
    top = [f for f in found if f[0] == found[0][0]]
    flags.append(("SubstringMatch", text))
    if len(top) > 1:
        flags.append(("StrMatchOneFromMany", [(c, n) for c, _, n in top]))
    return top[0][2]


def _strip_punctuation(s: str) -> str:
    return "".join(c for c in s if c.isalnum() or c in "-_")


# -- numbers ---------------------------------------------------------------------------------------
_F64 = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|infinity|nan)", re.I)
_COMMA_NUMBER = re.compile(r"([-+]?)\$?(?:\d+(?:,\d+)*(?:\.\d+)?|\d+\.\d+|\d+|\.\d+)(?:e[-+]?\d+)?")
_CURRENCY = re.compile(r"[$\u00a2-\u00a5\u058f\u060b\u09f2\u09f3\u0e3f\u17db\u20a0-\u20c0\ufdfc\ufe69\uff04]")


def _parse_f64(s: str) -> float | None:
    """Rust's `str::parse::<f64>`: plain decimal or exponent form, `inf`, `nan`."""
    if not _F64.fullmatch(s):
        return None
    try:
        return float(s)
    except ValueError:
        return None


def _fraction(s: str) -> float | None:
    if "/" not in s:
        return None
    num, _, den = s.partition("/")
    a, b = _parse_f64(num.strip()), _parse_f64(den.strip())
    if a is None or b is None or b == 0:
        return None
    return a / b


def _comma_number(s: str) -> float | None:
    """The one number in `s`, written with thousands commas or a currency sign."""
    found = list(_COMMA_NUMBER.finditer(s))
    if len(found) != 1:
        return None
    text = _CURRENCY.sub("", found[0].group(0).replace(",", ""))
    return _parse_f64(text)


def _round(f: float) -> int:
    """Rust's `f64::round() as i64`: half away from zero, saturating."""
    if math.isnan(f):
        return 0
    if math.isinf(f):
        return (1 << 63) - 1 if f > 0 else -(1 << 63)
    whole = math.floor(abs(f))
    if abs(f) - whole >= 0.5:
        whole += 1
    return int(whole if f >= 0 else -whole)


def json_text(v: J.Value) -> str:
    """How a non-string candidate reads when a string is wanted."""
    if isinstance(v, J.Str):
        return v.value
    return J.describe(v)


def finish(value: Coerced, make_instance: Callable[[str, dict[str, Any]], Any],
           make_variant: Callable[[str, str], Any]) -> Any:
    """Turn a coerced reply into runtime values with the given constructors."""
    if value.kind == "list":
        return [finish(v, make_instance, make_variant) for v in value.value]
    if value.kind == "map":
        keys = value.keys or {}
        return {(finish(keys[k], make_instance, make_variant) if k in keys else k):
                finish(v, make_instance, make_variant) for k, v in value.value.items()}
    if value.kind == "class":
        assert value.name is not None
        return make_instance(value.name, {k: finish(v, make_instance, make_variant) for k, v in value.value.items()})
    if value.kind == "enum":
        assert value.name is not None
        return make_variant(value.name, value.value)
    return value.value
