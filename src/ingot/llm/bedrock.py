"""The Bedrock Converse API as the engine's `aws.BedrockClient` speaks it.

`POST {endpoint_url or https://bedrock-runtime.{region}.amazonaws.com}/model/{model id}/converse`,
signed with AWS SigV4 (service `bedrock`) by botocore, with credentials from the client
(`access_key_id`, `secret_access_key`, `session_token`) or botocore's chain (environment,
`profile`/shared files, container, instance metadata). The region is the client's `region`,
else `AWS_REGION`, `AWS_DEFAULT_REGION` or the profile's.
"""

from __future__ import annotations

import datetime
import json
import os
from typing import Any

from ingot.llm.anthropic import decode
from ingot.llm.clients import resolve_credential
from ingot.llm.errors import LlmFailure
from ingot.llm.request import Conversation, HttpRequest, Turn, dumps, header_overrides, merge_body
from ingot.llm.typed import drop_nulls, retyped

TAG = "aws-bedrock"


def _reject(detail: str) -> LlmFailure:
    return LlmFailure("InvalidRequest", provider=TAG, status_code=None, detail=detail, raw_body=None)


# -- the body ----------------------------------------------------------------------------------------------
def converse_body(o: dict[str, Any], conv: Conversation) -> dict[str, Any]:
    system: list[dict[str, Any]] = []
    messages: list[dict[str, Any]] = []
    for m in conv.messages:
        if m.role == "system":
            if m.text.strip():
                system.append({"text": m.text})
        elif m.text.strip():
            messages.append({"role": "assistant" if m.role == "assistant" else "user", "content": [{"text": m.text}]})
    if o.get("cache_system_prompt") and system:
        system.append({"cachePoint": {"type": "default"}})
    for role, text in conv.turns:
        if text.strip():
            messages.append({"role": role, "content": [{"text": text}]})
    leading = messages[0]["role"] if messages else ""
    folded = leading != "user" and bool(system)
    if folded:
        messages.insert(0, {"role": "user", "content": [dict(block) for block in system]})
    elif messages and leading != "user":
        messages.insert(0, {"role": "user", "content": [{"text": "(continue)"}]})
    merged: list[dict[str, Any]] = []
    for message in messages:
        if merged and merged[-1]["role"] == message["role"]:
            merged[-1]["content"] += message["content"]
        else:
            merged.append({"role": message["role"], "content": list(message["content"])})
    if not merged:
        raise _reject("the rendered prompt and journal produced no message content")
    body = {"messages": merged, "system": None if folded or not system else system,
            "inferenceConfig": _inference_config(o),
            "additionalModelRequestFields": o.get("additional_model_request_fields")}
    body = drop_nulls(body, verbatim=("additionalModelRequestFields", "json", "input", "cachePoint"))
    return merge_body(body, o.get("request_body"))


def _inference_config(o: dict[str, Any]) -> dict[str, Any] | None:
    limit = o.get("max_tokens")
    if limit is not None and not 0 <= limit <= 2147483647:
        raise _reject(f"max_tokens value {limit} is out of the supported range (0..=2147483647)")
    stops = o.get("stop_sequences") or None
    if limit is None and o.get("temperature") is None and o.get("top_p") is None and stops is None:
        return None
    return {"maxTokens": limit, "temperature": o.get("temperature"), "topP": o.get("top_p"), "stopSequences": stops}


_UNRESERVED = frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-._~")


def encode_label(value: str) -> str:
    """`encode_path_label`: every byte but the unreserved ones percent-encoded."""
    return "".join(chr(b) if b in _UNRESERVED else f"%{b:02X}" for b in value.encode("utf-8"))


def build(p: Any, o: dict[str, Any], conv: Conversation, preview: bool, stream: bool = False) -> HttpRequest:
    body = converse_body(o, conv)
    path = f"/model/{encode_label(str(o['model']))}/{'converse-stream' if stream else 'converse'}"
    endpoint = resolve_credential(o.get("endpoint_url"))
    if endpoint is not None:
        url = endpoint.removesuffix("/") + path
    elif o.get("region") is not None:
        url = f"https://bedrock-runtime.{o['region']}.amazonaws.com{path}"
    elif preview:
        url = f"https://bedrock-runtime.preview-region.amazonaws.com{path}"
    else:
        region = resolve_region(o)
        if region is None:
            raise _reject("no AWS region: set the client's `region` option, AWS_REGION, AWS_DEFAULT_REGION, or a "
                          "`region` key on the active profile (or set `endpoint_url` to bypass region resolution)")
        url = f"https://bedrock-runtime.{region}.amazonaws.com{path}"
    params = o.get("query_params") or {}
    if params:
        url += "?" + "&".join(f"{encode_label(str(k))}={encode_label(str(v))}" for k, v in params.items())
    accept = "application/vnd.amazon.eventstream" if stream else "application/json"
    headers = {"content-type": "application/json", "accept": accept, **header_overrides(o)}
    request = HttpRequest("POST", url, headers, dumps(body))
    return request if preview else sign(o, request)


# -- credentials and signing -------------------------------------------------------------------------------
def _botocore() -> None:
    try:
        import botocore  # noqa: F401
    except ImportError:
        raise _reject("aws.BedrockClient signs requests with botocore: pip install 'ingot[aws]'") from None


def _session(o: dict[str, Any]) -> Any:
    _botocore()
    import botocore.session

    return botocore.session.Session(profile=o.get("profile"))


def resolve_region(o: dict[str, Any]) -> str | None:
    if o.get("region"):
        return str(o["region"])
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        if os.environ.get(name, "").strip():
            return os.environ[name].strip()
    try:
        region = _session(o).get_config_variable("region")
    except Exception as e:  # botocore raises its own hierarchy for a broken profile
        raise _reject(f"AWS region resolution failed: {e}") from None
    return str(region) if region else None


