"""The `ingot` command line."""

from __future__ import annotations

import atexit
import gc
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from ingot.cli_limits import Seconds, call_options, limit_options

if TYPE_CHECKING:
    from ingot.api import Program

# The toolchain (compiler, VMs, explorer) is imported by the commands that use it, not here:
# `ingot --help` and a mistyped option answer without compiling its classes.

# A project is given as BAML files and directories (every .baml below a directory); all of them
# compile as one program, as the engine compiles a baml_src/ folder.
PATHS = click.Path(exists=True, path_type=Path)
PROJECT_HELP = "PATH is a .baml file or a directory of them; several PATHs compile as one program."


def fail(message: str, code: int = 1) -> NoReturn:
    click.echo(message, err=True)
    sys.exit(code)


def load_or_exit(paths: Path | Sequence[Path], allow_hosts: bool = False, resolve_hosts: bool = True) -> Program:
    """Compile a project, printing its diagnostics and exiting 1 when it has errors."""
    from ingot.api import HostError, load
    from ingot.syntax.diagnostics import CompileError, render_all

    paths = [paths] if isinstance(paths, Path) else list(paths)
    try:
        return load(paths, allow_hosts=allow_hosts, resolve_hosts=resolve_hosts)
    except CompileError as e:
        fail(render_all(e.diagnostics))
    except HostError as e:
        fail(f"error: {e}")
    except FileNotFoundError as e:
        fail(f"error: {e.filename}: {e.strerror}")
    except OSError as e:
        fail(f"error: cannot read {e.filename or ', '.join(map(str, paths))}: {e.strerror}")


def shown(paths: Sequence[Path]) -> str:
    """The project as messages name it."""
    return ", ".join(str(p) for p in paths)


def split_function(targets: Sequence[str]) -> tuple[list[Path], str | None]:
    """`PATH... [FUNCTION]`: the last word is a function name when it is not a path on disk."""
    words = list(targets)
    function = words.pop() if len(words) > 1 and not Path(words[-1]).exists() else None
    for word in words:
        if not Path(word).exists():
            # `explore x.baml F --json out.json`: the flag takes no value, and `F` reads as a path
            hint = f" (the arguments are PATH... [FUNCTION]: `{function}`, the last, was taken as the function)" \
                if function is not None and word.isidentifier() else ""
            fail(f"error: {word}: no such file or directory{hint}", 2)
    return [Path(w) for w in words], function


def require_function(program: Program, function: str, paths: Sequence[Path]) -> None:
    if function not in program.functions:
        names = ", ".join(program.functions) or "none"
        fail(f"error: no function `{function}` in {shown(paths)} (functions: {names})")


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
    """`--llm Classify=@reply.json`, checked against the program's LLM functions."""
    from ingot.cli_llm import parse_llm_options

    mocks = parse_llm_options(specs)
    llm_functions = {f.name for f in program.view.functions() if f.is_llm}
    for name in mocks:
        if name not in llm_functions:
            known = ", ".join(sorted(llm_functions)) or "none"
            raise click.BadParameter(f"`{name}` is not an LLM function (LLM functions: {known})",
                                     param_hint="--llm")
    return mocks


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="ingot")
@click.option("--allow-llm-url", "allow_llm_urls", multiple=True, metavar="URL",
              help="Let API keys go to URL (and below it), besides each provider's documented host and "
                   "this machine. Repeatable; also INGOT_ALLOW_LLM_URLS (comma-separated).")
def main(allow_llm_urls: tuple[str, ...]) -> None:
    """Compile, run and explore BAML programs."""
    if allow_llm_urls:
        from ingot.llm.destinations import allow_url

        for url in allow_llm_urls:
            allow_url(url)


@main.command(epilog=PROJECT_HELP)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
def check(paths: tuple[Path, ...]) -> None:
    """Check the program in PATHs for errors: every one, with file, line and column; exit 1 on errors."""
    program = load_or_exit(paths, resolve_hosts=False)
    n = len(program.files)
    click.echo(f"{n} file{'s' if n != 1 else ''} checked, no errors")


@main.command(epilog=PROJECT_HELP)
@click.argument("paths", nargs=-1, required=True, type=PATHS)
@click.argument("function")
@click.option("--args", "args_text", default="{}", metavar="JSON|@FILE",
              help="Arguments as a JSON object of parameter names, or @file.json.")
