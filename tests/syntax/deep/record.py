"""Record the engine's results for programs.py's CASES into expected.json (baml_bridge==0.23.0).

    python tests/syntax/deep/record.py

Uses the conformance recorder (tests/conformance/record.py: `run`), so values and error class
names are stored exactly as for the conformance corpora. Each program takes the engine several
seconds to compile; a program it rejects is reported and left out (exit status 1).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from programs import CASES, source  # noqa: E402


def _recorder():
    spec = importlib.util.spec_from_file_location("_conformance_record", HERE.parents[1] / "conformance" / "record.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main() -> int:
    record = _recorder()
    out, bad = {}, 0
    for name, (_, _, args) in CASES.items():
        try:
            out[name] = record.run(source(name), "F", args)
        except BaseException as e:  # the bridge raises BaseException subclasses
            print(name, "ENGINE REJECTS", str(e)[:300])
            bad += 1
            continue
        print(name, json.dumps(out[name])[:200], flush=True)
    (HERE / "expected.json").write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
