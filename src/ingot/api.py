"""The Python API: `ingot.load(path)`, `ingot.load_source(text)` and `Program.call`."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from types import MappingProxyType, SimpleNamespace
from typing import TYPE_CHECKING, Any

from ingot.bex.compiled import CompiledVM
from ingot.bex.program import BexFunction
from ingot.bex.vm import DEFAULT_MAX_DEPTH, VM, LlmHandler
from ingot.compiler import Compiled, compile_files
from ingot.convert import ArgumentConverter, ArgumentError, to_python
from ingot.lazy_exports import lazy_exports
from ingot.project import project_files, read_sources
from ingot.runtime import limits, ops
from ingot.runtime.errors import BamlError
from ingot.runtime.limits import Sizes
from ingot.runtime.values import Instance
from ingot.view import ProgramView

if TYPE_CHECKING:
    from ingot.llm.mocks import Replies

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
    from ingot.llm.mocks import Replies

    return Replies(*values)


# `ingot.api.Replies` is imported on first use: exploring and running without mocks never
# load the mock forms.
__getattr__, _ = lazy_exports(__name__, {"Replies": "ingot.llm.mocks"}, globals(), [])


class HostError(Exception):
    """A host (FFI) target that may not or cannot be imported."""


@dataclass(frozen=True, slots=True)
class CallOptions:
    """How a call runs; never a BAML argument, so a parameter of any name can be passed.

    `llm` mocks LLM functions (`{"Classify": value or raw reply text}`, `ingot.replies(a, b)`
    for one reply per call) or is an LLM handler; `tier` is "compiled" or "interp".
    """

    max_depth: int = DEFAULT_MAX_DEPTH
    # The limits (README, "Limits"); None lifts one.
    max_steps: int | None = limits.MAX_STEPS  # loop iterations and calls: InstructionLimit
    timeout: float | None = limits.TIMEOUT_S  # seconds of wall clock: Cancelled
    max_memory: int | None = limits.MAX_MEMORY_MB  # MiB the call may add to the process: AllocFailure
    max_string_length: int | None = limits.MAX_STRING_LENGTH  # characters: AllocFailure
    max_array_length: int | None = limits.MAX_ARRAY_LENGTH  # elements: AllocFailure
    max_map_length: int | None = limits.MAX_MAP_LENGTH  # entries: AllocFailure
    llm: Mapping[str, Any] | LlmHandler | None = None
    tier: str | None = None
    # Asked every `limits.CHECK_EVERY` steps (backward jumps and calls); a reason (a str) stops
    # the call with a `baml.panics.Cancelled` panic carrying it: time limits, cancellation.
    stop: Callable[[], str | None] | None = None
    # Python callables bound to functions for these calls only, over the program's own (`bind`).
    hosts: Mapping[str, Callable[..., Any]] | None = None

    def vm_options(self) -> dict[str, Any]:
        """The VM's keyword arguments for these limits."""
        sizes = Sizes(self.max_string_length, self.max_array_length, self.max_map_length)
        return {"max_depth": self.max_depth, "max_steps": self.max_steps, "timeout": self.timeout,
                "max_memory": self.max_memory, "sizes": sizes, "stop": self.stop}


OPTION_NAMES = frozenset(f.name for f in fields(CallOptions))


class Calls:
    """A program's functions called with fixed options: `program.options(max_steps=10_000).call("F", x=1)`."""

    def __init__(self, program: Program, options: CallOptions) -> None:
        self.program = program
        self.settings = options

    def call(self, name: str, /, **args: Any) -> Any:
        """`Program.call` with these options."""
        return self.program.run(name, args, options=self.settings)

    def run(self, name: str, args: Mapping[str, Any] | None = None) -> Any:
        """`Program.run` with these options."""
        return self.program.run(name, args, options=self.settings)

    def options(self, **changes: Any) -> Calls:
        """These options with some changed."""
        return Calls(self.program, _options(self.settings, changes))


def _options(base: CallOptions, changes: Mapping[str, Any]) -> CallOptions:
    unknown = sorted(set(changes) - OPTION_NAMES)
    if unknown:
        raise TypeError(f"unknown call option {unknown[0]!r}; options: {', '.join(sorted(OPTION_NAMES))}")
    return replace(base, **changes)


