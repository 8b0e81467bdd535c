"""One program's translation to Python: generated source, code object, line map; cached per program."""

from __future__ import annotations

import itertools
from collections import OrderedDict
from typing import Any

from ingot.bex.compiled.codegen import FunctionTranslator
from ingot.bex.program import BexFunction, BexProgram
from ingot.runtime.errors import Frame

_counter = itertools.count()


class Translation:
    """One program's translation: source, code object and the line map for traces."""

    def __init__(self, program: BexProgram, budget: bool,
                 translator: type[FunctionTranslator] | None = None, context: Any = None) -> None:
        self.program = program
        self.budget = budget
        self.context = context  # what a translator variant needs beside the bytecode (e.g. a program view)
        self.filename = f"<ingot-compiled-{next(_counter)}>"
        self.lines: list[str] = []
        self.pyline_pc: list[int] = []  # python line (0-based) -> pc in its function
        self.consts: dict[str, Any] = {}
        self.by_code_name: dict[str, BexFunction] = {}
        self.value_argcs: set[int] = set()
        self.n_counters = 0  # per-instruction counters a translator variant allocated (`_H[j]`)
        for fn in program.reachable():  # not the prelude functions nothing calls
            if fn.kind == "body":
                (translator or FunctionTranslator)(self, fn).run()
        self.source = "\n".join(self.lines) + "\n"
        self.code = compile(self.source, self.filename, "exec")
        _MODULES[self.filename] = self

    def emit(self, indent: int, text: str, pc: int) -> None:
        self.lines.append("    " * indent + text)
        self.pyline_pc.append(pc)

    def const_name(self, value: Any, hint: str) -> str:
        name = f"K_{hint}"
        self.consts[name] = value
        return name

    def frame(self, fn: BexFunction, pyline: int) -> Frame:
        i = pyline - 1
        pc = self.pyline_pc[i] if 0 <= i < len(self.pyline_pc) else -1
        return Frame(fn.qualified, fn.file, fn.line_at(pc))


def forget(program: BexProgram) -> None:
    """Drop `program`'s translations (its functions changed kind, e.g. a host was bound)."""
    for key in [k for k in _CACHE if k[0] == id(program)]:
        del _CACHE[key]


_MODULES: dict[str, Translation] = {}
_CACHE: OrderedDict[tuple[int, bool, str], Translation] = OrderedDict()
_CACHE_SIZE = 64


def translate(program: BexProgram, budget: bool = False, translator: type[FunctionTranslator] | None = None,
              context: Any = None) -> Translation:
    """The program's translation (cached per program, budget mode and translator variant)."""
    key = (id(program), budget, translator.__qualname__ if translator is not None else "")
    mod = _CACHE.get(key)
    if mod is not None and mod.program is program:
        _CACHE.move_to_end(key)
        return mod
    mod = Translation(program, budget, translator, context)
    _CACHE[key] = mod
    while len(_CACHE) > _CACHE_SIZE:
        _, old = _CACHE.popitem(last=False)
        _MODULES.pop(old.filename, None)
    return mod


def source_of(program: BexProgram, budget: bool = False) -> str:
    """The generated Python source (for debugging and tests)."""
    return translate(program, budget).source
