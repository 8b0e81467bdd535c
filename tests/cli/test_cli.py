"""The `ingot` command line, driven in-process through click's runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ingot.cli import main

ROOT = Path(__file__).resolve().parents[2]
# Every example program: a lone .baml file, or a baml_src/ project directory.
EXAMPLES = sorted({p.parent if "baml_src" in p.parts else p for p in (ROOT / "examples").rglob("*.baml")})
ENGINE = ROOT / "tests" / "conformance" / "engine"


def invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("command", ["check", "run", "mir", "dis"])
def test_every_command_has_help(command: str) -> None:
    code, out, _ = invoke(command, "--help")
    assert code == 0
    assert "Usage: main " + command in out or f"Usage: ingot {command}" in out or "Usage:" in out


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(ROOT / "examples")))
def test_examples_check_mir_and_dis(path: Path) -> None:
    assert invoke("check", str(path))[0] == 0
    code, out, _ = invoke("mir", str(path))
    assert code == 0 and "bb0: {" in out
    code, out, _ = invoke("dis", str(path))
    assert code == 0 and "RETURN" in out


def test_corpus_programs_check_mir_and_dis() -> None:
    for path in sorted(ENGINE.glob("*.baml")):
        for command in ("check", "mir", "dis"):
            code, _, err = invoke(command, str(path))
            assert code == 0, f"{command} {path.name}: {err}"


def test_run_prints_result_as_json() -> None:
    args = json.dumps({"t": {"severity": 9, "title": "db down", "tier": "ENTERPRISE"}})
    code, out, _ = invoke("run", str(ROOT / "examples" / "tickets.baml"), "Triage", "--args", args)
    assert code == 0
    assert json.loads(out) == {"queue": "incident", "page": True, "score": 230}


def test_run_reads_args_from_a_file(tmp_path: Path) -> None:
    args = tmp_path / "args.json"
    args.write_text(json.dumps({"docs": [{"id": 1, "tokens": 3}, {"id": 2, "tokens": 3}], "max_tokens": 4}))
    code, out, _ = invoke("run", str(ROOT / "examples" / "packing.baml"), "Pack", "--args", f"@{args}")
    assert code == 0
    assert json.loads(out) == [{"docs": [1], "used": 3}, {"docs": [2], "used": 3}]


def test_run_panic_prints_trace_and_exits_1(tmp_path: Path) -> None:
    src = tmp_path / "div.baml"
    src.write_text("function Inner(x: int) -> int {\n  10 / x\n}\nfunction Outer(x: int) -> int {\n  Inner(x) + 1\n}\n")
    code, out, err = invoke("run", str(src), "Outer", "--args", '{"x": 0}')
    assert code == 1
    assert 'File "div.baml", line 5, in user.Outer' in err
    assert 'File "div.baml", line 2, in user.Inner' in err
    assert "baml.panics.DivisionByZero" in err
    code, out, _ = invoke("run", str(src), "Outer", "--args", '{"x": 0}', "--json")
    assert code == 1
    error = json.loads(out)["error"]
    assert error["kind"] == "DivisionByZero"
    assert error["trace"][-1] == 'File "div.baml", line 2, in user.Inner'


def test_run_json_value() -> None:
    code, out, _ = invoke("run", str(ENGINE / "fib.baml"), "Fib", "--args", '{"n": 10}', "--json")
    assert code == 0 and json.loads(out) == {"value": 55}


@pytest.mark.parametrize("args, message", [
    ('{"t": {"severity": "x", "title": "a", "tier": "PRO"}}', 'args.t.severity: expected int, got "x"'),
    ('{"t": {"severity": 1, "title": "a", "tier": "GOLD"}}', "args.t.tier: expected one of FREE, PRO, ENTERPRISE"),
    ('{"t": {"severity": 1, "tier": "PRO"}}', "args.t.title: missing required field"),
    ('{}', "args.t: missing required argument"),
    ('{"t": {"severity": 1, "title": "a", "tier": "PRO"}, "u": 1}', "args.u: Triage has no parameter `u`"),
])
def test_bad_arguments_name_the_field(args: str, message: str) -> None:
    code, _, err = invoke("run", str(ROOT / "examples" / "tickets.baml"), "Triage", "--args", args)
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_bad_json_is_a_usage_error() -> None:
    code, _, err = invoke("run", str(ENGINE / "fib.baml"), "Fib", "--args", "{n: 1}")
    assert code == 2 and "invalid JSON" in err


def test_unknown_function_lists_the_functions() -> None:
    code, _, err = invoke("run", str(ENGINE / "fib.baml"), "Nope")
    assert code == 1 and "functions: Fib" in err


def test_check_reports_all_errors_with_carets(tmp_path: Path) -> None:
    bad = tmp_path / "bad.baml"
    bad.write_text("function F(x: int) -> bool { x }\nfunction G() -> int { H() }\n")
    code, _, err = invoke("check", str(bad))
    assert code == 1
    assert "error[E0001]: mismatched types" in err
    assert "error[E0003]: unresolved name: `H`" in err
    assert "--> bad.baml:1:28" in err and "^" in err
    assert "2 errors" in err


def test_check_many_files_exits_1_if_any_fails(tmp_path: Path) -> None:
    bad = tmp_path / "bad.baml"
    bad.write_text("function F() -> int { \"x\" }\n")
    code, _, _ = invoke("check", str(ENGINE / "fib.baml"), str(bad))
    assert code == 1
    assert invoke("check", str(ENGINE / "fib.baml"), str(ENGINE / "gcd.baml"))[0] == 0


def test_mir_of_one_function_and_unknown_function() -> None:
    code, out, _ = invoke("mir", str(ENGINE / "fib.baml"), "Fib")
    assert code == 0 and out.startswith("fn Fib(_1: int) -> int {")
    code, _, err = invoke("mir", str(ENGINE / "fib.baml"), "Nope")
    assert code == 1 and "no function `Nope`" in err


def test_a_refused_host_import_is_a_clear_error_in_test_and_not_needed_by_prompt(tmp_path: Path) -> None:
    src = tmp_path / "host.baml"
    src.write_text('function Cwd() -> string {\n  @@ingot(host="os:getcwd")\n  ""\n}\n'
                   'client C = openai.ChatClient.new(model = "m")\n'
                   'function Ask(q: string) -> string {\n  client: C\n  prompt: `${q}`\n}\n'
                   'test "cwd" {\n  assert.equal(Cwd(), "")\n}\n')
    code, out, err = invoke("test", str(src))
    assert code == 1, (out, err)
    assert "wants to run Python host functions (Cwd -> os:getcwd)" in out + err and "Traceback" not in out + err
    # rendering a prompt runs no host function: it needs none imported
    code, out, err = invoke("prompt", str(src), "Ask", "--args", '{"q": "x"}')
    assert code == 0, (out, err)


def test_explore_prints_the_programs_brackets_as_written(tmp_path: Path) -> None:
    """Source text, messages and values reach the terminal as written: `xs[i]` keeps its `[i]`
    (rich's markup would take it for an italic tag) and a string value holding `[/]` prints."""
    src = tmp_path / "pick.baml"
    src.write_text('function Pick(xs: int[], i: int, tag: string) -> int {\n'
                   '  if (xs[i] > 100 && tag != "[/]") {\n'
                   '    return 1;\n'
                   '  }\n'
                   '  0\n'
                   '}\n')
    code, out, _ = invoke("explore", str(src), "Pick", "--max-runs", "1")
    assert code == 0
    assert "IndexOutOfBounds" in out
    assert "`xs[i] > 100`" in out
    assert 'tag != "[/]"' in out


def test_explore_of_every_function_prints_a_panic_message_as_written(tmp_path: Path) -> None:
    src = tmp_path / "tag.baml"
    src.write_text('function Tag(label: string) -> string {\n'
                   '  if (label.length() > 3) {\n'
                   '    baml.sys.panic("bad [/] label [i]" + label);\n'
                   '  }\n'
                   '  label\n'
                   '}\n')
    code, out, _ = invoke("explore", str(src))
    assert code == 0
    assert "UserPanic in Tag: bad [/] label [i]" in out


@pytest.mark.parametrize("option, value", [("--max-len", "-1"), ("--max-string-length", "-5"), ("--max-runs", "0"),
                                           ("--timeout", "nan"), ("--timeout", "inf"), ("--timeout", "0")])
def test_explore_rejects_a_budget_out_of_range_naming_the_option(option: str, value: str) -> None:
    code, _, err = invoke("explore", str(ROOT / "examples" / "tickets.baml"), "Triage", option, value)
    assert code == 2
    assert f"Invalid value for '{option}'" in err and "Traceback" not in err


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_run_rejects_a_timeout_that_is_not_a_finite_number_of_seconds(value: str) -> None:
    code, _, err = invoke("run", str(ENGINE / "fib.baml"), "Fib", "--args", '{"n": 3}', "--timeout", value)
    assert code == 2 and "Invalid value for '--timeout'" in err
