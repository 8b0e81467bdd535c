"""The compiled tier's control-flow recovery: blocks, stack depths, successors and their layout.

From the bytecode alone (the opcode table gives every instruction's stack effect
and which instructions end a block): the leaders, the stack depth at each block
start, each block's successors (jumps to lone `JUMP` blocks threaded through),
the arms (blocks in reverse postorder, a block with one predecessor inlined into
it, small blocks ending in a jump copied into their predecessors), innermost
loops as contiguous arm ranges, and whether the whole function is structured
(natural loops and if/else regions only: no `pc` dispatch needed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ingot.bex.compiled.stack_walk import Transfer, walk_block
from ingot.bex.opcodes import ENDS_BLOCK, OPCODES, Op, stack_effect

if TYPE_CHECKING:
    from ingot.bex.compiled.translation import Translation
    from ingot.bex.program import BexFunction

_ENDS = ENDS_BLOCK
# a counted loop's header: `i < n` (`n` a local or a constant), perhaps stored into a temporary and loaded back, then the branch
_TEST = [Op.LOAD_LOCAL, Op.LOAD_LOCAL, Op.LT, Op.POP_JUMP_IF_FALSE]
_TEST_VIA_TEMP = [Op.LOAD_LOCAL, Op.LOAD_LOCAL, Op.LT, Op.STORE_LOCAL, Op.LOAD_LOCAL, Op.POP_JUMP_IF_FALSE]


@dataclass(frozen=True)
class Counted:
    """A loop that runs as `for l<var> in range(l<var>, bound)` (see `ControlFlow.counted_loop`)."""

    first: int  # the arm of its header
    last: int  # its last arm
    var: int  # the induction local
    bound: str  # the bound's Python expression: a local or an int literal
    exit: int  # where the test's failure goes
    body: int  # where it goes while the test holds
    step: int  # the block `var = var + 1` (the only back edge)


class ControlFlow:
    """The CFG facts of one function (a mixin of the translator: it reads `fn`, `code` and `mod`)."""

    fn: BexFunction
    code: list[tuple[Op, Any]]
    mod: Translation
    block_end: dict[int, int]
    inlined: set[int]
    dup: set[int]
    arms: list[int]
    arm_pos: dict[int, int]
    depth: dict[int, int]
    forward: set[int]

    def leaders(self) -> list[int]:
        code, n = self.code, len(self.code)
        lead = {0}
        for pc, (op, arg) in enumerate(code):
            if op in (Op.JUMP, Op.POP_JUMP_IF_FALSE):
                lead.add(arg)
                lead.add(pc + 1)
            elif op == Op.SWITCH:
                table, otherwise = self.fn.switch_tables[arg]
                lead.update(table.values())
                lead.add(otherwise)
                lead.add(pc + 1)
            elif op in _ENDS:
                lead.add(pc + 1)
        for h in self.fn.handlers:
            lead.add(h.target)
            for a, b in h.ranges:
                lead.add(a)
                lead.add(b)
        return sorted(x for x in lead if 0 <= x < n)

    def depths(self, leaders: list[int]) -> dict[int, int]:
        """Stack depth at each block start (handler targets start empty)."""
        code = self.code
        leader_set = set(leaders)
        depth: dict[int, int] = {0: 0}
        for h in self.fn.handlers:
            depth[h.target] = 0
        work = [0] + [h.target for h in self.fn.handlers]
        while work:
            start = work.pop()
            d = depth[start]
            pc = start
            while True:
                op, arg = code[pc]
                d = d - self.pops(op, arg) + OPCODES[op].pushes
                succ: list[int] = []
                if op in (Op.JUMP, Op.POP_JUMP_IF_FALSE):
                    succ.append(arg)
                elif op == Op.SWITCH:
                    table, otherwise = self.fn.switch_tables[arg]
                    succ.extend(table.values())
                    succ.append(otherwise)
                nxt = pc + 1
                falls = op not in _ENDS and nxt < len(code)
                if falls and nxt in leader_set:
                    succ.append(nxt)
                for s in succ:
                    if s not in depth:
                        depth[s] = d
                        work.append(s)
                if not falls or nxt in leader_set:
                    break
                pc = nxt
        return depth

    def pops(self, op: Op, arg: Any) -> int:
        return stack_effect(op, arg, self.fn, self.mod.program)[0]

    def walk(self, b: int, stack: list[Any], transfer: Transfer) -> list[Any]:
        """Block `b`'s abstract stack walk (`walk_block`) from `stack`: the stack at its end."""
        return walk_block(self.code, b, self.block_end[b], stack, self.pops, transfer)

    def structurable(self, regions: dict[int, int]) -> bool:
        """Can the arms run as straight code and nested `while` loops, with no `pc` dispatch?

        Yes when the function has no handlers or switches, its loops nest (`nested_regions`)
        and every jump between arms is structured: to the next arm (it follows in place), to
        the header of the innermost loop it is in (`continue`) or to the arm right after that
        loop (`break`). Natural loops and if/else regions are such; irreducible flow is not,
        and keeps the dispatch.
        """
        if self.fn.handlers:
            return False
        for pos, b in enumerate(self.arms):
            region = innermost(regions, pos)
            for kind, target in self.arm_targets(b):
                if kind == "switch":
                    return False
                r = self.arm_pos.get(target)
                if r is None:
                    return False
                if region is None:
                    if r != pos + 1:
                        return False
                elif not (r == region[0] or r == pos + 1 <= region[1] or r == region[1] + 1):
                    return False
        return True

    def arm_targets(self, b: int) -> set[tuple[str, int]]:
        """The jumps an arm's code can make: the exits of the blocks inlined into it."""
        seen: set[int] = set()
        out: set[tuple[str, int]] = set()
        todo = [b]
        while todo:
            block = todo.pop()
            if block in seen:
                continue
            seen.add(block)
            for kind, t in self.exits(block):
                if t in self.inlined and kind != "switch":
                    todo.append(t)
                    continue
                out.add((kind, t))  # (structured code copies no blocks: `dup` is for the dispatch)
        return out

    def loop_spans(self) -> tuple[dict[int, int], set[int]]:
        """Every loop as an arm range (header position -> last back-edge source), and the arms
        ending in a switch."""
        host: dict[int, int] = {}

        def place(b: int, pos: int) -> None:
            host[b] = pos
            for _, t in self.exits(b):
                if t in self.inlined and t not in host:
                    place(t, pos)

        for pos, b in enumerate(self.arms):
            place(b, pos)
        ends: dict[int, int] = {}
        switch_at: set[int] = set()
        for b, pos in host.items():
            if self.code[self.block_end[b] - 1][0] == Op.SWITCH:
                switch_at.add(pos)
            for kind, t in self.exits(b):
                q = self.arm_pos.get(t)
                if kind != "switch" and q is not None and q <= pos:
                    ends[q] = max(ends.get(q, q), pos)
        return ends, switch_at

    def loop_regions(self) -> dict[int, int]:
        """Innermost loops as contiguous arm ranges: each runs in its own `while True`."""
        ends, switch_at = self.loop_spans()
        chosen: dict[int, int] = {}
        taken: set[int] = set()
        for q, end in sorted(ends.items(), key=lambda x: x[1] - x[0]):
            span = set(range(q, end + 1))
            if span & taken or span & switch_at:
                continue
            chosen[q] = end
            taken |= span
        return chosen

    def nested_regions(self) -> dict[int, int] | None:
        """Every loop as an arm range, when the ranges nest (each pair disjoint or one inside
        the other, no two sharing a first or a last arm): the loops of structured code."""
        ends, _ = self.loop_spans()
        spans = sorted(ends.items())
        for i, (_, e1) in enumerate(spans):
            for q2, e2 in spans[i + 1:]:
                if e1 == e2 or q2 <= e1 < e2:  # (sorted: the first header comes first)
                    return None
        return dict(spans)

    def counted_loop(self, q: int, e: int, kinds: dict[int, str]) -> Counted | None:
        """The loop of arms `q..e` as a counted loop, when it is one (else None).

        A counted loop's header is exactly `i < n` (through a temporary, perhaps) and a branch
        out of the loop; `i` and `n` are int locals (or `n` an int constant), the only back
        edge comes from a step block that is exactly `i = i + 1`, and nothing else in the
        loop stores into `i` or `n`. Such a loop runs `i` from its value on entry up to `n`
        by steps of 1, so it is Python's `for i in range(i, n)`: the test and the increment
        (and its overflow test: `i < n <= INT_MAX`) disappear.
        """
        code, h = self.code, self.arms[q]
        seq = [op for op, _ in code[h:self.block_end[h]]]
        if len(seq) > 1 and seq[1] == Op.LOAD_CONST:
            seq[1] = Op.LOAD_LOCAL  # (the bound may be a constant)
        if seq not in (_TEST, _TEST_VIA_TEMP) or self.depth.get(h) != 0:
            return None
        if seq == _TEST_VIA_TEMP and h + 3 not in self.forward:
            return None
        i, bound_arg = code[h][1], code[h + 1][1]
        if kinds.get(i) != "int" or code[h + 1][0] == Op.LOAD_LOCAL and (bound_arg == i or kinds.get(bound_arg) != "int"):
            return None
        if code[h + 1][0] == Op.LOAD_CONST:
            c = self.fn.consts[bound_arg]
            if type(c) is not int:
                return None
            bound = f"({c})" if c < 0 else repr(c)
        else:
            bound = f"l{bound_arg}"
        ex = self.exits(h)
        if [k for k, _ in ex] != ["cond", "fall"] or ex[0][1] == ex[1][1]:
            return None
        exit_, body = ex[0][1], ex[1][1]
        region = self.hosted(range(q, e + 1))
        if exit_ in region and exit_ not in self.inlined:  # (an arm inside the loop)
            return None
        steps = [b for b in region if any(t == h for _, t in self.exits(b))]
        if len(steps) != 1 or not self.is_increment(steps[0], i, h):
            return None
        step = steps[0]
        for b in region:
            for op, arg in code[b:self.block_end[b]]:
                if op == Op.STORE_LOCAL and (arg == i and b != step or bound == f"l{arg}"):
                    return None
        escape = self.hosted([exit_]) if exit_ in self.inlined else set()
        if any(self.arm_pos.get(t, e + 1) in range(q, e + 1) for b in escape for _, t in self.exits(b)):
            return None  # the exit's code jumps back into the loop
        return Counted(q, e, i, bound, exit_, body, step)

    def is_increment(self, b: int, i: int, header: int) -> bool:
        """Is block `b` exactly `i = i + 1` and a jump to `header`?"""
        code = self.code
        ops = code[b:self.block_end[b]]
        if ops[-1] != (Op.JUMP, header):
            return False
        body = ops[:-1]
        if len(body) == 6 and b + 1 in self.forward and body[1][0] == Op.STORE_LOCAL \
                and body[2] == (Op.LOAD_LOCAL, body[1][1]):
            body = [body[0], *body[3:]]  # through a temporary read once
        if len(body) != 4 or body[0] != (Op.LOAD_LOCAL, i) or body[1][0] != Op.LOAD_CONST \
                or body[2][0] != Op.ADD or body[3] != (Op.STORE_LOCAL, i):
            return False
        one = self.fn.consts[body[1][1]]
        return type(one) is int and one == 1

    def hosted(self, arms: Any) -> set[int]:
        """The blocks of the given arms (or blocks) and of everything inlined into them."""
        out: set[int] = set()
        todo = [self.arms[p] for p in arms] if isinstance(arms, range) else list(arms)
        while todo:
            b = todo.pop()
            if b in out:
                continue
            out.add(b)
            todo.extend(t for _, t in self.exits(b) if t in self.inlined)
        return out

    # -- control flow ---------------------------------------------------------------------
    def thread(self, target: int) -> int:
        """Follow blocks that are a lone JUMP (not in budget mode: those jumps tick)."""
        if self.mod.budget:
            return target
        seen = set()
        while target not in seen:
            seen.add(target)
            op, arg = self.code[target]
            if op == Op.JUMP and self.block_end[target] == target + 1:
                target = arg
            else:
                break
        return target

    def exits(self, b: int) -> list[tuple[str, int]]:
        """The block's successors: ("goto" | "cond" | "fall" | "switch", target)."""
        last = self.block_end[b] - 1
        op, arg = self.code[last]
        n = len(self.code)
        if op == Op.JUMP:
            return [("goto", self.thread(arg))]
        if op == Op.POP_JUMP_IF_FALSE:
            out = [("cond", self.thread(arg))]
            if last + 1 < n:
                out.append(("fall", self.thread(last + 1)))
            return out
        if op == Op.SWITCH:
            table, otherwise = self.fn.switch_tables[arg]
            return [("switch", t) for t in [*table.values(), otherwise]]
        if op in _ENDS:
            return []
        return [("goto", self.thread(last + 1))] if last + 1 < n else []

    def cfg(self) -> None:
        """Arms in reverse postorder; blocks with one predecessor are inlined into it."""
        roots = [0] + [h.target for h in self.fn.handlers]
        order: list[int] = []
        seen: set[int] = set()
        for root in roots:
            root = self.thread(root) if root != 0 else 0
            if root in seen:
                continue
            post: list[int] = []
            stack = [(root, iter(self.exits(root)))]
            seen.add(root)
            while stack:
                node, it = stack[-1]
                for _, t in it:
                    if t not in seen:
                        seen.add(t)
                        stack.append((t, iter(self.exits(t))))
                        break
                else:
                    post.append(node)
                    stack.pop()
            order.extend(reversed(post))
        preds: dict[int, int] = {b: 0 for b in order}
        for b in order:
            for _, t in self.exits(b):
                preds[t] = preds.get(t, 0) + 1
        for r in roots:
            preds[r] = preds.get(r, 0) + 2
        self.inlined: set[int] = set()
        nest: dict[int, int] = {}
        for b in order:
            nest.setdefault(b, 0)
            ex = self.exits(b)
            kinds = [k for k, _ in ex]
            for k, t in ex:
                if preds.get(t, 0) != 1 or t in self.inlined or t == 0:
                    continue
                if k == "goto":
                    self.inlined.add(t)
                    nest[t] = nest[b]
                elif k in ("cond", "fall") and kinds == ["cond", "fall"] and self.fn.handler_at(b) is None \
                        and nest[b] < 10 and ex[0][1] != ex[1][1]:
                    self.inlined.add(t)
                    nest[t] = nest[b] + 1
        self.arms = [b for b in order if b not in self.inlined]
        # small blocks that end in a jump or return are copied into their predecessors
        self.dup = {b for b in self.arms
                    if b != 0 and self.block_end[b] - b <= 10 and self.fn.handler_at(b) is None
                    and self.code[self.block_end[b] - 1][0] in (Op.JUMP, Op.RETURN)}
        self.path: list[int] = []
        self.arm_pos = {b: i for i, b in enumerate(self.arms)}


def innermost(regions: dict[int, int], pos: int) -> tuple[int, int] | None:
    """The smallest loop range holding arm `pos`, if any."""
    best: tuple[int, int] | None = None
    for q, e in regions.items():
        if q <= pos <= e and (best is None or e - q < best[1] - best[0]):
            best = (q, e)
    return best
