"""Running a program's `test` and `testset` blocks.

The compiler turns each `test "name" { ... }` into a synthetic function; the
program lists them in `program.bex.tests` as `(test name, testset name or
None, function name)`. A test passes when its body finishes; it fails when a
value escapes it (a failed `assert.*` is the panic `AssertionFailed`; any
other panic or uncaught throw fails it too). LLM calls inside tests use the
given mocks and the declared clients otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ingot.runtime.errors import BamlError


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class

    file: str
    name: str
    testset: str | None
    function: str
    passed: bool
    duration: float
    error: BamlError | None = None
    detail: str | None = None  # a Python-side failure (a mock that ran out, ...)

    @property
    def id(self) -> str:
        return "::".join(x for x in (self.file, self.testset, self.name) if x)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"file": self.file, "testset": self.testset, "name": self.name,
                               "function": self.function, "outcome": "passed" if self.passed else "failed",
                               "duration": round(self.duration, 6)}
        if self.error is not None:
            out["error"] = {"kind": self.error.kind, "class": self.error.qualified_kind,
                            "message": self.error.message, "trace": [str(f) for f in self.error.trace]}
        elif self.detail is not None:
            out["error"] = {"kind": "HostError", "class": "ingot.HostError", "message": self.detail, "trace": []}
        return out


def make_test_id(file: str, name: str, testset: str | None) -> str:
    return "::".join(x for x in (file, testset, name) if x)


def matches(pattern: str | None, test_id_: str) -> bool:
    """`-k`: a case-insensitive substring; `not X`, `X and Y`, `X or Y` combine them."""
    if not pattern:
        return True
    text = test_id_.lower()

    def term(t: str) -> bool:
        t = t.strip()
        if t.startswith("not "):
            return not term(t[4:])
        return t.lower() in text

    return any(all(term(part) for part in alt.split(" and ")) for alt in pattern.split(" or "))


def run_test(program: Any, file: str, name: str, testset: str | None, function: str,
             mocks: Mapping[str, Any] | None = None, options: Any = None) -> TestResult:
    """Run one test within `options`' limits (an `ingot.CallOptions`; the defaults if None)."""
    from ingot.api import CallOptions
    from ingot.llm.mocks import MockError
    from ingot.llm.runtime import LlmRuntime

    handler = LlmRuntime(program.view, mocks=dict(mocks or {}))
    vm = program.vm(llm=handler, **(options or CallOptions()).vm_options())
    start = time.perf_counter()
    try:
        vm.call(program.bex.by_name[function], [])
    except BamlError as e:
        return TestResult(file, name, testset, function, False, time.perf_counter() - start, error=e)
    except MockError as e:
        return TestResult(file, name, testset, function, False, time.perf_counter() - start, detail=str(e))
    return TestResult(file, name, testset, function, True, time.perf_counter() - start)


def collect(program: Any) -> list[tuple[str, str | None, str]]:
    return [tuple(t) for t in program.bex.tests]  # type: ignore[misc]


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
