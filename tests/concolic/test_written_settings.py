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
    entries_written,
    map_inputs,
    settings_at_panic_start,
)
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.literals import Dictionary
from ingot.symbolic.expr import Sort

APPS = Path(__file__).resolve().parents[2] / "bench" / "explore" / "apps"
KV_CONFIG = APPS / "kv_config.baml"
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
    outs = words().with_settings("mode=batch\nretries=3", 32, 1000)
    assert "mode=batch\nretries=3\nworkers=0" in outs[:SETTINGS_PER_REACH]
    assert "mode=batch\nretries=0" in outs[:SETTINGS_PER_REACH]  # a held key revalued
    assert len(outs) == len(set(outs)) and "mode=batch\nretries=3" not in outs
    assert all(len(out) <= 32 for out in outs)


def test_at_the_length_limit_spare_records_make_room() -> None:
    # 31 characters: "\nworkers=0" does not fit. "A" holds no key and "mode#x" only one held before:
    # both make room, and the records that hold a key stay
    full = "mode=batch\nretries=1\nA\nmode#xyz"
    outs = words().with_settings(full, 32, 1000)
    assert "mode=batch\nretries=1\nworkers=0" in outs[:SETTINGS_PER_REACH]
    assert all(len(out) <= 32 for out in outs)


def test_only_the_first_variants_are_built_however_many_records_an_input_has() -> None:
    # a long config at a large --max-string-length: 4,000 records, a setting in place of each
    # spare one would be thousands of strings of 30,000 characters
    text = "\n".join(f"a{i}=1" for i in range(4000))
    outs = words().with_settings(text, len(text), 24)
    assert len(outs) == 24 and all(len(out) <= len(text) for out in outs)
    assert outs == words().with_settings(text, len(text), 1000)[:24]  # the same order


def test_a_key_inside_a_word_is_not_held() -> None:
    outs = words().with_settings("mode=batch\nretries=1\nrworkers=-", 32, 1000)
    assert not any("rworkers=0" in out for out in outs)  # "workers" is not that line's key
    assert "mode=batch\nretries=1\nworkers=0" in outs[:SETTINGS_PER_REACH]


class Queue:
    """The part of the explorer the panic aims use: its literals, options, string cap, queue,
    aims and phase."""

    def __init__(self, panic_phase: bool = True) -> None:
        self.in_panic_phase = panic_phase
        self.dictionary = words()
        self.options = SimpleNamespace(max_len=6)
        self.string_length = 32
        self.space = SimpleNamespace(sorts={})
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


# -- map inputs: a key a lookup uses, written in with a value that may panic -----------------------


def test_a_map_lacking_a_looked_up_key_gets_it_with_each_count_in_turn() -> None:
    words = Dictionary(keys=["lang", "year"], counts=[0, -1, 1])
    assert words.entries(Sort.STRING, ["lang"], 100) == [("year", "0"), ("year", "-1"), ("year", "1"),
                                                   ("year", "lang"), ("year", "year")]
    assert words.entries(Sort.INT, [], 4) == [("lang", 0), ("year", 0), ("lang", -1), ("year", -1)]
    assert words.entries(Sort.FLOAT, [], 100) == []


def test_map_inputs_are_those_within_the_arrays_the_input_holds() -> None:
    sorts = {"docs[0].meta.$key[0]": Sort.STRING, "docs[2].meta.$key[0]": Sort.STRING, "m.$key[0]": Sort.STRING,
             "docs.$len": Sort.INT}
    assert map_inputs(sorts, {"docs.$len": 1}) == ["docs[0].meta", "m"]  # docs[2] is past the input's length


def test_an_absent_optional_map_is_made_present_and_a_full_one_has_its_last_entry_replaced() -> None:
    explorer = SimpleNamespace(space=SimpleNamespace(sorts={"d.meta.$some": Sort.BOOL, "d.meta[0]": Sort.STRING}),
                               options=SimpleNamespace(max_len=2), dictionary=Dictionary(keys=["year"], counts=[0]))
    absent = entries_written(explorer, {"d.meta.$some": False}, "d.meta")  # type: ignore[arg-type]
    assert absent[0] == (("year", "0"), {"d.meta.$some": True, "d.meta.$len": 1, "d.meta.$key[0]": "year",
                                          "d.meta[0]": "0"})
    full = entries_written(explorer, {"d.meta.$some": True, "d.meta.$len": 2, "d.meta.$key[0]": "a",  # type: ignore[arg-type]
                                      "d.meta.$key[1]": "b"}, "d.meta")
    assert full[0][1]["d.meta.$len"] == 2 and full[0][1]["d.meta.$key[1]"] == "year"


def test_the_rerankers_division_is_found_on_the_seeds_that_missed_it() -> None:
    """`Rerank` (heldout/rerank_docs.baml) divides by the best adjusted score, 0 when every kept
    document is old: a "year" key in its optional metadata map. The closest runs keep one
    document with no metadata; writing the key in (`entries_written`) makes it old."""
    program = ingot.load(APPS / "heldout" / "rerank_docs.baml")
    for seed in (0, 1):
        ex = Explorer(program.view, "Rerank", Options(seed=seed)).explore()
        assert ("DivisionByZero", 52) in bugs_found(ex), seed
