"""Command lines generated from BAML function signatures: `ingot call FILE FUNC --param VALUE`.

Each parameter becomes an option `--kebab-case` (`max_tokens` and `maxTokens`
give `--max-tokens`): `int`, `float` and `string` are typed options, `bool`
a `--x/--no-x` flag, an enum or a union of string literals a choice, and
anything else (classes, arrays, maps, other unions) a JSON value (`@file.json`
reads a file). `T?` parameters are optional, all others required. Help text
comes from `@@ingot(cli.help=...)` (else the `///` doc comment) and
`@ingot(cli.help=..., cli.short="n")` on parameters.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from ingot.api import ArgumentError, BamlError, Program
from ingot.convert import to_json_text
from ingot.meta import keys
from ingot.meta.schema import SchemaBuilder
from ingot.mir.api import NULL, AliasT, EnumT, Lit, Prim, Ty, UnionT, VariantT

_PRIM_TYPES: dict[str, click.ParamType] = {"int": click.INT, "float": click.FLOAT, "string": click.STRING}


class JsonValue(click.ParamType):
    """A JSON value on the command line, or `@path` to read it from a file."""

    name = "json"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        text = value
        if text.startswith("@"):
            try:
                text = Path(text[1:]).read_text(encoding="utf-8")
            except OSError as e:
                self.fail(f"cannot read {text[1:]}: {e.strerror}", param, ctx)
        try:
            return json.loads(text)
        except json.JSONDecodeError as e:
            self.fail(f"invalid JSON ({e.msg} at column {e.colno}): {value}", param, ctx)


def option_name(param: str) -> str:
    """`max_tokens` and `maxTokens` -> `--max-tokens`."""
    snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", param).lower()
    return "--" + snake.strip("_").replace("_", "-")


def one_line(text: str | None) -> str:
    return (text or "").strip().split("\n", 1)[0].strip()


def _resolve(program: Program, ty: Ty) -> Ty:
    seen: set[str] = set()
    while isinstance(ty, AliasT) and ty.name not in seen:
        seen.add(ty.name)
        ty = program.view.alias_target(ty.name)
    return ty


def _strip_null(ty: Ty) -> Ty:
    if isinstance(ty, UnionT) and NULL in ty.members:
        rest = tuple(m for m in ty.members if m != NULL)
        return rest[0] if len(rest) == 1 else UnionT(rest)
    return ty


def _choices(program: Program, ty: Ty) -> list[str] | None:
    if isinstance(ty, EnumT):
        return next(list(e.variants) for e in program.view.enums() if e.name == ty.name)
    members = ty.members if isinstance(ty, UnionT) else (ty,)
    names = [m.value if isinstance(m, Lit) else m.variant if isinstance(m, VariantT) else None for m in members]
    return [n for n in names if isinstance(n, str)] if all(isinstance(n, str) for n in names) else None


def _option(program: Program, func: str, param: str, ty: Ty) -> click.Option:
    meta = program.view.meta
    cli = keys.read(meta, f"{func}.{param}", "cli", param=True)
    help_text = cli.get("help") or keys.read(meta, f"{func}.{param}", "mcp", param=True).get("description")
    decls = [option_name(param)] + ([f"-{cli['short']}"] if "short" in cli else []) + [param]
    nullable = SchemaBuilder(program.view).nullable(ty)
    inner = _resolve(program, _strip_null(_resolve(program, ty)))
    required = not nullable
    if inner == Prim("bool"):
        if not nullable:  # a plain flag: false unless given
            return click.Option(decls, is_flag=True, default=False, help=help_text)
        flag = option_name(param)
        decls[0] = f"{flag}/--no-{flag[2:]}"  # true, false, or null when neither is given
        return click.Option(decls, default=None, help=help_text)
    if isinstance(inner, Prim) and inner.name in _PRIM_TYPES:
        return click.Option(decls, type=_PRIM_TYPES[inner.name], required=required, help=help_text)
    choices = _choices(program, inner)
    if choices is not None:
        return click.Option(decls, type=click.Choice(choices), required=required, help=help_text)
    what = f"{ty} as JSON"
    return click.Option(decls, type=JsonValue(), metavar="JSON", required=required,
                        help=f"{help_text.rstrip()} ({what})" if help_text else f"{what}.")


def build_command(program: Program, func: str) -> click.Command:
    """The click command for calling `func` of `program`; it prints the result as JSON."""
    view = program.view
    fn = view.function(func)
    options, problems = [], []
    for p, ty in fn.params:
        try:
            options.append(_option(program, func, p, ty))
        except keys.MetaError as e:
            problems += e.problems
    shorts = [o for opt in options for o in opt.opts if not o.startswith("--")]
    problems += [f"`{func}`: two parameters use the short option `{s}`" for s in sorted(set(shorts))
                 if shorts.count(s) > 1]
    if problems:
        raise keys.MetaError(problems)
    by_param = {opt.name: opt for opt in options}

    def run(**kwargs: Any) -> None:
        try:
            value = program.run(func, kwargs)
        except ArgumentError as e:
            name = e.path.removeprefix("args.").split(".", 1)[0].split("[", 1)[0]
            raise click.BadParameter(f"{e.path.removeprefix('args.')}: {e.detail}",
                                     param=by_param.get(name)) from None
        except BamlError as e:
            click.echo(e.format_trace(), err=True)
            sys.exit(1)
        click.echo(to_json_text(value, indent=2))

    help_text = keys.read(view.meta, func, "cli").get("help") or fn.doc
    help_names = ["--help"] if "-h" in shorts else ["-h", "--help"]
    return click.Command(func, params=list(options), callback=run, help=help_text,
                         short_help=one_line(help_text), epilog=f"Prints the result ({fn.ret}) as JSON.",
                         context_settings={"help_option_names": help_names})


def function_list(program: Program) -> list[tuple[str, str]]:
    """(name, one-line help) of every callable function."""
    view = program.view
    return [(name, one_line(keys.read(view.meta, name, "cli").get("help") or view.function(name).doc))
            for name in program.functions]


class CallGroup(click.Group):
    """`ingot call FILE FUNC [--param VALUE]...`: one generated subcommand per function of FILE."""

    def __init__(self, name: str, loader: Callable[[Path], Program]) -> None:
        self._loader = loader
        file_arg = click.Argument(["file"], type=click.Path(exists=True, dir_okay=False, path_type=Path))
        list_opt = click.Option(["--list", "list_functions"], is_flag=True,
                                help="List the callable functions with their one-line docs.")
        super().__init__(name, params=[file_arg, list_opt], callback=self._root, invoke_without_command=True,
                         subcommand_metavar="FUNC [--param VALUE]...",
                         context_settings={"help_option_names": ["-h", "--help"]},
                         help="Call FUNC of FILE with options generated from its signature.\n\n"
                              "`ingot call FILE FUNC --help` shows FUNC's options; results print as JSON.")

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # A group stops parsing options at its first argument, so move this group's own
        # options out from between FILE and FUNC: `ingot call FILE --list` works.
        if args and not args[0].startswith("-"):
            ctx.meta["ingot.call.file"] = Path(args[0])
            own = {"--list", *ctx.help_option_names}
            end = 1
            while end < len(args) and args[end] in own:
                end += 1
            args = [*args[1:end], args[0], *args[end:]]
        return super().parse_args(ctx, args)

    def program(self, ctx: click.Context) -> Program | None:
        # FILE may not be processed yet when an eager --help lists the functions.
        path = ctx.params.get("file") or ctx.meta.get("ingot.call.file")
        if path is None or not path.is_file():
            return None
        cache = ctx.meta.setdefault("ingot.call.programs", {})
        if path not in cache:
            cache[path] = self._loader(path)
        return cache[path]

    def list_commands(self, ctx: click.Context) -> list[str]:
        program = self.program(ctx)
        return list(program.functions) if program else []

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        program = self.program(ctx)
        rows = function_list(program) if program else []
        if rows:
            with formatter.section("Functions"):
                formatter.write_dl(rows)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        program = self.program(ctx)
        if program is None or cmd_name not in program.functions:
            return None
        try:
            return build_command(program, cmd_name)
        except keys.MetaError as e:
            raise click.ClickException("\n".join(e.problems)) from None

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        program = self.program(ctx)
        if program is not None and args and args[0] not in program.functions:
            names = ", ".join(program.functions) or "none"
            ctx.fail(f"no function `{args[0]}` in {ctx.params['file']} (functions: {names})")
        return super().resolve_command(ctx, args)

    def _root(self, file: Path, list_functions: bool) -> None:
        ctx = click.get_current_context()
        if ctx.invoked_subcommand is not None:
            return
        program = self.program(ctx)
        if not list_functions:
            click.echo(ctx.get_help())
            ctx.exit(0)
        rows = function_list(program) if program else []
        width = max((len(n) for n, _ in rows), default=0)
        for name, doc in rows:
            click.echo(f"{name:<{width}}  {doc}".rstrip())
