"""The MCP server: tool listing, schemas, hints, calls and errors (in memory and over stdio)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

import ingot
from ingot.meta.keys import MetaError
from ingot.meta.mcp import make_server
from ingot.meta.tools import tool_specs

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
GEOMETRY = ROOT / "examples" / "annotations" / "geometry.baml"
TOOLS = ["RectangleArea", "Distance", "Measure", "Convert", "Share"]


@pytest.fixture(scope="module")
def geometry() -> ingot.Program:
    return ingot.load(GEOMETRY)


def client(program: ingot.Program, include_all: bool = False) -> Client:
    return Client(make_server(program, tool_specs(program, include_all)))


def text(result: Any) -> str:
    return "".join(c.text for c in result.content)


async def test_lists_the_marked_functions_with_titles_and_hints(geometry: ingot.Program) -> None:
    async with client(geometry) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert list(tools) == TOOLS  # Millimetres is not marked
    area = tools["RectangleArea"]
    assert area.title == "Rectangle area"
    assert area.description == "Area of a rectangle."  # the /// doc comment
    hints = area.annotations.model_dump(by_alias=True, exclude_none=True)
    assert hints == {"title": "Rectangle area", "readOnlyHint": True, "idempotentHint": True, "openWorldHint": False}
    assert tools["Share"].annotations.idempotent_hint is None  # only written hints are sent


async def test_all_exposes_every_function(geometry: ingot.Program) -> None:
    async with client(geometry, include_all=True) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    assert set(tools) == {*TOOLS, "Millimetres"}
    assert tools["Millimetres"].annotations is None


async def test_input_schema_carries_types_descriptions_and_optionals(geometry: ingot.Program) -> None:
    async with client(geometry) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
    area = tools["RectangleArea"].input_schema
    assert area["properties"]["width"] == {"type": "number", "description": "Width, in any unit"}
    assert area["required"] == ["width", "height"]
    convert = tools["Convert"].input_schema
    assert convert["required"] == ["length"]  # `to: Unit?` may be left out
    assert convert["properties"]["to"]["description"] == "Target unit; default M"
    assert convert["$defs"]["Unit"] == {"type": "string", "enum": ["MM", "CM", "M", "IN"], "description": "A length unit."}
    polygon = tools["Measure"].input_schema["$defs"]["Polygon"]
    assert polygon["properties"]["corners"] == {"type": "array", "items": {"$ref": "#/$defs/Point"},
                                                "description": "At least three corners"}
    assert polygon["properties"]["label"]["description"] == "Echoed back in the result."
    assert tools["Measure"].output_schema["properties"]["result"] == {"$ref": "#/$defs/Measured"}


async def test_a_call_returns_structured_content_and_json_text(geometry: ingot.Program) -> None:
    async with client(geometry) as c:
        r = await c.call_tool("Measure", {"polygon": {"corners": [{"x": 0, "y": 0}, {"x": 4, "y": 0},
                                                                   {"x": 4, "y": 3}], "label": "tri"}})
        assert not r.is_error
        assert r.structured_content == {"result": {"label": "tri", "area": 6.0, "perimeter": 12.0}}
        assert json.loads(text(r)) == r.structured_content["result"]
        r = await c.call_tool("Convert", {"length": {"value": 2, "unit": "IN"}})  # `to` left out: null
        assert r.structured_content == {"result": {"value": 0.0508, "unit": "M"}}


async def test_bad_arguments_name_the_field(geometry: ingot.Program) -> None:
    async with client(geometry) as c:
        r = await c.call_tool("Distance", {"a": {"x": 0, "y": 0}, "b": {"x": "far", "y": 1}})
        assert r.is_error and text(r) == 'invalid arguments: args.b.x: expected float, got "far"'
        r = await c.call_tool("Distance", {"a": {"x": 0, "y": 0}})
        assert r.is_error and text(r).startswith("invalid arguments: args.b: missing required argument")
        r = await c.call_tool("Convert", {"length": {"value": 1, "unit": "FT"}})
        assert r.is_error and "args.length.unit: expected one of MM, CM, M, IN" in text(r)
        r = await c.call_tool("Share", {"total": 1, "parts": 1, "max_steps": 1})
        assert r.is_error and text(r) == "invalid arguments: args.max_steps: Share has no parameter `max_steps`"


async def test_panics_and_unknown_tools_are_error_results(geometry: ingot.Program) -> None:
    async with client(geometry) as c:
        r = await c.call_tool("Share", {"total": 7, "parts": 0})
        assert r.is_error
        first, *frames = text(r).splitlines()
        assert first == "BAML panic DivisionByZero in Share: DivisionByZero { dividend: 7 }"
        assert frames and "geometry.baml" in frames[0]
        r = await c.call_tool("Measure", {"polygon": {"corners": []}})
        assert r.is_error and "UserPanic in Measure: a polygon needs at least three corners" in text(r)
        r = await c.call_tool("Nope", {})
        assert r.is_error and text(r).startswith("unknown tool `Nope`")
        r = await c.call_tool("Share", {"total": 7, "parts": 2})  # still serving
        assert r.structured_content == {"result": 3}


async def test_step_budget_stops_a_runaway_call() -> None:
    program = ingot.load("function Spin(n: int) -> int {\n  @@ingot(mcp.tool)\n"
                         "  let i = 0;\n  while (true) { i += 1; }\n  i\n}")
    async with Client(make_server(program, tool_specs(program), max_steps=1000)) as c:
        r = await c.call_tool("Spin", {"n": 1})
    assert r.is_error and "InstructionLimit" in text(r)


async def test_a_deep_trace_is_cut_to_its_last_frames() -> None:
    program = ingot.load("function Down(n: int) -> int {\n  @@ingot(mcp.tool)\n  Down(n + 1)\n}")
    async with Client(make_server(program, tool_specs(program))) as c:
        r = await c.call_tool("Down", {"n": 0})
    lines = text(r).splitlines()
    assert r.is_error and lines[0] == "BAML panic StackOverflow in Down: stack overflow"
    assert re.fullmatch(r"  \.\.\. \d+ earlier frames", lines[1]) and len(lines) == 12


async def test_non_finite_results_are_errors_not_invalid_json() -> None:
    program = ingot.load("function Inf() -> float {\n  @@ingot(mcp.tool)\n  1.0 / 0.0\n}")
    async with Client(make_server(program, tool_specs(program))) as c:
        r = await c.call_tool("Inf", {})
    assert r.is_error and "non-finite float" in text(r)


def test_misspelt_or_mistyped_keys_are_reported() -> None:
    program = ingot.load('function F(x: int @ingot(mcp.descripton="x")) -> int {\n'
                         '  @@ingot(mcp.tool, mcp.readonlyHint=true, mcp.title=3)\n  x\n}')
    with pytest.raises(MetaError) as e:
        tool_specs(program)
    assert e.value.problems == [
        "`F`: unknown key `mcp.readonlyHint`; did you mean `mcp.readOnlyHint`?",
        "`F`: `mcp.title` must be a string, got 3",
    ]
    program = ingot.load('function F(x: int @ingot(mcp.descripton="x")) -> int {\n  @@ingot(mcp.tool)\n  x\n}')
    with pytest.raises(MetaError, match="`F.x`: unknown key `mcp.descripton`; did you mean `mcp.description`"):
        tool_specs(program)


def test_function_typed_parameters_are_skipped_with_all_but_rejected_when_marked() -> None:
    src = "function Apply(f: (int) -> int throws never) -> int {\n  {MARK}f(1)\n}\nfunction Id(x: int) -> int { x }"
    skipped: list[str] = []
    specs = tool_specs(ingot.load(src.replace("{MARK}", "")), include_all=True, on_skip=skipped.append)
    assert [s.name for s in specs] == ["Id"] and skipped and "Apply" in skipped[0]
    with pytest.raises(MetaError, match="`Apply` cannot be an MCP tool"):
        tool_specs(ingot.load(src.replace("{MARK}", "@@ingot(mcp.tool)\n")))


def server_command(*args: str) -> StdioServerParameters:
    """`ingot mcp ...` as a subprocess (through `ingot.cli` once the command is registered there)."""
    from ingot.cli import main

    if "mcp" in main.commands:
        argv = ["-m", "ingot.cli", "mcp", *args]
    else:
        argv = ["-c", "from ingot.cli_meta import mcp_command; mcp_command(prog_name='ingot mcp')", *args]
    return StdioServerParameters(command=sys.executable, args=argv, cwd=str(ROOT))


async def test_end_to_end_over_stdio() -> None:
    async with stdio_client(server_command(str(GEOMETRY))) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name: t for t in (await session.list_tools()).tools}
            assert list(tools) == TOOLS
            assert tools["Distance"].input_schema["required"] == ["a", "b"]
            assert tools["Distance"].input_schema["$defs"]["Point"]["properties"]["x"] == {
                "type": "number", "description": "Horizontal coordinate"}
            assert tools["Distance"].output_schema == {"type": "object", "properties": {"result": {"type": "number"}},
                                                       "required": ["result"]}
            assert tools["Distance"].annotations.read_only_hint is True

            r = await session.call_tool("Distance", {"a": {"x": 0, "y": 0}, "b": {"x": 3, "y": 4}})
            assert not r.is_error and r.structured_content == {"result": 5.0} and text(r) == "5.0"

            r = await session.call_tool("RectangleArea", {"width": "wide", "height": 2})
            assert r.is_error and text(r) == 'invalid arguments: args.width: expected float, got "wide"'

            r = await session.call_tool("Share", {"total": 1, "parts": 0})
            assert r.is_error and text(r).startswith("BAML panic DivisionByZero in Share")

            r = await session.call_tool("Convert", {"length": {"value": 250, "unit": "CM"}, "to": "M"})
            assert r.structured_content == {"result": {"value": 2.5, "unit": "M"}}  # the server survived
