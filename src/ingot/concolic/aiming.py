"""Aiming at panic sites whose operands are concrete (SAGE's check constraints, along the path).

A division, an index or an assert whose operand is symbolic records a CHECK entry, and the
search negates it like a branch ("this panics"). When the operands are concrete in a run (an
index from a loop counter, a count of matching items, a value a built-in without a model
returned), the path says nothing about the panic; but the operands' values were decided by
the conditions the run passed before the site: the loop's exit test (one more or one fewer
iteration), the branches that counted or accumulated. The trackers note where on the path
each panic site ran (`RunTrace.reached`: the path length at its first and its latest
execution). `PanicAims` turns a reach of a site that has not panicked yet into children that
negate the entries just before it, nearest first, those in the site's own function before
the others; a child that reaches the site again is aimed from there in turn (one more
iteration each generation). A per-site budget bounds the children, and the flips bypass the
revisit cap, which is meant for coverage. A reach closer to panicking than any before also
queues the run's inputs with one item fewer, one field or separator dropped at a time
(`fewer_items`): a panic that needs one segment fewer on a stack is a count no query asks for.

A branch whose other edge is uncovered is aimed at the same way (`aim_at_branches`): its
condition was concrete on the run (`valid >= 3` after a loop that counted, `total > 5000` on
a cart whose lines were all skipped), or its flip was not sat on that path; the branches before
it decided it. `PanicAims` keeps that search's state too, keyed by (function, block).

When the edge search is over (full coverage, or random rounds without progress) and sites
remain that never panicked, the panic search spends its own budget (`Options.panic_runs`) on
inputs that reached such a site, mutated, rarely reached sites first (directed fuzzing):
an operand computed by a built-in the solver cannot follow (`int.parse` on a split part)
changes only by changing the input around it.
"""

from __future__ import annotations

import bisect
import random
import re
from collections.abc import Container, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ingot.bex.api import BexProgram
from ingot.concolic.fuzzing import worth_mutating
from ingot.symbolic.expr import Sort
from ingot.symbolic.shadow import EntryKind, PathEntry

if TYPE_CHECKING:
    from ingot.concolic.explore import Explorer, Job, RunResult

Site = tuple[str, int]  # (function, pc) of a panic site

FLIPS_PER_SITE = 64  # children aimed at one site through the conditions before it, over the search
FLIPS_PER_REACH = 5  # per reach (the closest and the latest execution in a run), nearest first
REACHERS_PER_SITE = 16  # inputs kept per site (the closest to panicking) as seeds of the panic search
# Below uncovered edges (50) and checks (40), above revisits (3): the closer a run came to
# panicking at the site, the sooner its children run (best first, a hill climb on the distance).
NEAREST_PRIORITY, FARTHEST_PRIORITY = 30, 6
# Children aimed at an uncovered edge through the conditions before its branch (`aim_at_branches`):
# below checks and the direct flips, above panic aims (edges first) and revisits.
BRANCH_AIM_PRIORITY = 35
# The most of the string models' first tranche (`Options.string_model_units`) the branch aims'
# queries may spend in all, renewals included. Each "one more line" child of a parser's loop asks
# a longer query over `lines()` and `split`: without a cap they spent half a tranche in the first
# 27 runs of a queue export's exploration, and the flips that would have made a line parse found
# the models off.
BRANCH_AIM_MODEL_SHARE = 0.25
# Inputs with one item fewer (`fewer_items`) queued per string of a run that came closer to
# panicking at a site, and per site over the search.
FEWER_PER_REACH, FEWER_PER_SITE = 24, 96
# The same for inputs with one setting written in (`with_settings`): the key a panic needs with
# a value that makes it (`workers=0` beside `mode=batch` and `retries`).
SETTINGS_PER_REACH, SETTINGS_PER_SITE = 24, 96


