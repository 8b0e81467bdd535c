"""A stdio MCP server exposing BAML functions as tools (the official `mcp` SDK, 2.x).

Uses the SDK's low-level `Server`, so the schemas derived from BAML types go
out unchanged. A call runs on the VM in a worker thread; its result comes back
as `structuredContent` `{"result": value}` plus the value as JSON text. Bad
arguments, panics, unknown tools and any other failure become an `isError`
result: the server never dies on a call.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

import ingot
from ingot.api import ArgumentError, BamlError, Program
from ingot.meta.tools import ToolSpec

_MAX_FRAMES = 10  # of a BAML trace in an error message (a stack overflow has thousands)


def make_server(program: Program, specs: list[ToolSpec], *, name: str = "ingot",
                max_steps: int | None = None) -> Server:
    """A server listing `specs` as tools and running them on `program`."""
    table = {s.name: s for s in specs}
    listing = types.ListToolsResult(tools=[to_tool(s) for s in specs])

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return listing

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        spec = table.get(params.name)
        if spec is None:
            return error(f"unknown tool `{params.name}`; tools: {', '.join(table) or 'none'}")
        run = functools.partial(call, program, spec, params.arguments, max_steps)
        return await anyio.to_thread.run_sync(run)

    return Server(name, version=ingot.__version__, on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def to_tool(spec: ToolSpec) -> types.Tool:
    hints = {k: v for k, v in spec.annotations.items() if k != "title"}
    annotations = None
    if spec.annotations:
        annotations = types.ToolAnnotations.model_validate({"title": spec.title, **hints})
    return types.Tool(name=spec.name, title=spec.title, description=spec.description,
                      input_schema=spec.input_schema, output_schema=spec.output_schema,
                      annotations=annotations)


def call(program: Program, spec: ToolSpec, arguments: Any, max_steps: int | None = None) -> types.CallToolResult:
    """Run one tool call to completion; every failure becomes an `isError` result."""
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return error(f"invalid arguments: expected a JSON object of parameters, got {type(arguments).__name__}")
    extra = sorted(set(arguments) - set(spec.params))
    if extra:
        return error(f"invalid arguments: args.{extra[0]}: {spec.name} has no parameter `{extra[0]}`")
    args: dict[str, Any] = {p: None for p in spec.optional} | arguments
    try:
        value = program.run(spec.name, args, max_steps=max_steps)
    except ArgumentError as e:
        return error(f"invalid arguments: {e}")
    except BamlError as e:
        what = "panic" if e.is_panic else "uncaught error"
        shown = e.trace[-_MAX_FRAMES:]
        skipped = f"\n  ... {len(e.trace) - len(shown)} earlier frames" if len(shown) < len(e.trace) else ""
        frames = skipped + "".join(f"\n  {f}" for f in shown)
        return error(f"BAML {what} {e.kind} in {spec.name}: {e.message}{frames}")
    except Exception as e:  # noqa: BLE001 - a bug in ingot must not take the server down
        return error(f"internal error in ingot: {type(e).__name__}: {e}")
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except ValueError:
        return error(f"{spec.name} returned a non-finite float, which JSON cannot carry")
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                structured_content={"result": value})


def error(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


async def serve_stdio(server: Server) -> None:
    """Serve one client on stdin/stdout until it disconnects."""
    async with stdio_server() as (read, write):
        with contextlib.redirect_stdout(sys.stderr):  # a stray print must not reach the wire
            await server.run(read, write, server.create_initialization_options())


def run_stdio(server: Server) -> None:
    anyio.run(serve_stdio, server)
