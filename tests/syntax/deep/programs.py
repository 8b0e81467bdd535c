"""Deeply nested and very long BAML programs, generated at a given size.

Each CASES entry is (generator, size, arguments): a size the BAML engine (baml_bridge 0.23)
compiles and runs. Measured on the engine, run on a main thread with an 8 MB stack: it
crashes (a native stack overflow) from about 190 nested `if`s, 570 nested parentheses, a
570-link `else if` chain or a 570-term sum. record.py stores the engine's results in
expected.json; test_deep_nesting.py checks ingot against them.
"""

from __future__ import annotations

from collections.abc import Callable


def nested_if(n: int) -> str:
    """`if (x > 0) { if (x > 1) { ... x ... } else { 1 } } else { 0 }`: n levels."""
    body = "x"
    for i in reversed(range(n)):
        body = f"if (x > {i}) {{ {body} }} else {{ {i} }}"
    return f"function F(x: int) -> int {{\n  {body}\n}}\n"


def nested_parens(n: int) -> str:
    return f"function F(x: int) -> int {{\n  {'(' * n}x + 1{')' * n}\n}}\n"


def else_if_chain(n: int) -> str:
    """`if (x == 0) { 0 } else if (x == 1) { 2 } ... else { -1 }`: n links."""
    links = " else ".join(f"if (x == {i}) {{ {i * 2} }}" for i in range(n))
    return f"function F(x: int) -> int {{\n  {links} else {{ -1 }}\n}}\n"


def sum_terms(n: int) -> str:
    return f"function F(x: int) -> int {{\n  {' + '.join(['x'] * n)}\n}}\n"


def nested_blocks(n: int) -> str:
    return f"function F(x: int) -> int {{\n  {'{ ' * n}x{' }' * n}\n}}\n"


def array_literal(n: int) -> str:
    return (f"function F(x: int) -> int {{\n  let a = [{', '.join(str(i) for i in range(n))}];\n"
            "  a[x] + a.length()\n}\n")


def match_arms(n: int) -> str:
    arms = ", ".join(f"{i} => {i * 3}" for i in range(n))
    return f"function F(x: int) -> int {{\n  match (x) {{ {arms}, _ => -1 }}\n}}\n"


GENERATORS: dict[str, Callable[[int], str]] = {
    "nested_if": nested_if,
    "nested_parens": nested_parens,
    "else_if_chain": else_if_chain,
    "sum_terms": sum_terms,
    "nested_blocks": nested_blocks,
    "array_literal": array_literal,
    "match_arms": match_arms,
}

# name -> (generator, size, the arguments of each case)
CASES: dict[str, tuple[str, int, list[dict[str, int]]]] = {
    "nested_if_180": ("nested_if", 180, [{"x": -1}, {"x": 3}, {"x": 179}, {"x": 500}]),
    "nested_parens_550": ("nested_parens", 550, [{"x": 0}, {"x": -7}]),
    "else_if_chain_540": ("else_if_chain", 540, [{"x": 0}, {"x": 271}, {"x": 539}, {"x": 540}]),
    "sum_terms_550": ("sum_terms", 550, [{"x": 1}, {"x": -3}]),
    "nested_blocks_150": ("nested_blocks", 150, [{"x": 4}]),
    "array_literal_5000": ("array_literal", 5000, [{"x": 0}, {"x": 4999}, {"x": 5000}]),
    "match_arms_2000": ("match_arms", 2000, [{"x": 0}, {"x": 1999}, {"x": 2000}]),
}


def source(name: str) -> str:
    generator, size, _ = CASES[name]
    return GENERATORS[generator](size)
