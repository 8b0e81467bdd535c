"""A run that comes closer to a panic site has its inputs tried with each of the program's settings
written in (`Dictionary.with_settings`, `aiming.written_settings`), as AFL's deterministic stage
writes each dictionary token in turn.

`LoadConfig` (bench/explore/apps/kv_config.baml) divides by a "workers" setting parsed from a
config's lines, behind "mode=batch" and a "retries" key. With the string models' budget spent,
the runs that reach the division mostly have no "workers" line: the divisor is the program's own
default, `?? "1"`, and no query can ask for it to be 0. The random mutation that adds the key
draws the right key and value rarely; writing each in turn finds it.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from witness_programs import bugs_found  # tests/ is no package

import ingot
from ingot.concolic.aiming import (
    SETTINGS_PER_REACH,
    SETTINGS_PER_SITE,
    PanicAims,
    aim_at_reaches,
    settings_at_panic_start,
)
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.literals import Dictionary

KV_CONFIG = Path(__file__).resolve().parents[2] / "bench" / "explore" / "apps" / "kv_config.baml"
CONFIG = """
function Load(text: string) -> int {
  let cfg: map<string, string> = {};
  for (let line in text.lines()) {
    let kv = line.split("=");
    if (kv.length() == 2) {
      cfg[kv[0]] = kv[1];
    }
  }
  if (cfg.has("mode") && cfg["mode"] == "batch" && cfg.has("retries")) {
    return 10 / int.parse(cfg.get("workers") ?? "1");
  }
  0
}
"""
SITE = ("Load", 1)


def words() -> Dictionary:
    return Dictionary.of(ingot.load_source(CONFIG).view.bytecode, ["Load"])


def test_a_key_the_input_lacks_is_written_with_zero_among_the_first_variants() -> None:
    outs = words().with_settings("mode=batch\nretries=3", 32)
    assert "mode=batch\nretries=3\nworkers=0" in outs[:SETTINGS_PER_REACH]
    assert "mode=batch\nretries=0" in outs[:SETTINGS_PER_REACH]  # a held key revalued
    assert len(outs) == len(set(outs)) and "mode=batch\nretries=3" not in outs
    assert all(len(out) <= 32 for out in outs)


def test_at_the_length_limit_spare_records_make_room() -> None:
    # 31 characters: "\nworkers=0" does not fit. "A" holds no key and "mode#x" only one held before:
    # both make room, and the records that hold a key stay
    full = "mode=batch\nretries=1\nA\nmode#xyz"
    outs = words().with_settings(full, 32)
    assert "mode=batch\nretries=1\nworkers=0" in outs[:SETTINGS_PER_REACH]
    assert all(len(out) <= 32 for out in outs)


def test_a_key_inside_a_word_is_not_held() -> None:
    outs = words().with_settings("mode=batch\nretries=1\nrworkers=-", 32)
    assert not any("rworkers=0" in out for out in outs)  # "workers" is not that line's key
    assert "mode=batch\nretries=1\nworkers=0" in outs[:SETTINGS_PER_REACH]


class Queue:
    """The part of the explorer the panic aims use: its literals, options, queue, aims and phase."""

    def __init__(self, panic_phase: bool = True) -> None:
        self.in_panic_phase = panic_phase
        self.dictionary = words()
        self.options = SimpleNamespace(max_string_length=32)
        self.aims = PanicAims()
        self.queued: list[tuple[dict[str, Any], str]] = []

    def panic_phase(self) -> bool:
        return self.in_panic_phase

    def push(self, job: Any, priority: float) -> None:
        self.queued.append((job.assignment, job.reason))


def reach(explorer: Queue, text: str, distance: float) -> list[str]:
    run = SimpleNamespace(assignment={"text": text},
                          trace=SimpleNamespace(reached={SITE: (0, 0, distance, 0)}, path=[]))
    before = len(explorer.queued)
    aim_at_reaches(explorer, SimpleNamespace(reason="random"), run, {SITE}, 0)  # type: ignore[arg-type]
    return [a["text"] for a, reason in explorer.queued[before:] if reason.startswith("setting:")]


def test_a_closer_reach_queues_its_settings_within_a_budget_per_site() -> None:
    explorer = Queue()
    assert "mode=batch\nretries=3\nworkers=0" in reach(explorer, "mode=batch\nretries=3", 1.0)
    assert reach(explorer, "mode=batch\nretries=4", 1.0) == []  # no closer: nothing more
    for distance in (0.9, 0.8, 0.7, 0.6, 0.5):
        reach(explorer, f"mode=batch\nretries={distance}", distance)
    assert explorer.aims.settings[SITE] == SETTINGS_PER_SITE


def test_the_edge_search_writes_no_settings() -> None:
    # its runs are the solver's children's; the panic search starts from the closest reachers
    explorer = Queue(panic_phase=False)
    assert reach(explorer, "mode=batch\nretries=3", 1.0) == []
    explorer.in_panic_phase = True
    explorer.aims.reachers[SITE] = [(1.0, 1, {"text": "mode=batch\nretries=3"})]  # `PanicAims.note`
    settings_at_panic_start(explorer, {SITE})  # type: ignore[arg-type]
    queued = [a["text"] for a, reason in explorer.queued if reason.startswith("setting:")]
    assert "mode=batch\nretries=3\nworkers=0" in queued


def test_the_config_loaders_division_is_found_on_the_seed_that_missed_it() -> None:
    program = ingot.load(KV_CONFIG)
    ex = Explorer(program.view, "LoadConfig", Options(seed=1)).explore()
    assert ("DivisionByZero", 24) in bugs_found(ex)
    assert len(ex.covered) == len(ex.edges)
