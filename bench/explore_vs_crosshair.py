"""ingot explore vs CrossHair on the programs of bench/explore/ and bench/explore/apps/ (concolic.md section 10).

Usage:

    python bench/explore_vs_crosshair.py                 # every program of bench/explore/ with a Python twin
    python bench/explore_vs_crosshair.py --apps          # every program of bench/explore/apps/
    python bench/explore_vs_crosshair.py triage cart     # some programs (of either directory)
    python bench/explore_vs_crosshair.py --reps 1 --budgets 5,10,20   # a quick look
    python bench/explore_vs_crosshair.py --json results.json          # also keep the raw numbers

Options: --reps N (runs per measurement, median reported; default 3), --budgets LIST (the
`--max_uninteresting_iterations` sweep; default 5,10,20,40,80,160,320), --check-timeout T
(`crosshair check --per_condition_timeout`, CPU seconds; default 30), --run-timeout S (kill any
single run after S wall seconds; default 600), --no-ingot / --no-crosshair (one side only),
--all (also list programs without a twin, ingot side only).

The twins are in `explore_twins.py` (bench/explore/) and `explore_apps_twins.py` (apps/).

Environment: CROSSHAIR = path to the `crosshair` executable (default: `crosshair` on PATH; a
separate virtualenv works: `CROSSHAIR=/tmp/ch/bin/crosshair`); INGOT = path to the `ingot`
executable (default: the `ingot` script beside this interpreter, else `ingot` on PATH: a version
manager's shim, such as pyenv's, runs a shell and a second process first, 0.2 s per start). The
Python twins are measured with coverage.py, which must be importable here (`pip install coverage`).

Both tools' processes run with a bytecode cache, as installed packages do (pip compiles them
at install time): the script compiles ingot's package and the twins into a temporary
PYTHONPYCACHEPREFIX first, even when the environment sets PYTHONDONTWRITEBYTECODE (which would
otherwise have every ingot process compile its sources from scratch, 0.3 s or more).

What is measured, per program (one row):

- ingot: `ingot explore FILE FUNC --json --seed 0 --timings` as a subprocess. Edges covered out
  of the hand-counted feasible edges (`feasible_edges` in NAME.json). Times are measured from
  process start, like CrossHair's: start-up (process wall time minus the report's
  `timeline.time_s`) plus `timeline.full_coverage_s`, resp. the time of the first finding that
  is a planted bug (same kind and line as NAME.json's `bugs`). When ingot covers every feasible
  edge but cannot prove the remaining ones infeasible it reports no full-coverage time; the
  time is then that of the test that covered the last feasible edge (`timeline.tests_s`: what
  a `--max-runs` stopping right after that run would take, as CrossHair's smallest sufficient
  budget below), or, from an explorer without `tests_s`, the row shows "<=" and the whole
  run's time as an upper bound.
- CrossHair (`crosshair cover --coverage_type=path`, plus `--max_uninteresting_iterations=N`
  swept over --budgets up to the first N whose inputs cover every feasible branch arc of the
  twin, or the first run cut by --run-timeout): each printed call is replayed under coverage.py
  (branch mode) and the executed arcs inside the twin's functions are counted against
  `python_twin_arcs` (the table shows the best budget's). Time to full coverage is
  the run time at the smallest sufficient N (wall and CPU of the child process). Time to the
  planted bug is the run time of `crosshair check --per_condition_timeout=T`, which stops at
  the first counterexample; it counts as found when the report names the twin's exception.
- Where no budget covers every arc, the coverage ratio (marked '*') is CrossHair's wall time at
  its best budget (the smallest with the most arcs) over ingot's time to the same fraction of
  its feasible edges (`IngotResult.time_to_edges`, from the reports' `timeline.tests_s`).
- Medians over --reps runs; ratios are CrossHair / ingot (above 1: ingot is faster), with
  start-up included and excluded (start-up: CrossHair on an identity function, ingot as above).
  Both sides are deterministic (fixed seeds); the script checks ingot's reports for equality.

Edge counts differ between the two columns on purpose: ingot counts MIR branch edges (each
operand of `&&`/`||` is a branch, a `match` has one edge per arm), coverage.py counts line arcs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROGRAMS = HERE / "explore"
APPS = PROGRAMS / "apps"
sys.path.insert(0, str(HERE))

import explore_apps_twins  # noqa: E402  (needs the sys.path entry above)
import explore_twins  # noqa: E402

TWINS = {**explore_twins.TWINS, **explore_apps_twins.TWINS}
PY_EXCEPTION = {**explore_twins.PY_EXCEPTION, **explore_apps_twins.PY_EXCEPTION}


def twin_module(twin: str) -> Any:
    """The module defining twin `twin` (CrossHair's target is `module.twin`)."""
    return sys.modules[TWINS[twin].entry.__module__]


# -- running a child process ----------------------------------------------------------------
@dataclass
class Timed:
    rc: int
    out: str
    err: str
    wall: float
    cpu: float
    timed_out: bool = False


CHILD_ENV: dict[str, str] | None = None  # the measured processes' environment (None: this one's)


def bytecode_cache(cache: Path) -> None:
    """Give the measured processes a bytecode cache in `cache`, filled now with ingot's package
    and the twins, so that no measured run compiles them."""
    global CHILD_ENV
    CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(cache)
    dirs = [str(HERE)]
    try:
        import ingot  # the package the `ingot` script imports, when this interpreter runs it
        dirs.append(str(Path(ingot.__file__).parent))
    except ImportError:
        pass
    subprocess.run([sys.executable, "-m", "compileall", "-q", *dirs], env=CHILD_ENV, check=False,
                   capture_output=True)


def timed(cmd: list[str], cwd: Path, timeout: float) -> Timed:
    """Run `cmd`; wall time by perf_counter, CPU time (user+sys) from RUSAGE_CHILDREN."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=CHILD_ENV)
        rc, out, err, to = p.returncode, p.stdout, p.stderr, False
    except OSError as e:  # no such executable, ...
        rc, out, err, to = 127, "", f"{cmd[0]}: {e}", False
    except subprocess.TimeoutExpired as e:
        rc, to = -9, True
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = e.stderr.decode() if isinstance(e.stderr, bytes) else (e.stderr or "")
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timed(rc, out, err, wall, cpu, to)


def median(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return statistics.median(vals) if len(vals) == len(xs) and vals else None


# -- the ingot side -------------------------------------------------------------------------
class IngotUnavailable(RuntimeError):
    pass


def ingot_exe() -> str:
    beside = Path(sys.executable).parent / "ingot"
    exe = os.environ.get("INGOT") or (str(beside) if beside.exists() else shutil.which("ingot"))
    if not exe:
        raise IngotUnavailable("no `ingot` executable (pip install -e '.[dev]', or set INGOT=/path/to/ingot)")
    return exe


def ingot_available(timeout: float) -> None:
    r = timed([ingot_exe(), "explore", "--help"], HERE, timeout)
    if r.rc != 0:
        raise IngotUnavailable("`ingot explore` does not exist yet (or fails): "
                               + (r.err.strip().splitlines() or ["no output"])[-1])


def _line_of(finding: dict[str, Any]) -> int | None:
    for text in [finding.get("site") or "", *(finding.get("trace") or [])[::-1]]:
        m = re.search(r"line (\d+)", str(text))
        if m:
            return int(m.group(1))
    return None


@dataclass
class IngotRun:
    wall: float
    cpu: float
    covered: int
    startup: float | None
    t_cov: float | None
    cov_upper_bound: bool
    t_bug: float | None
    bug_upper_bound: bool
    found: bool
    runs: int
    report: dict[str, Any]


def edge_key(label: str) -> str:
    """An edge's label without its source position: `F:bb8[T]->bb13 (false)`."""
    return label.split(" at ")[0].split(": ")[0]


def feasible_coverage_s(report: dict[str, Any], spec: dict[str, Any], needed: int | None = None) -> float | None:
    """When the test that brought the feasible edges covered to `needed` (default: all of them)
    was found (`timeline.tests_s`), or None."""
    times = (report.get("timeline") or {}).get("tests_s")
    if not times:
        return None
    needed = spec["feasible_edges"] if needed is None else needed
    infeasible = {edge_key(e) for e in spec.get("infeasible_edges", [])}
    covered = 0
    for test, t in zip(report.get("tests", []), times):
        covered += sum(1 for e in test["new_edges"] if edge_key(e) not in infeasible)
        if covered >= needed:
            return float(t)
    return None


def ingot_once(baml: Path, func: str, spec: dict[str, Any], timeout: float) -> IngotRun:
    base = [ingot_exe(), "explore", str(baml), func, "--json", "--seed", "0"]
    r = timed(base + ["--timings"], HERE, timeout)
    if r.rc == 2 and "--timings" in r.err:  # an explorer without --timings: the schema's timeline is then inline
        r = timed(base, HERE, timeout)
    try:
        report = json.loads(r.out)
    except json.JSONDecodeError as e:
        tail = (r.err.strip().splitlines() or ["no output"])[-1]
        raise IngotUnavailable(f"`ingot explore {baml.name} {func}` gave no JSON report (rc {r.rc}): {tail}") from e
    tl = report.get("timeline") or {}
    in_process = tl.get("time_s", report.get("time_s"))
    startup = r.wall - in_process if in_process is not None else None
    covered = report["coverage"]["edges_covered"]
    feasible = spec["feasible_edges"]

    t_cov, cov_ub = None, False
    when_covered = feasible_coverage_s(report, spec)
    if tl.get("full_coverage_s") is not None and startup is not None:
        t_cov = startup + tl["full_coverage_s"]
    elif when_covered is not None and startup is not None:
        t_cov = startup + when_covered
    elif covered >= feasible:
        t_cov, cov_ub = r.wall, True

    planted = {(b["kind"], b["line"]) for b in spec["bugs"]}
    t_bug, bug_ub, found = None, False, False
    for i, f in enumerate(report.get("findings", [])):
        if (f.get("kind"), _line_of(f)) in planted:
            found = True
            found_s = (tl.get("findings_s") or [None] * (i + 1))[i]
            if found_s is not None and startup is not None:
                t_bug = startup + found_s
            elif i == 0 and tl.get("first_finding_s") is not None and startup is not None:
                t_bug = startup + tl["first_finding_s"]
            else:
                t_bug, bug_ub = r.wall, True
            break
    return IngotRun(r.wall, r.cpu, covered, startup, t_cov, cov_ub, t_bug, bug_ub, found,
                    report.get("runs", 0), report)


@dataclass
class IngotResult:
    covered: int
    feasible: int
    wall: float | None
    cpu: float | None
    startup: float | None
    t_cov: float | None
    cov_upper_bound: bool
    t_bug: float | None
    bug_upper_bound: bool
    found: bool
    runs: int
    deterministic: bool
    findings: list[str] = field(default_factory=list)
    # (start-up, report) of every repetition: the time to a given coverage is read from them
    reports: list[tuple[float | None, dict[str, Any]]] = field(default_factory=list)
    spec: dict[str, Any] = field(default_factory=dict)

    def time_to_edges(self, needed: int) -> float | None:
        """Median time from process start until `needed` feasible edges were covered."""
        times = []
        for startup, report in self.reports:
            when = feasible_coverage_s(report, self.spec, needed)
            times.append(None if when is None or startup is None else startup + when)
        return median(times)


def ingot_side(baml: Path, spec: dict[str, Any], reps: int, timeout: float) -> IngotResult:
    runs = [ingot_once(baml, spec["function"], spec, timeout) for _ in range(reps)]
    stripped = [json.dumps({k: v for k, v in r.report.items() if k != "timeline"}, sort_keys=True) for r in runs]
    last = runs[-1]
    return IngotResult(
        covered=last.covered, feasible=spec["feasible_edges"],
        wall=median([r.wall for r in runs]), cpu=median([r.cpu for r in runs]),
        startup=median([r.startup for r in runs]),
        t_cov=median([r.t_cov for r in runs]), cov_upper_bound=last.cov_upper_bound,
        t_bug=median([r.t_bug for r in runs]), bug_upper_bound=last.bug_upper_bound,
        found=last.found, runs=last.runs, deterministic=len(set(stripped)) == 1,
        findings=[f"{f.get('kind')}@{_line_of(f)}" for f in last.report.get("findings", [])],
        reports=[(r.startup, r.report) for r in runs], spec=spec)


# -- the CrossHair side ---------------------------------------------------------------------
def crosshair_exe() -> str:
    exe = os.environ.get("CROSSHAIR") or shutil.which("crosshair")
    if not exe or not Path(exe).exists():
        raise SystemExit("CrossHair not found: pip install crosshair-tool (or set CROSSHAIR=/path/to/crosshair); "
                         "use --no-crosshair to run the ingot side only")
    return exe


def twin_ranges(twin: str) -> tuple[str, list[tuple[int, int]]]:
    import inspect

    t = TWINS[twin]
    ranges = []
    for f in t.functions:
        lines, start = inspect.getsourcelines(f)
        ranges.append((start, start + len(lines) - 1))
    return inspect.getsourcefile(t.entry) or "", ranges


def replay_coverage(twin: str, calls: list[str]) -> tuple[int, list[str]]:
    """Replay CrossHair's printed calls under coverage.py; return (arcs executed in the twin, exceptions)."""
    import coverage

    if not calls:  # CrossHair printed nothing (e.g. the run was cut by --run-timeout)
        return 0, []
    path, ranges = twin_ranges(twin)
    ns: dict[str, Any] = dict(vars(twin_module(twin)))
    ns.update(nan=float("nan"), inf=float("inf"))
    raised: list[str] = []
    cov = coverage.Coverage(branch=True, data_file=None, include=[path])
    cov.start()
    try:
        for call in calls:
            try:
                eval(call, ns)  # noqa: S307 - CrossHair's own output, replayed on our twins
            except Exception as e:  # noqa: BLE001
                raised.append(type(e).__name__)
    finally:
        cov.stop()
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cov.json_report(outfile=out.name)
        data = json.loads(Path(out.name).read_text())["files"]
    arcs = set()
    for d in data.values():
        arcs |= {tuple(a) for a in d["executed_branches"] if any(lo <= a[0] <= hi for lo, hi in ranges)}
    return len(arcs), raised


@dataclass
class CoverRun:
    budget: int
    arcs: int
    inputs: int
    wall: float
    cpu: float
    reached_bug: bool
    timed_out: bool = False


@dataclass
class CrosshairResult:
    feasible: int
    sweep: list[CoverRun]
    budget: int | None
    arcs: int
    t_cov_wall: float | None
    t_cov_cpu: float | None
    found: bool
    t_bug_wall: float | None
    t_bug_cpu: float | None
    bug_line: str
    deterministic: bool
    check_cut: int = 0  # `check` runs cut by --run-timeout

    def best_partial(self) -> CoverRun | None:
        """When no budget covered every arc: the smallest budget's run with the most arcs (its wall
        time is what CrossHair took to reach its best coverage), or None."""
        if self.budget is not None:
            return None
        done = [s for s in self.sweep if not s.timed_out and s.arcs > 0]
        return min(done, key=lambda s: (-s.arcs, s.budget)) if done else None


def cover_once(twin: str, budget: int, timeout: float) -> tuple[CoverRun, str]:
    cmd = [crosshair_exe(), "cover", "--coverage_type=path", f"--max_uninteresting_iterations={budget}",
           f"{twin_module(twin).__name__}.{twin}"]
    r = timed(cmd, HERE, timeout)
    calls = [ln for ln in r.out.splitlines() if ln.startswith(f"{twin}(")]
    arcs, raised = replay_coverage(twin, calls)
    return CoverRun(budget, arcs, len(calls), r.wall, r.cpu, bool(raised), r.timed_out), r.out


def crosshair_side(spec: dict[str, Any], reps: int, budgets: list[int], check_timeout: float,
                   run_timeout: float) -> CrosshairResult:
    twin = spec["python_twin"]
    feasible = spec["python_twin_arcs"]
    sweep: list[CoverRun] = []
    chosen: int | None = None
    cover_outs: list[str] = []
    for n in budgets:
        run, out = cover_once(twin, n, run_timeout)
        sweep.append(run)
        if run.arcs >= feasible:
            chosen = n
            cover_outs.append(out)
            break
        if run.timed_out:  # a larger budget only runs longer
            break
    t_cov_wall = t_cov_cpu = None
    if chosen is not None:
        runs = [sweep[-1]]
        for _ in range(reps - 1):
            run, out = cover_once(twin, chosen, run_timeout)
            runs.append(run)
            cover_outs.append(out)
        t_cov_wall = median([r.wall for r in runs])
        t_cov_cpu = median([r.cpu for r in runs])

    exc_names = {PY_EXCEPTION[b["kind"]].__name__ for b in spec["bugs"] if b["kind"] in PY_EXCEPTION}
    walls, cpus, found, line, check_outs, cut = [], [], [], "", [], 0
    for _ in range(reps):
        r = timed([crosshair_exe(), "check", f"--per_condition_timeout={check_timeout}",
                   f"{twin_module(twin).__name__}.{twin}"],
                  HERE, run_timeout)
        hit = [ln for ln in r.out.splitlines() if "error:" in ln and any(f"{e}:" in ln for e in exc_names)]
        found.append(bool(hit))
        walls.append(r.wall)
        cpus.append(r.cpu)
        line = line or (hit[0] if hit else "")
        check_outs.append(r.out)
        cut += r.timed_out
    ok = all(found)
    return CrosshairResult(
        feasible=feasible, sweep=sweep, budget=chosen, arcs=max((s.arcs for s in sweep), default=0),
        t_cov_wall=t_cov_wall, t_cov_cpu=t_cov_cpu, found=ok,
        t_bug_wall=median(walls) if ok else None, t_bug_cpu=median(cpus) if ok else None,
        bug_line=line.strip(), check_cut=cut, deterministic=len(set(cover_outs)) <= 1 and len(set(check_outs)) <= 1)


def crosshair_startup(reps: int, timeout: float) -> tuple[float | None, float | None]:
    runs = [timed([crosshair_exe(), "check", "explore_twins.identity"], HERE, timeout) for _ in range(reps)]
    return median([r.wall for r in runs]), median([r.cpu for r in runs])


# -- the table ------------------------------------------------------------------------------
def fmt(x: float | None, ub: bool = False) -> str:
    if x is None:
        return "-"
    return ("<=" if ub else "") + f"{x:.2f}"


def ratio(ch: float | None, ig: float | None) -> str:
    if ch is None or ig is None or ig <= 0:
        return "-"
    if ch <= 0:
        return "~0"  # below CrossHair's start-up noise
    return f"{ch / ig:.1f}x"


def main() -> int:
    ap = argparse.ArgumentParser(description="ingot explore vs CrossHair on bench/explore (see the module docstring)")
    ap.add_argument("names", nargs="*")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--budgets", default="5,10,20,40,80,160,320")
    ap.add_argument("--check-timeout", type=float, default=30.0)
    ap.add_argument("--run-timeout", type=float, default=600.0)
    ap.add_argument("--no-ingot", action="store_true")
    ap.add_argument("--no-crosshair", action="store_true")
    ap.add_argument("--all", action="store_true", help="also programs without a Python twin (ingot side only)")
    ap.add_argument("--apps", action="store_true", help="the programs of bench/explore/apps/ (default: bench/explore/)")
    ap.add_argument("--json", type=Path, help="write the raw results here")
    a = ap.parse_args()
    budgets = [int(x) for x in a.budgets.split(",")]

    specs, paths = {}, {}
    dirs = [PROGRAMS, APPS] if a.names else [APPS] if a.apps else [PROGRAMS]
    for p in [p for d in dirs for p in sorted(d.glob("*.json"))]:
        if a.names and p.stem not in a.names:
            continue
        spec = json.loads(p.read_text())
        if spec.get("python_twin") or a.all:
            specs[p.stem], paths[p.stem] = spec, p.with_suffix(".baml")
    if not specs:
        print("no programs selected", file=sys.stderr)
        return 2

    cache = tempfile.TemporaryDirectory(prefix="ingot-vs-crosshair-pycache-")
    bytecode_cache(Path(cache.name))
    do_ingot = not a.no_ingot
    if do_ingot:
        try:
            ingot_available(a.run_timeout)
        except IngotUnavailable as e:
            print(f"ingot side skipped: {e}", file=sys.stderr)
            do_ingot = False
    do_ch = not a.no_crosshair
    if do_ch:
        crosshair_exe()

    load = os.getloadavg()
    print(f"# {len(specs)} programs, {a.reps} rep(s), {os.cpu_count()} cores, load {load[0]:.1f} {load[1]:.1f} "
          f"{load[2]:.1f}; budgets {budgets}; check --per_condition_timeout={a.check_timeout:g}", flush=True)

    results: dict[str, Any] = {}
    t_start = time.perf_counter()
    for name, spec in specs.items():
        row: dict[str, Any] = {"function": spec["function"], "twin": spec.get("python_twin")}
        try:
            row["ingot"] = ingot_side(paths[name], spec, a.reps, a.run_timeout) if do_ingot else None
        except IngotUnavailable as e:
            print(f"{name}: ingot failed: {e}", file=sys.stderr)
            row["ingot"] = None
        has_twin = do_ch and spec.get("python_twin")
        # CrossHair's start-up, measured beside each program's runs (the load drifts over a long run)
        row["crosshair_startup"] = crosshair_startup(a.reps, a.run_timeout) if has_twin else (None, None)
        row["crosshair"] = (crosshair_side(spec, a.reps, budgets, a.check_timeout, a.run_timeout)
                            if has_twin else None)
        results[name] = row
        print(f"# done {name} ({time.perf_counter() - t_start:.0f} s so far)", flush=True)

    # table
    nw = max(11, *(len(n) for n in results))  # the program column's width
    head = (f"{'program':{nw}s} | {'ingot edges':>11s} {'t_cov':>7s} {'t_bug':>7s} {'wall':>6s} {'cpu':>6s} | "
            f"{'CH arcs':>7s} {'N':>4s} {'t_cov w/cpu':>13s} {'bug':>4s} {'t_bug w/cpu':>13s} | "
            f"{'cov ratio':>9s} {'bug ratio':>9s} | {'ex start-up cov/bug':>19s}")
    print()
    print(head)
    print("-" * len(head))
    ig_start = None
    ch_starts = [row["crosshair_startup"] for row in results.values() if row["crosshair_startup"][0] is not None]
    for name, row in results.items():
        ig: IngotResult | None = row["ingot"]
        ch: CrosshairResult | None = row["crosshair"]
        if ig is not None and ig.startup is not None:
            ig_start = ig.startup if ig_start is None else min(ig_start, ig.startup)
        ig_cols = (f"{ig.covered:>5d}/{ig.feasible:<5d} {fmt(ig.t_cov, ig.cov_upper_bound):>7s} "
                   f"{fmt(ig.t_bug, ig.bug_upper_bound) if ig.found else 'miss':>7s} {fmt(ig.wall):>6s} "
                   f"{fmt(ig.cpu):>6s}" if ig else f"{'-':>11s} {'-':>7s} {'-':>7s} {'-':>6s} {'-':>6s}")
        if ch:
            ch_cols = (f"{ch.arcs:>3d}/{ch.feasible:<3d} {ch.budget if ch.budget else '>' + str(budgets[-1]):>4} "
                       f"{fmt(ch.t_cov_wall) + '/' + fmt(ch.t_cov_cpu):>13s} {'yes' if ch.found else 'miss':>4s} "
                       f"{fmt(ch.t_bug_wall) + '/' + fmt(ch.t_bug_cpu):>13s}")
        else:
            ch_cols = f"{'-':>7s} {'-':>4s} {'-':>13s} {'-':>4s} {'-':>13s}"
        r_cov = ratio(ch.t_cov_wall, ig.t_cov) if ch and ig else "-"
        best = ch.best_partial() if ch else None
        ig_partial = None
        if best is not None and ig is not None and ch is not None:
            # CrossHair's best is partial: its time to that fraction against ingot's to the same
            # fraction of its own feasible edges (the units differ: arcs and MIR edges)
            ig_partial = ig.time_to_edges(-(-best.arcs * ig.feasible // ch.feasible))
            r_cov = ratio(best.wall, ig_partial) + "*"
        r_bug = ratio(ch.t_bug_wall, ig.t_bug) if ch and ig and ig.found else "-"
        ex = "-"
        ch_start = row["crosshair_startup"][0]
        if ch and ig and ig.startup is not None and ch_start is not None:
            ex_cov = ratio(None if ch.t_cov_wall is None else ch.t_cov_wall - ch_start,
                           None if ig.t_cov is None or ig.cov_upper_bound else ig.t_cov - ig.startup)
            if best is not None:
                ex_cov = ratio(best.wall - ch_start, None if ig_partial is None else ig_partial - ig.startup) + "*"
            ex_bug = ratio(None if ch.t_bug_wall is None else ch.t_bug_wall - ch_start,
                           None if ig.t_bug is None or ig.bug_upper_bound or not ig.found else ig.t_bug - ig.startup)
            ex = f"{ex_cov}/{ex_bug}"
        print(f"{name:{nw}s} | {ig_cols} | {ch_cols} | {r_cov:>9s} {r_bug:>9s} | {ex:>19s}")
    print()
    print("Times in seconds, medians; ingot times from process start (start-up included); CrossHair t_cov/t_bug")
    print("are wall/CPU of the whole `cover` run at budget N and of `check`. Ratios: CrossHair wall / ingot")
    print("(above 1: ingot faster). ingot t_cov: when the test covering the last feasible edge was found.")
    print("'<=': all feasible edges covered, but ingot did not prove the rest infeasible and says not")
    print("when each test was found, so the run's total time bounds the time to coverage.")
    print("'*': CrossHair covers every arc at no budget; the ratio is its wall time at its best budget (the")
    print("smallest with the most arcs) over ingot's time to the same fraction of its feasible edges.")
    print(f"Start-up: ingot {fmt(ig_start)} s (min over programs, process wall minus exploration time); "
          f"CrossHair {fmt(median([w for w, _ in ch_starts]) if ch_starts else None)} s wall / "
          f"{fmt(median([c for _, c in ch_starts]) if ch_starts else None)} s CPU (`check` on an identity function, "
          "median over programs; the 'ex start-up' ratios subtract each program's own measurement).")
    for name, row in results.items():
        ig, ch = row["ingot"], row["crosshair"]
        notes = []
        if ig is not None:
            if not ig.deterministic:
                notes.append("ingot reports differ between runs with the same seed")
            if ig.findings:
                notes.append("ingot findings " + ", ".join(ig.findings))
        if ch is not None:
            notes.append("CrossHair sweep " + ", ".join(
                f"N={s.budget}: " + (f"cut after {s.wall:.0f} s" if s.timed_out
                                     else f"{s.arcs}/{ch.feasible} in {s.wall:.1f} s")
                for s in ch.sweep))
            if not ch.deterministic:
                notes.append("CrossHair output differs between repetitions")
            if ch.check_cut:
                notes.append(f"CrossHair check cut by --run-timeout in {ch.check_cut} run(s)")
            if ch.bug_line:
                notes.append("CrossHair: " + ch.bug_line.split("error: ", 1)[-1])
        if notes:
            print(f"  {name}: " + "; ".join(notes))

    if a.json:
        def plain(o: Any) -> Any:
            return o.__dict__ if hasattr(o, "__dict__") else str(o)

        for row in results.values():
            if row.get("ingot") is not None:
                row["ingot"] = dict(row["ingot"].__dict__)
        a.json.write_text(json.dumps({"results": results}, default=plain, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
