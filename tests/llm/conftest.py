"""Fixtures for the LLM tests: a local OpenAI-compatible server and environment control."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from llm_server import MockLLMServer  # noqa: E402


@pytest.fixture(scope="session")
def llm_server_session() -> Iterator[MockLLMServer]:
    server = MockLLMServer()
    yield server
    server.close()


@pytest.fixture
def llm_server(llm_server_session: MockLLMServer, monkeypatch: pytest.MonkeyPatch) -> MockLLMServer:
    """A local mock server, empty, with LLM_MOCK_URL pointing at it and no OPENAI_API_KEY set."""
    llm_server_session.reset()
    monkeypatch.setenv("LLM_MOCK_URL", llm_server_session.base_url)
    monkeypatch.setenv("LLM_MOCK_ROOT", llm_server_session.root_url)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    return llm_server_session


@pytest.fixture
def set_env(monkeypatch: pytest.MonkeyPatch):
    """Set (value) or unset (None) environment variables for one test."""

    def apply(changes: dict[str, str | None]) -> None:
        for name, value in changes.items():
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)

    return apply


# The plugin users enable through the `pytest11` entry point; imported here so these
# tests run whether or not the entry point is installed.
from ingot.llm.pytest_plugin import ingot_llm_mock  # noqa: E402, F401
