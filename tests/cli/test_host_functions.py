"""Host functions named in source: run as entry points on both tiers, and every command that loads
such a program says what it needs instead of failing."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import ingot
from ingot.cli import main

SOURCE = """
function BaseName(path: string) -> string {
  @@ingot(host="os.path:basename")
  path
}
function Shout(path: string) -> string {
  BaseName(path) + "!"
}
test "basename" {
  assert.equal(Shout("docs/readme.md"), "readme.md!")
}
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "paths.baml"
    path.write_text(SOURCE)
    return path


@pytest.mark.parametrize("tier", ["compiled", "interp"])
def test_a_host_function_is_callable_as_the_entry_point(project: Path, tier: str) -> None:
    program = ingot.load(project, allow_hosts=True).options(tier=tier)
    assert program.call("BaseName", path="a/b.txt") == "b.txt"
    assert program.call("Shout", path="a/b.txt") == "b.txt!"


def test_ingot_test_imports_hosts_only_when_allowed(project: Path) -> None:
    refused = CliRunner().invoke(main, ["test", str(project)])
    assert refused.exit_code == 1
    assert "needs --allow-hosts" in refused.output and "os.path:basename" in refused.output
    allowed = CliRunner().invoke(main, ["test", str(project), "--allow-hosts"])
    assert allowed.exit_code == 0, allowed.output
    assert "1 passed" in allowed.output


def test_ingot_prompt_needs_no_host_function(tmp_path: Path) -> None:
    path = tmp_path / "llm.baml"
    path.write_text(SOURCE + """
client Fast = openai.ChatClient.new(model = "gpt-4o-mini")
function Describe(path: string) -> string {
  client: Fast
  prompt: `Describe ${path}`
}
""")
    result = CliRunner().invoke(main, ["prompt", str(path), "Describe", "--args", '{"path": "x"}', "--text"])
    assert result.exit_code == 0, result.output
    assert "Describe x" in result.output
