"""Streaming beyond the engine's recorded cases (test_llm_conformance.py replays those): `ingot run
--stream`, what may stream, and retries that stop once reply text has arrived."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ingot
from ingot.cli import main

CASES = Path(__file__).resolve().parent / "cases"
PROFILE = ['{"name": "A', 'nn", "age": 3', '1, "tags": ["x"', ']}']


def test_run_stream_prints_each_partial_then_the_result(llm_server: Any) -> None:
    llm_server.reset([{"stream": PROFILE}])
    result = CliRunner().invoke(main, ["run", str(CASES / "streaming.baml"), "ProfileChat", "--args",
                                       '{"q": "Ann"}', "--stream", "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert lines == [{"partial": {"name": "Ann", "age": 31, "nick": None, "tags": ["x"]}},
                     {"partial": {"name": "Ann", "age": 31, "nick": None, "tags": ["x"]}},
                     {"value": {"name": "Ann", "age": 31, "nick": None, "tags": ["x"]}}]
    assert llm_server.requests[0]["body"]["stream"] is True


def test_run_stream_reports_a_cut_stream_after_its_partials(llm_server: Any) -> None:
    llm_server.reset([{"stream": ["Once", " upon"], "cut": True}])
    result = CliRunner().invoke(main, ["run", str(CASES / "streaming.baml"), "SayClaude", "--args", '{"q": "x"}',
                                       "--stream", "--json"])
    assert result.exit_code == 1
    *partials, error = [json.loads(line) for line in result.output.splitlines()]
    assert partials == [{"partial": "Once"}, {"partial": "Once upon"}]
    assert error["error"]["class"] == "ai.errors.NetworkFailure"


def test_run_stream_needs_an_llm_function(tmp_path: Path) -> None:
    source = tmp_path / "plain.baml"
    source.write_text("function Add(a: int) -> int {\n  a + 1\n}\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["run", str(source), "Add", "--args", '{"a": 1}', "--stream"])
    assert result.exit_code == 1 and "--stream needs an LLM function" in result.output


def test_stream_rejects_bad_arguments_by_field() -> None:
    program = ingot.load(CASES / "streaming.baml")
    with pytest.raises(ingot.ArgumentError, match="args.q"):
        program.stream("SayChat", {"q": 3})


RETRY = """\
client Chat = openai.ChatClient.new(model = "m", api_key = "k", base_url = env.LLM_MOCK_URL);
client Patient = ai.clients.Retry.new(inner = Chat, max_attempts = 2);
function Say(q: string) -> string {
  client: Patient
  prompt: `Say ${q}.`
}
"""


def test_retry_before_the_first_text_but_not_after(llm_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("time.sleep", lambda _s: None)
    program = ingot.load(RETRY)
    llm_server.reset([{"status": 503, "body": "busy"}, {"stream": ["Hi", " there"]}])
    stream = program.stream("Say", q="hi")
    assert list(stream) == ["Hi", "Hi there"] and stream.final() == "Hi there"
    assert len(llm_server.requests) == 2
    llm_server.reset([{"stream": ["Hi"], "cut": True}, {"stream": ["never sent"]}])
    stream = program.stream("Say", q="hi")
    with pytest.raises(ingot.BamlError) as e:
        list(stream)
    assert e.value.qualified_kind == "ai.errors.NetworkFailure" and len(llm_server.requests) == 1
