"""What code that serves a loaded program needs of it: the door `ingot.meta` goes through.

The MCP server and the generated CLI (`ingot.meta`) list a program's functions,
read its view (types, `@ingot` annotations) and run a function on arguments
given as plain JSON-like values. `RunnableProgram` is that much of
`ingot.api.Program` (which satisfies it); `ArgumentError` (bad arguments, naming
the field) and `BamlError` (a panic or uncaught throw) are what a run raises.
Depending on this protocol instead of `ingot.api` keeps loading, binding and
call options out of meta's reach (an import-linter contract forbids it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from ingot.convert import ArgumentError
from ingot.runtime.errors import BamlError
from ingot.view import ProgramView

__all__ = ["RunnableProgram", "ArgumentError", "BamlError"]


class RunnableProgram(Protocol):
    """A loaded program as the code serving it sees it."""

    @property
    def view(self) -> ProgramView: ...

    @property
    def functions(self) -> list[str]:
        """Callable user functions (methods and internal helpers excluded)."""
        ...

    def run(self, name: str, args: Mapping[str, Any] | None = None, **option_values: Any) -> Any:
        """Run function `name` on `args` (plain values); options by keyword (`max_steps`, `stop`, ...)."""
        ...
