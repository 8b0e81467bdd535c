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

Two figures put the ratio in context. The machine's own ceiling: within each repetition, the
same pure-Python CPU-bound work done serially in one process and split over N processes at
once (trivially parallel, no shared state), and the median ratio of the two. And the quality
of the schedule, independent of the load: every run asks for `--timings`, which gives each
job's CPU time and start; from the 1-worker runs' median CPU time per job, the lower bound on
the N-worker makespan (the larger of the total over N and the longest job), the makespan of
the order the N-worker runs actually started their jobs in (greedy list scheduling: a free
worker takes the next job), and that of ordering by reachable branch edges (the old order).
"""

from __future__ import annotations

import argparse
import hashlib
import heapq
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

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


SPIN = "import sys\nn = int(sys.argv[1])\nx = 0\nfor i in range(n):\n    x = (x * 31 + i) % 1000003\n"


def reference(units: int, workers: int, loops: int) -> tuple[float, float]:
    """Wall time of `units` equal pure-Python CPU-bound pieces of work in one process, and of the
    same work split over `workers` processes running at once (fresh interpreters both)."""
    def run(counts: list[int]) -> float:
        start = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-c", SPIN, str(n)]) for n in counts]
        for proc in procs:
            proc.wait()
        return time.perf_counter() - start

    serial = run([units * loops])
    parallel = run([units * loops // workers] * workers)
    return serial, parallel


def strip_timings(report: str) -> str:
    """The report without its wall-clock parts (`--timings`): what must be identical."""
    doc = json.loads(report)
    doc.pop("timeline", None)
    for rep in doc["functions"]:
        rep.pop("timeline", None)
    return json.dumps(doc, sort_keys=True)


def makespan(order: list[str], cost: dict[str, float], workers: int) -> float:
    """Greedy list scheduling: the jobs in `order`, each to the first worker free."""
    free = [0.0] * workers
    for name in order:
        heapq.heapreplace(free, free[0] + cost[name])
    return max(free)


def edges_order(project: Path, functions: list[str]) -> list[str]:
    """The jobs by decreasing count of reachable branch edges (the order before costs were estimated)."""
    from ingot.api import load
    from ingot.concolic.edges import reachable_edges

    view = load(project, resolve_hosts=False).view
    return sorted(functions, key=lambda f: -len(reachable_edges(view, f)))


def explore(project: Path, max_runs: int, extra: list[str]) -> tuple[float, float, str]:
    """Wall time, CPU time (every process it used) and report of one `ingot explore PROJECT
    --json --timings` in a fresh process."""
    command = [sys.executable, "-m", "ingot.cli", "explore", str(project), "--json", "--timings",
               "--max-runs", str(max_runs), "--solver-timeout", "600000", "--timeout", "3600", *extra]
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
    parser.add_argument("--spin", type=int, default=10_000_000,
                        help="loop iterations of the machine's reference work (about 1 s per million)")
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
    timelines: dict[str, list[dict[str, Any]]] = {name: [] for name in configs}
    spins: list[tuple[float, float]] = []
    loads = [os.getloadavg()[0]]
    try:
        for rep in range(args.reps):
            for name, extra in configs.items():
                elapsed, cpu, report = explore(args.project, args.max_runs, extra)
                times[name].append(elapsed)
                cpus[name].append(cpu)
                reports[name].add(hashlib.sha256(strip_timings(report).encode()).hexdigest())
                timelines[name].append(json.loads(report)["timeline"])
                print(f"rep {rep + 1} {name:>10}: {elapsed:6.2f}s wall, {cpu:6.2f}s cpu", flush=True)
            spins.append(reference(args.workers, args.workers, args.spin // args.workers))
            print(f"rep {rep + 1} reference: {spins[-1][0]:6.2f}s serial, {spins[-1][1]:6.2f}s in "
                  f"{args.workers} processes", flush=True)
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
    ceiling = statistics.median(p / q for q, p in spins)
    print(f"{'reference':>10}  {statistics.median(p for _, p in spins):7.2f}s  {ceiling:10.2f}x   "
          f"(trivially parallel CPU-bound work in {args.workers} processes vs serial: the machine's ceiling)")
    print_schedule(timelines, f"{args.workers} workers", args.workers, args.project)
    every = set().union(*reports.values())
    print(f"reports identical across every run and configuration: {'yes' if len(every) == 1 else 'NO'}")
    if len(every) != 1:
        sys.exit(1)


def print_schedule(timelines: dict[str, list[dict[str, Any]]], config: str, workers: int, project: Path) -> None:
    """Makespans of the jobs' part from the 1-worker runs' median CPU time per job: the lower
    bound, the order the pool ran them in, the old by-edges order; and the pool's achieved one."""
    serial = timelines["1 worker"]
    cost = {f: statistics.median(t["job_cpu_s"][f] for t in serial) for f in serial[0]["job_start_s"]}
    total = sum(cost.values())
    bound = max(total / workers, max(cost.values()))
    runs = timelines[config]
    used = [sorted(t["job_start_s"], key=t["job_start_s"].get) for t in runs]
    scheduled = statistics.median(makespan(order, cost, workers) for order in used)
    old = makespan(edges_order(project, list(cost)), cost, workers)
    achieved = statistics.median(max(t["job_start_s"][f] + t["job_s"][f] for f in t["job_start_s"]) for t in runs)
    serial_jobs = statistics.median(sum(t["job_s"].values()) for t in serial)
    longest = max(cost, key=cost.get)  # type: ignore[arg-type]
    print(f"\njobs' CPU time at 1 worker: {total:.2f}s in {len(cost)} jobs, the longest {longest} "
          f"{cost[longest]:.2f}s ({cost[longest] / total:.0%})")
    print(f"makespan at {workers} workers, from those times: lower bound {bound:.2f}s ({bound / total:.2f}x); "
          f"the order run {scheduled:.2f}s ({scheduled / total:.2f}x, {scheduled / bound:.2f}x the bound); "
          f"by reachable edges {old:.2f}s ({old / total:.2f}x)")
    print(f"achieved (wall, from the first job's start to the last job's end, median): {achieved:.2f}s, "
          f"{achieved / serial_jobs:.2f}x the 1-worker jobs' wall {serial_jobs:.2f}s")


if __name__ == "__main__":
    main()
