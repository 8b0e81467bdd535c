"""The real BAML engine as a test oracle for `ingot.runtime`.

A test module sets `SOURCE` (a BAML program) and uses the module-scoped
`oracle` fixture, which compiles it once (about 1.5 s). `oracle.engine(fn,
**args)` runs a function on the engine and `oracle.python(f, *args)` runs a
Python callable; both give an *outcome*:

- `("ok", text)`: the result rendered with `string.from` / `render_value`
  (the BAML wrappers return `string.from(<expr>)`, so floats compare
  bit-exactly, maps need no string keys and class values need no type map);
- `("err", ShortClass, {field: value})`: a panic or thrown built-in error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ingot.runtime.errors import BamlRaise
from ingot.runtime.render import render_value
from ingot.runtime.values import Instance, iter_fields

b = pytest.importorskip("baml_bridge")
pydantic = pytest.importorskip("pydantic")
from baml_bridge.typemap import BamlTypeMap, set_type_map  # noqa: E402

Outcome = tuple[Any, ...]


class _AnyClassMap(BamlTypeMap):
    """Decode any class value into a loose pydantic model (see conformance/make.py)."""

    def get_class(self, fqn: str) -> Any:
        try:
            return BamlTypeMap.get_class(self, fqn)
        except BaseException:
            cls = pydantic.create_model(
                fqn.replace(".", "_"), __config__=pydantic.ConfigDict(extra="allow")
            )
            self._class_cache[fqn] = cls
            return cls


class Oracle:
    def __init__(self, source: str) -> None:
        self.source = source
        self.runtime = b.BamlRuntime.initialize_runtime(".", {"main.baml": source})

    def engine(self, fn: str, **args: Any) -> Outcome:
        set_type_map(_AnyClassMap())
        try:
            return ("ok", b.call_function_sync(self.runtime, fn, args).result())
        except BaseException as e:  # BamlPanic / BamlError derive from BaseException
            cls = getattr(e, "class_name", None)
            if not cls:
                raise
            value = getattr(e, "value", None)
            fields = value.model_dump() if hasattr(value, "model_dump") else {"value": value}
            return ("err", cls.rsplit(".", 1)[-1], fields)
        finally:
            set_type_map(BamlTypeMap())

    @staticmethod
    def python(f: Callable[..., Any], *args: Any) -> Outcome:
        try:
            return ("ok", render_value(f(*args)))
        except BamlRaise as e:
            v = e.value
            assert isinstance(v, Instance)
            return ("err", v.cls.short_name, dict(iter_fields(v)))


@pytest.fixture(scope="module")
def oracle(request: pytest.FixtureRequest) -> Oracle:
    return Oracle(request.module.SOURCE)
