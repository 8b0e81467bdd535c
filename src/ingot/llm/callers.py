"""Client values: one OpenAI-compatible endpoint, or a reliability wrapper around others.

A `Model` answers one turn of a conversation. `HttpModel` sends it;
`RetryModel`, `FallbackModel` and `RoundRobinModel` are the engine's
`ai.clients.Retry` (up to `max_attempts`, backoff 250 ms doubling to at most
10 s, or the server's `Retry-After`), `ai.clients.Fallback` (next member on
any client failure) and `ai.clients.RoundRobin` (members in turn, one per
call). `Models` builds them from a program's client declarations, once per
program, so a round-robin keeps rotating across calls as on the engine.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

from ingot.llm.clients import PROVIDERS, client_ref, provider_of
from ingot.llm.errors import LlmFailure
from ingot.llm.request import Conversation, HttpRequest, Turn, build_request, parse_response
from ingot.view import ClientSpec, ProgramView

if TYPE_CHECKING:  # httpx (behind Transport) loads only when a request may be sent
    from ingot.llm.transport import Transport

RequestHook = Callable[[HttpRequest], None]


class Model(Protocol):
    name: str

    def invoke(self, conv: Conversation) -> Turn: ...

    def stream(self, conv: Conversation) -> Iterator[str]: ...

    def preview(self, conv: Conversation) -> HttpRequest: ...


class HttpModel:
    def __init__(self, name: str, constructor: str, options: dict[str, Any], transport: Transport,
                 on_request: RequestHook | None = None) -> None:
        self.name = name
        self.provider = PROVIDERS[constructor]
        self.last_provider = self.provider.tag
        self.options = options
        self.transport = transport
        self.on_request = on_request

    def preview(self, conv: Conversation) -> HttpRequest:
        return build_request(self.provider, self.options, conv, preview=True)

    def invoke(self, conv: Conversation) -> Turn:
        req = build_request(self.provider, self.options, conv)
        if self.on_request is not None:
            self.on_request(req)
        status, text = self.transport.send(req, self.provider.tag)
        return parse_response(self.provider, status, text, self.options)

    def stream(self, conv: Conversation) -> Iterator[str]:
        """The reply's text pieces as its events arrive (an event with no text is skipped)."""
        from ingot.llm.google import is_claude
        from ingot.llm.streaming import decode_event, truncated

        self.last_provider = self.provider.tag
        req = build_request(self.provider, self.options, conv, stream=True)
        if self.on_request is not None:
            self.on_request(req)
        if self.provider.api == "bedrock":
            yield from self._converse_stream(req)
            return
        api = "anthropic" if is_claude(self.provider, self.options) else self.provider.api
        text, ended = "", False
        for event, data in self.transport.events(req, self.provider.tag):
            delta = decode_event(api, self.provider.tag, event, data)
            if delta is None:
                continue
            if delta.text is not None:
                text += delta.text
                yield delta.text
            if delta.done:
                ended = True
                if api not in ("gemini", "vertex"):  # Gemini's last event (usage) may follow its finishReason
                    return
        if not ended:
            raise truncated(self.provider.tag, text)

    def _converse_stream(self, req: HttpRequest) -> Iterator[str]:
        """Bedrock ConverseStream: AWS event-stream messages rather than server-sent events."""
        from ingot.llm.bedrock import decode_stream_event
        from ingot.llm.streaming import truncated

        text = ""
        for name, data in self.transport.messages(req, self.provider.tag):
            piece, done = decode_stream_event(self.provider.tag, name, data)
            if piece is not None:
                text += piece
                yield piece
            if done:
                return
        raise truncated(self.provider.tag, text)


