"""The exploration's budgets bound what it does: the global timeout bounds every run and
query, a run that grows memory past the cap or calls an LLM past the cap on calls is cut and
reported (the search goes on), and a function without a BAML body is refused with a clear
error."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

import ingot
from ingot.cli import main
from ingot.concolic.explore import Explorer, Options

RETRY = Path(__file__).resolve().parents[2] / "bench" / "explore" / "apps" / "retry_extract.baml"

LLM = """
client Fast = openai.ChatClient.new(model = "m", api_key = "k")

function Label(text: string) -> string {
  client: Fast
  prompt: `Label ${text}`
}

function Use(text: string) -> int {
  let l = Label(text);
  if (l == "spam") {
    return 1;
  }
  0
}
"""

SPIN = """
function Spin(n: int) -> int {
  let i = 0;
  let s = 0;
  while (i < n) {
    s = (s + i) % 1000;
    i += 1;
  }
  if (s == 999) {
    return 1;
  }
  0
}
"""

POLL = """
client Fast = openai.ChatClient.new(model = "m", api_key = "k")

function Status(job: string) -> string {
  client: Fast
  prompt: `Status of ${job}`
}

function Poll(job: string, attempts: int) -> int {
  let n = 0;
  while (n < attempts) {
    n += 1;
    let s = Status(job) catch (e) {
      _ => "error"
    };
    if (s == "done") {
      return n;
    }
  }
  -1
}
"""

GROW = """
function Grow(n: int) -> int {
  let xs: string[] = [];
  let i = 0;
  while (i < n) {
    xs.push("x".repeat(4000000));
    i += 1;
  }
  if (n > 200) {
    return 1;
  }
  0
}
"""


def test_exploring_an_llm_function_is_a_clear_error(tmp_path) -> None:
    path = tmp_path / "llm.baml"
    path.write_text(LLM)
    result = CliRunner().invoke(main, ["explore", str(path), "Label"])
    assert result.exit_code == 2
    assert "`Label` is an LLM function" in result.stderr
    assert "Traceback" not in result.stderr
    ok = CliRunner().invoke(main, ["explore", str(path), "Use", "--json"])
    assert ok.exit_code == 0, ok.stderr


def test_the_global_timeout_bounds_a_run_the_step_budget_does_not() -> None:
    program = ingot.load(SPIN)
    start = time.perf_counter()
    result = Explorer(program.view, "Spin", Options(timeout_s=1.0, max_steps=10**12)).explore()
    elapsed = time.perf_counter() - start
    assert elapsed < 3.0
    assert result.stopped_by == "timeout"
    assert not result.complete and "timeout" in result.limits


# In a fresh process: the cap is on the process's resident growth, which is the process's
# state, shared with the tests a worker ran before this one.
EXPLORE_GROW = f"""
import json, ingot
from ingot.concolic.explore import Explorer, Options
program = ingot.load({GROW!r})
r = Explorer(program.view, "Grow", Options(timeout_s=10.0, max_steps=10**9, memory_mb=64, max_runs=40)).explore()
print(json.dumps({{"limits": r.limits, "complete": r.complete, "runs": r.runs, "infeasible": len(r.infeasible)}}))
"""


def test_a_run_over_the_memory_cap_is_cut_and_the_search_goes_on() -> None:
    out = subprocess.run([sys.executable, "-c", EXPLORE_GROW], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["limits"].get("memory", 0) >= 1
    assert not result["complete"]
    assert result["runs"] > result["limits"]["memory"]  # the runs after a cut went on
    assert not result["infeasible"]  # no claim from a search whose runs were cut


RUN_GROW_UNTICKED = f"""
import ingot
from ingot.concolic import budget
from ingot.concolic.explore import Explorer, Options
budget.TICK_S = 3600.0
explorer = Explorer(ingot.load({GROW!r}).view, "Grow", Options(memory_mb=64))
print(explorer.run({{"n": 40}}).cut, explorer.run({{"n": 2}}).cut)
"""


def test_a_run_over_the_memory_cap_between_two_ticks_is_cut() -> None:
    # A run can allocate past the cap and free it again before the interval timer's next tick
    # (once, in CI, every run of the search above did): the allocations check the cap themselves.
    # In a process of its own: the cap is on resident memory, and a test process that freed
    # much before holds memory the run's strings reuse without growing.
    out = subprocess.run([sys.executable, "-c", RUN_GROW_UNTICKED], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["memory", "None"]


def test_a_run_calling_an_llm_past_the_cap_is_cut_quickly_and_the_search_goes_on() -> None:
    program = ingot.load(POLL)
    explorer = Explorer(program.view, "Poll", Options(max_llm_calls=50))
    start = time.perf_counter()
    run = explorer.run({"job": "", "attempts": 10**15})  # a retry loop bounded by an input
    assert time.perf_counter() - start < 2.0
    assert run.cut == "llm-calls"
    assert sum(len(replies) for replies in run.mocks.values()) == 50
    result = Explorer(program.view, "Poll", Options(max_llm_calls=50, seed=0)).explore()
    assert len(result.covered) == len(result.edges)
    assert not result.infeasible


def test_the_cap_on_llm_calls_is_an_explore_option_and_its_cuts_are_reported() -> None:
    # the retry loop's fourth try needs a fourth reply: past a cap of three, those runs are cut
    # (the planted bug behind it is out of reach, and the report says why it may be)
    result = CliRunner().invoke(main, ["explore", str(RETRY), "ReadInvoice", "--json", "--seed", "0",
                                       "--max-llm-calls", "3"])
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["limits"].get("llm-calls", 0) > 0
    assert report["complete"] is False
    assert not report["coverage"]["infeasible"]
    assert all(len(t["mocks"].get("ExtractInvoice", [])) <= 3 for t in report["tests"])