@dataclass
class PanicAims:
    """What the search knows of the panic sites (or branches) it reached: plain data, saved with
    checkpoints."""

    flips: dict[Site, int] = field(default_factory=dict)  # site -> children aimed at it via the path
    tried: set[tuple[Site, int, int]] = field(default_factory=set)  # (site, path prefix key, goal id) queried
    reach_runs: dict[Site, int] = field(default_factory=dict)  # site -> distinct paths that reached it
    reachers: dict[Site, list[tuple[float, int, dict[str, Any]]]] = field(default_factory=dict)  # site -> (distance, order, input)
    closest: dict[Site, float] = field(default_factory=dict)  # site -> least distance from panicking seen
    # site -> negated conditions (expression ids) that led away from it: they guard the site
    # rather than decide its operands, so no child is aimed at it through them again
    guards: dict[Site, set[int]] = field(default_factory=dict)
    model_units: int = 0  # the string models' units its queries spent (`BRANCH_AIM_MODEL_SHARE`)
    fewer: dict[Site, int] = field(default_factory=dict)  # site -> inputs queued with one item fewer
    settings: dict[Site, int] = field(default_factory=dict)  # site -> inputs queued with a setting written in

    def aimed(self) -> set[Site]:
        """Sites aimed at through the conditions deciding their operands."""
        return {s for s, n in self.flips.items() if n}

    def note(self, run: RunResult, sites: set[Site]) -> None:
        """Count the panic sites this (new) path reached and keep its input as a seed for them."""
        for site, (_, _, distance, _) in run.trace.reached.items():
            if site not in sites:
                continue
            n = self.reach_runs[site] = self.reach_runs.get(site, 0) + 1
            seeds = self.reachers.setdefault(site, [])
            if worth_mutating(run):
                seeds.append((distance, n, run.assignment))
            seeds.sort(key=lambda s: (s[0], s[1]))
            del seeds[REACHERS_PER_SITE:]

    def closer(self, run: RunResult, pending: set[Site]) -> list[tuple[Site, float]]:
        """Record how close the run came to panicking at each pending site it reached; (site,
        priority) of those it came closer to than any run before (asked before `targets`)."""
        out = []
        for site, (_, _, distance, _) in run.trace.reached.items():
            best = self.closest.get(site)
            if site in pending and (best is None or distance < best):
                self.closest[site] = distance
                out.append((site, max(FARTHEST_PRIORITY, NEAREST_PRIORITY - distance)))
        return out

    def targets(self, run: RunResult, pending: set[Site]) -> list[tuple[Site, int, float]]:
        """(site, path position, priority) of each reach worth aiming from: sites still pending
        (not panicked) with budget left, where the run came closest to panicking and at the
        latest execution; the closer the run came, compared with every run before, the sooner."""
        out: list[tuple[Site, int, float]] = []
        for site, (_, last, distance, at) in run.trace.reached.items():
            if site not in pending or self.flips.get(site, 0) >= FLIPS_PER_SITE:
                continue
            farther = distance > self.closest.get(site, distance)  # `closer` recorded the least so far
            priority = max(FARTHEST_PRIORITY, NEAREST_PRIORITY - distance - farther)
            out.extend((site, p, priority) for p in dict.fromkeys((at, last)) if p > 0)
        return out

    def candidates(self, site: Site, own: int, path: list[PathEntry], prefixes: list[int], at: int) -> list[int]:
        """Positions of the branch entries before `at` to negate, nearest first, those in the
        site's own function (index `own`) before the others; each query (prefix, negated entry)
        once per site."""
        near: list[int] = []
        far: list[int] = []
        for k in range(min(at, len(path)) - 1, -1, -1):
            entry = path[k]
            guards = self.guards.get(site, ())
            if entry.kind is not EntryKind.BRANCH or all(alt.cond.id in guards or (site, prefixes[k], alt.cond.id)
                                                         in self.tried for alt in entry.alternatives):
                continue
            (near if entry.site[0] == own else far).append(k)
            if len(near) >= FLIPS_PER_REACH:
                break
        return (near + far)[:FLIPS_PER_REACH]

    def learn(self, reason: str, reached: Container[Site], tag: str = "aim:") -> None:
        """A child aimed at a site through a branch did not reach the site: that branch guards it."""
        if not reason.startswith(tag) or " via " not in reason:
            return
        target, _, via = reason[len(tag):].partition(" via ")
        fn, _, pc = target.rpartition("@")
        site = (fn, int(pc))
        if site not in reached:
            self.guards.setdefault(site, set()).add(int(via))

    def has_seeds(self, pending: set[Site]) -> bool:
        return any(self.reachers.get(s) for s in pending)

    def seed(self, rng: random.Random, pending: set[Site]) -> dict[str, Any] | None:
        """An input that reached a pending site: the rarely reached sites, and those a run came
        close to panicking at, more often (1 / (reaches x (1 + least distance)))."""
        sites = sorted(s for s in pending if self.reachers.get(s))
        if not sites:
            return None
        weights = [1.0 / (self.reach_runs.get(s, 1) * (1 + self.reachers[s][0][0])) for s in sites]
        seeds = self.reachers[rng.choices(sites, weights)[0]]
        return seeds[0 if rng.random() < 0.5 else rng.randrange(len(seeds))][2]  # often the closest

    def state(self) -> dict[str, Any]:
        return {"flips": dict(self.flips), "tried": set(self.tried), "reach_runs": dict(self.reach_runs),
                "reachers": {k: list(v) for k, v in self.reachers.items()}, "closest": dict(self.closest),
                "guards": {k: set(v) for k, v in self.guards.items()}, "model_units": self.model_units,
                "fewer": dict(self.fewer), "settings": dict(self.settings)}

    @classmethod
    def load(cls, state: dict[str, Any]) -> PanicAims:
        return cls(dict(state["flips"]), set(state["tried"]), dict(state["reach_runs"]),
                   {k: list(v) for k, v in state["reachers"].items()}, dict(state["closest"]),
                   {k: set(v) for k, v in state["guards"].items()}, state["model_units"],
                   dict(state.get("fewer", {})), dict(state.get("settings", {})))


