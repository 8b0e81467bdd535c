"""Reliability wrappers (`ai.clients.Retry`, `Fallback`, `RoundRobin`) behave as on the engine.

The BAML declarations of wrappers need client references (`inner = Fast`), which
the front-end does not accept yet, so these tests build the clients from specs
directly and replay the engine's recorded cases (tests/llm/cases/wrappers.json):
same requests, same results, same error classes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ingot.llm.callers import Models, RetryModel
from ingot.llm.errors import LlmFailure
from ingot.llm.request import Conversation
from ingot.semantics.clients import ClientSpec, EnvRef

CASES = json.loads((Path(__file__).resolve().parent / "cases" / "wrappers.json").read_text(encoding="utf-8"))


@dataclass(frozen=True)
class ClientRef:  # the reference the front-end will produce for `inner = Fast`
    name: str


def _spec(name: str, provider: str, **options: Any) -> ClientSpec:
    return ClientSpec(name, provider, options)


class StubView:
    """Just enough of ProgramView for `Models`: the declared clients and who uses which."""

    def __init__(self) -> None:
        fast = _spec("Fast", "openai.ChatClient", model="gpt-4o-mini", api_key="sk-test",
                     base_url=EnvRef("LLM_MOCK_URL"))
        other = _spec("Other", "openai.ChatClient", model="backup", api_key="sk-test", base_url=EnvRef("LLM_MOCK_URL"))
        self._clients = {
            "Fast": fast, "Other": other,
            "Patient": _spec("Patient", "ai.clients.Retry", inner=ClientRef("Fast"), max_attempts=3),
            "Either": _spec("Either", "ai.clients.Fallback", members=[ClientRef("Fast"), ClientRef("Other")]),
            "Turns": _spec("Turns", "ai.clients.RoundRobin", members=[ClientRef("Fast"), ClientRef("Other")]),
        }
        self._uses = {"Retried": "Patient", "Backup": "Either", "Rotate": "Turns"}

    def clients(self) -> dict[str, ClientSpec]:
        return self._clients

    def client_of(self, function: str) -> ClientSpec | None:
        return self._clients.get(self._uses.get(function, ""))


def _prompt(request: dict[str, Any]) -> str:
    return request["body"]["messages"][0]["content"][0]["text"]


def _by_function() -> list[Any]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for case in CASES["cases"]:
        groups.setdefault(case["function"], []).append(case)
    return [pytest.param(cases, id=name) for name, cases in groups.items()]


@pytest.mark.parametrize("cases", _by_function())
def test_wrapper_matches_engine(cases: list[dict[str, Any]], llm_server: Any) -> None:
    """One program's calls in order (a round-robin keeps rotating across them)."""
    models = Models(StubView())  # type: ignore[arg-type]
    for case in cases:
        delays: list[float] = []
        llm_server.reset(case["replies"])
        model = models.for_function(case["function"])
        if isinstance(model, RetryModel):
            model.sleep = delays.append
        try:
            turn = model.invoke(Conversation(_prompt(case["requests"][0])))
            outcome: dict[str, Any] = {"expect": int(turn.text or "0")}
        except LlmFailure as f:
            outcome = {"error": {"class": f"ai.errors.{f.kind}", "fields": f.fields}}
        assert [r["body"] for r in llm_server.requests] == [r["body"] for r in case["requests"]]
        assert [r["path"] for r in llm_server.requests] == [r["path"] for r in case["requests"]]
        if "expect" in case:
            assert outcome == {"expect": case["expect"]}
        else:
            assert outcome["error"]["class"] == case["error"]["class"]
            assert outcome["error"]["fields"] == case["error"]["fields"]
        if case["function"] == "Retried" and "expect" in case:
            assert delays == [0.25, 0.5]  # the engine's backoff: 250 ms, doubling


def test_retry_honours_retry_after(llm_server: Any) -> None:
    view = StubView()
    model = Models(view).for_function("Retried")  # type: ignore[arg-type]
    assert isinstance(model, RetryModel)
    delays: list[float] = []
    model.sleep = delays.append
    llm_server.reset([{"status": 429, "body": "slow", "headers": {"retry-after-ms": "1500"}},
                      {"status": 429, "body": "slow", "headers": {"retry-after": "3"}}, {"text": "7"}])
    assert model.invoke(Conversation("Q")).text == "7"
    assert delays == [1.5, 3.0]


def test_retry_gives_up_after_max_attempts(llm_server: Any) -> None:
    model = Models(StubView()).for_function("Retried")  # type: ignore[arg-type]
    assert isinstance(model, RetryModel)
    model.sleep = lambda s: None
    llm_server.reset([{"status": 500, "body": "a"}, {"status": 502, "body": "b"}, {"status": 503, "body": "c"}])
    with pytest.raises(LlmFailure) as info:
        model.invoke(Conversation("Q"))
    assert info.value.kind == "NetworkFailure" and info.value.fields["status_code"] == 503
    assert len(llm_server.requests) == 3