class Program:
    """A compiled BAML program: call its functions, inspect its MIR and bytecode."""

    def __init__(self, compiled: Compiled, path: Path | None = None, files: Sequence[Path] = ()) -> None:
        self.compiled = compiled
        self.path = path  # the file or directory it was loaded from (None: source text, several paths)
        self.files = list(files)  # every file compiled, in order
        self.bex = compiled.bex
        self._converter = ArgumentConverter(compiled.bex, compiled.items)
        self._view: ProgramView | None = None
        # Functions bound to Python callables: handed to every VM this program makes (the
        # compiled program is never changed, so `options(hosts=...)` can bind others per call).
        self._bound: dict[str, Callable[..., Any]] = {}

    def bind(self, name: str, target: Callable[..., Any]) -> None:
        """Run `target` (a Python callable) whenever BAML calls function `name`.

        The function keeps its BAML body for the real engine; here its calls go to
        `target` with the BAML values as positional arguments (class instances as
        `ingot.runtime.values.Instance`), and what it returns is the call's value:
        any Python object, opaque to BAML (a tensor), which BAML passes around.
        """
        check_binding(self, name, target)
        self._bound[name] = target
        # No cache to clear: translations are keyed by the bound set (`ingot.bex.compiled.translate`).
        if "torch" in sys.modules:
            # Host functions of a torch program return tensors where BAML says float:
            # teach the operators about them (ingot.pack.tensors documents which).
            importlib.import_module("ingot.pack.tensors")

    @property
    def hosts(self) -> dict[str, str | None]:
        """Host functions and the targets their source names (None: bind from Python)."""
        return {**self.bex.host_targets, **{name: None for name in self._bound if name not in self.bex.host_targets}}

    @property
    def bound(self) -> Mapping[str, Callable[..., Any]]:
        """The Python callables bound to functions (`bind`, imported hosts), as VMs receive them."""
        return MappingProxyType(self._bound)

    def import_hosts(self) -> None:
        """Import and bind every `@@ingot(host="module:callable")` target."""
        for name, target in self.bex.host_targets.items():
            if target is not None and name not in self._bound:
                self.bind(name, import_target(name, target))

    @property
    def name(self) -> str:
        """What messages call the program: its path, or its file name when loaded from text."""
        return str(self.path) if self.path is not None else self.compiled.source.name

    def source_path(self, name: str) -> Path | None:
        """The path of the file diagnostics and traces call `name` (None for source text)."""
        for source, path in zip(self.compiled.sources, self.files):
            if source.name == name:
                return path
        return None

    @property
    def functions(self) -> list[str]:
        """Callable user functions (methods and internal helpers excluded)."""
        return [f.name for f in self.bex.functions
                if not f.synthetic and "." not in f.name and not f.name.startswith("$")]

    def function(self, name: str) -> BexFunction:
        fn = self.bex.by_name.get(name)
        if fn is None or fn.synthetic or name.startswith("$"):
            raise KeyError(f"no function `{name}` in {self.name}")
        return fn

    def convert_args(self, name: str, args: Mapping[str, Any]) -> list[Any]:
        """Validate named arguments against the signature; return them in order as BAML values."""
        fn = self.function(name)
        params = self.compiled.items.functions[name].params
        return self._converter.arguments(fn.name, [(p.name, p.ty, p.default is not None) for p in params], args,
                                         hint=OPTION_NAMES)

    def options(self, **options: Any) -> Calls:
        """Call this program's functions with options (the limits of `CallOptions`, `llm`, `tier`, `stop`).

        `program.options(llm={"Classify": reply}, max_steps=10_000).call("Route", message="hi")`
        """
        return Calls(self, _options(CallOptions(), options))

    def call(self, name: str, /, **args: Any) -> Any:
        """Run function `name` with its BAML arguments by keyword; return plain Python values.

        Every keyword is a BAML argument (a parameter named `llm` or `max_steps` is passed
        like any other); options go through `program.options(...)` or `run(..., options=)`.
        LLM functions without a mock call their declared client. Raises `ArgumentError` for
        bad arguments and `BamlError` (with `.kind`, `.message`, `.trace`) when a panic or an
        uncaught throw escapes.
        """
        return self.run(name, args)

    def stream(self, name: str, args: Mapping[str, Any] | None = None, /, **kwargs: Any) -> Any:
        """Stream LLM function `name`: iterating gives partial values as the reply arrives (shaped like
        `call`'s results); `.final()` gives the parsed result. See `ingot.llm.streaming`."""
        from ingot.llm.streaming import open_stream

        return open_stream(self, name, {**dict(args or {}), **kwargs})

    def run(self, name: str, args: Mapping[str, Any] | None = None, *, options: CallOptions | None = None,
            **option_values: Any) -> Any:
        """`call` with the arguments as a mapping; options as `options=CallOptions(...)` or by keyword.

        `tier` picks the executor: "compiled" (default) or "interp" (the reference
        interpreter); `$INGOT_TIER` sets the default. A call with tensor arguments
        runs on the interpreter unless `tier` says otherwise: its operators route
        every tensor through `ingot.runtime.ops` (the compiled tier's inline float
        code would hand a batched comparison to Python's `or`).
        """
        opts = _options(options or CallOptions(), option_values)
        values = self.convert_args(name, {} if args is None else args)
        tier = opts.tier
        if tier is None and ops.FLOAT_LIKE and any(holds_float_like(v) for v in values):
            tier = "interp"
        hosts = {**self._bound, **opts.hosts} if opts.hosts else self._bound
        for bound, target in (opts.hosts or {}).items():
            check_binding(self, bound, target)
        vm = vm_class(tier)(self.bex, llm=self.llm_handler(opts.llm), hosts=hosts, **opts.vm_options())
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
        return vm_class(tier)(self.bex, **{"hosts": self._bound, **options})


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


