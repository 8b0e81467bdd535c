"""Record the language corpus's expected results from the real BAML engine (baml_bridge==0.23.0).

The programs live in programs.py (`PROGRAMS`, `INVALID`); this script compiles and runs each
one on the engine, the same way as ../extra/make.py (whose `run` it uses), and writes:

  NAME.baml + NAME.json           a valid program and the engine's results per case
  invalid/NAME.baml + NAME.error  a program the engine rejects, and its exact message

Run: python tests/conformance/language/generate.py [NAME ... | valid | invalid]
A program the engine refuses to compile, or an invalid program it accepts, is reported
and not written (exit status 1). Review the printed results before committing.
"""
import importlib.util
import json
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from programs import INVALID, PROGRAMS  # noqa: E402


def _engine():
    spec = importlib.util.spec_from_file_location("_extra_make", HERE.parent / "extra" / "make.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def record_valid(make, name, src, fn, args) -> bool:
    src = src.strip() + "\n"
    try:
        cases = make.run(src, fn, args or [{}])
    except BaseException as e:  # the bridge raises BaseException subclasses
        print(name, "ENGINE REJECTS", str(e)[:400])
        return False
    odd = [c["error"] for c in cases if "error" in c and not re.fullmatch(r"[A-Za-z_]\w*", c["error"])]
    if odd:
        print(name, "ERROR WITHOUT A CLASS NAME", odd)
        return False
    (HERE / f"{name}.baml").write_text(src, encoding="utf-8")
    (HERE / f"{name}.json").write_text(json.dumps({"function": fn, "cases": cases}, indent=1, allow_nan=False,
                                                  ensure_ascii=False) + "\n", encoding="utf-8")
    print(name, json.dumps(cases, ensure_ascii=False)[:300])
    return True


def record_invalid(make, name, src) -> bool:
    src = src.strip() + "\n"
    try:
        make.b.BamlRuntime.initialize_runtime(".", {"main.baml": src})
    except BaseException as e:
        (HERE / "invalid" / f"{name}.baml").write_text(src, encoding="utf-8")
        (HERE / "invalid" / f"{name}.error").write_text(str(e) + "\n", encoding="utf-8")
        print("invalid", name, str(e)[:200])
        return True
    print("invalid", name, "ENGINE ACCEPTS")
    return False


def main(only: set[str]) -> int:
    make = _engine()
    (HERE / "invalid").mkdir(exist_ok=True)
    bad = 0
    for name, (src, fn, args) in PROGRAMS.items():
        if not only or name in only or "valid" in only:
            bad += not record_valid(make, name, src, fn, args)
    for name, src in INVALID.items():
        if not only or name in only or "invalid" in only:
            bad += not record_invalid(make, name, src)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(set(sys.argv[1:])))
