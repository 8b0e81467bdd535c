"""Long `else if` chains and `&&`/`||` chains: thousands of links compile, run, and are typed and
narrowed as short ones are (each operand sees what the operands before it establish).

The engine itself stops compiling such chains at about 570 links (tests/syntax/deep/programs.py),
so the long programs here are checked for what the language says they do (the interpreter runs
them; the first test runs the compiled tier too); the short forms of the diagnostics are the
engine's (an ordering of `int | null` is E0004 at the operator's operands).
"""

from __future__ import annotations

import pytest

import ingot
from ingot.syntax.diagnostics import Code, CompileError

LINKS = 3000


def _diagnostics(source: str) -> list[tuple[Code, int, int, str | None]]:
    with pytest.raises(CompileError) as info:
        ingot.load_source(source)
    return [(d.code, d.span.start.line, d.span.start.column, d.primary) for d in info.value.diagnostics]


def else_if_literals(n: int, last_else: bool = True) -> str:
    links = " else ".join(f'if (x == {i}) {{ "s{i}" }}' for i in range(n))
    tail = ' else { "none" }' if last_else else ""
    return f"function F(x: int) -> string {{\n  {links}{tail}\n}}\n"


def test_an_else_if_chain_of_thousands_of_distinct_literals_compiles_and_runs() -> None:
    program = ingot.load_source(else_if_literals(LINKS))
    for tier in ("compiled", "interp"):
        for x, want in ((0, "s0"), (1500, "s1500"), (LINKS - 1, f"s{LINKS - 1}"), (LINKS, "none"), (-1, "none")):
            assert program.run("F", {"x": x}, tier=tier) == want


def test_the_chain_has_the_union_of_its_branch_types() -> None:
    """Without a last `else` the chain may be null: the mismatch names every branch's literal
    type, in order, then null."""
    ((code, line, _, primary),) = _diagnostics(else_if_literals(LINKS, last_else=False))
    found = " | ".join(f'"s{i}"' for i in range(LINKS)) + " | null"
    assert (code, line, primary) == (Code.MISMATCH, 1, f"expected `string`, found `{found}`")


def test_a_diverging_link_adds_nothing_to_the_chain_type() -> None:
    links = " else ".join(f'if (x == {i}) {{ return "r{i}"; }}' if i % 2 else f'if (x == {i}) {{ "s{i}" }}'
                          for i in range(LINKS))
    ((_, _, _, primary),) = _diagnostics(f"function F(x: int) -> string {{\n  {links}\n}}\n")
    found = " | ".join(f'"s{i}"' for i in range(0, LINKS, 2)) + " | null"
    assert primary == f"expected `string`, found `{found}`"


def test_each_link_sees_every_earlier_condition_false() -> None:
    """`if (x == null) {..} else if (...) {..} ... else { x + 1 }`: the last branch knows x is not null."""
    links = " else ".join(f"if (x > {i}) {{ {i} }}" for i in range(LINKS))
    source = f"function F(x: int?) -> int {{\n  if (x == null) {{ -1 }} else {links} else {{ x + 1 }}\n}}\n"
    program = ingot.load_source(source)
    assert [program.run("F", {"x": x}, tier="interp") for x in (None, 5, -4)] == [-1, 0, -3]


def and_chain(n: int, y_test: bool = True) -> str:
    """`x != null && x > 0 && y != null && y > 1 && ...`, n terms."""
    terms = []
    for i in range(n // 2):
        v = "xy"[i % 2]
        terms.append(f"{v} != null" if y_test or v == "x" else "true")
        terms.append(f"{v} > {i}")
    return f"function F(x: int?, y: int?) -> bool {{\n  {' && '.join(terms)}\n}}\n"


def test_a_long_and_chain_narrows_each_term_by_the_ones_before_it() -> None:
    program = ingot.load_source(and_chain(LINKS))
    for x, y, want in ((10**6, 10**6, True), (10**6, None, False), (10**6, 100, False), (None, 10**6, False)):
        assert program.run("F", {"x": x, "y": y}, tier="interp") is want


def test_a_term_before_its_null_test_is_reported_once_at_its_position() -> None:
    """Without the `y != null` terms every `y > i` orders `int | null`: one diagnostic each, in order."""
    source = and_chain(LINKS, y_test=False)
    diagnostics = _diagnostics(source)
    assert len(diagnostics) == LINKS // 4
    assert {code for code, *_ in diagnostics} == {Code.BAD_OPERATOR}
    first = source.splitlines()[1].index("y > 1") + 1
    assert diagnostics[0][1:3] == (2, first)
    columns = [column for _, _, column, _ in diagnostics]
    assert columns == sorted(columns)


def test_a_long_or_chain_narrows_the_else_branch() -> None:
    """`if (x == null || y == null || x < 0 || ...) {..} else { x + y }`: else knows both are ints."""
    terms = " || ".join(["x == null", "y == null"] + [f"x < {-i}" for i in range(LINKS)])
    program = ingot.load_source(f"function F(x: int?, y: int?) -> int {{\n  if ({terms}) {{ 0 }} else {{ x + y }}\n}}\n")
    cases = ((None, 1), (2, None), (-1, 3), (2, 3))
    assert [program.run("F", {"x": x, "y": y}, tier="interp") for x, y in cases] == [0, 0, 0, 5]


def test_an_assignment_inside_a_chain_ends_the_narrowing_after_it() -> None:
    """As the engine reports it: `x` is no longer known non-null once an operand assigns it."""
    source = ("function F(x: int?) -> int {\n  if (x == null) { return 0; }\n"
              "  if (x > 0 && { x = null; true } && x > 1) { 1 } else { 2 }\n}\n")
    assert [(code, line, column) for code, line, column, _ in _diagnostics(source)] == [(Code.BAD_OPERATOR, 3, 38)]
