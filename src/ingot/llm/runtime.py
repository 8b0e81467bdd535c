"""Running an LLM function: render, call (or mock), parse, repair once, as the engine does.

`LlmRuntime` is the VM's LLM handler (`handler(vm, fn, args)`). For each
call it renders `ctx.output_format()` from the return type, runs the
compiled prompt function `$prompt.F(output_format, *args)`, and then

1. takes the reply from a mock, or sends the prompt to the function's client;
2. stops on a reply the model cut short (`ai.errors.FinishReasonError`) or
   refused (`ai.errors.Refused`);
3. parses the reply's text into the return type; when it does not fit, asks
   once more with the engine's correction turn appended (the engine's
   `Agent.schema_attempts = 2`), and raises `ai.errors.ParseFailed` with the
   last reply attached if that fails too.

Client failures become the engine's `ai.errors.*` values, so BAML `catch`
arms handle them as on the engine.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ingot.bex.program import BexFunction
from ingot.llm.callers import Models, models_for
from ingot.llm.coerce import CoerceError, Coercer, finish
from ingot.llm.errors import LlmFailure, ai_error
from ingot.llm.mocks import Failure, MockError, Mocks, to_value
from ingot.llm.render import render_output_format
from ingot.llm.request import REPAIR_PROMPT, Conversation, Turn
from ingot.llm.schema import Schema
from ingot.view import ProgramView, Ty

SCHEMA_ATTEMPTS = 2


@dataclass
class CallRecord:
    """One LLM call as the runtime saw it (for tests and `ingot prompt`)."""

    function: str
    args: dict[str, Any]
    prompt: str
    output_format: str
    replies: list[str] = field(default_factory=list)
    mocked: bool = False


class LlmRuntime:
    def __init__(self, view: ProgramView, mocks: Mapping[str, Any] | None = None, *,
                 models: Models | None = None, on_call: Callable[[CallRecord], None] | None = None,
                 mocks_only: bool = False) -> None:
        """`mocks_only`: an LLM function without a mock raises `MockError` instead of calling its client."""
        self.view = view
        self.mocks_only = mocks_only
        self.mocks = Mocks(mocks)
        self.schema = schema_for(view)
        self._models = models
        self.on_call = on_call
        self.calls: list[CallRecord] = []

    @property
    def models(self) -> Models:
        if self._models is None:
            self._models = models_for(self.view)
        return self._models

    # -- the handler -------------------------------------------------------------------------------
    def __call__(self, vm: Any, fn: BexFunction, args: list[Any]) -> Any:
        name = fn.name
        ret = self.view.function(name).ret
        output_format = render_output_format(self.schema, ret)
        prompt = self.render_prompt(vm, name, output_format, args)
        record = CallRecord(name, self.python_args(name, args), prompt, output_format, mocked=name in self.mocks)
        self.calls.append(record)
        if self.on_call is not None:
            self.on_call(record)
        if name in self.mocks:
            return self._answer(vm, ret, prompt, record, lambda conv: self._mock_turn(vm, name, ret, record))
        if self.mocks_only:
            raise MockError(f"LLM function `{name}` has no mock (mocked: {', '.join(sorted(self.mocks.mocks)) or 'none'})")
        try:
            model = self.models.for_function(name)
        except LlmFailure as f:
            raise f.to_baml() from None
        return self._answer(vm, ret, prompt, record, model.invoke)

    def render_prompt(self, vm: Any, function: str, output_format: str, args: list[Any]) -> str:
        prompt_fn = vm.program.by_name[self.view.prompt_function(function)]
        return str(vm.invoke(prompt_fn, [output_format, *args]))

    def python_args(self, function: str, args: list[Any]) -> dict[str, Any]:
        from ingot.convert import to_python

        names = [p for p, _ in self.view.function(function).params]
        return {n: to_python(a) for n, a in zip(names, args)}

    # -- one call, with the repair turn ------------------------------------------------------------------
    def _answer(self, vm: Any, ret: Ty, prompt: str, record: CallRecord,
                ask: Callable[[Conversation], Turn | _Result]) -> Any:
        conv = Conversation(prompt)
        for attempt in range(1, SCHEMA_ATTEMPTS + 1):
            try:
                turn = ask(conv)
            except LlmFailure as f:
                raise f.to_baml() from None
            if isinstance(turn, _Result):
                return turn.value
            candidate = turn.text or ""
            record.replies.append(candidate)
            if turn.stop == "MaxTokens":
                raise ai_error("FinishReasonError", provider=turn.provider, finish_reason="MaxTokens",
                               raw_output=candidate)
            if turn.stop == "Refused":
                raise ai_error("Refused", provider=turn.provider, reason="the model declined to answer",
                               raw_body=None)
            try:
                return self.parse(vm, candidate, ret)
            except CoerceError:
                if attempt == SCHEMA_ATTEMPTS:
                    raise ai_error("ParseFailed", provider=turn.provider, raw_output=candidate,
                                   message=None) from None
                conv.turns += [("assistant", candidate), ("user", REPAIR_PROMPT)]
        raise AssertionError("unreachable")

    def _mock_turn(self, vm: Any, function: str, ret: Ty, record: CallRecord) -> Turn | _Result:
        reply = self.mocks.next(function, lambda: dict(record.args))
        if isinstance(reply, Failure):
            raise ai_error(reply.kind, provider="mock", message=reply.message, raw_output="", detail=reply.message)
        if isinstance(reply, str):
            return Turn(reply, "Complete", "mock")
        programs = vm.program
        return _Result(to_value(reply, ret, self.schema, programs.classes, programs.enums, function))

    # -- parsing -----------------------------------------------------------------------------------------
    def parse(self, vm: Any, text: str, ret: Ty) -> Any:
        """`text` read as `ret`, as BAML runtime values; raises `CoerceError`."""
        coerced = Coercer(self.schema).parse(text, ret)
        classes, enums = vm.program.classes, vm.program.enums

        def instance(name: str, fields: dict[str, Any]) -> Any:
            info = classes[name]
            return _new_instance(info, fields)

        def variant(enum: str, name: str) -> Any:
            return enums[enum].variant(name)

        return finish(coerced, instance, variant)


_SCHEMAS: weakref.WeakKeyDictionary[ProgramView, Schema] = weakref.WeakKeyDictionary()


def schema_for(view: ProgramView) -> Schema:
    """The program's output schema, built once per program."""
    schema = _SCHEMAS.get(view)
    if schema is None:
        schema = _SCHEMAS[view] = Schema.from_view(view)
    return schema


@dataclass(frozen=True, slots=True)
class _Result:
    """A mock given as a value: the call's result, no parsing."""

    value: Any


def _new_instance(info: Any, fields: dict[str, Any]) -> Any:
    from ingot.runtime.values import Instance

    return Instance(info, [fields.get(n) for n in info.field_names])


__all__ = ["LlmRuntime", "CallRecord", "SCHEMA_ATTEMPTS"]
