"""The random rounds' inputs: fresh values from the program's dictionary of literals, and
fuzzer mutations of inputs the search kept (`Explorer.random_assignment` decides which).

Both read the variables' sorts and bounds from the `InputSpace` (a bounded int, a length or
a union's tag, stays in its range) and draw every value from the `Dictionary`; the one random
generator is the explorer's, so the same seed gives the same inputs.
"""

from __future__ import annotations

import random
from typing import Any

from ingot.concolic.inputs import InputSpace
from ingot.concolic.literals import Dictionary
from ingot.symbolic.expr import Sort


def mutated(rng: random.Random, words: Dictionary, space: InputSpace, base: dict[str, Any],
            corpus: list[dict[str, Any]], max_string_length: int, nudge: float = 0.0) -> dict[str, Any]:
    """`base` with one to three of its values mutated (`nudge`: how often a string's mutation
    is one aimed at a panic site, `Dictionary.aimed_moves`)."""
    out = dict(base)
    names = sorted(space.sorts)
    for _ in range(rng.choice((1, 1, 2, 3))):
        name = rng.choice(names)
        sort, value = space.sorts[name], out.get(name)
        if name in space.bounds:
            low, high = space.bounds[name]
            out[name] = rng.randint(low, high)
        elif sort is Sort.STRING:
            others = [v for k, v in out.items() if k != name and isinstance(v, str) and v]
            splices = [v for v in (rng.choice(corpus).get(name) for _ in range(2) if corpus)
                       if isinstance(v, str) and v]  # AFL's splicing: this input's value joined to another's
            out[name] = words.mutate_string(rng, value if isinstance(value, str) else "",
                                            max_string_length, others, nudge, splices)
        elif sort is Sort.INT:
            same = [v for k, v in out.items() if k != name and space.sorts.get(k) is Sort.INT
                    and k not in space.bounds]
            if same and rng.random() < 0.2:
                out[name] = rng.choice(same)  # equal elements, a count matching a value
            else:
                out[name] = words.mutate_int(rng, value if isinstance(value, int) else 0)
        elif sort is Sort.BOOL:
            out[name] = not value
        else:
            out[name] = words.float_value(rng)
    return out


def fresh_assignment(rng: random.Random, words: Dictionary, space: InputSpace, max_string_length: int) -> dict[str, Any]:
    """A value for every variable seen so far, from the dictionary (bounded ints in their range)."""
    out: dict[str, Any] = {}
    for name, sort in sorted(space.sorts.items()):
        if name in space.bounds:
            low, high = space.bounds[name]
            out[name] = rng.randint(low, high)
        elif sort is Sort.INT:
            out[name] = words.int_value(rng)
        elif sort is Sort.FLOAT:
            out[name] = words.float_value(rng)
        elif sort is Sort.BOOL:
            out[name] = rng.random() < 0.5
        else:
            out[name] = words.string_value(rng, max_string_length)
    return out
