"""Streaming an LLM function: partial values while the reply arrives, then the parsed result.

`Program.stream("F", args)` returns an `LlmStream`. Iterating it sends the
request with server-sent events (OpenAI Chat and Responses, Anthropic,
Gemini and Vertex AI; Bedrock's AWS event-stream messages are read by
`bedrock.decode_stream_event`), reads the events one at a time and, after each one
that carries reply text, yields the partial value of the text so far
(`ingot.llm.partial`), as the engine's streams do. `.final()` reads the rest
and returns the whole reply parsed into the return type. As on the engine,
a stream is one model turn (no repair turn), its finish reason is not
checked, and a stream that ends before the provider's end event raises
`ai.errors.NetworkFailure` after the partials. Retry and Fallback clients
move on only while no reply text has arrived.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from ingot.llm.errors import LlmFailure
from ingot.llm.partial import MISSING, partial_value
from ingot.llm.request import Conversation


class Delta:
    """What one event carried: reply text (or None), and whether it ends the turn."""

    __slots__ = ("text", "done")

    def __init__(self, text: str | None, done: bool = False) -> None:
        self.text = text
        self.done = done


def decode_event(api: str, tag: str, event: str | None, data: str) -> Delta | None:
    """One server-sent event of `api`; raises the engine's failure for an error event."""
    if api == "chat":
        if data.strip() == "[DONE]":
            return Delta(None, True)
        chunk = _json(tag, data)
        _raise_error(tag, chunk.get("error"), data)
        choices = chunk.get("choices") or []
        delta = choices[0].get("delta") or {} if choices and isinstance(choices[0], dict) else {}
        return Delta(delta.get("content") if isinstance(delta.get("content"), str) else None)
    if api == "responses":
        chunk = _json(tag, data)
        kind = chunk.get("type") or event
        if kind == "response.output_text.delta":
            return Delta(str(chunk.get("delta") or ""))
        if kind in ("response.failed", "error"):
            _raise_error(tag, chunk.get("error") or (chunk.get("response") or {}).get("error") or {"message": kind},
                         data)
        return Delta(None, kind in ("response.completed", "response.incomplete"))
    if api == "anthropic":
        chunk = _json(tag, data)
        kind = chunk.get("type") or event
        if kind == "error":
            _raise_error(tag, chunk.get("error"), data)
            raise LlmFailure("InvalidResponse", provider=tag, message="the error event contained no error object",
                             raw_body=data, status_code=None)
        if kind == "content_block_delta" and (chunk.get("delta") or {}).get("type") == "text_delta":
            return Delta(str(chunk["delta"].get("text") or ""))
        return Delta(None, kind == "message_stop")
    chunk = _json(tag, data)  # gemini / vertex: each event is a whole response with the new parts
    _raise_error(tag, chunk.get("error"), data)
    candidates = chunk.get("candidates") or []
    cand = candidates[0] if candidates and isinstance(candidates[0], dict) else {}
    texts = [p["text"] for p in (cand.get("content") or {}).get("parts") or []
             if isinstance(p, dict) and isinstance(p.get("text"), str) and not p.get("thought")]
    return Delta("".join(texts) if texts else None, bool(cand.get("finishReason")))


def _json(tag: str, data: str) -> dict[str, Any]:
    try:
        value = json.loads(data)
    except ValueError:
        raise LlmFailure("InvalidResponse", provider=tag, message="a stream event is not JSON", raw_body=data,
                         status_code=None) from None
    return value if isinstance(value, dict) else {}


def _raise_error(tag: str, error: Any, raw: str) -> None:
    """An error object in an event: the engine's ProviderError, with the event's data as `raw_body`."""
    if isinstance(error, dict):
        code = error.get("code")
        raise LlmFailure("ProviderError", provider=tag, message=error.get("message") or error.get("type")
                         or "the stream failed",
                         error_type=error.get("type") or error.get("status"),
                         error_code=None if code is None else str(code), raw_body=raw,
                         status_code=None)


def truncated(tag: str, text: str) -> LlmFailure:
    return LlmFailure("NetworkFailure", provider=tag, status_code=None, raw_body=text,
                      detail="stream ended before the provider's terminal event: the connection closed after "
                             f"{len(text)} characters of assistant text with no end-of-turn event, so the turn is "
                             "truncated")


class LlmStream:
    """An LLM call whose reply arrives in pieces: iterate for partial values, `.final()` for the result."""

    def __init__(self, program: Any, function: str, values: list[Any]) -> None:
        from ingot.llm.render import render_output_format
        from ingot.llm.runtime import LlmRuntime

        self.function = function
        self._runtime = LlmRuntime(program.view)
        self._vm = program.vm(llm=self._runtime)
        self._ret = program.view.function(function).ret
        output_format = render_output_format(self._runtime.schema, self._ret)
        self.prompt = self._runtime.render_prompt(self._vm, function, output_format, values)
        self.text = ""
        self._deltas: Iterator[str] | None = None
        self._done = False

    def __iter__(self) -> Iterator[Any]:
        for _ in self._texts():
            value = partial_value(self._runtime.schema, self.text, self._ret)
            if value is not MISSING:
                yield value

    def _texts(self) -> Iterator[str]:
        if self._deltas is None:
            try:
                model = self._runtime.models.for_function(self.function)
            except LlmFailure as f:
                raise _baml_error(f) from None
            self._deltas = model.stream(Conversation(self.prompt))
        while not self._done:
            try:
                piece = next(self._deltas)
            except StopIteration:
                self._done = True
                return
            except LlmFailure as f:
                self._done = True
                raise _baml_error(f) from None
            self.text += piece
            yield piece

    def final(self) -> Any:
        """The whole reply parsed into the function's return type (reads what has not arrived yet)."""
        from ingot.convert import to_python
        from ingot.llm.callers import provider_of_stream
        from ingot.llm.coerce import CoerceError
        from ingot.llm.errors import ai_error

        for _ in self._texts():
            pass
        try:
            return to_python(self._runtime.parse(self._vm, self.text, self._ret))
        except CoerceError as e:
            provider = provider_of_stream(self._runtime.models.for_function(self.function))
            raise _baml_error(ai_error("ParseFailed", provider=provider, raw_output=self.text,
                                       message=str(e) or None)) from None


def _baml_error(failure: Any) -> Exception:
    from ingot.runtime.errors import BamlError

    raised = failure.to_baml() if isinstance(failure, LlmFailure) else failure
    return BamlError(raised.value, [])


def open_stream(program: Any, function: str, args: dict[str, Any]) -> LlmStream:
    view = program.view
    if not view.function(function).is_llm:
        raise ValueError(f"`{function}` is not an LLM function; only LLM functions stream")
    return LlmStream(program, function, program.convert_args(function, args))
