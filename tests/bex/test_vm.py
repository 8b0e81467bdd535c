"""VM behaviour users rely on beyond the conformance corpus: limits, traces, catch rules."""

from __future__ import annotations

import pytest

import ingot


def run(src: str, fn: str, **kwargs: object) -> object:
    return ingot.load(src).call(fn, **kwargs)


def test_recursion_deeper_than_the_limit_is_a_stack_overflow_panic() -> None:
    src = "function Down(n: int) -> int {\n  if (n == 0) { return 0; }\n  1 + Down(n - 1)\n}\n"
    program = ingot.load(src)
    assert program.call("Down", n=5000) == 5000
    with pytest.raises(ingot.BamlError) as e:
        program.options(max_depth=100).call("Down", n=200)
    assert e.value.kind == "StackOverflow" and e.value.is_panic


def test_instruction_budget_stops_an_endless_loop() -> None:
    src = "function Spin() -> int {\n  let i = 0;\n  while (true) { i += 1; }\n  i\n}\n"
    with pytest.raises(ingot.BamlError) as e:
        ingot.load(src).options(max_steps=1000).call("Spin")
    assert e.value.kind == "InstructionLimit"
    assert "1000" in e.value.message


def test_trace_lists_frames_outermost_first_with_lines() -> None:
    src = "function A(x: int) -> int {\n  B(x)\n}\nfunction B(x: int) -> int {\n  let y = 1;\n  y / x\n}\n"
    with pytest.raises(ingot.BamlError) as e:
        ingot.load(src, filename="t.baml").call("A", x=0)
    assert [str(f) for f in e.value.trace] == [
        'File "t.baml", line 2, in user.A',
        'File "t.baml", line 6, in user.B',
    ]


def test_wildcard_catch_does_not_catch_panics_but_catches_throws() -> None:
    src = """
class Bad {
  code int
}
function Risky(x: int) -> int {
  if (x < 0) { throw Bad { code: x }; }
  10 / x
}
function Guarded(x: int) -> int {
  Risky(x) catch (e) { _ => -1 }
}
"""
    program = ingot.load(src)
    assert program.call("Guarded", x=-5) == -1
    assert program.call("Guarded", x=2) == 5
    with pytest.raises(ingot.BamlError) as e:
        program.call("Guarded", x=0)
    assert e.value.kind == "DivisionByZero"


def test_unmatched_catch_rethrows_with_the_original_trace() -> None:
    src = """
function Inner(s: string) -> int {
  int.parse(s)
}
function Outer(s: string) -> int {
  Inner(s) catch (e) { baml.panics.DivisionByZero => 0 }
}
"""
    with pytest.raises(ingot.BamlError) as e:
        ingot.load(src).call("Outer", s="x")
    assert e.value.kind == "ParseError"
    assert e.value.trace[-1].function == "user.Inner"


def test_thrown_string_escapes_with_its_message() -> None:
    src = 'function F() -> int {\n  throw "neg";\n}\n'
    with pytest.raises(ingot.BamlError) as e:
        run(src, "F")
    assert e.value.kind == "string" and e.value.message == "str: 'neg'"


def test_closures_capture_by_reference_and_loop_variables_per_iteration() -> None:
    src = """
function F() -> int[] {
  let k = 0;
  let bump = (x: int) -> int { k += x; k };
  bump(2);
  bump(3);
  let fs: (() -> int throws never)[] = [];
  for (let i = 0; i < 3; i += 1) {
    fs.push(() -> int { i });
  }
  [k].concat(fs.map((f) => { f() }))
}
"""
    assert run(src, "F") == [5, 0, 1, 2]


def test_constants_are_evaluated_once_per_call_on_first_use() -> None:
    # Verified on baml_bridge 0.23.0: a const is shared within one call, fresh in the next.
    src = ('const NAMES = ["a", "b"];\nconst N = 41 + 1;\nfunction F() -> string {\n  NAMES.push("c");\n'
           '  `${N} ${NAMES.length()} ${NAMES}`\n}\nfunction G() -> string { F() + "|" + F() }\n')
    program = ingot.load(src)
    assert program.call("F") == '42 3 ["a", "b", "c"]'
    assert program.call("G") == '42 3 ["a", "b", "c"]|42 4 ["a", "b", "c", "c"]'


def test_results_are_plain_python() -> None:
    src = """
enum Color {
  RED
  BLUE
}
class P {
  c Color
  m map<string, int>
  xs P[]
}
function F() -> P {
  P { c: Color.BLUE, m: {"a": 1}, xs: [P { c: Color.RED, m: {}, xs: [] }] }
}
"""
    assert run(src, "F") == {"c": "BLUE", "m": {"a": 1}, "xs": [{"c": "RED", "m": {}, "xs": []}]}


def test_enum_and_class_arguments_are_converted_and_validated() -> None:
    src = """
enum Color {
  RED
  BLUE
}
class P {
  c Color
  n int?
}
function F(p: P, w: float) -> string {
  `${p.c} ${p.n ?? -1} ${w}`
}
"""
    program = ingot.load(src)
    assert program.call("F", p={"c": "RED"}, w=2) == "RED -1 2.0"
    with pytest.raises(ingot.ArgumentError) as e:
        program.call("F", p={"c": "GREEN"}, w=1.0)
    assert e.value.path == "args.p.c"
