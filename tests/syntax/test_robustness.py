"""Bad source never produces a Python traceback: truncated and mangled versions of every
corpus program (every third in the default run) either compile or raise CompileError with
positioned diagnostics."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import ingot
from ingot.syntax.diagnostics import CompileError

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "tests" / "conformance" / "engine"
PROGRAMS = sorted(SHARED.glob("*.baml")) + sorted((ROOT / "tests" / "conformance" / "extra").glob("*.baml"))


def variants(text: str, seed: int) -> list[str]:
    """Truncations at several points, deleted and duplicated characters, swapped lines."""
    rng = random.Random(seed)
    out = [text[: len(text) * k // 7] for k in range(1, 7)]
    for _ in range(6):
        i = rng.randrange(len(text))
        out.append(text[:i] + text[i + 1 :])
        out.append(text[:i] + text[i] * 2 + text[i:])
        j = rng.randrange(len(text))
        out.append(text[:i] + rng.choice("{}()[];,.=<>\"`$@#") + text[j:])
    lines = text.splitlines()
    if len(lines) > 2:
        a, b = rng.sample(range(len(lines)), 2)
        lines[a], lines[b] = lines[b], lines[a]
        out.append("\n".join(lines))
    return out


# The default run mangles every third corpus program (a spread over the whole corpus); `-m slow`
# the rest too.
SAMPLED = [p if i % 3 == 0 else pytest.param(p, marks=pytest.mark.slow) for i, p in enumerate(PROGRAMS)]


@pytest.mark.parametrize("path", SAMPLED, ids=lambda p: p.stem)
def test_mangled_source_gets_diagnostics_not_tracebacks(path: Path) -> None:
    text = path.read_text()
    for i, variant in enumerate(variants(text, seed=hash(path.name) & 0xFFFF)):
        try:
            ingot.load_source(variant)
        except CompileError as e:
            assert e.diagnostics, f"variant {i}: CompileError without diagnostics"
            for d in e.diagnostics:
                pos = d.span.start
                assert pos.line >= 1 and pos.column >= 1
                assert "-->" in d.render() and "^" in d.render()


# Found by deleting one character at every offset of the interface programs: an implementation
# whose method name lost a letter, called through the interface, and `self` with a type but no colon.
MISTAKES = {
    "implementation missing a method": (
        "interface Tool {\n  function name(self) -> string throws never\n}\nclass Echo { }\n"
        "implements Tool for Echo {\n  function nme(self) -> string throws never { \"echo\" }\n}\n"
        "function Run() -> string {\n  let t: Tool = Echo { };\n  t.name()\n}\n", "E0113"),
    "self with a type and no colon": ("function F(self int) -> int { self }\n", "E0010"),
}


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_mistakes_found_by_deleting_characters_are_diagnostics(name: str) -> None:
    source, code = MISTAKES[name]
    with pytest.raises(CompileError) as info:
        ingot.load_source(source)
    assert code in {d.code.value for d in info.value.diagnostics}
