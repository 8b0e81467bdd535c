"""Run examples/llm/support.baml end to end against a local OpenAI-compatible mock server.

    python examples/llm/run_demo.py          # start the server, route three messages, run `ingot test`
    python examples/llm/run_demo.py serve    # only serve on http://127.0.0.1:8765/v1 (Ctrl-C to stop)

The server answers `POST /v1/chat/completions` like a small, deterministic model:
it reads the message at the end of the prompt and replies with a ticket in a
fenced JSON block (with a trailing comma, as models do). Nothing leaves 127.0.0.1.
To use a real model instead, leave SUPPORT_LLM_URL unset and set OPENAI_API_KEY.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROGRAM = HERE / "support.baml"

RULES = [  # (keyword, category, urgent, summary)
    ("down", "TECHNICAL", True, "Site down."),
    ("error", "TECHNICAL", False, "Customer reports an error."),
    ("refund", "BILLING", False, "Customer asks for a refund."),
    ("password", "ACCOUNT", False, "Customer cannot log in."),
]


def answer(prompt: str) -> str:
    """The model's reply to a rendered prompt: a ticket for the message after `Message:`."""
    message = prompt.rsplit("Message:", 1)[-1].lower()
    category, urgent, summary = next(((c, u, s) for k, c, u, s in RULES if k in message),
                                     ("OTHER", False, "General question."))
    ticket = json.dumps({"category": category, "urgent": urgent, "summary": summary}, indent=2)
    return f"Here is the ticket:\n```json\n{ticket[:-2]},\n}}\n```"


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        first = body["messages"][0]["content"]
        prompt = first if isinstance(first, str) else "".join(p.get("text", "") for p in first)
        reply = {"id": "demo", "object": "chat.completion", "model": body.get("model"),
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": answer(prompt)}}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def start(port: int = 0) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> int:
    from click.testing import CliRunner

    import ingot
    from ingot.cli_llm import test_command

    server = start()
    os.environ["SUPPORT_LLM_URL"] = f"http://127.0.0.1:{server.server_address[1]}/v1"
    os.environ.setdefault("OPENAI_API_KEY", "sk-local-demo")
    program = ingot.load(PROGRAM)
    for message in ["The whole site is down and we are losing orders!", "Could you refund my last invoice?",
                    "What are your opening hours?"]:
        print(f"{message!r} -> {program.call('Route', message=message)!r}")
    result = CliRunner().invoke(test_command, [str(PROGRAM)])
    print(result.output, end="")
    server.shutdown()
    return result.exit_code


if __name__ == "__main__":
    if sys.argv[1:] == ["serve"]:
        srv = start(8765)
        print("serving on http://127.0.0.1:8765/v1 (Ctrl-C to stop)")
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            srv.shutdown()
    else:
        sys.exit(main())
