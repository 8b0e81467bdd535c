"""A pytest fixture for testing BAML programs that call LLMs, without a network.

    def test_route(ingot_llm_mock):
        ingot_llm_mock.reply("ClassifyMessage", '{"category": "BILLING", "urgent": false, "summary": "x"}')
        program = ingot.load("examples/llm/support.baml")
        assert program.call("Route", message="refund please") == "billing: x"
        assert "Message: refund please" in ingot_llm_mock.calls[0].prompt

While the fixture is active, every `Program.call` without an explicit `llm` option
answers LLM functions from the fixture's mocks (same forms as `llm=`: a raw
reply string, a value, `Replies`, a callable); an LLM function without a mock
raises `ingot.llm.MockError` rather than calling its client, unless
`ingot_llm_mock.allow_clients = True`. An explicit `llm` mapping is merged
over the fixture's mocks.

Enable it with the `pytest11` entry point `ingot-llm = "ingot.llm.pytest_plugin"`
(installed with ingot) or `pytest_plugins = ["ingot.llm.pytest_plugin"]`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from ingot.llm.mocks import Replies
from ingot.llm.runtime import CallRecord, LlmRuntime


class LlmMock:
    """Mocks for the LLM functions of every program a test calls, and a record of the calls."""

    def __init__(self) -> None:
        self.mocks: dict[str, Any] = {}
        self.calls: list[CallRecord] = []
        self.allow_clients = False

    def reply(self, function: str, *replies: Any) -> LlmMock:
        """One reply answers every call; several answer one call (or repair turn) each, in order."""
        if not replies:
            raise ValueError("reply() needs at least one reply")
        self.mocks[function] = replies[0] if len(replies) == 1 else Replies(*replies)
        return self

    def __setitem__(self, function: str, mock: Any) -> None:
        self.mocks[function] = mock

    def calls_to(self, function: str) -> list[CallRecord]:
        return [c for c in self.calls if c.function == function]

    def handler(self, program: Any, extra: Mapping[str, Any] | None = None) -> LlmRuntime:
        """The LLM handler a `program.call` uses while the fixture is active."""
        return LlmRuntime(program.view, {**self.mocks, **dict(extra or {})}, on_call=self.calls.append,
                          mocks_only=not self.allow_clients)


@pytest.fixture
def ingot_llm_mock(monkeypatch: pytest.MonkeyPatch) -> Iterator[LlmMock]:
    from ingot.api import Program

    mock = LlmMock()
    original = Program.llm_handler

    def llm_handler(self: Any, llm: Any) -> Any:
        if llm is not None and not isinstance(llm, Mapping):
            return original(self, llm)
        return mock.handler(self, llm)

    monkeypatch.setattr(Program, "llm_handler", llm_handler)
    yield mock
