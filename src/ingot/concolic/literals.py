"""The program's own constants as a fuzzing dictionary, and the places it can panic.

Random rounds (when the solver has nothing left to negate, and in turns between its
children) draw values from the literals of the functions an exploration reaches, as
fuzzers do with their dictionaries: strings, their halves, the separators the program splits on
(single characters), neighbouring literals joined by them (`"mode=batch"`)
and numbers written in the program, each ±1, as ints and as the strings
`int.parse` reads. Strings are built by joining a few such
tokens with a separator, so `"a=1&sort"` comes out of `"="`, `"&"` and
`"sort"`. Mutations aimed at a panic site (`ingot.concolic.aiming`) also move
the numbers written in an input and give a key the input holds a value that
may panic (`settings`: "per=0"). `panic_sites` lists the instructions that can
panic by construction (division, remainder, indexing, `assert.*`,
`baml.sys.panic`), the ones the search aims at.
"""

from __future__ import annotations

import functools
import itertools
import random
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ingot.bex.api import BexProgram, Op
from ingot.runtime.values import INT_MAX, INT_MIN
from ingot.symbolic.expr import Sort
from ingot.symbolic.runtime import is_panic_site

DIGIT_RUN = re.compile(r"-?\d{1,18}")
EDGE_INTS = (0, 1, -1, 2, INT_MAX, INT_MIN, INT_MAX // 2 + 1)
COMPARED_SHARE = 0.25  # of the string mutations where a compared string occurs (`replace_compared`)


@dataclass
class Dictionary:
    strings: list[str] = field(default_factory=list)  # whole literals and their halves
    separators: list[str] = field(default_factory=list)  # one-character literals (and " ")
    ints: list[int] = field(default_factory=list)
    floats: list[float] = field(default_factory=list)
    # literal keys with a number as their value ("per=0"), for the mutations aimed at panic sites:
    # a parsed setting whose value decides a division or an index
    settings: dict[str, list[str]] = field(default_factory=dict)  # key literal -> "key=0", "key:-1", ...
    # for map inputs (`entries`): the program's literals a lookup may use as keys, and the values
    # that may panic once read (0, -1, its own counts), as numbers
    keys: list[str] = field(default_factory=list)
    counts: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, program: BexProgram, functions: Iterable[str]) -> Dictionary:
        keys = program.builtin_keys
        strings: dict[str, None] = {}
        settings: dict[str, dict[str, None]] = {}
        lookups: dict[str, None] = {}
        counts: dict[int, None] = {}
        separators: dict[str, None] = {" ": None}
        ints: dict[int, None] = dict.fromkeys(EDGE_INTS)
        floats: dict[float, None] = dict.fromkeys((0.0, 0.5, -1.0))
        for name in functions:
            fn = program.by_name.get(name)
            if fn is None:
                continue
            for c in fn.consts:
                if isinstance(c, bool):
                    continue
                if isinstance(c, str):
                    if len(c) == 1:
                        separators[c] = None
                    strings[c] = None
                    if len(c) >= 4:
                        strings[c[: len(c) // 2]] = None
                        strings[c[len(c) // 2:]] = None
                elif isinstance(c, int):
                    ints.update(dict.fromkeys(v for v in (c - 1, c, c + 1) if INT_MIN <= v <= INT_MAX))
                elif isinstance(c, float):
                    floats.update(dict.fromkeys((c - 0.5, c, c + 0.5)))
            words = [c for c in fn.consts if isinstance(c, str) and len(c) > 1]
            seps = [c for c in fn.consts if isinstance(c, str) and len(c) == 1 and not c.isalnum()]
            near = [(a, b) for i, a in enumerate(words) for b in words[i + 1:i + 4]]
            for first, second in near:
                # literals written next to each other (`cfg["mode"] == "batch"`, within three), as a format
                # the program parses would hold them: "mode=batch"
                strings.update(dict.fromkeys(first + sep + second for sep in seps[:4]))
            # the values that make a division or an index panic: 0, -1, and the program's own counts
            numbers = sorted({0, -1} | {c for c in fn.consts if type(c) is int and 0 < c < 1000})[:5]
            lookups.update(dict.fromkeys(words))
            counts.update(dict.fromkeys(numbers))
            for word in words if seps else ():
                settings.setdefault(word, {}).update(dict.fromkeys(word + sep + str(n) for sep in seps[:3] for n in numbers))
            if any(keys[arg[0]].endswith(".lines") for op, arg in fn.code if op == Op.CALL_BUILTIN):
                separators["\n"] = None  # `lines()` splits on a character no literal spells
        for n in list(ints)[:40]:
            if abs(n) < 10**18:
                strings[str(n)] = None
        return cls(sorted(strings), sorted(separators), sorted(ints), sorted(floats),
                   {k: list(v) for k, v in sorted(settings.items())}, sorted(lookups),
                   sorted(counts, key=lambda n: (n != 0, n != -1, n)))  # zero first, as `_zero_first`

    @functools.cached_property
    def literals(self) -> frozenset[str]:
        """The program's own string literals, whole (those of one character are `separators`)."""
        return frozenset(self.keys) | frozenset(self.separators)

    def int_value(self, rng: random.Random) -> int:
        roll = rng.random()
        if roll < 0.5 and self.ints:
            return rng.choice(self.ints)
        if roll < 0.8:
            return rng.randint(-10, 10)
        return rng.randint(-1000, 1000)

    def float_value(self, rng: random.Random) -> float:
        if rng.random() < 0.6 and self.floats:
            return rng.choice(self.floats)
        return rng.uniform(-1000, 1000)

    def mutate_string(self, rng: random.Random, s: str, max_length: int, others: list[str] | None = None,
                      nudge: float = 0.0, splices: list[str] | None = None,
                      compares: Iterable[tuple[str, str]] = ()) -> str:
        """One fuzzer mutation of `s`: a dictionary token (or a run of digits) appended after a
        separator, prepended, inserted or substituted for a range or for what follows a
        separator (a quarter of the time the token is one of `splices`, the same input's values in
        other corpus entries: AFL's splicing joins "-1 fee" and "x\ny"); a cut; the string doubled,
        grown to one of the program's numbers by a character repeated (`grow`), or
        one of its parts repeated or dropped; a one-character literal swapped for another; or another
        input's value copied (a map key that should equal a looked-up item). Mutations aimed at a
        panic site (`nudge` > 0) are, with that probability, one of the `aimed_moves` that apply
        to `s`; otherwise, when a string a run compared (`compares`) occurs in `s`, now and then
        an input-to-state replacement (`replace_compared`)."""
        moves = self.aimed_moves(s, max_length) if nudge else []
        if moves and rng.random() < nudge:
            # one of the moves that apply, each as likely: a cascade of chances starved the last ones
            return rng.choice(moves)(rng, s)[:max_length]
        found = compared_in(s, compares)
        if found and rng.random() < COMPARED_SHARE:
            return replace_compared(rng, s, found)[:max_length]
        token = rng.choice(splices) if splices and rng.random() < 0.25 else self.token(rng)
        sep = rng.choice(self.separators) if self.separators and rng.random() < 0.7 else ""
        roll = rng.random()
        if roll < 0.1 and others:
            out = rng.choice(others)
        elif roll < 0.3 and self.settings and rng.random() < 0.4:
            out = s + self.between(rng, sep) + self.record(rng) if s else self.record(rng)
        elif roll < 0.3:
            out = s + sep + token
        elif roll < 0.4:
            out = token + sep + s
        elif roll < 0.5:
            at = rng.randint(0, len(s))
            out = s[:at] + token + s[at:]
        elif roll < 0.62 and s:
            a = rng.randint(0, len(s) - 1)
            out = s[:a] + token + s[rng.randint(a + 1, min(len(s), a + 8)):]
        elif roll < 0.77 and any(c in s for c in self.separators):
            cuts = [i for i, c in enumerate(s) if c in self.separators]
            at = rng.choice(cuts)
            out = s[: at + 1] + token
        elif roll < 0.8 and s:
            out = s + sep + s
        elif roll < 0.84 and s and (lengths := self.longer_lengths(len(s), max_length)):
            out = self.grow(rng, s, lengths)
        elif roll < 0.9 and any(c in s for c in self.separators):
            out = self.repeat_segment(rng, s)
        elif roll < 0.95 and len(self.separators) > 1 and any(c in s for c in self.separators):
            # one of the program's one-character literals for another: "+2 fee" -> "-2 fee"
            at = rng.choice([i for i, c in enumerate(s) if c in self.separators])
            out = s[:at] + rng.choice([c for c in self.separators if c != s[at]]) + s[at + 1:]
        elif s:
            a = rng.randint(0, len(s) - 1)
            out = s[:a] + s[rng.randint(a + 1, len(s)):]
        else:
            out = token
        return out[:max_length]

    def aimed_moves(self, s: str, max_length: int | None = None) -> list[Callable[[random.Random, str], str]]:
        """The mutations aimed at a panic site that apply to `s`: drop a separator (a count of
        fields or spaces steps down), move a number written in it (AFL's arithmetic on text: a
        parsed count or divisor steps to 0, an amount changes sign), give a key it holds a
        value that may panic, or add a key it lacks with such a value."""
        moves: list[Callable[[random.Random, str], str]] = []
        if any(c in self.separators and not c.isalnum() for c in s):
            moves.append(self.drop_separator)
        if DIGIT_RUN.search(s):
            moves.append(self.move_number)
        if any(values and k in s for k, values in self.settings.items()):
            moves.append(self.revalue_key)
        if any(k not in s for k in self.settings):
            moves.append(functools.partial(self.add_setting, max_length=max_length))
        return moves

    def drop_separator(self, rng: random.Random, s: str) -> str:
        at = rng.choice([i for i, c in enumerate(s) if c in self.separators and not c.isalnum()])
        return s[:at] + s[at + 1:]

    def longer_lengths(self, length: int, max_length: int) -> list[int]:
        """The program's numbers (each ±1) that a string of `length` could grow to."""
        return [n for n in self.ints if length < n <= max_length]

    @staticmethod
    def grow(rng: random.Random, s: str, lengths: list[int]) -> str:
        """`s` grown to one of `lengths` (`longer_lengths`: those the program compares with,
        "digits.length() < 12"), by one of its characters repeated where it stands: "4-22" ->
        "4-2222222222". A count the program keeps in a loop (digits seen, fields read) steps up
        by one per generation of the search, since each run's path fixes its number of
        iterations; this jumps to the bound."""
        target = rng.choice(lengths)
        at = rng.randrange(len(s))
        return s[:at] + s[at] * (target - len(s)) + s[at:]

    def fewer_parts(self, s: str, limit: int | None = None) -> list[str]:
        """Every `s` with one item fewer (the first `limit`), as AFL's deterministic stage deletes
        each block in turn: one non-empty field dropped with its separator ("/a/../x/" ->
        "/a/../"), for each of the program's separators `s` holds (the most frequent first: the
        one that parts its records), then one separator dropped ("a,b" -> "ab")."""
        seps = sorted({c for c in s if c in self.separators and not c.isalnum()}, key=lambda c: (-s.count(c), c))
        return _first_distinct(self._fewer(s, seps), s, len(s), limit)

    @staticmethod
    def _fewer(s: str, seps: list[str]) -> Iterator[str]:
        for sep in seps:
            parts = s.split(sep)
            for i, p in enumerate(parts):
                if p:
                    yield sep.join(parts[:i] + parts[i + 1:])
        for at, c in enumerate(s):
            if c in seps:
                yield s[:at] + s[at + 1:]

    def with_settings(self, s: str, max_length: int, limit: int) -> list[str]:
        """The first `limit` of every `s` with one setting written into it, as AFL's deterministic
        stage writes each dictionary token in turn: each key `s` holds given each of its values that
        may panic (at its first occurrence, `revalue_key`), each key it lacks added as one more
        record (`add_setting`; where that would not fit, in place of each record that holds none of
        the program's keys or only keys a record before it holds, the other such records making
        room; or of any record when none is such). Keys take turns, each key's values zero first,
        so the first few variants try every key: `mode=batch\\nretries=3` -> `...\\nworkers=0` early.
        Built lazily: a long input at a large `--max-string-length` has thousands of records."""
        between = self.record_separator(s)
        records = _Records(s, between, self.settings)
        per_key = []
        for key in sorted(self.settings):
            values = sorted(self.settings[key], key=functools.partial(_zero_first, len(key)))
            at = _word_at(s, key)
            per_key.append(self._revalued(s, key, at, values) if at >= 0 else records.added_each(values, max_length))
        return _first_distinct(itertools.chain.from_iterable(itertools.zip_longest(*per_key)), s, max_length, limit)

    def _revalued(self, s: str, key: str, at: int, settings: list[str]) -> Iterator[str]:
        """`s` with the key at `at` given each of `settings` (`with_settings`)."""
        for setting in settings:
            yield s[:at] + setting + s[self.value_end(s, at + len(key), setting[len(key)]):]

    def entries(self, sort: Sort, held: Iterable[str], limit: int) -> list[tuple[str, Any]]:
        """The first `limit` (key, value) pairs to write into a map whose values are of `sort` and
        which holds the keys `held`: each of the program's literals it lacks, with each value that
        may panic once read (a count, zero first; for strings also as digits, then the literals:
        "pinned" = "true"). Keys take turns, as in `with_settings`."""
        if sort is Sort.INT:
            values: list[Any] = list(self.counts)
        elif sort is Sort.STRING:
            values = [str(n) for n in self.counts] + self.keys
        else:
            return []  # (floats and booleans: the random rounds' values do)
        have = set(held)
        missing = [k for k in self.keys if k not in have]
        turns = itertools.product(values, missing)  # value-major: the keys take turns
        return [(k, v) for v, k in itertools.islice(turns, limit)]

    def record_separator(self, s: str) -> str:
        """What parts the records of `s`: a line break when the program reads lines, else the
        program's separator `s` holds most often ("" when it holds none)."""
        if "\n" in self.separators:
            return "\n"
        held = [c for c in self.separators if c in s and not c.isalnum()]
        return max(held, key=s.count, default="")

    @staticmethod
    def move_number(rng: random.Random, s: str) -> str:
        m = rng.choice(list(DIGIT_RUN.finditer(s)))
        n = int(m.group())
        moved = rng.choice((0, 0, n - 1, n + 1, -n))
        start = m.start() - (moved < 0 and s[m.start() - 1:m.start()] == "+")  # "+2" -> "-2"
        return s[:start] + str(moved) + s[m.end():]

    def revalue_key(self, rng: random.Random, s: str) -> str:
        # a key the input already holds gets a value that may panic: "per&sort" -> "per=0&sort"
        key = rng.choice([k for k, values in self.settings.items() if values and k in s])
        at = rng.choice([i for i in range(len(s)) if s.startswith(key, i)])
        setting = rng.choice(self.settings[key])
        return s[:at] + setting + s[self.value_end(s, at + len(key), setting[len(key)]):]

    def add_setting(self, rng: random.Random, s: str, max_length: int | None = None) -> str:
        # a key the input lacks comes with such a value, as one more record ("retries=3" -> "retries=3\nworkers=0");
        # an input at its length limit has one of its records replaced by it instead: appended, the
        # setting would be cut off ("mode=batch\nretries=-1\nper_worker" is 32 characters)
        setting = rng.choice(self.settings[rng.choice([k for k in self.settings if k not in s])])
        if not s:
            return setting
        between = self.between(rng, "")
        out = s + between + setting
        if max_length is not None and len(out) > max_length and between in s:
            records = s.split(between)
            records[rng.randrange(len(records))] = setting
            out = between.join(records)
        return out

    def value_end(self, s: str, at: int, sep: str) -> int:
        """Where the value a key at `at` holds in `s` ends, when the key is followed by its
        separator `sep`: when the program reads lines, at the end of the line ("workers=1#0" is
        one setting); otherwise at the next of the program's other separators ("per=x1&sort":
        the "&" that parts records). Without `sep` after the key, or without other separators,
        `at` (where one separator also parts records, "per&x", what follows may be the next
        record)."""
        if sep == "\n" or not s.startswith(sep, at):
            return at
        if "\n" in self.separators:
            ends: Iterable[str] = ("\n",)
        else:
            ends = [c for c in self.separators if c not in (sep, " ") and not c.isalnum()]
            if not ends:
                return at
        found = [i for i in (s.find(c, at + 1) for c in ends) if i >= 0]
        return min(found, default=len(s))

    def between(self, rng: random.Random, sep: str) -> str:
        """What goes before one more record of what the program parses: a line break when it
        reads lines, else `sep` or one of its separators."""
        return "\n" if "\n" in self.separators else sep or rng.choice(self.separators or [" "])

    def record(self, rng: random.Random) -> str:
        """One of the program's keys with a value after one of its separators ("workers=0"): a
        setting, appended after a separator as one more line or field of what the program parses."""
        return rng.choice(self.settings[rng.choice(sorted(self.settings))])

    @staticmethod
    def pick(rng: random.Random, corpus: list[Any], firsts: list[Any]) -> Any:
        """An input of the corpus to mutate: half the time one of the last three that covered an
        edge first or found a bug (the search's frontier: records are added to them one at a
        time; inputs kept for a new hit count are many and would crowd it out), else any."""
        return rng.choice(firsts[-3:] if firsts and rng.random() < 0.5 else corpus)

    def repeat_segment(self, rng: random.Random, s: str) -> str:
        """`s` with one of its parts (between separators it holds) repeated once or twice, or
        dropped: "/api/../x" -> "/api/../../x", "-2 fee\nx" -> "-2 fee\nx\nx", "/a/../b/" ->
        "/a/../". A program that counts parts (`..` climbing a path, rejected lines) branches on
        how many there are, a count no query can aim at."""
        sep = rng.choice([c for c in self.separators if c in s])
        parts = s.split(sep)
        at = rng.randrange(len(parts))
        parts[at:at + 1] = [parts[at]] * rng.choice((0, 2, 3))
        return sep.join(parts)

    def token(self, rng: random.Random) -> str:
        roll = rng.random()
        if roll < 0.7 and self.strings:
            return rng.choice(self.strings)
        if roll < 0.85:
            return "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 20)))
        return rng.choice(self.separators or [" "])

    def mutate_int(self, rng: random.Random, n: int) -> int:
        roll = rng.random()
        if roll < 0.5 and self.ints:
            return rng.choice(self.ints)
        out = n + rng.choice((-1, 1, -2, 2, 10, -10))
        return max(INT_MIN, min(INT_MAX, out))

    def string_value(self, rng: random.Random, max_length: int) -> str:
        """A few dictionary tokens joined by a separator, sometimes padded with spaces."""
        roll = rng.random()
        if roll < 0.1 or not self.strings:
            return "".join(rng.choice("abcxyzAB 01-") for _ in range(rng.randint(0, 8)))
        if roll < 0.35:
            return rng.choice(self.strings)[:max_length]
        sep = rng.choice(self.separators) if rng.random() < 0.8 else ""
        tokens = [rng.choice(self.strings) if rng.random() < 0.85 else rng.choice("abxyz")
                  for _ in range(rng.randint(2, 3))]
        text = sep.join(tokens)
        if rng.random() < 0.15:
            text = rng.choice((" ", "  ")) + text + " "
        return text[:max_length]


class _Records:
    """The records of a string (`with_settings`), and which of them may give way to a setting,
    found once and only when a setting does not fit beside them."""

    def __init__(self, s: str, between: str, settings: dict[str, list[str]]) -> None:
        self.s, self.between, self.settings = s, between, settings
        self._parts: tuple[list[str], list[int]] | None = None

    def added_each(self, settings: list[str], max_length: int) -> Iterator[str]:
        for setting in settings:
            yield from self.added(setting, max_length)

    def added(self, setting: str, max_length: int) -> Iterator[str]:
        """`s` with `setting` as one more record, or in place of one."""
        s, between = self.s, self.between
        if not s:
            yield setting
            return
        if len(s) + len(between) + len(setting) <= max_length or not between or between not in s:
            yield s + between + setting
            return
        records, spare = self.parts()
        for i in spare or range(len(records)):
            placed = dict(enumerate(records))
            placed[i] = setting
            # the other spare records make room, the last first: "workers=0" in place of the "A"
            # of a 31-character "mode=batch\nretries=1\nA\nmode#xyz" takes "mode#xyz" out too
            for j in reversed(spare):
                if len(between.join(placed.values())) <= max_length:
                    break
                if j != i:
                    del placed[j]
            yield between.join(placed.values())

    def parts(self) -> tuple[list[str], list[int]]:
        """The records, and those holding none of the program's keys or only keys held before."""
        if self._parts is None:
            records = self.s.split(self.between)
            spare: list[int] = []
            held: set[str] = set()
            for i, r in enumerate(records):
                keys = {k for k in self.settings if _word_at(r, k) >= 0}
                if keys <= held:
                    spare.append(i)
                held |= keys
            self._parts = records, spare
        return self._parts


def compared_in(s: str, compares: Iterable[tuple[str, str]]) -> list[tuple[int, str, str]]:
    """The comparisons (seen, wanted) whose seen string occurs in `s`, with where: exactly, or
    (for a string the program lower-cased before comparing) in `s` lower-cased, where that keeps
    the positions. Ordered as `compares` (oldest first), so the same table gives the same list."""
    lowered = s.lower() if any(c.isupper() for c in s) else s
    folds = len(lowered) == len(s)
    out = []
    for seen, wanted in compares:
        if not seen:
            continue
        at = s.find(seen)
        if at < 0 and folds and lowered is not s:
            at = lowered.find(seen)
        if at >= 0:
            out.append((at, seen, wanted))
    return out


def replace_compared(rng: random.Random, s: str, found: list[tuple[int, str, str]]) -> str:
    """Input-to-state correspondence (REDQUEEN; libFuzzer's table of recent compares): a string
    the program compared with another (a literal, most often), found verbatim in its input,
    replaced there by the other. `payload == "[DONE]"` over a field cut from a stream whose
    `lines()` the search could not model: the field's text is in the stream, and the stream with
    "[DONE]" in its place takes the other edge. Which occurrence is replaced is drawn (the first
    found, half the time)."""
    at, seen, wanted = rng.choice(found)
    if rng.random() < 0.5:
        lowered = s.lower()
        lowered = lowered if len(lowered) == len(s) else s
        starts = [i for i in range(len(s)) if s.startswith(seen, i) or lowered.startswith(seen, i)]
        at = rng.choice(starts) if starts else at
    return s[:at] + wanted + s[at + len(seen):]


def _first_distinct(candidates: Iterable[str | None], s: str, max_length: int, limit: int | None) -> list[str]:
    """The first `limit` (None: all) distinct candidates other than `s` and within `max_length`:
    the variants a deterministic stage builds lazily, a long input having thousands."""
    out: dict[str, None] = {}
    for v in candidates:
        if v is not None and v != s and len(v) <= max_length:
            out[v] = None
            if limit is not None and len(out) >= limit:
                break
    return list(out)


def _word_at(s: str, word: str) -> int:
    """Where `word` first starts a word of `s` (not inside one: "workers" is not held by
    "rworkers=1"), or -1."""
    at = s.find(word)
    while at > 0 and (s[at - 1].isalnum() or s[at - 1] == "_"):
        at = s.find(word, at + 1)
    return at


def _zero_first(key_length: int, setting: str) -> tuple[bool, bool, str]:
    """The order a key's settings are tried in, by their value (past the key and its separator):
    0 (a divisor, a count), then -1 (an index), then the rest."""
    value = setting[key_length + 1:]
    return value != "0", value != "-1", value


def panic_sites(program: BexProgram, functions: Iterable[str]) -> set[tuple[str, int]]:
    """(function, pc) of every instruction that panics by construction when its operands say so
    (`is_panic_site`: the instructions the trackers note in `RunTrace.reached`)."""
    out: set[tuple[str, int]] = set()
    for name in functions:
        fn = program.by_name.get(name)
        if fn is None:
            continue
        out.update((name, pc) for pc, (op, arg) in enumerate(fn.code) if is_panic_site(op, arg, program.builtin_keys))
    return out
