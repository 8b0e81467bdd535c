"""The compiled tier's translations live on their program: binding a host function selects
another translation instead of clearing a process-wide cache, and a dropped program takes
its translations with it."""

from __future__ import annotations

import gc
import weakref

import ingot
from ingot.bex.compiled.translation import _MODULES

SOURCE = """
function Score(x: int) -> int {
  x * 2
}
function Total(xs: int[]) -> int {
  let t = 0;
  for (let x in xs) { t += Score(x); }
  t
}
"""


def test_binding_selects_a_translation_and_keeps_the_others() -> None:
    program = ingot.load_source(SOURCE)
    assert program.call("Total", xs=[1, 2]) == 6  # the BAML body
    before = dict(program.bex.translations)
    program.bind("Score", lambda x: x + 100)
    assert program.call("Total", xs=[1, 2]) == 203  # the bound callable
    assert all(program.bex.translations.get(k) is v for k, v in before.items())
    assert len(program.bex.translations) == len(before) + 1


def test_two_programs_never_share_a_translation() -> None:
    a, b = ingot.load_source(SOURCE), ingot.load_source(SOURCE)
    b.bind("Score", lambda x: -x)
    assert a.call("Total", xs=[3]) == 6 and b.call("Total", xs=[3]) == -3
    assert not set(map(id, a.bex.translations.values())) & set(map(id, b.bex.translations.values()))


def test_a_dropped_program_takes_its_translations_along() -> None:
    program = ingot.load_source(SOURCE)
    program.call("Total", xs=[1])
    names = [t.filename for t in program.bex.translations.values()]
    probe = weakref.ref(next(iter(program.bex.translations.values())))
    del program
    gc.collect()
    assert probe() is None
    assert not any(name in _MODULES for name in names)
