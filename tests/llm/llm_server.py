"""A local model server for tests: records requests, answers canned replies.

It listens on 127.0.0.1 on a free port. Each request takes the next queued
reply; a reply is

- `{"text": "...", "stop": "..."?}`: a model reply in the envelope of the API
  the request's path names: Chat Completions (`/chat/completions`), Responses
  (`/responses`), Anthropic Messages (`/v1/messages`, Vertex `:rawPredict`),
  Gemini (`:generateContent`) or Bedrock Converse (`/converse`); `stop` is that
  API's stop/finish reason;
- `{"json": {...}}`: that envelope verbatim (status 200);
- `{"status": 500, "body": "..." or {...}, "headers": {...}}`: an HTTP error.

- `{"stream": ["chunk", ...], "stop": "..."?, "cut": true?}`: a streamed model reply as the
  server-sent events of the request's API (`cut` ends the stream before its end event);
- `{"sse": "raw event-stream text"}`: those bytes as `text/event-stream`.

Any reply may carry `"delay": seconds` to answer late (for timeouts).

With no reply queued it answers `{"text": ""}`. `POST /token` is an OAuth2
token endpoint (for service-account credentials whose `token_uri` points
here): it answers `TOKEN` without taking a queued reply and records the
request in `token_requests`.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# Headers that depend on the HTTP library rather than on the client's request.
TRANSPORT_HEADERS = {"host", "content-length", "accept", "accept-encoding", "user-agent", "connection"}


def chat_envelope(text: Any, finish_reason: str = "stop") -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "mock",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": finish_reason}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}


TOKEN = "ya29.local-test-token"


def anthropic_envelope(text: str, stop: str = "end_turn") -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "role": "assistant", "model": "mock",
            "content": [{"type": "text", "text": text}], "stop_reason": stop, "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1}}


def gemini_envelope(text: str, stop: str = "STOP") -> dict[str, Any]:
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": stop,
                            "index": 0}],
            "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
            "modelVersion": "mock", "responseId": "r1"}


def bedrock_envelope(text: str, stop: str = "end_turn") -> dict[str, Any]:
    return {"output": {"message": {"role": "assistant", "content": [{"text": text}]}}, "stopReason": stop,
            "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2}, "metrics": {"latencyMs": 1}}


def envelope(path: str, reply: dict[str, Any]) -> dict[str, Any]:
    """A model reply in the envelope of the API `path` belongs to."""
    text, stop = reply["text"], reply.get("stop") or reply.get("finish_reason")
    route = path.split("?", 1)[0]
    if route.endswith("/v1/messages") or route.endswith(":rawPredict"):
        return anthropic_envelope(text, stop or "end_turn")
    if route.endswith(":generateContent"):
        return gemini_envelope(text, stop or "STOP")
    if route.endswith("/converse"):
        return bedrock_envelope(text, stop or "end_turn")
    if route.endswith("/responses"):
        return responses_envelope(text)
    return chat_envelope(text, stop or "stop")


def sse_events(path: str, chunks: list[str], stop: str | None, cut: bool) -> str:
    """A streamed reply as the event stream of the API `path` belongs to."""
    route = path.split("?", 1)[0]
    events: list[tuple[str | None, Any]] = []
    if route.endswith("/v1/messages") or route.endswith(":streamRawPredict"):
        events.append(("message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "mock", "content": [],
            "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 0}}}))
        events.append(("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "text", "text": ""}}))
        events += [("content_block_delta", {"type": "content_block_delta", "index": 0,
                                            "delta": {"type": "text_delta", "text": c}}) for c in chunks]
        tail = [("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop or "end_turn"},
                                   "usage": {"output_tokens": len(chunks)}}),
                ("message_stop", {"type": "message_stop"})]
    elif route.endswith(":streamGenerateContent"):
        events += [(None, {"candidates": [{"content": {"role": "model", "parts": [{"text": c}]}, "index": 0}]})
                   for c in chunks]
        tail = [(None, {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]},
                                        "finishReason": stop or "STOP", "index": 0}],
                        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2}})]
    elif route.endswith("/responses"):
        events.append(("response.created", {"type": "response.created", "response": {
            "id": "resp-1", "object": "response", "status": "in_progress", "model": "mock", "output": []}}))
        events += [("response.output_text.delta", {"type": "response.output_text.delta", "item_id": "msg-1",
                                                   "output_index": 0, "content_index": 0, "delta": c})
                   for c in chunks]
        done = responses_envelope("".join(chunks))
        tail = [("response.completed", {"type": "response.completed", "response": done})]
    else:
        events += [(None, {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "mock",
                           "choices": [{"index": 0, "delta": {"content": c}, "finish_reason": None}]})
                   for c in chunks]
        tail = [(None, {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "mock",
                        "choices": [{"index": 0, "delta": {}, "finish_reason": stop or "stop"}]}), (None, "[DONE]")]
    if not cut:
        events += tail
    out = ""
    for name, data in events:
        out += (f"event: {name}\n" if name else "") + "data: " + (data if isinstance(data, str) else
                                                                 json.dumps(data)) + "\n\n"
    return out


def eventstream_message(event_type: str, payload: dict[str, Any], message_type: str = "event") -> bytes:
    """One AWS event-stream message (Bedrock ConverseStream's framing): prelude, headers, payload, CRCs."""
    import struct
    import zlib

    headers = b""
    kind = "exception-type" if message_type == "exception" else "event-type"
    for name, value in ((f":{kind}", event_type), (":content-type", "application/json"),
                        (":message-type", message_type)):
        raw = value.encode("utf-8")
        headers += bytes([len(name)]) + name.encode("utf-8") + b"\x07" + struct.pack(">H", len(raw)) + raw
    body = json.dumps(payload).encode("utf-8")
    total = 12 + len(headers) + len(body) + 4
    prelude = struct.pack(">II", total, len(headers))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + headers + body
    return message + struct.pack(">I", zlib.crc32(message))


def converse_stream(chunks: list[str], stop: str | None, cut: bool) -> list[bytes]:
    frames = [eventstream_message("messageStart", {"role": "assistant"})]
    frames += [eventstream_message("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": c}}) for c in chunks]
    if not cut:
        frames += [eventstream_message("contentBlockStop", {"contentBlockIndex": 0}),
                   eventstream_message("messageStop", {"stopReason": stop or "end_turn"}),
                   eventstream_message("metadata", {"usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
                                                    "metrics": {"latencyMs": 1}})]
    return frames


