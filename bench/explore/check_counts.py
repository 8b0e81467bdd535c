"""Double-check the hand counts written beside each benchmark program.

    python bench/explore/check_counts.py [NAME ...] [--no-edges] [--no-python] [-v]

For every `bench/explore/NAME.json` (or the NAMEs given) it:

1. compiles `NAME.baml` with ingot and lists the MIR branch edges of every user
   function (`ProgramView.functions()`, i.e. the entry and its callees; each file
   holds only those);
2. checks the arithmetic `feasible_edges == total - len(infeasible_edges)` and that
   every edge named in `infeasible_edges` exists;
3. runs every witness (`{"args", "mocks", "expect"}`) and checks its outcome: a
   value equal to `expect`, or the error `{"error": KIND}` it expects; an error
   must be one of the planted `bugs` (same kind and same source line, the
   innermost frame of the BAML trace), and every planted bug needs a witness;
4. unless `--no-edges`, records the branch edges the witnesses take with a small
   tracer over ingot's VM loop (see `EdgeTracer`) and checks that they are
   exactly the edges claimed feasible: an edge listed infeasible that a witness
   takes, or a claimed-feasible edge no witness takes, is an error;
5. unless `--no-python`, runs the same witnesses through the Python twin
   (`bench/explore_twins.py`) under coverage.py with branch measurement, checks
   that they cover `python_twin_arcs` branch arcs of the twin's functions (and
   lists the arcs left over, which must be the infeasible ones), and that each
   planted bug's witness raises the matching Python exception.

Exit status 0 when every check passes. The tracer reads the reference
interpreter's local variables (`fn`, `pc`, `frames` of `VM.run`), so the witnesses run
on that tier (`INGOT_TIER=interp`; the compiled tier has no such loop); if the
VM changes shape it reports that and `--no-edges` still runs the rest. LLM mocks
go through `Program.options(llm=...).call(...)`; while the LLM runtime module is missing
the script installs its own handler that converts the mock to the declared
return type.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

import ingot
from ingot.bex import vm as vm_module
from ingot.convert import ArgumentConverter, to_python

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
# The tracer reads the reference interpreter's loop: the witnesses run on that tier.
os.environ["INGOT_TIER"] = "interp"

EDGE_RE = re.compile(r"^(\S+ \([^)]*\))")


# -- tracing branch edges over the VM loop --------------------------------------------------
def _dispatch_line() -> int:
    lines, start = inspect.getsourcelines(vm_module.VM.run)
    for i, line in enumerate(lines):
        if line.strip() == "op, arg = code[pc]":
            return start + i
    raise RuntimeError("ingot.bex.vm.VM.run has no `op, arg = code[pc]` line: the edge tracer needs updating")


class EdgeTracer:
    """Record the MIR branch edges a run takes.

    Every MIR block of a user function starts at a distinct pc (checked); the
    tracer stops at the VM's dispatch line, reads `fn`, `pc` and the depth of the
    BAML frame stack, and when `pc` starts a block it records the edge from the
    block last entered in the same BAML frame, if that block ends in a branch or
    switch with this target.
    """

    def __init__(self, program: ingot.Program) -> None:
        self.line = _dispatch_line()
        self.code = vm_module.VM.run.__code__
        self.starts: dict[str, dict[int, int]] = {}
        self.edges: dict[str, dict[tuple[int, int], str]] = {}
        for fn in program.view.functions():
            starts = {fn.block_start(b.id): b.id for b in fn.blocks}
            if len(starts) != len(fn.blocks):
                raise RuntimeError(f"{fn.name}: two MIR blocks start at the same pc; the tracer cannot tell them apart")
            self.starts[fn.name] = starts
            self.edges[fn.name] = {(e.source, e.target): str(e) for e in fn.branch_edges()}
        self.covered: set[str] = set()
        self.last: dict[tuple[int, int], tuple[str, int]] = {}
        self.depth: dict[int, int] = {}

    def _global(self, frame: Any, event: str, arg: Any) -> Any:
        return self._local if frame.f_code is self.code else None

    def _local(self, frame: Any, event: str, arg: Any) -> Any:
        if event != "line" or frame.f_lineno != self.line:
            return self._local
        loc = frame.f_locals
        name = loc["fn"].name
        pc = loc["pc"]
        depth = len(loc["frames"])
        fid = id(frame)
        before = self.depth.get(fid)
        if before is not None and depth != before:
            # a call (deeper entries are stale) or a return (deeper frames are gone)
            low = min(depth, before)
            for key in [k for k in self.last if k[0] == fid and k[1] > low]:
                del self.last[key]
        self.depth[fid] = depth
        block = self.starts.get(name, {}).get(pc)
        if block is not None:
            prev = self.last.get((fid, depth))
            if prev is not None and prev[0] == name:
                edge = self.edges[name].get((prev[1], block))
                if edge is not None:
                    self.covered.add(edge)
            self.last[(fid, depth)] = (name, block)
        return self._local

    def __enter__(self) -> EdgeTracer:
        self.last.clear()
        self.depth.clear()
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc: Any) -> None:
        sys.settrace(None)


# -- running witnesses ----------------------------------------------------------------------
_FALLBACK_NOTED = False


def _mock_handler(program: ingot.Program, mocks: dict[str, Any]) -> Any:
    converter = ArgumentConverter(program.bex, program.compiled.items)

    def handler(vm: Any, fn: Any, args: list[Any]) -> Any:
        if fn.name not in mocks:
            raise RuntimeError(f"no mock for LLM function {fn.name}")
        return converter.convert(mocks[fn.name], program.view.function(fn.name).ret, f"mocks.{fn.name}")

    return handler


def run_witness(program: ingot.Program, func: str, args: dict[str, Any], mocks: dict[str, Any]) -> Any:
    """Call `func`; return its plain value or raise `ingot.BamlError`."""
    global _FALLBACK_NOTED
    try:
        return program.options(llm=mocks or None).call(func, **args)
    except ImportError:  # the LLM runtime (ingot.llm.runtime) has not landed yet
        if not _FALLBACK_NOTED:
            print("note: Program.call cannot build its LLM runtime yet; running witnesses on the VM "
                  "with a local mock handler", file=sys.stderr)
            _FALLBACK_NOTED = True
        vm = program.vm(llm=_mock_handler(program, mocks))
        return to_python(vm.call(program.function(func), program.convert_args(func, args)))


def outcome(program: ingot.Program, func: str, w: dict[str, Any]) -> tuple[Any, ingot.BamlError | None]:
    try:
        return run_witness(program, func, w.get("args", {}), w.get("mocks") or {}), None
    except ingot.BamlError as e:
        return None, e


# -- the Python twin under coverage.py ------------------------------------------------------
def python_check(spec: dict[str, Any], errors: list[str], verbose: bool) -> str:
    import coverage
    import explore_twins as tw

    twin = tw.TWINS[spec["python_twin"]]
    path = inspect.getsourcefile(twin.entry)
    ranges = []
    for f in twin.functions:
        lines, start = inspect.getsourcelines(f)
        ranges.append((start, start + len(lines) - 1))

    def inside(line: int) -> bool:
        return any(a <= line <= b for a, b in ranges)

    cov = coverage.Coverage(branch=True, data_file=None, include=[path])
    raised: list[tuple[int, str]] = []
    cov.start()
    try:
        for i, w in enumerate(spec["witnesses"]):
            kwargs = tw.python_args(spec["python_twin"], w.get("args", {}), w.get("mocks"))
            try:
                twin.entry(**kwargs)
            except Exception as e:  # noqa: BLE001 - any exception is an outcome here
                raised.append((i, type(e).__name__))
    finally:
        cov.stop()
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cov.json_report(outfile=out.name)
        report = json.loads(Path(out.name).read_text())
    (data,) = report["files"].values()
    executed = sorted(tuple(a) for a in data["executed_branches"] if inside(a[0]))
    missing = sorted(tuple(a) for a in data["missing_branches"] if inside(a[0]))
    want = spec.get("python_twin_arcs")
    if want != len(executed):
        errors.append(f"python twin: witnesses cover {len(executed)} branch arcs, python_twin_arcs says {want}; "
                      f"not covered: {missing}")
    # every expected error maps to the matching Python exception
    for i, w in enumerate(spec["witnesses"]):
        exp = w.get("expect")
        kind = exp.get("error") if isinstance(exp, dict) and "error" in exp and len(exp) == 1 else None
        got = [name for j, name in raised if j == i]
        if kind is not None:
            py = tw.PY_EXCEPTION.get(kind)
            if py is None or got != [py.__name__]:
                errors.append(f"python twin: witness {i} should raise {py.__name__ if py else kind}, got {got or 'no error'}")
        elif got:
            errors.append(f"python twin: witness {i} raised {got[0]}, the BAML program does not")
    note = f"python arcs {len(executed)}/{len(executed) + len(missing)}"
    if missing:
        note += f" (uncovered, infeasible: {missing})"
    if verbose:
        print("   python executed arcs:", executed)
    return note


# -- one program ----------------------------------------------------------------------------
def check(json_path: Path, edges_on: bool, python_on: bool, verbose: bool) -> list[str]:
    spec = json.loads(json_path.read_text())
    errors: list[str] = []
    program = ingot.load(json_path.with_suffix(".baml"))
    func = spec["function"]
    all_edges = {str(e) for fn in program.view.functions() for e in fn.branch_edges()}
    infeasible = set()
    for entry in spec["infeasible_edges"]:
        m = EDGE_RE.match(entry)
        if not m or m.group(1) not in all_edges:
            errors.append(f"infeasible_edges names no edge of the program: {entry!r}")
        else:
            infeasible.add(m.group(1))
    feasible = all_edges - infeasible
    if spec["feasible_edges"] != len(feasible):
        errors.append(f"feasible_edges = {spec['feasible_edges']}, but {len(all_edges)} edges - "
                      f"{len(infeasible)} infeasible = {len(feasible)}")

    tracer: EdgeTracer | None = None
    if edges_on:
        try:
            tracer = EdgeTracer(program)
        except RuntimeError as e:
            errors.append(f"edge tracer unavailable: {e} (rerun with --no-edges)")
    bugs_hit: set[tuple[str, int]] = set()
    planted = {(b["kind"], b["line"]) for b in spec["bugs"]}
    for i, w in enumerate(spec["witnesses"]):
        if tracer is not None:
            with tracer:
                value, err = outcome(program, func, w)
        else:
            value, err = outcome(program, func, w)
        exp = w.get("expect")
        if err is not None:
            line = err.trace[-1].line if err.trace else -1
            key = (err.kind, line)
            if key not in planted:
                errors.append(f"witness {i} {w['args']}: unexpected {err.kind} at line {line}: {err.message}")
            bugs_hit.add(key)
            if exp != {"error": err.kind}:
                errors.append(f"witness {i}: expected {exp!r}, got error {err.kind}")
        elif exp != value:
            errors.append(f"witness {i} {w['args']}: expected {exp!r}, got {value!r}")
        if verbose:
            print(f"   witness {i}: {err.kind if err else value!r}")
    for bug in sorted(planted - bugs_hit):
        errors.append(f"planted bug {bug} has no witness")

    notes = [f"{len(all_edges)} edges, {len(feasible)} feasible, {len(planted)} bug(s), {len(spec['witnesses'])} witnesses"]
    if tracer is not None:
        taken_infeasible = tracer.covered & infeasible
        missed = feasible - tracer.covered
        for e in sorted(taken_infeasible):
            errors.append(f"edge listed infeasible but taken by a witness: {e}")
        for e in sorted(missed):
            errors.append(f"feasible edge taken by no witness: {e}")
        notes.append(f"witnesses take {len(tracer.covered)}/{len(feasible)} feasible edges")
    if python_on and spec.get("python_twin"):
        notes.append(python_check(spec, errors, verbose))
    print(f"{'ok  ' if not errors else 'FAIL'} {json_path.stem}: {func}: " + "; ".join(notes))
    return errors


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="programs to check (default: every NAME.json here)")
    ap.add_argument("--no-edges", action="store_true", help="skip the branch-edge tracer")
    ap.add_argument("--no-python", action="store_true", help="skip the Python twins")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    paths = [HERE / f"{n}.json" for n in a.names] if a.names else sorted(HERE.glob("*.json"))
    failed = 0
    for p in paths:
        errs = check(p, not a.no_edges, not a.no_python, a.verbose)
        for e in errs:
            print("     -", e)
        failed += bool(errs)
    print(f"{len(paths) - failed}/{len(paths)} programs pass")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
