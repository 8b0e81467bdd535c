"""Write an exploration's cases out: BAML `test` blocks, a pytest file, or JSON.

BAML tests call the function with literal arguments and `assert.equal` the
result (or catch the expected panic by naming its class); cases that need
LLM outputs are left out of the BAML file, since a BAML test cannot mock an
LLM call; the pytest and JSON forms carry them as mocks.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from ingot.mir.api import (
    AliasT,
    ClassT,
    EnumT,
    ListT,
    Lit,
    MapT,
    Prim,
    ProgramView,
    Ty,
    UnionT,
    VariantT,
)
from ingot.runtime.values import INT_MIN


class Unrenderable(Exception):
    """A value that has no BAML literal form (e.g. a function)."""


def baml_string(s: str) -> str:
    out = []
    for ch in s:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "$":
            out.append("\\$")
        elif ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0:
            out.append(f"\\u{{{ord(ch):x}}}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


class LiteralWriter:
    """Plain values -> BAML literal text, guided by the declared types."""

    def __init__(self, view: ProgramView) -> None:
        self.view = view
        self.classes = {c.name: c for c in view.classes()}

    def literal(self, value: Any, ty: Ty, depth: int = 0) -> str:  # noqa: C901 - the type table
        if depth > 50:
            raise Unrenderable("value nests too deeply")
        if isinstance(ty, AliasT):
            return self.literal(value, self.view.alias_target(ty.name), depth + 1)
        if value is None:
            return "null"
        if isinstance(ty, UnionT):
            return self.union(value, ty, depth)
        if isinstance(ty, (Prim, Lit)):
            return self.scalar(value)
        if isinstance(ty, (EnumT, VariantT)):
            enum = ty.name if isinstance(ty, EnumT) else ty.enum
            return f"{enum}.{value}"
        if isinstance(ty, ListT):
            return "[" + ", ".join(self.literal(v, ty.elem, depth + 1) for v in value) + "]"
        if isinstance(ty, MapT):
            return "{" + ", ".join(f"{self.literal(k, ty.key, depth + 1)}: {self.literal(v, ty.value, depth + 1)}"
                                   for k, v in value.items()) + "}"
        if isinstance(ty, ClassT):
            cls = self.classes[ty.name]
            fields = ", ".join(f"{f.name}: {self.literal(value.get(f.name), f.ty, depth + 1)}" for f in cls.fields)
            return f"{ty.name} {{ {fields} }}"
        return self.scalar(value)

    def union(self, value: Any, ty: UnionT, depth: int) -> str:
        for m in ty.members:
            if self.fits(value, m):
                return self.literal(value, m, depth + 1)
        return self.scalar(value)

    def fits(self, value: Any, ty: Ty) -> bool:
        if isinstance(ty, AliasT):
            return self.fits(value, self.view.alias_target(ty.name))
        if isinstance(ty, Prim):
            return {"int": type(value) is int, "float": type(value) is float, "bool": type(value) is bool,
                    "string": type(value) is str, "null": value is None}[ty.name]
        if isinstance(ty, Lit):
            return type(value) is type(ty.value) and value == ty.value
        if isinstance(ty, ListT):
            return isinstance(value, list)
        if isinstance(ty, MapT):
            return isinstance(value, dict) and not any(isinstance(c, dict) and False for c in [value])
        if isinstance(ty, ClassT):
            cls = self.classes.get(ty.name)
            return isinstance(value, dict) and cls is not None and set(value) == {f.name for f in cls.fields}
        if isinstance(ty, EnumT):
            return isinstance(value, str) and any(e.name == ty.name and value in e.variants for e in self.view.enums())
        return False

    def scalar(self, value: Any) -> str:
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, int):
            return "int.min_value()" if value == INT_MIN else str(value)
        if isinstance(value, float):
            if math.isnan(value):
                return "float.nan()"
            if math.isinf(value):
                return "float.inf()" if value > 0 else "-float.inf()"
            text = repr(value)
            return text if ("." in text or "e" in text or "inf" in text) else text + ".0"
        if isinstance(value, str):
            return baml_string(value)
        if value is None:
            return "null"
        raise Unrenderable(f"no BAML literal for {value!r}")


def catch_pattern(kind: str, view: ProgramView) -> str:
    """The `catch` arm pattern that names an error class."""
    from ingot.runtime.errors import ERRORS, PANICS

    if kind in PANICS:
        return PANICS[kind].name
    for info in ERRORS.values():
        if info.short_name == kind:
            return info.name
    if any(c.name == kind for c in view.classes()):
        return f"let _err: {kind}"
    return f"let _err: {kind}"


def baml_tests(view: ProgramView, function: str, tests: list[dict[str, Any]]) -> str:
    writer = LiteralWriter(view)
    fn = view.function(function)
    lines = [f"// Generated by `ingot explore` for {function}: one test per path found.",
             "// Place this file beside the program it tests.", ""]
    skipped = 0
    for i, case in enumerate(tests):
        if any(case["mocks"].values()):
            skipped += 1
            continue
        try:
            args = ", ".join(writer.literal(case["args"][name], ty) for name, ty in fn.params)
            call = f"{function}({args})"
            outcome = case["outcome"]
            if "value" in outcome:
                expected = writer.literal(outcome["value"], fn.ret)
                body = [f"  assert.equal({call}, {expected})"]
            else:
                pattern = catch_pattern(outcome["error"]["kind"], view)
                body = [f"  let outcome = {call} catch (e) {{", f"    {pattern} => null,", "  };",
                        "  assert.equal(outcome, null)"]
        except Unrenderable as e:
            lines.append(f"// case {i + 1} left out: {e}")
            continue
        lines.append(f'test "{function} case {i + 1}" {{')
        lines.extend(body)
        lines.append("}")
        lines.append("")
    if skipped:
        lines.append(f"// {skipped} case(s) need LLM outputs; they are in the pytest and JSON forms.")
    return "\n".join(lines) + "\n"


def pytest_file(source: Path, out_dir: Path, function: str, tests: list[dict[str, Any]]) -> str:
    rel = os.path.relpath(source.resolve(), out_dir.resolve())
    cases = json.dumps(tests, indent=1, ensure_ascii=False)
    return f'''"""Generated by `ingot explore` for {function}: re-runs each case through ingot."""

import json
import pathlib

import pytest

import ingot
from ingot.llm import Value

PROGRAM = pathlib.Path(__file__).parent / {rel!r}
CASES = json.loads(r"""{cases}""")


@pytest.fixture(scope="module")
def program():
    return ingot.load(PROGRAM)


@pytest.mark.parametrize("case", CASES, ids=[f"case{{i + 1}}" for i in range(len(CASES))])
def test_case(program, case):
    outcome = case["outcome"]
    # The explorer recorded results, not raw replies: give them as values.
    mocks = {{name: ingot.replies(*(Value(v) for v in values)) for name, values in case["mocks"].items()}}
    if "error" in outcome:
        with pytest.raises(ingot.BamlError) as raised:
            program.call({function!r}, llm=mocks, **case["args"])
        assert raised.value.kind == outcome["error"]["kind"]
    else:
        assert program.call({function!r}, llm=mocks, **case["args"]) == outcome["value"]
'''


def write_tests(view: ProgramView, source: Path, function: str, report: dict[str, Any], form: str,
                out_dir: Path) -> Path:
    """Write the cases in `form` (baml, pytest, json) into `out_dir`; return the file written."""
    out_dir.mkdir(parents=True, exist_ok=True)
    tests = report["tests"]
    stem = f"{source.stem}_{function}"
    if form == "baml":
        path = out_dir / f"{stem}_tests.baml"
        text = baml_tests(view, function, tests)
    elif form == "pytest":
        path = out_dir / f"test_{stem}.py"
        text = pytest_file(source, out_dir, function, tests)
    else:
        path = out_dir / f"{stem}_tests.json"
        text = json.dumps({"function": function, "tests": tests}, indent=1, ensure_ascii=False) + "\n"
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)  # never leave a half-written file behind
    return path
