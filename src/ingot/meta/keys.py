"""The `_meta.ingot` keys ingot itself reads, checked for typos and types.

`@@ingot(...)` on a function (item `Func`) and `@ingot(...)` on a parameter
(item `Func.param`) may use these keys under the `mcp` and `cli` namespaces;
any other key under those two namespaces is an error (a misspelt hint would
otherwise be ignored silently). Keys in other namespaces are left to users.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

FUNCTION_KEYS: dict[str, dict[str, type]] = {
    "mcp": {"tool": bool, "title": str, "description": str, "readOnlyHint": bool,
            "destructiveHint": bool, "idempotentHint": bool, "openWorldHint": bool},
    "cli": {"help": str},
}
PARAM_KEYS: dict[str, dict[str, type]] = {
    "mcp": {"description": str},
    "cli": {"help": str, "short": str},
}


class MetaError(ValueError):
    """Annotations ingot cannot use; `problems` holds one message per mistake."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


def read(meta: Mapping[str, Mapping[str, Any]], item: str, namespace: str, *, param: bool = False) -> dict[str, Any]:
    """The `namespace.*` keys of `item` (`Area` or `Area.w`); raises `MetaError` on a bad key."""
    allowed = (PARAM_KEYS if param else FUNCTION_KEYS)[namespace]
    values = meta.get(item, {}).get(namespace)
    if values is None:
        return {}
    where = f"`{item}`"
    if not isinstance(values, Mapping):
        keys = ", ".join(f"{namespace}.{k}" for k in allowed)
        raise MetaError([f"{where}: `{namespace}` needs a key ({keys})"])
    problems = []
    for key, value in values.items():
        expected = allowed.get(key)
        if expected is None:
            near = difflib.get_close_matches(key, list(allowed), n=1)
            hint = f"; did you mean `{namespace}.{near[0]}`?" if near else \
                f"; known keys: {', '.join(namespace + '.' + k for k in allowed)}"
            problems.append(f"{where}: unknown key `{namespace}.{key}`{hint}")
        elif not isinstance(value, expected):
            problems.append(f"{where}: `{namespace}.{key}` must be a {_TYPE_NAMES[expected]}, got {value!r}")
    if namespace == "cli" and param and isinstance(values.get("short"), str):
        short = values["short"]
        if len(short) != 1 or not short.isalnum():
            problems.append(f"{where}: `cli.short` must be one letter or digit, got {short!r}")
    if problems:
        raise MetaError(problems)
    return dict(values)


_TYPE_NAMES = {bool: "boolean (true/false)", str: "string"}
