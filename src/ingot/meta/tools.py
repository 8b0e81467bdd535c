"""MCP tool descriptions of BAML functions, as plain data (no SDK needed).

A function is a tool when marked `@@ingot(mcp.tool)` (every callable function
with `include_all`). Its description is `mcp.description`, else its `///` doc
comment; a parameter's is `@ingot(mcp.description=...)`, else `cli.help`.
Hints come from `mcp.readOnlyHint` and friends, and only when written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ingot.meta import keys
from ingot.meta.schema import SchemaBuilder, SchemaError, input_schema, output_schema
from ingot.runnable import RunnableProgram as Program

HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str | None
    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    annotations: dict[str, Any]  # wire names: title, readOnlyHint, ...
    params: tuple[str, ...]
    optional: tuple[str, ...]  # nullable parameters: absent means null


def tool_specs(program: Program, include_all: bool = False,
               on_skip: Callable[[str], None] | None = None) -> list[ToolSpec]:
    """Tool specs of the exposed functions; raises `keys.MetaError` listing every bad annotation.

    With `include_all`, a function whose types JSON cannot carry is skipped
    (reported to `on_skip`); a function marked `mcp.tool` is an error then.
    """
    specs: list[ToolSpec] = []
    problems: list[str] = []
    for name in program.functions:
        try:
            mcp = keys.read(program.view.meta, name, "mcp")
            if not (mcp.get("tool") or include_all):
                continue
            specs.append(_spec(program, name, mcp))
        except keys.MetaError as e:
            problems += e.problems
        except SchemaError as e:
            if mcp.get("tool"):
                problems.append(f"`{name}` cannot be an MCP tool: {e}")
            elif on_skip is not None:
                on_skip(f"skipping `{name}`: {e}")
    if problems:
        raise keys.MetaError(problems)
    return specs


def _spec(program: Program, name: str, mcp: dict[str, Any]) -> ToolSpec:
    view = program.view
    fn = view.function(name)
    descriptions = {}
    for p, _ in fn.params:
        text = (keys.read(view.meta, f"{name}.{p}", "mcp", param=True).get("description")
                or keys.read(view.meta, f"{name}.{p}", "cli", param=True).get("help"))
        if text:
            descriptions[p] = text
    annotations = {k: mcp[k] for k in ("title", *HINTS) if k in mcp}
    nullable = SchemaBuilder(view).nullable
    return ToolSpec(
        name=name, title=mcp.get("title"), description=mcp.get("description") or fn.doc,
        input_schema=input_schema(view, fn, descriptions), output_schema=output_schema(view, fn),
        annotations=annotations, params=tuple(p for p, _ in fn.params),
        optional=tuple(p for p, ty in fn.params if nullable(ty)))
