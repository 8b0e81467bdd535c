"""Checks the ranges prove on a run's path are not recorded (`ingot.symbolic.intervals`): no
query aims at them (each would be unsat, and over the string models often slow), but the
explorer notes them as aimed at in vain, so the panic search still tries inputs that reach them;
checks that can fail stay on the path."""

from __future__ import annotations

from typing import Any

from witness_programs import tracked_run  # tests/ is no package

import ingot
from ingot.concolic.explore import Explorer, Options
from ingot.symbolic.shadow import EntryKind
from ingot.symbolic.tracker import TrackedVM

DURATION = """
function Seconds(text: string) -> int {
  let total = 0;
  for (let p in text.split(" ")) {
    let digits = p.slice(0, p.length() - 1);
    let n = int.parse(digits) catch (e) { _ => -1 };
    if (n < 0 || n > 100000) {
      return -1;
    }
    total += n * 3600;
  }
  total
}

function Total(xs: int[]) -> int {
  let t = 0;
  for (let x in xs) {
    t += x;
  }
  t
}
"""


def tracked(fn: str, args: dict[str, Any]) -> TrackedVM:
    return tracked_run(ingot.load(DURATION), fn, args)


def checks(vm: TrackedVM, kind: str) -> list[Any]:
    return [e for e in vm.trace.path if e.kind is EntryKind.CHECK and e.check == kind]


def test_fields_bounded_by_the_path_record_no_overflow_check() -> None:
    """`p.length() - 1`, `n * 3600` after the bounds and a total of three such products: none can
    overflow on this path, so no query aims at them; the sites are noted as proven."""
    vm = tracked("Seconds", {"text": "4h 30m 5s"})
    assert checks(vm, "IntegerOverflow") == []
    assert {site[2] for site, _ in vm.trace.proven} >= {"IntegerOverflow"}
    assert checks(vm, "ParseError")  # the parse is still aimed at on both sides


def test_a_sum_of_unbounded_inputs_keeps_its_overflow_check() -> None:
    vm = tracked("Total", {"xs.$len": 3, "xs[0]": 1, "xs[1]": 2, "xs[2]": 3})  # inputs by access path
    # the first term alone is an int (proven); every later sum may overflow (recorded)
    assert len(checks(vm, "IntegerOverflow")) == 2


def test_a_proven_site_is_still_searched_and_its_overflow_found() -> None:
    """`t += x`: its first pass is proven (one term); the explorer counts the site as aimed at in
    vain and goes on until a later pass overflows."""
    result = Explorer(ingot.load(DURATION).view, "Total", Options(seed=0)).explore()
    assert "IntegerOverflow" in {f.kind for f in result.findings}
    assert result.panic_sites_aimed == result.panic_sites
