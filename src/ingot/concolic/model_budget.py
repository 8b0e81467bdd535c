"""The string models' budget in tranches, renewed for the inputs found while the models were off.

Queries over the string models' terms (`split` parts, `chars`, positions) share a budget of
Z3 resource units (`Options.string_model_units`); past it the models are off and their
operands are concretized. A search spends its first tranche early, on the short inputs of
its first generations, and then only the random rounds move on: they find the inputs that
pass the conditions the solver could not reach by negation (a loop over sixteen characters,
a message of six words), but with the models off such an input's path holds no condition
on the string, so nothing is negated from there and the conditions after it are left to
chance (`words[0] == "please"`, a digit sum that is a multiple of ten).

So when the edge search is over (full coverage, or random rounds without progress) and the
models are off, and inputs covered an edge first or found a bug since the models went off
(inputs kept only for taking an edge a new number of times are not run again: there are
hundreds, and the tranche would go on the newest few), the search grants another tranche and runs those inputs
again, newest first, with the models on: their expansions negate the conditions along the
new paths. A renewal waits for the random rounds to run out of progress (every input they
found runs in one renewal), so there are few; `MODEL_TRANCHES` bounds them all the same
(each tranche is seconds of string solving). The renewals depend only on Z3's unit counts
and the search's own order, so the same seed gives the same search.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ingot.concolic.explore import Explorer

MODEL_TRANCHES = 16  # string-model budgets an exploration may spend, the first one included
RENEWED_PRIORITY = 4  # above revisits (3) and concretization flips (2): they are what renewal is for


@dataclass
class ModelBudget:
    """How many tranches were granted, and how much of the corpus the models have seen."""

    renewals: int = 0
    # Corpus entries found while the models were on (or already run again with them): the
    # entries after it are what a renewal runs again. None while the first tranche lasts.
    explored: int | None = None

    def cap(self, tranche: int | None) -> int | None:
        return None if tranche is None else tranche * (1 + self.renewals)

    def note_off(self, corpus_size: int) -> None:
        """The models are off for the coming run: what the corpus holds now was found with them."""
        if self.explored is None:
            self.explored = corpus_size

    def renew(self, explorer: Explorer) -> bool:
        """Grant a tranche and queue the corpus entries found with the models off; False when
        there are none, the models are on, or no tranche is left."""
        from ingot.concolic.explore import Job

        corpus = explorer._firsts  # not the inputs kept for a new hit count: too many to run again
        explored = self.explored
        if explored is None or len(corpus) <= explored or not explorer.panic_phase() or not self.grant(explorer):
            return False
        fresh: list[dict[str, Any]] = corpus[explored:]
        for assignment in reversed(fresh):
            explorer.push(Job(dict(assignment), 0, None, "renewed"), RENEWED_PRIORITY)
        return True

    def grant(self, explorer: Explorer) -> bool:
        """Another tranche, if the models' budget is spent and tranches are left (False if not).
        Besides `renew`, the search asks for one when it is about to run its first-coverage
        inputs again with longer strings allowed (`string_growth`): their expansions need the
        models to negate string conditions."""
        tranche = explorer.options.string_model_units
        solver = explorer.solver
        if tranche is None or self.renewals + 1 >= MODEL_TRANCHES or solver.stats.model_units < (self.cap(tranche) or 0):
            return False
        self.renewals += 1
        solver.model_units_cap = self.cap(tranche)
        self.explored = None
        explorer.limit("string-models-renewed")
        return True

    def state(self) -> dict[str, Any]:
        return {"renewals": self.renewals, "explored": self.explored}

    @classmethod
    def load(cls, state: dict[str, Any]) -> ModelBudget:
        return cls(state["renewals"], state["explored"])
