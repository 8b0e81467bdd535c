"""`ingot mcp` under load and abuse: per-call step and time limits, cancellation that stops the VM,
a bounded worker pool that refuses what it cannot queue, JSON-safe results, a reply to every request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner
from mcp import Client, ClientSession, StdioServerParameters, stdio_client

import ingot
from ingot.cli import main
from ingot.meta.mcp import Limits, make_server
from ingot.meta.tools import tool_specs

pytestmark = pytest.mark.anyio

ROOT = Path(__file__).resolve().parents[2]
SOURCE = """
enum Color {
  RED
  GREEN
}

class Node {
  next Node?
}

function Spin(n: int) -> int {
  @@ingot(mcp.tool)
  let i = 0;
  while (true) { i += 1; }
  i
}

function Stubborn(n: int) -> int {
  @@ingot(mcp.tool)
  let i = 0;
  while (true) {
    i = (i + 1) catch (e) { baml.panics.Cancelled => 0, baml.panics.InstructionLimit => 0 };
  }
  i
}

function Add(a: int, b: int) -> int {
  @@ingot(mcp.tool)
  a + b
}

function Counts(words: string[]) -> map<Color, int> {
  @@ingot(mcp.tool)
  let m: map<Color, int> = {};
  for (let w in words) {
    let c = if (w == "red") { Color.RED } else { Color.GREEN };
    if (m.has(c)) { m[c] = m[c] + 1; } else { m[c] = 1; }
  }
  m
}

