"""Where a credential may be sent, and keeping credentials out of error text.

A program chooses its client's `base_url`, and a client's `api_key` may name any
environment variable (`env.ANY_VAR`) or fall back to the provider's own
(`OPENAI_API_KEY`). Without a rule, a program could ship the user's key to a host
of its choosing. The rule, applied to every request that carries a credential
(an `authorization`, `api-key`, `x-api-key` or `x-goog-api-key` header, an AWS
signature, or a `key=` query parameter), whatever the credential's origin:

- the provider's documented host (`api.openai.com` for `openai.ChatClient`,
  `*.openai.azure.com` for Azure, ...: `DOCUMENTED_HOSTS`), or
- a destination the user chose: a `base_url`/`endpoint_url` read from an
  environment variable (the user set it), a URL the user allowed with
  `--allow-llm-url URL`, `INGOT_ALLOW_LLM_URLS` (comma-separated) or
  `ingot.llm.allow_url(URL)`, or
- this machine (`localhost`, `127.0.0.0/8`, `::1`): a local server is the
  user's, and local OpenAI-compatible servers are the common case.

Anything else is refused before a byte is sent, with an `ai.errors.InvalidRequest`
that says how to allow it. Requests without a credential go anywhere.

Every credential that was resolved for a request is remembered (in this process
only) and replaced by `[redacted]` in the text of every model failure: provider
error bodies often echo the key they rejected.
"""

from __future__ import annotations

import ipaddress
import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from ingot.view import EnvRef

ALLOW_ENV = "INGOT_ALLOW_LLM_URLS"

# Hosts each provider documents for its API; `*.` matches any subdomain.
DOCUMENTED_HOSTS: dict[str, tuple[str, ...]] = {
    "openai.ChatClient": ("api.openai.com",),
    "openai.ResponsesClient": ("api.openai.com",),
    "openai.OpenRouterClient": ("openrouter.ai",),
    "openai.AzureClient": ("*.openai.azure.com", "*.cognitiveservices.azure.com", "*.services.ai.azure.com"),
    "openai.OllamaClient": (),  # a local server: loopback only, unless allowed
    "openai.GenericClient": (),
    "anthropic.Client": ("api.anthropic.com",),
    "google.GeminiClient": ("generativelanguage.googleapis.com",),
    "google.VertexClient": ("aiplatform.googleapis.com", "*-aiplatform.googleapis.com"),
    "aws.BedrockClient": ("bedrock-runtime.*.amazonaws.com", "bedrock-runtime-fips.*.amazonaws.com"),
}

_CREDENTIAL_HEADERS = frozenset({"authorization", "api-key", "x-api-key", "x-goog-api-key", "x-amz-security-token"})
# Options naming the destination: when one of these is read from the environment, the user chose it.
_DESTINATION_OPTIONS = ("base_url", "endpoint_url")
REDACTED = "[redacted]"
_MIN_SECRET = 8  # shorter values would redact ordinary words

_lock = threading.Lock()
_allowed: list[str] = []
_secrets: set[str] = set()


class Refused(Exception):
    """A credential would go to a destination nobody allowed; `str()` says which and how to allow it."""


def allow_url(url: str) -> None:
    """Allow credentials to go to `url` and every URL below it (same scheme, host and port)."""
    prefix = _normalise(url)
    with _lock:
        if prefix not in _allowed:
            _allowed.append(prefix)


def allowed_urls() -> list[str]:
    """The URLs allowed in this process: `allow_url` calls, then `INGOT_ALLOW_LLM_URLS`."""
    from_env = [_normalise(u) for u in re.split(r"[,\s]+", os.environ.get(ALLOW_ENV, "")) if u.strip()]
    with _lock:
        return [*_allowed, *from_env]


def check(constructor: str, options: Mapping[str, Any], url: str, headers: Mapping[str, str]) -> None:
    """Raise `Refused` when a request carrying a credential goes where it may not; remember
    the credentials it carries for `redact`."""
    carried = credentials_in(url, headers)
    if not carried:
        return
    remember(carried)
    if _user_chose_destination(options) or _documented(constructor, url) or _loopback(url):
        return
    target = _normalise(url)
    if any(target == a or target.startswith(a.rstrip("/") + "/") for a in allowed_urls()):
        return
    origin = _origin(url)
    raise Refused(f"refusing to send the credential of {constructor} to {origin}: it is not the provider's "
                  f"documented host. If you trust it, allow it: --allow-llm-url {origin} (or "
                  f"{ALLOW_ENV}={origin}, or ingot.llm.allow_url(\"{origin}\"))")


def credentials_in(url: str, headers: Mapping[str, str]) -> list[str]:
    """The credential values a request carries (header values and a `key=` query parameter)."""
    out: list[str] = []
    for name, value in headers.items():
        if name.lower() in _CREDENTIAL_HEADERS and value:
            out.append(value)
            if value.lower().startswith("bearer "):
                out.append(value[7:])
    query = urlsplit(url).query
    out += [v for k, v in parse_qsl(query, keep_blank_values=False) if k == "key" and v]
    return out


def remember(values: Iterable[str]) -> None:
    with _lock:
        _secrets.update(v for v in values if len(v) >= _MIN_SECRET)


def redact(text: str) -> str:
    """`text` with every credential this process sent replaced by `[redacted]`."""
    if not text:
        return text
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return text


def redact_fields(fields: dict[str, Any]) -> dict[str, Any]:
    """An error's fields with every string value redacted."""
    return {k: redact(v) if isinstance(v, str) else v for k, v in fields.items()}


# -- helpers --------------------------------------------------------------------------------------
def _user_chose_destination(options: Mapping[str, Any]) -> bool:
    return any(isinstance(options.get(name), EnvRef) for name in _DESTINATION_OPTIONS)


def _documented(constructor: str, url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme != "https" or parts.port not in (None, 443):
        return False
    host = (parts.hostname or "").lower()
    return any(_host_matches(host, pattern) for pattern in DOCUMENTED_HOSTS.get(constructor, ()))


def _host_matches(host: str, pattern: str) -> bool:
    """`*` stands for one or more DNS labels' worth of characters other than a dot."""
    regex = "^" + re.escape(pattern).replace(r"\*", r"[a-z0-9-]+(?:\.[a-z0-9-]+)*") + "$"
    return re.match(regex, host) is not None


def _loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


def _normalise(url: str) -> str:
    """scheme://host[:port]/path without query, fragment or user info, host lower-cased."""
    parts = urlsplit(url.strip())
    netloc = parts.netloc.rpartition("@")[2].lower()
    return f"{parts.scheme.lower()}://{netloc}{parts.path}"
