"""`baml.ops.Equals` and `baml.ops.Compare`: the built-in interfaces a class implements to
give `==`/`!=` and `<`/`<=`/`>`/`>=` its own meaning, and to be sorted.

Their declarations, with the default methods, are BAML (`ops_interfaces.baml`), parsed once;
a class implementing one gets a copy of each default it leaves out, as for a user interface
(`resolve.Resolver._fill_impl`). Verified on the engine:

- `a == b` calls `a.eq(b)` only when the class's impl writes `eq` (the default is the
  structural comparison every class has); `a != b` is always `!(a == b)`, an overridden `neq`
  is reached only by calling it.
- `a < b`, `<=`, `>`, `>=` call `lt`, `le`, `gt`, `ge`: the defaults derive them from `cmp`,
  the one method with no default, and an impl may override each.
- `xs.sort()` on the class's array sorts with `cmp` (stable; a panic in `cmp` leaves the
  array as it was). Compare does not change `==`.
- `includes`/`index_of` keep comparing instances by reference.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import resources

from ingot.syntax import ast as A
from ingot.syntax.diagnostics import SourceFile
from ingot.syntax.parser import parse

EQUALS = "baml.ops.Equals"
COMPARE = "baml.ops.Compare"

# The operators a class implementing the interface dispatches: operator -> (interface, method).
# `==`/`!=` dispatch only when the impl writes `eq` itself (`Resolver._fill_impl` registers them).
OPERATOR_METHODS = {
    "==": (EQUALS, "eq"),
    "!=": (EQUALS, "eq"),  # negated by the lowering
    "<": (COMPARE, "lt"),
    "<=": (COMPARE, "le"),
    ">": (COMPARE, "gt"),
    ">=": (COMPARE, "ge"),
}


# The default methods that call other defaults by name (`clamp` is `self.min(max).max(min)`).
_USES = {"clamp": ("min", "max"), "neq": ("eq",)}


def shadowed(method: str, has_member: Callable[[str], bool]) -> bool:
    """Whether a class gets no copy of the default `method`: a field or method of its own has
    the name (a `max` field, as the engine allows), or a default it calls does."""
    return has_member(method) or any(has_member(m) for m in _USES.get(method, ()))


@functools.cache
def declarations() -> dict[str, A.InterfaceDecl]:
    """The two interfaces by qualified name. Shared by every program: callers copy methods."""
    text = resources.files("ingot.semantics").joinpath("ops_interfaces.baml").read_text(encoding="utf-8")
    module, diagnostics = parse(SourceFile("ops_interfaces.baml", text))
    assert not diagnostics, diagnostics
    out = {}
    for item in module.items:
        assert isinstance(item, A.InterfaceDecl)
        item.name = f"baml.ops.{item.name}"
        out[item.name] = item
    return out