@click.option("--json", "as_json", is_flag=True, help="Print {\"value\": ...} or {\"error\": ...} as JSON.")
@click.option("--llm", "llm_mocks", multiple=True, metavar="FUNC=REPLY|@FILE",
              help="Mock an LLM function: a raw reply text (or @file holding it, or JSON). Repeatable.")
@limit_options
@click.option("--allow-hosts", is_flag=True, help="Import the Python host functions the source names.")
@click.option("--stream", is_flag=True, help="Stream an LLM function: print each partial value as a JSON line.")
def run(paths: tuple[Path, ...], function: str, args_text: str, as_json: bool, llm_mocks: tuple[str, ...],
        allow_hosts: bool, stream: bool, **limits: Any) -> None:
    """Run FUNCTION of the program in PATHs with --args and print its result as JSON.

    LLM functions call their declared client unless mocked with --llm. Every run is bounded
    (--max-steps, --timeout, --max-memory, sizes, --max-depth): past a limit it ends with a
    BAML panic (InstructionLimit, Cancelled, AllocFailure, StackOverflow), exit 1.
    """
    options = call_options(limits)
    program = load_or_exit(paths, allow_hosts)
    args = parse_json_option(args_text, "--args")
    if stream:
        from ingot.cli_llm import stream_run

        stream_run(program, " ".join(str(p) for p in paths), function, args, as_json, bool(llm_mocks))
        return
    mocks = parse_mocks(llm_mocks, program)
    if not isinstance(args, dict):
        raise click.BadParameter("expected a JSON object of parameter names", param_hint="--args")
    require_function(program, function, paths)
    from ingot.convert import ArgumentError, ResultTooDeep, to_json_text
    from ingot.llm import MockError
    from ingot.runtime.errors import BamlError

    try:
        value = program.run(function, args, llm=mocks, **options)
    except ArgumentError as e:
        fail(f"error: {e}", 2)
    except ResultTooDeep as e:
        fail(f"error: {function}: {e}; it cannot be printed")
    except MockError as e:
        fail(f"error: --llm: {e}", 1)
    except BamlError as e:
        if as_json:
            click.echo(to_json_text({"error": {"kind": e.kind, "class": e.qualified_kind,
                                               "message": e.message, "trace": [str(f) for f in e.trace]}}))
        else:
            click.echo(e.format_trace(), err=True)
        sys.exit(1)
    click.echo(to_json_text({"value": value} if as_json else value, indent=None if as_json else 2))


@main.command(epilog=PROJECT_HELP)
@click.argument("targets", nargs=-1, required=True, metavar="PATH... [FUNCTION]")
def mir(targets: tuple[str, ...]) -> None:
    """Print the MIR of the program in PATHs (or of one FUNCTION)."""
    from ingot.mir import pretty

    paths, function = split_function(targets)
    program = load_or_exit(paths, resolve_hosts=False)
    if function is not None and function not in program.compiled.mir.functions:
        fail(f"error: no function `{function}` in {shown(paths)}")
    click.echo(pretty.program(program.compiled.mir, function))


@main.command(epilog=PROJECT_HELP)
@click.argument("targets", nargs=-1, required=True, metavar="PATH... [FUNCTION]")
def dis(targets: tuple[str, ...]) -> None:
    """Disassemble the BEX bytecode of the program in PATHs (or of one FUNCTION)."""
    from ingot.bex.dis import disassemble_program

    paths, function = split_function(targets)
    program = load_or_exit(paths, resolve_hosts=False)
    if function is not None and function not in program.bex.by_name:
        fail(f"error: no function `{function}` in {shown(paths)}")
    click.echo(disassemble_program(program.bex, function))




@main.command(epilog=PROJECT_HELP + " The last word is FUNCTION when it is not a path on disk; without "
              "FUNCTION every function of the project is explored, one job each.")
@click.argument("targets", nargs=-1, required=True, metavar="PATH... [FUNCTION]")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON (schema in README).")
@click.option("--timings", is_flag=True, help="Add wall-clock timings to the JSON report (makes it non-deterministic).")
@click.option("--seed", default=0, show_default=True, help="Seed for the search and the solver.")
@click.option("--max-runs", default=20000, show_default=True, type=click.IntRange(min=1),
              help="Budget of concrete runs.")
