"""The strings' length cap grows when the search runs out with edges uncovered
(`ingot.concolic.string_growth`): an edge only a longer text takes is covered at the default
options, never claimed infeasible past the ceiling, and a search that covers everything runs as
it would at a fixed cap; a search stopped after a growth resumes to the same report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

from click.testing import CliRunner

import ingot
from ingot.cli import main
from ingot.concolic.checkpoint import StateDir
from ingot.concolic.explore import Exploration, Explorer, Options
from ingot.concolic.report import as_json

# A chunker's settings check (`max_chars` at least 40), then a text longer than the chunk: no
# input of 32 characters takes the `true` edge of `words > max_chars`.
CHUNKS = """
function Chunks(doc: string, max_chars: int) -> int {
  if (max_chars < 40 || max_chars > 60) {
    return -1;
  }
  let n = 0;
  let used = 0;
  for (let w in doc.split(" ")) {
    if (used + w.length() > max_chars) {
      n += 1;
      used = 0;
    }
    used += w.length() + 1;
  }
  n
}
"""

TOO_LONG = """
function TooLong(s: string) -> int {
  if (s.length() > 200) {
    return 1;
  }
  0
}
"""


def edge_status(program: ingot.Program, function: str, options: Options) -> tuple[dict[str, str], Exploration]:
    """Each edge not covered, as "uncovered" or "infeasible", and the exploration."""
    result = Explorer(program.view, function, options).explore()
    report = as_json(program.view, result)
    status = {label: "uncovered" for label in report["coverage"]["uncovered"]}
    status.update({label: "infeasible" for label in report["coverage"]["infeasible"]})
    return status, result


def test_an_edge_past_the_starting_cap_is_covered_once_the_cap_grows() -> None:
    program = ingot.load_source(CHUNKS)
    assert program.call("Chunks", doc="x" * 30 + " " + "y" * 15, max_chars=40) == 1
    fixed, _ = edge_status(program, "Chunks", Options(seed=0, grow_strings_to=None))
    assert [label for label in fixed if "(true) at 9:9" in label], fixed
    grown, result = edge_status(program, "Chunks", Options(seed=0))
    assert grown == {}, grown
    assert result.string_length == 64


def test_an_edge_past_the_ceiling_stays_uncovered_and_is_not_claimed_infeasible() -> None:
    program = ingot.load_source(TOO_LONG)
    status, result = edge_status(program, "TooLong", Options(seed=0))
    assert list(status.values()) == ["uncovered"]
    assert result.string_length == 128 and not result.complete


def test_a_search_that_covers_every_edge_runs_as_at_a_fixed_cap() -> None:
    program = ingot.load(Path(__file__).resolve().parents[2] / "bench" / "explore" / "luhn.baml")
    grown = as_json(program.view, Explorer(program.view, "Luhn", Options(seed=0)).explore())
    fixed = as_json(program.view, Explorer(program.view, "Luhn", Options(seed=0, grow_strings_to=None)).explore())
    assert grown == fixed and grown["coverage"]["uncovered"] == []


def test_a_search_stopped_after_growing_resumes_to_the_same_report(tmp_path: Path) -> None:
    path = tmp_path / "chunks.baml"
    path.write_text(CHUNKS)
    program = ingot.load(path)
    sources = {str(path): CHUNKS}
    options = Options(seed=0)
    uninterrupted = Explorer(program.view, "Chunks", options).explore()
    expected = as_json(program.view, uninterrupted)
    grown_at = next(i for i, t in enumerate(uninterrupted.tests)
                    if any("(true) at 9:9" in e for e in t.new_edges))
    stop_at = uninterrupted.tests[grown_at].run + 1  # past the growth, before the search ends
    state = StateDir(tmp_path / "state", sources)
    state.create()
    explorer: Explorer

    def stop(ex: Exploration) -> None:
        if ex.runs >= stop_at:
            explorer.request_stop()

    explorer = Explorer(program.view, "Chunks", options, progress=stop, state=state)
    partial = explorer.explore()
    assert partial.stopped_by == "interrupted" and partial.string_length == 64
    resumed = Explorer.resume(program.view, "Chunks", options, StateDir(tmp_path / "state", sources)).explore()
    assert as_json(program.view, resumed) == expected


def test_a_length_given_on_the_command_line_is_fixed(tmp_path: Path) -> None:
    """By default the summary says the strings grew; `--max-string-length` holds them."""
    path = tmp_path / "chunks.baml"
    path.write_text(CHUNKS)

    def explore(*options: str) -> str:
        out = CliRunner().invoke(main, ["explore", str(path), "Chunks", *options], env={"COLUMNS": "160"})
        assert out.exit_code == 0, out.output
        return out.output

    assert "up to 64 characters (grown from 32 while edges stayed uncovered)" in explore()
    fixed = cast(dict[str, Any], json.loads(explore("--max-string-length", "32", "--json")))
    assert fixed["string_length"] == 32 and len(fixed["coverage"]["uncovered"]) == 1
