"""Gemini's `generateContent` wire, as the engine's `google.GeminiClient` and `google.VertexClient` speak it.

Gemini (Developer API): `POST {base_url or https://generativelanguage.googleapis.com/v1beta}/models/
{model}:generateContent`, the key in `x-goog-api-key` (`api_key` or `GOOGLE_API_KEY`).

Vertex AI: `POST https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/
publishers/{google|anthropic}/models/{model}:generateContent` (or `{base_url}/{model}:...`), with a
Google Cloud access token (`authorization: Bearer ...`) from `credentials_json`, `credentials_file`,
`GOOGLE_APPLICATION_CREDENTIALS_CONTENT` or Application Default Credentials, read through google-auth;
or, with `api_key`, express mode (`?key=...`, no token). Claude models (`claude-*`) on Vertex take the
Anthropic Messages body at `:rawPredict`.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any

from ingot.llm import anthropic
from ingot.llm.clients import resolve_credential
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
from ingot.llm.typed import drop_nulls, retyped

SCOPE = "https://www.googleapis.com/auth/cloud-platform"
BLOCKED = frozenset({"SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY"})


# -- the body ----------------------------------------------------------------------------------------------
def gemini_body(o: dict[str, Any], conv: Conversation, tag: str) -> dict[str, Any]:
    system: list[dict[str, Any]] = []
    contents: list[dict[str, Any]] = []
    for m in conv.messages:
        parts = [{"text": m.text}] if m.text else []
        if m.role == "system":
            system += parts
        else:
            contents.append({"role": "model" if m.role == "assistant" else "user", "parts": parts})
    for role, text in conv.turns:
        if text.strip():
            contents.append({"role": "model" if role == "assistant" else "user", "parts": [{"text": text}]})
    instruction = None
    if system and (contents[0]["role"] if contents else "") != "user":
        contents.insert(0, {"role": "user", "parts": system})
    elif system:
        instruction = {"parts": system}
    if not contents:
        raise LlmFailure("InvalidRequest", provider="google", status_code=None, raw_body=None,
                         detail="the rendered prompt and journal produced no message content")
    config = {"temperature": o.get("temperature"), "maxOutputTokens": o.get("max_output_tokens"),
              "topP": o.get("top_p"), "topK": o.get("top_k"), "stopSequences": o.get("stop_sequences"),
              "responseModalities": o.get("response_modalities")}
    body = {"contents": contents, "systemInstruction": instruction,
            "generationConfig": config if any(v is not None for v in config.values()) else None,
            "safetySettings": o.get("safety_settings")}
    return merge_body(drop_nulls(body, verbatim=("args", "response", "parametersJsonSchema")),
                      o.get("request_body"))


def build(p: Any, o: dict[str, Any], conv: Conversation, preview: bool, stream: bool = False) -> HttpRequest:
    if p.api == "vertex":
        return _vertex_request(p, o, conv, preview, stream)
    model = o.get("model", p.default_model)
    body = gemini_body(o, conv, p.tag)
    base = resolve_credential(o.get("base_url")) or p.default_base_url
    url = with_query(f"{base}/models/{model}{method(stream)}", o.get("query_params"))
    headers = {"content-type": "application/json", **header_overrides(o)}
    if not preview:
        headers["x-goog-api-key"] = resolve_key(p, o)
    return HttpRequest("POST", url, headers, dumps(body))


def method(stream: bool) -> str:
    return ":streamGenerateContent?alt=sse" if stream else ":generateContent"


_QUERY_ESCAPES = [("%", "%25"), (" ", "%20"), ('"', "%22"), ("#", "%23"), ("&", "%26"), ("+", "%2B"), ("/", "%2F"),
                  ("<", "%3C"), ("=", "%3D"), (">", "%3E"), ("?", "%3F")]


def _escape(value: str) -> str:
    for raw, escaped in _QUERY_ESCAPES:
        value = value.replace(raw, escaped)
    return value


def with_query(url: str, params: dict[str, Any] | None) -> str:
    """`_gm_apply_query`: each parameter appended, escaped the engine's way."""
    for name, value in (params or {}).items():
        url += ("&" if "?" in url else "?") + f"{_escape(str(name))}={_escape(str(value))}"
    return url