@click.option("--timeout", default=60.0, show_default=True, type=Seconds(min=0, min_open=True),
              help="Budget in seconds.")
@click.option("--max-len", default=6, show_default=True, type=click.IntRange(min=0),
              help="Longest array input to generate (also the most entries of a map input).")
@click.option("--max-string-length", default=None, type=click.IntRange(min=0),
              help="Longest string input to generate. By default 32 characters, doubled (up to 128) each time "
                   "the search runs out of ways to reach the edges still uncovered; given, the length is fixed.")
@click.option("--solver-timeout", default=10000, show_default=True, type=click.IntRange(min=0),
              help="Per-query solver timeout (ms): the clock's upper bound on --solver-rlimit; 0: no clock, so "
                   "answers never depend on the machine's load (needs --solver-rlimit).")
@click.option("--solver-rlimit", default=1_000_000, show_default=True, type=click.IntRange(min=0),
              help="Per-query Z3 resource limit: a budget of work, so the same on any machine and load "
                   "(--solver-timeout bounds it by the clock); 0: none.")
@click.option("--emit-tests", nargs=2, type=(click.Choice(["baml", "pytest", "json"]), click.Path(path_type=Path)),
              default=None, metavar="FORM DIR", help="Write the cases as BAML tests, a pytest file or JSON into DIR.")
@click.option("--tracker", type=click.Choice(["compiled", "interp"]), default=None,
              help="Tracker for the runs: instrumented compiled code (default; env INGOT_TRACKER) or the "
                   "reference interpreter loop. Both give the same report.")
@click.option("--prune-after", default=1000, show_default=True, type=click.IntRange(min=0),
              help="Symbolic executions of one instruction per run before hot-site pruning runs the rest "
                   "concretely (only every 2^k-th stays tracked); 0 tracks everything.")
@click.option("--panic-runs", default=500, show_default=True, type=click.IntRange(min=0),
              help="Runs to spend, once the edge search is over (full coverage or random rounds without "
                   "progress), on panic sites that have not panicked: those no check query aimed at, and "
                   "those whose check queries were all unsat or unknown (a later pass through a loop may "
                   "still reach them).")
@click.option("--max-memory", default=1024, show_default=True, type=click.IntRange(min=1),
              help="MB a run may grow the process by before it is cut (and reported under limits).")
@click.option("--max-llm-calls", default=1000, show_default=True, type=click.IntRange(min=1),
              help="LLM calls one run may make (each reply an input) before it is cut (and reported under "
                   "limits): a retry loop bounded by an input would otherwise build replies until --max-steps.")
