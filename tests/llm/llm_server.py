"""A local OpenAI-compatible server for tests: records requests, answers canned replies.

It listens on 127.0.0.1 on a free port. Each request takes the next queued
reply; a reply is

- `{"text": "..."}`: a model reply, wrapped in a Chat Completions envelope
  (or a Responses API one when the request went to `/responses`);
- `{"json": {...}}`: that envelope verbatim (status 200);
- `{"status": 500, "body": "..." or {...}, "headers": {...}}`: an HTTP error.

Any reply may carry `"delay": seconds` to answer late (for timeouts).

With no reply queued it answers `{"text": ""}`.
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


def responses_envelope(text: str) -> dict[str, Any]:
    return {"id": "resp-1", "object": "response", "status": "completed", "model": "mock",
            "output": [{"type": "message", "id": "msg-1", "role": "assistant", "status": "completed",
                        "content": [{"type": "output_text", "text": text}]}],
            "usage": {"input_tokens": 1, "output_tokens": 1, "total_tokens": 2}}


class MockLLMServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
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
                server.requests.append({"path": self.path, "headers": headers, "body": body})
                status, payload, extra, delay = server._answer(self.path)
                if delay:
                    time.sleep(delay)
                data = payload.encode("utf-8")
                self.send_response(status)
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

    def reset(self, replies: list[dict[str, Any]] | None = None) -> None:
        self.requests.clear()
        self.replies = deque(replies or [])

    def _answer(self, path: str) -> tuple[int, str, dict[str, str], float]:
        reply = self.replies.popleft() if self.replies else {"text": ""}
        delay = float(reply.get("delay", 0))
        if "text" in reply:
            env = responses_envelope(reply["text"]) if "/responses" in path else \
                chat_envelope(reply["text"], reply.get("finish_reason", "stop"))
            return 200, json.dumps(env), {}, delay
        if "json" in reply:
            return 200, json.dumps(reply["json"]), {}, delay
        body = reply.get("body", "")
        return int(reply.get("status", 200)), body if isinstance(body, str) else json.dumps(body), \
            dict(reply.get("headers", {})), delay

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
