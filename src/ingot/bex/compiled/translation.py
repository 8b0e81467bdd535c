"""One program's translation to Python: generated source, code object, line map; cached per program."""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import Any

from ingot.bex.compiled.codegen import FunctionTranslator
from ingot.bex.program import BexFunction, BexProgram
from ingot.runtime.errors import Frame

_counter = itertools.count()


class Translation:
    """One program's translation: source, code object and the line map for traces."""

    def __init__(self, program: BexProgram, budget: bool,
                 translator: type[FunctionTranslator] | None = None, context: Any = None,
                 hosts: frozenset[str] = frozenset()) -> None:
        self.program = program
        self.budget = budget
        self.context = context  # what a translator variant needs beside the bytecode (e.g. a program view)
        self.hosts = hosts  # functions bound to Python callables: their calls go to `_call_external`
        # What an executor builds once from this translation (the tracked runtime), living as long as it.
        self.attached: dict[str, Any] = {}
        self.filename = f"<ingot-compiled-{next(_counter)}>"
        self.lines: list[str] = []
        self.pyline_pc: list[int] = []  # python line (0-based) -> pc in its function
        self.consts: dict[str, Any] = {}
        self.by_code_name: dict[str, BexFunction] = {}
        self.value_argcs: set[int] = set()
        # Per-instruction counters a translator variant allocated (`_H[j]`), one per instruction
        # (function index, pc) even where the translation emits its code more than once.
        self.counter_of: dict[tuple[int, int], int] = {}
        cls = translator or FunctionTranslator
        for line in cls.module_head(self):
            self.emit(0, line, -1)
        for fn in program.reachable():  # not the prelude functions nothing calls
            if fn.kind == "body":
                cls(self, fn).run()
        for line in cls.module_tail(self):
            self.emit(0, line, -1)
        self.source = "\n".join(self.lines) + "\n"
        self.code = compile(self.source, self.filename, "exec")
        _MODULES[self.filename] = self

    def emit(self, indent: int, text: str, pc: int) -> None:
        self.lines.append("    " * indent + text)
        self.pyline_pc.append(pc)

    @property
    def n_counters(self) -> int:
        return len(self.counter_of)

    def counter(self, fn_index: int, pc: int) -> int:
        """The counter of instruction `pc` of function `fn_index`, shared by every copy of its code."""
        return self.counter_of.setdefault((fn_index, pc), len(self.counter_of))

    def const_name(self, value: Any, hint: str) -> str:
        name = f"K_{hint}"
        self.consts[name] = value
        return name

    def frame(self, fn: BexFunction, pyline: int) -> Frame:
        i = pyline - 1
        pc = self.pyline_pc[i] if 0 <= i < len(self.pyline_pc) else -1
        return Frame(fn.qualified, fn.file, fn.line_at(pc))


# Generated code's file name -> its translation, for mapping Python frames back to BAML in
# traces. Weak: a translation lives as long as its program (`BexProgram.translations`).
_MODULES: weakref.WeakValueDictionary[str, Translation] = weakref.WeakValueDictionary()
_LOCK = threading.Lock()
_VARIANTS_KEPT = 8  # translations kept per program (budget on/off x translator variants x bindings)


def translate(program: BexProgram, budget: bool = False, translator: type[FunctionTranslator] | None = None,
              context: Any = None, hosts: frozenset[str] = frozenset()) -> Translation:
    """The program's translation for a budget mode, translator variant and set of functions bound
    to Python callables (`hosts`, the VM's), cached on the program itself: VMs with other
    bindings select other entries, and the program is never changed."""
    key = (budget, translator.__qualname__ if translator is not None else "", hosts)
    cache = program.translations
    with _LOCK:  # VMs in several threads may share the program
        mod = cache.pop(key, None)
        if mod is None:
            mod = Translation(program, budget, translator, context, hosts)
        cache[key] = mod  # most recently used last
        while len(cache) > _VARIANTS_KEPT:
            del cache[next(iter(cache))]
    return mod


def source_of(program: BexProgram, budget: bool = False) -> str:
    """The generated Python source (for debugging and tests)."""
    return translate(program, budget).source
