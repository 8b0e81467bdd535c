"""The compiled tier (`ingot.bex.compiled`) against the interpreter (`ingot.bex.vm`).

Every conformance case runs on both tiers: same value, or same error kind and the
same trace. Beyond the corpus: recursion limits, the instruction budget, traces
through catch/rethrow, closures, constants and LLM calls.
"""

from __future__ import annotations

import json
import math
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import ingot
from ingot.bex.compiled import CompiledVM, source_of
from ingot.bex.vm import TRACE_HEAD, TRACE_TAIL, VM
from ingot.convert import to_python
from ingot.runtime.errors import BamlError

ROOT = Path(__file__).resolve().parents[2]
CORPORA = [ROOT / "tests" / "conformance" / "engine", ROOT / "tests" / "conformance" / "extra"]


def _cases() -> list[Any]:
    out = []
    for root in CORPORA:
        if not root.is_dir():
            continue
        for spec_path in sorted(root.glob("*.json")):
            spec = json.loads(spec_path.read_text(encoding="utf-8"))
            for i, case in enumerate(spec["cases"]):
                out.append(pytest.param(spec_path.with_suffix(".baml"), spec["function"], case,
                                        id=f"{root.name}/{spec_path.stem}[{i}]"))
    return out


@cache
def _load(path: Path) -> ingot.Program:
    return ingot.load(path)


def outcome(vm_class: type[VM], program: ingot.Program, fn: str, args: list[Any], **options: Any) -> Any:
    """('ok', value) or ('error', kind, trace lines) of one call on one tier."""
    vm = vm_class(program.bex, llm=program.llm_handler(None), **options)
    try:
        return ("ok", to_python(vm.call(program.function(fn), args)))
    except BamlError as e:
        return ("error", e.kind, [str(f) for f in e.trace])


def same(a: Any, b: Any) -> bool:
    """Equality that tells bool from int and int from float, with NaN equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


@pytest.mark.parametrize(("baml", "fn", "case"), _cases())
def test_corpus_case_same_on_both_tiers(baml: Path, fn: str, case: dict[str, Any]) -> None:
    program = _load(baml)
    args = program.convert_args(fn, case["args"])
    compiled = outcome(CompiledVM, program, fn, args)
    interpreted = outcome(VM, program, fn, program.convert_args(fn, case["args"]))
    assert same(compiled, interpreted), f"compiled {compiled!r} != interpreter {interpreted!r}"
    if "error" in case:
        assert compiled[0] == "error" and compiled[1] == case["error"]
    else:
        assert compiled[0] == "ok"


# ----------------------------------------------------------------------------- limits

DOWN = "function Down(n: int) -> int {\n  if (n == 0) { return 0; }\n  1 + Down(n - 1)\n}\n"


def test_deep_recursion_works_and_too_deep_is_a_stack_overflow() -> None:
    program = ingot.load(DOWN)
    fn = program.function("Down")
    assert CompiledVM(program.bex).call(fn, [5000]) == 5000
    limit = sys.getrecursionlimit()
    with pytest.raises(BamlError) as e:
        CompiledVM(program.bex).call(fn, [500_000])
    assert e.value.kind == "StackOverflow" and e.value.is_panic
    trace = e.value.trace  # 20,000 frames: the outermost and innermost kept, the others counted
    assert len(trace) == TRACE_HEAD + 1 + TRACE_TAIL and trace[TRACE_HEAD].omitted == 20_000 - len(trace) + 1
    assert str(trace[TRACE_HEAD]) == f"... {20_000 - len(trace) + 1} frames omitted ..."
    assert sys.getrecursionlimit() >= limit
    # the interpreter still works afterwards, and the process is intact
    assert CompiledVM(program.bex).call(fn, [10]) == 10


def test_stack_overflow_at_exactly_the_interpreters_depth() -> None:
    program = ingot.load(DOWN)
    for n in (98, 99, 100, 101):
        assert same(outcome(CompiledVM, program, "Down", [n], max_depth=100),
                    outcome(VM, program, "Down", [n], max_depth=100))


FIB = "function Fib(n: int) -> int {\n  if (n < 2) { return n; }\n  Fib(n - 1) + Fib(n - 2)\n}\n"


def test_two_calls_in_one_block_overflow_the_stack_where_the_interpreter_does() -> None:
    # the generated code tests the depth once per block: the first call of the block is the one
    # that would go too deep (`d` is the same for the second)
    program = ingot.load(FIB)
    for n, depth in ((6, 5), (6, 6), (6, 7), (12, 11), (12, 12)):
        assert same(outcome(CompiledVM, program, "Fib", [n], max_depth=depth),
                    outcome(VM, program, "Fib", [n], max_depth=depth))


def test_stack_overflow_is_catchable_like_in_the_interpreter() -> None:
    src = DOWN + """
