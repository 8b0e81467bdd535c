"""Which clients load: every chat provider the engine has does; the rest get a clear diagnostic at load time."""

from __future__ import annotations

import pytest

import ingot
from ingot.llm import validate_clients
from ingot.syntax.diagnostics import Code


def diagnostics(source: str) -> list[tuple[str, str]]:
    """The client diagnostics `ingot.load` reports (none when the program loads)."""
    try:
        program = ingot.load(source)
    except ingot.CompileError as e:
        return [(d.code.value, d.message) for d in e.diagnostics]
    view = program.view
    uses = {f.name: view.client_of(f.name) for f in view.functions() if f.is_llm}
    assert validate_clients(view.clients().values(), {k: v for k, v in uses.items() if v}) == []
    return []


def llm_fn(client: str) -> str:
    return f"function F(q: string) -> string {{\n  client: {client}\n  prompt: `${{q}}`\n}}\n"


@pytest.mark.parametrize("decl", [
    'openai.ChatClient.new(model = "gpt-4o-mini", api_key = env.KEY, base_url = "http://127.0.0.1:1/v1")',
    'openai.ChatClient.new()',
    'openai.ResponsesClient.new(model = "gpt-4.1", reasoning_effort = "low")',
    'openai.GenericClient.new(model = "m", base_url = env.URL)',
    'openai.OllamaClient.new(model = "llama3")',
    'openai.OpenRouterClient.new(model = "a/b")',
    'openai.AzureClient.new(model = "gpt-4o", resource_name = "r", deployment_id = "d")',
])
def test_openai_compatible_clients_load(decl: str) -> None:
    assert diagnostics(f"client C = {decl}\n" + llm_fn("C")) == []


@pytest.mark.parametrize("short", ["openai/gpt-4o-mini", "openai-chat/gpt-4o", "ollama/llama3", "openrouter/a/b"])
def test_supported_shorthands_load(short: str) -> None:
    assert diagnostics(llm_fn(f'"{short}"')) == []


@pytest.mark.parametrize("decl", [
    'anthropic.Client.new(model = "claude-sonnet-4", thinking = anthropic.ThinkingConfig.enabled(2048))',
    'anthropic.Client.new()',
    'google.GeminiClient.new(model = "gemini-2.5-pro", safety_settings = '
    '[google.SafetySetting.new("HARM_CATEGORY_HARASSMENT", "BLOCK_NONE")])',
    'google.VertexClient.new(model = "claude-sonnet-4-5", project_id = env.P, location = "us-east5")',
    'aws.BedrockClient.new(model = "x", region = "us-east-1", profile = "dev")',
])
def test_every_chat_provider_loads(decl: str) -> None:
    assert diagnostics(f"client C = {decl}\n" + llm_fn("C")) == []


@pytest.mark.parametrize("short", ["anthropic/claude-sonnet-4", "google/gemini-2.5-flash", "vertex/gemini-2.5-pro",
                                   "bedrock/anthropic.claude-3-haiku-20240307-v1:0"])
def test_provider_shorthands_load(short: str) -> None:
    assert diagnostics(llm_fn(f'"{short}"')) == []


def test_bedrock_needs_a_model() -> None:
    [(code, message)] = diagnostics("client C = aws.BedrockClient.new(region = \"us-east-1\")\n" + llm_fn("C"))
    assert code == Code.BAD_ARGUMENTS.value and "model" in message


def test_unknown_option_constructor_is_reported() -> None:
    [(code, message)] = diagnostics('client C = google.GeminiClient.new(safety_settings = [google.Nope.new("a")])\n'
                                    + llm_fn("C"))
    assert code == Code.UNSUPPORTED.value and "google.SafetySetting.new" in message


def test_engine_only_shorthand_is_not_supported_yet() -> None:
    [(code, message)] = diagnostics(llm_fn('"openai-images/gpt-image-1"'))
    assert code == Code.UNSUPPORTED.value and "not supported yet" in message


def test_unknown_shorthand_is_rejected_like_the_engine() -> None:
    # the engine: `no builtin provider for prefix "foo"; construct a client value instead ...`
    [(code, message)] = diagnostics(llm_fn('"foo/bar"'))
    assert code == "E0010"
    assert message.startswith('LLM function `F` has an unusable `client`: no builtin provider for prefix "foo"')


def test_unknown_option_is_reported() -> None:
    [(code, message)] = diagnostics('client C = openai.ChatClient.new(model = "m", temprature = 1.0)\n'
                                       + llm_fn("C"))
    assert code == Code.BAD_ARGUMENTS.value and "temprature" in message


def test_structured_output_is_not_supported_yet() -> None:
    [(code, _)] = diagnostics('client C = openai.ChatClient.new(model = "m", structured_output = true)\n'
                                 + llm_fn("C"))
    assert code == Code.UNSUPPORTED.value


@pytest.mark.parametrize("decl", ['aws.BedrockClient.new(model = "m", region = env.R)',
                                  'google.VertexClient.new(location = env.L)',
                                  'anthropic.Client.new(model = env.M)'])
def test_env_only_where_the_engine_takes_a_credential(decl: str) -> None:
    # the engine: `error[E0001]: mismatched types ... expected `string | null`, found `baml.env.Ref``
    [(code, message)] = diagnostics(f"client C = {decl}\n" + llm_fn("C"))
    assert code == "E0001" and "baml.env.Ref" in message
