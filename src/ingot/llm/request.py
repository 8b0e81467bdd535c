"""The HTTP requests the engine sends, and what its replies mean.

`build_request` lowers a rendered prompt (plus the repair turns of the
conversation so far) into the exact request the engine sends for a provider:
URL with query parameters, headers, and a compact JSON body with the
engine's key order, unset options left out and `request_body` deep-merged
last (a `null` there deletes a key). `parse_response` reads a reply into a
`Turn` (the final text and why the model stopped) or raises the engine's
`ai.errors.*` failure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from ingot.llm import destinations
from ingot.llm.clients import Provider, credential_sources, resolve_credential
from ingot.llm.errors import LlmFailure
from ingot.llm.prompt import Message, prompt_messages

REPAIR_PROMPT = "The reply did not match the required schema. Answer again with only the corrected value."


@dataclass(frozen=True, slots=True)
class HttpRequest:
    method: str
    url: str
    headers: dict[str, str]
    body: str

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True, slots=True)
class Turn:
    """One model reply: its final text block (if any) and why it stopped."""

    text: str | None
    stop: str = "Complete"  # Complete | MaxTokens | Refused | ToolUse
    provider: str = "unknown"


@dataclass(slots=True)
class Conversation:
    """The prompt and the repair turns that follow it (assistant reply, user correction)."""

    prompt: str
    turns: list[tuple[str, str]] = field(default_factory=list)

    @property
    def messages(self) -> list[Message]:
        """The prompt's chat messages (split at its `role(...)` markers)."""
        return prompt_messages(self.prompt)


def build_request(provider: Provider, options: dict[str, Any], conv: Conversation,
                  preview: bool = False, stream: bool = False) -> HttpRequest:
    """The request `provider` sends; `preview` leaves the credential out (nothing is sent); `stream`
    asks for server-sent events. A request whose credential would go to a host nobody allowed
    is refused here, before anything is sent (`ingot.llm.destinations`)."""
    req = _build(provider, options, conv, preview, stream)
    if not preview:
        try:
            destinations.check(provider.constructor, options, req.url, req.headers)
        except destinations.Refused as e:
            raise LlmFailure("InvalidRequest", provider=provider.tag, status_code=None, detail=str(e),
                             raw_body=None) from None
    return req


def _build(provider: Provider, options: dict[str, Any], conv: Conversation, preview: bool,
           stream: bool) -> HttpRequest:
    if provider.api == "anthropic":
        from ingot.llm import anthropic

        return anthropic.build(provider, options, conv, preview, stream)
    if provider.api in ("gemini", "vertex"):
        from ingot.llm import google

        return google.build(provider, options, conv, preview, stream)
    if provider.api == "bedrock":
        from ingot.llm import bedrock

        return bedrock.build(provider, options, conv, preview, stream)
    if provider.api == "responses":
        return _responses_request(provider, options, conv, preview, stream)
    return _chat_request(provider, options, conv, preview, stream)


# -- Chat Completions -----------------------------------------------------------------------------
def _chat_request(p: Provider, o: dict[str, Any], conv: Conversation, preview: bool,
                  stream: bool = False) -> HttpRequest:
    base = _base_url(p, o)
    model = o.get("model", p.default_model)
    messages = _chat_prompt(conv.messages, p.collapse_text)
    for role, text in conv.turns:
        if role == "assistant" and not text.strip():
            continue  # the engine drops empty assistant turns
        messages.append({"role": role, "content": text})
    body: dict[str, Any] = {"model": model, "messages": messages}
    overrides = o.get("request_body")
    max_tokens = o.get("max_tokens")
    max_completion = o.get("max_completion_tokens")
    if max_tokens is None and max_completion is None and p.default_max_tokens is not None and not (
            isinstance(overrides, dict) and ({"max_tokens", "max_completion_tokens"} & set(overrides))):
        max_tokens = p.default_max_tokens
    for key, value in (("temperature", o.get("temperature")), ("max_tokens", max_tokens),
                       ("max_completion_tokens", max_completion), ("top_p", o.get("top_p")),
                       ("stop", o.get("stop")), ("seed", o.get("seed"))):
        if value is not None:
            body[key] = value
    if stream:
        body["stream"] = True
        if p.constructor == "openai.ChatClient":  # only first-party OpenAI takes stream_options
            body["stream_options"] = {"include_usage": True}
    body = _merge(body, overrides) if overrides is not None else body
    query: dict[str, str] = {}
    if p.constructor == "openai.AzureClient" and o.get("api_version", "2024-10-21") is not None:
        query["api-version"] = o.get("api_version", "2024-10-21")
    query.update({str(k): str(v) for k, v in (o.get("query_params") or {}).items()})
    url = base + "/chat/completions" + _query(query)
    return HttpRequest("POST", url, _headers(p, o, preview), _dumps(body))


