"""The pipeline: source -> tokens -> AST -> typed HIR -> MIR -> BEX.

`compile_files` compiles the files of a project as one program (one namespace,
as the BAML engine compiles a `baml_src/` folder): each file is harvested and
parsed on its own, so every span and diagnostic names its file, and the items of
all files are then checked, lowered and emitted together. It stops at the first
stage that reports errors, returning all of that stage's diagnostics at once.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, ParamSpec, TypeVar

from ingot.bex.emit import emit_program
from ingot.bex.program import BexProgram
from ingot.mir import ir
from ingot.mir.cleanup import cleanup_program
from ingot.mir.lower import lower_program
from ingot.semantics.check import check_module
from ingot.semantics.clients import ClientSpec, collect_clients
from ingot.semantics.hir import TypedProgram
from ingot.semantics.resolve import Items
from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, CompileError, Diagnostic, SourceFile, Span
from ingot.syntax.parser import parse


@dataclass(slots=True)
class Compiled:
    source: SourceFile  # the first file (the only one of a single-file program)
    module: A.Module  # the items of every file
    typed: TypedProgram
    items: Items
    mir: ir.MirProgram
    bex: BexProgram
    clients: dict[str, ClientSpec] = field(default_factory=dict)  # declared clients by name
    llm_clients: dict[str, ClientSpec] = field(default_factory=dict)  # LLM function -> its client
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)  # _meta.ingot
    sources: list[SourceFile] = field(default_factory=list)  # every file, in compilation order


@functools.cache
def prelude_functions() -> tuple[tuple[str, ir.MirFunction], ...]:
    """The BAML-written built-ins, compiled once per process."""
    text = resources.files("ingot.bex").joinpath("prelude.baml").read_text(encoding="utf-8")
    source = SourceFile("<prelude>", text)
    module, diags = parse(source)
    typed, items, diags2 = check_module(module, allow_any=True)
    mir, diags3 = lower_program(typed, items)
    problems = diags + diags2 + diags3
    assert not problems, "the prelude must compile: " + "; ".join(d.engine_text() for d in problems)
    cleanup_program(mir)
    out = []
    for name, fn in mir.functions.items():
        fn.name = ir.PRELUDE_PREFIX + name
        fn.synthetic = True
        out.append((fn.name, fn))
    return tuple(out)


def compile_source(text: str, filename: str = "main.baml") -> Compiled:
    """Compile one file's BAML source; raise `CompileError` with every diagnostic of the failing stage."""
    return compile_files([(filename, text)])


def compile_files(files: Sequence[tuple[str, str]]) -> Compiled:
    """Compile `(name, text)` files as one program; raise `CompileError` as `compile_source` does."""
    if not files:
        raise ValueError("a program needs at least one file")
    try:
        return on_compiler_stack(_compile_files, files)
    except RecursionError:  # a chain or nesting no pass bounds; MAX_NESTING keeps the rest in reach
        raise CompileError([_too_deep(SourceFile(*files[0]))]) from None


# The parser, checker and lowering recurse once per level of nesting (several Python frames per
# level); the parser stops at MAX_NESTING levels (syntax/parse_base.py). Compiling runs on a
# thread of its own whose stack and the interpreter's recursion limit hold that depth in every
# pass, whatever the caller's stack. The recursion limit is process-wide, so it is only ever
# raised (never lowered again), to a value safe for the main thread's stack too.
COMPILER_STACK_BYTES = 256 * 1024 * 1024
COMPILER_RECURSION_LIMIT = 20_000
_stack_size_lock = threading.Lock()
P = ParamSpec("P")
R = TypeVar("R")


def on_compiler_stack(fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """`fn(*args, **kwargs)` on a thread with the compiler's stack; its result or its exception."""
    if sys.getrecursionlimit() < COMPILER_RECURSION_LIMIT:
        sys.setrecursionlimit(COMPILER_RECURSION_LIMIT)
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, fn(*args, **kwargs)))
        except BaseException as e:  # handed to the calling thread as it is
            outcome.append((False, e))

    with _stack_size_lock:  # threading.stack_size applies to every thread started after it
        previous = threading.stack_size(COMPILER_STACK_BYTES)
        try:
            worker = threading.Thread(target=run, name="ingot-compiler", daemon=True)
            worker.start()
        finally:
            threading.stack_size(previous)
    worker.join()
    ok, value = outcome[0]
    if not ok:
        raise value
    return value  # type: ignore[no-any-return]


