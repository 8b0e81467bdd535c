"""Anthropic's Messages API as the engine's `anthropic.Client` speaks it.

`POST {base_url or https://api.anthropic.com}/v1/messages` with
`anthropic-version: 2023-06-01`, the caller's headers, then `x-api-key`. The
prompt's `system` messages go to the top-level `system` blocks; the other
roles become alternating user/assistant messages (adjacent ones of one role
merge). A prompt with only system content is sent as the user message, and a
conversation that opens with the assistant gets a `(continue)` user turn
first, as on the engine. The same body (without `model`, with
`anthropic_version`) is what Vertex AI's `rawPredict` takes for Claude.
"""

from __future__ import annotations

import json
from typing import Any

from ingot.llm.errors import LlmFailure
from ingot.llm.request import (
    Conversation,
    HttpRequest,
    Turn,
    dumps,
    header_overrides,
    merge_body,
    resolve_key,
)
from ingot.llm.typed import drop_nulls

VERSION = "2023-06-01"
VERTEX_VERSION = "vertex-2023-10-16"


def messages_body(o: dict[str, Any], conv: Conversation, tag: str, *, model: str, max_tokens: int,
                  extra_thinking: bool = True, stream: bool = False) -> dict[str, Any]:
    """The Messages request body (before `request_body` is merged)."""
    system: list[dict[str, Any]] = []
    lowered: list[tuple[str, list[dict[str, Any]]]] = []
    for m in conv.messages:
        if m.role == "system":
            system += _blocks(m.text)
        else:
            blocks = _blocks(m.text)
            if blocks:  # an empty message would be `content: []`, a 400
                lowered.append(("assistant" if m.role == "assistant" else "user", blocks))
    for role, text in conv.turns:
        if text.strip():
            lowered.append((role, _blocks(text)))
    first = lowered[0][0] if lowered else ""
    promote = first != "user" and bool(system)
    if promote:
        lowered.insert(0, ("user", system))
    elif lowered and first != "user":
        lowered.insert(0, ("user", [{"type": "text", "text": "(continue)"}]))
    messages: list[dict[str, Any]] = []
    for role, blocks in lowered:
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"] += blocks
        else:
            messages.append({"role": role, "content": list(blocks)})
    if not messages:
        raise LlmFailure("InvalidRequest", provider=tag, status_code=None, raw_body=None,
                         detail="the rendered prompt and journal produced no message content")
    body = {"model": model, "max_tokens": max_tokens, "system": None if promote or not system else system,
            "messages": messages, "temperature": o.get("temperature"), "top_p": o.get("top_p"),
            "top_k": o.get("top_k"), "stop_sequences": o.get("stop_sequences"),
            "thinking": o.get("thinking") if extra_thinking else None, "stream": True if stream else None}
    return drop_nulls(body, verbatim=("input", "input_schema", "cache_control"))


def _blocks(text: str) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text}] if text.strip() else []


def build(p: Any, o: dict[str, Any], conv: Conversation, preview: bool, stream: bool = False) -> HttpRequest:
    model = o.get("model", p.default_model)
    body = messages_body(o, conv, p.tag, model=model, max_tokens=o.get("max_tokens", p.default_max_tokens),
                         stream=stream)
    body = merge_body(body, o.get("request_body"))
    headers = {"anthropic-version": VERSION, "content-type": "application/json", **header_overrides(o)}
    if not preview:
        headers["x-api-key"] = resolve_key(p, o)
    base = resolve_base(o) or p.default_base_url
    params = o.get("query_params") or {}
    query = "?" + "&".join(f"{k}={v}" for k, v in params.items()) if params else ""
    return HttpRequest("POST", f"{base}/v1/messages{query}", headers, dumps(body))


def resolve_base(o: dict[str, Any]) -> str | None:
    from ingot.llm.clients import resolve_credential

    return resolve_credential(o.get("base_url"))


# -- replies ----------------------------------------------------------------------------------------------
STOP = {"end_turn": "Complete", "stop_sequence": "Complete", "tool_use": "ToolUse", "refusal": "Refused"}


def parse(tag: str, status: int, text: str) -> Turn:
    data = decode(tag, status, text)
    content = data.get("content")
    if not isinstance(content, list):
        raise LlmFailure("InvalidResponse", provider=tag, raw_body=text, status_code=status,
                         message='DecodeError { message: "missing required field `content`", path: "" }')
    texts: list[str] = []
    called = False
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            texts.append(block.get("text") or "")
        elif isinstance(block, dict) and block.get("type") == "tool_use":
            called = True
    reason = data.get("stop_reason")
    stop = "Complete" if reason is None else STOP.get(reason, "MaxTokens")
    return Turn(texts[-1] if texts else None, "ToolUse" if called and stop == "Complete" else stop, tag)


def decode(tag: str, status: int, text: str) -> dict[str, Any]:
    """The reply as a JSON object, or the engine's InvalidResponse."""
    try:
        data = json.loads(text)
    except ValueError as e:
        raise LlmFailure("InvalidResponse", provider=tag, message=f"ParseError {{ message: {e} }}",
                         raw_body=text, status_code=status) from None
    if not isinstance(data, dict):
        raise LlmFailure("InvalidResponse", provider=tag, message="DecodeError { expected an object }",
                         raw_body=text, status_code=status)
    return data
