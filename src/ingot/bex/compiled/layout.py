"""The compiled tier's arm layout: a function's arms as straight code, nested loops or a `pc` dispatch.

Reads what `cfg.ControlFlow` found (arms, loop regions, whether the flow is structured, counted
loops) and writes the arms in order around the `body` of each: structured code (`while True`
loops, a counted loop's `for`, `continue`/`break` for the jumps) where the CFG allows, a
`while True` dispatch over `pc` (each innermost loop in its own nested `while True`) otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ingot.bex.compiled.cfg import Counted
from ingot.bex.opcodes import Op
from ingot.runtime.values import INT_MAX

if TYPE_CHECKING:
    from ingot.bex.compiled.translation import Translation
    from ingot.bex.program import BexFunction


class ArmLayout:
    """Writes the arms (a mixin of the translator: it reads the CFG facts and writes with `out`)."""

    fn: BexFunction
    mod: Translation
    code: list[tuple[Op, Any]]
    forward: set[int]
    COUNTED_LOOPS: bool
    VERSIONED_LOOPS: bool
    unchecked: frozenset[int] = frozenset()  # `+`/`-` instructions written without their test here
    arm: int
    arms: list[int]
    arm_pos: dict[int, int]
    base: int
    block_end: dict[int, int]
    indent: int
    inlined: set[int]
    kinds: dict[int, str]
    pc: int
    read: set[int]
    region: tuple[int, int] | None
    steps_of: set[int]
    structured: bool

    def out(self, text: str) -> None:
        raise NotImplementedError

    def body(self, b: int, level: int) -> None:
        raise NotImplementedError

    def tick(self) -> None:
        raise NotImplementedError

    def cfg(self) -> None:
        raise NotImplementedError

    def exits(self, b: int) -> list[tuple[str, int]]:
        raise NotImplementedError

    def loop_regions(self) -> dict[int, int]:
        raise NotImplementedError

    def nested_regions(self) -> dict[int, int] | None:
        raise NotImplementedError

    def structurable(self, regions: dict[int, int]) -> bool:
        raise NotImplementedError

    def counted_loop(self, q: int, e: int, kinds: dict[int, str]) -> Counted | None:
        raise NotImplementedError

    def hosted(self, arms: Any) -> set[int]:
        raise NotImplementedError

    def layout(self) -> None:
        """Blocks as arms of a dispatch loop (innermost loops nested), or straight code."""
        fn = self.fn
        self.cfg()
        regions = self.loop_regions()
        self.region: tuple[int, int] | None = None
        self.structured = False
        self.steps_of: set[int] = set()  # the step blocks of counted loops
        if self.arms == [0] and not fn.handlers and not any(
                t == 0 for b in self.block_end for _, t in self.exits(b)):
            # no loops, no handlers: structured code, no dispatch
            self.arm = 0
            self.body(0, 0)
            return
        nested = self.nested_regions()
        self.structured = nested is not None and self.structurable(nested)
        if nested is not None and self.structured:
            self.structured_layout(nested)
            return
        self.out("pc = 0")
        self.out("while True:")
        for pos, b in enumerate(self.arms):
            self.arm = pos
            self.pc = b
            base = self.base + 1
            if pos in regions:
                self.region = (pos, regions[pos])
                heads = sorted(self.arms[pos:regions[pos] + 1])
                self.indent = self.base + 1
                if len(heads) == 1:
                    self.out(f"if pc == {b}:")
                else:
                    name = self.mod.const_name(frozenset(heads), f"rg{self.fn.index}_{pos}")
                    self.out(f"if pc in {name}:")
                self.indent = self.base + 2
                self.out("while True:")
            if self.region is not None:
                base = self.base + 3
            self.indent = base
            self.out(f"if pc == {b}:")
            self.indent = base + 1
            self.body(b, 0)
            if self.region is not None and pos == self.region[1]:
                self.region = None

    def structured_layout(self, regions: dict[int, int]) -> None:
        """Arms in order, each loop a `while True:` (or a counted loop's `for`) around its arms:
        no `pc` (see `structurable`)."""
        open_: list[tuple[int, int]] = []
        counted: dict[int, Counted] = {}
        done = -1  # the last arm of a loop written twice (`versioned`)
        for pos, b in enumerate(self.arms):
            if pos <= done:
                continue
            self.arm = pos
            self.pc = b
            loop = None
            if pos in regions:
                self.indent = self.base + len(open_)
                if self.COUNTED_LOOPS:
                    loop = self.counted_loop(pos, regions[pos], self.kinds)
                sums = self.accumulators(loop, regions) if loop is not None and self.VERSIONED_LOOPS else None
                if loop is not None and sums is not None:
                    self.versioned(loop, *sums, open_)
                    done = loop.last
                    continue
                if loop is None:
                    self.out("while True:")
                else:
                    counted[pos] = loop
                    self.steps_of.add(loop.step)
                    self.out(f"for l{loop.var} in range(l{loop.var}, {loop.bound}):")
                open_.append((pos, regions[pos]))
            self.region = open_[-1] if open_ else None
            self.indent = self.base + len(open_)
            if loop is None:
                self.body(b, 0)
            else:  # the header's test is the `for`: on to the loop's body
                self.follow(loop.body, b, self.block_end[b] - 1)
            while open_ and open_[-1][1] == pos:
                first = open_.pop()[0]
                if first in counted:
                    self.counted_exit(counted[first], open_)

    def versioned(self, loop: Counted, guard: str, pcs: frozenset[int], enclosing: list[tuple[int, int]]) -> None:
        """An innermost counted loop written twice: `if guard:` the copy whose sums (the
        instructions `pcs`) have no overflow test, `else:` the copy with them."""
        indent = self.base + len(enclosing)
        for fast in (True, False):
            self.indent = indent
            self.arm = loop.first
            self.pc = self.arms[loop.first]
            self.out(f"if {guard}:" if fast else "else:")
            self.unchecked = pcs if fast else frozenset()
            self.base += 1
            self.indent = self.base + len(enclosing)
            self.steps_of.add(loop.step)
            self.out(f"for l{loop.var} in range(l{loop.var}, {loop.bound}):")
            self.region = (loop.first, loop.last)
            for pos in range(loop.first, loop.last + 1):
                self.arm = pos
                self.pc = b = self.arms[pos]
                self.region = (loop.first, loop.last)
                self.indent = self.base + len(enclosing) + 1
                if pos == loop.first:
                    self.follow(loop.body, b, self.block_end[b] - 1)
                else:
                    self.body(b, 0)
            self.counted_exit(loop, enclosing)
            self.base -= 1
        self.unchecked = frozenset()
        self.region = enclosing[-1] if enclosing else None

    def accumulators(self, loop: Counted, regions: dict[int, int]) -> tuple[str, frozenset[int]] | None:
        """The runtime test under which an innermost counted loop's sums cannot overflow, and
        the `+`/`-` instructions it frees of their tests; None when the loop has no such sums.

        A sum is an int local whose every store in the loop is `s = s + d` or `s = s - d`, `d` an
        int constant or the loop's variable. Each block of an innermost loop runs at most once
        per round, so over the `bound - i` rounds left each sum moves by at most that many times
        the sum of its steps' sizes (`|c|`, or `max(|i|, |bound|)` for the variable): when that
        added to `|s|` stays within the int range, no intermediate value can overflow.
        """
        if any(loop.first < q <= loop.last for q in regions):
            return None
        code = self.code
        blocks = self.hosted(range(loop.first, loop.last + 1)) - {loop.step}
        if loop.exit in self.inlined:
            blocks -= self.hosted([loop.exit])  # (the exit's code runs once, after the loop)
        steps: dict[int, list[tuple[int, Any]]] = {}  # sum -> [(its + or - instruction, its step)]
        others: set[int] = set()
        for b in blocks:
            for pc in range(b, self.block_end[b]):
                op, s_ = code[pc]
                if op != Op.STORE_LOCAL or s_ == loop.var:
                    continue
                step = self.sum_step(b, pc, s_, loop.var)
                if step is None or self.kinds.get(s_) != "int":
                    others.add(s_)
                else:
                    steps.setdefault(s_, []).append((pc - 1, step))
        sums = {s_: st for s_, st in steps.items() if s_ not in others}
        if not sums:
            return None
        span = f"({loop.bound} - l{loop.var})"
        widest = f"max(abs(l{loop.var}), abs({loop.bound}))"
        tests = []
        for s_, st in sorted(sums.items()):
            consts = sum(d for _, d in st if d != "var")
            per_round = " + ".join([str(consts)] * bool(consts) + [widest] * sum(d == "var" for _, d in st))
            tests.append(f"type(l{s_}) is int and abs(l{s_}) + {span} * ({per_round}) <= {INT_MAX}")
        return " and ".join(tests), frozenset(pc for st in sums.values() for pc, _ in st)

    def sum_step(self, b: int, pc: int, s_: int, var: int) -> Any:
        """The step of `s = s + d` / `s = s - d` stored at `pc` (in block `b`): `|d|` for an int
        constant, "var" for the loop variable; None for any other store."""
        code = self.code
        if pc - 3 < b or code[pc - 1][0] not in (Op.ADD, Op.SUB):
            return None
        left = pc - 3
        if code[left] != (Op.LOAD_LOCAL, s_):  # perhaps through a temporary read once
            if not (pc - 5 >= b and code[left][0] == Op.LOAD_LOCAL and code[pc - 4] == (Op.STORE_LOCAL, code[left][1])
                    and pc - 4 in self.forward and code[pc - 5] == (Op.LOAD_LOCAL, s_)):
                return None
        op, arg = code[pc - 2]
        if op == Op.LOAD_LOCAL and arg == var:
            return "var"
        if op == Op.LOAD_CONST and type(c := self.fn.consts[arg]) is int:
            return abs(c)
        return None

    def counted_exit(self, loop: Counted, enclosing: list[tuple[int, int]]) -> None:
        """A counted loop's `else:` (the test failed): the variable's value, then the exit's code."""
        self.region = enclosing[-1] if enclosing else None
        self.arm = loop.first
        self.pc = header = self.arms[loop.first]
        self.indent = self.base + len(enclosing)
        self.out("else:")
        self.indent += 1
        if loop.var in self.read:  # `range` stops one short of the value that failed the test
            self.out(f"if l{loop.var} < {loop.bound}: l{loop.var} = {loop.bound}")
        # (a jump from here to the arm after the loop falls out of the `for` in place)
        self.follow(loop.exit, header, self.block_end[header] - 1)

    def follow(self, target: int, b: int, last: int) -> None:
        """Code of `target` in place when it is inlined into `b`, else the jump to it."""
        if target in self.inlined:
            self.body(target, 1)
        else:
            self.jump(target, False, last)

    def jump(self, target: int, tick: bool, at: int, always: bool = False) -> None:
        if tick and self.mod.budget and target <= at:
            self.tick()
        if self.structured:
            self.structured_jump(self.arm_pos[target])
            return
        self.out(f"pc = {target}")
        pos = self.arm_pos[target]
        if self.region is not None and not self.region[0] <= pos <= self.region[1]:
            self.out("break")
        elif pos <= self.arm or always:
            self.out("continue")

    def structured_jump(self, pos: int) -> None:
        """A jump in structured code: `structurable` has checked it is one of these three."""
        if self.region is not None and pos == self.region[0]:
            self.out("continue")
        elif self.region is not None and pos == self.region[1] + 1:
            self.out("break")
        else:
            self.out("pass")  # the next arm follows in place
