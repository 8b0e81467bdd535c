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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ingot.meta import keys

if TYPE_CHECKING:
    from ingot.runnable import RunnableProgram as Program
    from ingot.view import Ty

# The program's types and values are imported by the functions reading them: `ingot --help`
# lists `call` without loading the toolchain.

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
    from ingot.view import AliasT

    seen: set[str] = set()
    while isinstance(ty, AliasT) and ty.name not in seen:
        seen.add(ty.name)
        ty = program.view.alias_target(ty.name)
    return ty


def _strip_null(ty: Ty) -> Ty:
    from ingot.view import NULL, UnionT

    if isinstance(ty, UnionT) and NULL in ty.members:
        rest = tuple(m for m in ty.members if m != NULL)
        return rest[0] if len(rest) == 1 else UnionT(rest)
    return ty


def _choices(program: Program, ty: Ty) -> list[str] | None:
    from ingot.view import EnumT, Lit, UnionT, VariantT

    if isinstance(ty, EnumT):
        return next(list(e.variants) for e in program.view.enums() if e.name == ty.name)
    members = ty.members if isinstance(ty, UnionT) else (ty,)
    names = [m.value if isinstance(m, Lit) else m.variant if isinstance(m, VariantT) else None for m in members]
    return [n for n in names if isinstance(n, str)] if all(isinstance(n, str) for n in names) else None


def _option(program: Program, func: str, param: str, ty: Ty) -> click.Option:
    from ingot.meta.schema import SchemaBuilder
    from ingot.view import Prim

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
    from ingot.convert import to_json_text
    from ingot.runnable import ArgumentError, BamlError

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


class PathsInUsage(click.Option):
    """Shows `PATH...` in the usage lines of `ingot call` and its subcommands.

    The paths are not a click argument (a variadic argument would swallow FUNC and its
    options); `CallGroup.parse_args` takes them off the front.
    """

    def __init__(self) -> None:
        super().__init__(["--paths-in-usage"], hidden=True, expose_value=False, is_flag=True)

    def get_usage_pieces(self, ctx: click.Context) -> list[str]:
        return ["PATH..."]


class CallGroup(click.Group):
    """`ingot call PATH... FUNC [--param VALUE]...`: one generated subcommand per function of the program.

    PATH is a .baml file or a directory of them (one program); the words before FUNC that name
    files or directories are the paths, the first that does not is FUNC.
    """

    def __init__(self, name: str, loader: Callable[[Sequence[Path]], Program]) -> None:
        self._loader = loader
        list_opt = click.Option(["--list", "list_functions"], is_flag=True,
                                help="List the callable functions with their one-line docs.")
        super().__init__(name, params=[PathsInUsage(), list_opt], callback=self._root, invoke_without_command=True,
                         subcommand_metavar="FUNC [--param VALUE]...",
                         context_settings={"help_option_names": ["-h", "--help"]},
                         help="Call FUNC of the program in PATHs with options generated from its signature.\n\n"
                              "`ingot call PATH FUNC --help` shows FUNC's options; results print as JSON.")

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # A group stops parsing options at its first argument, so take the paths (and this
        # group's own options between them) off the front: `ingot call a.baml b/ --list` works.
        own = {"--list", *ctx.help_option_names}
        paths: list[Path] = []
        flags: list[str] = []
        rest = list(args)
        while rest and (rest[0] in own or (not rest[0].startswith("-") and (not paths or Path(rest[0]).exists()))):
            word = rest.pop(0)
            if word in own:
                flags.append(word)
            else:
                paths.append(Path(word))
        ctx.meta["ingot.call.paths"] = paths
        return super().parse_args(ctx, [*flags, *rest])

    def paths(self, ctx: click.Context) -> list[Path]:
        return list(ctx.meta.get("ingot.call.paths") or [])

    def program(self, ctx: click.Context) -> Program | None:
        paths = self.paths(ctx)
        if not paths or not all(p.exists() for p in paths):
            return None
        cache = ctx.meta.setdefault("ingot.call.programs", {})
        key = tuple(paths)
        if key not in cache:
            cache[key] = self._loader(paths)
        return cache[key]

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
        self.check_paths(ctx)
        program = self.program(ctx)
        if program is not None and args and args[0] not in program.functions:
            names = ", ".join(program.functions) or "none"
            shown = ", ".join(map(str, self.paths(ctx)))
            ctx.fail(f"no function `{args[0]}` in {shown} (functions: {names})")
        return super().resolve_command(ctx, args)

    def check_paths(self, ctx: click.Context) -> None:
        paths = self.paths(ctx)
        if not paths:
            ctx.fail("missing PATH: a .baml file or a directory of them")
        for p in paths:
            if not p.exists():
                ctx.fail(f"{p}: no such file or directory")

    def _root(self, list_functions: bool) -> None:
        ctx = click.get_current_context()
        if ctx.invoked_subcommand is not None:
            return
        if list_functions:
            self.check_paths(ctx)
        program = self.program(ctx)
        if not list_functions:
            click.echo(ctx.get_help())
            ctx.exit(0)
        rows = function_list(program) if program else []
        width = max((len(n) for n, _ in rows), default=0)
        for name, doc in rows:
            click.echo(f"{name:<{width}}  {doc}".rstrip())
