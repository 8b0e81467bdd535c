"""`ingot explore PATH...` without FUNCTION: every function of a project, one job each, on one
process, a local pool or a Dask cluster; the same report for any of them, a killed worker
included."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import ingot
from ingot.cli import main
from ingot.concolic import workers
from ingot.concolic.explore import Options
from ingot.concolic.project import JOB_LOG_ENV, FunctionJob, JobResult, ProjectSources, run_job

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "bench" / "explore" / "project"
# Budgets by runs and Z3 resource units only: no query has a clock (`--solver-timeout 0`) and the
# wall-clock budget cannot bite, so reports are equal under any load.
FIXED = ("--solver-timeout", "0", "--timeout", "3600")
# Functions that take longest at this budget: the first job started is still running when killed.
SLOW = ("--only", "FindPair", "--only", "PriceCents", "--only", "CompareVersions", "--only", "Throttled",
        "--max-runs", "120")


def explore(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["explore", *args, *FIXED])
    return result.exit_code, result.stdout, result.stderr


def explore_json(*args: str) -> dict:
    code, out, err = explore(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "ingot.cli", "explore", *args, *FIXED, "--json"]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)


def test_every_function_is_explored_as_alone_and_llm_functions_are_skipped() -> None:
    doc = explore_json(str(PROJECT), "--only", "Pa*", "--only", "Categorize", "--max-runs", "25")
    names = [r["function"] for r in doc["functions"]]
    assert names == ["PageOf", "ParseCommand", "ParseHeader", "ParseRow"]
    assert doc["skipped"] == [{"function": "Categorize",
                               "reason": "LLM function: no BAML body (its callers explore every reply it can give)"}]
    for report in doc["functions"]:  # each report is the one `ingot explore PATH FUNCTION` gives
        assert report == explore_json(str(PROJECT), report["function"], "--max-runs", "25")
    totals = doc["totals"]
    assert (totals["functions"], totals["explored"], totals["skipped"], totals["failed"]) == (5, 4, 1, 0)
    assert totals["runs"] == sum(r["runs"] for r in doc["functions"])
    assert totals["edges_covered"] == sum(r["coverage"]["edges_covered"] for r in doc["functions"])
    assert totals["findings"] == sum(len(r["findings"]) for r in doc["functions"]) > 0
    assert 0 < totals["distinct_edges"]["covered"] <= totals["distinct_edges"]["total"] == totals["edges_total"]


def test_summary_table_lists_every_function_with_a_totals_row(tmp_path: Path) -> None:
    (tmp_path / "main.baml").write_text(
        "function Apply(f: (int) -> int, x: int) -> int {\n  f(x)\n}\n\n"
        "function Twice(x: int) -> int {\n  if (x > 10) {\n    return 0;\n  }\n"
        "  Apply((y: int) -> int { y * 2 }, x)\n}\n")
    code, out, err = explore(str(tmp_path))
    assert code == 0, err
    assert "Apply" in out and "skipped" in out and "`f` has a function type" in out
    assert "Twice" in out and "2/2" in out and "IntegerOverflow in Twice" in out
    assert "total" in out and "1 function explored, 1 skipped, 0 failed" in out
    doc = explore_json(str(tmp_path / "main.baml"))  # one file without FUNCTION: the same project
    assert [r["function"] for r in doc["functions"]] == ["Twice"]
    assert doc["skipped"][0]["function"] == "Apply"


def test_usage_errors() -> None:
    code, _, err = explore(str(PROJECT), "--only", "Nope*")
    assert code == 1 and "no function of" in err and "matches --only Nope*" in err
    code, _, err = explore(str(PROJECT), "Luhn", "--workers", "2")
    assert code == 2 and "--workers" in err
    code, _, err = explore(str(PROJECT), "--workers", "2", "--dask", "tcp://127.0.0.1:1")
    assert code == 2 and "not both" in err
    code, _, err = explore(str(PROJECT), "--only", "Luhn", "--solver-rlimit", "0")  # and --solver-timeout 0
    assert code == 2 and "--solver-timeout 0 needs a --solver-rlimit" in err


# Five functions (string parsing, loops, a call) at a small budget: the report that local workers
# and a Dask cluster must give too, computed once in this process.
QUICK = ("--only", "P*", "--max-runs", "20")


@pytest.fixture(scope="module")
def quick_reference() -> dict:
    return explore_json(str(PROJECT), *QUICK)


def test_any_number_of_workers_gives_the_same_report(quick_reference: dict) -> None:
    assert explore_json(str(PROJECT), *QUICK, "--workers", "2") == quick_reference
    assert quick_reference["totals"]["explored"] == 5


@pytest.mark.slow
def test_any_number_of_workers_gives_the_same_report_for_the_whole_project() -> None:
    one = explore_json(str(PROJECT), "--max-runs", "15")
    two = explore_json(str(PROJECT), "--max-runs", "15", "--workers", "2")
    assert one == two
    assert one["totals"]["explored"] >= 30 and one["totals"]["skipped"] == 6


def first_started(log: Path, timeout_s: float = 120) -> tuple[str, int]:
    """The function and pid of the first job a worker started (its log file)."""
    deadline = time.monotonic() + timeout_s
    while not (files := sorted(log.iterdir())):
        assert time.monotonic() < deadline, "no job started"
        time.sleep(0.005)
    function, pid = files[0].name.rsplit(".", 1)
    return function, int(pid)


def test_a_worker_killed_mid_job_loses_nothing(tmp_path: Path) -> None:
    env = dict(os.environ, **{JOB_LOG_ENV: str(tmp_path)})
    run = cli(str(PROJECT), *SLOW, "--workers", "2", env=env)
    function, pid = first_started(tmp_path)
    os.kill(pid, signal.SIGKILL)
    out, err = run.communicate(timeout=600)
    assert run.returncode == 0, err
    again = [f.name for f in tmp_path.iterdir() if f.name.startswith(function + ".")]
    assert len(again) == 2, again  # the killed job ran again, in another process
    assert json.loads(out) == explore_json(str(PROJECT), *SLOW)


def dies_on_luhn(job: FunctionJob) -> JobResult:
    """A job that kills its worker process whenever it explores Luhn."""
    if job.function == "Luhn":
        os.kill(os.getpid(), signal.SIGKILL)
    return run_job(job)


def test_a_job_that_kills_every_worker_is_reported_failed_and_the_others_run(monkeypatch: pytest.MonkeyPatch) -> None:
    program = ingot.load(PROJECT, resolve_hosts=False)
    project = ProjectSources.of((s.name, s.display) for s in program.compiled.sources)
    options = Options(max_runs=20, solver_timeout_ms=0, timeout_s=3600)
    jobs = [FunctionJob(project, name, options) for name in ("Slugify", "Luhn", "Classify", "MaskCard")]
    alone = {r.function: r for r in workers.run_here(jobs) if r.function != "Luhn"}
    monkeypatch.setattr(workers, "run_job", dies_on_luhn)  # forked workers see the patched module
    results = {r.function: r for r in workers.run_pool(jobs, 2)}
    assert results["Luhn"].status == "failed" and "died every time" in (results["Luhn"].reason or "")
    assert {name: r.report for name, r in results.items() if name != "Luhn"} == \
        {name: r.report for name, r in alone.items()}


def local_cluster() -> object:
    distributed = pytest.importorskip("distributed")
    return distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, dashboard_address=None)


def without_solver_work(doc: dict) -> dict:
    """The report less each function's solver statistics (units spent, searches near the run)."""
    return {**doc, "functions": [{k: v for k, v in f.items() if k != "solver"} for f in doc["functions"]]}


