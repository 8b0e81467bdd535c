"""Regenerate `src/ingot/runtime/_unicode.py` from the real BAML engine.

    PYTHONPATH=src python tests/runtime/gen_unicode_tables.py

The engine's string predicates (`is_alphabetic`, `is_uppercase`, ...), its case
mapping and the escaping of strings rendered inside containers follow Rust's
Unicode tables, whose version differs from the `unicodedata` of the running
Python. Asking the engine for every code point gives tables that agree with it
exactly. Needs `baml_bridge==0.23.0`; takes about half a minute.
"""

from __future__ import annotations

import pathlib
import subprocess
import unicodedata

import baml_bridge as b

SRC = r"""
function Flags(start: int, end: int) -> string {
  let cps: int[] = [];
  for (let i = start; i < end; i += 1) {
    if (i < 55296 || i > 57343) { cps.push(i); }
  }
  let s = string.from_code_points(cps);
  let out: string[] = [];
  for (let c in s.chars()) {
    let f = 0;
    if (c.is_alphabetic()) { f = f | 1; }
    if (c.is_numeric()) { f = f | 2; }
    if (c.is_uppercase()) { f = f | 4; }
    if (c.is_lowercase()) { f = f | 8; }
    if (c.is_whitespace()) { f = f | 16; }
    if (c.is_alphanumeric()) { f = f | 32; }
    if (c.is_control()) { f = f | 64; }
    if (c.is_graphic()) { f = f | 128; }
    if (string.from([c]) != "[\"" + c + "\"]") { f = f | 256; }
    out.push(string.from(f));
  }
  out.join(",")
}
function Cases(start: int, end: int) -> string[] {
  let cps: int[] = [];
  for (let i = start; i < end; i += 1) {
    if (i < 55296 || i > 57343) { cps.push(i); }
  }
  let s = string.from_code_points(cps);
  let out: string[] = [];
  for (let c in s.chars()) {
    let u = c.to_upper_case();
    let l = c.to_lower_case();
    if (u != c || l != c) {
      out.push(c);
      out.push(u);
      out.push(l);
    }
  }
  out
}
"""

NAMES = [
    "ALPHABETIC",
    "NUMERIC",
    "UPPERCASE",
    "LOWERCASE",
    "WHITESPACE",
    "ALPHANUMERIC",
    "CONTROL",
    "GRAPHIC",
    "DEBUG_ESCAPED",
]
CHUNK = 1 << 16
LIMIT = 0x110000


def code_points() -> list[int]:
    return [c for c in range(LIMIT) if not 0xD800 <= c <= 0xDFFF]


def ranges(members: list[int]) -> list[tuple[int, int]]:
    """Sorted code points -> inclusive (start, end) runs; surrogates bridge runs."""
    out: list[tuple[int, int]] = []
    for c in members:
        if out and (out[-1][1] + 1 == c or (out[-1][1] == 0xD7FF and c == 0xE000)):
            out[-1] = (out[-1][0], c)
        else:
            out.append((c, c))
    return out


def encode(rs: list[tuple[int, int]]) -> str:
    """Runs as a compact delta string: 'gap+len' pairs in base 36, comma separated."""
    parts = []
    prev = 0
    for s, e in rs:
        parts.append(f"{_b36(s - prev)}+{_b36(e - s)}")
        prev = e + 1
    return ",".join(parts)


def _b36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if n == 0:
        return "0"
    s = ""
    while n:
        n, r = divmod(n, 36)
        s = digits[r] + s
    return s


def main() -> None:
    rt = b.BamlRuntime.initialize_runtime(".", {"main.baml": SRC})
    flags: list[int] = []
    cases: list[str] = []
    for start in range(0, LIMIT, CHUNK):
        end = min(start + CHUNK, LIMIT)
        flags += [
            int(x)
            for x in b.call_function_sync(rt, "Flags", {"start": start, "end": end})
            .result()
            .split(",")
        ]
        cases += b.call_function_sync(rt, "Cases", {"start": start, "end": end}).result()
    cps = code_points()
    assert len(flags) == len(cps), (len(flags), len(cps))
    tables = {}
    for bit, name in enumerate(NAMES):
        tables[name] = ranges([c for c, f in zip(cps, flags) if f >> bit & 1])
    upper_exc: dict[int, str] = {}
    lower_exc: dict[int, str] = {}
    mapped = set()
    for i in range(0, len(cases), 3):
        c, u, lo = cases[i : i + 3]
        mapped.add(c)
        if c.upper() != u:
            upper_exc[ord(c)] = u
        if c.lower() != lo:
            lower_exc[ord(c)] = lo
    for c in map(chr, cps):
        if c not in mapped:
            if c.upper() != c:
                upper_exc[ord(c)] = c
            if c.lower() != c:
                lower_exc[ord(c)] = c
    lines = [
        '"""Unicode tables of the BAML engine (generated: do not edit).',
        "",
        "Regenerate with `tests/runtime/gen_unicode_tables.py`, which asks the engine",
        "about every code point. The engine's Unicode version is newer than the",
        f"`unicodedata` this was generated beside ({unicodedata.unidata_version}); the *_EXCEPTIONS maps",
        "hold the code points whose single-character case mapping differs from Python's.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from bisect import bisect_right",
        "",
        "",
        "class CharSet:",
        '    """A set of code points stored as sorted runs; `"a" in s` tests one character."""',
        "",
        '    __slots__ = ("starts", "ends")',
        "",
        "    def __init__(self, encoded: str) -> None:",
        "        # `gap+length` pairs in base 36: a run starts `gap` after the previous run ends.",
        "        starts: list[int] = []",
        "        ends: list[int] = []",
        "        prev = 0",
        '        for pair in encoded.split(","):',
        '            gap, length = pair.split("+")',
        "            start = prev + int(gap, 36)",
        "            end = start + int(length, 36)",
        "            starts.append(start)",
        "            ends.append(end)",
        "            prev = end + 1",
        "        self.starts = starts",
        "        self.ends = ends",
        "",
        "    def __contains__(self, char: str) -> bool:",
        "        cp = ord(char)",
        "        i = bisect_right(self.starts, cp) - 1",
        "        return i >= 0 and cp <= self.ends[i]",
        "",
        "",
    ]
    for name in NAMES:
        lines.append(f'{name} = CharSet(\n    "{encode(tables[name])}"\n)')
    lines.append(f"UPPER_EXCEPTIONS: dict[int, str] = {upper_exc!r}")
    lines.append(f"LOWER_EXCEPTIONS: dict[int, str] = {lower_exc!r}")
    out = pathlib.Path(__file__).resolve().parents[2] / "src" / "ingot" / "runtime" / "_unicode.py"
    out.write_text("\n".join(lines) + "\n")
    subprocess.run(["ruff", "format", str(out)], check=False)
    for name in NAMES:
        print(name, len(tables[name]), "runs")
    print("upper exceptions", len(upper_exc), "lower exceptions", len(lower_exc))


if __name__ == "__main__":
    main()
