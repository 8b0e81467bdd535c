"""Random rounds after one run filled the input space with thousands of variables: runs per
second when every round draws a value for every variable in the space and sorts every name to
pick the values a mutation changes (as the rounds did before) against the current rounds (a
fresh input draws only what its run reads, `fuzzing.FreshAssignment`; mutations pick from the
names kept sorted, `InputSpace.sorted_names`).

    python bench/explore_random_rounds.py [--bounds 0,3000,30000] [--rounds 400] [--repeat 3]
    python bench/explore_random_rounds.py --search 3000

The program is bench/explore/apps/retry_extract.baml: a loop asks an LLM for an invoice up to
`attempts` times, so each reply is three input variables. Per loop bound: a new explorer runs
the input `attempts` = bound once (every reply parses to a zero total, so the loop runs to its
bound and leaves three variables per pass in the space), then `--rounds` random rounds as the
search runs them (`Explorer.random_assignment`, the run, `Explorer.record`), with the draws over
the whole space and with the current ones, same seed. The rounds' runs stop after 2,000 steps
(`ROUND_STEPS`), so the rounds whose mutation made the loop bound huge (they run to the step
budget in both) do not drown the cost of the draws. Prints the median runs per second of each
and their ratio. The two also differ in what a fresh input's run reads beyond the variables seen
so far: the current rounds draw those values too, the whole-space draws leave them at their
defaults (a reply of total 0 makes the loop go on), so with few variables the ratio is about 1
give or take what the runs do, not what drawing costs.

`--search RUNS` times the whole search of the checkpoint tests' retry program instead (a catch
around a BAML function leaves an edge no run takes, so it goes on to RUNS runs): a mutated loop
bound that hits the step budget fills the space with over a hundred thousand variables part-way.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import ingot
from ingot.concolic.explore import Explorer, Options
from ingot.concolic.fuzzing import mutated_among
from ingot.concolic.inputs import InputSpace
from ingot.concolic.literals import Dictionary
from ingot.symbolic.expr import Sort

PROGRAM = Path(__file__).resolve().parent / "explore" / "apps" / "retry_extract.baml"
ROUND_STEPS = 2_000
# `--search`: the retry program of tests/concolic/test_checkpoint.py, whose catch around a BAML
# function leaves an edge no run takes, so the search goes on to its run budget.
EXTRACT = """
function Extract(doc: string) -> Invoice {
  ExtractInvoice(doc)
}
"""


def whole_space_fresh(rng: random.Random, words: Dictionary, space: InputSpace, max_string_length: int) -> dict[str, Any]:
    """The fresh input as it was: a value for every variable in the space."""
    out: dict[str, Any] = {}
    for name, sort in sorted(space.sorts.items()):
        if name in space.bounds:
            low, high = space.bounds[name]
            out[name] = rng.randint(low, high)
        elif sort is Sort.INT:
            out[name] = words.int_value(rng)
        elif sort is Sort.FLOAT:
            out[name] = words.float_value(rng)
        elif sort is Sort.BOOL:
            out[name] = rng.random() < 0.5
        else:
            out[name] = words.string_value(rng, max_string_length)
    return out


def whole_space_mutated(rng: random.Random, words: Dictionary, space: InputSpace, base: dict[str, Any],
                        corpus: list[dict[str, Any]], max_string_length: int, nudge: float = 0.0) -> dict[str, Any]:
    """The mutation as it was: the names sorted afresh from the whole space at every mutation."""
    return mutated_among(sorted(space.sorts), rng, words, space, base, corpus, max_string_length, nudge)


class WholeSpaceExplorer(Explorer):
    """The search with the random rounds' draws over the whole space, as they were."""

    def fresh_assignment(self) -> dict[str, Any]:
        return whole_space_fresh(self._rng, self.dictionary, self.space, self.options.max_string_length)

    def mutated(self, base: dict[str, Any], nudge: float = 0.0) -> dict[str, Any]:
        return whole_space_mutated(self._rng, self.dictionary, self.space, base, self._corpus,
                                   self.options.max_string_length, nudge)


def explorer(program: ingot.Program, function: str, bound: int, whole_space: bool) -> Explorer:
    ex = (WholeSpaceExplorer if whole_space else Explorer)(program.view, function, Options(seed=0))
    ex.record(ex.run({}), 0.0)  # the seed input, as the search starts
    if bound:
        ex.run({"attempts": bound})
    ex.options = replace(ex.options, max_steps=ROUND_STEPS)
    return ex


def runs_per_second(ex: Explorer, rounds: int) -> float:
    start = time.perf_counter()
    for _ in range(rounds):
        ex.record(ex.run(ex.random_assignment()), 0.0)
    return rounds / (time.perf_counter() - start)


def search(program: ingot.Program, function: str, max_runs: int, whole_space: bool) -> tuple[float, int]:
    """The whole search (seed 0, no clock budget): its wall time and the input space's size."""
    options = Options(seed=0, max_runs=max_runs, timeout_s=3600, solver_timeout_ms=600_000)
    ex = (WholeSpaceExplorer if whole_space else Explorer)(program.view, function, options)
    start = time.perf_counter()
    ex.explore()
    return time.perf_counter() - start, len(ex.space.sorts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bounds", default="0,3000,30000", help="loop bounds of the run that fills the space")
    parser.add_argument("--rounds", type=int, default=400)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--search", type=int, metavar="RUNS",
                        help="instead: the whole search of RUNS runs (the checkpoint tests' retry program)")
    args = parser.parse_args()
    if args.search:
        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / "retry.baml"
            path.write_text(PROGRAM.read_text().replace("let inv = ExtractInvoice(doc) catch",
                                                        "let inv = Extract(doc) catch") + EXTRACT)
            program = ingot.load(path)
        print(f"{'draws':>11} {'wall s':>7} {'runs/s':>7} {'variables':>9}")
        times = {}
        for whole_space in (True, False):
            elapsed, variables = search(program, "ReadInvoice", args.search, whole_space)
            times[whole_space] = elapsed
            print(f"{'whole space' if whole_space else 'now':>11} {elapsed:>7.1f} "
                  f"{args.search / elapsed:>7.1f} {variables:>9}")
        print(f"ratio (runs/s now / whole space): {times[True] / times[False]:.2f}")
        return
    program = ingot.load(PROGRAM)
    function = json.loads(PROGRAM.with_suffix(".json").read_text())["function"]
    print(f"{'loop bound':>10} {'variables':>9} {'whole space runs/s':>18} {'now runs/s':>16} {'ratio':>6}")
    for bound in (int(b) for b in args.bounds.split(",")):
        whole, read = [], []
        for _ in range(args.repeat):  # interleaved, so load on the machine hits both alike
            whole.append(runs_per_second(explorer(program, function, bound, True), args.rounds))
            ex = explorer(program, function, bound, False)
            variables = len(ex.space.sorts)
            read.append(runs_per_second(ex, args.rounds))
        before, after = statistics.median(whole), statistics.median(read)
        print(f"{bound:>10} {variables:>9} {before:>18.1f} {after:>16.1f} {after / before:>6.2f}")


if __name__ == "__main__":
    main()
