"""ingot: compile, run and concolically explore BAML programs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ingot.lazy_exports import lazy_exports

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
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
