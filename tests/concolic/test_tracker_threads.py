"""Tracked runs in several threads at once, on one shared translation, each record only their own.

The compiled tracker's translation is made once per program and shared by every VM built
on it; a run's path entries, edges, shadows, counters and panic sites must stay that run's
even while another run of the same translation (another function, other inputs) executes
in another thread. Each run below must observe exactly what it observes alone.
"""

from __future__ import annotations

import json
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import ingot
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.report import as_json

ROOT = Path(__file__).resolve().parents[2]

# Two functions of one program: loops over arrays and maps, heap writes, closures, calls
# between functions, checks that can panic and LLM-free branching on every input.
PROGRAM = (ROOT / "bench" / "explore" / "sensors.baml").read_text() + """
class Account {
  balance int
  history int[]
}

function Settle(accounts: Account[], limit: int, fees: map<string, int>) -> int {
  let total = 0;
  let k = 0;
  for (let a in accounts) {
    let fee = 0;
    if (fees.has("late") && a.balance > limit) {
      fee = fees["late"];
    }
    a.balance = a.balance - fee;
    a.history.push(fee);
    let scale = (x: int) -> int { x * 2 + k };
    total = total + scale(a.balance);
    k += 1;
    if (total > 1000) {
      total = total / (limit - 7);
    }
  }
  if (accounts.length() > 1 && accounts[1].history[0] == 3) {
    total = total + ScanReadings([limit, limit, limit, limit, 2000], 0);
  }
  total
}
"""

WORK: dict[str, list[dict[str, Any]]] = {
    "ScanReadings": [
        {"readings.$len": 6, "readings[0]": 600, "readings[1]": 600, "readings[2]": 700,
         "readings[3]": 800, "threshold": 501},
        {"readings.$len": 5, "readings[0]": -1, "readings[1]": -4, "readings[2]": -9, "threshold": 3},
        {"readings.$len": 4, "readings[0]": 600, "readings[1]": 600, "readings[2]": 600,
         "readings[3]": 600, "threshold": 501},
    ],
    "Settle": [
        {"accounts.$len": 3, "accounts[0].balance": 500, "accounts[1].balance": 20, "limit": 10,
         "fees.$len": 1, "fees.$key[0]": "late", "fees[0]": 3},
        {"accounts.$len": 2, "accounts[0].balance": 900, "accounts[1].balance": 400, "limit": 7,
         "fees.$len": 1, "fees.$key[0]": "late", "fees[0]": 50},
        {"accounts.$len": 4, "limit": -2},
    ],
}


def observed(run: Any) -> tuple[Any, ...]:
    """Everything a run records (expressions are hash-consed per explorer: equal is the same node)."""
    t = run.trace
    error = run.outcome.error
    outcome = run.outcome.as_dict() if error is None else (error.kind, error.message, [str(f) for f in error.trace])
    path = [(e.kind, e.site, e.observed, e.alternatives, e.ctx, e.check) for e in t.path]
    return path, t.edges, t.llm_calls, t.concretized, t.pruned, t.reached, outcome


@pytest.fixture
def fine_switching() -> Any:
    """Switch threads every few microseconds, so the runs below interleave inside each other."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(previous)


def run_in_threads(jobs: dict[str, Any], rounds: int) -> dict[str, list[Any]]:
    """Call each job `rounds` times, all jobs in their own threads at once; their results by job."""
    start = threading.Barrier(len(jobs))
    results: dict[str, list[Any]] = {name: [] for name in jobs}
    errors: list[BaseException] = []

    def work(name: str) -> None:
        try:
            start.wait()
            for _ in range(rounds):
                results[name].append(jobs[name]())
        except BaseException as e:  # reported in the main thread
            errors.append(e)

    threads = [threading.Thread(target=work, args=(name,)) for name in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    return results


@pytest.mark.parametrize("tracker", ["compiled", "interp"])
def test_concurrent_runs_record_what_they_record_alone(tracker: str, fine_switching: Any) -> None:
    program = ingot.load(PROGRAM)
    explorers = {fn: Explorer(program.view, fn, Options(tracker=tracker, prune_after=2)) for fn in WORK}
    assignments = [(fn, a) for fn, batch in WORK.items() for a in batch]
    alone = {(fn, i): observed(explorers[fn].run(a)) for fn, batch in WORK.items() for i, a in enumerate(batch)}
    assert all(r[0] for r in alone.values())  # every run records path entries: the inputs decide its branches
    assert len({repr(r[0]) for r in alone.values()}) == len(assignments)  # and no two runs record the same

    def runs_of(fn: str) -> Any:
        return lambda: [observed(explorers[fn].run(a)) for a in WORK[fn]]

    together = run_in_threads({fn: runs_of(fn) for fn in WORK}, rounds=15)
    for fn, rounds in together.items():
        for batch in rounds:
            assert batch == [alone[fn, i] for i in range(len(WORK[fn]))]


@pytest.mark.parametrize("tracker", ["compiled", "interp"])
def test_concurrent_explorations_report_what_they_report_alone(tracker: str, fine_switching: Any) -> None:
    program = ingot.load(PROGRAM)

    def explore(fn: str) -> Any:
        return lambda: json.dumps(as_json(program.view, Explorer(
            program.view, fn, Options(seed=3, tracker=tracker, max_runs=40)).explore()), sort_keys=True)

    alone = {fn: explore(fn)() for fn in WORK}
    together = run_in_threads({fn: explore(fn) for fn in WORK}, rounds=2)
    for fn, reports in together.items():
        assert reports == [alone[fn]] * 2


def test_generated_code_reads_no_vm_state_from_shared_globals() -> None:
    """What depends on the VM reaches the generated functions as closure cells (`VM_NAMES`), never
    as globals of the namespace the translation's VMs share: every global they read is shared."""
    import builtins
    import dis

    from ingot.symbolic.compiled_tracker import VM_NAMES, CompiledTrackedVM
    from ingot.symbolic.expr import Interner

    for source in (PROGRAM, *(p.read_text() for p in sorted((ROOT / "tests" / "conformance" / "engine").glob("*.baml"))[::6])):
        program = ingot.load(source)
        for steps in (None, 1000):
            rt = CompiledTrackedVM(program.view, Interner(), None, max_steps=steps).runtime()
            assert not set(VM_NAMES) & set(rt.ns)
            functions = [c for c in rt.instantiate.__code__.co_consts if hasattr(c, "co_code")]
            assert functions
            for code in functions:
                read = {i.argval for i in dis.get_instructions(code) if i.opname == "LOAD_GLOBAL"}
                assert read <= set(rt.ns) | set(dir(builtins)), read - set(rt.ns)
