"""The random rounds' inputs: fresh values from the program's dictionary of literals, and
fuzzer mutations of inputs the search kept (`Explorer.random_assignment` decides which).

Both read the variables' sorts and bounds from the `InputSpace` (a bounded int, a length or
a union's tag, stays in its range) and draw every value from the `Dictionary`; the one random
generator is the explorer's, so the same seed gives the same inputs.

A round costs what its run reads, not what every run so far created: the space keeps every
variable any run made (a loop that once made thousands of LLM calls leaves thousands of reply
variables behind), so a fresh input draws values for the variables the search's first input
read (each parameter's top level, which every run reads) and each other value when its run
first reads the variable (`FreshAssignment`); a mutation copies what its base run read and picks
the values to change from the names kept sorted (`InputSpace.sorted_names`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ingot.concolic.inputs import InputSpace
from ingot.concolic.literals import Dictionary
from ingot.symbolic.expr import Sort

if TYPE_CHECKING:
    from ingot.concolic.explore import RunResult


def worth_mutating(run: RunResult) -> bool:
    """May the run's input be a mutation base (corpus, panic-search seed)? Not when the step
    budget stopped the run, as a fuzzer keeps hangs out of its queue: a mutation changes a value
    or two of what the run read (thousands of values, when a loop bound was huge) and runs to
    the budget again."""
    error = run.outcome.error
    return error is None or error.kind != "InstructionLimit"


def mutated(rng: random.Random, words: Dictionary, space: InputSpace, base: dict[str, Any],
            corpus: list[dict[str, Any]], max_string_length: int, nudge: float = 0.0,
            compares: Iterable[tuple[str, str]] = ()) -> dict[str, Any]:
    """`base` with one to three of its values mutated (`nudge`: how often a string's mutation
    is one aimed at a panic site, `Dictionary.aimed_moves`; `compares`: the recent concrete
    comparisons, for input-to-state replacements). The values mutated are picked among every
    variable seen (`InputSpace.sorted_names`, kept sorted as the space grows)."""
    return mutated_among(space.sorted_names(), rng, words, space, base, corpus, max_string_length, nudge,
                         compares)


def mutated_among(names: list[str], rng: random.Random, words: Dictionary, space: InputSpace,
                  base: dict[str, Any], corpus: list[dict[str, Any]], max_string_length: int,
                  nudge: float = 0.0, compares: Iterable[tuple[str, str]] = ()) -> dict[str, Any]:
    """`mutated`, the values to change picked among `names` (sorted: the same seed, the same picks)."""
    out = dict(base)
    if not names:
        return out  # no run read an input: nothing to mutate
    for _ in range(rng.choice((1, 1, 2, 3))):
        name = rng.choice(names)
        sort, value = space.sorts[name], out.get(name)
        if name in space.bounds:
            low, high = space.bounds[name]
            out[name] = rng.randint(low, high)
        elif sort is Sort.STRING:
            others = [v for k, v in out.items() if k != name and isinstance(v, str) and v]
            splices = [v for v in (rng.choice(corpus).get(name) for _ in range(2) if corpus)
                       if isinstance(v, str) and v]  # AFL's splicing: this input's value joined to another's
            out[name] = words.mutate_string(rng, value if isinstance(value, str) else "",
                                            max_string_length, others, nudge, splices, compares)
        elif sort is Sort.INT:
            same = [v for k, v in out.items() if k != name and space.sorts.get(k) is Sort.INT
                    and k not in space.bounds]
            if same and rng.random() < 0.2:
                out[name] = rng.choice(same)  # equal elements, a count matching a value
            else:
                out[name] = words.mutate_int(rng, value if isinstance(value, int) else 0)
        elif sort is Sort.BOOL:
            out[name] = not value
        else:
            out[name] = words.float_value(rng)
    return out


class FreshAssignment(dict[str, Any]):
    """A fresh input whose values for variables it lacks are drawn from the dictionary when the
    run first reads them (`InputBuilder.var` registers the variable's sort and bounds, then asks
    `get`): every variable the run reads gets a fresh value and no other is drawn. Holds the
    values drawn so far; the checkpoint saves a queued one as those values and a mark
    (`ingot.concolic.checkpoint`)."""

    def __init__(self, rng: random.Random, words: Dictionary, space: InputSpace, max_string_length: int,
                 values: dict[str, Any] | None = None) -> None:
        super().__init__(values or {})
        self._rng = rng
        self._words = words
        self._space = space
        self._max_string_length = max_string_length

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        if name not in self:
            sort = self._space.sorts.get(name)
            if sort is None:  # not an input variable
                return default
            self[name] = fresh_value(self._rng, self._words, self._space, name, sort, self._max_string_length)
        return self[name]


def fresh_assignment(rng: random.Random, words: Dictionary, space: InputSpace, first: Iterable[str],
                     max_string_length: int) -> FreshAssignment:
    """A fresh input: values for the variables the search's first input read (`first`: each
    parameter's top level, read by every run), drawn now in their names' order; any other
    variable its run reads is drawn when the run reads it."""
    out = FreshAssignment(rng, words, space, max_string_length)
    for name in sorted(first):
        out.get(name)
    return out


def fresh_value(rng: random.Random, words: Dictionary, space: InputSpace, name: str, sort: Sort,
                max_string_length: int) -> Any:
    """A value for one variable, from the dictionary (a bounded int in its range)."""
    if name in space.bounds:
        low, high = space.bounds[name]
        return rng.randint(low, high)
    if sort is Sort.INT:
        return words.int_value(rng)
    if sort is Sort.FLOAT:
        return words.float_value(rng)
    if sort is Sort.BOOL:
        return rng.random() < 0.5
    return words.string_value(rng, max_string_length)
