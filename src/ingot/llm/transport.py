"""Sending one request over HTTP (httpx), with the engine's timeouts and error classes."""

from __future__ import annotations

from collections.abc import Iterator

import httpx

from ingot.llm.errors import LlmFailure, timeout
from ingot.llm.request import HttpRequest, classify_http

# The engine's defaults for one request attempt: 5 minutes in total, 10 seconds to connect.
DEFAULT_TIMEOUT = httpx.Timeout(300.0, connect=10.0)


class Transport:
    """Sends requests; returns `(status, body)` for a 2xx reply, raises `LlmFailure` otherwise."""

    def __init__(self, client: httpx.Client | None = None, timeout: httpx.Timeout = DEFAULT_TIMEOUT) -> None:
        self._client = client
        self._timeout = timeout

    @property
    def client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout, follow_redirects=False)
        return self._client

    def send(self, req: HttpRequest, provider: str) -> tuple[int, str]:
        try:
            resp = self.client.request(req.method, req.url, headers=req.headers, content=req.body.encode("utf-8"))
        except httpx.TimeoutException as e:
            raise timeout(f"the request to {_redact(req.url)} timed out: {type(e).__name__}") from None
        except httpx.HTTPError as e:
            raise LlmFailure("NetworkFailure", provider=provider, status_code=None, raw_body=None,
                             detail=f"transport failed before a response arrived: {type(e).__name__}: {e}") from None
        try:
            text = resp.text
        except httpx.HTTPError:
            raise LlmFailure("NetworkFailure", provider=provider, status_code=None, raw_body=None,
                             detail="the response body could not be read completely") from None
        if not 200 <= resp.status_code < 300:
            raise classify_http(provider, resp.status_code, text, dict(resp.headers))
        return resp.status_code, text

    def events(self, req: HttpRequest, provider: str) -> Iterator[tuple[str | None, str]]:
        """Send `req` and yield its server-sent events as `(event name, data)`, one at a time."""
        try:
            with self.client.stream(req.method, req.url, headers=req.headers,
                                    content=req.body.encode("utf-8")) as resp:
                if not 200 <= resp.status_code < 300:
                    # The engine reports a stream that failed to open without the server's
                    # retry hints (`retry_after_ms` is null).
                    raise classify_http(provider, resp.status_code, resp.read().decode("utf-8", "replace"), {})
                event: str | None = None
                data: list[str] = []
                for line in resp.iter_lines():
                    if not line:
                        if data:
                            yield event, "\n".join(data)
                        event, data = None, []
                    elif line.startswith("event:"):
                        event = line[6:].strip()
                    elif line.startswith("data:"):
                        data.append(line[5:].removeprefix(" "))
                if data:
                    yield event, "\n".join(data)
        except httpx.TimeoutException as e:
            raise timeout(f"the request to {_redact(req.url)} timed out: {type(e).__name__}") from None
        except httpx.HTTPError as e:
            raise LlmFailure("NetworkFailure", provider=provider, status_code=None, raw_body=None,
                             detail=f"the stream failed: {type(e).__name__}: {e}") from None

    def messages(self, req: HttpRequest, provider: str) -> Iterator[tuple[str, str]]:
        """Send `req` and yield its AWS event-stream messages as `(name, payload)`: the name is the
        event type, `exception:TYPE` or `error:CODE` (Bedrock ConverseStream)."""
        from botocore.eventstream import EventStreamBuffer

        try:
            with self.client.stream(req.method, req.url, headers=req.headers,
                                    content=req.body.encode("utf-8")) as resp:
                if not 200 <= resp.status_code < 300:
                    raise classify_http(provider, resp.status_code, resp.read().decode("utf-8", "replace"), {})
                buffer = EventStreamBuffer()
                for chunk in resp.iter_bytes():
                    buffer.add_data(chunk)
                    for message in buffer:
                        headers = message.headers
                        kind = headers.get(":message-type", "event")
                        if kind == "exception":
                            name = f"exception:{headers.get(':exception-type', '')}"
                        elif kind == "error":
                            name = f"error:{headers.get(':error-code', '')}"
                        else:
                            name = str(headers.get(":event-type", ""))
                        yield name, message.payload.decode("utf-8", "replace")
        except httpx.TimeoutException as e:
            raise timeout(f"the request to {_redact(req.url)} timed out: {type(e).__name__}") from None
        except httpx.HTTPError as e:
            raise LlmFailure("NetworkFailure", provider=provider, status_code=None, raw_body=None,
                             detail=f"the stream failed: {type(e).__name__}: {e}") from None

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None


def _redact(url: str) -> str:
    return url.split("?", 1)[0]
