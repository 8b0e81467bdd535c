"""`ingot explore PATH --state DIR` / `--resume DIR` for a whole project: Ctrl-C stops every job
with its checkpoint saved, and resuming (with any number of workers) ends with the report an
uninterrupted run gives; a state of another exploration is refused."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import ingot
from ingot.cli import main
from ingot.concolic.checkpoint import STATE_FILE, StateDir
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.project import JOB_LOG_ENV
from ingot.concolic.project_state import FUNCTIONS_DIR, RESULT_FILE

ROOT = Path(__file__).resolve().parents[2]
PROJECT = ROOT / "bench" / "explore" / "project"
# Budgets by runs only: no wall-clock budget or solver timeout can bite, so reports are equal.
FIXED = ("--solver-timeout", "600000", "--timeout", "3600")
# Functions with loops, calls (call contexts are in the checkpoints) and LLM replies.
SELECTED = ("--only", "Checkout", "--only", "CartTotal", "--only", "ReadInvoice", "--only", "Luhn",
            "--only", "SummarizeReviews", "--only", "ExtractInvoice")


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "ingot.cli", "explore", str(PROJECT), *args, *FIXED, "--json"]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command(*args), capture_output=True, text=True, env=env, cwd=ROOT, timeout=900)


def explore(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["explore", *args, *FIXED, "--json"])
    return result.exit_code, result.stdout, result.stderr


def started(log: Path) -> set[str]:
    return {f.name.rsplit(".", 1)[0] for f in log.iterdir()}


def test_an_interrupted_project_run_resumes_to_the_uninterrupted_report(tmp_path: Path) -> None:
    # Checkout and CartTotal (loops over carts) run for seconds at this budget, so the project is
    # still running when Ctrl-C lands after the first checkpoint.
    budget = ("--max-runs", "1500")
    state = tmp_path / "state"
    interrupted = subprocess.Popen(command(*SELECTED, *budget, "--workers", "2", "--state", str(state)),
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    deadline = time.monotonic() + 300
    while not list(state.glob(f"{FUNCTIONS_DIR}/*/{STATE_FILE}")):  # a job's first checkpoint
        assert interrupted.poll() is None, interrupted.communicate()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    interrupted.send_signal(signal.SIGINT)
    out, err = interrupted.communicate(timeout=300)
    assert interrupted.returncode == 130, err
    assert out == "" and "Traceback" not in err
    assert "interrupted:" in err and f"continue with --resume {state}" in err
    checkpoints = {p.parent.name for p in state.glob(f"{FUNCTIONS_DIR}/*/{STATE_FILE}")}
    finished = {p.parent.name for p in state.glob(f"{FUNCTIONS_DIR}/*/{RESULT_FILE}")}
    assert checkpoints and not checkpoints & finished  # at least one job stopped part-way

    log = tmp_path / "log"
    log.mkdir()
    resumed = run(*SELECTED, *budget, "--resume", str(state), env=dict(os.environ, **{JOB_LOG_ENV: str(log)}))
    assert resumed.returncode == 0, resumed.stderr
    assert not started(log) & finished  # finished functions are not explored again
    assert started(log) == {"Checkout", "CartTotal", "ReadInvoice", "Luhn", "SummarizeReviews"} - finished
    uninterrupted = run(*SELECTED, *budget)
    assert uninterrupted.returncode == 0, uninterrupted.stderr
    assert json.loads(resumed.stdout) == json.loads(uninterrupted.stdout)
    assert not list(state.glob(f"{FUNCTIONS_DIR}/*/{STATE_FILE}"))  # every function finished
    assert len(list(state.glob(f"{FUNCTIONS_DIR}/*/{RESULT_FILE}"))) == 5


def test_a_checkpoint_resumes_in_another_process_to_the_same_report(tmp_path: Path) -> None:
    """Call contexts (hashes of call sites) are in the checkpoint: they must not depend on the
    process (Python's string hashing does)."""
    program = ingot.load(PROJECT, resolve_hosts=False)
    options = Options(max_runs=150, solver_timeout_ms=600_000, timeout_s=3600)
    state = StateDir(tmp_path, {str(f): f.read_text(encoding="utf-8") for f in program.files})
    state.create()
    explorer = Explorer(program.view, "Checkout", options, state=state)
    explorer.progress = lambda result: explorer.request_stop() if result.runs >= 60 else None
    assert explorer.explore().stopped_by == "interrupted"
    args = ("Checkout", "--max-runs", "150")
    resumed = run(*args, "--resume", str(tmp_path))
    uninterrupted = run(*args)
    assert resumed.returncode == 0 and uninterrupted.returncode == 0, resumed.stderr + uninterrupted.stderr
    assert json.loads(resumed.stdout) == json.loads(uninterrupted.stdout)


def test_resuming_a_finished_run_gives_its_report_without_exploring(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    quick = ("--only", "Luhn", "--only", "Slugify", "--only", "Categorize", "--max-runs", "30")
    code, first, err = explore(str(PROJECT), *quick, "--state", str(tmp_path / "s"))
    assert code == 0, err
    log = tmp_path / "log"
    log.mkdir()
    monkeypatch.setenv(JOB_LOG_ENV, str(log))
    code, again, err = explore(str(PROJECT), *quick, "--resume", str(tmp_path / "s"), "--workers", "2")
    assert code == 0, err
    assert json.loads(again) == json.loads(first) and not started(log)


def test_a_mismatching_state_is_refused(tmp_path: Path) -> None:
    quick = ("--only", "Luhn", "--only", "Slugify", "--max-runs", "5")  # the refusals, not the search, are tested
    state = tmp_path / "s"
    code, _, err = explore(str(PROJECT), *quick, "--state", str(state))
    assert code == 0, err

    code, _, err = explore(str(PROJECT), *quick, "--state", str(state))
    assert code == 2 and f"{state} already holds a project exploration's state" in err
    code, _, err = explore(str(PROJECT), "--only", "Luhn", "--only", "Slugify", "--max-runs", "6",
                           "--resume", str(state))
    assert code == 2 and f"cannot resume from {state}: option max_runs was 5, now 6" in err
    code, _, err = explore(str(PROJECT), "--only", "Luhn", "--only", "Grade", "--max-runs", "5", "--resume", str(state))
    assert code == 2 and "the selected functions differ (Grade not explored then; Slugify not selected now)" in err
    code, _, err = explore(str(PROJECT), *quick, "--resume", str(tmp_path / "none"))
    assert code == 2 and "holds no project exploration state" in err
    code, _, err = explore(str(PROJECT), *quick, "--state", str(tmp_path / "x"), "--resume", str(state))
    assert code == 2 and "not both" in err
    code, _, err = explore(str(PROJECT), *quick, "--state", str(tmp_path / "x"), "--dask", "tcp://127.0.0.1:1")
    assert code == 2 and "not --dask" in err

    changed = tmp_path / "project"
    shutil.copytree(PROJECT, changed)
    code, _, err = explore(str(changed), *quick, "--state", str(tmp_path / "c"))
    assert code == 0, err
    with (changed / "validation.baml").open("a") as f:
        f.write("\nfunction Added(x: int) -> int {\n  x\n}\n")
    code, _, err = explore(str(changed), *quick, "--resume", str(tmp_path / "c"))
    assert code == 2 and "validation.baml changed" in err and "Traceback" not in err