def aim_at_reaches(explorer: Explorer, job: Job, run: RunResult, pending: set[Site], boost: int) -> None:
    """Queue children that negate the conditions before each pending panic site the run reached,
    and, where it came closer to panicking than any run before, its inputs with one item fewer."""
    aims: PanicAims = explorer.aims
    aims.learn(job.reason, run.trace.reached)
    closer = aims.closer(run, pending)
    aim(explorer, aims, run, aims.targets(run, pending), "aim:", boost)
    # (the same variants for every site the run came closer to: built once)
    fewer = fewer_items(explorer, run.assignment) if closer else []
    settings: list[Variant] | None = None
    queued: set[tuple[str, str]] = set()
    for site, priority in closer:
        queue_within(explorer, aims.fewer, FEWER_PER_SITE, site, run.assignment, fewer, "fewer", priority, boost)
        if explorer.panic_phase():
            settings = written_settings(explorer, run.assignment) if settings is None else settings
            queue_within(explorer, aims.settings, SETTINGS_PER_SITE, site, run.assignment, settings, "setting",
                         priority, boost, queued)


def settings_at_panic_start(explorer: Explorer, pending: set[Site]) -> None:
    """When the panic search begins, queue each pending site's closest reacher with the program's
    settings written in (`written_settings`): the sites the edge search came closer to."""
    aims: PanicAims = explorer.aims
    queued: set[tuple[str, str]] = set()
    written: dict[int, list[Variant]] = {}  # by input: sites often share their closest reacher
    for site in sorted(pending):
        seeds = aims.reachers.get(site)
        if seeds:
            distance, _, assignment = seeds[0]
            if id(assignment) not in written:
                written[id(assignment)] = written_settings(explorer, assignment)
            queue_within(explorer, aims.settings, SETTINGS_PER_SITE, site, assignment, written[id(assignment)],
                         "setting", max(FARTHEST_PRIORITY, NEAREST_PRIORITY - distance), 0, queued)


# An input's variant for a deterministic stage: (what it changes, for de-duplication; the changes)
Variant = tuple[tuple[str, str], dict[str, Any]]


def queue_within(explorer: Explorer, counts: dict[Site, int], cap: int, site: Site, assignment: dict[str, Any],
                 variants: list[Variant], tag: str, priority: float, boost: int,
                 queued: set[tuple[str, str]] | None = None) -> None:
    """Queue `assignment` with each of `variants` applied, aimed at `site`, while the site's
    count (in `counts`) is below `cap`; `queued`: variants queued already for another site the
    same input reached, passed over."""
    from ingot.concolic.explore import Job

    for key, changed in variants:
        if counts.get(site, 0) >= cap:
            return
        if queued is not None:
            if key in queued:
                continue
            queued.add(key)
        counts[site] = counts.get(site, 0) + 1
        explorer.push(Job({**assignment, **changed}, 0, None, f"{tag}:{site[0]}@{site[1]}", boost), priority)


