"""Generated command lines: options from signatures, help snapshots, usage errors, results."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import ingot
from ingot.cli_meta import call_command
from ingot.meta.cli_gen import build_command, option_name

ROOT = Path(__file__).resolve().parents[2]
TEXTKIT = ROOT / "examples" / "annotations" / "textkit.baml"
SNAPSHOTS = Path(__file__).parent / "snapshots"


def call(*args: str, file: Path = TEXTKIT) -> tuple[int, str, str]:
    result = CliRunner().invoke(call_command, [str(file), *args], prog_name="ingot call",
                                terminal_width=80, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def matches_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / f"{name}.txt"
    if os.environ.get("INGOT_BLESS") == "1":
        path.write_text(text, encoding="utf-8")
    assert path.is_file(), f"no snapshot {path.name}; run with INGOT_BLESS=1 to write it"
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("function", ["Slug", "Count", "Recase", "Join", "CharAt"])
def test_function_help_snapshot(function: str) -> None:
    code, out, _ = call(function, "--help")
    assert code == 0
    matches_snapshot(f"textkit_{function.lower()}_help", out)


def test_group_help_and_list_snapshots() -> None:
    code, out, _ = call("--help")
    assert code == 0
    matches_snapshot("textkit_help", out)
    code, out, _ = call("--list")
    assert code == 0
    matches_snapshot("textkit_list", out)


def test_help_text_comes_from_annotations_and_doc_comments() -> None:
    _, out, _ = call("Slug", "--help")
    assert "Keeps letters and digits" in out  # @@ingot(cli.help=...) wins over the /// doc
    assert "-t, --title TEXT" in out and "[required]" in out  # cli.short, required
    assert "-n, --max-len INTEGER" in out  # max_len -> --max-len, optional int
    _, out, _ = call("Recase", "--help")
    assert "Change the letter case of every word." in out  # the /// doc comment
    assert "--to [LOWER|UPPER|TITLE]" in out  # enum choices


def test_calls_print_json() -> None:
    assert call("Slug", "-t", "Hello, BAML World!") == (0, '"hello-baml-world"\n', "")
    assert call("Slug", "--title", "Hello, BAML World!", "--sep", "_", "-n", "10")[1] == '"hello_baml"\n'
    code, out, _ = call("Count", "--text", "a b a\nc", "--unique")
    assert code == 0 and json.loads(out) == {"words": 3, "lines": 2, "chars": 7}
    assert json.loads(call("Count", "--text", "a b a")[1])["words"] == 3  # a bool flag is false unless given
    assert call("Recase", "--text", "hello wORLD", "--to", "TITLE")[1] == '"Hello World"\n'
    assert call("Join", "--words", '["a", "b"]', "-s", "+")[1] == '"a+b"\n'


def test_json_options_read_files(tmp_path: Path) -> None:
    words = tmp_path / "words.json"
    words.write_text('["x", "y"]')
    assert call("Join", "--words", f"@{words}", "-s", "/")[1] == '"x/y"\n'


@pytest.mark.parametrize(("args", "message"), [
    (["Slug", "-t", "x", "-n", "many"], "Invalid value for '--max-len' / '-n': 'many' is not a valid integer."),
    (["Slug"], "Missing option '--title' / '-t'."),
    (["Recase", "--text", "x", "--to", "CAMEL"], "Invalid value for '--to': 'CAMEL' is not one of 'LOWER', 'UPPER', 'TITLE'."),
    (["Join", "--words", "[1", "-s", ","], "Invalid value for '--words': invalid JSON"),
    (["Join", "--words", '["a", 1]', "-s", ","], "Invalid value for '--words': words[1]: expected string, got 1"),
    (["Join", "--words", "[]", "-s", ",", "--nope", "1"], "No such option '--nope'."),
])
def test_bad_values_are_usage_errors_naming_the_option(args: list[str], message: str) -> None:
    code, out, err = call(*args)
    assert code == 2 and out == ""
    assert f"Usage: ingot call PATH... {args[0]} [OPTIONS]" in err
    assert f"Error: {message}" in err


def test_unknown_function_lists_the_known_ones() -> None:
    code, _, err = call("Slugify")
    assert code == 2 and "no function `Slugify`" in err and "(functions: Slug, Count, Recase, Join, CharAt)" in err


def test_a_panic_prints_the_baml_trace_and_exits_1() -> None:
    code, out, err = call("CharAt", "--text", "abc", "-i", "5")
    assert code == 1 and out == ""
    assert err.startswith("Traceback (most recent call last):\n")
    assert 'textkit.baml", line' in err
    assert err.rstrip().endswith("baml.panics.IndexOutOfBounds: IndexOutOfBounds { index: 5, length: 3 }")


def test_without_a_function_it_shows_the_functions() -> None:
    code, out, _ = call()
    assert code == 0 and "Functions:" in out and "Slug    Turn a title into a URL slug." in out


def test_option_names() -> None:
    assert option_name("max_tokens") == "--max-tokens"
    assert option_name("maxTokens") == "--max-tokens"
    assert option_name("x") == "--x"
    assert option_name("HTTPPort") == "--httpport"


def test_optional_bools_aliases_and_literal_choices() -> None:
    program = ingot.load('type Id = string\nfunction F(on: bool?, id: Id, mode: "fast" | "slow", n: int[]?) -> string {\n'
                         '  `${string.from(on)}/${id}/${mode}/${string.from(n)}`\n}')
    cmd = build_command(program, "F")
    runner = CliRunner()
    res = runner.invoke(cmd, ["--id", "k", "--mode", "fast"], prog_name="F")
    assert res.exit_code == 0 and json.loads(res.stdout) == "null/k/fast/null"
    res = runner.invoke(cmd, ["--no-on", "--id", "k", "--mode", "slow", "--n", "[1,2]"], prog_name="F")
    assert res.exit_code == 0 and json.loads(res.stdout) == "false/k/slow/[1, 2]"
    assert "--mode [fast|slow]" in runner.invoke(cmd, ["--help"]).stdout
    res = runner.invoke(cmd, ["--id", "k", "--mode", "medium"])
    assert res.exit_code == 2


def test_short_option_h_moves_help_to_long_form_only() -> None:
    program = ingot.load('function F(height: int @ingot(cli.short="h")) -> int {\n  height\n}')
    cmd = build_command(program, "F")
    assert CliRunner().invoke(cmd, ["-h", "3"]).stdout == "3\n"
    assert "-h, --height INTEGER" in CliRunner().invoke(cmd, ["--help"]).stdout


def test_bad_cli_keys_are_reported(tmp_path: Path) -> None:
    path = tmp_path / "bad.baml"
    path.write_text('function F(a: int @ingot(cli.short="ab"), b: int @ingot(cli.hlep="x")) -> int {\n  a\n}')
    code, _, err = call("F", "--help", file=path)
    assert code == 1
    assert "`F.a`: `cli.short` must be one letter or digit, got 'ab'" in err
    assert "`F.b`: unknown key `cli.hlep`; did you mean `cli.help`?" in err


def test_class_parameters_take_json_and_errors_name_the_nested_field() -> None:
    geometry = ROOT / "examples" / "annotations" / "geometry.baml"
    triangle = '{"corners": [{"x": 0, "y": 0}, {"x": 4, "y": 0}, {"x": 4, "y": 3}]}'
    code, out, _ = call("Measure", "--polygon", triangle, file=geometry)
    assert code == 0 and json.loads(out) == {"label": None, "area": 6.0, "perimeter": 12.0}
    code, _, err = call("Measure", "--polygon", '{"corners": [{"x": "0", "y": 0}]}', file=geometry)
    assert code == 2
    assert "Error: Invalid value for '--polygon': polygon.corners[0].x: expected float, got \"0\"" in err
    code, out, _ = call("Convert", "--length", '{"value": 1, "unit": "M"}', "--to", "CM", file=geometry)
    assert code == 0 and json.loads(out) == {"value": 100.0, "unit": "CM"}