def _compile_files(files: Sequence[tuple[str, str]]) -> Compiled:
    parsed = [_parse_file(name, text) for name, text in files]
    diags = [d for _, _, file_diags in parsed for d in file_diags]
    if diags:
        raise CompileError(diags)
    sources = [module.span.source for module, _, _ in parsed]
    module = A.Module([item for m, _, _ in parsed for item in m.items], parsed[0][0].span)
    typed, items, diags = check_module(module)
    clients, llm_clients, client_diags = collect_clients(module)
    client_diags += supported_clients(clients, llm_clients)
    meta: dict[str, dict[str, Any]] = {}
    for file_module, harvested, _ in parsed:  # an annotation belongs to an item of its own file
        file_meta, meta_diags = attach_annotations(file_module, harvested)
        meta.update(file_meta)
        client_diags += meta_diags
    diags = diags + client_diags
    if diags:
        raise CompileError(diags)
    mir, diags = lower_program(typed, items)
    if diags:
        raise CompileError(diags)
    cleanup_program(mir)
    for name, fn in prelude_functions():
        mir.functions[name] = fn
    bex = emit_program(mir, items, sources[0].name)
    name_files(bex, mir)
    mark_hosts(bex, meta)
    return Compiled(sources[0], module, typed, items, mir, bex, clients, llm_clients, meta, sources)


def _parse_file(name: str, text: str) -> tuple[A.Module, list[Any], list[Diagnostic]]:
    """One file's module, its harvested annotations, and its diagnostics (annotations, then syntax)."""
    original = SourceFile(name, text)
    stripped, annotations, diags = harvest_annotations(original)
    # The parser reads the stripped text; diagnostics show the original lines (same offsets).
    source = SourceFile(name, stripped, display=text)
    if diags:
        return A.Module([], Span(source, 0, 0)), annotations, diags
    module, diags = parse(source)
    return module, annotations, diags


def name_files(bex: BexProgram, mir: ir.MirProgram) -> None:
    """Each function's traces name the file it is written in (prelude functions keep the first file's)."""
    for name, fn in mir.functions.items():
        if not name.startswith(ir.PRELUDE_PREFIX):
            bex.by_name[name].file = fn.span.source.name


def mark_hosts(bex: BexProgram, meta: dict[str, dict[str, Any]]) -> None:
    """`@@ingot(host)` / `@@ingot(host="module:callable")`: the function runs Python, not its body."""
    for name, keys in meta.items():
        target = keys.get("host")
        fn = bex.by_name.get(name)
        if target is None or target is False or fn is None or fn.kind != "body":
            continue
        fn.kind = "host"
        bex.host_targets[name] = target if isinstance(target, str) else None


def supported_clients(clients: dict[str, ClientSpec], llm_clients: dict[str, ClientSpec]) -> list[Diagnostic]:
    """Clients ingot cannot call get a "not supported yet" diagnostic at load time."""
    from ingot.llm.clients import validate_clients

    return list(validate_clients(clients.values(), llm_clients))


def harvest_annotations(source: SourceFile) -> tuple[str, list[Any], list[Diagnostic]]:
    """Find `@ingot(...)`/`@@ingot(...)`, blank them out (offsets kept); see ingot.syntax.annotations."""
    from ingot.syntax.annotations import harvest

    result = harvest(source)
    return result.text, result.annotations, result.diagnostics


def attach_annotations(module: A.Module, annotations: list[Any]) -> tuple[dict[str, dict[str, Any]],
                                                                         list[Diagnostic]]:
    """Key each harvested annotation by the item it annotates (`Func`, `Func.param`, ...)."""
    from ingot.semantics.meta import attach

    return attach(module, annotations)


def _too_deep(source: SourceFile) -> Diagnostic:
    return Diagnostic(Code.UNSUPPORTED, "expression nesting is too deep", Span(source, 0, 0))