def fewer_items(explorer: Explorer, assignment: dict[str, Any]) -> list[Variant]:
    """The input with each of its strings one item fewer (`Dictionary.fewer_parts`): a field or a
    separator dropped, one at a time, as AFL's deterministic stage deletes blocks.

    A panic that needs one item fewer than the closest run had (a stack of path segments left
    empty by one more `..`) is where the solver cannot help: the items were counted concretely,
    or cut by a split past the parts it models. Random mutation finds the one field to drop
    rarely; trying each in turn finds it at once."""
    return [((name, text), {name: text}) for name, value in sorted(assignment.items()) if isinstance(value, str)
            for text in explorer.dictionary.fewer_parts(value, FEWER_PER_REACH)]


def written_settings(explorer: Explorer, assignment: dict[str, Any]) -> list[Variant]:
    """The input with each of its strings given one of the program's settings in turn
    (`Dictionary.with_settings`), a key it lacks with a value that may panic or a key it holds
    given one, as AFL's deterministic stage writes each dictionary token; and each of its maps
    given one of the program's keys it lacks (`entries_written`).

    The operands of a site were decided by what the input holds: a divisor parsed from a
    "workers" line is the program's own default while the input has none, and the random
    mutations that add one (`add_setting`) draw the right key and value rarely. Only the panic
    search writes them: during the edge search the runs are the solver's children's."""
    budget = explorer.string_length
    variants: list[Variant] = []
    for name, value in sorted(assignment.items()):
        if isinstance(value, str):
            variants.extend(((name, text), {name: text})
                            for text in explorer.dictionary.with_settings(value, budget, SETTINGS_PER_REACH))
    for path in map_inputs(explorer.space.sorts, assignment):
        variants.extend(((path, repr(entry)), written) for entry, written in entries_written(explorer, assignment, path))
    return variants


INDEX = re.compile(r"\[(\d+)\]")


def map_inputs(sorts: dict[str, Sort], assignment: dict[str, Any]) -> list[str]:
    """The access paths of the map inputs an input holds (or could hold, an optional one that is
    absent): maps some run gave a key (`P.$key[0]`), within the arrays' lengths the input has."""
    out = []
    for name in sorts:
        if not name.endswith(".$key[0]"):
            continue
        path = name[: -len(".$key[0]")]
        if all(assignment.get(f"{path[:m.start()]}.$len", 0) > int(m.group(1)) for m in INDEX.finditer(path)):
            out.append(path)
    return sorted(out)


def entries_written(explorer: Explorer, assignment: dict[str, Any], path: str) -> list[tuple[tuple[str, Any], dict[str, Any]]]:
    """The map input at `path` with one of the program's keys it lacks written in (`Dictionary.entries`),
    as ((key, value), the assignment's changes): one more entry, or in place of the last one when
    the map is at `max_len`; an absent optional map is made present."""
    sorts = explorer.space.sorts
    sort = sorts.get(f"{path}[0]")
    if sort is None or explorer.options.max_len <= 0:
        return []
    present = assignment.get(f"{path}.$some", True)
    size = assignment.get(f"{path}.$len", 0) if present else 0
    held = [assignment.get(f"{path}.$key[{i}]", "") for i in range(size)]
    at = min(size, max(explorer.options.max_len - 1, 0))
    out = []
    for key, value in explorer.dictionary.entries(sort, held, SETTINGS_PER_REACH):
        changes: dict[str, Any] = {f"{path}.$len": max(size, at + 1), f"{path}.$key[{at}]": key, f"{path}[{at}]": value}
        if f"{path}.$some" in sorts:
            changes[f"{path}.$some"] = True
        out.append(((key, value), changes))
    return out