class RetryModel:
    def __init__(self, name: str, inner: Model, max_attempts: int = 3,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.name = name
        self.inner = inner
        self.last_provider = "unknown"  # set by `stream`: the member that answered
        self.max_attempts = max_attempts
        self.sleep = sleep
        self.backoff = (250, 2, 10_000)  # initial ms, multiplier, cap ms

    def preview(self, conv: Conversation) -> HttpRequest:
        return self.inner.preview(conv)

    def stream(self, conv: Conversation) -> Iterator[str]:
        attempt = 1
        while True:
            started = False
            try:
                for piece in self.inner.stream(conv):
                    started = True
                    self.last_provider = provider_of_stream(self.inner)
                    yield piece
                self.last_provider = provider_of_stream(self.inner)
                return
            except LlmFailure as f:
                if started or attempt >= self.max_attempts or not retryable(f):
                    raise
                self.sleep(self.delay_ms(attempt, f) / 1000)
                attempt += 1

    def invoke(self, conv: Conversation) -> Turn:
        attempt = 1
        while True:
            try:
                return self.inner.invoke(conv)
            except LlmFailure as f:
                if attempt >= self.max_attempts or not retryable(f):
                    raise
                self.sleep(self.delay_ms(attempt, f) / 1000)
                attempt += 1

    def delay_ms(self, attempt: int, f: LlmFailure) -> int:
        hinted = f.fields.get("retry_after_ms") if f.kind == "RateLimited" else None
        if hinted is not None:
            return int(hinted)
        initial, mult, cap = self.backoff
        return min(initial * mult ** (attempt - 1), cap)


class FallbackModel:
    def __init__(self, name: str, members: list[Model]) -> None:
        self.name = name
        self.members = members
        self.last_provider = "unknown"  # set by `stream`: the member that answered

    def preview(self, conv: Conversation) -> HttpRequest:
        return self.members[0].preview(conv)

    def invoke(self, conv: Conversation) -> Turn:
        if not self.members:
            raise LlmFailure("InvalidRequest", provider="fallback", status_code=None, raw_body=None,
                             detail="Fallback needs at least one member")
        for i, member in enumerate(self.members):
            try:
                return member.invoke(conv)
            except LlmFailure:
                if i + 1 == len(self.members):
                    raise
        raise AssertionError("unreachable")

    def stream(self, conv: Conversation) -> Iterator[str]:
        for i, member in enumerate(self.members):
            started = False
            try:
                for piece in member.stream(conv):
                    started = True
                    self.last_provider = provider_of_stream(member)
                    yield piece
                self.last_provider = provider_of_stream(member)
                return
            except LlmFailure:
                if started or i + 1 == len(self.members):
                    raise
        raise LlmFailure("InvalidRequest", provider="fallback", status_code=None, raw_body=None,
                         detail="Fallback needs at least one member")


class RoundRobinModel:
    def __init__(self, name: str, members: list[Model]) -> None:
        self.name = name
        self.members = members
        self.last_provider = "unknown"  # set by `stream`: the member that answered
        self.counter = 0

    def _next(self) -> Model:
        if not self.members:
            raise LlmFailure("InvalidRequest", provider="roundrobin", status_code=None, raw_body=None,
                             detail="RoundRobin needs at least one member")
        member = self.members[self.counter % len(self.members)]
        self.counter += 1
        return member

    def preview(self, conv: Conversation) -> HttpRequest:
        return self.members[self.counter % len(self.members)].preview(conv)

    def invoke(self, conv: Conversation) -> Turn:
        return self._next().invoke(conv)

    def stream(self, conv: Conversation) -> Iterator[str]:
        member = self._next()
        for piece in member.stream(conv):
            self.last_provider = provider_of_stream(member)
            yield piece
        self.last_provider = provider_of_stream(member)


def provider_of_stream(model: Model) -> str:
    """The `provider` of the client that answered `model`'s last stream (the errors' field)."""
    return str(getattr(model, "last_provider", "unknown"))


def retryable(f: LlmFailure) -> bool:
    """`ai.clients.default_retry_judgment`: a rejected request stays rejected."""
    if f.kind in ("Refused", "InvalidRequest", "ParseFailed", "FinishReasonError"):
        return False
    if f.kind == "ProviderError":
        return _provider_error_retryable(f.fields)
    return True


def _provider_error_retryable(fields: dict[str, Any]) -> bool:
    native = str(fields.get("error_code") or "")
    kind = str(fields.get("error_type") or "")
    code = f"{native} {kind}".lower()
    if native in ("408", "429") or (native.isdigit() and int(native) >= 500):
        return True
    if any(word in code for word in ("refusal", "content_filter", "moderation")):
        return False
    return any(word in code for word in ("rate_limit", "quota", "credit_balance", "server_error", "timeout",
                                         "timed_out", "overloaded", "unavailable", "try_again"))


class Models:
    """The client values of one program, built on first use and kept for its lifetime."""

    def __init__(self, view: ProgramView, transport: Transport | None = None,
                 on_request: RequestHook | None = None) -> None:
        self.view = view
        self._transport = transport
        self.on_request = on_request
        self._built: dict[str, Model] = {}

    @property
    def transport(self) -> Transport:
        # Made on first use: importing httpx costs a fifth of a second that runs
        # without a real LLM call (mocks, explorations, packing) never need.
        if self._transport is None:
            from ingot.llm.transport import Transport

            self._transport = Transport()
        return self._transport

    def for_function(self, function: str) -> Model:
        spec = self.view.client_of(function)
        if spec is None:
            raise LlmFailure("InvalidRequest", provider="ai.clients", status_code=None, raw_body=None,
                             detail=f"LLM function `{function}` has no client")
        return self.build(spec)

    def build(self, spec: ClientSpec, depth: int = 0) -> Model:
        if spec.name in self._built:
            return self._built[spec.name]
        if depth > 32:
            raise LlmFailure("InvalidRequest", provider="ai.clients", status_code=None, raw_body=None,
                             detail=f"client `{spec.name}` refers to itself")
        ctor = provider_of(spec)
        opts = dict(spec.options)
        model: Model
        if ctor in PROVIDERS:
            model = HttpModel(spec.name, ctor, opts, self.transport, self.on_request)
        elif ctor == "ai.clients.Retry":
            model = RetryModel(spec.name, self._member(opts.get("inner"), depth), int(opts.get("max_attempts", 3)))
        elif ctor == "ai.clients.Fallback":
            model = FallbackModel(spec.name, [self._member(m, depth) for m in opts.get("members") or []])
        elif ctor == "ai.clients.RoundRobin":
            model = RoundRobinModel(spec.name, [self._member(m, depth) for m in opts.get("members") or []])
        else:
            raise LlmFailure("InvalidRequest", provider="ai.clients", status_code=None, raw_body=None,
                             detail=f"the `{ctor}` client is not supported yet")
        self._built[spec.name] = model
        return model

    def _member(self, ref: Any, depth: int) -> Model:
        name = client_ref(ref) or (ref if isinstance(ref, str) else None)
        spec = self.view.clients().get(name) if name else None
        if spec is None:
            raise LlmFailure("InvalidRequest", provider="ai.clients", status_code=None, raw_body=None,
                             detail=f"unknown client `{name or ref}`")
        return self.build(spec, depth + 1)


_PER_PROGRAM: weakref.WeakKeyDictionary[ProgramView, Models] = weakref.WeakKeyDictionary()


def models_for(view: ProgramView) -> Models:
    """The program's client values (shared by every call of that program)."""
    models = _PER_PROGRAM.get(view)
    if models is None:
        models = _PER_PROGRAM[view] = Models(view)
    return models
