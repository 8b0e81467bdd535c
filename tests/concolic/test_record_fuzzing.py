"""Records of "key=value" lines built by the fuzzing rounds from the program's own settings.

Each program in `records/` reads "key=value" lines and plants one panic that needs two or
more such lines with the right keys and values: queries over the `lines`/`split` models
spend the string models' budget of solver work within a few dozen runs, so the fuzzing
rounds must build the lines. They append one of the program's settings ("window=0") as one
more line, give a key the input lacks such a line when aiming at a panic site, and draw
their inputs half the time from the latest corpus entries (the frontier). Witnesses prove
every branch edge feasible and the bug real on the real engine (baml_bridge, under
`-m slow`) and on ingot; exploration at the default budget covers every edge and finds the
bug on seed 0 (seeds 1 and 2 under `-m slow`).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from witness_programs import (  # tests/ is no package
    SEEDS,
    bugs_found,
    explored,
    witness_tests,
)

import ingot
from ingot.concolic.literals import Dictionary

HERE = Path(__file__).resolve().parent / "records"

# name -> (entry function, planted bug (kind, line), witnesses: (args, value or {"error": kind}))
PROGRAMS: dict[str, tuple[str, tuple[str, int], list[tuple[dict[str, Any], Any]]]] = {
    "ratio": ("Ratio", ("DivisionByZero", 14), [
        ({"text": ""}, -1),
        ({"text": "x"}, -1),
        ({"text": "a=b"}, -1),
        ({"text": "ratio=5"}, -1),
        ({"text": "scale=1\nratio=abc"}, 50),
        ({"text": "scale=1\nratio=x"}, {"error": "DivisionByZero"}),
    ]),
    "limits": ("PerSecond", ("DivisionByZero", 22), [
        ({"text": ""}, 0),
        ({"text": "x"}, 0),
        ({"text": "a=b"}, 0),
        ({"text": "burst=1\nwindow="}, 0),
        ({"text": "burst=1\nwindow=x"}, 0),
        ({"text": "burst=1\nwindow=12345"}, 0),
        ({"text": "burst=1\nwindow=5"}, 2),
        ({"text": "burst=1\n window=0"}, {"error": "DivisionByZero"}),
    ]),
}
NAMES = sorted(PROGRAMS)


test_witnesses_take_every_edge_and_reach_the_bug_on_ingot, test_witnesses_give_the_same_outcomes_on_the_real_engine = \
    witness_tests(HERE, PROGRAMS)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", NAMES)
def test_exploration_covers_every_edge_and_finds_the_planted_panic(name: str, seed: int) -> None:
    ex, bug = explored(HERE, PROGRAMS, name, seed=seed)
    assert bug in bugs_found(ex)
    assert len(ex.covered) == len(ex.edges)
    assert not ex.infeasible


def dictionary(source: str, fn: str) -> Dictionary:
    return Dictionary.of(ingot.load_source(source).view.bytecode, [fn])


LINES = ('function F(text: string) -> int {\n  let n = 0;\n  for (let l in text.lines()) {\n'
         '    let kv = l.split("=");\n    if (kv[0] == "workers") {\n      n = 10 / kv.length();\n'
         '    }\n    if (kv[0] == "retries") {\n      n = n + 1;\n    }\n  }\n  n\n}\n')


def test_a_setting_is_appended_as_one_more_line() -> None:
    words = dictionary(LINES, "F")
    assert "workers=0" in words.settings["workers"]
    rng = random.Random(0)
    outs = {words.mutate_string(rng, "retries=1", 32) for _ in range(400)}
    assert {"retries=1\nworkers=0", "retries=1\nretries=0"} <= outs


def test_aimed_mutations_replace_a_held_value_up_to_the_line_end_and_add_a_missing_key() -> None:
    words = dictionary(LINES, "F")
    rng = random.Random(0)
    outs = {words.mutate_string(rng, "workers=1#0\nretries=1", 32, None, 0.5) for _ in range(1000)}
    assert "workers=0\nretries=1" in outs  # the whole value of the line, not "workers=0=1#0"
    outs = {words.mutate_string(rng, "retries=3", 32, None, 0.5) for _ in range(1000)}
    assert "retries=3\nworkers=0" in outs


def test_at_the_length_limit_a_missing_key_replaces_a_line_rather_than_being_cut_off() -> None:
    words = dictionary(LINES, "F")
    full = "retries=1\nretries=22\nxyz_abc_"  # 30 characters: "\nworkers=0" would not fit in 32
    rng = random.Random(0)
    outs = {words.mutate_string(rng, full, 32, None, 0.5) for _ in range(1000)}
    assert all(len(out) <= 32 for out in outs)
    assert {"retries=1\nretries=22\nworkers=0", "workers=0\nretries=22\nxyz_abc_"} <= outs


def test_without_lines_a_held_key_keeps_what_follows() -> None:
    """Where one separator parts both keys from values and records ("per&x"), what follows a
    key may be the next record: it stays."""
    words = dictionary('function G(q: string) -> int {\n  let p = q.split("&");\n'
                       '  if (q.includes("per")) {\n    return 10 / p.length();\n  }\n  0\n}\n', "G")
    assert words.value_end("per&x", 3, "&") == 3


def test_a_held_value_is_replaced_up_to_the_next_record_separator() -> None:
    """Where records are parted by another separator than the key's ("per=x&sort"), the value
    ends at it: "per=pertrue&sort" becomes "per=0&sort", not "per=0=pertrue&sort"."""
    words = dictionary('function G(q: string) -> int {\n  for (let p in q.split("&")) {\n'
                       '    let kv = p.split("=");\n    if (kv[0] == "per") {\n'
                       '      return 10 / int.parse(kv[1]);\n    }\n  }\n  0\n}\n', "G")
    assert words.value_end("page&per=pertrue&sort", 8, "=") == 16
    assert words.value_end("per=12", 3, "=") == 6
    rng = random.Random(0)
    outs = {words.revalue_key(rng, "page&per=pertrue&sort") for _ in range(200)}
    assert "page&per=0&sort" in outs


def test_the_frontier_is_drawn_half_the_time() -> None:
    # the frontier is the latest inputs that covered an edge first or found a bug (here the even
    # ones); inputs kept only for a new hit count (the odd ones) are drawn from the whole corpus
    rng = random.Random(1)
    corpus = list(range(20))
    firsts = corpus[::2]
    picks = [Dictionary.pick(rng, corpus, firsts) for _ in range(2000)]
    latest = sum(p in (14, 16, 18) for p in picks) / len(picks)
    assert 0.45 < latest < 0.65  # half from the last three, plus their share of the other half
    assert Dictionary.pick(rng, corpus, []) in corpus
