"""The `ingot` command line."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from ingot.api import Program, load
from ingot.convert import ArgumentError, to_json_text
from ingot.runtime.errors import BamlError
from ingot.syntax.diagnostics import CompileError, render_all

FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


def fail(message: str, code: int = 1) -> NoReturn:
    click.echo(message, err=True)
    sys.exit(code)


def load_or_exit(path: Path) -> Program:
    """Compile a file, printing its diagnostics and exiting 1 when it has errors."""
    try:
        return load(path)
    except CompileError as e:
        fail(render_all(e.diagnostics))
    except UnicodeDecodeError:
        fail(f"error: {path} is not UTF-8 text")
    except OSError as e:
        fail(f"error: cannot read {path}: {e.strerror}")


def parse_json_option(text: str, what: str) -> Any:
    """`--args '{"x": 1}'` or `--args @file.json`."""
    if text.startswith("@"):
        path = Path(text[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise click.BadParameter(f"cannot read {path}: {e.strerror}", param_hint=what) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise click.BadParameter(f"invalid JSON: {e.msg} at line {e.lineno} column {e.colno}",
                                 param_hint=what) from None


def parse_mocks(specs: tuple[str, ...], program: Program) -> dict[str, Any]:
    """`--llm Classify=@reply.json`: a JSON file gives a value; any other text is a raw reply."""
    mocks: dict[str, Any] = {}
    llm_functions = {f.name for f in program.view.functions() if f.is_llm}
    for spec in specs:
        name, sep, reply = spec.partition("=")
        if not sep:
            raise click.BadParameter(f"expected FUNC=REPLY, got {spec!r}", param_hint="--llm")
        if name not in llm_functions:
            known = ", ".join(sorted(llm_functions)) or "none"
            raise click.BadParameter(f"`{name}` is not an LLM function (LLM functions: {known})",
                                     param_hint="--llm")
        if reply.startswith("@"):
            path = Path(reply[1:])
            try:
                reply = path.read_text(encoding="utf-8")
            except OSError as e:
                raise click.BadParameter(f"cannot read {path}: {e.strerror}", param_hint="--llm") from None
            if path.suffix == ".json":
                try:
                    mocks.setdefault(name, []).append(json.loads(reply))
                    continue
                except json.JSONDecodeError:
                    pass
        mocks.setdefault(name, []).append(reply)
    # One reply per call in order; a single reply answers every call.
    return {name: replies[0] if len(replies) == 1 else replies for name, replies in mocks.items()}


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ingot")
def main() -> None:
    """Compile, run and explore BAML programs."""


@main.command()
@click.argument("files", nargs=-1, required=True, type=FILE)
def check(files: tuple[Path, ...]) -> None:
    """Check FILES for errors; exit 1 if any file has errors."""
    failed = 0
    for path in files:
        try:
            load(path)
        except CompileError as e:
            failed += 1
            click.echo(render_all(e.diagnostics), err=True)
        except (UnicodeDecodeError, OSError) as e:
            failed += 1
            click.echo(f"error: cannot read {path}: {e}", err=True)
    if failed:
        sys.exit(1)
    click.echo(f"{len(files)} file{'s' if len(files) != 1 else ''} checked, no errors")


@main.command()
@click.argument("file", type=FILE)
@click.argument("function")
@click.option("--args", "args_text", default="{}", metavar="JSON|@FILE",
              help="Arguments as a JSON object of parameter names, or @file.json.")
@click.option("--json", "as_json", is_flag=True, help="Print {\"value\": ...} or {\"error\": ...} as JSON.")
@click.option("--llm", "llm_mocks", multiple=True, metavar="FUNC=REPLY|@FILE",
              help="Mock an LLM function: a raw reply text (or @file holding it, or JSON). Repeatable.")
@click.option("--max-depth", default=20_000, show_default=True, help="Maximum BAML call depth.")
@click.option("--max-steps", type=int, default=None, help="Budget of loop iterations and calls.")
def run(file: Path, function: str, args_text: str, as_json: bool, llm_mocks: tuple[str, ...], max_depth: int,
        max_steps: int | None) -> None:
    """Run FUNCTION of FILE with --args and print its result as JSON.

    LLM functions call their declared client unless mocked with --llm.
    """
    program = load_or_exit(file)
    args = parse_json_option(args_text, "--args")
    mocks = parse_mocks(llm_mocks, program)
    if not isinstance(args, dict):
        raise click.BadParameter("expected a JSON object of parameter names", param_hint="--args")
    if function not in program.functions:
        names = ", ".join(program.functions) or "none"
        fail(f"error: no function `{function}` in {file} (functions: {names})")
    try:
        value = program.call(function, max_depth=max_depth, max_steps=max_steps, llm=mocks, **args)
    except ArgumentError as e:
        fail(f"error: {e}", 2)
    except BamlError as e:
        if as_json:
            click.echo(to_json_text({"error": {"kind": e.kind, "class": e.qualified_kind,
                                               "message": e.message, "trace": [str(f) for f in e.trace]}}))
        else:
            click.echo(e.format_trace(), err=True)
        sys.exit(1)
    click.echo(to_json_text({"value": value} if as_json else value, indent=None if as_json else 2))


@main.command()
@click.argument("file", type=FILE)
@click.argument("function", required=False)
def mir(file: Path, function: str | None) -> None:
    """Print the MIR of FILE (or of one FUNCTION)."""
    from ingot.mir import pretty

    program = load_or_exit(file)
    if function is not None and function not in program.compiled.mir.functions:
        fail(f"error: no function `{function}` in {file}")
    click.echo(pretty.program(program.compiled.mir, function))


@main.command()
@click.argument("file", type=FILE)
@click.argument("function", required=False)
def dis(file: Path, function: str | None) -> None:
    """Disassemble the BEX bytecode of FILE (or of one FUNCTION)."""
    from ingot.bex.dis import disassemble_program

    program = load_or_exit(file)
    if function is not None and function not in program.bex.by_name:
        fail(f"error: no function `{function}` in {file}")
    click.echo(disassemble_program(program.bex, function))


def entry() -> None:
    """Console entry point: a bug in ingot is reported as one, never as a bare traceback."""
    try:
        main(standalone_mode=True)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except Exception as e:  # noqa: BLE001 - the last line of defence
        fail(f"internal error in ingot: {type(e).__name__}: {e}\n"
             "This is a bug in ingot; please report it with the input that caused it.", 70)


if __name__ == "__main__":
    entry()
