"""A package's public names imported on first use (PEP 562), so that importing the package (the
CLI, `ingot --help`) does not compile every module behind it."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_exports(package: str, exports: dict[str, str], namespace: dict[str, Any],
                 public: list[str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The package's `__getattr__` and `__dir__`: a name of `exports` (name -> defining module) is
    imported and kept in `namespace` on first use; any other name is tried as a submodule (of a
    package)."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is not None:
            value = getattr(importlib.import_module(module), name)
            namespace[name] = value
            return value
        if "__path__" not in namespace or name.startswith("__"):  # a plain module has no submodules
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{package}.{name}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(public))

    return __getattr__, __dir__