# -- Vertex AI ------------------------------------------------------------------------------------------
def _vertex_request(p: Any, o: dict[str, Any], conv: Conversation, preview: bool,
                    stream: bool = False) -> HttpRequest:
    model = o.get("model", p.default_model)
    claude = is_claude(p, o)
    if claude:
        body: Any = anthropic.messages_body(o, conv, p.tag, model=model, max_tokens=o.get("max_output_tokens") or 8192,
                                            extra_thinking=False, stream=stream)
        vertex_fields = merge_body({"anthropic_version": anthropic.VERTEX_VERSION, "model": None},
                                   o.get("request_body"))
        body = merge_body(body, vertex_fields)
    else:
        body = gemini_body(o, conv, p.tag)
    key = None if preview else resolve_credential(o.get("api_key"))
    express = (o.get("api_key") is not None if preview else key is not None) or "key" in (o.get("query_params") or {})
    verb = (":streamRawPredict" if stream else ":rawPredict") if claude else method(stream)
    url = with_query(f"{_models_base(o, 'anthropic' if claude else 'google', express, preview)}/{model}{verb}",
                     o.get("query_params"))
    if preview and o.get("api_key") is not None:
        url = with_query(url, {"key": "<PREVIEW>"})
    elif key is not None:
        url = with_query(url, {"key": key})
    headers = {"content-type": "application/json", **header_overrides(o)}
    if not express and not preview:
        creds = vertex_credentials(o)
        headers["authorization"] = f"Bearer {access_token(creds)}"
        quota = getattr(creds, "quota_project_id", None)
        if quota and "x-goog-user-project" not in headers:
            headers["x-goog-user-project"] = quota
    return HttpRequest("POST", url, headers, dumps(body))


def _models_base(o: dict[str, Any], publisher: str, express: bool, preview: bool) -> str:
    explicit = resolve_credential(o.get("base_url"))
    if explicit is not None:
        return explicit
    location = o.get("location") or _env("GOOGLE_CLOUD_LOCATION") or _env("GOOGLE_CLOUD_REGION") or "global"
    if location == "global":
        host = "aiplatform.googleapis.com"
    elif location in ("us", "eu"):
        host = f"aiplatform.{location}.rep.googleapis.com"
    else:
        host = f"{location}-aiplatform.googleapis.com"
    project = resolve_credential(o.get("project_id"))
    if project is None and not express:
        project = _env("GOOGLE_CLOUD_PROJECT") or _env("GCLOUD_PROJECT")
        if project is None:
            project = "preview-project" if preview else _credentials_project(o)
    if project is not None:
        return f"https://{host}/v1/projects/{project}/locations/{location}/publishers/{publisher}/models"
    if express:
        return f"https://aiplatform.googleapis.com/v1/publishers/{publisher}/models"
    raise LlmFailure("InvalidRequest", provider="vertex", status_code=None, raw_body=None,
                     detail="Could not resolve project_id for Vertex AI. Set the client's project_id option, the "
                            "GOOGLE_CLOUD_PROJECT env var, or supply credentials that carry a project_id.")