def responses_envelope(text: str) -> dict[str, Any]:
    return {"id": "resp-1", "object": "response", "status": "completed", "model": "mock",
            "output": [{"type": "message", "id": "msg-1", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text}]}],
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}


class MockLLMServer:
    def __init__(self, pace: float = 0.0) -> None:
        """`pace`: seconds between the events of a streamed reply (so a client reads them one at a time)."""
        self.pace = pace
        self.requests: list[dict[str, Any]] = []
        self.token_requests: list[dict[str, Any]] = []
        self.replies: deque[dict[str, Any]] = deque()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("content-length", 0))
                raw = self.rfile.read(length).decode("utf-8")
                try:
                    body: Any = json.loads(raw)
                except ValueError:
                    body = raw
                headers = {k.lower(): v for k, v in self.headers.items() if k.lower() not in TRANSPORT_HEADERS}
                if self.path == "/token":
                    server.token_requests.append({"headers": headers, "body": raw})
                    self._send(200, json.dumps({"access_token": TOKEN, "expires_in": 3600,
                                                "token_type": "Bearer"}), {})
                    return
                server.requests.append({"path": self.path, "headers": headers, "body": body})
                status, payload, extra, delay = server._answer(self.path)
                if delay:
                    time.sleep(delay)
                if isinstance(payload, str) and extra.get("content-type") == "text/event-stream":
                    payload = [(e + "\n\n").encode("utf-8") for e in payload.split("\n\n") if e]
                if isinstance(payload, list) and server.pace:
                    self._send_paced(status, payload, extra)
                else:
                    self._send(status, payload, extra)

            def _send_paced(self, status: int, frames: list[bytes], extra: dict[str, str]) -> None:
                self.send_response(status)
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("connection", "close")
                self.end_headers()
                for frame in frames:
                    self.wfile.write(frame)
                    self.wfile.flush()
                    time.sleep(server.pace)
                self.close_connection = True

            def _send(self, status: int, payload: str | list[bytes], extra: dict[str, str]) -> None:
                data = b"".join(payload) if isinstance(payload, list) else payload.encode("utf-8")
                self.send_response(status)
                if "content-type" not in extra:
                    self.send_header("content-type", "application/json")
                for name, value in extra.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request: Any, client_address: Any) -> None:
                pass  # a client that timed out and hung up is part of the tests

        self.httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def reset(self, replies: list[dict[str, Any]] | None = None) -> None:
        self.requests.clear()
        self.token_requests.clear()
        self.replies = deque(replies or [])

    def _answer(self, path: str) -> tuple[int, str | list[bytes], dict[str, str], float]:
        reply = self.replies.popleft() if self.replies else {"text": ""}
        delay = float(reply.get("delay", 0))
        if "text" in reply:
            return 200, json.dumps(envelope(path, reply)), {}, delay
        if "json" in reply:
            return 200, json.dumps(reply["json"]), {}, delay
        if "stream" in reply and path.split("?", 1)[0].endswith("/converse-stream"):
            frames = converse_stream(reply["stream"], reply.get("stop"), bool(reply.get("cut")))
            return 200, frames, {"content-type": "application/vnd.amazon.eventstream"}, delay
        if "frames" in reply:  # Bedrock exception messages: [[type, payload], ...]
            frames = [eventstream_message(t, p, "exception" if t.lower().endswith("exception") else "event")
                      for t, p in reply["frames"]]
            return 200, frames, {"content-type": "application/vnd.amazon.eventstream"}, delay
        if "stream" in reply or "sse" in reply:
            text = reply["sse"] if "sse" in reply else sse_events(path, reply["stream"], reply.get("stop"),
                                                                  bool(reply.get("cut")))
            return 200, text, {"content-type": "text/event-stream"}, delay
        body = reply.get("body", "")
        return int(reply.get("status", 200)), body if isinstance(body, str) else json.dumps(body), \
            dict(reply.get("headers", {})), delay

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
