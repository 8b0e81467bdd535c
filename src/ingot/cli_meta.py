"""`ingot meta`, `ingot mcp` and `ingot call`: the commands driven by `_meta.ingot`."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ingot.cli_limits import Seconds
from ingot.meta.cli_gen import CallGroup
from ingot.meta.keys import MetaError

if TYPE_CHECKING:
    from ingot.api import Program

PATHS = click.Path(exists=True, path_type=Path)
PROJECT_HELP = "PATH is a .baml file or a directory of them; several PATHs compile as one program."


def _load(paths: Sequence[Path]) -> Program:
    from ingot.cli import load_or_exit  # lazily: ingot.cli registers these commands

    return load_or_exit(paths)


def _shown(paths: Sequence[Path]) -> str:
    return ", ".join(map(str, paths))


def server_name(paths: Sequence[Path]) -> str:
    """A project's default MCP server name: its file's or directory's name (a `baml_src/` folder's parent's)."""
    path = paths[0].absolute()
    return path.parent.name if path.name == "baml_src" and path.parent.name else path.stem


def _flatten(values: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for k, v in values.items():
        if isinstance(v, dict) and v:
            out += _flatten(v, f"{prefix}{k}.")
        else:
            out.append((prefix + k, v))
    return out


@click.command("meta", epilog=PROJECT_HELP)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option("--json", "as_json", is_flag=True, help="Print the annotations as one JSON object.")
def meta_command(paths: tuple[Path, ...], as_json: bool) -> None:
    """Print the @ingot annotations of the program in PATHs (`_meta.ingot`), keyed by the item they annotate."""
    meta = _load(paths).view.meta
    if as_json:
        click.echo(json.dumps({k: dict(v) for k, v in meta.items()}, indent=2, ensure_ascii=False))
        return
    if not meta:
        click.echo(f"no @ingot annotations in {_shown(paths)}")
        return
    for item, values in meta.items():
        click.echo(item)
        for key, value in _flatten(dict(values)):
            click.echo(f"  {key} = {json.dumps(value, ensure_ascii=False)}")


@click.command("mcp", epilog=PROJECT_HELP)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.option("--all", "include_all", is_flag=True,
              help="Expose every function, not only those marked @@ingot(mcp.tool).")
@click.option("--name", default=None, help="Server name announced to clients [default: the file's or directory's name].")
@click.option("--max-steps", type=click.IntRange(min=1), default=10_000_000, show_default=True,
              help="Budget of loop iterations and calls per tool call.")
@click.option("--timeout", type=Seconds(min=0, min_open=True), default=30.0, show_default=True,
              help="Wall-clock limit per tool call, in seconds (waiting for a worker included).")
@click.option("--workers", type=click.IntRange(min=1), default=4, show_default=True,
              help="Tool calls running at once.")
@click.option("--queue", type=click.IntRange(min=0), default=64, show_default=True,
              help="Tool calls waiting for a worker; more are refused as \"server busy\".")
def mcp_command(paths: tuple[Path, ...], include_all: bool, name: str | None, max_steps: int, timeout: float,
                workers: int, queue: int) -> None:
    """Serve the functions of the program in PATHs as MCP tools over stdio.

    Functions marked @@ingot(mcp.tool) become tools (all functions with
    --all); configure a client to run `ingot mcp PATH`.
    """
    try:
        from ingot.meta.mcp import Limits, make_server, run_stdio
    except ImportError as e:
        raise click.ClickException(f"the MCP server needs the `mcp` package, version 2 ({e}); "
                                   "install it with: pip install 'ingot[mcp]'") from None
    from ingot.meta.tools import tool_specs

    program = _load(paths)
    try:
        specs = tool_specs(program, include_all, on_skip=lambda msg: click.echo(f"warning: {msg}", err=True))
    except MetaError as e:
        click.echo("\n".join(f"error: {p}" for p in e.problems), err=True)
        sys.exit(1)
    if not specs:
        hint = "" if include_all else "; mark one with @@ingot(mcp.tool) or pass --all"
        click.echo(f"error: no functions to serve in {_shown(paths)}{hint}", err=True)
        sys.exit(1)
    click.echo(f"ingot mcp: serving {len(specs)} tool{'s' * (len(specs) != 1)} from {_shown(paths)} on stdio "
               f"({', '.join(s.name for s in specs)})", err=True)
    limits = Limits(max_steps=max_steps, timeout_s=timeout, workers=workers, queue=queue)
    run_stdio(make_server(program, specs, name=name or server_name(paths), limits=limits))


call_command = CallGroup("call", loader=_load)