function Safe(n: int) -> int {
  Down(n) catch (e) { baml.panics.StackOverflow => -1 }
}
"""
    program = ingot.load(src)
    for n in (5, 500):
        assert same(outcome(CompiledVM, program, "Safe", [n], max_depth=50),
                    outcome(VM, program, "Safe", [n], max_depth=50))
    assert CompiledVM(program.bex, max_depth=50).call(program.function("Safe"), [500]) == -1


SPIN = """
function Spin(n: int) -> int {
  let i = 0;
  while (i < n) { i += 1; }
  i
}
function Twice(n: int) -> int { Spin(n) + Spin(n) }
function Forever() -> int {
  let i = 0;
  while (true) { i += 1; }
  i
}
"""


@pytest.mark.parametrize("budget", [1, 5, 10, 11, 12, 20, 21, 22, 23, 100])
def test_instruction_budget_counts_like_the_interpreter(budget: int) -> None:
    program = ingot.load(SPIN)
    fn = program.function("Twice")
    results = []
    for cls in (CompiledVM, VM):
        vm = cls(program.bex, max_steps=budget)
        try:
            results.append(("ok", vm.call(fn, [10]), vm.steps))
        except BamlError as e:
            results.append(("error", e.kind, e.message, [str(f) for f in e.trace], vm.steps))
    assert results[0] == results[1]


def test_instruction_budget_stops_an_endless_loop() -> None:
    program = ingot.load(SPIN)
    with pytest.raises(BamlError) as e:
        CompiledVM(program.bex, max_steps=1000).call(program.function("Forever"), [])
    assert e.value.kind == "InstructionLimit" and "1000" in e.value.message


# ----------------------------------------------------------------------------- traces

TRACES = """
class Bad {
  code int
}
function A(x: int) -> int {
  B(x)
}
function B(x: int) -> int {
  let y = 1;
  y / x
}
function Thrower(x: int) -> int {
  if (x < 0) {
    throw Bad { code: x };
  }
  A(x)
}
function Partial(x: int) -> int {
  Thrower(x) catch (e) {
    let b: Bad => b.code
  }
}
function ViaMap(xs: int[]) -> int[] {
  xs.map((x: int) -> int { A(x) })
}
function Index(xs: int[], i: int) -> int {
  let k = i + 1;
  xs[k]
}
"""


@pytest.mark.parametrize(("fn", "args"), [
    ("A", [0]), ("Thrower", [0]), ("Thrower", [-1]), ("Partial", [0]), ("Partial", [-3]),
    ("ViaMap", [[1, 2, 0]]), ("Index", [[1, 2], 1]), ("Index", [[1, 2], 0]),
])
def test_traces_match_the_interpreter(fn: str, args: list[Any]) -> None:
    program = ingot.load(TRACES, filename="t.baml")
    compiled = outcome(CompiledVM, program, fn, args)
    assert same(compiled, outcome(VM, program, fn, args))


def test_trace_has_baml_names_and_lines() -> None:
    program = ingot.load(TRACES, filename="t.baml")
    got = outcome(CompiledVM, program, "Partial", [0])
    assert got == ("error", "DivisionByZero", [
        'File "t.baml", line 19, in user.Partial',
        'File "t.baml", line 16, in user.Thrower',
        'File "t.baml", line 6, in user.A',
        'File "t.baml", line 10, in user.B',
    ])


# ----------------------------------------------------------------------------- closures, catch, constants

MISC = """
const LIMIT: int = 3 * 4;
function Counter(n: int) -> int {
  let count = 0;
  let bump = (k: int) -> int {
    count += k;
    count
  };
  for (let i = 0; i < n; i += 1) { bump(i); }
  count + LIMIT
}
function Adders(n: int) -> int[] {
  let fs: ((int) -> int throws never)[] = [];
  for (let i = 0; i < n; i += 1) {
    fs.push((x: int) -> int { x + i });
  }
  fs.map((f: (int) -> int throws never) -> int { f(10) })
}
function Catches(xs: int[]) -> int {
  let total = 0;
  for (let x in xs) {
    total += (100 / x) catch (e) { baml.panics.DivisionByZero => 1000 };
  }
  total
}
function Overflow(x: int) -> int {
  (x + 4611686018427387903) catch (e) { baml.panics.IntegerOverflow => -1 }
}
"""


@pytest.mark.parametrize(("fn", "args"), [
    ("Counter", [0]), ("Counter", [5]), ("Adders", [4]), ("Catches", [[1, 0, 5, 0]]),
    ("Overflow", [0]), ("Overflow", [1]), ("Overflow", [-5]),
])
def test_closures_catch_and_constants(fn: str, args: list[Any]) -> None:
    program = ingot.load(MISC)
    compiled = outcome(CompiledVM, program, fn, args)
    assert compiled[0] == "ok"
    assert same(compiled, outcome(VM, program, fn, args))


def test_llm_functions_call_the_handler_with_the_vm() -> None:
    src = """
