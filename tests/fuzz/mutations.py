"""Seeded mutations of real BAML sources, for the mutation fuzzer.

`mutate(text, rng)` applies one to three edits of the kinds that break programs in
practice: a span deleted, duplicated or moved, a line repeated or dropped, a keyword,
bracket or quote inserted, text cut off mid-token, a character replaced by a control
or non-ASCII character, and the hostile shapes a compiler must survive: deep nesting,
long operator chains and else-if chains, huge literals. `corpus()` is every BAML source
in the repository's conformance corpora and examples.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TOKENS = ("{", "}", "(", ")", "[", "]", "<", ">", ",", ";", ":", ".", "=", "==", "=>", "->", "?", "|", "@",
          "@@", '"', "'", "`", "${", "#", "//", "/*", "*/", "\\", "if", "else", "for", "while", "let", "return",
          "match", "catch", "throw", "function", "class", "enum", "client", "test", "null", "true", "int",
          "string", "map<", "int[]", "?.", "!", "&&", "||", "+", "-", "*", "/", "%", "1", "-1", "1.5e308",
          "9223372036854775807", "_", "x", "self", "break", "continue", "type", "template_string")
ODD_CHARS = ("\x00", "\t", "\r", "\x0b", "\u00a0", "\u202e", "\u200b", "é", "😀", "\ufeff", "\x7f", "\u2028")


def corpus() -> list[tuple[str, str]]:
    """(name, text) of every .baml file under tests/conformance and examples, sorted by name."""
    files = sorted([*ROOT.glob("tests/conformance/**/*.baml"), *ROOT.glob("examples/**/*.baml")])
    return [(str(f.relative_to(ROOT)), f.read_text(encoding="utf-8")) for f in files]


def mutate(text: str, rng: random.Random) -> str:
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        text = rng.choice(MUTATIONS)(text, rng)
    return text


def _point(text: str, rng: random.Random) -> int:
    return rng.randrange(len(text) + 1)


def _span(text: str, rng: random.Random, longest: int = 40) -> tuple[int, int]:
    start = _point(text, rng)
    return start, min(len(text), start + rng.randint(1, longest))


def delete(text: str, rng: random.Random) -> str:
    a, b = _span(text, rng)
    return text[:a] + text[b:]


def duplicate(text: str, rng: random.Random) -> str:
    a, b = _span(text, rng)
    return text[:b] + text[a:b] + text[b:]


def move(text: str, rng: random.Random) -> str:
    a, b = _span(text, rng)
    piece, rest = text[a:b], text[:a] + text[b:]
    at = _point(rest, rng)
    return rest[:at] + piece + rest[at:]


def insert_token(text: str, rng: random.Random) -> str:
    at = _point(text, rng)
    return text[:at] + rng.choice(("", " ")) + rng.choice(TOKENS) + rng.choice(("", " ")) + text[at:]


def replace_char(text: str, rng: random.Random) -> str:
    if not text:
        return rng.choice(ODD_CHARS)
    at = rng.randrange(len(text))
    return text[:at] + rng.choice(ODD_CHARS + TOKENS) + text[at + 1:]


def truncate(text: str, rng: random.Random) -> str:
    return text[:_point(text, rng)]


def lines_edit(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    i = rng.randrange(len(lines))
    kind = rng.randrange(3)
    if kind == 0:
        del lines[i]
    elif kind == 1:
        lines[i:i] = [lines[i]] * rng.randint(2, 50)
    else:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def deep_nesting(text: str, rng: random.Random) -> str:
    """Wrap the first expression-looking spot in parens, brackets or blocks, 50 to 1,500 deep."""
    depth = rng.choice((50, 200, 600, 1500))
    open_, close = rng.choice((("(", ")"), ("[", "]"), ("{ ", " }"), ("-", ""), ("!", "")))
    at = text.find("return ")
    at = at + len("return ") if at >= 0 else _point(text, rng)
    end = text.find(";", at)
    end = end if end >= 0 else at
    return text[:at] + open_ * depth + text[at:end] + close * depth + text[end:]


def long_chain(text: str, rng: random.Random) -> str:
    """A 300- to 3,000-term operator chain, else-if chain or array literal, as a new function."""
    n = rng.choice((300, 1000, 3000))
    shape = rng.randrange(3)
    if shape == 0:
        body = " + ".join(str(i % 10) for i in range(n))
    elif shape == 1:
        body = " else ".join(f"if (x == {i}) {{ {i} }}" for i in range(n)) + " else { -1 }"
    else:
        body = "[" + ", ".join(str(i) for i in range(n)) + "].length()"
    return text + f"\nfunction ChainF(x: int) -> int {{\n  {body}\n}}\n"


def huge_literal(text: str, rng: random.Random) -> str:
    digits = rng.choice((20, 400, 5000, 50000))
    literal = rng.choice(("9" * digits, "1." + "5" * digits, "1e" + "9" * min(digits, 400), '"' + "a" * digits + '"'))
    at = _point(text, rng)
    return text[:at] + literal + text[at:]


MUTATIONS: tuple[Callable[[str, random.Random], str], ...] = (
    delete, delete, duplicate, move, insert_token, insert_token, insert_token, replace_char, replace_char,
    truncate, lines_edit, lines_edit, deep_nesting, long_chain, huge_literal)