def _env(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def _credentials_project(o: dict[str, Any]) -> str | None:
    creds = vertex_credentials(o)
    return getattr(creds, "project_id", None) or getattr(creds, "_ingot_project", None)


def _unwrap(document: str) -> str:
    """A credential document may itself be a JSON string (a document quoted once more)."""
    if document.strip().startswith('"'):
        try:
            inner = json.loads(document.strip())
            return inner if isinstance(inner, str) else document
        except ValueError:
            return document
    return document


# Credentials by where they came from: google-auth keeps each one's token until it expires.
_CREDENTIALS: dict[tuple[str, str], Any] = {}


def vertex_credentials(o: dict[str, Any]) -> Any:
    """Google Cloud credentials: `credentials_json`, `credentials_file`, `GOOGLE_APPLICATION_CREDENTIALS_CONTENT`,
    else Application Default Credentials (`GOOGLE_APPLICATION_CREDENTIALS`, gcloud's file, the metadata server)."""
    if o.get("credentials_json") is not None:
        source = ("json", _unwrap(str(o["credentials_json"])))
    elif o.get("credentials_file") is not None:
        path = str(o["credentials_file"])
        try:
            with open(path, encoding="utf-8") as f:
                source = ("json", _unwrap(f.read()))
        except OSError as e:
            raise LlmFailure("InvalidRequest", provider="vertex", status_code=None, raw_body=None,
                             detail=f"Vertex AI credentials file {path} could not be read: {e}") from None
    elif _env("GOOGLE_APPLICATION_CREDENTIALS_CONTENT"):
        source = ("json", _unwrap(os.environ["GOOGLE_APPLICATION_CREDENTIALS_CONTENT"]))
    elif _env("GOOGLE_APPLICATION_CREDENTIALS"):
        path = os.environ["GOOGLE_APPLICATION_CREDENTIALS"].strip()
        try:
            with open(path, encoding="utf-8") as f:
                source = ("json", f.read())
        except OSError:
            raise LlmFailure("InvalidRequest", provider="vertex", status_code=None, raw_body=None,
                             detail=f"Vertex AI authentication failed: GOOGLE_APPLICATION_CREDENTIALS points to "
                                    f"'{path}' but the file could not be read") from None
    else:
        source = ("adc", "")  # gcloud's application-default file, or the metadata server
    try:
        import google.auth  # noqa: F401
    except ImportError:
        raise LlmFailure("InvalidRequest", provider="vertex", status_code=None, raw_body=None,
                         detail="google.VertexClient reads Google Cloud credentials with google-auth: "
                                "pip install 'ingot[google]' (or pass api_key for express mode)") from None
    if source not in _CREDENTIALS:
        _CREDENTIALS[source] = _load(*source)
    return _CREDENTIALS[source]


def _load(kind: str, value: str) -> Any:
    import google.auth
    from google.auth.exceptions import GoogleAuthError

    try:
        if kind == "json":
            creds, project = _from_document(json.loads(value))
        else:
            creds, project = google.auth.default(scopes=[SCOPE])
    except (GoogleAuthError, ValueError) as e:
        raise LlmFailure("InvalidRequest", provider="vertex", status_code=None, raw_body=None,
                         detail=f"Vertex AI authentication failed: {e}") from None
    creds._ingot_project = project
    return creds


def _from_document(info: dict[str, Any]) -> tuple[Any, str | None]:
    """Credentials from a credential document of any of the kinds ADC files hold."""
    import google.auth
    from google.oauth2 import credentials as user_credentials
    from google.oauth2 import service_account

    kind = info.get("type")
    if kind == "service_account":
        # The assertion's audience is the key's own token_uri, as on the engine (google-auth would name
        # Google's endpoint whatever the key says).
        audience = {"aud": info["token_uri"]} if info.get("token_uri") else {}
        creds = service_account.Credentials.from_service_account_info(info, scopes=[SCOPE], additional_claims=audience)
        return creds, info.get("project_id")
    if kind == "authorized_user":
        return user_credentials.Credentials.from_authorized_user_info(info, scopes=[SCOPE]), info.get("quota_project_id")
    with warnings.catch_warnings():  # external and impersonated accounts: the generic loader knows them all
        warnings.simplefilter("ignore", DeprecationWarning)
        return google.auth.load_credentials_from_dict(info, scopes=[SCOPE])


def access_token(creds: Any) -> str:
    from google.auth.exceptions import GoogleAuthError

    if not creds.valid:
        try:
            creds.refresh(_AuthTransport())
        except GoogleAuthError as e:
            raise LlmFailure("InvalidRequest", provider="vertex", status_code=None, raw_body=None,
                             detail=f"Vertex AI authentication failed: {e}") from None
    return str(creds.token)


class _AuthResponse:
    def __init__(self, status: int, headers: dict[str, str], data: bytes) -> None:
        self.status = status
        self.headers = headers
        self.data = data


class _AuthTransport:
    """google-auth's `transport.Request` over httpx (token and metadata requests)."""

    def __call__(self, url: str, method: str = "GET", body: bytes | None = None,
                 headers: dict[str, str] | None = None, timeout: float | None = None, **_: Any) -> _AuthResponse:
        import httpx
        from google.auth.exceptions import TransportError

        try:
            resp = httpx.request(method, url, content=body, headers=headers, timeout=timeout or 30.0)
        except httpx.HTTPError as e:
            raise TransportError(str(e)) from None
        return _AuthResponse(resp.status_code, dict(resp.headers), resp.content)


# -- replies ----------------------------------------------------------------------------------------------
_RATING = {"category": None, "probability": None, "blocked": None}
RESPONSE = {
    "candidates": [{"content": {"role": None, "parts": [{
        "text": None, "thought": None, "thoughtSignature": None, "functionCall": {"name": None, "args": None},
        "inlineData": {"mimeType": None, "data": None}, "fileData": {"mimeType": None, "fileUri": None}}]},
        "finishReason": None, "finishMessage": None, "index": None, "safetyRatings": [_RATING]}],
    "usageMetadata": {"promptTokenCount": None, "candidatesTokenCount": None, "cachedContentTokenCount": None,
                      "thoughtsTokenCount": None, "toolUsePromptTokenCount": None, "totalTokenCount": None},
    "promptFeedback": {"blockReason": None, "blockReasonMessage": None, "safetyRatings": [_RATING]},
    "modelVersion": None, "responseId": None, "error": {"code": None, "message": None, "status": None},
}


def is_claude(p: Any, o: dict[str, Any]) -> bool:
    """Vertex serves Claude models through Anthropic's wire format."""
    return p.api == "vertex" and str(o.get("model", p.default_model)).startswith("claude")


def parse(tag: str, status: int, text: str, claude: bool = False) -> Turn:
    if claude:
        return anthropic.parse(tag, status, text)
    data = anthropic.decode(tag, status, text)
    raw = json.dumps(retyped(data, RESPONSE), ensure_ascii=False, separators=(",", ":"))
    error = data.get("error")
    if isinstance(error, dict):
        code = error.get("code")
        raise LlmFailure("ProviderError", provider=tag, message=error.get("message") or "the Google request failed",
                         error_type=error.get("status"), error_code=None if code is None else str(code),
                         raw_body=raw, status_code=None)
    candidates = data.get("candidates") or []
    cand = candidates[0] if candidates and isinstance(candidates[0], dict) else {}
    finish = cand.get("finishReason") or ""
    texts: list[str] = []
    called = produced = False
    for part in (cand.get("content") or {}).get("parts") or []:
        if not isinstance(part, dict):
            continue
        if part.get("functionCall") is not None:
            called = produced = True
        elif part.get("inlineData") is not None:
            produced = True
        elif isinstance(part.get("text"), str):
            produced = True
            if not part.get("thought"):
                texts.append(part["text"])
    blocked = (data.get("promptFeedback") or {}).get("blockReason") is not None
    if not produced and not finish and not blocked:
        raise LlmFailure("InvalidResponse", provider=tag, message="the response contained no model turn",
                         raw_body=raw, status_code=None)
    if called:
        stop = "ToolUse"
    elif finish == "MAX_TOKENS":
        stop = "MaxTokens"
    elif blocked or finish in BLOCKED:
        stop = "Refused"
    else:
        stop = "Complete"
    return Turn(texts[-1] if texts else None, stop, tag)
