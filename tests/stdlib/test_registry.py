"""The built-in registry is the one definition every consumer reads.

Each row is checked for the slots its consumers need, and the checker's,
emitter's and trackers' tables are checked to be exactly the registry's.
"""

from __future__ import annotations

import pytest

from ingot.compiler import prelude_functions
from ingot.mir.lower import PRELUDE_KEYS
from ingot.semantics import builtins as checker_view
from ingot.stdlib import BUILTINS, MUTATES, REGISTRY, Kind
from ingot.symbolic import builtin_models

ROWS = sorted(REGISTRY.values(), key=lambda spec: spec.key)


@pytest.mark.parametrize("spec", ROWS, ids=lambda spec: spec.key)
def test_row_has_the_slots_its_kind_needs(spec) -> None:
    if spec.kind is Kind.INTERNAL:
        assert spec.signature is None and spec.impl is not None
    else:
        assert spec.signature is not None
        assert (spec.impl is None) == (spec.prelude is not None)
    if spec.deep_model:
        assert spec.model is not None
    if spec.mutates:
        assert spec.receiver in ("array", "map", "baml.Array", "baml.Map")
    if spec.inline is not None:
        args = [f"a{i}" for i in range(len(spec.signature.params) + 1)]
        compile(spec.inline.format(*args, target="r"), spec.key, "exec")
        assert spec.result is not None


def test_prelude_rows_name_functions_of_the_prelude() -> None:
    defined = {name for name, _ in prelude_functions()}
    for spec in REGISTRY.values():
        if spec.prelude is not None:
            assert any(name.endswith("." + spec.prelude) or name == spec.prelude for name in defined), spec.key


def test_derived_tables_are_the_registry() -> None:
    methods = {f"{kind}.{name}" for kind, table in checker_view.METHODS.items() for name in table}
    assert methods == {k for k, s in REGISTRY.items() if s.kind is Kind.METHOD}
    assert set(checker_view.FUNCTIONS) == {k for k, s in REGISTRY.items() if s.kind is Kind.FUNCTION}
    assert PRELUDE_KEYS == {k for k, s in REGISTRY.items() if s.prelude is not None}
    assert set(BUILTINS) == {k for k, s in REGISTRY.items() if s.impl is not None}
    assert MUTATES == {k for k, s in REGISTRY.items() if s.mutates}
    assert set(builtin_models.MODELS) == {k for k, s in REGISTRY.items() if s.model is not None}


def test_registry_is_immutable() -> None:
    with pytest.raises(TypeError):
        REGISTRY["string.length"] = REGISTRY["string.trim"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        REGISTRY["string.length"].mutates = True  # type: ignore[misc]
