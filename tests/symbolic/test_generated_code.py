"""The Python both translators generate compiles cleanly: no warning reaches a user's terminal."""

from __future__ import annotations

import warnings

import pytest

import ingot
from ingot.bex.compiled import translate
from ingot.symbolic.compiled_tracker import TrackedTranslator

# literal operands of truth tests, conditions and comparisons: `0 is True` would compile with a
# SyntaxWarning ("is" with a literal), printed on every exploration (and `1 is None` on every run)
SOURCE = """
function F(x: int) -> bool[] {
  let out: bool[] = [];
  out.push(!0);
  out.push(!"");
  out.push(!1.5);
  if (0) { out.push(true); }
  while ("") { out.push(false); }
  out.push(!x);
  out.push(!(x > 2) || !0);
  out.push(1 == null);
  out.push("a" != true);
  out
}
"""


@pytest.mark.parametrize("budget", [False, True])
@pytest.mark.parametrize("tracked", [False, True], ids=["compiled", "tracked"])
def test_translations_compile_without_warnings(tracked: bool, budget: bool) -> None:
    p = ingot.load_source(SOURCE)  # a fresh program: translations are cached per program
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if tracked:
            translate(p.bex, budget, TrackedTranslator, p.view)
        else:
            translate(p.bex, budget)

