"""The pipeline: source -> tokens -> AST -> typed HIR -> MIR -> BEX.

`compile_source` runs every stage and stops at the first stage that reports
errors, returning all of that stage's diagnostics at once.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

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
    source: SourceFile
    module: A.Module
    typed: TypedProgram
    items: Items
    mir: ir.MirProgram
    bex: BexProgram
    clients: dict[str, ClientSpec] = field(default_factory=dict)  # declared clients by name
    llm_clients: dict[str, ClientSpec] = field(default_factory=dict)  # LLM function -> its client
    meta: dict[str, dict[str, Any]] = field(default_factory=dict)  # _meta.ingot


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
    """Compile BAML source; raise `CompileError` with every diagnostic of the failing stage."""
    original = SourceFile(filename, text)
    stripped, annotations, diags = harvest_annotations(original)
    if diags:
        raise CompileError(diags)
    # The parser reads the stripped text; diagnostics show the original lines (same offsets).
    source = SourceFile(filename, stripped, display=text)
    module, diags = parse(source)
    if diags:
        raise CompileError(diags)
    typed, items, diags = check_module(module)
    clients, llm_clients, client_diags = collect_clients(module)
    client_diags += supported_clients(clients, llm_clients)
    meta, meta_diags = attach_annotations(module, annotations)
    diags = diags + client_diags + meta_diags
    if diags:
        raise CompileError(diags)
    try:
        mir, diags = lower_program(typed, items)
    except RecursionError:
        raise CompileError([_too_deep(source)]) from None
    if diags:
        raise CompileError(diags)
    cleanup_program(mir)
    for name, fn in prelude_functions():
        mir.functions[name] = fn
    bex = emit_program(mir, items, filename)
    mark_hosts(bex, meta)
    return Compiled(source, module, typed, items, mir, bex, clients, llm_clients, meta)


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