def _chat_prompt(prompt: list[Message], collapse: bool) -> list[dict[str, Any]]:
    """`chat_lower_prompt`: `tool` becomes `user`, adjacent messages of one role merge."""
    merged: list[tuple[str, list[str]]] = []
    for m in prompt:
        role = "user" if m.role == "tool" else m.role
        texts = [m.text] if m.text else []
        if merged and merged[-1][0] == role:
            merged[-1][1].extend(texts)
        else:
            merged.append((role, texts))
    out: list[dict[str, Any]] = []
    for role, texts in merged:
        content: Any = "".join(texts) if collapse else [{"type": "text", "text": t} for t in texts]
        out.append({"role": role, "content": content})
    return out


def _base_url(p: Provider, o: dict[str, Any]) -> str:
    explicit = resolve_credential(o.get("base_url"))
    if p.constructor == "openai.AzureClient":
        return _azure_base(o, explicit)
    if explicit is not None:
        return explicit
    if p.default_base_url is None:
        raise LlmFailure("InvalidRequest", provider=p.tag, status_code=None, raw_body=None,
                         detail="openai.GenericClient requires base_url (a literal or env.NAME naming a set "
                                "variable): the endpoint of the OpenAI-compatible server, e.g. "
                                '"http://localhost:8000/v1". Checked: '
                                + credential_sources(o.get("base_url"), None))
    return p.default_base_url


def _azure_base(o: dict[str, Any], explicit: str | None) -> str:
    def reject(detail: str) -> LlmFailure:
        return LlmFailure("InvalidRequest", provider="azure", status_code=None, detail=detail, raw_body=None)

    resource, deployment = o.get("resource_name"), o.get("deployment_id")
    if explicit is not None:
        if resource is not None or deployment is not None:
            raise reject("openai.AzureClient takes base_url OR resource_name/deployment_id, not both")
        return explicit
    if deployment is None:
        raise reject("openai.AzureClient needs a deployment: set deployment_id to the deployment's name, or "
                     "base_url to its full URL")
    if resource is not None:
        return f"https://{resource}.openai.azure.com/openai/deployments/{deployment}"
    endpoint = resolve_credential(None, "AZURE_OPENAI_ENDPOINT")
    if endpoint is not None:
        return f"{endpoint.removesuffix('/')}/openai/deployments/{deployment}"
    raise reject("openai.AzureClient needs the resource for deployment_id: set resource_name, or the "
                 "AZURE_OPENAI_ENDPOINT environment variable, or base_url instead of deployment_id")


def header_overrides(o: dict[str, Any]) -> dict[str, str]:
    """The client's `headers` option, names lowercased."""
    return {str(name).lower(): str(value) for name, value in (o.get("headers") or {}).items()}


def resolve_key(p: Provider, o: dict[str, Any]) -> str:
    """The API key (`api_key`, else the provider's variable), or the engine's InvalidRequest."""
    key = resolve_credential(o.get("api_key"), p.key_env)
    if key is None:
        if p.api == "chat":
            detail = f"{p.tag} needs an API key: pass api_key, or set {p.key_env}"
        else:
            detail = (f"{p.tag} needs an API key: pass api_key (a literal or env.NAME), or set one of the variables "
                      "it consulted \u2014 " + credential_sources(o.get("api_key"), p.key_env))
        raise LlmFailure("InvalidRequest", provider=p.tag, status_code=None, detail=detail, raw_body=None)
    return key


