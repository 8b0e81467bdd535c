"""A registry row that says it never panics does not, for any arguments.

`mir.catch_panics` trusts `BuiltinSpec.never_panics` to leave a catch's panic rethrow out of the
branch edges, and `throws` to decide its arms' error-class tests: a wrong row would hide a
reachable edge. Each string, int or float row so marked is run on arbitrary arguments.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ingot.runtime.errors import BamlRaise, error_class, is_panic_value
from ingot.semantics.types import FLOAT, INT, STRING
from ingot.stdlib import REGISTRY
from ingot.stdlib.spec import Kind

_RECEIVERS = {"string": STRING, "int": INT, "float": FLOAT}
_VALUES = {STRING: st.text(max_size=40), INT: st.integers(-(2**63), 2**63 - 1),
           FLOAT: st.floats(allow_nan=True, allow_infinity=True)}


def _argument_types(key: str) -> list[Any] | None:
    spec = REGISTRY[key]
    if spec.signature is None or spec.impl is None:
        return None
    types = list(spec.signature.params)
    if spec.kind is Kind.METHOD:
        types.insert(0, _RECEIVERS.get(spec.receiver))
    return types if all(t in _VALUES for t in types) else None


ROWS = sorted(k for k, spec in REGISTRY.items()
              if spec.never_panics and spec.receiver in _RECEIVERS and _argument_types(k) is not None)


def test_the_rows_under_test_include_the_string_members_and_parsers() -> None:
    assert {"string.trim", "string.slice", "string.at", "int.parse", "float.parse"} <= set(ROWS)


@pytest.mark.parametrize("key", ROWS)
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_row_that_never_panics_raises_only_what_it_declares(key: str, data: st.DataObject) -> None:
    spec = REGISTRY[key]
    args = [data.draw(_VALUES[t]) for t in _argument_types(key) or ()]
    try:
        spec.impl(*args)  # type: ignore[misc]
    except BamlRaise as raised:
        assert not is_panic_value(raised.value), (key, args)
        assert error_class(raised.value) == spec.throws, (key, args)
