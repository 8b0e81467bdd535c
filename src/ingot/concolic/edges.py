"""The branch edges an exploration counts: their keys, their labels, and which functions' edges
count (the entry function and the user functions and lambdas it can call)."""

from __future__ import annotations

from ingot.view import Edge, ProgramView, StmtId

EdgeKey = tuple[str, int, int]  # (function, block, target block)


def edge_key(e: Edge) -> EdgeKey:
    return (e.site.function, e.site.block, e.target)


def edge_label(view: ProgramView, key: EdgeKey) -> str:
    """`F:bb3[T]->bb5 (true) at 12:7 `x > 5``: the edge, then where its condition is and its text."""
    fn, block, target = key
    fview = view.function(fn)
    where = ""
    if 0 <= block < len(fview.blocks):
        span = fview.blocks[block].terminator.span
        pos = span.start
        text = " ".join(span.source.text[span.start_offset:span.end_offset].split())
        if len(text) > 60:
            text = text[:57] + "..."
        where = f" at {pos.line}:{pos.column} `{text}`"
    for e in fview.branch_edges():
        if e.site.block == block and e.target == target:
            return f"{e}{where}"
    return f"{Edge(StmtId(fn, block, -1), target, '?')}{where}"


def reachable_edges(view: ProgramView, function: str) -> list[Edge]:
    """Branch edges of `function` and of the user functions (and lambdas) it can call."""
    out: list[Edge] = []
    for name in reachable_functions(view, function):
        out.extend(view.function(name).branch_edges())
    return out


def reachable_functions(view: ProgramView, function: str) -> list[str]:
    """`function` and the user functions (and their lambdas) it can call, in declaration order."""
    names = [f.name for f in view.functions(include_synthetic=True)]
    todo, seen = [function], set()
    while todo:
        name = todo.pop()
        if name in seen or name not in names:
            continue
        seen.add(name)
        fn = view.function(name)
        for block in fn.blocks:
            if block.terminator.callee:
                todo.append(block.terminator.callee)
        todo.extend(n for n in names if n.startswith(name + ".$lambda"))
    out: list[str] = []
    for name in names:
        fn = view.function(name)
        if name in seen and (not fn.synthetic or ".$lambda" in name):
            out.append(name)
    return out
