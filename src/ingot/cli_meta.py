"""`ingot meta`, `ingot mcp` and `ingot call`: the commands driven by `_meta.ingot`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from ingot.api import Program
from ingot.meta.cli_gen import CallGroup
from ingot.meta.keys import MetaError

FILE = click.Path(exists=True, dir_okay=False, path_type=Path)


def _load(path: Path) -> Program:
    from ingot.cli import load_or_exit  # lazily: ingot.cli registers these commands

    return load_or_exit(path)


def _flatten(values: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for k, v in values.items():
        if isinstance(v, dict) and v:
            out += _flatten(v, f"{prefix}{k}.")
        else:
            out.append((prefix + k, v))
    return out


@click.command("meta")
@click.argument("file", type=FILE)
@click.option("--json", "as_json", is_flag=True, help="Print the annotations as one JSON object.")
def meta_command(file: Path, as_json: bool) -> None:
    """Print the @ingot annotations of FILE (`_meta.ingot`), keyed by the item they annotate."""
    meta = _load(file).view.meta
    if as_json:
        click.echo(json.dumps({k: dict(v) for k, v in meta.items()}, indent=2, ensure_ascii=False))
        return
    if not meta:
        click.echo(f"no @ingot annotations in {file}")
        return
    for item, values in meta.items():
        click.echo(item)
        for key, value in _flatten(dict(values)):
            click.echo(f"  {key} = {json.dumps(value, ensure_ascii=False)}")


@click.command("mcp")
@click.argument("file", type=FILE)
@click.option("--all", "include_all", is_flag=True,
              help="Expose every function, not only those marked @@ingot(mcp.tool).")
@click.option("--name", default=None, help="Server name announced to clients [default: the file's stem].")
@click.option("--max-steps", type=int, default=None, help="Budget of loop iterations and calls per tool call.")
def mcp_command(file: Path, include_all: bool, name: str | None, max_steps: int | None) -> None:
    """Serve the functions of FILE as MCP tools over stdio.

    Functions marked @@ingot(mcp.tool) become tools (all functions with
    --all); configure a client to run `ingot mcp FILE`.
    """
    try:
        from ingot.meta.mcp import make_server, run_stdio
    except ImportError as e:
        raise click.ClickException(f"the MCP server needs the `mcp` package, version 2 ({e}); "
                                   "install it with: pip install 'ingot[mcp]'") from None
    from ingot.meta.tools import tool_specs

    program = _load(file)
    try:
        specs = tool_specs(program, include_all, on_skip=lambda msg: click.echo(f"warning: {msg}", err=True))
    except MetaError as e:
        click.echo("\n".join(f"error: {p}" for p in e.problems), err=True)
        sys.exit(1)
    if not specs:
        hint = "" if include_all else "; mark one with @@ingot(mcp.tool) or pass --all"
        click.echo(f"error: no functions to serve in {file}{hint}", err=True)
        sys.exit(1)
    click.echo(f"ingot mcp: serving {len(specs)} tool{'s' * (len(specs) != 1)} from {file} on stdio "
               f"({', '.join(s.name for s in specs)})", err=True)
    run_stdio(make_server(program, specs, name=name or file.stem, max_steps=max_steps))


call_command = CallGroup("call", loader=_load)