def _headers(p: Provider, o: dict[str, Any], preview: bool) -> dict[str, str]:
    headers = {"content-type": "application/json", **header_overrides(o)}
    if preview:
        return headers
    key = resolve_key(p, o) if p.key_required else resolve_credential(o.get("api_key"), p.key_env)
    if key is not None:
        if p.auth_header == "api-key":
            headers["api-key"] = key
        else:
            headers["authorization"] = f"Bearer {key}"
    return headers


# -- Responses API ------------------------------------------------------------------------------------
def _responses_request(p: Provider, o: dict[str, Any], conv: Conversation, preview: bool,
                       stream: bool = False) -> HttpRequest:
    items: list[dict[str, Any]] = []
    for m in conv.messages:
        kind = "output_text" if m.role == "assistant" else "input_text"
        items.append({"role": "user" if m.role in ("", "tool") else m.role,
                      "content": [{"type": kind, "text": m.text}] if m.text else []})
    for role, text in conv.turns:
        if role == "assistant":
            if text.strip():
                items.append({"role": "assistant", "content": [{"type": "output_text", "text": text}]})
        else:
            items.append({"role": "user", "content": [{"type": "input_text", "text": text}]})
    body: dict[str, Any] = {"model": o.get("model", p.default_model), "input": items,
                            "store": bool(o.get("store", False))}
    for key in ("temperature", "top_p", "max_output_tokens"):
        if o.get(key) is not None:
            body[key] = o[key]
    if o.get("reasoning_effort") is not None or o.get("reasoning_summary") is not None:
        body["reasoning"] = {k: v for k, v in (("effort", o.get("reasoning_effort")),
                                                ("summary", o.get("reasoning_summary"))) if v is not None}
    if o.get("verbosity") is not None:
        body["text"] = {"verbosity": o["verbosity"]}
    if o.get("parallel_tool_calls") is not None:
        body["parallel_tool_calls"] = o["parallel_tool_calls"]
    if stream:
        body["stream"] = True
    if o.get("request_body") is not None:
        body = _merge(body, o["request_body"])
    headers = _headers(p, o, preview)
    base = (resolve_credential(o.get("base_url")) or p.default_base_url or "").removesuffix("/")
    query = {str(k): str(v) for k, v in (o.get("query_params") or {}).items()}
    return HttpRequest("POST", base + "/responses" + _query(query), headers, _dumps(body))


# -- replies -----------------------------------------------------------------------------------------
def parse_response(provider: Provider, status: int, text: str, options: dict[str, Any] | None = None) -> Turn:
    """A 2xx reply as a `Turn`; raises `LlmFailure` for an envelope the engine rejects."""
    if provider.api == "anthropic":
        from ingot.llm import anthropic

        return anthropic.parse(provider.tag, status, text)
    if provider.api in ("gemini", "vertex"):
        from ingot.llm import google

        return google.parse(provider.tag, status, text, google.is_claude(provider, options or {}))
    if provider.api == "bedrock":
        from ingot.llm import bedrock

        return bedrock.parse(provider.tag, status, text)
    try:
        data = json.loads(text)
    except ValueError as e:
        raise LlmFailure("InvalidResponse", provider=provider.tag, message=f"ParseError {{ message: {e} }}",
                         raw_body=text, status_code=status) from None
    if provider.api == "responses":
        return _responses_turn(provider.tag, data)
    return _chat_turn(provider.tag, data, text)


