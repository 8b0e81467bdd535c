"""Which clients ingot can call, and how a declaration becomes one.

ingot speaks every wire format the engine's built-in clients speak: OpenAI
Chat Completions (`openai.ChatClient` and the compatible `GenericClient`,
`OllamaClient`, `OpenRouterClient`, `AzureClient`), the OpenAI Responses API
(`openai.ResponsesClient`, also `client: "openai/MODEL"`), Anthropic Messages
(`anthropic.Client`), Gemini (`google.GeminiClient`), Vertex AI
(`google.VertexClient`: Gemini, or Claude through `rawPredict`) and the Bedrock
Converse API (`aws.BedrockClient`). The reliability wrappers
`ai.clients.Retry`, `ai.clients.Fallback` and `ai.clients.RoundRobin` compose
them as on the engine. Clients the engine has that are not chat models
(`openai-images`, `claude-code`, ...) are reported by `validate_clients` when
the program is loaded, not when it calls.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ingot.syntax.diagnostics import Code, Diagnostic
from ingot.view import ClientSpec, EnvRef

_COMMON = frozenset({"model", "api_key", "base_url", "timeout", "request_body", "headers", "query_params",
                     "temperature", "top_p", "capture_wire"})
_CHAT = _COMMON | {"max_tokens", "stop", "seed"}


@dataclass(frozen=True, slots=True)
class Provider:
    """One OpenAI-compatible endpoint family, as the engine configures it."""

    constructor: str  # "openai.ChatClient"
    api: str  # "chat" | "responses"
    tag: str  # the `provider` field of its errors
    default_base_url: str | None
    key_env: str | None  # the variable a missing api_key falls back to
    key_required: bool
    options: frozenset[str]
    collapse_text: bool = False  # send an all-text message as a bare string
    auth_header: str = "authorization"  # or Azure's "api-key"
    default_max_tokens: int | None = None
    default_model: str | None = None


_ANTHROPIC = frozenset({"model", "api_key", "base_url", "timeout", "max_tokens", "temperature", "top_p", "top_k",
                        "stop_sequences", "thinking", "tool_choice", "request_body", "headers", "query_params",
                        "capture_wire"})
_GEMINI = frozenset({"model", "api_key", "base_url", "request_body", "headers", "query_params", "temperature",
                     "max_output_tokens", "top_p", "top_k", "stop_sequences", "response_modalities",
                     "safety_settings", "capture_wire", "timeout"})
_VERTEX = _GEMINI | {"project_id", "location", "credentials_json", "credentials_file"}
_BEDROCK = frozenset({"model", "region", "profile", "access_key_id", "secret_access_key", "session_token",
                      "endpoint_url", "max_tokens", "temperature", "top_p", "stop_sequences", "tool_choice",
                      "cache_system_prompt", "cache_tools", "additional_model_request_fields", "request_body",
                      "headers", "query_params", "capture_wire", "timeout"})

PROVIDERS: dict[str, Provider] = {p.constructor: p for p in (
    Provider("openai.ChatClient", "chat", "openai-chat", "https://api.openai.com/v1", "OPENAI_API_KEY", True,
             _CHAT | {"max_completion_tokens", "structured_output"}, default_model="gpt-4o-mini"),
    Provider("openai.ResponsesClient", "responses", "openai", "https://api.openai.com/v1", "OPENAI_API_KEY", True,
             _COMMON | {"max_output_tokens", "reasoning_effort", "reasoning_summary", "verbosity",
                        "parallel_tool_calls", "store", "structured_output"}, default_model="gpt-4o-mini"),
    Provider("openai.GenericClient", "chat", "openai-generic", None, None, False, _CHAT, collapse_text=True),
    Provider("openai.OllamaClient", "chat", "ollama", "http://localhost:11434/v1", None, False, _CHAT,
             collapse_text=True),
    Provider("openai.OpenRouterClient", "chat", "openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY",
             True, _CHAT),
    Provider("openai.AzureClient", "chat", "azure", None, "AZURE_OPENAI_API_KEY", True,
             _CHAT | {"max_completion_tokens", "resource_name", "deployment_id", "api_version"},
             auth_header="api-key", default_max_tokens=4096),
    Provider("anthropic.Client", "anthropic", "anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY", True,
             _ANTHROPIC, auth_header="x-api-key", default_max_tokens=8192, default_model="claude-haiku-4-5"),
    Provider("google.GeminiClient", "gemini", "google", "https://generativelanguage.googleapis.com/v1beta",
             "GOOGLE_API_KEY", True, _GEMINI, auth_header="x-goog-api-key", default_model="gemini-2.5-flash"),
    Provider("google.VertexClient", "vertex", "vertex", None, None, False, _VERTEX,
             default_model="gemini-2.5-flash"),
    Provider("aws.BedrockClient", "bedrock", "aws-bedrock", None, None, False, _BEDROCK),
)}

# The engine types these options `ai.Credential` (a literal or `env.NAME`, read per request);
# the other options of the Anthropic, Google and AWS clients take values only.
_CREDENTIAL_OPTIONS = frozenset({"api_key", "base_url", "project_id", "endpoint_url"})
_TYPED_APIS = frozenset({"anthropic", "gemini", "vertex", "bedrock"})

# `client: "PREFIX/MODEL"`: the prefixes ingot supports, and the other ones the engine knows.
SHORTHANDS = {"openai": "openai.ResponsesClient", "openai-chat": "openai.ChatClient",
              "ollama": "openai.OllamaClient", "openrouter": "openai.OpenRouterClient",
              "anthropic": "anthropic.Client", "google": "google.GeminiClient", "vertex": "google.VertexClient",
              "bedrock": "aws.BedrockClient"}
ENGINE_ONLY_SHORTHANDS = ("openai-images", "ai-gateway-images", "claude-code")
WRAPPERS = {"ai.clients.Retry": frozenset({"inner", "max_attempts"}),
            "ai.clients.Fallback": frozenset({"members"}),
            "ai.clients.RoundRobin": frozenset({"members"})}


def provider_of(spec: ClientSpec) -> str:
    """The constructor a spec stands for (`"openai/gpt-4o"` -> `openai.ResponsesClient`)."""
    if spec.shorthand:
        return SHORTHANDS.get(spec.provider, spec.provider)
    return spec.provider


def client_ref(value: Any) -> str | None:
    """The client named by a wrapper option (`inner = Fast`), if `value` is such a reference."""
    if type(value).__name__ == "ClientRef":
        return str(value.name)
    return None


# -- load-time checks ---------------------------------------------------------------------------
def validate_clients(specs: Iterable[ClientSpec], uses: Mapping[str, ClientSpec] | None = None) -> list[Diagnostic]:
    """Diagnostics for clients ingot cannot call: unsupported providers and options, bad shorthands.

    `specs` are the declared clients; `uses` maps LLM functions to the client
    they use (shorthands appear only there).
    """
    out: list[Diagnostic] = []
    seen: set[int] = set()
    for spec in specs:
        seen.add(id(spec))
        out += _check(spec, None)
    for fn, spec in (uses or {}).items():
        if id(spec) not in seen:
            seen.add(id(spec))
            out += _check(spec, fn)
    return out


def _check(spec: ClientSpec, function: str | None) -> list[Diagnostic]:
    if spec.span is None:
        return []

    def diag(code: Code, message: str) -> list[Diagnostic]:
        return [Diagnostic(code, message, spec.span)]  # type: ignore[arg-type]

    if spec.shorthand:
        where = f"LLM function `{function}` has an unusable `client`: " if function else ""
        prefix, model = spec.provider, spec.options.get("model", "")
        if prefix in SHORTHANDS:
            return []
        if prefix in ENGINE_ONLY_SHORTHANDS:
            return diag(Code.UNSUPPORTED, f"the `{prefix}/...` client shorthand is not supported yet "
                                          "(ingot calls chat models: " + ", ".join(SHORTHANDS) + ")")
        if prefix == "azure":
            return diag(Code.SYNTAX, where + 'there is no "azure/<model>" shorthand: an Azure request goes to a '
                                             "deployment, which a model name does not identify; build "
                                             "openai.AzureClient.new(model = ..., deployment_id = ..., "
                                             "resource_name = ...)")
        return diag(Code.SYNTAX, where + f'no builtin provider for prefix "{prefix}"; construct a client value '
                                         "instead (OpenAI-compatible endpoints: openai.GenericClient.new(base_url "
                                         f'= ..., model = "{model}"))')
    ctor = spec.provider
    if ctor in WRAPPERS:
        allowed = WRAPPERS[ctor]
        extra = sorted(set(spec.options) - allowed)
        if extra:
            return diag(Code.UNSUPPORTED, f"`{extra[0]}` of {ctor} is not supported yet")
        return []
    provider = PROVIDERS.get(ctor)
    if provider is None:
        return diag(Code.UNSUPPORTED, f"the `{ctor}` client is not supported yet (ingot calls chat models: "
                                      + ", ".join(sorted(PROVIDERS)) + ")")
    for name, value in spec.options.items():
        if name not in provider.options:
            return diag(Code.BAD_ARGUMENTS, f"{ctor}.new has no option `{name}`")
        if isinstance(value, EnvRef) and provider.api in _TYPED_APIS and name not in _CREDENTIAL_OPTIONS:
            return diag(Code.MISMATCH, f"mismatched types: `{name}` of {ctor}.new takes a value, found "
                                       f"`baml.env.Ref` (env.{value.name}); only {', '.join(sorted(_CREDENTIAL_OPTIONS))} "
                                       "may name an environment variable")
        if name == "structured_output" and value:
            return diag(Code.UNSUPPORTED, "`structured_output = true` is not supported yet")
        if name == "timeout" and value is not None:
            return diag(Code.UNSUPPORTED, "client `timeout` options are not supported yet (ingot uses the "
                                          "engine's defaults: 5 minutes, 10 seconds to connect)")
    if "model" not in spec.options and provider.default_model is None:
        return diag(Code.BAD_ARGUMENTS, f"{ctor}.new needs `model`")
    return []


# -- call-time resolution -----------------------------------------------------------------------
def resolve_credential(value: Any, env_fallback: str | None = None) -> str | None:
    """A literal or `env.NAME` option, else the canonical variable; blank counts as unset."""
    if isinstance(value, EnvRef):
        explicit: str | None = _configured(os.environ.get(value.name, ""))
    elif isinstance(value, str):
        explicit = _configured(value)
    else:
        explicit = None
    if explicit is not None:
        return explicit
    if env_fallback:
        return _configured(os.environ.get(env_fallback, ""))
    return None


def credential_sources(value: Any, canonical: str | None) -> str:
    names = ([value.name] if isinstance(value, EnvRef) else []) + ([canonical] if canonical else [])
    return ", ".join(names) if names else "(no environment variable was named)"


def _configured(value: str) -> str | None:
    return None if not value.strip() else value
