"""ingot: compile, run and concolically explore BAML programs."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ingot.api import CallOptions, HostError, Program, load, load_source, replies
    from ingot.convert import ArgumentError
    from ingot.llm.mocks import Replies
    from ingot.runtime.errors import BamlError
    from ingot.syntax.diagnostics import CompileError, Diagnostic

# The public names and the module defining each. They are imported on first use (PEP 562), so
# that `import ingot.cli` and `ingot --help` do not compile the whole toolchain's classes.
_EXPORTS = {
    "load": "ingot.api", "load_source": "ingot.api", "Program": "ingot.api", "CallOptions": "ingot.api",
    "HostError": "ingot.api", "Replies": "ingot.llm.mocks", "replies": "ingot.api",
    "CompileError": "ingot.syntax.diagnostics", "Diagnostic": "ingot.syntax.diagnostics",
    "BamlError": "ingot.runtime.errors", "ArgumentError": "ingot.convert",
}

__all__ = ["load", "load_source", "Program", "CallOptions", "HostError", "Replies", "replies", "CompileError", "Diagnostic", "BamlError", "ArgumentError"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """A public name, or a subpackage (`ingot.llm` after a bare `import ingot`), imported now."""
    module = _EXPORTS.get(name)
    if module is not None:
        value = getattr(importlib.import_module(module), name)
        globals()[name] = value
        return value
    try:
        return importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
