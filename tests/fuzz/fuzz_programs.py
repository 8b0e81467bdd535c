"""A seeded generator of well-typed, terminating BAML functions (hypothesis draws the seeds).

Every generated function has the same parameters (`PARAMS`), so one set of argument
payloads serves a whole batch, and a batch compiles as one module (the engine's
compile is slow, its calls fast). What is generated is what BAML code around LLM
calls does with plain data: int arithmetic that may overflow or divide by zero,
indexing that may be out of bounds, string building and searching, arrays built,
searched and summed, `if`/`else`, `for`-in over a parameter and counted `while`
loops. Loops are bounded by construction (they iterate over a parameter nobody
grows, or count up to a small literal), so every function terminates on both
engines; panics are part of the behaviour compared.

Expressions are typed: `expr(T)` only produces BAML of type `T`, and names in scope
are tracked per type, so the engine accepts every generated function (a rejection
is itself a disagreement worth reporting).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

INT, BOOL, STRING, INTS, STRINGS = "int", "bool", "string", "int[]", "string[]"
PARAMS = (("a", INT), ("b", INT), ("s", STRING), ("t", STRING), ("xs", INTS), ("words", STRINGS),
          ("flag", BOOL))
RETURNS = (INT, BOOL, STRING, INTS)

# Not generated: the minimum int. `-4611686018427387904` is no literal the engine accepts
# (E0150: the literal is range-checked before it is negated), and the engine evaluates
# `(-(m)) % (b + m)` (m the minimum, b = 0) to 0 although `-(m)` alone overflows: an artefact of
# the engine's evaluation, not a rule a program can rely on.
INT_LITERALS = (0, 1, 2, 3, -1, 7, 10, 100, 4611686018427387903, 2147483648)
STRING_LITERALS = ("", "a", "ab", ",", " ", "x,y", "Hello", "  pad  ", "é", "OK", "-", "42", "3x")


@dataclass
class Scope:
    """Names readable and assignable at a point, by type; `loop_vars` are read-only."""

    names: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in (INT, BOOL, STRING, INTS, STRINGS)})
    assignable: dict[str, list[str]] = field(default_factory=lambda: {t: [] for t in (INT, BOOL, STRING, INTS, STRINGS)})
    counter: int = 0
    in_loop: bool = False  # no `push` inside loops: an alias of the array iterated would grow forever

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def child(self, loop: bool = False) -> Scope:
        return Scope({t: list(v) for t, v in self.names.items()},
                     {t: list(v) for t, v in self.assignable.items()}, self.counter,
                     self.in_loop or loop)

    def adopt_counter(self, other: Scope) -> None:
        self.counter = max(self.counter, other.counter)


def initial_scope() -> Scope:
    scope = Scope()
    for name, ty in PARAMS:
        scope.names[ty].append(name)
    return scope


def expr(rng: random.Random, ty: str, scope: Scope, depth: int = 2) -> str:  # noqa: C901
    leaf = depth <= 0 or rng.randint(0, 3) == 0
    names = scope.names[ty]
    if leaf:
        if names and rng.random() < 0.6:
            return rng.choice(names)
        if ty == INT:
            return str(rng.choice(INT_LITERALS))
        if ty == BOOL:
            return rng.choice(("true", "false"))
        if ty == STRING:
            return _quote(rng.choice(STRING_LITERALS))
        if ty == INTS:
            # No `[]`: an empty literal has no element type to call a method on (E0155).
            return rng.choice(("[1, 2, 3]", "[0]", "[-5, 5]"))
        return rng.choice(('["a", "b"]', '["x"]'))
    sub = depth - 1

    def e(t: str) -> str:
        return expr(rng, t, scope, sub)

    if ty == INT:
        form = rng.randint(0, 11)
        if form <= 3:
            op = rng.choice(("+", "-", "*", "/", "%"))
            return f"({e(INT)} {op} {e(INT)})"
        if form == 4:
            return f"{e(STRING)}.length()"
        if form == 5:
            return f"{e(INTS)}.length()"
        if form == 6:
            return f"{rng.choice(scope.names[INTS] or ['[4, 5, 6]'])}[{e(INT)}]"
        if form == 7:
            method = rng.choice(("abs()", "min({})", "max({})", "clamp(0, {})"))
            return f"({e(INT)}).{method.format(e(INT))}"
        if form == 8:
            return f"(if ({e(BOOL)}) {{ {e(INT)} }} else {{ {_widened(rng, INT, scope)} }})"
        if form == 9:
            return f"{e(INTS)}.sum()"
        if form == 10:
            return f"-({e(INT)})"
        return f"int.parse({e(STRING)})"
    if ty == BOOL:
        form = rng.randint(0, 7)
        if form <= 1:
            op = rng.choice(("<", "<=", ">", ">=", "==", "!="))
            return f"({e(INT)} {op} {e(INT)})"
        if form == 2:
            op = rng.choice(("==", "!="))
            return f"({e(STRING)} {op} {e(STRING)})"
        if form == 3:
            op = rng.choice(("&&", "||"))
            return f"({e(BOOL)} {op} {e(BOOL)})"
        if form == 4:
            return f"!({e(BOOL)})"
        if form == 5:
            method = rng.choice(("includes", "starts_with", "ends_with"))
            return f"{e(STRING)}.{method}({e(STRING)})"
        if form == 6:
            return f"{e(INTS)}.includes({e(INT)})"
        return f"{e(STRING)}.is_empty()"
    if ty == STRING:
        form = rng.randint(0, 8)
        if form <= 1:
            return f"({e(STRING)} + {e(STRING)})"
        if form == 2:
            return f"`<${{{e(STRING)}}}:${{{e(INT)}}}>`"
        if form == 3:
            method = rng.choice(("trim()", "to_lower_case()", "to_upper_case()"))
            return f"{e(STRING)}.{method}"
        if form == 4:
            return f"{e(STRING)}.slice({e(INT)}, {e(INT)})"
        if form == 5:
            return f"{e(STRING)}.replace({e(STRING)}, {e(STRING)})"
        if form == 6:
            return f"({e(INT)}).to_string()"
        if form == 7:
            return f"{e(STRINGS)}.join({e(STRING)})"
        return f"(if ({e(BOOL)}) {{ {e(STRING)} }} else {{ {_widened(rng, STRING, scope)} }})"
    if ty == INTS:
        form = rng.randint(0, 3)
        if form == 0:
            return f"[{e(INT)}, {e(INT)}]"
        if form == 1:
            return f"{e(INTS)}.concat({e(INTS)})"
        if form == 2:
            return f"{e(INTS)}.slice({e(INT)}, {e(INT)})"
        return f"{e(INTS)}.reverse()"
    form = rng.randint(0, 1)
    if form == 0:
        return f"{e(STRING)}.split({e(STRING)})"
    return f"[{e(STRING)}, {e(STRING)}]"


def _widened(rng: random.Random, ty: str, scope: Scope) -> str:
    """A name of type `ty`: an `if` whose branches are all literals has a literal union type
    (`2 | 10`), which the engine neither orders against `int` (E0004) nor gives members (E0007)."""
    return rng.choice(scope.names[ty])


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def block(rng: random.Random, scope: Scope, ret: str, depth: int, size: int) -> list[str]:
    """Statements; a `return` may end the block early."""
    lines: list[str] = []
    for _ in range(rng.randint(1, size)):
        lines.extend(statement(rng, scope, ret, depth))
        if lines and lines[-1].lstrip().startswith("return "):
            break
    return lines


def statement(rng: random.Random, scope: Scope, ret: str, depth: int) -> list[str]:
    form = rng.randint(0, 9 if depth > 0 else 4)
    ty = rng.choice((INT, INT, STRING, BOOL, INTS))
    if form <= 1 or (form <= 3 and not scope.assignable[INTS if form == 3 else ty]) or \
            (form == 3 and scope.in_loop):
        name = scope.fresh("v")
        value = expr(rng, ty, scope)
        scope.names[ty].append(name)
        scope.assignable[ty].append(name)
        return [f"let {name}: {ty} = {value};"]
    if form == 2:
        name = rng.choice(scope.assignable[ty])
        if ty in (INT, STRING) and rng.random() < 0.5:
            return [f"{name} += {expr(rng, ty, scope)};"]
        return [f"{name} = {expr(rng, ty, scope)};"]
    if form == 3:
        name = rng.choice(scope.assignable[INTS])
        return [f"{name}.push({expr(rng, INT, scope)});"]
    if form == 4:
        return [f"return {expr(rng, ret, scope)};"] if rng.randint(0, 4) == 0 else []
    if form <= 6:
        cond = expr(rng, BOOL, scope)
        then = _nested(rng, scope, ret, depth)
        out = [f"if ({cond}) {{", *then, "}"]
        if rng.random() < 0.5:
            out[-1] = "} else {"
            out += [*_nested(rng, scope, ret, depth), "}"]
        return out
    if form <= 8:
        inner = scope.child(loop=True)
        var = inner.fresh("x")
        source = rng.choice(("xs", "words"))
        inner.names[INT if source == "xs" else STRING].append(var)
        body = block(rng, inner, ret, depth - 1, 3)
        scope.adopt_counter(inner)
        return [f"for (let {var} in {source}) {{", *("  " + line for line in body), "}"]
    counter = scope.fresh("i")
    inner = scope.child(loop=True)
    inner.names[INT].append(counter)
    body = block(rng, inner, ret, depth - 1, 3)
    scope.adopt_counter(inner)
    bound = rng.randint(0, 4)
    return [f"let {counter} = 0;", f"while ({counter} < {bound}) {{", f"  {counter} += 1;",
            *("  " + line for line in body), "}"]


def _nested(rng: random.Random, scope: Scope, ret: str, depth: int) -> list[str]:
    inner = scope.child()
    body = block(rng, inner, ret, depth - 1, 3)
    scope.adopt_counter(inner)
    return ["  " + line for line in body]


def function(rng: random.Random, name: str) -> str:
    ret = rng.choice(RETURNS)
    scope = initial_scope()
    body = block(rng, scope, ret, 2, 5)
    tail = expr(rng, ret, scope)
    params = ", ".join(f"{n}: {t}" for n, t in PARAMS)
    lines = [f"function {name}({params}) -> {ret} {{", *("  " + line for line in body), f"  {tail}", "}"]
    return "\n".join(lines)


ARGUMENTS = (
    {"a": 3, "b": 0, "s": "Hello, world", "t": "o", "xs": [1, 2, 3], "words": ["a", "b"], "flag": True},
    {"a": -7, "b": 2, "s": "", "t": "", "xs": [], "words": [], "flag": False},
    {"a": 4611686018427387903, "b": -1, "s": " x,y ", "t": ",", "xs": [5, -5, 4611686018427387903],
     "words": ["x", ""], "flag": True},
    {"a": 0, "b": 5, "s": "42", "t": "4", "xs": [0, 0, 7, 1, 2], "words": ["42", "é"], "flag": False},
)
