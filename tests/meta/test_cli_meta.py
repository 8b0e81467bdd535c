"""`ingot meta` and the error paths of `ingot mcp` (serving itself is tested over stdio)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from ingot.cli_meta import mcp_command, meta_command

ROOT = Path(__file__).resolve().parents[2]
GEOMETRY = ROOT / "examples" / "annotations" / "geometry.baml"


def invoke(command, *args: str) -> tuple[int, str, str]:  # noqa: ANN001
    result = CliRunner().invoke(command, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "main.baml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_meta_json_is_keyed_by_item() -> None:
    code, out, _ = invoke(meta_command, str(GEOMETRY), "--json")
    assert code == 0
    meta = json.loads(out)
    assert meta["RectangleArea.width"] == {"mcp": {"description": "Width, in any unit"}}
    assert meta["RectangleArea"] == {"mcp": {"tool": True, "title": "Rectangle area", "readOnlyHint": True,
                                             "idempotentHint": True, "openWorldHint": False}}
    assert "Millimetres" not in meta


def test_meta_text_lists_dotted_keys_per_item(tmp_path: Path) -> None:
    src = ('class C {\n  x int @ingot(ui.label="X", n=2)\n  @@ingot(tags=["a", "b"])\n}\n'
           'enum E {\n  A @ingot(hidden)\n}\n')
    code, out, _ = invoke(meta_command, write(tmp_path, src))
    assert code == 0
    assert out == 'C.x\n  ui.label = "X"\n  n = 2\nC\n  tags = ["a", "b"]\nE.A\n  hidden = true\n'


def test_meta_without_annotations(tmp_path: Path) -> None:
    path = write(tmp_path, "function F() -> int { 1 }\n")
    assert invoke(meta_command, path)[1] == f"no @ingot annotations in {path}\n"
    assert json.loads(invoke(meta_command, path, "--json")[1]) == {}


def test_meta_reports_malformed_annotations(tmp_path: Path) -> None:
    code, _, err = invoke(meta_command, write(tmp_path, 'function F(x: int @ingot(a="b)) -> int {\n  x\n}\n'))
    assert code == 1 and "malformed `@ingot` annotation: unterminated string" in err and "main.baml:1:19" in err


def test_mcp_without_tools_says_how_to_mark_one(tmp_path: Path) -> None:
    code, _, err = invoke(mcp_command, write(tmp_path, "function F() -> int { 1 }\n"))
    assert code == 1 and "no functions to serve" in err and "@@ingot(mcp.tool)" in err


def test_mcp_reports_bad_keys_before_serving(tmp_path: Path) -> None:
    path = write(tmp_path, "function F() -> int {\n  @@ingot(mcp.tool, mcp.readOnly=true)\n  1\n}\n")
    code, _, err = invoke(mcp_command, path)
    assert code == 1
    assert err == "error: `F`: unknown key `mcp.readOnly`; did you mean `mcp.readOnlyHint`?\n"