def test_a_dask_cluster_gives_the_same_report(quick_reference: dict) -> None:
    # Z3's string solver does not always spend the same units on a query in a Dask worker as in
    # this process: once (of many runs, under load) a PageOf query was sat 26 k units below the
    # 315 k limit there and unknown at the limit here, where the search near the run then found
    # a model too. Tests, findings and coverage came out the same; the solver's statistics did not.
    with local_cluster() as cluster:
        doc = explore_json(str(PROJECT), *QUICK, "--dask", cluster.scheduler_address)
    assert without_solver_work(doc) == without_solver_work(quick_reference)


def test_an_unreachable_dask_scheduler_is_a_clear_error() -> None:
    dask = pytest.importorskip("dask")
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        code, _, err = explore(str(PROJECT), "--only", "Luhn", "--dask", "tcp://127.0.0.1:1")
    assert code == 1 and "cannot reach the Dask scheduler at tcp://127.0.0.1:1" in err and "Traceback" not in err


def test_emit_tests_writes_one_file_per_explored_function(tmp_path: Path) -> None:
    code, _, err = explore(str(PROJECT), "--only", "Luhn", "--only", "Slugify", "--only", "Classify",
                           "--max-runs", "20", "--emit-tests", "json", str(tmp_path))
    assert code == 0, err
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["project_Classify_tests.json", "project_Luhn_tests.json", "project_Slugify_tests.json"]
    assert all(json.loads((tmp_path / n).read_text())["tests"] for n in written)


@pytest.mark.slow
def test_dask_reruns_the_task_of_a_killed_worker(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reference = explore_json(str(PROJECT), *SLOW)
    monkeypatch.setenv(JOB_LOG_ENV, str(tmp_path))  # the cluster's worker processes inherit it
    with local_cluster() as cluster:
        run = cli(str(PROJECT), *SLOW, "--dask", cluster.scheduler_address)
        function, pid = first_started(tmp_path)
        os.kill(pid, signal.SIGKILL)
        out, err = run.communicate(timeout=600)
    assert run.returncode == 0, err
    assert len([f for f in tmp_path.iterdir() if f.name.startswith(function + ".")]) == 2
    assert json.loads(out) == reference
