"""The tracker runtime: what both trackers (interpreted and compiled) do besides running the program.

SymCC's RuntimeCommon is the model: the instrumented program calls a small
runtime, and everything symbolic lives there. Ours holds:

- **the shadow heap** (`hget`/`hset`): the shadow of every heap-held value,
  keyed by `(id(object), key)` where the key is a field index, an element index,
  `"$len"` for a list's length, `("k", key)` for a map entry or `"v"` for a
  cell. Objects with a shadow are kept alive so their ids stay theirs; `owners`
  lists them (the compiled tracker skips the heap for every other object).
- **the path condition** (`trace.path`): `record` appends an entry (SymCC's
  `push_path_constraint`) unless its condition folded to a constant; `check`
  records an implicit panic condition (the alternative is "this panics"),
  `concretize` fixes a symbolic operand to its concrete value (a CONCRETIZE
  entry per scalar part), `assume` keeps a modelling assumption the run
  satisfies. Concretizations and assumptions are negatable like branches.
- **exact forms** (`fixed_operand`, `fixed_text`): what a node built over a
  concretized operand's constant stood for, so a check over it also gets an
  alternative with that operand free (`ingot.symbolic.exact`, `RunTrace.exact`).
- **hot-site pruning** (`pruned`, `prune_site`): QSYM's exponential back-off
  per instruction, keyed by `function index << 32 | pc + 1`.
- **scalar views of shadows** (`scalar`, `lift`, `truthy`): the expression a
  value stands for when an operation uses it as a scalar.

A site is `(function index, pc)` of the instruction, from the frame the caller
passes (anything with `fn`, `pc` one past the instruction, and `ctx`); a check's
is `(function index, pc, kind)`, since one instruction may check for more than
one panic and each check is aimed at on its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from ingot.bex.api import BexFunction, Op
from ingot.runtime import ops
from ingot.runtime.values import Variant
from ingot.symbolic.exact import ExactForms
from ingot.symbolic.expr import Expr, Interner, Sort
from ingot.symbolic.expr import Op as ExprOp
from ingot.symbolic.intervals import IntRanges
from ingot.symbolic.shadow import SAFE_SIDE, Alternative, EntryKind, Opt, PathEntry, Shadow, Site

COMPARES_PER_RUN = 64  # comparisons noted per run, each both ways round (the last pair may make it 65)
COMPARED_LENGTH = 64  # longer strings are not kept: a whole document compared is no token


class SiteFrame(Protocol):
    """Where an operation happens: the function, one past its pc, and the call-stack context."""

    fn: BexFunction
    pc: int
    ctx: int


@dataclass(slots=True)
class SiteInfo:
    """Per-function facts from the MIR API, indexed by pc."""

    branches: dict[int, tuple[int, int, int]]  # pc -> (block, then block, else block)
    switches: dict[int, tuple[int, Any, int]]  # pc -> (block, key -> block, otherwise block)
    track_coverage: bool


@dataclass(slots=True)
class RunTrace:
    """What one tracked run observed."""

    path: list[PathEntry] = field(default_factory=list)
    edges: list[tuple[str, int, int]] = field(default_factory=list)  # (function, block, target) in order
    # per path entry, how many edges were taken before it: where on the path each edge was taken
    entry_edges: list[int] = field(default_factory=list)
    llm_calls: list[tuple[str, str, Any]] = field(default_factory=list)  # (function, input name, value)
    concretized: int = 0
    pruned: int = 0  # symbolic operations run concretely at hot sites (see `TrackedVM.pruned`)
    # Panic sites executed, (function, pc) -> [path length at the first execution, at the last,
    # the least distance from panicking (a divisor's size, an index's room), the path length where
    # it was met]: where a division, index or assert ran, whatever its operands (`reached_at`).
    reached: dict[tuple[str, int], list[Any]] = field(default_factory=dict)
    # CHECK entries over a concretized operand, by path position: the check's alternative over
    # the expressions that fed the concretizations, and the CONCRETIZE conditions (ids) it lifts
    # (`ingot.symbolic.exact`; the explorer poses it when the check itself is not sat).
    exact: dict[int, tuple[Expr, frozenset[int]]] = field(default_factory=dict)
    # Checks not recorded because the ranges prove they cannot fail on this path
    # (`TrackerRuntime.cannot_fail`): (the (function index, pc, kind) site, the call context).
    proven: set[tuple[Site, int]] = field(default_factory=set)
    # Strings compared unequal while both were concrete, both ways round, the first
    # `COMPARES_PER_RUN` (`TrackerRuntime.compared_strings`): libFuzzer's table of recent
    # compares, for the random rounds' input-to-state replacements (`Dictionary.mutate_string`).
    compared: dict[tuple[str, str], None] = field(default_factory=dict)

    def edge_set(self) -> set[tuple[str, int, int]]:
        return set(self.edges)


class TrackerRuntime:
    """The shadow heap, the path condition and pruning of one tracked VM."""

    def __init__(self, interner: Interner, prune_after: int | None) -> None:
        self.x: Interner = interner
        self.prune_after = prune_after  # None: track every symbolic operation (packing needs all of them)
        self.max_parts = 6  # `split`/`lines` results are modelled up to this many parts (the explorer sets it)
        # False: the string models (`ingot.stdlib.string_models`) are off and their operands are
        # concretized, as for a built-in without a model (the explorer turns them off when their
        # queries have spent its budget of solver work).
        self.string_models = True
        self._site_hits: dict[int, int] = {}
        self.trace = RunTrace()
        self.exact_forms = ExactForms(interner)  # nodes over a concretized operand (`fixed_operand`)
        self.int_ranges = IntRanges()  # a check the ranges prove on the path is not recorded (`check`)
        self.heap: dict[tuple[int, Any], Shadow] = {}
        self._keep: list[Any] = []  # objects whose ids key the heap shadow stay alive
        # ids of the objects that have ever had a heap shadow (kept alive, so the ids stay
        # theirs): the compiled tracker reads and clears the heap only for these
        self.owners: set[int] = set()

    # -- shadow heap --------------------------------------------------------------------
    def hget(self, obj: Any, key: Any) -> Shadow:
        return self.heap.get((id(obj), key))

    def hset(self, obj: Any, key: Any, shadow: Shadow) -> None:
        k = (id(obj), key)
        if shadow is None:
            self.heap.pop(k, None)
        else:
            if k not in self.heap:
                self._keep.append(obj)
                self.owners.add(k[0])
            self.heap[k] = shadow

    # -- hot-site pruning ------------------------------------------------------------------
    def pruned(self, frame: SiteFrame) -> bool:
        """Should this symbolic operation run concretely? (QSYM's pruning of hot blocks.)

        Each instruction that does symbolic work counts its executions with symbolic operands
        in this run. The first `prune_after` are tracked; past that, only the 2^k-th
        (exponential back-off), and the others run concretely: no expression, no path entry,
        a concrete result. A loop over a large symbolic bound then costs a few thousand
        tracked operations instead of one per iteration. The path condition loses those
        constraints, so a run that pruned anything makes the exploration "best effort"
        (`RunTrace.pruned`). Both trackers ask at the same operations, in the same order,
        so they still record identical traces.
        """
        return self.prune_after is not None and self.prune_site(frame.fn.index << 32 | frame.pc)

    def prune_at(self, frame: SiteFrame, pc: int) -> bool:
        """`pruned` for the instruction at `pc` (a jump has moved `frame.pc` already)."""
        return self.prune_after is not None and self.prune_site(frame.fn.index << 32 | (pc + 1))

    def next_tracked_count(self, count: int) -> int:
        """After tracking an instruction's `count`-th symbolic execution, the next it tracks."""
        limit = self.prune_after
        if limit is None or count < limit:
            return count + 1
        return 1 << count.bit_length()  # the next power of two

    def prune_site(self, key: int) -> bool:
        """`pruned` for the instruction `key` (function index << 32 | pc + 1); it counts this execution."""
        n = self._site_hits.get(key, 0) + 1
        self._site_hits[key] = n
        if n <= self.prune_after or not n & (n - 1):  # type: ignore[operator]
            return False  # (the compiled tracker inlines this test: `TrackedTranslator.pruned_else`)
        self.trace.pruned += 1
        return True

    # -- concrete comparisons -----------------------------------------------------------
    def compared_strings(self, a: str, b: str) -> None:
        """Two concrete strings compared unequal (the caller has checked): a string the run
        derived from its input without a model (a field of a concretized `lines()`) that the
        program wanted to be a literal. Kept for the random rounds, which replace the first
        where it occurs in an input by the second."""
        log = self.trace.compared
        if len(log) < COMPARES_PER_RUN and len(a) <= COMPARED_LENGTH and len(b) <= COMPARED_LENGTH:
            log[(a, b)] = None
            log[(b, a)] = None

    # -- panic sites reached ------------------------------------------------------------
    def reached_at(self, site: tuple[str, int], distance: float = 1) -> None:
        """A panic site (`is_panic_site`) is executing, `distance` away from panicking (0: it
        panics now). Note how long the path is at its first and latest execution, and the
        least distance with the path length where it was first met, so the search can aim at
        the conditions before it even when its operands are concrete. Both trackers call it
        before the operation's own entries."""
        n = len(self.trace.path)
        seen = self.trace.reached.get(site)
        if seen is None:
            self.trace.reached[site] = [n, n, distance, n]
        else:
            seen[1] = n
            if distance < seen[2]:
                seen[2], seen[3] = distance, n

    def reached_division(self, site: tuple[str, int], divisor: Any) -> None:
        """`reached_at` for a division or remainder: as far from panicking as the divisor from 0."""
        self.reached_at(site, abs(divisor) if type(divisor) is int else 1)

    def reached_index(self, site: tuple[str, int], base: Any, index: Any) -> None:
        """`reached_at` for `base[index]`: a list index's distance to the nearest bound it would
        cross (n - i, or i + n + 1), a map key's 0 when missing.

        The distance to the farther bound breaks ties, as a fraction below 1: `xs[xs.length() - 1]`
        is always 1 from its nearest bound, but the shorter the list, the nearer it is to
        panicking at the other, and the search's hill climb needs that gradient."""
        if isinstance(base, list) and type(index) is int:
            n = len(base)
            near, far = sorted((n - index, index + n + 1))
            self.reached_at(site, 0 if near <= 0 else near + far / (far + 1))
        elif isinstance(base, dict):
            self.reached_at(site, 1 if index in base else 0)
        else:
            self.reached_at(site)

    def reached_store(self, site: tuple[str, int], base: Any, index: Any) -> None:
        """`reached_at` for `base[index] = v`: a list index as `reached_index`; a map write never panics."""
        if isinstance(base, list):
            self.reached_index(site, base, index)
        else:
            self.reached_at(site)

    # -- path condition ------------------------------------------------------------------
    def record(self, kind: EntryKind, site: Site, observed: Expr, alternatives: tuple[Alternative, ...],
               ctx: int, check: str | None = None) -> None:
        if observed.is_const:
            return  # folded: nothing to negate (and nothing to record)
        self.trace.path.append(PathEntry(kind, site, observed, alternatives, ctx, check))
        self.trace.entry_edges.append(len(self.trace.edges))
        if kind is not EntryKind.CONCRETIZE:  # not a fixed value: the exact checks free those again
            self.int_ranges.learn(observed)

    def check(self, frame: SiteFrame, kind: str, safe: Expr, holds: bool) -> None:
        """An operation that panics with `kind` unless `safe` holds."""
        if safe.is_const:
            return
        if holds and self.cannot_fail(safe):
            self.trace.proven.add(((frame.fn.index, frame.pc - 1, kind), frame.ctx))
            return
        x = self.x
        observed = safe if holds else x.not_(safe)
        alt = x.not_(safe) if holds else safe
        if holds and self.exact_forms.forms:
            exact, released = self.exact_forms.exact(safe)
            if released and not exact.is_const:
                self.trace.exact[len(self.trace.path)] = (x.not_(exact), released)
        # The run failed here (a caught parse error, or the panic that ends it): the other side
        # carries the path on, and is aimed at like a branch's edge, not like a panic.
        label = kind if holds else SAFE_SIDE + kind
        self.record(EntryKind.CHECK, (frame.fn.index, frame.pc - 1, kind), observed,
                    (Alternative(alt, None, label),), frame.ctx, kind)

    def cannot_fail(self, safe: Expr) -> bool:
        """Does a check's `safe` hold for every input on this path, by the ranges alone? Never
        asked once an operand was fixed in this run: a fixed value's range is one number, while
        the exact checks pose that check again with the operand free (`fixed_operand`)."""
        return not self.exact_forms.forms and self.int_ranges.always(safe)

    def concretize(self, frame: SiteFrame, shadow: Shadow, value: Any, modelled: Expr | None = None) -> None:
        """Fix a symbolic operand to its concrete value (CONCRETIZE entry).

        `modelled`: the condition on the operand under which its model would have kept it
        symbolic (`s.to_lower_case()` of a string without capitals). It is the entry's first
        alternative: a value the model can follow is worth more than another fixed one.
        """
        x = self.x
        for expr, concrete in self.scalar_parts(shadow, value):
            if type(concrete) is int and self.int_ranges.fixes(expr, concrete):
                continue  # the path's own conditions fix it: an entry would only add a flip to waste
            observed = x.eq(expr, x.const(concrete, expr.sort))
            if not observed.is_const:
                self.trace.concretized += 1
                other = Alternative(x.not_(observed), None, "concretize")
                # (`modelled` is about the operand as a whole, not a part of an optional or union)
                escape = () if modelled is None or modelled.is_const or expr is not shadow else \
                    (Alternative(modelled, None, "modelled"),)
                self.record(EntryKind.CONCRETIZE, (frame.fn.index, frame.pc - 1), observed,
                            escape + (other,), frame.ctx)

    def fixed_operand(self, op: ExprOp, a: Expr, fixed: Expr, value: Any) -> Expr:
        """`a op value`, where `value` is what `fixed` was just concretized to: the node is kept
        (not folded into `a` when `value` is 1) and remembered as standing for `a op fixed`, so a
        later check over it can be posed with `fixed` free again (`ingot.symbolic.exact`)."""
        x = self.x
        c = x.const(value, fixed.sort)
        result = x.arith(op, a, c)
        if result.is_const:
            return result
        if result.op is not op:  # folded away (`a * 1`): keep a node the exact form can key on
            result = x._node(op, result.sort, (result, x.const(value, result.sort)))
        released = x.eq(fixed, c)
        if not released.is_const:
            self.exact_forms.note(result, x.arith(op, a, fixed), frozenset((released.id,)))
        return result

    def fixed_text(self, text: Expr, exact: Expr, fixed: list[Expr]) -> None:
        """An interpolated string whose int pieces were fixed (`fixed`: their CONCRETIZE
        conditions) stands for `exact`, with their digits over their expressions; so does its
        length, which the string models build as a sum the string node itself is not under."""
        x = self.x
        released = frozenset(c.id for c in fixed if not c.is_const)
        self.exact_forms.note(text, exact, released)
        self.exact_forms.note(x.length(text), x.length(exact), released)

    def assume(self, frame: SiteFrame, cond: Expr) -> None:
        """Keep a modelling assumption that holds on this run on the path (negatable, like a concretization)."""
        if cond.is_const:
            return
        self.trace.concretized += 1
        self.record(EntryKind.CONCRETIZE, (frame.fn.index, frame.pc - 1), cond,
                    (Alternative(self.x.not_(cond), None, "assumption"),), frame.ctx)

    def define(self, frame: SiteFrame, definition: Expr) -> None:
        """Keep the definition of variables a model derived from inputs (`split`'s parts) on the path.

        It holds for every input (with the derived variables' values), so it is never negated:
        an entry with no alternatives, which every query on those variables or inputs keeps.
        """
        self.record(EntryKind.BRANCH, (frame.fn.index, frame.pc - 1), definition, (), frame.ctx)

    def scalar_parts(self, shadow: Shadow, value: Any) -> list[tuple[Expr, Any]]:
        if shadow is None:
            return []
        if isinstance(shadow, Expr):
            if isinstance(value, Variant):
                return [(shadow, value.index)]
            if isinstance(value, (bool, int, float, str)):
                return [(shadow, value)]
            return []
        if isinstance(shadow, Opt):
            parts = [(shadow.present, value is not None)]
            return parts + (self.scalar_parts(shadow.payload, value) if value is not None else [])
        return [(shadow.tag, shadow.index)] + self.scalar_parts(shadow.payload, value)

    # -- scalar views of shadows ------------------------------------------------------------------
    def scalar(self, shadow: Shadow, value: Any) -> Expr | None:
        """The expression for a value used as a scalar (the payload of a present optional)."""
        if shadow is None or isinstance(shadow, Expr):
            return shadow
        if isinstance(shadow, Opt):
            return self.scalar(shadow.payload, value) if value is not None else None
        return self.scalar(shadow.payload, value)

    def lift(self, shadow: Shadow, value: Any) -> Expr | None:
        """A scalar expression, or a constant for a concrete scalar; None if neither applies."""
        e = self.scalar(shadow, value)
        if e is not None:
            return e
        if isinstance(value, Variant):
            return self.x.const(value.index, Sort.INT)
        if isinstance(value, (bool, int, float, str)):
            return self.x.const(value)
        return None

    def truthy(self, shadow: Shadow, value: Any) -> Expr | None:
        """The symbolic truthiness of a value (BAML conditions need not be bool)."""
        x = self.x
        if shadow is None:
            if isinstance(value, list):
                n = self.hget(value, "$len")
                return x.not_(x.eq(n, x.const(0))) if isinstance(n, Expr) else None
            return None
        if isinstance(shadow, Opt):
            if value is None:
                return shadow.present  # false on this run
            inner = self.truthy(shadow.payload, value)
            return x.and_(shadow.present, inner if inner is not None else x.const(bool(ops.truthy(value))))
        e = self.scalar(shadow, value)
        if e is None:
            return None
        if isinstance(value, Variant):
            return None
        if e.sort is Sort.BOOL:
            return e
        if e.sort is Sort.INT:
            return x.not_(x.eq(e, x.const(0)))
        if e.sort is Sort.FLOAT:
            return x.not_(x.eq(e, x.const(0.0)))
        return x.not_(x.eq(x.length(e), x.const(0)))


PANIC_OPCODES = frozenset({Op.DIV, Op.MOD, Op.READ_INDEX, Op.WRITE_INDEX})
PANIC_BUILTINS = ("assert.", "baml.sys.panic")


def is_panic_site(op: int, arg: Any, builtin_keys: list[str]) -> bool:
    """Can this instruction panic by construction (division, remainder, indexing, an assert, a panic)?"""
    if op in PANIC_OPCODES:
        return True
    return op == Op.CALL_BUILTIN and builtin_keys[arg[0]].startswith(PANIC_BUILTINS)


def panic_builtin_indices(builtin_keys: list[str]) -> frozenset[int]:
    """The built-ins (by index) whose calls are panic sites: `assert.*` and `baml.sys.panic`."""
    return frozenset(i for i, key in enumerate(builtin_keys) if key.startswith(PANIC_BUILTINS))


def pruned_count(count: int, limit: int) -> int:
    """How many of `count` executions of one instruction `TrackedVM.prune_site` pruned."""
    if count <= limit:
        return 0
    return (count - limit) - (count.bit_length() - limit.bit_length())  # less the powers of two in (limit, count]
