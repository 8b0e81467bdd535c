"""String constants go to Z3 and models come back by their code points: no escape in the text is
read, and no character of a model is escaped (a NUL, U+3000 and a literal backslash-u survive)."""

from __future__ import annotations

import pytest

from ingot.symbolic import string_ops as so
from ingot.symbolic.expr import Interner, Op, Sort
from ingot.symbolic.solver import Solver


@pytest.mark.parametrize("text", ["\\u{41}", "a\x00b", "tab\there", "a\u3000b", "\u2028", "\U0001f600!", "\\x41\\"])
def test_a_string_equal_to_a_constant_gets_exactly_that_constant(text: str) -> None:
    x = Interner()
    result = Solver(timeout_ms=0).solve([x.eq(x.var("s", Sort.STRING), x.const(text))])
    assert result.status == "sat" and result.model == {"s": text}


def test_a_model_character_past_latin_1_is_that_character_not_its_escape() -> None:
    x = Interner()
    s = x.var("s", Sort.STRING)
    wide = x.str_op(Op.IN_RE, s, value=so.chars(("\u3000", "\u3000"), ("\u2000", "\u200a")))
    result = Solver(timeout_ms=0).solve([wide])
    assert result.status == "sat" and result.model is not None
    assert len(result.model["s"]) == 1 and result.model["s"].isspace()
