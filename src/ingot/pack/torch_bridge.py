"""BAML functions as PyTorch callables that `torch.compile` traces through.

`as_torch_function(program, "F")` returns a Python callable wrapped in
`torch._dynamo.nonstrict_trace` (torch 2.13; `torch.compiler.nonstrict_trace`
does not exist there): Dynamo records one opaque call, and AOTAutograd
traces the torch operations the VM performs on the tensors it is given. The
rules that follow (see DESIGN.md, "Packing and PyTorch"):

- Tensors must arrive as arguments (a tensor a host callable captures breaks
  compilation). Plain ints, floats and strings specialize the graph: each new
  value is a recompile (up to torch's recompile limit); pass a number that
  varies as a 0-d tensor to a `float` parameter.
- The VM runs only while torch traces (a few times per compile), never when
  the compiled graph runs. So the function must be pure apart from its tensor
  maths: LLM functions are refused, and host functions run at trace time only
  (they must compute with torch operations on their arguments).
- A BAML condition on a tensor value cannot be traced: it raises
  `TensorBranchError` (branch with `torch.where` in a host function, or pack
  the function: `ingot.pack.pack_batch`).
- The result must be tensors, numbers, or lists and dicts (class instances)
  of them: strings and nulls cannot leave a traced function.
- Dynamo wraps exceptions raised while it traces (`Unsupported` ->
  `TorchRuntimeError` -> the original). `compile()` is `torch.compile` whose
  calls re-raise ingot's own error unwrapped; `unwrap_error` does the same for
  an exception caught elsewhere.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch
from torch._dynamo import nonstrict_trace

from ingot.bex.api import BexFunction
from ingot.convert import ArgumentError, to_python
from ingot.pack.tensors import TensorBranchError
from ingot.pack.trace import PackError
from ingot.runtime.errors import BamlError

if TYPE_CHECKING:
    from ingot.api import Program

__all__ = ["as_torch_function", "compile", "unwrap_error", "BridgeError"]

INGOT_ERRORS = (BamlError, ArgumentError, TensorBranchError, PackError)


class BridgeError(PackError):
    """A BAML function that cannot run as a traced torch function (named in the message)."""


def _refuse_llm(vm: Any, fn: BexFunction, args: list[Any]) -> Any:
    raise BridgeError(f"`{fn.name}` is an LLM function: a function traced by torch.compile runs only while "
                      "tracing, so it cannot call a model")


def as_torch_function(program: Program, function: str) -> Callable[..., Any]:
    """`function` as a callable on tensors (positional or keyword arguments) for `torch.compile`."""
    fn = program.function(function)
    names = [n for n, _ in program.view.function(function).params]

    def run(*args: Any, **kwargs: Any) -> Any:
        if len(args) > len(names):
            raise ArgumentError("args", f"{function} takes {len(names)} argument(s), got {len(args)}")
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k in bound:
                raise ArgumentError(f"args.{k}", "given twice")
            bound[k] = v
        values = program.convert_args(function, {k: specialize(v) for k, v in bound.items()})
        # The interpreter: it runs only while torch traces, so its speed does not matter,
        # and it raises TensorBranchError for any condition on a tensor.
        vm = program.vm(tier="interp", llm=_refuse_llm)
        result = to_python(vm.call(fn, values))
        check_output(function, result)
        return result

    run.__name__ = run.__qualname__ = function
    return nonstrict_trace(run)


def specialize(value: Any) -> Any:
    """Symbolic ints and floats (Dynamo's automatic dynamic) as their values, guarded.

    BAML's int semantics (63-bit overflow checks, truncating division) need
    values; a varying number should be passed as a 0-d tensor instead.
    """
    if isinstance(value, torch.SymBool):
        return bool(value)
    if isinstance(value, torch.SymInt):
        return int(value)
    if isinstance(value, torch.SymFloat):
        return float(value)
    if isinstance(value, dict):
        return {k: specialize(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [specialize(v) for v in value]
    return value


def check_output(function: str, value: Any, path: str = "result") -> None:
    """Only tensors, numbers and containers of them can leave a traced function."""
    if isinstance(value, (torch.Tensor, bool, int, float)):
        return
    if isinstance(value, dict):
        for k, v in value.items():
            check_output(function, v, f"{path}.{k}")
        return
    if isinstance(value, list):
        for i, v in enumerate(value):
            check_output(function, v, f"{path}[{i}]")
        return
    kind = "null" if value is None else "a string" if isinstance(value, str) else type(value).__name__
    raise BridgeError(f"`{function}` returns {kind} at `{path}`; a function for torch.compile must return "
                      "tensors, numbers, or classes and arrays of them")


def unwrap_error(exc: BaseException) -> BaseException:
    """The ingot error inside Dynamo's wrappers (`exc` itself when there is none)."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        if isinstance(e, INGOT_ERRORS):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return exc


def compile(model: Callable[..., Any], **options: Any) -> Callable[..., Any]:  # noqa: A001 - mirrors torch.compile
    """`torch.compile(model, **options)` whose calls raise ingot's errors unwrapped."""
    compiled = torch.compile(model, **options)

    @functools.wraps(model)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return compiled(*args, **kwargs)
        except Exception as e:
            inner = unwrap_error(e)
            if inner is e:
                raise
            raise inner.with_traceback(inner.__traceback__) from None

    call.compiled = compiled  # type: ignore[attr-defined]
    return call
