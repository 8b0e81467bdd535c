"""Facts the compiled tier derives to drop type, sign and overflow tests must hold wherever it uses them.

Each fact gets a program where it holds (the test is gone from the generated code) and
programs where it must not be used (the test stays), and every program runs on both tiers.
"""

from __future__ import annotations

import pytest

import ingot
from ingot.bex.compiled import CompiledVM, source_of
from ingot.bex.vm import VM
from ingot.runtime.errors import BamlError


def outcome(vm_class: type[VM], program: ingot.Program, *args: object) -> object:
    try:
        return ("ok", vm_class(program.bex).call(program.function("F"), list(args)))
    except BamlError as e:
        return ("error", e.kind, e.message)


def agree(source: str, *args: object) -> object:
    program = ingot.load_source(source)
    compiled = outcome(CompiledVM, program, *args)
    assert compiled == outcome(VM, program, *args)
    return compiled


# -- element kinds: an array the function builds from ints and keeps to itself holds ints

INT_ELEMENTS = """
function F(n: int) -> int {
  let xs: int[] = [3];
  for (let i = 0; i < n; i += 1) { xs.push((i * 7) % 5); }
  xs[1] = xs[0];
  let best = xs[0];
  for (let i = 0; i < xs.length(); i += 1) { if (xs[i] > best) { best = xs[i]; } }
  best
}
"""
# a float pushed on one path: the elements are not all ints (`==` is BAML's strict equality)
MIXED_PUSH = """
function F(n: int) -> bool {
  let xs: (int | float)[] = [1];
  if (n > 0) { xs.push(1.0); } else { xs.push(1); }
  xs[0] == xs[1]
}
"""
# the array escapes to a callee (through a copy) that pushes a float
ESCAPES = """
function Put(xs: (int | float)[]) -> int { xs.push(1.0); 0 }
function F(n: int) -> bool {
  let xs: (int | float)[] = [1];
  let ys = xs;
  if (n > 0) { Put(ys); } else { ys.push(1); }
  xs[0] == xs[1]
}
"""
# the array is returned: whoever gets it may push anything (its reads keep their tests)
RETURNED = """
function Make(n: int) -> (int | float)[] {
  let xs: (int | float)[] = [n];
  xs
}
function F(n: int) -> bool {
  let xs = Make(n);
  xs.push(1.0);
  xs[0] == xs[1]
}
"""


def test_reads_of_an_int_array_the_function_keeps_are_ints() -> None:
    text = source_of(ingot.load_source(INT_ELEMENTS).bex)
    assert "_gt(" not in text and "type(" not in text
    for n in (0, 1, 5, 40):
        agree(INT_ELEMENTS, n)


@pytest.mark.parametrize("source", [MIXED_PUSH, ESCAPES, RETURNED], ids=["mixed-push", "escapes", "returned"])
def test_arrays_that_may_hold_other_values_keep_their_tests(source: str) -> None:
    assert "_eq(" in source_of(ingot.load_source(source).bex)
    assert agree(source, 1) == ("ok", False)
    agree(source, 0)
