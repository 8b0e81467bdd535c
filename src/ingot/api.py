"""The Python API: `ingot.load(path_or_source)` and `Program.call`."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ingot.bex.compiled import CompiledVM
from ingot.bex.program import BexFunction
from ingot.bex.vm import DEFAULT_MAX_DEPTH, VM, LlmHandler
from ingot.compiler import Compiled, compile_source
from ingot.convert import ArgumentConverter, ArgumentError, to_python
from ingot.llm.mocks import Replies
from ingot.mir.api import ProgramView
from ingot.runtime import ops
from ingot.runtime.errors import BamlError
from ingot.runtime.values import Instance

# Execution tiers: the reference interpreter, and BEX translated to Python functions.
TIERS: dict[str, type[VM]] = {"interp": VM, "compiled": CompiledVM}
DEFAULT_TIER = "compiled"


def vm_class(tier: str | None) -> type[VM]:
    """The VM of a tier: `tier`, else `$INGOT_TIER`, else the compiled tier."""
    name = tier or os.environ.get("INGOT_TIER") or DEFAULT_TIER
    try:
        return TIERS[name]
    except KeyError:
        raise ValueError(f"unknown tier {name!r}; expected one of {', '.join(sorted(TIERS))}") from None


def replies(*values: Any) -> Replies:
    """Mock several calls of one LLM function: the first call gets the first reply, and so on.

    A `str` is a raw model reply (parsed into the return type); wrap a string
    result in `ingot.llm.Value` to give it as a value. Any other value is the result.
    """
    return Replies(*values)


class HostError(Exception):
    """A host (FFI) target that may not or cannot be imported."""


class Program:
    """A compiled BAML program: call its functions, inspect its MIR and bytecode."""

    def __init__(self, compiled: Compiled, path: Path | None = None) -> None:
        self.compiled = compiled
        self.path = path
        self.bex = compiled.bex
        self._converter = ArgumentConverter(compiled.bex, compiled.items)
        self._view: ProgramView | None = None

    def bind(self, name: str, target: Callable[..., Any]) -> None:
        """Run `target` (a Python callable) whenever BAML calls function `name`.

        The function keeps its BAML body for the real engine; here its calls go to
        `target` with the BAML values as positional arguments (class instances as
        `ingot.runtime.values.Instance`), and what it returns is the call's value:
        any Python object, opaque to BAML (a tensor), which BAML passes around.
        """
        fn = self.function(name)
        if fn.kind == "llm":
            raise HostError(f"`{name}` is an LLM function; mock it with llm={{...}} instead")
        if not callable(target):
            raise HostError(f"cannot bind `{name}` to {target!r}: not callable")
        fn.kind = "host"
        self.bex.host_targets.setdefault(name, None)
        self.bex.host_callables[name] = target
        forget_translations(self.bex)  # compiled code called the BAML body directly
        if "torch" in sys.modules:
            # Host functions of a torch program return tensors where BAML says float:
            # teach the operators about them (ingot.pack.tensors documents which).
            importlib.import_module("ingot.pack.tensors")

    @property
    def hosts(self) -> dict[str, str | None]:
        """Host functions and the targets their source names (None: bind from Python)."""
        return dict(self.bex.host_targets)

    def import_hosts(self) -> None:
        """Import and bind every `@@ingot(host="module:callable")` target."""
        for name, target in self.bex.host_targets.items():
            if target is not None and name not in self.bex.host_callables:
                self.bind(name, import_target(name, target))

    @property
    def functions(self) -> list[str]:
        """Callable user functions (methods and internal helpers excluded)."""
        return [f.name for f in self.bex.functions
                if not f.synthetic and "." not in f.name and not f.name.startswith("$")]

    def function(self, name: str) -> BexFunction:
        fn = self.bex.by_name.get(name)
        if fn is None or fn.synthetic or name.startswith("$"):
            raise KeyError(f"no function `{name}` in {self.compiled.source.name}")
        return fn

    def convert_args(self, name: str, args: dict[str, Any]) -> list[Any]:
        """Validate named arguments against the signature; return them in order as BAML values."""
        fn = self.function(name)
        item = self.compiled.items.functions[name]
        out = []
        for p in item.params:
            if p.name in args:
                out.append(self._converter.convert(args[p.name], p.ty, f"args.{p.name}"))
            elif p.default is not None:
                raise ArgumentError(f"args.{p.name}", "parameters with defaults must be given (defaults "
                                                      "are evaluated at BAML call sites)")
            else:
                raise ArgumentError(f"args.{p.name}", f"missing required argument of type {p.ty}")
        extra = sorted(set(args) - {p.name for p in item.params})
        if extra:
            raise ArgumentError(f"args.{extra[0]}", f"{fn.name} has no parameter `{extra[0]}`")
        return out

    def call(self, name: str, /, *, max_depth: int = DEFAULT_MAX_DEPTH, max_steps: int | None = None,
             llm: Mapping[str, Any] | LlmHandler | None = None, tier: str | None = None, **args: Any) -> Any:
        """Run function `name` with keyword arguments; return plain Python values.

        `llm` mocks LLM functions: `{"Classify": value or raw reply text}`;
        `ingot.replies(a, b)` gives one reply per call, in order (a list is a
        value); LLM functions without a mock call their declared client. Raises `ArgumentError` for bad arguments and
        `BamlError` (with `.kind`, `.message`, `.trace`) when a panic or an
        uncaught throw escapes.
        """
        return self.run(name, args, max_depth=max_depth, max_steps=max_steps, llm=llm, tier=tier)

    def stream(self, name: str, args: Mapping[str, Any] | None = None, /, **kwargs: Any) -> Any:
        """Stream LLM function `name`: iterating gives partial values as the reply arrives (shaped like
        `call`'s results); `.final()` gives the parsed result. See `ingot.llm.streaming`."""
        from ingot.llm.streaming import open_stream

        return open_stream(self, name, {**dict(args or {}), **kwargs})

    def run(self, name: str, args: Mapping[str, Any], *, max_depth: int = DEFAULT_MAX_DEPTH,
            max_steps: int | None = None, llm: Mapping[str, Any] | LlmHandler | None = None,
            tier: str | None = None) -> Any:
        """`call` with the arguments as a mapping (for parameters named like `call`'s options).

        `tier` picks the executor: "compiled" (default) or "interp" (the reference
        interpreter); `$INGOT_TIER` sets the default. A call with tensor arguments
        runs on the interpreter unless `tier` says otherwise: its operators route
        every tensor through `ingot.runtime.ops` (the compiled tier's inline float
        code would hand a batched comparison to Python's `or`).
        """
        values = self.convert_args(name, dict(args))
        if tier is None and ops.FLOAT_LIKE and any(holds_float_like(v) for v in values):
            tier = "interp"
        vm = vm_class(tier)(self.bex, max_depth=max_depth, max_steps=max_steps, llm=self.llm_handler(llm))
        return to_python(vm.call(self.function(name), values))

    def llm_handler(self, llm: Mapping[str, Any] | LlmHandler | None) -> LlmHandler | None:
        """The handler for LLM calls: mocks first, then the declared clients."""
        if llm is not None and not isinstance(llm, Mapping):
            return llm
        if not llm and not any(f.kind == "llm" for f in self.bex.functions):
            return None  # nothing to call
        from ingot.llm.runtime import LlmRuntime

        return LlmRuntime(self.view, mocks=dict(llm or {}))

    @property
    def view(self) -> ProgramView:
        """The read-only MIR extension interface over this program."""
        if self._view is None:
            c = self.compiled
            self._view = ProgramView(c.mir, self.bex, c.items, c.meta, c.clients, c.llm_clients)
        return self._view

    @property
    def _meta(self) -> SimpleNamespace:
        """`program._meta.ingot`: harvested @ingot annotations keyed by item (`Func`, `Func.param`, ...)."""
        return SimpleNamespace(ingot=self.view.meta)

    def vm(self, tier: str | None = None, **options: Any) -> VM:
        return vm_class(tier)(self.bex, **options)


def holds_float_like(value: Any, depth: int = 0) -> bool:
    """Whether a converted argument holds a tensor standing in for a float."""
    if isinstance(value, ops.FLOAT_LIKE):
        return True
    if depth > 32:
        return False
    if isinstance(value, list):
        return any(holds_float_like(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return any(holds_float_like(v, depth + 1) for v in value.values())
    if isinstance(value, Instance):
        return any(holds_float_like(v, depth + 1) for v in value.fields)
    return False


def import_target(name: str, target: str) -> Callable[..., Any]:
    """`"package.module:callable"` -> the callable (a clear `HostError` when it is not there)."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise HostError(f"host target of `{name}` must be \"module:callable\", got {target!r}")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise HostError(f"cannot import host target {target!r} of `{name}`: {e}") from None
    if not callable(obj):
        raise HostError(f"host target {target!r} of `{name}` is not callable")
    return obj


def forget_translations(program: Any) -> None:
    from ingot.bex.compiled import forget

    forget(program)


def load(path_or_source: str | Path, filename: str | None = None, *, allow_hosts: bool = False,
         resolve_hosts: bool = True) -> Program:
    """Compile a BAML file (a `Path`, or a `str` naming an existing `.baml` file) or source text.

    Raises `ingot.CompileError` carrying every diagnostic when the source has errors.
    Host targets named in source (`@@ingot(host="module:callable")`) are imported only
    with `allow_hosts=True`; otherwise a program that names any raises `HostError`
    listing them, and nothing is imported. Tools that never run host functions
    (checking, printing, exploring, where host results are symbolic inputs) pass
    `resolve_hosts=False`: nothing is imported and nothing is refused.
    """
    path: Path | None = None
    if isinstance(path_or_source, Path):
        path = path_or_source
    elif "\n" not in path_or_source and path_or_source.endswith(".baml") and Path(path_or_source).is_file():
        path = Path(path_or_source)
    if path is not None:
        text = path.read_text(encoding="utf-8")
        name = filename or path.name
    else:
        text = str(path_or_source)
        name = filename or "main.baml"
    program = Program(compile_source(text, name), path)
    targets = {n: t for n, t in program.hosts.items() if t is not None}
    if not resolve_hosts:
        return program
    if targets and not allow_hosts:
        listed = ", ".join(f"{n} -> {t}" for n, t in sorted(targets.items()))
        raise HostError(f"{name} wants to run Python host functions ({listed}); load it with "
                        "allow_hosts=True (--allow-hosts) to import them")
    if allow_hosts:
        program.import_hosts()
    return program


__all__ = ["Program", "HostError", "load", "BamlError", "ArgumentError", "Replies", "replies"]
