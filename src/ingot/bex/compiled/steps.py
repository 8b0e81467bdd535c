"""The compiled tier's step counting: the code a step (a backward jump or a call) costs.

With a budget (`max_steps`, a timeout, a memory cap or a stop request) every backward jump and
every call of a BAML function is one step, exactly as in the interpreter: `VM.check_limits`
runs at the step where the count reaches `_NEXT` (a global of the VM's namespace that the
check moves on: the step limit, or the next periodic look at the clock, memory and stop
request, every `limits.CHECK_EVERY` steps).

A function without loops counts its calls in the global count `_steps` directly. A function
with loops keeps the count in two Python locals (a global store per loop iteration would cost
more than a tight loop's body): `_r`, the steps left before `_NEXT`, and `_b`, the value `_r`
had when the global count was last brought up to date, so the steps not yet added to
`_steps` are always `_b - _r`. A backward jump is `(_r := _r - 1) <= 0`, and only when it
holds does the slow path add the pending steps, run the check and reload. Everything that
can run other BAML code or read the count brings `_steps` up to date first and reloads
after: calls (a BAML call also counts its own step there), constants' initialisers, external
calls, caught panics (whose trace frames `remember_caught` charges); the function's body is
wrapped in `try/finally` so that returns and escaping panics add what is pending. The count
and the steps at which the limits are checked are therefore exactly the interpreter's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ingot.bex.opcodes import Op

if TYPE_CHECKING:
    from ingot.bex.compiled.translation import Translation
    from ingot.bex.program import BexFunction

_LOCAL_TICK = "if (_r := _r - 1) <= 0: _steps += _b - _r; _b = _r; _check(); _r = _b = _NEXT - _steps"


class StepCounting:
    """Emits step code (a mixin of the translator: it reads `fn`, `mod`, and writes with `out`)."""

    fn: BexFunction
    mod: Translation
    pc: int
    indent: int
    # A step in the global count, for functions without loops (and translator variants that
    # count elsewhere: they override TICK and set STEP_GLOBALS False).
    TICK = "_steps += 1; _steps < _NEXT or _check()"
    STEP_GLOBALS = True  # functions declare `global _steps` (TICK assigns it)

    def out(self, text: str) -> None:
        raise NotImplementedError

    def uses_local_steps(self) -> bool:
        """Count in locals: a budget, the concrete tier's counters, and a loop (a backward jump)."""
        return bool(self.mod.budget and self.STEP_GLOBALS and any(
            op == Op.JUMP and arg < pc for pc, (op, arg) in enumerate(self.fn.code)))

    def tick(self) -> None:
        """A backward jump's step."""
        self.out(_LOCAL_TICK if self.local_steps else self.TICK)

    def double_tick(self, first: int, second: int) -> None:
        """Two steps in a row (the backward jumps at `first` and at `second`: a loop body's end,
        then a counted loop's step) as one test while neither reaches the check, else each in
        turn exactly as `tick` makes it (each slow path on its own instruction's line)."""
        self.pc = first
        self.out("if (_r := _r - 2) <= 0:")
        self.indent += 1
        self.out("_r += 1")
        self.out("if _r <= 0: _steps += _b - _r; _b = _r; _check(); _r = _b = _NEXT - _steps")
        self.pc = second
        self.out(_LOCAL_TICK)
        self.indent -= 1

    def call_tick(self) -> None:
        """A BAML call's step, made in the caller before the call (`reload_steps` after it)."""
        if self.local_steps:
            self.out("_steps += _b - _r + 1; _b = _r; _steps < _NEXT or _check()")
        else:
            self.out(self.TICK)

    def flush_steps(self) -> None:
        """Before code that may count steps itself or read the count: add what is pending."""
        if self.local_steps:
            self.out("_steps += _b - _r; _b = _r")

    def reload_steps(self) -> None:
        """After such code: the steps left before the next check, from the global count."""
        if self.local_steps:
            self.out("_r = _b = _NEXT - _steps")

    local_steps = False
