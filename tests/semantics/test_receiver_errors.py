"""A method called on a receiver that is itself in error reports the receiver's error once."""

from __future__ import annotations

import pytest

import ingot
from ingot.syntax.diagnostics import CompileError


@pytest.mark.parametrize("body", [
    't.substring(1, 2).split("#")',
    "t.nope.length()",
    "let p = t.substring(1, 2).length();\n  p",
    "t.nope.trim().length()",
])
def test_an_error_in_a_receiver_is_reported_once(body: str) -> None:
    with pytest.raises(CompileError) as caught:
        ingot.load_source(f"function F(t: string) -> int {{\n  {body}\n}}\n")
    messages = [d.message for d in caught.value.diagnostics]
    assert len(messages) == 1, messages
    assert "has no member" in messages[0]
