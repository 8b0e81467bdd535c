"""Posing a panic check over the expressions that fed a concretization (`ingot.symbolic.exact`).

A check recorded over a value that holds a concretized operand's constant (`w * 6 / p - 7 != 0`
after `h` was fixed to 6 in `w * h`) can be unsat as recorded, and stays unsat without the
concretizations (the constant is in the expression). The tracker also notes the check's exact
alternative (`w * h / p - 7 == 0`) with the CONCRETIZE conditions it lifts. `pose` solves it over
the path prefix less those conditions: every other entry on the operands' variables stays (the
branches that bound `w`, `h` and `p`, the other concretizations), so a model is an input that
follows the prefix as far as the solver can tell. It is only a candidate (a lifted
concretization may be one the rest of the path relies on); the run decides, and an unsat answer
proves nothing (the exact form may be nonlinear, and the concretizations were part of the path).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ingot.symbolic.expr import Expr
from ingot.symbolic.shadow import PathEntry
from ingot.symbolic.solver import Result

if TYPE_CHECKING:
    from ingot.concolic.explore import Explorer


def pose(explorer: Explorer, exact: tuple[Expr, frozenset[int]], prefix: list[PathEntry]) -> Result:
    """Solve the exact alternative of a check over `prefix` without the concretizations it lifts."""
    goal, released = exact
    kept = [p.observed for p in prefix if p.observed.id not in released]
    query = explorer.slice(kept, goal)
    result = explorer.ask(query)
    if result.status == "sat":
        explorer.result.fixed_aims += 1
    return result