@click.option("--lcov", "lcov_file", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Write line and branch coverage of the generated tests as an LCOV tracefile (genhtml, editors).")
@click.option("--cobertura", "cobertura_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE", help="Write the coverage as Cobertura XML (CI systems).")
@click.option("--html", "html_dir", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Write the coverage as a static HTML site: the source with covered and uncovered lines, "
                   "branches and findings marked.")
@click.option("--state", "state_dir", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Save the search state in DIR (created) between generations, every second or so, and "
                   "on Ctrl-C, which stops the search with a partial report (exit status 130). Without "
                   "FUNCTION: a directory per function.")
@click.option("--resume", "resume_dir", type=click.Path(file_okay=False, path_type=Path), default=None, metavar="DIR",
              help="Continue the search saved in DIR by --state (same program, function and options) to "
                   "the report an uninterrupted run gives; it goes on saving there. Without FUNCTION: the "
                   "unfinished functions, each from its checkpoint.")
@click.option("--only", multiple=True, metavar="GLOB",
              help="Without FUNCTION: explore the functions whose name matches GLOB. Repeatable.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(min=1),
              help="Without FUNCTION: processes exploring functions at once (same report for any number).")
@click.option("--dask", metavar="ADDRESS", default=None,
              help="Without FUNCTION: run the functions' explorations on the Dask scheduler at ADDRESS.")
def explore(targets: tuple[str, ...], as_json: bool, timings: bool, seed: int, max_runs: int, timeout: float,
            max_len: int, max_string_length: int | None, solver_timeout: int, solver_rlimit: int,
            emit_tests: tuple[str, Path] | None, tracker: str | None, prune_after: int, panic_runs: int,
            max_memory: int, max_llm_calls: int, lcov_file: Path | None, cobertura_file: Path | None, html_dir: Path | None,
            only: tuple[str, ...], workers: int, dask: str | None, state_dir: Path | None,
            resume_dir: Path | None) -> None:
    """Explore FUNCTION concolically: cover every feasible branch edge, find every reachable panic.

    Without FUNCTION, explore every function of the project (or those --only selects): one
    summary table, or with --json one document holding every function's report.
    """
    from ingot.concolic.explore import Explorer, Options
    from ingot.concolic.inputs import UnsupportedInput
    from ingot.concolic.report import as_json as report_json

    paths, function = split_function(targets)
    if function is not None and (only or workers != 1 or dask):
        raise click.UsageError("--only, --workers and --dask explore a project: give PATHs without FUNCTION "
                               "(one function's exploration runs in one process)")
    if workers != 1 and dask:
        raise click.UsageError("give --workers or --dask, not both")
    if solver_timeout == 0 and solver_rlimit == 0:
        raise click.UsageError("--solver-timeout 0 needs a --solver-rlimit: a query must have a bound")
    program = load_or_exit(paths, resolve_hosts=False)  # host results are symbolic inputs here
    if function is not None:
        require_function(program, function, paths)
    options = Options(max_runs=max_runs, timeout_s=timeout, max_len=max_len,
                      solver_timeout_ms=solver_timeout, solver_rlimit=solver_rlimit, seed=seed, prune_after=prune_after or None,
                      panic_runs=panic_runs, memory_mb=max_memory, max_llm_calls=max_llm_calls)
    if tracker is not None:
        options.tracker = tracker
    if max_string_length is not None:  # given: fixed (by default the search may grow it: `string_growth`)
        options.max_string_length, options.grow_strings_to = max_string_length, None
    if function is None:
        if state_dir is not None and resume_dir is not None:
            raise click.UsageError("give --state DIR to start a saved exploration or --resume DIR to continue one, "
                                   "not both")
        if dask and (state_dir is not None or resume_dir is not None):
            raise click.UsageError("--state and --resume save the explorations of local workers: give --workers, "
                                   "not --dask")
        from ingot.cli_explore import explore_project

        explore_project(program, paths, options, only, workers, dask, as_json, timings, emit_tests,
                        (lcov_file, cobertura_file, html_dir), (state_dir, resume_dir))
        return
    state = explore_state(program, state_dir, resume_dir)
    try:
        exploration = run_explorer(Explorer, program, function, options, show_progress=not as_json,
                                   state=state, resume=resume_dir is not None)
    except UnsupportedInput as e:
        fail(f"error: cannot explore {function}: {e}", 2)
    report = report_json(program.view, exploration, timings=timings)
    if exploration.stopped_by == "interrupted":
        print_report(report, as_json)
        where = f"; the state is saved in {state.path}: continue with --resume {state.path}" if state else ""
        fail(f"interrupted after {exploration.runs} runs{where}", 130)
    if emit_tests is not None:
        from ingot.concolic.testgen import write_tests

        form, out_dir = emit_tests
        path = write_tests(program.view, list(paths), function, report, form, out_dir)
        if not as_json:
            click.echo(f"wrote {len(report['tests'])} cases to {path}", err=True)
    if lcov_file or cobertura_file or html_dir:
        write_coverage(program, [exploration], lcov_file, cobertura_file, html_dir, quiet=as_json)
    print_report(report, as_json)


def print_report(report: dict[str, Any], as_json: bool) -> None:
    """An exploration's report: JSON, or a summary table with findings and uncovered edges."""
    from ingot.convert import to_json_text

    if as_json:
        click.echo(to_json_text(report, indent=1))
        return
    from rich.console import Console
    from rich.markup import escape

    from ingot.concolic.report import summary_table

    # Messages, values and source text are the program's: escaped, or `xs[i]` loses its `[i]`
    # to rich's markup (an italic tag) and `[/]` in a string value is an error.
    console = Console()
    console.print(summary_table(report))
    for f in report["findings"]:
        console.print(f"[bold red]{f['kind']}[/]: {escape(f['message'])}  args={escape(to_json_text(f['args']))}"
                      + (f"  llm={escape(to_json_text(f['mocks']))}" if f["mocks"] else ""))
        for line in f["trace"]:
            console.print(f"    {escape(line)}", highlight=False)
    for edge in report["coverage"]["uncovered"]:
        console.print(f"[yellow]uncovered[/] {escape(edge)}", highlight=False)
    for edge in report["coverage"]["infeasible"]:
        console.print(f"[dim]infeasible[/] {escape(edge)}", highlight=False)


def write_coverage(program: Program, explorations: Sequence[Any], lcov_file: Path | None, cobertura_file: Path | None,
                   html_dir: Path | None, quiet: bool = False) -> None:
    """Replay the explorations' tests and write the coverage reports asked for."""
    from ingot.coverage import build, write_cobertura, write_html, write_lcov
    from ingot.coverage.replay import ReplayError

    paths = {source.name: str(program.source_path(source.name) or source.name) for source in program.compiled.sources}
    try:
        coverage = build(program.view, explorations, paths)
        for target, write in ((lcov_file, write_lcov), (cobertura_file, write_cobertura), (html_dir, write_html)):
            if target is not None:
                write(coverage, target)
                if not quiet:
                    click.echo(f"wrote coverage to {target}", err=True)
    except ReplayError as e:
        fail(f"error: cannot replay the generated tests for coverage: {e}")
    except OSError as e:
        fail(f"error: cannot write coverage: {f'{e.filename}: {e.strerror}' if e.filename else e}")


def explore_state(program: Program, state_dir: Path | None, resume_dir: Path | None) -> Any:
    """The `StateDir` of `--state DIR` (created) or `--resume DIR`, or None."""
    from ingot.concolic.checkpoint import StateDir, StateError

    if state_dir is not None and resume_dir is not None:
        raise click.UsageError("give --state DIR to start a saved exploration or --resume DIR to continue one, "
                               "not both")
    path = state_dir or resume_dir
    if path is None:
        return None
    state = StateDir(path, {str(f): f.read_text(encoding="utf-8") for f in program.files})
    if state_dir is not None:
        try:
            state.create()
        except StateError as e:
            fail(f"error: {e}", 2)
    return state


def run_explorer(explorer_cls: Any, program: Program, function: str, options: Any, show_progress: bool,
                 state: Any = None, resume: bool = False) -> Any:
    """Run the search, with a progress bar on a terminal; Ctrl-C stops it at the end of a
    generation (saving its state), a second Ctrl-C at once."""
    from ingot.concolic.checkpoint import StateError, stop_on_interrupt

    def search(progress: Any = None) -> Any:
        try:
            if resume:
                explorer = explorer_cls.resume(program.view, function, options, state, progress)
            else:
                explorer = explorer_cls(program.view, function, options, progress, state)
            with stop_on_interrupt(explorer):
                return explorer.explore()
        except StateError as e:
            fail(f"error: {e}", 2)
        except KeyboardInterrupt:
            runs = state.saved_runs() if state is not None else None
            saved = f"; the last checkpoint ({runs} runs) is in {state.path}" if runs is not None else ""
            fail(f"interrupted{saved}", 130)

    if not show_progress:
        return search()
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[bold]exploring"), BarColumn(), TextColumn("{task.fields[status]}"),
                  TimeElapsedColumn(), transient=True) as progress:
        task = progress.add_task("explore", total=options.max_runs, status="")

        def update(ex: Any) -> None:
            grown = f"  strings up to {ex.string_length}" if ex.string_length > options.max_string_length else ""
            progress.update(task, completed=ex.runs,
                            status=f"runs {ex.runs}  edges {len(ex.covered)}/{len(ex.edges)}  "
                                   f"findings {len(ex.findings)}{grown}")

        return search(update)


def register_commands() -> None:
    """Commands that live in their own modules."""
    from ingot.cli_llm import prompt_command, test_command
    from ingot.cli_meta import call_command, mcp_command, meta_command

    for command in (meta_command, mcp_command, call_command, test_command, prompt_command):
        main.add_command(command)


register_commands()


def entry() -> None:
    """Console entry point: a bug in ingot is reported as one, never as a bare traceback."""
    # The process ends with the command. Left to itself, the interpreter's shutdown would run the
    # cyclic collector over every object the command made (a compiled program, an exploration's
    # expressions and Z3 terms): 50-60 ms after a small exploration, about as long as its search,
    # for memory the OS takes back anyway. Frozen objects are never collected; reference counting
    # still frees and finalizes everything outside cycles, and the other exit handlers run as before.
    atexit.register(gc.freeze)
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
