"""`_meta.ingot`: each harvested annotation keyed by the item it annotates.

Keys: `Func` and `Func.param` for functions (`Class.method` for methods),
`Class` and `Class.field`, `Enum` and `Enum.VARIANT`. Placement rules:
`@ingot(...)` goes after the type of a parameter or field, or after an enum
variant; `@@ingot(...)` goes on a line inside a class or enum block, or first
inside a function's body braces. Several annotations on one item merge.
"""

from __future__ import annotations

from typing import Any

from ingot.syntax import ast as A
from ingot.syntax.annotations import Annotation
from ingot.syntax.diagnostics import Code, Diagnostic, Span


def attach(module: A.Module, annotations: list[Annotation]) -> tuple[dict[str, dict[str, Any]], list[Diagnostic]]:
    meta: dict[str, dict[str, Any]] = {}
    diags: list[Diagnostic] = []
    if not annotations:
        return meta, diags
    source = module.span.source
    for ann in annotations:
        key, problem = _owner(module, ann)
        if key is None:
            diags.append(Diagnostic(Code.BAD_ANNOTATION, problem, Span(source, ann.start, ann.end)))
            continue
        _merge(meta.setdefault(key, {}), ann.values)
    return meta, diags


def _inside(span: Span, offset: int) -> bool:
    return span.start_offset <= offset < span.end_offset


def _owner(module: A.Module, ann: Annotation) -> tuple[str | None, str]:
    at = ann.start
    marker = "@@ingot" if ann.block else "@ingot"
    for item in module.items:
        if not _inside(item.span, at):
            continue
        if isinstance(item, A.Function):
            return _function_owner(item, item.name, ann)
        if isinstance(item, A.ClassDecl):
            for m in item.methods:
                if _inside(m.span, at):
                    return _function_owner(m, f"{item.name}.{m.name}", ann)
            if ann.block:
                return item.name, ""
            field = _last_before([(f.span.start_offset, f.name) for f in item.fields], at)
            if field is None:
                return None, f"`{marker}` in class `{item.name}` must follow a field's type"
            return f"{item.name}.{field}", ""
        if isinstance(item, A.EnumDecl):
            if ann.block:
                return item.name, ""
            variant = _last_before([(v.span.start_offset, v.name) for v in item.variants], at)
            if variant is None:
                return None, f"`{marker}` in enum `{item.name}` must follow a variant"
            return f"{item.name}.{variant}", ""
        return None, f"`{marker}` cannot annotate this item; annotate a function, parameter, class, field, enum or variant"
    return None, f"`{marker}` must be inside a function, class or enum"


def _function_owner(fn: A.Function, name: str, ann: Annotation) -> tuple[str | None, str]:
    body_start = fn.body.span.start_offset
    if ann.start >= body_start:
        if not ann.block:
            return None, "`@ingot` inside a function body: use `@@ingot(...)` as the first line of the body"
        return name, ""
    if ann.block:
        return None, "`@@ingot` belongs inside the function's body braces; use `@ingot` after a parameter's type"
    if fn.ret is not None and ann.start >= fn.ret.span.start_offset:
        return None, "`@ingot` after the return type: put it after a parameter's type, or use `@@ingot(...)` in the body"
    param = _last_before([(p.span.start_offset, p.name) for p in fn.params], ann.start)
    if param is None:
        return None, "`@ingot` before the parameters: put it after a parameter's type"
    return f"{name}.{param}", ""


def _last_before(starts: list[tuple[int, str]], offset: int) -> str | None:
    best = None
    for start, name in starts:
        if start <= offset:
            best = name
    return best


def _merge(into: dict[str, Any], values: dict[str, Any]) -> None:
    for k, v in values.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _merge(into[k], v)
        else:
            into[k] = v