def credentials(o: dict[str, Any]) -> Any:
    _botocore()
    from botocore.credentials import Credentials

    if o.get("access_key_id") is not None and o.get("secret_access_key") is not None:
        return Credentials(str(o["access_key_id"]), str(o["secret_access_key"]), o.get("session_token"))
    try:
        found = _session(o).get_credentials()
    except Exception as e:
        raise _reject(f'AWS SigV4 signing failed: AccessError {{ message: "AWS credentials: {e}" }}') from None
    if found is None:
        raise _reject('AWS SigV4 signing failed: AccessError { message: "AWS credentials: no AWS credentials found: '
                      'tried: environment, profile, container, imds" }')
    return found.get_frozen_credentials()


def now() -> datetime.datetime:
    """The signing time (tests pin it to replay a recorded signature)."""
    return datetime.datetime.now(datetime.UTC)


def sign(o: dict[str, Any], request: HttpRequest) -> HttpRequest:
    """The request with SigV4 headers (`x-amz-date`, `x-amz-security-token`, `authorization`)."""
    from botocore.auth import SIGV4_TIMESTAMP, SigV4Auth
    from botocore.awsrequest import AWSRequest

    creds = credentials(o)  # the engine looks for credentials before the signing region
    region = resolve_region(o)
    if region is None:
        raise _reject("AWS SigV4 signing failed: no AWS region")
    signer = SigV4Auth(creds, "bedrock", region)
    aws = AWSRequest(method=request.method, url=request.url, data=request.body.encode("utf-8"),
                     headers=dict(request.headers))
    # SigV4Auth.add_auth, with the signing time taken from `now()` rather than botocore's clock.
    aws.context["timestamp"] = now().strftime(SIGV4_TIMESTAMP)
    signer._modify_request_before_signing(aws)
    string_to_sign = signer.string_to_sign(aws, signer.canonical_request(aws))
    signer._inject_signature_to_request(aws, signer.signature(string_to_sign, aws))
    headers = dict(request.headers)
    for name, value in aws.headers.items():
        headers[name.lower()] = value
    return HttpRequest(request.method, request.url, headers, request.body)


# -- replies ----------------------------------------------------------------------------------------------
RESPONSE = {
    "output": {"message": {"role": None, "content": [{
        "text": None, "toolUse": {"toolUseId": None, "name": None, "input": None},
        "reasoningContent": {"reasoningText": {"text": None, "signature": None}, "redactedContent": None}}]}},
    "stopReason": None,
    "usage": {"inputTokens": None, "outputTokens": None, "totalTokens": None, "cacheReadInputTokens": None,
              "cacheWriteInputTokens": None},
    "metrics": {"latencyMs": None},
    "additionalModelResponseFields": None,
}
STOP = {"tool_use": "ToolUse", "max_tokens": "MaxTokens", "model_context_window_exceeded": "MaxTokens",
        "content_filtered": "Refused", "guardrail_intervened": "Refused"}
MALFORMED = ("malformed_model_output", "malformed_tool_use")


def parse(tag: str, status: int, text: str) -> Turn:
    data = decode(tag, status, text)
    raw = json.dumps(retyped(data, RESPONSE), ensure_ascii=False, separators=(",", ":"))
    reason = data.get("stopReason")
    if reason in MALFORMED:
        raise LlmFailure("ProviderError", provider=tag, message=f"the model could not produce a valid turn: {reason}",
                         error_type=reason, error_code=None, raw_body=raw, status_code=None)
    message = (data.get("output") or {}).get("message")
    if not isinstance(message, dict):
        raise LlmFailure("InvalidResponse", provider=tag, message="the Converse response is missing output.message",
                         raw_body=raw, status_code=None)
    texts = [b["text"] for b in message.get("content") or [] if isinstance(b, dict) and isinstance(b.get("text"), str)]
    called = any(isinstance(b, dict) and b.get("text") is None and b.get("toolUse") for b in message.get("content") or [])
    stop = "Complete" if reason is None else STOP.get(reason, "Complete")
    return Turn(texts[-1] if texts else None, "ToolUse" if called and stop == "Complete" else stop, tag)


def decode_stream_event(tag: str, name: str, data: str) -> tuple[str | None, bool]:
    """One ConverseStream message: (reply text or None, whether the turn is done)."""
    if name.startswith("exception:"):
        kind = name[len("exception:"):]
        try:
            body = json.loads(data)
        except ValueError as e:
            raise LlmFailure("InvalidResponse", provider=tag, message=str(e), raw_body=data, status_code=None) from None
        message = body.get("message") if isinstance(body, dict) and isinstance(body.get("message"), str) else kind
        raise LlmFailure("ProviderError", provider=tag, message=message, error_type=kind, error_code=None,
                         raw_body=data, status_code=None)
    if name.startswith("error:"):
        raise LlmFailure("ProviderError", provider=tag, message=data, error_type=name, error_code=name[6:],
                         raw_body=data, status_code=None)
    if name not in ("contentBlockDelta", "messageStop", "metadata"):
        return None, False
    event = decode(tag, 200, data)
    if name == "contentBlockDelta":
        text = (event.get("delta") or {}).get("text")
        return (text if isinstance(text, str) else None), False
    if name == "messageStop":
        if event.get("stopReason") in MALFORMED:
            raise LlmFailure("ProviderError", provider=tag, raw_body=data, status_code=None, error_code=None,
                             message=f"the model could not produce a valid turn: {event['stopReason']}",
                             error_type=event["stopReason"])
        return None, False
    return None, True  # metadata closes the turn