function Chain(n: int) -> Node {
  @@ingot(mcp.tool)
  let node = Node { next: null };
  for (let i = 0; i < n; i += 1) {
    node = Node { next: node };
  }
  node
}
"""


@pytest.fixture(scope="module")
def program() -> ingot.Program:
    return ingot.load_source(SOURCE)


def text(result: Any) -> str:
    return "".join(c.text for c in result.content)


def client(program: ingot.Program, **limits: Any) -> Client:
    return Client(make_server(program, tool_specs(program), limits=Limits(**limits)))


async def test_a_looping_call_stops_at_its_time_limit(program: ingot.Program) -> None:
    async with client(program, max_steps=None, timeout_s=0.5) as c:
        started = time.monotonic()
        r = await c.call_tool("Spin", {"n": 1})
        assert r.is_error and text(r) == "Spin stopped (Cancelled): time limit of 0.5 s exceeded"
        assert time.monotonic() - started < 5
        r = await c.call_tool("Stubborn", {"n": 1})  # catching the panic does not outlive the stop
        assert r.is_error and text(r) == "Stubborn stopped (Cancelled): time limit of 0.5 s exceeded"
        assert (await c.call_tool("Add", {"a": 1, "b": 2})).structured_content == {"result": 3}


async def test_a_looping_call_stops_at_its_step_limit(program: ingot.Program) -> None:
    async with client(program, max_steps=50_000) as c:
        r = await c.call_tool("Stubborn", {"n": 1})
    assert r.is_error and text(r).startswith("Stubborn stopped (InstructionLimit): instruction budget of 50000")


async def test_cancellation_stops_the_vm_and_frees_the_worker(program: ingot.Program) -> None:
    async with client(program, max_steps=None, timeout_s=60, workers=1, queue=4) as c:
        for _ in range(3):
            with anyio.move_on_after(0.3):  # the client gives up: it sends notifications/cancelled
                await c.call_tool("Spin", {"n": 1})
        started = time.monotonic()
        r = await c.call_tool("Add", {"a": 2, "b": 3})  # the one worker is free again
        assert r.structured_content == {"result": 5}
        assert time.monotonic() - started < 5  # not the 60 s a still-spinning VM would hold it


async def test_a_full_pool_refuses_calls_at_once(program: ingot.Program) -> None:
    async with client(program, max_steps=None, timeout_s=1.5, workers=1, queue=1) as c:
        results: list[Any] = []

        async def spin() -> None:
            results.append(await c.call_tool("Spin", {"n": 1}))

        async with anyio.create_task_group() as tg:
            for _ in range(4):
                tg.start_soon(spin)
        messages = sorted(text(r) for r in results)
        assert sum(m.startswith("server busy: 2 calls running or waiting") for m in messages) == 2
        assert "Spin stopped (Cancelled): time limit of 1.5 s exceeded" in messages
        assert all(r.is_error for r in results)


async def test_results_are_json_for_every_type(program: ingot.Program) -> None:
    async with client(program) as c:
        r = await c.call_tool("Counts", {"words": ["red", "blue", "red"]})
        assert not r.is_error and r.structured_content == {"result": {"RED": 2, "GREEN": 1}}
        assert json.loads(text(r)) == {"RED": 2, "GREEN": 1}
        r = await c.call_tool("Chain", {"n": 3})
        assert r.structured_content == {"result": {"next": {"next": {"next": {"next": None}}}}}
        r = await c.call_tool("Chain", {"n": 5000})
        assert r.is_error and text(r) == "Chain: the result nests more than 500 levels deep, which this server does not send"


def test_enum_keyed_maps_print_as_variant_names_on_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "counts.baml"
    path.write_text(SOURCE)
    result = CliRunner().invoke(main, ["run", str(path), "Counts", "--args", '{"words": ["red"]}', "--json"],
                                catch_exceptions=False)
    assert result.exit_code == 0 and json.loads(result.stdout) == {"value": {"RED": 1}}
    assert ingot.load(path).call("Counts", words=["x"]) == {"GREEN": 1}
    result = CliRunner().invoke(main, ["run", str(path), "Chain", "--args", '{"n": 600}'], catch_exceptions=False)
    assert result.exit_code == 1 and "the result nests more than 500 levels deep" in result.stderr


# -- over stdio ---------------------------------------------------------------------------------------


def server_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    return env


async def flood(session: Any) -> None:
    """100 concurrent calls to looping tools and 10 ordinary calls among them, on a server with
    --max-steps 20000 --timeout 30 --workers 4 --queue 200."""
    loops: list[Any] = []
    ordinary: list[tuple[float, Any]] = []

    async def loop(i: int) -> None:
        loops.append(await session.call_tool("Spin" if i % 2 else "Stubborn", {"n": i}))

    async def add(i: int) -> None:
        started = time.monotonic()
        result = await session.call_tool("Add", {"a": i, "b": 1})
        ordinary.append((time.monotonic() - started, (i, result)))

    async with anyio.create_task_group() as tg:
        for i in range(100):
            tg.start_soon(loop, i)
            if i % 10 == 0:
                tg.start_soon(add, i)
    assert len(loops) == 100 and all(r.is_error for r in loops)
    assert all("stopped (InstructionLimit): instruction budget of 20000 exceeded" in text(r) for r in loops)
    assert len(ordinary) == 10
    for elapsed, (i, r) in ordinary:
        assert not r.is_error and r.structured_content == {"result": i + 1}
        assert elapsed < 30  # within the per-call limit
    r = await session.call_tool("Add", {"a": 40, "b": 2})  # the server is still up
    assert r.structured_content == {"result": 42}


FLOOD = {"max_steps": 20_000, "timeout_s": 30, "workers": 4, "queue": 200}


async def test_a_hundred_looping_calls_and_ordinary_calls(program: ingot.Program) -> None:
    async with client(program, **FLOOD) as c:
        await flood(c)


@pytest.mark.slow
async def test_a_hundred_looping_calls_and_ordinary_calls_over_stdio(tmp_path: Path) -> None:
    path = tmp_path / "tools.baml"
    path.write_text(SOURCE)
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "ingot.cli", "mcp", str(path), "--max-steps", "20000", "--timeout", "30", "--workers", "4",
        "--queue", "200"], env=server_env())
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await flood(session)


def test_every_request_with_an_id_gets_a_response(tmp_path: Path) -> None:
    path = tmp_path / "tools.baml"
    path.write_text(SOURCE)
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    requests = [
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "resources/list"},
        {"jsonrpc": "2.0", "id": 2, "method": "prompts/list"},
        {"jsonrpc": "2.0", "id": 3},  # no method
        {"jsonrpc": "2.0", "id": 4, "method": 5},
        {"jsonrpc": "1.0", "id": 5, "method": "ping"},
        [{"jsonrpc": "2.0", "id": 6, "method": "ping"}],  # a batch
        {"id": 7, "method": "ping"},
        {"jsonrpc": "2.0", "id": "eight", "method": "ping", "params": []},
        {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "Add", "arguments": [1]}},
        {"jsonrpc": "2.0", "id": 10, "method": "no/such/method"},
        {"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "Add", "arguments": {"a": 1, "b": 2}}},
    ]
    want = {0, 1, 2, 3, 4, 5, 6, 7, "eight", 9, 10, 11}
    proc = subprocess.Popen([sys.executable, "-m", "ingot.cli", "mcp", str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=server_env())
    assert proc.stdin is not None and proc.stdout is not None
    watchdog = threading.Timer(120, proc.kill)  # a missing answer fails the test instead of hanging it
    watchdog.start()
    try:
        proc.stdin.write("\n".join(json.dumps(m) for m in [init, *requests]) + "\n{not json\n")
        proc.stdin.flush()
        answered: set[Any] = set()
        while answered != want:  # a client keeps its end open until it has its answers
            line = proc.stdout.readline()
            assert line, f"the server closed the connection; answered {answered}"
            answered.add(json.loads(line)["id"])
    finally:
        watchdog.cancel()
        proc.stdin.close()
        proc.wait(timeout=60)
    assert proc.returncode == 0