client Fast = openai.ChatClient.new(model = "gpt-4o-mini", api_key = "sk-test", base_url = "http://127.0.0.1:9/v1")
function Name(n: int) -> string {
  client: Fast
  prompt: `Name ${n}`
}
function Names(n: int) -> string[] {
  let out: string[] = [];
  for (let i = 0; i < n; i += 1) { out.push(Name(i)); }
  out
}
"""
    program = ingot.load(src)
    seen: list[Any] = []

    def handler(vm: VM, fn: Any, args: list[Any]) -> Any:
        seen.append((type(vm).__name__, fn.name, list(args)))
        return f"n{args[0]}"

    vm = CompiledVM(program.bex, llm=handler)
    assert vm.call(program.function("Names"), [3]) == ["n0", "n1", "n2"]
    assert seen == [("CompiledVM", "Name", [0]), ("CompiledVM", "Name", [1]), ("CompiledVM", "Name", [2])]
    with pytest.raises(BamlError) as e:
        CompiledVM(program.bex).call(program.function("Names"), [1])
    assert e.value.kind == "HostUnavailable"


def test_translation_is_cached_and_is_python() -> None:
    program = ingot.load(DOWN)
    text = source_of(program.bex)
    assert text is source_of(program.bex)
    assert "def f" in text and "while True" in text or "return" in text
    compile(text, "<check>", "exec")


PRELUDE_USER = """
function Doubled(xs: int[]) -> int[] {
  xs.map((x) => { x * 2 })
}
function Sum(xs: int[]) -> int {
  let s = 0;
  for (let x in xs) { s += x; }
  s
}
"""


def test_only_functions_a_run_can_enter_are_translated() -> None:
    program = ingot.load(PRELUDE_USER)
    bex = program.bex
    reachable = {fn.name for fn in bex.reachable()}
    # every user function and lambda, and the one prelude function the program calls
    assert {fn.name for fn in bex.functions if not fn.name.startswith("$prelude.")} <= reachable
    assert "$prelude.array_map" in reachable
    assert "$prelude.array_filter" not in reachable and "$prelude.array_sort_by" not in reachable
    text = source_of(bex)
    assert f"def f{bex.by_name['$prelude.array_map'].index}(" in text
    assert f"def f{bex.by_name['$prelude.array_filter'].index}(" not in text
    assert to_python(CompiledVM(bex).call(program.function("Doubled"), [[1, 2]])) == [2, 4]


FLOATS = """
function Cmp(a: float, b: float) -> bool[] {
  [a < b, a <= b, a > b, a >= b, a == b, a != b]
}
function Arith(a: float, b: float) -> float[] {
  [a + b, a - b, a * b, a / b, a % b, -a]
}
function Mixed(a: float, n: int) -> float {
  let s = a;
  for (let i = 0; i < n; i += 1) { s = s * 0.5 + 1.0; if (s > 1.5) { s -= 0.25; } }
  s
}
"""


@pytest.mark.parametrize("a", [0.0, -0.0, 1.5, float("nan"), float("inf"), -float("inf")])
@pytest.mark.parametrize("b", [0.0, 2.0, float("nan"), -float("inf")])
def test_float_fast_paths_keep_the_total_order_and_ieee_results(a: float, b: float) -> None:
    program = ingot.load(FLOATS)
    for fn in ("Cmp", "Arith"):
        assert same(outcome(CompiledVM, program, fn, [a, b]), outcome(VM, program, fn, [a, b]))
    assert same(outcome(CompiledVM, program, "Mixed", [a, 7]), outcome(VM, program, "Mixed", [a, 7]))
