"""`ingot test` and `ingot prompt`."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ingot import cli_llm

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "llm" / "support.baml"
CASES = Path(__file__).resolve().parent / "cases"

TESTS = """
function Add(a: int, b: int) -> int { a + b }
test "adds" { assert.equal(Add(1, 2), 3) }
testset "math" {
  test "wrong on purpose" { assert.equal(Add(2, 2), 5) }
  test "true" { assert.is_true(Add(0, 0) == 0) }
}
"""


@pytest.fixture
def baml_file(tmp_path: Path):
    def write(source: str, name: str = "main.baml") -> Path:
        path = tmp_path / name
        path.write_text(source, encoding="utf-8")
        return path
    return write


def run(command: Any, *args: str) -> Any:
    return CliRunner().invoke(command, list(args), catch_exceptions=False)


def test_report_has_dots_failures_with_trace_and_summary(baml_file: Any) -> None:
    result = run(cli_llm.test_command, str(baml_file(TESTS)))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert any(line.endswith(".F.") for line in lines)  # one mark per test, in order
    assert "assertion failed: left = 4, right = 5" in result.output
    assert "Traceback (most recent call last):" in result.output
    assert re.search(r"^2 passed, 1 failed\b", result.output, re.M)


def test_all_passing_exits_0(baml_file: Any) -> None:
    result = run(cli_llm.test_command, str(baml_file(TESTS)), "-k", "not wrong")
    assert result.exit_code == 0
    assert re.search(r"^2 passed, 0 failed\b", result.output, re.M)


def test_k_selects_by_name_and_testset(baml_file: Any) -> None:
    data = json.loads(run(cli_llm.test_command, str(baml_file(TESTS)), "-k", "math", "--json").output)
    assert [t["name"] for t in data["tests"]] == ["wrong on purpose", "true"]
    assert [t["testset"] for t in data["tests"]] == ["math", "math"]


def test_json_report(baml_file: Any) -> None:
    result = run(cli_llm.test_command, str(baml_file(TESTS)), "--json")
    assert result.exit_code == 1
    data = json.loads(result.output)
    assert (data["passed"], data["failed"]) == (2, 1)
    failed = [t for t in data["tests"] if t["outcome"] == "failed"]
    assert failed[0]["error"]["kind"] == "AssertionFailed"
    assert failed[0]["error"]["class"] == "baml.panics.AssertionFailed"
    assert failed[0]["error"]["trace"]


def test_a_file_that_does_not_compile_fails_the_run(baml_file: Any) -> None:
    good = baml_file(TESTS, "good.baml")
    bad = baml_file("function F() -> int { nope }", "bad.baml")
    result = run(cli_llm.test_command, str(good), str(bad))
    assert result.exit_code == 1
    assert "bad.baml" in result.output and "does not compile" in result.output


def test_llm_calls_in_tests_use_mocks(baml_file: Any) -> None:
    outage = json.dumps({"category": "TECHNICAL", "urgent": True, "summary": "Site down."})
    refund = json.dumps({"category": "BILLING", "urgent": False, "summary": "Customer asks for a refund."})
    result = run(cli_llm.test_command, str(EXAMPLE), "-k", "outage", "--llm", f"ClassifyMessage={outage}")
    assert result.exit_code == 0, result.output
    result = run(cli_llm.test_command, str(EXAMPLE), "-k", "refund", "--llm", f"ClassifyMessage={refund}")
    assert result.exit_code == 0, result.output


def test_llm_calls_in_tests_use_the_declared_client(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLE.parent))
    import run_demo

    server = run_demo.start()
    try:
        monkeypatch.setenv("SUPPORT_LLM_URL", f"http://127.0.0.1:{server.server_address[1]}/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
        result = run(cli_llm.test_command, str(EXAMPLE))
    finally:
        server.shutdown()
    assert result.exit_code == 0, result.output
    assert re.search(r"^3 passed, 0 failed\b", result.output, re.M)


def test_prompt_prints_the_engines_request_without_sending(monkeypatch: pytest.MonkeyPatch) -> None:
    # the engine's first request for clients.json case 0 (ViaTuned), minus the credential
    case = json.loads((CASES / "clients.json").read_text(encoding="utf-8"))["cases"][0]
    monkeypatch.setenv("LLM_MOCK_URL", "http://127.0.0.1:1/v1")
    result = run(cli_llm.prompt_command, str(CASES / "clients.baml"), case["function"], "--args", json.dumps(case["args"]))
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    sent = case["requests"][0]
    assert shown["body"] == sent["body"]
    assert shown["url"] == "http://127.0.0.1:1" + sent["path"]
    assert shown["headers"] == {k: v for k, v in sent["headers"].items() if k != "authorization"}


def test_prompt_text_only() -> None:
    result = run(cli_llm.prompt_command, str(EXAMPLE), "ClassifyMessage", "--args", '{"message": "hi"}', "--text")
    assert result.exit_code == 0
    assert result.output.startswith("You triage customer support messages.\nCategory\n----\n")
    assert result.output.rstrip().endswith("Message: hi")


def test_prompt_rejects_a_plain_function() -> None:
    result = CliRunner().invoke(cli_llm.prompt_command, [str(EXAMPLE), "TeamFor"])
    assert result.exit_code == 1
    assert "not an LLM function" in result.output
