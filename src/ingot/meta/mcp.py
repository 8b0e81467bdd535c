"""A stdio MCP server exposing BAML functions as tools (the official `mcp` SDK, 2.x).

Uses the SDK's low-level `Server`, so the schemas derived from BAML types go
out unchanged. A call runs on the VM in a worker thread; its result comes back
as `structuredContent` `{"result": value}` plus the value as JSON text. Bad
arguments, panics, unknown tools and any other failure become an `isError`
result: the server never dies on a call.

Every call is bounded (`Limits`): a step budget and a wall-clock limit stop the VM with
a clear error; a client's `notifications/cancelled` stops it too. At most `workers` calls
run at once and `queue` more wait; beyond that a call is refused at once ("server busy"),
so a flood of slow calls cannot starve the server.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any

import anyio
import mcp_types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

import ingot
from ingot.convert import ResultTooDeep
from ingot.meta.tools import ToolSpec
from ingot.runnable import ArgumentError, BamlError
from ingot.runnable import RunnableProgram as Program

_MAX_FRAMES = 10  # of a BAML trace in an error message (a stack overflow has thousands)


# How long a cancelled call that no thread has taken yet may take to start before its slot is freed.
NEVER_STARTED_S = 1.0


@dataclass(frozen=True, slots=True)
class Limits:
    """What one tool call may use, and how many run at once (`ingot mcp` options)."""

    max_steps: int | None = 10_000_000  # loop iterations and calls per call (None: unlimited)
    timeout_s: float = 30.0  # wall clock per call, waiting included
    workers: int = 4  # calls running at once
    queue: int = 64  # calls waiting for a worker; more are refused as "server busy"


class CallPool:
    """Runs tool calls in worker threads within `Limits`; cancellation and time limits stop the VM."""

    def __init__(self, program: Program, limits: Limits) -> None:
        self.program = program
        self.limits = limits
        self.slots = anyio.CapacityLimiter(limits.workers)
        self.threads = anyio.CapacityLimiter(limits.workers * 2)  # a stopping call may outlive its slot briefly
        self.admitted = 0  # running or waiting

    async def call(self, spec: ToolSpec, arguments: Any) -> types.CallToolResult:
        limits = self.limits
        if self.admitted >= limits.workers + limits.queue:
            return error(f"server busy: {self.admitted} calls running or waiting (at most {limits.workers} run "
                         f"at once, {limits.queue} wait); retry later")
        self.admitted += 1
        deadline = time.monotonic() + limits.timeout_s
        try:
            with anyio.move_on_after(limits.timeout_s):
                async with self.slots:
                    return await self.run(spec, arguments, deadline)
            return error(f"{spec.name} did not start within the time limit of {limits.timeout_s:g} s "
                         "(the server is busy)")
        finally:
            self.admitted -= 1

    async def run(self, spec: ToolSpec, arguments: Any, deadline: float) -> types.CallToolResult:
        """One call in a worker thread; a cancelled request stops the VM before the slot is freed."""
        cancelled = threading.Event()
        finished = threading.Event()
        timeout = self.limits.timeout_s

        def stop() -> str | None:
            if cancelled.is_set():
                return "the client cancelled the call"
            if time.monotonic() > deadline:
                return f"time limit of {timeout:g} s exceeded"
            return None

        started = threading.Event()

        def work() -> types.CallToolResult:
            started.set()
            try:
                return call(self.program, spec, arguments, self.limits.max_steps, stop)
            finally:
                finished.set()

        try:
            return await anyio.to_thread.run_sync(work, abandon_on_cancel=True, limiter=self.threads)
        except anyio.get_cancelled_exc_class():
            cancelled.set()
            with anyio.CancelScope(shield=True):  # keep the slot until the VM has stopped
                # A call cancelled before a thread took it may never run: wait for it only once it
                # started (a late start sees `cancelled` and stops at its first step tick).
                waited = 0.0
                while not finished.is_set() and (started.is_set() or waited < NEVER_STARTED_S):
                    await anyio.sleep(0.005)
                    waited += 0.005
            raise


def make_server(program: Program, specs: list[ToolSpec], *, name: str = "ingot", max_steps: int | None = None,
                limits: Limits | None = None) -> Server:
    """A server listing `specs` as tools and running them on `program` within `limits`."""
    table = {s.name: s for s in specs}
    listing = types.ListToolsResult(tools=[to_tool(s) for s in specs])
    if limits is None:
        limits = Limits(max_steps=max_steps) if max_steps is not None else Limits()
    pool = CallPool(program, limits)

    async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return listing

    async def on_call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        spec = table.get(params.name)
        if spec is None:
            return error(f"unknown tool `{params.name}`; tools: {', '.join(table) or 'none'}")
        return await pool.call(spec, params.arguments)

    return Server(name, version=ingot.__version__, on_list_tools=on_list_tools, on_call_tool=on_call_tool)


def to_tool(spec: ToolSpec) -> types.Tool:
    hints = {k: v for k, v in spec.annotations.items() if k != "title"}
    annotations = None
    if spec.annotations:
        annotations = types.ToolAnnotations.model_validate({"title": spec.title, **hints})
    return types.Tool(name=spec.name, title=spec.title, description=spec.description,
                      input_schema=spec.input_schema, output_schema=spec.output_schema,
                      annotations=annotations)


def call(program: Program, spec: ToolSpec, arguments: Any, max_steps: int | None = None,
         stop: Any = None) -> types.CallToolResult:
    """Run one tool call to completion; every failure becomes an `isError` result.

    `stop` (a `CallOptions.stop`) ends the call early with its reason.
    """
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return error(f"invalid arguments: expected a JSON object of parameters, got {type(arguments).__name__}")
    extra = sorted(set(arguments) - set(spec.params))
    if extra:
        return error(f"invalid arguments: args.{extra[0]}: {spec.name} has no parameter `{extra[0]}`")
    args: dict[str, Any] = {p: None for p in spec.optional} | arguments
    try:
        value = program.run(spec.name, args, max_steps=max_steps, stop=stop)
    except ArgumentError as e:
        return error(f"invalid arguments: {e}")
    except ResultTooDeep as e:
        return error(f"{spec.name}: {e}, which this server does not send")
    except BamlError as e:
        if e.kind == "Cancelled" and stop is not None and stop() is not None:
            return error(f"{spec.name} stopped (Cancelled): {e.message}")
        if e.kind == "InstructionLimit":
            return error(f"{spec.name} stopped (InstructionLimit): {e.message}; the server's --max-steps "
                         "sets the budget")
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


class CheckedLines:
    """The lines of stdin as the SDK reads them, minus requests it would drop without a word.

    The SDK's stdio transport skips a line that is not a valid JSON-RPC message. When such a
    line still carries a request id (no method, a method that is not a string, `params` that
    is not an object, a wrong `jsonrpc`), its id goes to `rejected`, to be answered with
    `-32600 Invalid Request`: every request with an id gets a response.
    """

    def __init__(self, lines: Any, rejected: Any) -> None:
        self.lines = lines
        self.rejected = rejected

    async def __aiter__(self) -> Any:
        async for line in self.lines:
            try:
                types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except Exception:  # noqa: BLE001 - pydantic's or json's error: any means "not a message"
                ids = _request_ids(line)
                for request_id in ids:
                    await self.rejected.send(request_id)
                if ids:
                    continue
            yield line


def _request_ids(line: str) -> list[int | str]:
    """The ids of the requests in a line (a batch, which MCP does not accept, may hold several)."""
    try:
        message = json.loads(line)
    except ValueError:
        return []
    messages = message if isinstance(message, list) else [message]
    ids = [m.get("id") for m in messages if isinstance(m, dict)]
    return [i for i in ids if isinstance(i, (int, str)) and not isinstance(i, bool)]


async def _answer_rejected(rejected: Any, write: Any) -> None:
    from mcp.shared.message import SessionMessage

    async for request_id in rejected:
        reply = types.JSONRPCError(jsonrpc="2.0", id=request_id,
                                   error=types.ErrorData(code=-32600, message="Invalid Request: not a JSON-RPC "
                                                                              "2.0 request the server can read"))
        try:
            await write.send(SessionMessage(reply))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            return  # the client has gone; nobody is left to answer


async def serve_stdio(server: Server) -> None:
    """Serve one client on stdin/stdout until it disconnects."""
    send_rejected, rejected = anyio.create_memory_object_stream[int | str](64)
    stdin = anyio.wrap_file(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace"))
    async with stdio_server(stdin=CheckedLines(stdin, send_rejected)) as (read, write):  # type: ignore[arg-type]
        with contextlib.redirect_stdout(sys.stderr):  # a stray print must not reach the wire
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(_answer_rejected, rejected, write)
                await server.run(read, write, server.create_initialization_options())
                tasks.cancel_scope.cancel()


def run_stdio(server: Server) -> None:
    anyio.run(serve_stdio, server)
