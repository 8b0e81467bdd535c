"""Re-record a conformance corpus's expectations from the real BAML engine (baml_bridge==0.23.0).

A corpus is a directory of NAME.baml + NAME.json (the function and the cases' arguments) and
invalid/NAME.baml + NAME.error. This script keeps the programs and the arguments and asks the
engine again for every case's result and every invalid program's message:

    python tests/conformance/record.py                  # every corpus (engine/, extra/, ...)
    python tests/conformance/record.py engine fib gcd   # these programs of one corpus
    python tests/conformance/record.py --check          # compare only; exit 1 on any difference

A program the engine no longer compiles, or an invalid program it now accepts, is reported and
its files are left as they are (exit status 1). `test_corpus.py`'s slow tests use the same
functions (`run`, `compile_error`) to prove the stored answers are still the engine's.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def corpora() -> dict[str, Path]:
    """Every corpus directory beside this script (one with NAME.json files or an invalid/ folder)."""
    return {d.name: d for d in sorted(HERE.iterdir())
            if d.is_dir() and (any(d.glob("*.json")) or (d / "invalid").is_dir())}


def _bridge() -> Any:
    import baml_bridge

    return baml_bridge


def any_class_map() -> Any:
    """A type map decoding any class value (returned or thrown) into a loose pydantic model.

    Without it the bridge cannot decode a thrown class such as `throw Bad { code: 1 }` or
    `baml.errors.ParseError`, and reports "Unknown class FQN" instead of the class name.
    """
    import pydantic
    from baml_bridge.typemap import BamlTypeMap

    class AnyClassMap(BamlTypeMap):
        def py_type_to_baml_type(self, cls: type) -> str:
            # An argument's enum value is an enum.Enum member whose class names its BAML enum
            # (see `enum_value`); the bridge sends a plain str as a string, not a variant.
            return getattr(cls, "__baml_fqn__", "") or BamlTypeMap.py_type_to_baml_type(self, cls)

        def get_class(self, fqn: str) -> Any:
            try:
                return BamlTypeMap.get_class(self, fqn)
            except BaseException:  # the bridge raises BaseException subclasses
                cls = pydantic.create_model(fqn.replace(".", "_"), __config__=pydantic.ConfigDict(extra="allow"))
                self._class_cache[fqn] = cls
                return cls

    return AnyClassMap()


def enum_value(enum_name: str, variant: str) -> Any:
    """An argument value the bridge sends as variant `variant` of the program's enum `enum_name`."""
    import enum

    cls = enum.Enum(enum_name, {variant: variant}, type=str)
    cls.__baml_fqn__ = f"user.{enum_name}"  # type: ignore[attr-defined]
    return cls(variant)


def plain(v: Any) -> Any:
    """The bridge's result as plain JSON values (pydantic models -> dicts in field order)."""
    import pydantic

    if isinstance(v, pydantic.BaseModel):
        return {k: plain(x) for k, x in dict(v).items()}
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        raise ValueError(f"non-JSON float {v!r}: render it to a string inside the program")
    return v


def _error_name(e: BaseException) -> str:
    """The short class name of what escaped: a panic, a stdlib error or a user class."""
    msg = str(e)
    cls = getattr(e, "class_name", None)  # "baml.panics.DivisionByZero", "baml.errors.ParseError", "user.Bad"
    m = re.search(r"'(baml\.panics\.[A-Za-z]+)'", msg) or re.search(r"(baml\.panics\.[A-Za-z]+)", msg)
    name = cls if cls else (m.group(1) if m else None)
    return name.split(".")[-1] if name else msg


def run(src: str | dict[str, str], fn: str, args: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each case's `{"args", "expect"}` or `{"args", "error"}` from the engine (compile errors raise).

    `src` is one file's text (compiled as main.baml) or a project's files by name.
    """
    b = _bridge()
    from baml_bridge.typemap import BamlTypeMap, set_type_map

    rt = b.BamlRuntime.initialize_runtime(".", src if isinstance(src, dict) else {"main.baml": src})
    set_type_map(any_class_map())  # only while calling; compile errors keep their plain message
    cases: list[dict[str, Any]] = []
    try:
        for a in args:
            try:
                cases.append({"args": a, "expect": plain(b.call_function_sync(rt, fn, a).result())})
            except ValueError:
                raise
            except BaseException as e:
                cases.append({"args": a, "error": _error_name(e)})
    finally:
        set_type_map(BamlTypeMap())
    return cases


def compile_error(src: str) -> str | None:
    """The engine's message for a program it rejects, None when it compiles."""
    try:
        _bridge().BamlRuntime.initialize_runtime(".", {"main.baml": src})
    except BaseException as e:
        return str(e)
    return None


def spec_text(function: str, cases: list[dict[str, Any]]) -> str:
    return json.dumps({"function": function, "cases": cases}, indent=1, allow_nan=False, ensure_ascii=False) + "\n"


def record_program(spec_path: Path, write: bool) -> str | None:
    """Re-run one program's cases; return a problem, or None when it matches (or was written)."""
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    src = spec_path.with_suffix(".baml").read_text(encoding="utf-8")
    try:
        cases = run(src, spec["function"], [c["args"] for c in spec["cases"]])
    except ValueError as e:
        return f"result JSON cannot hold: {e}"
    except BaseException as e:
        return f"the engine does not compile it: {str(e)[:300]}"
    if cases == spec["cases"]:
        return None
    if write:
        spec_path.write_text(spec_text(spec["function"], cases), encoding="utf-8")
        return None
    return f"the engine now gives {json.dumps(cases, ensure_ascii=False)[:300]}"


def record_invalid(baml: Path, write: bool) -> str | None:
    message = compile_error(baml.read_text(encoding="utf-8"))
    if message is None:
        return "the engine now accepts it"
    error_path = baml.with_suffix(".error")
    old = error_path.read_text(encoding="utf-8") if error_path.exists() else None
    if old is not None and old.strip() == message.strip():
        return None
    if write:
        error_path.write_text(message + "\n", encoding="utf-8")
        return None
    return f"the engine's message is now {message[:300]!r}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", help="one corpus directory name (default: all)")
    parser.add_argument("names", nargs="*", help="only these programs (NAME or invalid/NAME)")
    parser.add_argument("--check", action="store_true", help="compare only, write nothing")
    opts = parser.parse_args(argv)
    found = corpora()
    if opts.corpus is not None and opts.corpus not in found:
        parser.error(f"no corpus {opts.corpus!r} (corpora: {', '.join(found)})")
    selected = {opts.corpus: found[opts.corpus]} if opts.corpus else found
    problems = 0
    for cname, root in selected.items():
        items = [(p.stem, p, record_program) for p in sorted(root.glob("*.json"))]
        items += [(f"invalid/{p.stem}", p, record_invalid) for p in sorted((root / "invalid").glob("*.baml"))]
        for name, path, record in items:
            if opts.names and name not in opts.names:
                continue
            problem = record(path, not opts.check)
            print(f"{cname}/{name}: {problem or 'ok'}", flush=True)
            problems += problem is not None
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