def _chat_turn(tag: str, data: Any, raw: str) -> Turn:
    if not isinstance(data, dict):
        raise LlmFailure("InvalidResponse", provider=tag, message="expected a JSON object", raw_body=raw,
                         status_code=200)
    error = data.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        raise LlmFailure("ProviderError", provider=tag, message=error.get("message") or
                         "the provider reported a failure", error_type=error.get("type"),
                         error_code=None if code is None else str(code), raw_body=raw, status_code=None)
    choices = data.get("choices") or []
    message = choices[0].get("message") if choices and isinstance(choices[0], dict) else None
    if not isinstance(message, dict):
        raise LlmFailure("InvalidResponse", provider=tag, message="the chat response is missing a choice or its "
                         "message", raw_body=raw, status_code=None)
    texts: list[str] = []
    content = message.get("content")
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        texts += [p["text"] for p in content if isinstance(p, dict) and p.get("type") != "image_url"
                  and isinstance(p.get("text"), str)]
    refusal = message.get("refusal")
    if isinstance(refusal, str):
        texts.append(refusal)
    if message.get("tool_calls"):
        stop = "ToolUse"
    elif refusal is not None:
        stop = "Refused"
    else:
        stop = {"tool_calls": "ToolUse", "function_call": "ToolUse", "length": "MaxTokens",
                "max_tokens": "MaxTokens", "content_filter": "Refused"}.get(choices[0].get("finish_reason") or "",
                                                                            "Complete")
    return Turn(texts[-1] if texts else None, stop, tag)


def _responses_turn(tag: str, data: Any) -> Turn:
    if not isinstance(data, dict):
        raise LlmFailure("InvalidResponse", provider=tag, message="expected a JSON object", raw_body=None,
                         status_code=200)
    error = data.get("error")
    if data.get("status") == "failed" or isinstance(error, dict):
        err = error if isinstance(error, dict) else {"code": None,
                                                      "message": f"the response ended with status {data.get('status')}"}
        raise LlmFailure("ProviderError", provider=tag, message=err.get("message") or
                         "the OpenAI Responses request failed", error_type=err.get("type"),
                         error_code=err.get("code"), raw_body=_dumps(err), status_code=None)
    texts: list[str] = []
    refused = called = False
    for item in data.get("output") or []:
        if not isinstance(item, dict):
            continue
        if item.get("type") == "function_call":
            called = True
        elif item.get("type") == "message":
            for part in item.get("content") or []:
                if part.get("type") == "output_text":
                    texts.append(part.get("text") or "")
                elif part.get("type") == "refusal":
                    refused = True
                    texts.append(part.get("refusal") or "")
    if called:
        stop = "ToolUse"
    elif refused:
        stop = "Refused"
    elif data.get("status") == "incomplete":
        reason = (data.get("incomplete_details") or {}).get("reason")
        stop = "Refused" if reason == "content_filter" else "MaxTokens"
    else:
        stop = "Complete"
    return Turn(texts[-1] if texts else None, stop, tag)


def classify_http(tag: str, status: int, body: str, headers: dict[str, str]) -> LlmFailure:
    """A non-2xx reply as the engine classifies it (`ai.errors.classify_http`)."""
    if status == 429:
        return LlmFailure("RateLimited", provider=tag, retry_after_ms=retry_after_ms(headers), status_code=status,
                          raw_body=body)
    if status == 408 or status >= 500:
        return LlmFailure("NetworkFailure", provider=tag, detail=f"http {status}", status_code=status,
                          raw_body=body)
    return LlmFailure("InvalidRequest", provider=tag, status_code=status, detail=f"http {status}", raw_body=body)


def retry_after_ms(headers: dict[str, str]) -> int | None:
    lower = {k.lower(): v for k, v in headers.items()}
    for name, scale in (("retry-after-ms", 1), ("retry-after", 1000)):
        raw = lower.get(name, "").strip()
        if raw.isdigit():
            return int(raw) * scale
    return None


# -- helpers --------------------------------------------------------------------------------------------
def merge_body(body: dict[str, Any], overrides: Any) -> Any:
    """`ai.wire.merge_request_body`: the client's `request_body` deep-merged over `body`."""
    return body if overrides is None else _merge(body, overrides)


def dumps(value: Any) -> str:
    """Compact JSON, as the engine writes bodies."""
    return _dumps(value)


def _merge(base: Any, patch: Any) -> Any:
    """The engine's deep merge: objects merge key by key, `null` deletes, anything else replaces."""
    if not isinstance(patch, dict):
        return patch
    out = dict(base) if isinstance(base, dict) else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = _merge(out.get(key), value)
    return out


def _query(params: dict[str, str]) -> str:
    if not params:
        return ""
    return "?" + "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in params.items())


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