def aim_at_branches(explorer: Explorer, job: Job, run: RunResult, open_branches: set[Site], boost: int) -> None:
    """Queue children that negate the conditions before each branch the run took whose other edge
    is uncovered (`open_branches`: (function, block)), from its last execution.

    Such a branch's condition was concrete there, or its flip was not sat on that path (or its
    flip's child is queued, and runs first): a count (`valid >= 3` after a loop that counted), a
    total of items all skipped (`total > 5000`). Like a panic site's operands, it was decided by
    the branches before it (one more iteration, one item not skipped), and a child that reaches
    the branch again is aimed from there in turn.
    """
    aims: PanicAims = explorer.branch_aims
    tranche = explorer.options.string_model_units
    if tranche is not None and aims.model_units >= BRANCH_AIM_MODEL_SHARE * tranche:
        return  # the rest of the string models' budget, renewals included, is for the flips and checks
    if job.reason.startswith("reach:"):
        aims.learn(job.reason, {edge[:2] for edge in run.trace.edges}, "reach:")
    last = branches_taken(run, open_branches)
    # A condition a concretized operation computed (`labels.includes("x")` without a model) is
    # the concretization's to change ("another value"), not the branches' before it.
    targets = [(branch, at, BRANCH_AIM_PRIORITY) for branch, at in last.items()
               if at > 0 and aims.flips.get(branch, 0) < FLIPS_PER_SITE
               and run.trace.path[at - 1].kind is not EntryKind.CONCRETIZE]
    aim(explorer, aims, run, targets, "reach:", boost)


def branches_taken(run: RunResult, branches: set[Site]) -> dict[Site, int]:
    """Each of `branches` the run took -> the path position of its last execution (the number of
    path entries recorded before it)."""
    if not branches:
        return {}
    trace = run.trace
    last: dict[Site, int] = {}
    for i in range(len(trace.edges) - 1, -1, -1):
        branch = trace.edges[i][:2]
        if branch in branches and branch not in last:
            last[branch] = bisect.bisect_right(trace.entry_edges, i)
            if len(last) == len(branches):
                break
    return last


def aim(explorer: Explorer, aims: PanicAims, run: RunResult, targets: Sequence[tuple[Site, int, float]], tag: str,
        boost: int) -> None:
    """Queue the children negating the branch entries before each target (site, path position,
    priority): nearest first, within the site's budget, each (site, prefix, goal) once."""
    from ingot.concolic.explore import Job

    if not targets:
        return
    path = run.trace.path
    prefixes = [0]  # a key per path prefix: equal keys, equal queries
    for entry in path:
        prefixes.append(hash((prefixes[-1], entry.observed.id)))
    index_of = {f.name: f.index for f in explorer.view.bytecode.functions}
    for site, at, priority in targets:
        for k in aims.candidates(site, index_of[site[0]], path, prefixes, at):
            if aims.flips.get(site, 0) >= FLIPS_PER_SITE:
                break
            entry = path[k]
            # this path's own choice there is as good as queried: its children never flip back
            aims.tried.add((site, prefixes[k], entry.observed.id))
            for alt in entry.alternatives:
                if (site, prefixes[k], alt.cond.id) in aims.tried or alt.cond.id in aims.guards.get(site, ()):
                    continue
                aims.tried.add((site, prefixes[k], alt.cond.id))
                prefix = path[:k]
                query = explorer.slice([p.observed for p in prefix], alt.cond)
                units = explorer.solver.stats.model_units
                result = explorer.ask(query, run.assignment)
                aims.model_units += explorer.solver.stats.model_units - units
                if result.status != "sat" or result.model is None:
                    if result.status == "unknown":
                        explorer.limit("solver-unknown")
                    continue
                aims.flips[site] = aims.flips.get(site, 0) + 1
                predicted = tuple((p.site, p.observed.id) for p in prefix) + ((entry.site, alt.cond.id),)
                child = {**run.assignment, **result.model}
                explorer.push(Job(child, k + 1, predicted, f"{tag}{site[0]}@{site[1]} via {alt.cond.id}", boost),
                              priority)


def vain_checks(tried: dict[tuple[Any, int, int], str], program: BexProgram, sites: set[Site]) -> set[Site]:
    """Panic sites whose check queries were all in vain (unsat or unknown on the paths that asked:
    an assert on a total whose terms were all positive there): inputs that reached them are
    mutated like those of the sites no query reached, since other terms may make them panic."""
    statuses: dict[Site, set[str]] = {}
    for (site, _, _), status in tried.items():
        statuses.setdefault((program.functions[site[0]].name, site[1]), set()).add(status)
    return {s for s, seen in statuses.items() if "sat" not in seen and s in sites}
