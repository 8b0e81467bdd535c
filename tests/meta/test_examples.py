"""The annotated examples and the docs: they compile (ours and the real engine) and run as shown."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import ingot
from ingot.cli_meta import call_command, meta_command
from ingot.syntax.annotations import harvest
from ingot.syntax.diagnostics import SourceFile

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "annotations.md"
EXAMPLES = sorted((ROOT / "examples" / "annotations").glob("*.baml"))


def doc_blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)


SOURCES = [(p.name, p.read_text(encoding="utf-8")) for p in EXAMPLES] + [
    (f"annotations.md#{i}", text) for i, text in enumerate(doc_blocks("baml"))]


@pytest.mark.parametrize(("name", "text"), SOURCES, ids=[n for n, _ in SOURCES])
def test_stripped_source_compiles_on_the_real_engine(name: str, text: str) -> None:
    b = pytest.importorskip("baml_bridge")
    h = harvest(SourceFile(name, text))
    assert h.annotations and not h.diagnostics
    assert len(h.text) == len(text) and [m.start() for m in re.finditer("\n", h.text)] == [
        m.start() for m in re.finditer("\n", text)]  # offsets kept
    assert "@ingot" not in h.text and "@@ingot" not in h.text
    ingot.load(text, filename="main.baml")
    b.BamlRuntime.initialize_runtime(".", {"main.baml": h.text})  # raises on a compile error


def test_examples_are_documented() -> None:
    doc = DOC.read_text(encoding="utf-8")
    for path in EXAMPLES:
        assert f"examples/annotations/{path.name}" in doc


def console_sessions() -> list[tuple[str, str]]:
    """(command, expected stdout) for each `$ ingot ...` line of the docs' console blocks."""
    out = []
    for block in doc_blocks("console"):
        for chunk in re.split(r"^\$ ", block, flags=re.M)[1:]:
            command, _, output = chunk.partition("\n")
            out.append((command, output))
    return out


@pytest.fixture
def ingot_cli() -> click.Group:
    group = click.Group("ingot", context_settings={"help_option_names": ["-h", "--help"]})
    group.add_command(meta_command)
    group.add_command(call_command)
    return group


@pytest.mark.parametrize(("command", "expected"), console_sessions(), ids=[c for c, _ in console_sessions()])
def test_documented_commands_print_what_the_docs_show(command: str, expected: str, ingot_cli: click.Group,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    argv = shlex.split(command)
    assert argv[0] == "ingot"
    result = CliRunner().invoke(ingot_cli, argv[1:], prog_name="ingot", terminal_width=80, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    if expected:
        assert result.stdout == expected
