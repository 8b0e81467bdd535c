"""`ctx.output_format()`: the schema text the engine puts into a prompt.

The layout follows `baml_bridge==0.23.0` exactly (checked case by case in
`tests/llm/`): a prefix chosen by the return type (`Answer as an int`,
`Answer in JSON using this schema:`, ...), enums with descriptions or more
than six variants and recursive classes hoisted above it as named
definitions, everything else written inline. `string` renders nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ingot.llm.schema import NULL, Class, Enum, Schema, non_null
from ingot.view import AliasT, ClassT, EnumT, ListT, Lit, MapT, Prim, Ty, UnionT

INLINE_ENUM_MAX = 6
_SIMPLE = ("int", "float", "bool")


@dataclass
class _Content:
    classes: dict[str, Class] = field(default_factory=dict)
    enums: dict[str, Enum] = field(default_factory=dict)
    recursive: list[str] = field(default_factory=list)  # hoisted classes, in discovery order
    aliases: dict[str, Ty] = field(default_factory=dict)  # recursive aliases: name -> body


def render_output_format(schema: Schema, ty: Ty) -> str:
    """The text `ctx.output_format()` renders for return type `ty` ("" for `string`)."""
    return _Renderer(schema, schema.canonical(ty)).render()


class _Renderer:
    def __init__(self, schema: Schema, target: Ty) -> None:
        self.schema = schema
        self.target = target
        self.content = _Content()
        self._walk(target, [], set())
        self.hoisted_enums = [name for name, e in self.content.enums.items() if _hoists(e)]
        self.hoisted_classes = list(self.content.recursive)

    # -- collecting definitions ---------------------------------------------------------
    def _walk(self, ty: Ty, ancestry: list[str], visited: set[str]) -> None:
        if isinstance(ty, ClassT):
            if ty.name in ancestry:
                for name in ancestry[ancestry.index(ty.name):]:
                    if name not in self.content.recursive:
                        self.content.recursive.append(name)
                return
            cls = self.schema.classes.get(ty.name)
            if cls is None:
                return
            self.content.classes[ty.name] = cls
            ancestry.append(ty.name)
            for f in cls.visible:
                self._walk(self.schema.canonical(f.ty), ancestry, visited)
            ancestry.pop()
        elif isinstance(ty, EnumT):
            key = "enum:" + ty.name
            if key not in visited:
                visited.add(key)
                enum = self.schema.enums.get(ty.name)
                if enum is not None:
                    self.content.enums[ty.name] = enum
        elif isinstance(ty, AliasT):
            key = "alias:" + ty.name
            if key not in visited:
                visited.add(key)
                body = self.schema.alias_body(ty.name)
                self.content.aliases[ty.name] = body
                self._walk(body, ancestry, visited)
        elif isinstance(ty, ListT):
            self._walk(ty.elem, ancestry, visited)
        elif isinstance(ty, MapT):
            self._walk(ty.key, ancestry, visited)
            self._walk(ty.value, ancestry, visited)
        elif isinstance(ty, UnionT):
            for m in ty.members:
                self._walk(m, ancestry, visited)

    # -- the whole text ---------------------------------------------------------------------
    def render(self) -> str:
        target = self.target
        if target == Prim("string"):
            return ""
        prefix = self._prefix(target)
        if isinstance(target, Prim) and target.name in _SIMPLE:
            return prefix or ""
        target_enum_hoisted = isinstance(target, EnumT) and target.name in self.hoisted_enums
        enum_defs = []
        for name in self.hoisted_enums:
            text = self._enum_block(self.content.enums[name])
            if target_enum_hoisted and isinstance(target, EnumT) and target.name == name and prefix:
                text = prefix + text
            enum_defs.append(text)
        class_defs = []
        for name in self.hoisted_classes:
            cls = self.content.classes[name]
            head = "".join(f"/// {line}\n" for line in _lines(cls.description))
            class_defs.append(f"{head}{cls.rendered} {self._class_body(cls, skip_description=True)}")
        alias_defs = [f"{name} = {self._ty(body)}" for name, body in self.content.aliases.items()]

        if isinstance(target, ClassT) and target.name in self.hoisted_classes:
            message: str | None = self.content.classes[target.name].rendered
        elif isinstance(target, EnumT):
            enum = self.content.enums.get(target.name)
            message = None if target_enum_hoisted else (self._enum_block(enum) if enum else target.name)
        elif isinstance(target, AliasT):
            message = target.name
        else:
            message = self._ty(target)

        out = ""
        if enum_defs:
            out += "\n\n".join(enum_defs)
            if not target_enum_hoisted:
                out += "\n\n"
        if class_defs:
            out += "\n\n".join(class_defs) + "\n\n"
        if alias_defs:
            out += "\n".join(alias_defs) + "\n\n"
        if prefix and not target_enum_hoisted:
            out += prefix
        if message:
            out += message
        return out.rstrip("\n")

    def _prefix(self, ty: Ty) -> str | None:
        if isinstance(ty, Prim):
            return {"int": "Answer as an int", "float": "Answer as a float",
                    "bool": "Answer as a bool"}.get(ty.name)
        if isinstance(ty, ListT):
            return "Answer with a JSON Array using this schema:\n"
        if isinstance(ty, ClassT):
            end = " " if ty.name in self.hoisted_classes else "\n"
            return "Answer in JSON using this schema:" + end
        if isinstance(ty, MapT):
            return "Answer in JSON using this schema:\n"
        if isinstance(ty, EnumT):
            return "Answer with any of the categories:\n"
        if isinstance(ty, UnionT):
            rest = non_null(ty)
            if len(rest) == 1 and len(rest) < len(ty.members):
                if isinstance(rest[0], Prim):
                    return "Answer in JSON using this schema:\n"
                return self._prefix(rest[0])
            if len(rest) > 1:
                return "Answer in JSON using any of these schemas:\n"
            return "Answer in JSON using this schema:\n"
        if isinstance(ty, AliasT):
            return "Answer in JSON using this schema: "
        if isinstance(ty, Lit):
            return "Answer using this specific value:\n"
        return None

    # -- types inline -------------------------------------------------------------------------
    def _ty(self, ty: Ty) -> str:
        if isinstance(ty, ClassT):
            if ty.name in self.hoisted_classes:
                return self.content.classes[ty.name].rendered
            cls = self.content.classes.get(ty.name) or self.schema.classes.get(ty.name)
            return self._class_body(cls, skip_description=False) if cls else ty.name
        if isinstance(ty, Prim):
            return ty.name
        if isinstance(ty, ListT):
            return self._list(ty.elem)
        if isinstance(ty, MapT):
            return f'{{ "<{self._ty(ty.key)}>": {self._ty(ty.value)} }}'
        if isinstance(ty, UnionT):
            return " or ".join(self._ty(m) for m in ty.members)
        if isinstance(ty, EnumT):
            enum = self.content.enums.get(ty.name) or self.schema.enums.get(ty.name)
            if enum is None:
                return ty.name
            if ty.name in self.hoisted_enums:
                return enum.rendered
            return " or ".join(f"'{v.rendered}'" for v in enum.visible)
        if isinstance(ty, Lit):
            return _literal(ty)
        if isinstance(ty, AliasT):
            return ty.name
        return str(ty)

    def _list(self, elem: Ty) -> str:
        inner = self._ty(elem)
        hoisted = (isinstance(elem, ClassT) and elem.name in self.hoisted_classes) or isinstance(elem, AliasT)
        if hoisted or isinstance(elem, Prim):
            multiline = False
        elif isinstance(elem, EnumT):
            multiline = elem.name in self.hoisted_enums or len(inner) > 15
        elif isinstance(elem, UnionT):
            multiline = all(not isinstance(m, Prim) for m in elem.members)
        else:
            multiline = True
        if multiline:
            return "[\n  " + inner.replace("\n", "\n  ") + "\n]"
        if isinstance(elem, UnionT):
            return f"({inner})[]"
        return f"{inner}[]"

    def _class_body(self, cls: Class, skip_description: bool) -> str:
        lines = []
        for f in cls.visible:
            ty = self._ty(self.schema.canonical(f.ty)).replace("\n", "\n  ")
            if f.description:
                lines.append("  /// " + f.description.replace("\n", "\n  /// "))
            lines.append(f"  {f.rendered}: {ty},")
        out = "{\n"
        if not skip_description and _lines(cls.description):
            out += "".join(f"  /// {line}\n" for line in _lines(cls.description)) + "\n"
        if lines:
            out += "\n".join(lines) + "\n"
        return out + "}"

    @staticmethod
    def _enum_block(enum: Enum) -> str:
        out = "".join(f"/// {line}\n" for line in _lines(enum.description))
        out += f"{enum.rendered}\n----"
        for v in enum.visible:
            out += f"\n- {v.rendered}"
            if v.description:
                out += ": " + v.description.replace("\n", "\n  ")
        return out


def _hoists(enum: Enum) -> bool:
    return (len(enum.visible) > INLINE_ENUM_MAX or bool(enum.description)
            or any(v.description for v in enum.visible))


def _lines(text: str | None) -> list[str]:
    text = (text or "").strip()
    return text.splitlines() if text else []


def _literal(lit: Lit) -> str:
    v = lit.value
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f'"{v}"'
    return str(v)


__all__ = ["render_output_format", "NULL"]
