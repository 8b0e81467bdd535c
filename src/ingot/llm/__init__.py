"""LLM clients, prompt rendering and lenient parsing of replies.

- `LlmRuntime`: the VM's handler for LLM functions (mocks first, then the
  declared client), used by `Program.options(llm=...).call(...)`.
- `Replies`, `Value`: mock forms (a sequence of replies; a string result).
- `validate_clients`: load-time diagnostics for clients ingot cannot call.
- `render_output_format`, `parse_reply`: the two halves of schema-aligned
  prompting, usable on their own.
- `allow_url`: let credentials go to a host other than the provider's documented
  one (`ingot.llm.destinations` has the rule).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ingot.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from ingot.llm.clients import validate_clients
    from ingot.llm.destinations import allow_url
    from ingot.llm.mocks import Failure, MockError, Replies, Value
    from ingot.llm.render import render_output_format
    from ingot.llm.runtime import CallRecord, LlmRuntime

# The public names and their modules, imported on first use (PEP 562): compiling a program reads
# `ingot.llm.clients` and mocks read `ingot.llm.mocks` without loading the runtime and the parser
# of replies.
_EXPORTS = {
    "validate_clients": "ingot.llm.clients", "allow_url": "ingot.llm.destinations",
    "Failure": "ingot.llm.mocks", "MockError": "ingot.llm.mocks", "Replies": "ingot.llm.mocks",
    "Value": "ingot.llm.mocks", "render_output_format": "ingot.llm.render",
    "CallRecord": "ingot.llm.runtime", "LlmRuntime": "ingot.llm.runtime",
}


def parse_reply(view: Any, text: str, ty: Any) -> Any:
    """`text` read as type `ty` of the program behind `view`, as plain Python (classes as dicts).

    Raises `ingot.llm.coerce.CoerceError` when the reply does not fit.
    """
    from ingot.llm.coerce import Coercer, finish
    from ingot.llm.schema import Schema

    coerced = Coercer(Schema.from_view(view)).parse(text, ty)
    return finish(coerced, lambda _cls, fields: dict(fields), lambda _enum, name: name)


__all__ = ["LlmRuntime", "CallRecord", "Replies", "Value", "Failure", "MockError", "validate_clients",
           "render_output_format", "parse_reply", "allow_url"]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
