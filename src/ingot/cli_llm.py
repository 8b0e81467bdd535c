"""`ingot test` and `ingot prompt`: click commands the main `ingot` group registers.

    ingot test PATH... [-k PATTERN] [--llm FUNC=REPLY|@FILE ...] [--json]
    ingot prompt PATH... FUNC [--args JSON|@FILE]

PATH is a .baml file or a directory of them; several PATHs compile as one program.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from ingot.cli_limits import call_options, limit_options

PATHS = click.Path(exists=True, path_type=Path)
PROJECT_HELP = "PATH is a .baml file or a directory of them; several PATHs compile as one program."


def parse_llm_options(specs: tuple[str, ...]) -> dict[str, Any]:
    """`--llm F=REPLY` / `--llm F=@reply.json`: a mock per LLM function.

    Text is a raw model reply; a `.json` file holds a value (a JSON string in it is
    a raw reply). Repeating `--llm F=...` gives one reply per call, in order
    (`ingot.llm.Replies`); a single one answers every call.
    """
    from ingot.llm.mocks import Replies

    replies: dict[str, list[Any]] = {}
    for spec in specs:
        name, sep, reply = spec.partition("=")
        if not sep or not name:
            raise click.BadParameter(f"expected FUNC=REPLY, got {spec!r}", param_hint="--llm")
        value: Any = reply
        if reply.startswith("@"):
            path = Path(reply[1:])
            try:
                value = path.read_text(encoding="utf-8")
            except OSError as e:
                raise click.BadParameter(f"cannot read {path}: {e.strerror}", param_hint="--llm") from None
            if path.suffix == ".json":
                try:
                    value = json.loads(value)
                except json.JSONDecodeError as e:
                    raise click.BadParameter(f"{path}: invalid JSON: {e.msg}", param_hint="--llm") from None
        replies.setdefault(name, []).append(value)
    return {name: vals[0] if len(vals) == 1 else Replies(*vals) for name, vals in replies.items()}


# -- ingot test -------------------------------------------------------------------------------------
@click.command("test", epilog=PROJECT_HELP)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option("-k", "pattern", default=None, metavar="PATTERN",
              help="Run only tests whose FILE::TESTSET::NAME contains PATTERN (`not`, `and`, `or` combine).")
@click.option("--llm", "llm_mocks", multiple=True, metavar="FUNC=REPLY|@FILE",
              help="Mock an LLM function (repeat for one reply per call); others call their client.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report.")
@click.option("--allow-hosts", is_flag=True, help="Import the Python host functions the source names.")
@limit_options
def test_command(paths: tuple[Path, ...], pattern: str | None, llm_mocks: tuple[str, ...], as_json: bool,
                 allow_hosts: bool, **limits: Any) -> None:
    """Run the `test` and `testset` blocks of the program in PATHs, grouped by the file they are in.

    Each test runs within the limits (--max-steps, --timeout, ...); one past a limit fails."""
    from ingot.api import CallOptions, HostError, load
    from ingot.llm.testing import TestResult, display_path, make_test_id, matches, run_test
    from ingot.syntax.diagnostics import CompileError, render_all

    mocks = parse_llm_options(llm_mocks)
    options = CallOptions(**call_options(limits))
    started = time.perf_counter()
    results: list[TestResult] = []
    broken: list[tuple[str, str, str]] = []  # (file, message, what is wrong)
    per_file: dict[str, list[TestResult]] = {}
    try:
        program = load(list(paths), allow_hosts=allow_hosts)
    except CompileError as e:
        broken.append((", ".join(map(display_path, paths)), render_all(e.diagnostics), "does not compile"))
    except OSError as e:
        broken.append((", ".join(map(display_path, paths)), f"cannot read {e.filename}: {e.strerror}",
                       "cannot be read"))
    except HostError as e:
        broken.append((", ".join(map(display_path, paths)), f"error: {e}", "needs --allow-hosts"))
    else:
        for file in program.files:  # every file is listed, with or without tests
            per_file[display_path(file)] = []
        for name, testset, function in program.bex.tests:
            where = program.source_path(program.bex.by_name[function].file)
            shown = display_path(where) if where is not None else program.name
            if matches(pattern, make_test_id(shown, name, testset)):
                result = run_test(program, shown, name, testset, function, _fresh(mocks), options)
                per_file.setdefault(shown, []).append(result)
                results.append(result)
    elapsed = time.perf_counter() - started
    passed = sum(r.passed for r in results)
    failed = len(results) - passed
    if as_json:
        click.echo(json.dumps({"tests": [r.to_json() for r in results], "passed": passed, "failed": failed,
                               "errors": [{"file": f, "message": m} for f, m, _ in broken],
                               "duration": round(elapsed, 6)}, indent=2))
    else:
        _report([(f, mine) for f, mine in per_file.items() if mine], results, broken, passed, failed, elapsed)
    sys.exit(1 if failed or broken else 0)


def _fresh(mocks: dict[str, Any]) -> dict[str, Any]:
    """Each test starts its reply sequences from the beginning."""
    from ingot.llm.mocks import Replies

    return {k: Replies(*v.replies) if isinstance(v, Replies) else v for k, v in mocks.items()}


def _report(per_file: list[tuple[str, list[Any]]], results: list[Any], broken: list[tuple[str, str, str]],
            passed: int, failed: int, elapsed: float) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.rule import Rule

    console = Console(highlight=False, soft_wrap=True)
    console.print(Rule("ingot test", style="bold"))
    console.print(f"collected {len(results)} test{'s' if len(results) != 1 else ''}")
    console.print()
    for shown, mine in per_file:
        dots = "".join("[green].[/]" if r.passed else "[red]F[/]" for r in mine)
        console.print(f"{escape(shown)} {dots}")
    for shown, _message, _what in broken:
        console.print(f"{escape(shown)} [red]E[/]")
    failures = [r for r in results if not r.passed]
    if failures or broken:
        console.print()
        console.print(Rule("FAILURES", style="red"))
        for r in failures:
            console.print(Rule(escape(r.id), style="red", characters="_"))
            if r.error is not None:
                console.print(escape(r.error.format_trace()))
            else:
                console.print(escape(r.detail or "failed"))
            console.print()
        for shown, message, what in broken:
            console.print(Rule(f"{escape(shown)} ({what})", style="red", characters="_"))
            console.print(escape(message))
            console.print()
        console.print(Rule("short test summary info", style="cyan"))
        for r in failures:
            what = f"{r.error.qualified_kind}: {r.error.message}" if r.error is not None else r.detail
            console.print(f"[red]FAILED[/] {escape(r.id)} - {escape(str(what))}")
        for shown, _, what in broken:
            console.print(f"[red]ERROR[/] {escape(shown)} - {what}")
    console.print()
    summary = f"{passed} passed, {failed} failed"
    style = "bold red" if failed or broken else "bold green"
    console.print(f"[{style}]{summary}[/]" + (f" [red]({len(broken)} file(s) could not be loaded)[/]" if broken else "")
                  + f" [dim]in {elapsed:.2f}s[/]")


# -- ingot prompt -----------------------------------------------------------------------------------
@click.command("prompt", epilog=PROJECT_HELP)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.argument("function")
@click.option("--args", "args_text", default="{}", metavar="JSON|@FILE", help="Arguments as a JSON object.")
@click.option("--text", "text_only", is_flag=True, help="Print only the rendered prompt text.")
def prompt_command(paths: tuple[Path, ...], function: str, args_text: str, text_only: bool) -> None:
    """Print the request an LLM function would send, without sending it (no API key needed)."""
    from ingot.api import HostError, load
    from ingot.convert import ArgumentError
    from ingot.llm.callers import models_for
    from ingot.llm.errors import LlmFailure
    from ingot.llm.request import Conversation
    from ingot.llm.runtime import LlmRuntime
    from ingot.runtime.errors import BamlError, BamlRaise
    from ingot.syntax.diagnostics import CompileError, render_all

    try:
        program = load(list(paths), resolve_hosts=False)  # nothing runs: host functions are not needed
    except CompileError as e:
        _fail(render_all(e.diagnostics))
    except OSError as e:
        _fail(f"error: cannot read {e.filename}: {e.strerror}")
    except HostError as e:
        _fail(f"error: {e}")
    view = program.view
    try:
        fview = view.function(function)
    except KeyError:
        _fail(f"error: no function `{function}` in {', '.join(map(str, paths))}")
    if not fview.is_llm:
        llm = ", ".join(f.name for f in view.functions() if f.is_llm) or "none"
        _fail(f"error: `{function}` is not an LLM function (LLM functions: {llm})")
    args = _json_option(args_text, "--args")
    if not isinstance(args, dict):
        raise click.BadParameter("expected a JSON object", param_hint="--args")
    try:
        values = program.convert_args(function, args)
    except ArgumentError as e:
        raise click.BadParameter(str(e), param_hint="--args") from None
    runtime = LlmRuntime(view)
    vm = program.vm(llm=runtime)
    from ingot.llm.render import render_output_format

    output_format = render_output_format(runtime.schema, fview.ret)
    try:
        prompt = runtime.render_prompt(vm, function, output_format, values)
    except BamlRaise as e:
        _fail(BamlError(e.value, e.trace).format_trace())
    if text_only:
        from ingot.llm.prompt import readable

        click.echo(readable(prompt))
        return
    spec = view.client_of(function)
    try:
        req = models_for(view).for_function(function).preview(Conversation(prompt))
    except LlmFailure as f:
        _fail(f"error: {f.fields.get('detail') or f}")
    click.echo(json.dumps({"function": function, "client": spec.name if spec else None, "method": req.method,
                           "url": req.url, "headers": req.headers, "body": req.json()}, indent=2,
                          ensure_ascii=False))


def stream_run(program: Any, file: Path | str, function: str, args: Any, as_json: bool, mocked: bool) -> None:
    """`ingot run --stream`: each partial value as one JSON line, then the result (or the error)."""
    from ingot.convert import ArgumentError
    from ingot.runtime.errors import BamlError

    if mocked:
        _fail("error: --stream calls the function's client; it does not take --llm mocks")
    if not isinstance(args, dict):
        raise click.BadParameter("expected a JSON object of parameter names", param_hint="--args")
    view = program.view
    llm = [f.name for f in view.functions() if f.is_llm]
    if function not in llm:
        _fail(f"error: --stream needs an LLM function (LLM functions in {file}: {', '.join(llm) or 'none'})")

    def line(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    try:
        stream = program.stream(function, args)
        for partial in stream:
            click.echo(line({"partial": partial} if as_json else partial))
        value = stream.final()
    except ArgumentError as e:
        _fail(f"error: {e}")
    except BamlError as e:
        if as_json:
            click.echo(line({"error": {"kind": e.kind, "class": e.qualified_kind, "message": e.message}}))
        else:
            click.echo(e.format_trace(), err=True)
        sys.exit(1)
    click.echo(line({"value": value}) if as_json else json.dumps(value, ensure_ascii=False, indent=2))


def _json_option(text: str, what: str) -> Any:
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise click.BadParameter(f"cannot read {path}: {e.strerror}", param_hint=what) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise click.BadParameter(f"invalid JSON: {e.msg}", param_hint=what) from None


def _fail(message: str) -> Any:
    click.echo(message, err=True)
    sys.exit(1)


__all__ = ["test_command", "prompt_command", "parse_llm_options", "stream_run"]
