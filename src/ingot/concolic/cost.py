"""How much work one function's exploration is, estimated from the program before it runs.

A project's jobs are scheduled longest first (`order_longest_first`): with a pool, the makespan
is set by the job that starts last among the long ones, so a long job must not start late. The
estimate only has to rank jobs, and it comes from how the search spends its time:

- runs: a function whose reachable code has no loop has finitely many paths; its search ends
  after about `2^branches` runs plus the runs spent after full coverage on panic sites
  (`Options.panic_runs`), unless the budget ends it first. With a loop the paths are unbounded
  and the search takes its whole budget (`max_runs`).
- the cost of a run: the instructions it executes. Straight-line code and every branch count
  once; a loop's body counts once per iteration. A loop whose exit condition depends on the
  size of a list, map or string runs at most about `max_len` times (inputs are generated no
  longer). A loop that counts against a number (`while (n < attempts)`) is bounded by nothing
  the inputs' sizes fix: each generation of the search can take it once more, so its runs grow
  longer as the search goes on, which makes such explorations quadratic in their budget.

The condition's dependencies are read from the MIR text `ingot.view` exposes (`_6 = copy _5 <
copy _2;`): a flow-insensitive backward slice over the function's assignments.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import TypeVar

from ingot.concolic.edges import reachable_functions
from ingot.concolic.explore import Options
from ingot.view import STRING, FunctionView, ListT, MapT, ProgramView

T = TypeVar("T")
_DEF = re.compile(r"^\s*(_\d+)\s*=\s*(.*)$", re.S)
_LOCAL = re.compile(r"\b_(\d+)\b")
_SIZE_OPS = ("len(", ".length(")  # MIR's `len(xs)` and the builtins `array.length`, `string.length`
MAX_PATH_EXPONENT = 20  # 2^20 runs is past any budget: the bound is then the budget


def estimated_cost(view: ProgramView, function: str, options: Options) -> float:
    """Instructions the exploration of `function` runs, roughly (a ranking, not a prediction)."""
    functions = [view.function(name) for name in reachable_functions(view, function)]
    loops = [loop for fn in functions for loop in _loops(fn)]
    branches = sum(1 for fn in functions for b in fn.blocks if b.terminator.kind in ("branch", "switch"))
    edges = sum(len(fn.branch_edges()) for fn in functions)
    if loops:
        runs = options.max_runs
    else:
        runs = min(options.max_runs, 2 ** min(branches, MAX_PATH_EXPONENT) + options.panic_runs)
    per_run = float(sum(_size(fn, range(len(fn.blocks))) for fn in functions))
    for fn, body, bounded in loops:
        # An unbounded loop goes about one iteration deeper each time the search extends it; the
        # search extends it among the other edges it aims at, so on average runs / edges deep.
        trips = options.max_len if bounded else max(options.max_len, runs / max(edges, 1))
        per_run += _size(fn, body) * trips
    return runs * per_run


def order_longest_first(items: Iterable[T], cost: Callable[[T], float]) -> list[T]:
    """`items` by decreasing cost (ties in their given order): the longest-processing-time-first
    list schedule, within 4/3 of the best makespan when the costs are right."""
    return sorted(items, key=lambda item: -cost(item))


def _size(fn: FunctionView, blocks: Iterable[int]) -> int:
    return sum(len(fn.blocks[b].statements) + 1 for b in blocks)


def _loops(fn: FunctionView) -> list[tuple[FunctionView, set[int], bool]]:
    """Each natural loop of `fn`: its blocks, and whether its exits depend on an input's size."""
    blocks = fn.blocks
    preds: dict[int, set[int]] = {b.id: set() for b in blocks}
    for b in blocks:
        for s in b.terminator.successors:
            preds.setdefault(s, set()).add(b.id)
    tails: dict[int, list[int]] = {}  # header -> the blocks jumping back to it (`continue`s too)
    for tail, header in _back_edges(fn):
        tails.setdefault(header, []).append(tail)
    out = []
    for header, todo in tails.items():
        body: set[int] = {header}
        while todo:
            node = todo.pop()
            if node not in body:
                body.add(node)
                todo.extend(preds.get(node, ()))
        exits = [node for node in body if blocks[node].terminator.kind in ("branch", "switch")
                 and any(s not in body for s in blocks[node].terminator.successors)]
        # The header's test is the loop's own condition (`while`, `for`); the other exits (a
        # `return` or `break` in the body) are ones the search learns to avoid.
        tests = [header] if header in exits else exits
        out.append((fn, body, any(_sized(fn, blocks[node].terminator.text) for node in tests)))
    return out


def _back_edges(fn: FunctionView) -> list[tuple[int, int]]:
    """Edges to a block still on the depth-first search's stack (iteratively: no recursion limit)."""
    blocks = fn.blocks
    if not blocks:
        return []
    state = {fn.entry: 1}  # 1: on the stack, 2: done
    stack = [(fn.entry, iter(blocks[fn.entry].terminator.successors))]
    out = []
    while stack:
        node, succs = stack[-1]
        nxt = next(succs, None)
        if nxt is None:
            state[node] = 2
            stack.pop()
        elif state.get(nxt) == 1:
            out.append((node, nxt))
        elif nxt not in state:
            state[nxt] = 1
            stack.append((nxt, iter(blocks[nxt].terminator.successors)))
    return out


def _sized(fn: FunctionView, condition: str) -> bool:
    """Is the loop condition (a terminator's text) bounded by something the inputs' sizes or the
    program's constants fix? False when it depends on an input number (a parameter or a call's
    result) and on no size (a `len`/`.length()`, or a list, map or string value)."""
    defs = _definitions(fn)
    locals_ = {local.index: local for local in fn.locals}
    todo = [int(n) for n in _LOCAL.findall(condition.split("->")[0])]
    seen: set[int] = set()
    counted = False
    while todo:
        index = todo.pop()
        if index in seen:
            continue
        seen.add(index)
        local = locals_.get(index)
        if local is not None and (local.ty == STRING or isinstance(local.ty, (ListT, MapT))):
            return True
        counted = counted or (local is not None and local.is_param)
        for text in defs.get(index, ()):
            if any(op in text for op in _SIZE_OPS):
                return True
            counted = counted or text.lstrip().startswith("call ")
            todo.extend(int(n) for n in _LOCAL.findall(text))
    return not counted


def _definitions(fn: FunctionView) -> dict[int, list[str]]:
    """local -> the right-hand sides assigned to it anywhere in `fn` (statements and calls)."""
    defs: dict[int, list[str]] = {}
    for b in fn.blocks:
        for text in [s.text for s in b.statements] + [b.terminator.text.split("->")[0]]:
            m = _DEF.match(text)
            if m:
                defs.setdefault(int(m.group(1)[1:]), []).append(m.group(2))
    return defs
