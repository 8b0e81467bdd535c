"""The string inputs' length cap, doubled when the search runs out with edges uncovered.

A search starts with strings of up to `Options.max_string_length` characters: short inputs
keep the string queries cheap and the random rounds dense, and most of a program's conditions
are met within them. Some are not: a text chunked at `max_chars`, itself at least 40, or a
header block whose shortest interesting form is 57 characters. Their queries are unsat within
the cap (and such answers are never taken for proofs: `Explorer.not_a_proof`), and random
inputs cannot be longer either, so the search would end "exhausted" with the edges uncovered.

So, as fuzzers grow their inputs' length limit when coverage stops growing (libFuzzer's length
control), when the edge search and the panic search are both over with edges uncovered, the
cap is doubled, up to `Options.grow_strings_to`:

- the solver's answers under the old cap are dropped (`Solver.grow_strings`);
- the inputs that covered an edge first or found a bug are run again and expanded, newest
  first, so the queries that were unsat within the old cap are asked again;
- the checks aimed at in vain may be aimed at again (their queries too were within the cap);
- the random rounds start over (patience renewed), drawing strings up to the new cap, and
  then the panic search, with a budget of its own (`Options.panic_runs` more runs);
- the string models get another tranche when theirs is spent (`ModelBudget.grant`).

A search that covers every edge never grows, so its runs are those of a fixed cap.
Growth depends only on the search's own order, so the same seed gives the same search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ingot.concolic.explore import Explorer

GROWN_PRIORITY = 4  # as the string models' renewal (above revisits and concretization flips)


def grow(explorer: Explorer) -> bool:
    """Double the cap and queue the first-coverage inputs again; False when the search may end
    as it is: at the ceiling, or with every edge covered."""
    from ingot.concolic.explore import Job

    ceiling = explorer.options.grow_strings_to
    res = explorer.result
    if ceiling is None or res.string_length >= ceiling or not open_edges(explorer):
        return False
    res.string_length = min(ceiling, max(2 * res.string_length, 1))
    explorer.solver.grow_strings(res.string_length)
    explorer.models.grant(explorer)
    explorer.renew_patience()
    res.panic_budget = res.panic_runs + explorer.options.panic_runs
    checks = explorer._tried_checks
    for key in [k for k, status in checks.items() if status != "sat"]:
        del checks[key]
    for assignment in reversed(explorer._firsts):
        explorer.push(Job(dict(assignment), 0, None, "grown"), GROWN_PRIORITY)
    return True


def open_edges(explorer: Explorer) -> bool:
    """Are edges uncovered that the search, were it to end now, would not claim infeasible? A
    search that met no limit claims those every query proved unreachable at any length
    (`Explorer.finish`); past the first limit, unsat answers are counted whatever they were owed
    to, so every uncovered edge is open."""
    res = explorer.result
    uncovered = explorer._edge_keys - res.covered - res.infeasible
    if res.limits:
        return bool(uncovered)
    return any(not explorer.proven_unreachable(e) for e in uncovered)