def check_binding(program: Program, name: str, target: Any) -> None:
    """A callable may stand in for a BAML function, never for an LLM function."""
    if program.function(name).kind == "llm":
        raise HostError(f"`{name}` is an LLM function; mock it with llm={{...}} instead")
    if not callable(target):
        raise HostError(f"cannot bind `{name}` to {target!r}: not callable")


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


PathArg = str | os.PathLike[str]


def load(path: PathArg | Sequence[PathArg] | None = None, filename: str | None = None, *,
         source: str | None = None, allow_hosts: bool = False, resolve_hosts: bool = True) -> Program:
    """Compile a BAML project: a file, a directory (every `.baml` below it), or a list of them.

    All files form one program with one namespace, as the engine compiles a `baml_src/`
    folder; diagnostics and traces name each file relative to the project's root.
    `source=` (or `load_source`) compiles text instead, named `filename` (default
    `main.baml`). A `str` holding a newline is taken as source text too (no path holds
    one); any other `str` is a path. A missing path raises `FileNotFoundError` naming it.

    Raises `ingot.CompileError` carrying every diagnostic when the source has errors.
    Host targets named in source (`@@ingot(host="module:callable")`) are imported only
    with `allow_hosts=True`; otherwise a program that names any raises `HostError`
    listing them, and nothing is imported. Tools that never run host functions
    (checking, printing, exploring, where host results are symbolic inputs) pass
    `resolve_hosts=False`: nothing is imported and nothing is refused.
    """
    if source is not None or (isinstance(path, str) and "\n" in path):
        if source is not None and path is not None:
            raise TypeError("give a path or source=, not both")
        text = source if source is not None else str(path)
        return load_source(text, filename or "main.baml", allow_hosts=allow_hosts, resolve_hosts=resolve_hosts)
    if path is None:
        raise TypeError("load() needs a path (a file or directory) or source=")
    paths = [path] if isinstance(path, (str, os.PathLike)) else list(path)
    try:
        files = project_files(paths)
    except FileNotFoundError as e:
        if isinstance(path, str) and "{" in path:  # one line of BAML, not a path
            raise FileNotFoundError(e.errno, f"{e.strerror} (to compile source text, use "
                                    "ingot.load_source(text) or load(source=text))", e.filename) from None
        raise
    sources = read_sources(files)
    if filename is not None and len(sources) == 1:
        sources = [(filename, sources[0][1])]
    single = Path(paths[0]) if len(paths) == 1 else None
    program = Program(compile_files(sources), single, [f.path for f in files])
    return _resolve_hosts(program, allow_hosts, resolve_hosts)


def load_source(text: str, filename: str = "main.baml", *, allow_hosts: bool = False,
                resolve_hosts: bool = True) -> Program:
    """Compile BAML source text (one file named `filename`); the options are `load`'s."""
    return _resolve_hosts(Program(compile_files([(filename, text)])), allow_hosts, resolve_hosts)


def load_sources(files: Sequence[tuple[str, str]], *, allow_hosts: bool = False,
                 resolve_hosts: bool = True) -> Program:
    """Compile `(name, text)` files as one project, as `load` compiles the files it reads (so a
    process without the files, a worker of a cluster, compiles the same program)."""
    return _resolve_hosts(Program(compile_files(list(files))), allow_hosts, resolve_hosts)


def _resolve_hosts(program: Program, allow_hosts: bool, resolve_hosts: bool) -> Program:
    if not resolve_hosts:
        return program
    targets = {n: t for n, t in program.hosts.items() if t is not None}
    if targets and not allow_hosts:
        listed = ", ".join(f"{n} -> {t}" for n, t in sorted(targets.items()))
        raise HostError(f"{program.name} wants to run Python host functions ({listed}); load it with "
                        "allow_hosts=True (--allow-hosts) to import them")
    if allow_hosts:
        program.import_hosts()
    return program


__all__ = ["Program", "CallOptions", "Calls", "HostError", "load", "load_source", "BamlError", "ArgumentError", "Replies", "replies"]
