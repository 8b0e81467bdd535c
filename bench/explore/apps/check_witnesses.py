"""Check the witnesses of the application benchmarks on the real engine and on ingot.

    python bench/explore/apps/check_witnesses.py [NAME ...] [--no-engine] [-v]

Every `NAME.baml` here has a `NAME.json`:

    {"function": "F",
     "bugs": [{"kind": "AssertionFailed", "line": 15}],
     "throws": [{"kind": "BadHeader", "line": 16}],            (optional: errors the program means to raise)
     "infeasible_edges": ["F:bb3[T]->bb7 (false)"],          (optional, with a reason beside it)
     "witnesses": [{"args": {...}, "llm": [["Fn", "raw reply"], ...], "expect": value or {"error": KIND}}]}

An enum argument (or field, element, optional) is written as its variant's name ("SEARCH"); the
engine is sent the variant itself (`engine_args`). `llm` lists the model's raw replies in call
order (a reply that does not parse is followed by the repair turn's reply, as on the real
engine). For each program the script checks that

1. the real engine (`baml_bridge`) gives every witness its expected outcome: LLM calls go to a
   local OpenAI-compatible server answering the replies in order (the program's clients read
   `env.LLM_MOCK_URL`);
2. ingot gives the same outcomes (`Program.call` with the replies as mocks), and every error is
   a planted bug or a throw the program means (same kind, same line: the innermost frame of the
   trace), and every bug has a witness;
3. the witnesses, replayed on ingot's tracker, take every branch edge exploration counts
   (`reachable_edges`) except the listed infeasible ones, so every edge the benchmark asks
   exploration to cover is proven feasible by an input.

Exit status 0 when every check passes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT / "tests" / "llm"))  # the mock OpenAI server
sys.path.insert(0, str(ROOT / "tests" / "conformance"))  # the bridge's type map and enum values

import record  # noqa: E402

import ingot  # noqa: E402
from ingot.concolic.edges import edge_label, reachable_edges  # noqa: E402
from ingot.concolic.explore import tracker_class  # noqa: E402
from ingot.llm.mocks import Replies  # noqa: E402
from ingot.llm.runtime import CallRecord, LlmRuntime  # noqa: E402
from ingot.runtime.errors import BamlRaise  # noqa: E402
from ingot.semantics.types import ClassT, EnumT, ListT, MapT, UnionT  # noqa: E402
from ingot.symbolic.expr import Interner  # noqa: E402


def spec_of(name: str) -> dict[str, Any]:
    spec: dict[str, Any] = json.loads((HERE / f"{name}.json").read_text())
    return spec


def mocks_of(w: dict[str, Any]) -> dict[str, Replies]:
    by_fn: dict[str, list[str]] = {}
    for fn, text in w.get("llm", []):
        by_fn.setdefault(fn, []).append(text)
    return {fn: Replies(*texts) for fn, texts in by_fn.items()}


def expected(w: dict[str, Any]) -> tuple[str, Any]:
    exp = w["expect"]
    if isinstance(exp, dict) and set(exp) == {"error"}:
        return ("err", exp["error"])
    return ("ok", exp)


# -- the real engine ------------------------------------------------------------------------
class Engine:
    def __init__(self) -> None:
        import baml_bridge
        from llm_server import MockLLMServer

        self.b = baml_bridge
        self.server = MockLLMServer()
        os.environ["LLM_MOCK_URL"] = self.server.base_url

    def outcome(self, source: str, fn: str, w: dict[str, Any]) -> tuple[str, Any]:
        import pydantic
        from baml_bridge.typemap import BamlTypeMap, set_type_map

        rt = self.runtime(source)
        self.server.reset([{"text": text} for _, text in w.get("llm", [])])
        set_type_map(record.any_class_map())  # (any class decoded; an enum argument sent as its variant)
        try:
            value = self.b.call_function_sync(rt, fn, engine_args(self.view(source), fn, w["args"])).result()
            return ("ok", plain(value, pydantic))
        except BaseException as e:  # the bridge raises BaseException subclasses
            cls = getattr(e, "class_name", None)
            if not cls:
                raise
            return ("err", cls.rsplit(".", 1)[-1])
        finally:
            set_type_map(BamlTypeMap())

    _runtimes: dict[str, Any] = {}
    _views: dict[str, Any] = {}

    def view(self, source: str) -> Any:
        """ingot's view of the program: the parameters' types (`engine_args`)."""
        if source not in self._views:
            self._views[source] = ingot.load_source(source).view
        return self._views[source]

    def runtime(self, source: str) -> Any:
        if source not in self._runtimes:
            self._runtimes[source] = self.b.BamlRuntime.initialize_runtime(".", {"main.baml": source})
        return self._runtimes[source]

    def close(self) -> None:
        self.server.close()


def engine_args(view: Any, fn: str, args: dict[str, Any]) -> dict[str, Any]:
    """The witness's arguments as the bridge takes them: a JSON string where the parameter (or a
    field, an element) is an enum becomes the enum's variant (the bridge sends a plain string
    as a string, which the engine refuses for an enum)."""
    classes = {c.name: {f.name: f.ty for f in c.fields} for c in view.classes()}
    params = dict(view.function(fn).params)
    return {name: _engine_value(classes, params[name], value) if name in params else value
            for name, value in args.items()}


def _engine_value(classes: dict[str, dict[str, Any]], ty: Any, value: Any) -> Any:
    if isinstance(ty, EnumT) and isinstance(value, str):
        return record.enum_value(ty.name, value)
    if isinstance(ty, ListT) and isinstance(value, list):
        return [_engine_value(classes, ty.elem, v) for v in value]
    if isinstance(ty, MapT) and isinstance(value, dict):
        return {k: _engine_value(classes, ty.value, v) for k, v in value.items()}
    if isinstance(ty, ClassT) and isinstance(value, dict) and ty.name in classes:
        fields = classes[ty.name]
        return {k: _engine_value(classes, fields[k], v) if k in fields else v for k, v in value.items()}
    if isinstance(ty, UnionT):
        for member in ty.members:  # an optional enum, class or list: the member the value is
            converted = _engine_value(classes, member, value)
            if converted is not value:
                return converted
    return value


def plain(value: Any, pydantic: Any) -> Any:
    if isinstance(value, pydantic.BaseModel):
        return json.loads(value.model_dump_json())
    if isinstance(value, list):
        return [plain(v, pydantic) for v in value]
    if isinstance(value, dict):
        return {k: plain(v, pydantic) for k, v in value.items()}
    return value


# -- ingot ----------------------------------------------------------------------------------
def ingot_outcome(program: ingot.Program, fn: str, w: dict[str, Any]) -> tuple[tuple[str, Any], int | None]:
    """The outcome on ingot and, for an error, the line of its innermost frame."""
    try:
        return ("ok", program.options(llm=mocks_of(w) or None).call(fn, **w["args"])), None
    except ingot.BamlError as e:
        return ("err", e.kind), (e.trace[-1].line if e.trace else None)


class ReplayEnv:
    """The tracker's environment for a replay: LLM results come from the witness's replies."""

    def __init__(self, program: ingot.Program, w: dict[str, Any]) -> None:
        self.runtime = LlmRuntime(program.view, mocks_of(w), mocks_only=True)
        self.vm: Any = None
        self.pending: dict[tuple[str, int], Any] = {}

    def _answer(self, fn: Any, site: str, occurrence: int) -> Any:
        key = (f"{fn.name}@{site}", occurrence)
        if key not in self.pending:
            rt, name = self.runtime, fn.name
            ret = program_ret(rt, name)
            record = CallRecord(name, {}, "", "", mocked=True)
            try:
                self.pending[key] = rt._answer(self.vm, ret, "", record,
                                               lambda conv: rt._mock_turn(self.vm, name, ret, record))
            except BamlRaise as e:
                self.pending[key] = e
        return self.pending[key]

    def llm_failure(self, fn: Any, site: str, occurrence: int) -> tuple[bool, Any]:
        fails = isinstance(self._answer(fn, site, occurrence), BamlRaise)
        return fails, self.vm.x.const(fails)

    def llm_result(self, fn: Any, site: str, occurrence: int) -> tuple[Any, Any]:
        answer = self._answer(fn, site, occurrence)
        if isinstance(answer, BamlRaise):
            raise answer
        return answer, None


def program_ret(rt: LlmRuntime, name: str) -> Any:
    return rt.view.function(name).ret


def replay_edges(program: ingot.Program, fn: str, w: dict[str, Any]) -> set[tuple[str, int, int]]:
    x = Interner()
    env = ReplayEnv(program, w)
    vm = tracker_class("interp")(program.view, x, env=env, max_steps=1_000_000)  # type: ignore[arg-type]
    env.vm = vm
    values = program.convert_args(fn, dict(w["args"]))
    try:
        vm.run_tracked(program.view.bytecode.by_name[fn], values, [None] * len(values))
    except BamlRaise:
        pass
    return set(vm.trace.edges)


# -- one program ----------------------------------------------------------------------------
def check(name: str, engine: Engine | None, verbose: bool) -> list[str]:
    spec = spec_of(name)
    source = (HERE / f"{name}.baml").read_text()
    program = ingot.load(HERE / f"{name}.baml")
    fn = spec["function"]
    errors: list[str] = []
    planted = {(b["kind"], b["line"]) for b in spec["bugs"]}
    meant = {(b["kind"], b["line"]) for b in spec.get("throws", [])}
    hit: set[tuple[str, int | None]] = set()
    all_edges = {(e.site.function, e.site.block, e.target) for e in reachable_edges(program.view, fn)}
    labels = {k: edge_label(program.view, k) for k in all_edges}
    listed = {e.split(" at ")[0].split(": ")[0] for e in spec.get("infeasible_edges", [])}
    infeasible = {k for k in all_edges if labels[k].split(" at ")[0] in listed}
    if len(infeasible) != len(spec.get("infeasible_edges", [])):
        errors.append("infeasible_edges names an edge exploration does not count")
    taken: set[tuple[str, int, int]] = set()
    for i, w in enumerate(spec["witnesses"]):
        want = expected(w)
        if engine is not None:
            got = engine.outcome(source, fn, w)
            if got != want:
                errors.append(f"witness {i} {w['args']}: engine gives {got}, expected {want}")
        mine, line = ingot_outcome(program, fn, w)
        if mine != want:
            errors.append(f"witness {i} {w['args']}: ingot gives {mine}, expected {want}")
        if mine[0] == "err":
            if (mine[1], line) not in planted | meant:
                errors.append(f"witness {i}: {mine[1]} at line {line} is neither a planted bug nor a listed throw")
            hit.add((mine[1], line))
        taken |= replay_edges(program, fn, w)
        if verbose:
            print(f"   witness {i}: {mine}")
    for bug in sorted(planted - hit):
        errors.append(f"planted bug {bug} has no witness")
    feasible = all_edges - infeasible
    for k in sorted(feasible - taken):
        errors.append(f"no witness takes {labels[k]}")
    for k in sorted(infeasible & taken):
        errors.append(f"a witness takes {labels[k]}, listed infeasible")
    print(f"{'ok  ' if not errors else 'FAIL'} {name}: {fn}: {len(all_edges)} edges, {len(feasible)} feasible, "
          f"{len(spec['witnesses'])} witnesses take {len(feasible & taken)}; {len(planted)} bug(s)")
    return errors


def names() -> list[str]:
    """Every program here, the held-out ones as heldout/NAME."""
    return sorted(p.stem for p in HERE.glob("*.json")) + sorted(f"heldout/{p.stem}" for p in HERE.glob("heldout/*.json"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="programs to check (default: every NAME.json here)")
    ap.add_argument("--no-engine", action="store_true", help="skip the real engine (baml_bridge)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    engine = None if a.no_engine else Engine()
    failed = 0
    try:
        for n in a.names or names():
            errs = check(n, engine, a.verbose)
            for e in errs:
                print("     -", e)
            failed += bool(errs)
    finally:
        if engine is not None:
            engine.close()
    total = len(a.names or names())
    print(f"{total - failed}/{total} programs pass")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
