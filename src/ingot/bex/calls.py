"""What a call means, once for every executor: the interpreter, the compiled tier and both trackers.

A call instruction names its callee (CALL) or pops a function value (CALL_VALUE).
Either way the executor asks the same three questions, answered here:

- `leaves_bytecode`: does the callee run outside the bytecode? LLM functions and
  `@@ingot(host)` functions have no body, and a VM may bind any function to a Python
  callable (`Program.bind`); such a call goes to the VM's environment (the concrete
  VMs call it, the trackers model its result). Executors look the answer up in
  `outside_table`, built once per VM, so the test costs one list index per call;
  `runs_host` splits those calls into host calls and LLM calls.
- `value_callee`: what a function value calls — the closure's function, its arguments
  (a bound method's receiver first) and its captured cells; any other value panics.
- `check_entry`: entering a body — its panics (depth past `max_depth`, wrong arity) and
  the call's step, in the order every executor takes them.

The panics themselves (`not_callable`, `stack_overflow`, `wrong_arity`) are defined
here too, so a message cannot differ between executors.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from ingot.bex.program import Closure
from ingot.runtime.errors import BamlRaise, panic

if TYPE_CHECKING:
    from ingot.bex.program import BexFunction, BexProgram, Cell

S = TypeVar("S")


def not_callable(target: Any) -> BamlRaise:
    """The panic of calling a value that is not a function."""
    return panic("UserPanic", message=f"cannot call a value of type {type(target).__name__}")


def stack_overflow() -> BamlRaise:
    """The panic of a call past `max_depth` or past Python's own stack."""
    return panic("StackOverflow", message="stack overflow")


def wrong_arity(fn: BexFunction, argc: int) -> BamlRaise:
    """The panic of calling `fn` with `argc` arguments (a closure called through a value, or an entry call)."""
    return panic("UserPanic", message=f"{fn.name} expects {fn.arity} argument(s), got {argc}")


def leaves_bytecode(fn: BexFunction, hosts: Mapping[str, Any] | frozenset[str]) -> bool:
    """A call of `fn` goes to the environment: an LLM or host function, or one bound to a callable."""
    return fn.kind != "body" or fn.name in hosts


def runs_host(fn: BexFunction, hosts: Mapping[str, Any] | frozenset[str]) -> bool:
    """Of the calls that leave the bytecode, those a Python callable answers (the rest are LLM calls)."""
    return fn.kind == "host" or fn.name in hosts


def outside_table(program: BexProgram, hosts: Mapping[str, Any] | frozenset[str]) -> list[bool]:
    """`leaves_bytecode` per function index, for a VM whose bound functions are `hosts`."""
    return [leaves_bytecode(fn, hosts) for fn in program.functions]


def value_callee(target: Any, args: list[Any],
                 shadows: list[S] | None = None) -> tuple[BexFunction, list[Any], list[S | None] | None,
                                                          tuple[Cell, ...]]:
    """CALL_VALUE's callee: (function, arguments, their shadows, captured cells).

    A bound method's receiver becomes the first argument (its shadow None: a method
    value is made from a concrete object). `shadows` is the trackers'; the concrete
    executors pass none and get None back.
    """
    if not isinstance(target, Closure):
        raise not_callable(target)
    if target.bound:
        args = [target.receiver, *args]
        if shadows is not None:
            return target.function, args, [None, *shadows], target.cells
    return target.function, args, shadows, target.cells  # type: ignore[return-value]


def check_entry(depth: int, max_depth: int, fn: BexFunction, argc: int, tick: Callable[[], None] | None) -> None:
    """Entering `fn`'s body at call depth `depth` with `argc` arguments: its panics, and the call's step.

    `tick` counts the call as a step (None when the VM counts none); a step limit it hits
    comes before a wrong arity, as in a direct call, whose arity the compiler checked.
    """
    if depth >= max_depth:
        raise stack_overflow()
    if tick is not None:
        tick()
    if argc != fn.arity:
        raise wrong_arity(fn, argc)
