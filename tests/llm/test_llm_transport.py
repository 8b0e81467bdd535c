"""HTTP transport: timeouts, refused connections, and error classes a BAML `catch` sees."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

import ingot
from ingot.llm.errors import LlmFailure
from ingot.llm.request import HttpRequest
from ingot.llm.transport import DEFAULT_TIMEOUT, Transport


def _request(url: str) -> HttpRequest:
    return HttpRequest("POST", url, {"content-type": "application/json"}, '{"model":"m","messages":[]}')


def test_defaults_are_the_engines() -> None:
    # 5 minutes for an attempt, 10 seconds to connect
    assert (DEFAULT_TIMEOUT.read, DEFAULT_TIMEOUT.connect) == (300.0, 10.0)


def test_httpx_loads_only_when_a_request_may_be_sent() -> None:
    # httpx costs a fifth of a second at start-up; runs with mocks and explorations never need it.
    support = Path(__file__).resolve().parents[2] / "examples" / "llm" / "support.baml"
    code = ("import sys, ingot, ingot.cli, ingot.concolic.explore\n"
            f"p = ingot.load({str(support)!r})\n"
            "reply = {'category': 'BILLING', 'urgent': False, 'summary': 'refund'}\n"
            "assert p.options(llm={'ClassifyMessage': reply}).call('Route', message='m') == 'billing: refund'\n"
            "assert 'httpx' not in sys.modules, 'httpx was imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_slow_server_times_out_as_baml_errors_timeout(llm_server: Any) -> None:
    llm_server.reset([{"text": "late", "delay": 1.0}])
    transport = Transport(timeout=httpx.Timeout(0.2))
    with pytest.raises(LlmFailure) as info:
        transport.send(_request(llm_server.base_url + "/chat/completions"), "openai-chat")
    assert info.value.kind == "Timeout"
    assert info.value.to_baml().value.cls.name == "baml.errors.Timeout"


def test_a_refused_connection_is_a_network_failure() -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(LlmFailure) as info:
        Transport().send(_request(f"http://127.0.0.1:{port}/v1/chat/completions"), "openai-chat")
    assert info.value.kind == "NetworkFailure"
    assert info.value.fields["status_code"] is None
    assert info.value.fields["detail"].startswith("transport failed before a response arrived")


def test_errors_reach_the_program_with_the_engines_fields(llm_server: Any) -> None:
    program = ingot.load("""
client Fast = openai.ChatClient.new(model = "m", api_key = "k", base_url = env.LLM_MOCK_URL)
function Num() -> int {
  client: Fast
  prompt: `n ${ctx.output_format()}`
}
""")
    llm_server.reset([{"status": 429, "body": "slow down", "headers": {"retry-after": "2"}}])
    with pytest.raises(ingot.BamlError) as info:
        program.call("Num")
    assert info.value.qualified_kind == "ai.errors.RateLimited"
    fields = dict(zip(info.value.value.cls.field_names, info.value.value.fields))
    assert fields == {"provider": "openai-chat", "retry_after_ms": 2000, "status_code": 429, "raw_body": "slow down"}
