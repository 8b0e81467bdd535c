"""Exploring a whole project in parallel: 1 and N pool workers and a Dask LocalCluster.

    python bench/explore_parallel.py [--reps 3] [--max-runs 300] [--workers 2] [--no-dask]
                                     [--project bench/explore/project]

Times what a user waits for: `python -m ingot.cli explore PROJECT --json --max-runs N` in a
fresh process per run (start-up, compiling the project, every function's exploration, the
merged report), with `--workers 1`, `--workers N`, and `--dask ADDRESS` on a
`LocalCluster(processes=True, n_workers=N, threads_per_worker=1)` started once beforehand
(its start is not timed; its workers keep the compiled project between runs). The
configurations are interleaved within each repetition, so a change in the machine's load
falls on all of them. Prints the median wall time of each, its ratio to 1 worker (target:
<= 0.6 at 2 workers), the median CPU time all its processes used (the cost of running in
parallel: start-up, compiling in each worker, the cluster's own work) and its ratio, the load
average, and whether every run gave the identical report (it must: budgets are runs, never
wall clock, and the solver timeout is far above any query's). On a machine other people load,
the wall-time ratio only shows what the cores left over allowed; quote it with the load.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "bench" / "explore" / "project"


def cpu_seconds() -> tuple[float, dict[int, float]]:
    """CPU time of the processes this one waited for, and of each live descendant (the
    cluster's processes, which a Dask run works in; psutil comes with `distributed`)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    live: dict[int, float] = {}
    try:
        import psutil
    except ImportError:
        return usage.ru_utime + usage.ru_stime, live
    for child in psutil.Process().children(recursive=True):
        try:
            times = child.cpu_times()
            live[child.pid] = times.user + times.system
        except psutil.Error:
            pass
    return usage.ru_utime + usage.ru_stime, live


def explore(project: Path, max_runs: int, extra: list[str]) -> tuple[float, float, str]:
    """Wall time, CPU time (every process it used) and report of one `ingot explore PROJECT
    --json` in a fresh process."""
    command = [sys.executable, "-m", "ingot.cli", "explore", str(project), "--json", "--max-runs", str(max_runs),
               "--solver-timeout", "600000", "--timeout", "3600", *extra]
    reaped, live = cpu_seconds()
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - start
    reaped_after, live_after = cpu_seconds()
    cpu = reaped_after - reaped + sum(t - live[pid] for pid, t in live_after.items() if pid in live)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    return elapsed, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--max-runs", type=int, default=300, help="runs per function (the budget)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--project", type=Path, default=PROJECT)
    args = parser.parse_args()

    configs: dict[str, list[str]] = {"1 worker": ["--workers", "1"], f"{args.workers} workers": ["--workers", str(args.workers)]}
    cluster = None
    if not args.no_dask:
        from distributed import LocalCluster

        cluster = LocalCluster(processes=True, n_workers=args.workers, threads_per_worker=1, dashboard_address=None)
        configs[f"dask {args.workers}"] = ["--dask", cluster.scheduler_address]
    times: dict[str, list[float]] = {name: [] for name in configs}
    cpus: dict[str, list[float]] = {name: [] for name in configs}
    reports: dict[str, set[str]] = {name: set() for name in configs}
    loads = [os.getloadavg()[0]]
    try:
        for rep in range(args.reps):
            for name, extra in configs.items():
                elapsed, cpu, report = explore(args.project, args.max_runs, extra)
                times[name].append(elapsed)
                cpus[name].append(cpu)
                reports[name].add(hashlib.sha256(report.encode()).hexdigest())
                print(f"rep {rep + 1} {name:>10}: {elapsed:6.2f}s wall, {cpu:6.2f}s cpu", flush=True)
            loads.append(os.getloadavg()[0])
    finally:
        if cluster is not None:
            cluster.close()
    functions = json.loads(report)["totals"]["explored"]
    base = statistics.median(times["1 worker"])
    print(f"\n{args.project.relative_to(ROOT) if args.project.is_relative_to(ROOT) else args.project}: "
          f"{functions} functions explored, --max-runs {args.max_runs}, {os.cpu_count()} cores, "
          f"load average (1 min) {min(loads):.1f}..{max(loads):.1f} during the runs")
    print(f"{'':>10}  {'wall':>8}  {'vs 1 worker':>11}  {'cpu':>8}  {'vs 1 worker':>11}")
    cpu_base = statistics.median(cpus["1 worker"])
    for name, ts in times.items():
        wall, cpu = statistics.median(ts), statistics.median(cpus[name])
        print(f"{name:>10}  {wall:7.2f}s  {wall / base:10.2f}x  {cpu:7.2f}s  {cpu / cpu_base:10.2f}x")
    every = set().union(*reports.values())
    print(f"reports identical across every run and configuration: {'yes' if len(every) == 1 else 'NO'}")
    if len(every) != 1:
        sys.exit(1)


if __name__ == "__main__":
    main()
