"""Regenerate the extra conformance corpus from the real BAML engine (pip install baml_bridge==0.23.0).

Same format as every corpus here (see ../README.md); ../record.py re-records the results:

NAME.json: {"function": F, "cases": [{"args": {...}, "expect": value} | {"args": {...}, "error": Class}]}
where Class is the short name of the class of the value that escaped the function:
a panic (baml.panics.DivisionByZero -> "DivisionByZero"), a thrown stdlib error
(baml.errors.ParseError -> "ParseError") or a thrown user class (user.Bad -> "Bad").
invalid/NAME.baml must be rejected by the compiler; invalid/NAME.error holds the engine's message.

Results are plain JSON: class instances are turned into dicts (fields in the order the
engine returns them), enums are variant names, maps are objects. Values JSON cannot
hold (inf, nan, -0.0) are rendered to strings inside the BAML program itself.
Uncaught throws of non-class values (`throw "x"`) have no class name, so the corpus
catches them inside BAML instead of letting them escape.

Run: python tests/conformance/extra/make.py [NAME ... | valid | invalid]
(prints one line per program; a program the engine rejects, or an invalid program it
accepts, is reported and not written; exit status 1 if any was). Compiling costs the
engine a few seconds per program, so a full run takes several minutes.
"""
import json
import math
import pathlib
import re
import sys

import baml_bridge as b
import pydantic
from baml_bridge.typemap import BamlTypeMap, set_type_map


class _AnyClassMap(BamlTypeMap):
    """Decode any class value (returned or thrown) into a loose pydantic model.

    Without a type map the bridge cannot decode a thrown class such as
    `throw Bad { code: 1 }` or `baml.errors.ParseError`, and reports
    "Unknown class FQN" instead of the error's class name."""
    def get_class(self, fqn):
        try:
            return BamlTypeMap.get_class(self, fqn)
        except BaseException:
            cls = pydantic.create_model(fqn.replace(".", "_"), __config__=pydantic.ConfigDict(extra="allow"))
            self._class_cache[fqn] = cls
            return cls


HERE = pathlib.Path(__file__).parent

PROGRAMS = {
# ---------------------------------------------------------------- loops
"while_break_continue": (r'''
function Collatz(n: int, limit: int) -> int[] {
  let steps = 0;
  let odd = 0;
  let x = n;
  while (x != 1) {
    if (steps >= limit) {
      break;
    }
    steps += 1;
    if (x % 2 == 0) {
      x = x / 2;
      continue;
    }
    odd += 1;
    x = 3 * x + 1;
  }
  [steps, odd, x]
}
''', "Collatz", [{"n": 1, "limit": 100}, {"n": 6, "limit": 100}, {"n": 27, "limit": 10}, {"n": 7, "limit": 1000}]),

"for_c_style": (r'''
function Scan(xs: int[], stop: int) -> int[] {
  let seen = 0;
  let total = 0;
  for (let i = 0; i < xs.length(); i += 1) {
    if (xs[i] < 0) { continue; }
    if (xs[i] == stop) { break; }
    seen += 1;
    total += xs[i] * i;
  }
  let down: int[] = [];
  for (let j = 10; j > 0; j -= 3) {
    down.push(j);
  }
  [seen, total].concat(down)
}
''', "Scan", [{"xs": [], "stop": 0}, {"xs": [1, -2, 3, 4], "stop": 99}, {"xs": [5, 6, 0, 7], "stop": 0}, {"xs": [-1, -1], "stop": -1}]),

"for_in_grow": (r'''
function Expand(xs: int[], cap: int) -> int[] {
  let steps = 0;
  for (let x in xs) {
    steps += 1;
    if (x > 1 && xs.length() < cap) {
      xs.push(x / 2);
      xs.push(x - x / 2);
    }
  }
  [steps].concat(xs)
}
''', "Expand", [{"xs": [4], "cap": 10}, {"xs": [1, 1], "cap": 10}, {"xs": [9, 3], "cap": 5}, {"xs": [], "cap": 3}]),

"for_in_shrink": (r'''
function Drain(xs: int[]) -> int[] {
  let visited: int[] = [];
  for (let x in xs) {
    visited.push(x);
    xs.pop();
  }
  visited.push(-1);
  visited.concat(xs)
}
''', "Drain", [{"xs": [1, 2, 3, 4, 5]}, {"xs": [7]}, {"xs": []}, {"xs": [1, 2]}]),

"loop_var_assign": (r'''
function Bump(xs: int[]) -> int[] {
  let out: int[] = [];
  for (let x in xs) {
    x = x * 10;
    x += 1;
    out.push(x);
  }
  out.concat(xs)
}
''', "Bump", [{"xs": [1, 2]}, {"xs": []}]),

"early_return": (r'''
function FindPair(xs: int[], target: int) -> int[] {
  for (let i = 0; i < xs.length(); i += 1) {
    for (let j = i + 1; j < xs.length(); j += 1) {
      if (xs[i] + xs[j] == target) {
        return [i, j];
      }
    }
  }
  let k = 0;
  while (true) {
    k += 1;
    if (k > 3) { return [-1, k]; }
  }
  [0]
}
''', "FindPair", [{"xs": [1, 4, 6, 9], "target": 10}, {"xs": [1, 2], "target": 7}, {"xs": [5, 5], "target": 10}]),

"nested_break": (r'''
function Grid(n: int) -> string {
  let out = "";
  for (let i = 0; i < n; i += 1) {
    let j = 0;
    while (true) {
      if (j > i) { break; }
      if ((i + j) % 2 == 1) { j += 1; continue; }
      out += `${i}${j} `;
      j += 1;
    }
    if (i == 3) { break; }
  }
  out.trim()
}
''', "Grid", [{"n": 0}, {"n": 2}, {"n": 10}]),

# ---------------------------------------------------------------- bindings
"shadowing_scopes": (r'''
function Shadow(x: int) -> int[] {
  let a = x;
  let x = x + 10;
  let inner = {
    let x = x * 2;
    let a = a + 1;
    x + a
  };
  if (x > 0) {
    let x = 0;
    a = a + x;
  }
  let y = 1;
  {
    let y = 100;
    y += 1;
  }
  let x = x + 1;
  [a, x, inner, y]
}
''', "Shadow", [{"x": 1}, {"x": -20}]),

"compound_targets": (r'''
class Acc {
  n int
  tags string[]
}
function Accumulate(words: string[], bonus: int) -> string {
  let a = Acc { n: 0, tags: [] };
  let counts: map<string, int> = {};
  let lens = [0, 0, 0];
  let f = 0.5;
  for (let w in words) {
    a.n += w.length();
    a.tags.push(w);
    if (!counts.has(w)) { counts[w] = 0; }
    counts[w] += 1;
    lens[w.length() % 3] += 1;
    f += 1;
  }
  a.n *= bonus;
  lens[-1] -= 1;
  counts["zz"] = 5;
  counts["zz"] %= 3;
  let s = "<";
  s += a.tags.join("+");
  s += ">";
  `${a.n} ${counts} ${lens} ${f} ${s}`
}
''', "Accumulate", [{"words": ["ab", "c", "ab"], "bonus": 2}, {"words": [], "bonus": 3}]),

"param_reassign": (r'''
function Clamp(x: int, lo: int, hi: int) -> int {
  if (x < lo) { x = lo; }
  if (x > hi) { x = hi; }
  x
}
function Use(x: int) -> int[] {
  [Clamp(x, 0, 10), Clamp(x, lo = 0, hi = 10), x]
}
''', "Use", [{"x": -5}, {"x": 5}, {"x": 50}]),

# ---------------------------------------------------------------- expressions as values
"if_as_value": (r'''
function Sign(n: int) -> string {
  let s = if (n < 0) { "neg" } else if (n == 0) { "zero" } else { "pos" };
  let big = if n > 100 { true } else { false };
  let k = if (big) { let t = n / 100; t * 2 } else { -1 };
  `${s}/${big}/${k}/${if (n % 2 == 0) { "even" } else { "odd" }}`
}
''', "Sign", [{"n": -3}, {"n": 0}, {"n": 250}, {"n": 7}]),

"match_as_value": (r'''
function Price(item: string, qty: int) -> int {
  let unit = match (item) {
    "apple" => 3,
    "pear" | "plum" => 4,
    _ => 10,
  };
  let discount = match (qty) {
    0 => return 0,
    1 | 2 => 0,
    let q if q >= 10 => unit * q / 10,
    _ => 1,
  };
  unit * qty - discount + match (item.length()) { 4 => 1, _ => 0 }
}
''', "Price", [{"item": "apple", "qty": 1}, {"item": "plum", "qty": 10}, {"item": "kiwi", "qty": 3}, {"item": "pear", "qty": 0}]),

"match_guards": (r'''
function Grade(score: int, bonus: bool) -> string {
  match (score) {
    let s if s < 0 || s > 100 => "invalid",
    100 => "perfect",
    let s if s >= 90 && bonus => "A+",
    let s if s >= 90 => "A",
    80 | 81 | 82 if bonus => "B+",
    let s if s >= 80 => "B",
    _ if bonus => "pass",
    _ => "F",
  }
}
''', "Grade", [{"score": 100, "bonus": False}, {"score": 95, "bonus": True}, {"score": 95, "bonus": False},
                {"score": 81, "bonus": True}, {"score": 81, "bonus": False}, {"score": 10, "bonus": True},
                {"score": 10, "bonus": False}, {"score": -1, "bonus": True}]),

"match_enum": (r'''
enum Suit {
  HEARTS
  DIAMONDS
  CLUBS
  SPADES
}
function SuitOf(n: int) -> Suit {
  match (n % 4) {
    0 => Suit.HEARTS,
    1 => Suit.DIAMONDS,
    2 => Suit.CLUBS,
    _ => Suit.SPADES,
  }
}
function Describe(n: int) -> string {
  let s = SuitOf(n);
  let color = match (s) {
    Suit.HEARTS | Suit.DIAMONDS => "red",
    Suit.CLUBS | Suit.SPADES => "black",
  };
  let first = match (s) {
    Suit.HEARTS => true,
    _ => false,
  };
  `${s} ${color} ${first} ${s == Suit.CLUBS} ${s != Suit.CLUBS}`
}
''', "Describe", [{"n": 0}, {"n": 5}, {"n": 6}, {"n": 7}]),

"enum_results": (r'''
enum Dir {
  NORTH
  EAST
  SOUTH
  WEST
}
function Turn(d: Dir, right: bool) -> Dir {
  match (d) {
    Dir.NORTH => if (right) { Dir.EAST } else { Dir.WEST },
    Dir.EAST => if (right) { Dir.SOUTH } else { Dir.NORTH },
    Dir.SOUTH => if (right) { Dir.WEST } else { Dir.EAST },
    Dir.WEST => if (right) { Dir.NORTH } else { Dir.SOUTH },
  }
}
function Walk(moves: string) -> Dir[] {
  let d: Dir = Dir.NORTH;
  let path: Dir[] = [d];
  for (let c in moves.chars()) {
    d = Turn(d, c == "R");
    path.push(d);
  }
  path
}
''', "Walk", [{"moves": ""}, {"moves": "RRL"}, {"moves": "LLLL"}]),

"match_class_shape": (r'''
class Shape {
  kind string
  size int
}
function Classify(kind: string, size: int) -> string {
  let s = Shape { kind: kind, size: size };
  match (s) {
    Shape { kind: "circle", size: 0 } => "dot",
    Shape { kind: "circle" } => "circle",
    Shape { size: 0 } => "empty",
    Shape { kind: "square", size: 1 } | Shape { kind: "square", size: 2 } => "small square",
    _ => "other",
  }
}
''', "Classify", [{"kind": "circle", "size": 0}, {"kind": "circle", "size": 3}, {"kind": "tri", "size": 0},
                   {"kind": "square", "size": 2}, {"kind": "square", "size": 3}]),

"match_union_classes": (r'''
class Cat {
  name string
  lives int
}
class Dog {
  name string
  good bool
}
type Pet = Cat | Dog | string | int
function Make(kind: int, name: string) -> Pet {
  match (kind) {
    0 => Cat { name: name, lives: 9 },
    1 => Dog { name: name, good: name.length() > 2 },
    2 => name,
    _ => kind,
  }
}
function Speak(kind: int, name: string) -> string {
  let p = Make(kind, name);
  match (p) {
    let c: Cat => `${c.name} meows x${c.lives}`,
    Dog { good: true } => "good dog",
    let d: Dog => `${d.name} growls`,
    string => "a bare name",
    let n: int => `number ${n}`,
  }
}
''', "Speak", [{"kind": 0, "name": "tom"}, {"kind": 1, "name": "rex"}, {"kind": 1, "name": "bo"},
                {"kind": 2, "name": "x"}, {"kind": 7, "name": "x"}]),

"match_array_patterns": (r'''
function Shape(xs: int[]) -> string {
  match (xs) {
    [] => "empty",
    [let a] => `one ${a}`,
    [0, ..let rest] => `zero then ${rest.length()}`,
    [let a, let b] => `pair ${a + b}`,
    [let a, ..let rest] => `head ${a} tail ${rest}`,
  }
}
''', "Shape", [{"xs": []}, {"xs": [4]}, {"xs": [0, 1, 2]}, {"xs": [3, 4]}, {"xs": [5, 6, 7]}, {"xs": [0]}]),

"match_nullable": (r'''
function Show(x: int?, s: string?) -> string {
  let a = match (x) {
    null => "none",
    0 => "zero",
    let n: int => `n=${n}`,
  };
  let b = match (s) {
    null | "" => "blank",
    let t: string => t.to_upper_case(),
  };
  `${a} ${b}`
}
''', "Show", [{"x": None, "s": None}, {"x": 0, "s": ""}, {"x": 5, "s": "hi"}]),

# ---------------------------------------------------------------- type tests and optionals
"if_let": (r'''
function Pick(xs: int[], i: int) -> string {
  if let v: int = xs.at(i) {
    `got ${v}`
  } else {
    "missing"
  }
}
function Both(xs: int[], i: int, j: int) -> string {
  let r = "";
  if let a: int = xs.at(i) {
    if let b: int = xs.at(j) {
      r = `${a + b}`;
    } else {
      r = `only ${a}`;
    }
  }
  `${Pick(xs, i)}|${r}`
}
''', "Both", [{"xs": [1, 2, 3], "i": 0, "j": 2}, {"xs": [1, 2, 3], "i": -1, "j": 9}, {"xs": [], "i": 0, "j": 0}]),

"is_narrowing": (r'''
type Val = int | float | string | bool | null
function Norm(v: Val) -> string {
  if (v is int) {
    return `int ${v * 2}`;
  }
  if (v is float) {
    return `float ${v.floor()}`;
  }
  if (v is string) {
    return `str ${v.length()}`;
  }
  if (v == null) {
    return "null";
  }
  let t = v is bool;
  `bool ${v} ${t} ${!(v is int)}`
}
''', "Norm", [{"v": 21}, {"v": 2.75}, {"v": "abc"}, {"v": True}, {"v": None}]),

"null_chains": (r'''
class Addr {
  city string?
  zip int?
}
class Person {
  name string
  addr Addr?
  boss Person?
}
function Info(name: string, city: string?, boss_city: string?, zip: int?) -> string {
  let boss: Person? = null;
  if (boss_city != null) {
    boss = Person { name: "B", addr: Addr { city: boss_city } };
  }
  let p = Person { name: name, addr: Addr { city: city, zip: zip }, boss: boss };
  let c = p.addr?.city ?? "?";
  let bc = p.boss?.addr?.city ?? p.boss?.name ?? "nobody";
  let bb = p.boss?.boss?.name ?? "none";
  let z = (p.addr?.zip ?? 0) + 1;
  let first: string? = null;
  let pick = first ?? city ?? boss_city ?? "fallback";
  `${c}|${bc}|${bb}|${z}|${pick}`
}
''', "Info", [{"name": "a", "city": None, "boss_city": None, "zip": None},
               {"name": "a", "city": "Paris", "boss_city": "Rome", "zip": 75},
               {"name": "a", "city": None, "boss_city": "Oslo", "zip": 0}]),

"optional_narrowing": (r'''
function Safe(a: int?, b: int?) -> int {
  if (a == null) {
    return -1;
  }
  let s = a * 2;
  if (b != null) {
    s += b;
  }
  let c: int? = if (s > 10) { s } else { null };
  if (c != null && c > 20) {
    return c * 100;
  }
  s
}
''', "Safe", [{"a": None, "b": 3}, {"a": 2, "b": None}, {"a": 5, "b": 3}, {"a": 20, "b": 1}]),

"optional_params": (r'''
function Greet(name: string?, times: int?) -> string {
  let n = name ?? "anon";
  let t = times ?? 1;
  let out: string[] = [];
  for (let i = 0; i < t; i += 1) {
    out.push(n);
  }
  out.join(",")
}
''', "Greet", [{"name": None, "times": None}, {"name": "x", "times": 3}, {"name": "", "times": 0}]),

# ---------------------------------------------------------------- declarations
"const_globals": (r'''
const LIMIT = 3;
const SCALE = 2.5;
const NAME = "k";
const ON = true;
const PRIMES = [2, 3, 5, 7, 11];
const WEIGHTS = {"a": 1, "b": 10};
function Score(word: string) -> string {
  let total = 0;
  for (let c in word.chars()) {
    total += WEIGHTS.get(c) ?? 0;
  }
  let capped = if (total > LIMIT * 5) { LIMIT * 5 } else { total };
  let p = PRIMES[capped % PRIMES.length()];
  `${NAME}${capped}:${p}:${capped * SCALE}:${ON && capped > 0}`
}
''', "Score", [{"word": ""}, {"word": "ab"}, {"word": "bbbb"}, {"word": "zaz"}]),

# A const array is shared and mutable, and its changes persist across calls on one runtime
# (a second call of Twice on the same runtime returns [6, 7, 7]); every case must stand
# alone, so this program has a single case.
"const_shared": (r'''
const TABLE = [1, 2, 3];
function Touch() -> int {
  TABLE.push(4);
  TABLE.length()
}
function Twice() -> int[] {
  let a = Touch();
  let b = Touch();
  [a, b, TABLE.length()]
}
''', "Twice", [{}]),

"type_alias_recursive": (r'''
type Tree = int | Tree[]
type Json = string | int | bool | null | Json[] | map<string, Json>
function Sum(t: Tree) -> int {
  match (t) {
    let n: int => n,
    let xs: Tree[] => xs.map((x: Tree) -> int { Sum(x) }).reduce((a: int, b: int) -> int { a + b }, 0),
  }
}
function Depth(t: Tree) -> int {
  match (t) {
    int => 0,
    let xs: Tree[] => 1 + xs.map(Depth).reduce((a: int, b: int) -> int { if (a > b) { a } else { b } }, 0),
  }
}
function Count(j: Json) -> int {
  match (j) {
    let xs: Json[] => xs.map(Count).reduce((a: int, b: int) -> int { a + b }, 1),
    let m: map<string, Json> => m.values().map(Count).reduce((a: int, b: int) -> int { a + b }, 1),
    _ => 1,
  }
}
function Stats(t: Tree) -> int[] {
  let j: Json = {"a": [1, "x", null], "b": {"c": true}};
  [Sum(t), Depth(t), Count(j)]
}
''', "Stats", [{"t": 5}, {"t": []}, {"t": [1, [2, 3], [[4]]]}]),

"type_alias_simple": (r'''
type Num = int | float
type Names = string[]
type Lookup = map<string, Num>
function Total(xs: Names, l: Lookup) -> string {
  let t: Num = 0;
  let f = 0.0;
  for (let x in xs) {
    let v = l.get(x) ?? 0;
    match (v) {
      let i: int => { f += i * 1.0; },
      let g: float => { f += g; },
    }
  }
  t = f;
  `${t}`
}
''', "Total", [{"xs": ["a", "b", "zz"], "l": {"a": 1, "b": 2.5}}, {"xs": [], "l": {}}]),

"default_params": (r'''
function Box(w: int, h: int = 1, label: string = "box") -> string {
  `${label}:${w * h}`
}
function Run(w: int) -> string[] {
  [Box(w), Box(w, h = 3), Box(w, label = "L"), Box(w, label = "M", h = 2), Box(h = 4, w = w)]
}
''', "Run", [{"w": 2}, {"w": 0}]),

"named_args": (r'''
function Sub(a: int, b: int) -> int {
  a - b
}
function Mix(x: int, y: int) -> int[] {
  [Sub(x, y), Sub(a = x, b = y), Sub(b = x, a = y), Sub(x, b = y)]
}
''', "Mix", [{"x": 10, "y": 3}, {"x": -1, "y": -1}]),

"class_methods_self": (r'''
class Stack {
  items int[]
  pushes int
  function push(self, v: int) -> int {
    self.items.push(v);
    self.pushes += 1;
    self.items.length()
  }
  function pop_or(self, d: int) -> int {
    self.items.pop() ?? d
  }
  function peek(self) -> int? {
    self.items.at(-1)
  }
  function size(self) -> int {
    self.items.length()
  }
  function empty() -> Stack {
    Stack { items: [], pushes: 0 }
  }
  function of(xs: int[]) -> Stack {
    let s = Stack.empty();
    for (let x in xs) { s.push(x); }
    s
  }
}
function Eval(ops: string[]) -> int[] {
  let s = Stack.of([1, 2]);
  for (let op in ops) {
    match (op) {
      "+" => { let a = s.pop_or(0); let b = s.pop_or(0); s.push(a + b); },
      "*" => { let a = s.pop_or(1); let b = s.pop_or(1); s.push(a * b); },
      "dup" => { let t = s.peek() ?? 0; s.push(t); },
      _ => { s.push(int.parse(op)); },
    }
  }
  [s.pop_or(-1), s.size(), s.pushes]
}
''', "Eval", [{"ops": []}, {"ops": ["+"]}, {"ops": ["3", "*", "dup", "+"]}, {"ops": ["x"]}]),

"class_method_chain": (r'''
class Vec {
  x int
  y int
  function add(self, o: Vec) -> Vec {
    Vec { x: self.x + o.x, y: self.y + o.y }
  }
  function scale(self, k: int) -> Vec {
    Vec { x: self.x * k, y: self.y * k }
  }
  function len2(self) -> int {
    self.x * self.x + self.y * self.y
  }
  function origin() -> Vec {
    Vec { x: 0, y: 0 }
  }
}
function Run(x: int, y: int) -> Vec {
  let v = Vec { x: x, y: y };
  let w = Vec.origin().add(v).scale(2).add(Vec { x: 1, y: -1 });
  Vec { x: w.len2(), y: v.add(w).x }
}
''', "Run", [{"x": 1, "y": 2}, {"x": 0, "y": 0}, {"x": -3, "y": 4}]),

"spread_shorthand": (r'''
class Pt {
  x int
  y int
  z int?
}
function Move(x: int, y: int, dy: int) -> Pt[] {
  let a = Pt { x, y };
  let b = Pt { ...a, y: a.y + dy };
  let c = Pt { ...b, z: 7 };
  let d = Pt { x: 100, ...c };
  b.x = -1;
  [a, b, c, d]
}
''', "Move", [{"x": 1, "y": 2, "dy": 3}, {"x": 0, "y": 0, "dy": 0}]),

"instance_refs": (r'''
class Cell {
  v int
}
function Alias(n: int) -> int[] {
  let a = Cell { v: n };
  let b = a;
  b.v += 1;
  let arr = [a, Cell { v: 0 }];
  arr[0].v *= 10;
  let m: map<string, Cell> = {"k": a};
  m["k"].v -= 3;
  let c = baml.deep_copy(a);
  c.v = 999;
  Bump(a);
  [a.v, b.v, arr[0].v, m["k"].v, c.v]
}
function Bump(c: Cell) -> null {
  c.v += 1000;
  null
}
''', "Alias", [{"n": 1}, {"n": -5}]),

"deep_copy": (r'''
function Copy(xs: int[][]) -> string {
  let shallow = xs;
  let deep = baml.deep_copy(xs);
  let m: map<string, int[]> = {"a": [1]};
  let mc = baml.deep_copy(m);
  if (xs.length() > 0) {
    xs[0].push(99);
  }
  xs.push([7]);
  m["a"].push(2);
  `${shallow} ${deep} ${m} ${mc} ${deep == xs} ${mc == m}`
}
''', "Copy", [{"xs": [[1], [2, 3]]}, {"xs": []}]),

"class_results": (r'''
enum Kind {
  LEAF
  NODE
}
class Item {
  name string
  kind Kind
  weight float
  tags string[]
  parent Item?
}
function Build(name: string, n: int) -> Item {
  let top = Item { name: "top", kind: Kind.NODE, weight: 0.5, tags: [] };
  let it = Item { name: name, kind: Kind.LEAF, weight: n * 1.5, tags: [], parent: top };
  for (let i = 0; i < n; i += 1) {
    it.tags.push(`t${i}`);
  }
  it
}
''', "Build", [{"name": "a", "n": 0}, {"name": "b", "n": 2}]),

"class_params": (r'''
class Line {
  sku string
  qty int
  price float
}
class Order {
  id int
  lines Line[]
  note string?
}
function Totals(orders: Order[], min_qty: int) -> map<string, float> {
  let out: map<string, float> = {};
  for (let o in orders) {
    let t = 0.0;
    for (let l in o.lines) {
      if (l.qty < min_qty) { continue; }
      t += l.qty * l.price;
    }
    out[`${o.id}:${o.note ?? "-"}`] = t;
  }
  out
}
''', "Totals", [{"orders": [{"id": 1, "lines": [{"sku": "a", "qty": 2, "price": 1.5}, {"sku": "b", "qty": 1, "price": 4.0}], "note": None},
                             {"id": 2, "lines": [], "note": "rush"}], "min_qty": 2},
                 {"orders": [], "min_qty": 0}]),

"map_params": (r'''
function Merge(a: map<string, int>, b: map<string, int>) -> map<string, int> {
  let out = baml.deep_copy(a);
  for (let k in b.keys()) {
    out[k] = (out.get(k) ?? 0) + b[k];
  }
  out
}
''', "Merge", [{"a": {"x": 1, "y": 2}, "b": {"y": 10, "z": 5}}, {"a": {}, "b": {}}, {"a": {"q": 1}, "b": {}}]),

# ---------------------------------------------------------------- functions and closures
"void_functions": (r'''
function Log(out: string[], msg: string) -> void {
  out.push(msg);
}
function Nothing() -> null {
  null
}
function Early(out: string[], x: int) -> void {
  if (x < 0) { return; }
  out.push(`x${x}`);
}
function Run(x: int) -> string[] {
  let out: string[] = [];
  Log(out, "a");
  Early(out, x);
  let n = Nothing();
  if (n == null) { Log(out, "null"); }
  out
}
''', "Run", [{"x": 1}, {"x": -1}]),

"returns_null": (r'''
function Nothing(x: int) -> null {
  x + 1;
}
function Maybe(x: int) -> int? {
  if (x > 0) { return x; }
  null
}
function Run(x: int) -> int? {
  Nothing(x);
  Maybe(x)
}
''', "Run", [{"x": 3}, {"x": 0}]),

"mutual_recursion": (r'''
function IsEven(n: int) -> bool {
  if (n == 0) { return true; }
  IsOdd(n - 1)
}
function IsOdd(n: int) -> bool {
  if (n == 0) { return false; }
  IsEven(n - 1)
}
function Parity(n: int) -> string {
  if (IsEven(n)) { "even" } else if (IsOdd(n)) { "odd" } else { "?" }
}
''', "Parity", [{"n": 0}, {"n": 7}, {"n": 100}]),

"stack_overflow_mutual": (r'''
function Ping(n: int) -> int {
  Pong(n + 1)
}
function Pong(n: int) -> int {
  if (n < 0) { return n; }
  Ping(n + 1)
}
function Start(n: int) -> int {
  Ping(n)
}
''', "Start", [{"n": -11}, {"n": 0}]),

"lambda_forms": (r'''
function Apply(xs: int[]) -> int[] {
  let dbl = (x: int) -> int { x * 2 };
  let inc = (x: int) => { x + 1 };
  let add = (a: int, b: int) -> int { a + b };
  let mapped = xs.map((x) => { dbl(inc(x)) });
  let summed = xs.reduce((acc, x) => { add(acc, x) }, 0);
  let none = () -> int { 42 };
  mapped.concat([summed, none()])
}
''', "Apply", [{"xs": [1, 2, 3]}, {"xs": []}]),

"closure_capture": (r'''
function Counter() -> () -> int throws never {
  let n = 0;
  () -> int {
    n += 1;
    n
  }
}
function Run(k: int) -> int[] {
  let total = 0;
  let add = (x: int) -> int {
    total += x;
    total
  };
  add(k);
  add(k);
  let before = total;
  total = 100;
  let after = add(1);
  let c1 = Counter();
  let c2 = Counter();
  c1();
  c1();
  [before, after, total, c1(), c2()]
}
''', "Run", [{"k": 1}, {"k": -5}]),

"closure_late_binding": (r'''
function Run(n: int) -> int[] {
  let fs: (() -> int throws never)[] = [];
  for (let i = 0; i < n; i += 1) {
    let j = i * 10;
    fs.push(() -> int { j + i });
  }
  let x = 1;
  let g = () -> int { x };
  x = 2;
  fs.map((f) => { f() }).concat([g()])
}
''', "Run", [{"n": 0}, {"n": 3}]),

"functions_as_values": (r'''
function Double(x: int) -> int { x * 2 }
function Square(x: int) -> int { x * x }
function Neg(x: int) -> int { -x }
function Pick(name: string) -> (int) -> int throws never {
  match (name) {
    "double" => Double,
    "square" => Square,
    _ => Neg,
  }
}
function Compose(f: (int) -> int throws never, g: (int) -> int throws never) -> (int) -> int throws never {
  (x: int) -> int { g(f(x)) }
}
function Run(name: string, xs: int[]) -> int[] {
  let f = Pick(name);
  let h = Compose(f, Double);
  xs.map(f).concat(xs.map(h))
}
''', "Run", [{"name": "double", "xs": [1, 2]}, {"name": "square", "xs": [3]}, {"name": "x", "xs": [4, -4]}]),

"higher_order": (r'''
function Stats(xs: int[]) -> string {
  let ev = xs.filter((x) => { x % 2 == 0 });
  let sq = xs.map((x: int) -> int { x * x });
  let s = xs.reduce((a: int, x: int) -> int { a + x }, 0);
  let any_neg = xs.some((x) => { x < 0 });
  let all_pos = xs.every((x) => { x > 0 });
  let f = xs.find((x) => { x > 2 });
  let fi = xs.find_index((x) => { x > 2 });
  let fl = xs.find_last((x) => { x > 2 });
  let fli = xs.find_last_index((x) => { x > 2 });
  `${ev} ${sq} ${s} ${any_neg} ${all_pos} ${f ?? -1} ${fi ?? -1} ${fl ?? -1} ${fli ?? -1}`
}
''', "Stats", [{"xs": [1, 2, 3, 4, 5]}, {"xs": []}, {"xs": [-1, 0]}, {"xs": [3]}]),

"higher_order_more": (r'''
function More(xs: int[]) -> string {
  let fm = xs.flat_map((x) => { [x, x * 10] });
  let seen: int[] = [];
  xs.for_each((x) => { seen.push(x + 1); });
  let halves = xs.filter_map((x: int) -> int? { if (x % 2 == 0) { x / 2 } else { null } });
  let byk = baml.deep_copy(xs);
  byk.sort_by_key((x) => { -x });
  let cmp = baml.deep_copy(xs);
  cmp.sort_by((a, b) => { (a % 3).cmp(b % 3) });
  `${fm} ${seen} ${halves} ${byk} ${cmp}`
}
''', "More", [{"xs": [3, 1, 4, 1, 5, 9, 2, 6]}, {"xs": []}]),

"hof_throwing": (r'''
function Parse(xs: string[]) -> int {
  let nums = xs.map((s) => { int.parse(s) }) catch (e) {
    baml.errors.ParseError => [-1],
  };
  nums.reduce((a: int, b: int) -> int { a + b }, 0)
}
''', "Parse", [{"xs": ["1", "2"]}, {"xs": ["1", "y"]}, {"xs": []}]),

"hof_panic": (r'''
function Inv(xs: int[]) -> int[] {
  xs.map((x) => { 100 / x })
}
''', "Inv", [{"xs": [1, 2, 3]}, {"xs": [5, 0]}]),

# ---------------------------------------------------------------- arrays and maps
"array_mutators": (r'''
function Edit(xs: int[]) -> string {
  let a = baml.deep_copy(xs);
  let n1 = a.unshift(0);
  let n2 = a.push(9);
  let removed = a.remove_at(1);
  let n3 = a.insert(5, 1);
  let sh = a.shift();
  let r = a.reverse();
  let cleared = baml.deep_copy(a);
  cleared.clear();
  `${n1} ${n2} ${removed ?? -1} ${n3} ${sh ?? -1} ${a} ${r} ${cleared}`
}
''', "Edit", [{"xs": [1, 2, 3]}, {"xs": []}]),

"array_insert_errors": (r'''
function Put(xs: int[], v: int, i: int) -> int[] {
  xs.insert(v, i);
  xs
}
''', "Put", [{"xs": [1, 2], "v": 7, "i": 0}, {"xs": [1, 2], "v": 7, "i": 2}, {"xs": [1, 2], "v": 7, "i": 3},
              {"xs": [1, 2], "v": 7, "i": -1}]),

"array_splice": (r'''
function Splice(xs: int[], start: int, count: int) -> int[] {
  xs.splice(start, count, [100, 200]);
  xs
}
''', "Splice", [{"xs": [1, 2, 3, 4], "start": 1, "count": 2}, {"xs": [1, 2], "start": 2, "count": 0},
                 {"xs": [1, 2], "start": 0, "count": 5}, {"xs": [1, 2], "start": 5, "count": 0},
                 {"xs": [1, 2], "start": 0, "count": -1}]),

"array_search": (r'''
function Search(xs: string[], v: string) -> string {
  let i = xs.index_of(v);
  let j = xs.last_index_of(v);
  let sl = xs.slice(-2, 100);
  let sl2 = xs.slice(3, 1);
  `${i ?? -1} ${j ?? -1} ${xs.includes(v)} ${sl} ${sl2} ${xs.at(-1) ?? "none"} ${xs.join("")}`
}
''', "Search", [{"xs": ["a", "b", "a", "c"], "v": "a"}, {"xs": ["a"], "v": "z"}, {"xs": [], "v": ""}]),

"array_sum_mean": (r'''
function Agg(xs: int[], fs: float[]) -> string {
  let s = xs.sum();
  let fsum = fs.sum();
  let m = if (fs.length() > 0) { `${fs.mean()}` } else { "n/a" };
  `${s} ${fsum} ${m}`
}
''', "Agg", [{"xs": [1, 2, 3], "fs": [1.0, 2.0, 4.5]}, {"xs": [], "fs": []}, {"xs": [-5], "fs": [0.1, 0.2]}]),

"array_sort": (r'''
function Sorts(xs: int[], ws: string[]) -> string {
  let a = xs.sort();
  let b = ws.sort();
  let f = [2.5, -1.0, 0.0].sort();
  `${a} ${xs} ${b} ${f} ${[true, false, true].sort()}`
}
''', "Sorts", [{"xs": [3, -1, 2, 2], "ws": ["b", "B", "a", "é"]}, {"xs": [], "ws": []}]),

"nested_arrays": (r'''
function Transpose(g: int[][]) -> int[][] {
  if (g.length() == 0) { return []; }
  let out: int[][] = [];
  for (let j = 0; j < g[0].length(); j += 1) {
    let row: int[] = [];
    for (let i = 0; i < g.length(); i += 1) {
      row.push(g[i][j]);
    }
    out.push(row);
  }
  out[0][0] += 1000;
  out
}
''', "Transpose", [{"g": [[1, 2, 3], [4, 5, 6]]}, {"g": []}, {"g": [[1], [2, 3]]}, {"g": [[1, 2], [3]]}]),

"nested_maps": (r'''
function Group(words: string[]) -> map<string, map<string, int>> {
  let out: map<string, map<string, int>> = {};
  for (let w in words) {
    let k = w.at(0) ?? "";
    let inner = out.get_or_insert(k, {});
    inner[w] = (inner.get(w) ?? 0) + 1;
  }
  out
}
''', "Group", [{"words": ["apple", "avocado", "bean", "apple"]}, {"words": []}, {"words": ["", "x"]}]),

"map_of_arrays": (r'''
function Index(words: string[]) -> map<string, int[]> {
  let m: map<string, int[]> = {};
  let i = 0;
  for (let w in words) {
    if (!m.has(w)) { m[w] = []; }
    m[w].push(i);
    i += 1;
  }
  m
}
''', "Index", [{"words": ["a", "b", "a"]}, {"words": []}]),

"map_methods_more": (r'''
function Ops(k: string) -> string {
  let m: map<string, int> = {"b": 1, "a": 2};
  let prev1 = m.set("c", 3);
  let prev2 = m.set("b", 10);
  let g1 = m.get_or_insert("d", 4);
  let g2 = m.get_or_insert("a", 99);
  let d1 = m.delete(k);
  let d2 = m.delete("nope");
  m["b"] = 11;
  m.set(k, 0);
  `${prev1 ?? -1} ${prev2 ?? -1} ${g1} ${g2} ${d1 ?? -1} ${d2 ?? -1} ${m.keys()} ${m.values()} ${m.length()}`
}
''', "Ops", [{"k": "a"}, {"k": "b"}, {"k": "zz"}]),

"map_key_types": (r'''
function Keys(n: int) -> string {
  let a: map<int, string> = {1: "one", 2: "two"};
  a[n] = "new";
  let b: map<bool, int> = {true: 1};
  b[n > 0] = n;
  let c = {"x": 1, "x": 2};
  let cleared: map<string, int> = {"q": 1};
  cleared.clear();
  `${a} ${b} ${c} ${a.has(1)} ${a.get(-1) ?? "none"} ${cleared.length()}`
}
''', "Keys", [{"n": 1}, {"n": -3}]),

"map_equality": (r'''
function Eq(x: int) -> bool[] {
  let a = {"a": 1, "b": x};
  let b = {"b": x, "a": 1};
  let c: map<string, int> = {"a": 1};
  let e1: map<string, int> = {};
  let e2: map<string, int> = {};
  [a == b, a == c, a != c, e1 == e2, {"k": [1, 2]} == {"k": [1, 2]}]
}
''', "Eq", [{"x": 2}]),

"map_missing_key": (r'''
function Get(m: map<string, int>, k: string, d: int) -> int {
  let a = m.get(k) ?? d;
  let b = m[k] catch (e) {
    baml.panics.MapKeyNotFound => -100,
  };
  a + b + m[k]
}
''', "Get", [{"m": {"a": 1}, "k": "a", "d": 5}, {"m": {"a": 1}, "k": "b", "d": 5}]),

# ---------------------------------------------------------------- strings
"string_methods_all": (r'''
function All(s: string) -> string[] {
  [
    `${s.length()}`,
    `${s.byte_length()}`,
    `${s.is_empty()}`,
    s.to_lower_case(),
    s.to_upper_case(),
    `[${s.trim()}]`,
    `[${s.trim_start()}]`,
    `[${s.trim_end()}]`,
    `${s.includes("b")} ${s.includes("")}`,
    `${s.starts_with(" a")} ${s.ends_with("c ")}`,
    `${s.split("b")}`,
    `${s.chars()}`,
    s.slice(1, 3),
    s.replace(" ", "_"),
    s.replace_all(" ", "_"),
    `${s.index_of(" ") ?? -1} ${s.last_index_of(" ") ?? -1}`,
    s.at(1) ?? "null",
    `${s.code_point_at(1) ?? -1}`,
    s.repeat(2),
    s.to_string(),
    s.add("!"),
  ]
}
''', "All", [{"s": " aBc "}, {"s": ""}, {"s": "bb"}]),

"string_unicode": (r'''
function Uni(s: string) -> string {
  let up = s.to_upper_case();
  let lo = s.to_lower_case();
  `${s.length()}/${s.byte_length()}/${s.chars().length()}/${s.at(-1) ?? ""}/${s.slice(1, 3)}/${up}/${lo}/${s.code_point_at(0) ?? -1}/${s.index_of("ü") ?? -1}`
}
''', "Uni", [{"s": "straße"}, {"s": "Ünïcödé"}, {"s": "a😀b"}, {"s": "e\u0301"}, {"s": "ΣΑΣ"}]),

"string_split_lines": (r'''
function Parts(s: string) -> string {
  let a = s.split(",");
  let b = s.split("");
  let c = s.lines();
  let d = s.split(", ");
  `${a.length()}:${a.join("|")} ${b.length()} ${c.length()}:${c.join("|")} ${d.length()}`
}
''', "Parts", [{"s": "a,b, c"}, {"s": ""}, {"s": "x\ny\r\nz\n"}, {"s": ",,"}, {"s": "\n\n"}]),

"string_search": (r'''
function Find(s: string, t: string) -> string {
  let i = s.index_of(t);
  let j = s.last_index_of(t);
  let k = if (i != null) { s.slice(i, i + t.length()) } else { "-" };
  `${i ?? -1} ${j ?? -1} ${k} ${s.includes(t)} ${s.starts_with(t)} ${s.ends_with(t)}`
}
''', "Find", [{"s": "banana", "t": "an"}, {"s": "banana", "t": "x"}, {"s": "banana", "t": ""}, {"s": "", "t": ""},
               {"s": "héllo héllo", "t": "llo"}]),

"string_slice_edges": (r'''
function Cut(s: string, a: int, b: int) -> string {
  `[${s.slice(a, b)}] [${s.at(a) ?? "null"}] [${s.repeat(a)}]`
}
''', "Cut", [{"s": "abcdef", "a": 1, "b": 4}, {"s": "abcdef", "a": -3, "b": -1}, {"s": "abcdef", "a": 4, "b": 2},
              {"s": "abcdef", "a": -100, "b": 100}, {"s": "abc", "a": -1, "b": 10}, {"s": "", "a": 0, "b": 0}]),

"string_replace": (r'''
function Rep(s: string, a: string, b: string) -> string[] {
  [s.replace(a, b), s.replace_all(a, b)]
}
''', "Rep", [{"s": "aaa", "a": "a", "b": "bb"}, {"s": "abcabc", "a": "bc", "b": ""}, {"s": "xyz", "a": "q", "b": "w"},
              {"s": "aaaa", "a": "aa", "b": "a"}]),

"string_trim_unicode": (r'''
function T(s: string) -> string[] {
  [`[${s.trim()}]`, `${s.trim().length()}`, `${s.is_empty()}`, `${s.trim().is_empty()}`]
}
''', "T", [{"s": "\t\n x \r\n"}, {"s": "\u00a0\u2003y\u3000"}, {"s": "   "}]),

"string_predicates": (r'''
function Kinds(s: string) -> bool[] {
  [s.is_numeric(), s.is_alphabetic(), s.is_alphanumeric(), s.is_uppercase(), s.is_lowercase(), s.is_whitespace()]
}
''', "Kinds", [{"s": "123"}, {"s": "abc"}, {"s": "ABC"}, {"s": "a1"}, {"s": " \t"}, {"s": ""}, {"s": "-1"}]),

"string_concat_compare": (r'''
function Cat(a: string, b: string) -> string {
  let s = a + b;
  s += a;
  let ord = if (a < b) { "<" } else if (a > b) { ">" } else { "=" };
  let le = a <= b;
  `${s} ${ord} ${le} ${a == b} ${s.length()}`
}
''', "Cat", [{"a": "ab", "b": "b"}, {"a": "", "b": ""}, {"a": "Z", "b": "a"}, {"a": "ß", "b": "ss"}]),

"string_from": (r'''
class Pt {
  x int
  y string
}
enum E {
  A
  B
}
function Render(n: int) -> string[] {
  [string.from(n), string.from(n * 0.5), string.from("s"), string.from([n, n]), string.from({"k": n}),
   string.from(Pt { x: n, y: "q" }), string.from(E.B), string.from(null), string.from(n > 0),
   `${[Pt { x: 1, y: "a" }]}`, `${["a", "b"]}`, `${{"a": "b"}}`]
}
''', "Render", [{"n": 2}, {"n": -1}]),

"templates_nested": (r'''
function T(n: int, name: string) -> string {
  let inner = `<${name}>`;
  let nested = `a ${`b ${`c ${n}`}`} d`;
  let count = 0;
  let side = `x${ count += n; }y${count}`;
  let esc = `\${name} \`tick\` \u{1F600} \u0041 \x42 \t|`;
  let multi = `line1
line2 ${n}`;
  let expr = `${n * 2 + 1} ${if (n > 0) { "pos" } else { "non" }} ${name.length()} ${[1, 2].map((x) => { x * n })}`;
  `${inner}|${nested}|${side}|${esc}|${multi}|${expr}|$name|{n}`
}
''', "T", [{"n": 3, "name": "bo"}, {"n": 0, "name": ""}]),

"string_escapes": (r'''
function E(i: int) -> string {
  let xs = ["a\nb", "tab\there", "q\"q", "back\\slash", "dollar\$", "\u0041\u{1F600}\x41", "${i}", "multi
line", "\u00e9"];
  let s = xs[i];
  `${s.length()}:${s}`
}
''', "E", [{"i": 0}, {"i": 1}, {"i": 2}, {"i": 3}, {"i": 4}, {"i": 5}, {"i": 6}, {"i": 7}, {"i": 8}]),

# ---------------------------------------------------------------- numbers
"int_literals": (r'''
function Lits() -> int[] {
  [0x1F, 0xff, 0b101, 0o17, 007, 1_000_000, 0x_10, -0b1, 4611686018427387903, -4611686018427387904]
}
''', "Lits", [{}]),

"float_literals": (r'''
function Lits(k: int) -> string {
  let a = 1e3;
  let b = 1.5e2;
  let c = 2.5E-3;
  let d = 0.1 + 0.2;
  let e = 1_000.5;
  `${a} ${b} ${c} ${d} ${e} ${a * k} ${1e21} ${1.5e-7} ${-0.0} ${100.0}`
}
''', "Lits", [{"k": 2}]),

"int_methods": (r'''
function M(a: int, b: int) -> string {
  `${a.abs()} ${a.pow(b)} ${a.min(b)} ${a.max(b)} ${a.clamp(-5, 5)} ${a.to_string()} ${a.count_ones()} ${a.trailing_zeros()}`
}
''', "M", [{"a": -7, "b": 2}, {"a": 2, "b": 70}, {"a": 2, "b": -1}, {"a": -2, "b": 63}, {"a": 0, "b": 0}, {"a": 12, "b": 1}]),

"int_isqrt_ilog": (r'''
function Roots(n: int, log: bool) -> int {
  if (log) { n.ilog(2) } else { n.isqrt() }
}
''', "Roots", [{"n": 0, "log": False}, {"n": 17, "log": False}, {"n": 4611686018427387903, "log": False},
                {"n": -4, "log": False}, {"n": 1, "log": True}, {"n": 1023, "log": True},
                {"n": 4611686018427387903, "log": True}, {"n": 0, "log": True}, {"n": -8, "log": True}]),

"int_abs_overflow": (r'''
function A(n: int) -> int {
  n.abs()
}
function MinAbs(k: int) -> int {
  A(int.min_value() + k)
}
''', "MinAbs", [{"k": 1}, {"k": 0}]),

"int_parse_edges": (r'''
function P(s: string) -> string {
  let v = int.parse(s) catch (e) {
    baml.errors.ParseError => -999,
  };
  `${v}`
}
''', "P", [{"s": "42"}, {"s": "-0"}, {"s": "+5"}, {"s": " 5"}, {"s": "0x10"}, {"s": ""}, {"s": "1_000"},
            {"s": "4611686018427387903"}, {"s": "4611686018427387904"}, {"s": "99999999999999999999"}, {"s": "1e3"}]),

"float_parse": (r'''
function P(s: string) -> string {
  let v = float.parse(s);
  if (v.is_nan()) { return "nan"; }
  `${v}`
}
''', "P", [{"s": "1.5"}, {"s": "-2"}, {"s": "1e3"}, {"s": "inf"}, {"s": "NaN"}, {"s": " 1.0"}, {"s": "abc"}, {"s": ""}, {"s": ".5"}]),

"float_rounding": (r'''
function R(x: float) -> string {
  `${x.floor()} ${x.ceil()} ${x.round()} ${x.trunc()} ${x.abs()} ${x.fract()} ${x.signum()}`
}
''', "R", [{"x": 2.5}, {"x": -2.5}, {"x": 0.49999}, {"x": -0.2}, {"x": 3.0}, {"x": 1e20}]),

"float_to_int": (r'''
function I(x: float, mode: int) -> int {
  match (mode) {
    0 => x.itrunc(),
    1 => x.iround(),
    2 => x.ifloor(),
    _ => x.iceil(),
  }
}
''', "I", [{"x": 2.7, "mode": 0}, {"x": -2.7, "mode": 0}, {"x": 2.5, "mode": 1}, {"x": -2.5, "mode": 1},
            {"x": -2.1, "mode": 2}, {"x": -2.9, "mode": 3}, {"x": 1e30, "mode": 0}, {"x": -1e19, "mode": 1}]),

"float_to_int_nan": (r'''
function I(k: int) -> string {
  let x = match (k) {
    0 => float.nan(),
    1 => float.inf(),
    _ => 0.0 - float.inf(),
  };
  let r = x.itrunc() catch (e) {
    baml.errors.InvalidArgument => -1,
  };
  `${r} ${x.iround() catch (e) { _ => -2 }}`
}
''', "I", [{"k": 0}, {"k": 1}, {"k": 2}]),

"float_special": (r'''
function S(a: float, b: float) -> string {
  let q = a / b;
  let inf = float.inf();
  let nan = float.nan();
  let nz = -b;
  `${q} ${q.is_nan()} ${q.is_infinite()} ${q.is_finite()} ${nan == nan} ${nan != nan} ${nan > inf} ${nan >= inf} ${nan < 1.0} ${inf > 1e308} ${nz == b} ${nz < b} ${nz} ${b - b} ${nz * 2.5} ${-inf} ${inf - inf} ${1e308 * 10.0} ${5.0 % b}`
}
''', "S", [{"a": 1.0, "b": 0.0}, {"a": -1.0, "b": 0.0}, {"a": 0.0, "b": 0.0}, {"a": 3.0, "b": 2.0}, {"a": 1.0, "b": -0.0}]),

"float_math": (r'''
function F(x: float) -> string {
  `${x.sqrt()} ${x.pow(2.0)} ${x.pow(0.5)} ${x.min(1.0)} ${x.max(1.0)} ${x.clamp(0.0, 3.0)} ${float.pi() > 3.14} ${x.hypot(0.0)}`
}
''', "F", [{"x": 4.0}, {"x": 0.25}, {"x": -1.0}]),

"float_int_mix_ops": (r'''
function Mix(i: int, f: float) -> string {
  let a = i + f;
  let b = i * f;
  let c = i / f;
  let d = i % f;
  let e = f - i;
  let g = i / 2;
  let h = i / 2.0;
  let k = f;
  k += i;
  k *= 2;
  `${a} ${b} ${c} ${d} ${e} ${g} ${h} ${k} ${i == f} ${f > 1.0}`
}
''', "Mix", [{"i": 7, "f": 2.0}, {"i": -3, "f": 0.5}, {"i": 1, "f": 1.0}, {"i": 5, "f": 0.0}]),

"overflow_each_op": (r'''
function Op(op: string, a: int, b: int) -> int {
  match (op) {
    "+=" => { let x = a; x += b; x },
    "-=" => { let x = a; x -= b; x },
    "*=" => { let x = a; x *= b; x },
    "/=" => { let x = a; x /= b; x },
    "%=" => { let x = a; x %= b; x },
    "neg" => -a,
    "sum" => [a, b].sum(),
    "pow" => a.pow(b),
    "shl" => a << b,
    "shr" => a >> b,
    _ => 0,
  }
}
''', "Op", [{"op": "+=", "a": 4611686018427387903, "b": 1}, {"op": "-=", "a": -4611686018427387904, "b": 1},
             {"op": "*=", "a": -4611686018427387904, "b": -1}, {"op": "*=", "a": 3037000499, "b": 3037000499},
             {"op": "/=", "a": -4611686018427387904, "b": -1}, {"op": "%=", "a": 7, "b": 0},
             {"op": "%=", "a": -4611686018427387904, "b": -1}, {"op": "neg", "a": 4611686018427387903, "b": 0},
             {"op": "sum", "a": 4611686018427387903, "b": 1}, {"op": "pow", "a": -2, "b": 63},
             {"op": "pow", "a": -2, "b": 62}, {"op": "shl", "a": 1, "b": 100}, {"op": "shr", "a": -1, "b": 100},
             {"op": "shr", "a": 1, "b": -1}, {"op": "+=", "a": 1, "b": 2}]),

"shifts": (r'''
function Sh(a: int, n: int) -> int[] {
  [a << n, a >> n]
}
''', "Sh", [{"a": 1, "n": 0}, {"a": 1, "n": 61}, {"a": 1, "n": 62}, {"a": 1, "n": 63},
             {"a": 1, "n": 64}, {"a": -8, "n": 1}, {"a": -1, "n": 62}, {"a": 5, "n": 200}, {"a": -5, "n": 200},
             {"a": 4611686018427387903, "n": 1}, {"a": 3, "n": -2}]),

"bitwise_ops": (r'''
function Bits(a: int, b: int) -> int[] {
  [a & b, a | b, a ^ b, ~a, ~b, a & ~b, (a | b) ^ (a & b)]
}
''', "Bits", [{"a": 12, "b": 10}, {"a": -1, "b": 5}, {"a": 0, "b": 0}, {"a": -4611686018427387904, "b": 4611686018427387903}]),

"precedence": (r'''
function Prec(a: int) -> string {
  let r1 = 1 + 2 << 1;
  let r2 = 16 >> 1 + 1;
  let r3 = 1 ^ 3 & 2;
  let r4 = 1 | 6 ^ 3;
  let r5 = 1 < 2 == 2 < 3;
  let r6 = 1 == 2 == false;
  let r7 = true || false && false;
  let r8 = -a * 2;
  let r9 = --a;
  let r10 = !true == false;
  let r11 = 2 + 3 * 4 - 6 / 2 % 4;
  let r12 = (a & 1) == 1;
  let r13 = ~a + 1;
  let r14 = 100 / 10 / 5;
  let r15 = 2 * 3 % 4;
  let r16 = (a | 1) == 1;
  `${r1} ${r2} ${r3} ${r4} ${r5} ${r6} ${r7} ${r8} ${r9} ${r10} ${r11} ${r12} ${r13} ${r14} ${r15} ${r16}`
}
''', "Prec", [{"a": 5}, {"a": 0}]),

"equality_structural": (r'''
class P {
  a int
  b string[]
}
enum C {
  X
  Y
}
function Eq(n: int) -> bool[] {
  let p = P { a: n, b: ["x"] };
  let q = P { a: n, b: ["x"] };
  [p == q, p != q, [1, 2] == [1, 2], [1, 2] == [2, 1], 1 == 1.0, "1" == 1, null == 0, n == n,
   C.X == C.X, C.X == C.Y, [p] == [q], 0.1 + 0.2 == 0.3, "a" != "b", [[n]] == [[n]]]
}
''', "Eq", [{"n": 1}]),

"truthiness_more": (r'''
function Truth(n: int, s: string, xs: int[], f: float, m: map<string, int>) -> string {
  let r = "";
  let k = n;
  while (k) {
    r += "w";
    k -= 1;
    if (r.length() > 5) { break; }
  }
  let a = n && s;
  let o = xs || f;
  r += ` ${a} ${o} ${!s} ${!xs} ${!f} ${!!n}`;
  r += if (f) { " fT" } else { " fF" };
  r += if (m) { " mT" } else { " mF" };
  r
}
''', "Truth", [{"n": 0, "s": "", "xs": [], "f": 0.0, "m": {}}, {"n": 2, "s": "x", "xs": [0], "f": -0.0, "m": {"a": 0}},
                {"n": -1, "s": "0", "xs": [], "f": 0.5, "m": {}}]),

"short_circuit": (r'''
function Boom(tag: string) -> bool {
  baml.sys.panic(tag);
  true
}
function SC(a: bool, b: bool) -> string {
  let x = a || Boom("or");
  let y = b && Boom("and");
  let log: string[] = [];
  let z = (a && { log.push("r1"); true }) || { log.push("r2"); false };
  `${x} ${y} ${z} ${log}`
}
''', "SC", [{"a": True, "b": False}, {"a": False, "b": False}, {"a": True, "b": True}]),

"eval_order": (r'''
function Tap(log: string[], tag: string, v: int) -> int {
  log.push(tag);
  v
}
function Three(a: int, b: int, c: int) -> int {
  a * 100 + b * 10 + c
}
function Order(x: int) -> string {
  let log: string[] = [];
  let s = Tap(log, "a", 1) + Tap(log, "b", 2) * Tap(log, "c", 3);
  let t = Three(Tap(log, "p", 1), Tap(log, "q", 2), Tap(log, "r", x));
  let xs = [0, 0, 0];
  xs[Tap(log, "i", 1)] = Tap(log, "v", 5);
  let m = {"k": Tap(log, "mv", 1)};
  let u = Tap(log, "l", 10) - Tap(log, "r", 3);
  let d = Tap(log, "n", 1) / Tap(log, "d", x);
  `${s} ${t} ${xs} ${m} ${u} ${d} ${log}`
}
''', "Order", [{"x": 1}, {"x": 0}]),

# ---------------------------------------------------------------- errors
"throw_kinds": (r'''
class Oops {
  code int
  msg string
}
function Fail(k: int) -> int {
  match (k) {
    0 => { throw "text"; },
    1 => { throw 7; },
    2 => { throw Oops { code: 3, msg: "m" }; },
    3 => { throw true; },
    4 => { throw 2.5; },
    _ => k,
  }
}
function Catch(k: int) -> string {
  let r = Fail(k) catch (e) {
    let s: string => `string ${s}`,
    7 => "seven",
    let n: int => `int ${n}`,
    let o: Oops => `oops ${o.code} ${o.msg}`,
    _ => "other",
  };
  `${r}`
}
''', "Catch", [{"k": 0}, {"k": 1}, {"k": 2}, {"k": 3}, {"k": 4}, {"k": 5}]),

"throw_class_uncaught": (r'''
class NotFound {
  key string
}
class Invalid {
  why string
}
function Lookup(m: map<string, int>, k: string) -> int {
  if (k == "") { throw Invalid { why: "empty" }; }
  if (!m.has(k)) { throw NotFound { key: k }; }
  m[k]
}
function Get(m: map<string, int>, k: string, safe: bool) -> int {
  if (safe) {
    return Lookup(m, k) catch (e) {
      let n: NotFound => -1,
    };
  }
  Lookup(m, k)
}
''', "Get", [{"m": {"a": 1}, "k": "a", "safe": False}, {"m": {"a": 1}, "k": "b", "safe": False},
              {"m": {"a": 1}, "k": "", "safe": False}, {"m": {"a": 1}, "k": "b", "safe": True},
              {"m": {"a": 1}, "k": "", "safe": True}]),

"catch_wildcard_no_panic": (r'''
function Risky(x: int) -> int {
  if (x < 0) { throw "negative"; }
  100 / x
}
function Try(x: int) -> int {
  Risky(x) catch (e) {
    _ => -1,
  }
}
''', "Try", [{"x": 5}, {"x": -5}, {"x": 0}]),

"catch_panic_named": (r'''
function Risky(xs: int[], i: int, d: int) -> int {
  xs[i] / d
}
function Try(xs: int[], i: int, d: int) -> string {
  let r = Risky(xs, i, d) catch (e) {
    baml.panics.DivisionByZero => -1,
    let p: baml.panics.IndexOutOfBounds => -100 - p.index,
  };
  `${r}`
}
''', "Try", [{"xs": [10], "i": 0, "d": 2}, {"xs": [10], "i": 0, "d": 0}, {"xs": [10], "i": 5, "d": 1},
              {"xs": [4611686018427387903], "i": 0, "d": -1}]),

"catch_panic_union": (r'''
function Try(a: int, b: int) -> string {
  let r = (a * b) catch (e) {
    baml.panics.Panic => -1,
  };
  let s = (a / b) catch (e) {
    let p: baml.panics.DivisionByZero => p.dividend,
  };
  `${r} ${s}`
}
''', "Try", [{"a": 3, "b": 4}, {"a": 3, "b": 0}, {"a": 4611686018427387903, "b": 2}]),

"nested_catch": (r'''
class A {
  v int
}
class B {
  v int
}
class C {
  v int
}
function Thrower(k: int) -> int {
  if (k == 1) { throw A { v: 1 }; }
  if (k == 2) { throw B { v: 2 }; }
  if (k == 3) { throw C { v: 3 }; }
  k * 10
}
function Inner(k: int) -> int {
  Thrower(k) catch (e) {
    let a: A => a.v + 100,
  }
}
function Outer(k: int) -> int {
  let r = Inner(k) catch (e) {
    let b: B => {
      let again = Thrower(1) catch (e2) { let a: A => a.v * 1000 };
      again + b.v
    },
  };
  r
}
''', "Outer", [{"k": 0}, {"k": 1}, {"k": 2}, {"k": 3}]),

"rethrow": (r'''
class Retry {
  n int
}
class Fatal {
  msg string
}
function Work(n: int) -> int {
  if (n > 2) { throw Fatal { msg: "too many" }; }
  if (n > 0) { throw Retry { n: n }; }
  0
}
function Wrap(n: int) -> int {
  Work(n) catch (e) {
    let r: Retry => {
      throw Fatal { msg: `retry ${r.n}` };
    },
  }
}
function Top(n: int, swallow: bool) -> string {
  if (swallow) {
    let r = Wrap(n) catch (e) {
      let f: Fatal => { return `fatal: ${f.msg}`; },
    };
    return `ok ${r}`;
  }
  `${Wrap(n)}`
}
''', "Top", [{"n": 0, "swallow": False}, {"n": 1, "swallow": False}, {"n": 3, "swallow": False},
              {"n": 1, "swallow": True}, {"n": 5, "swallow": True}]),

"throw_across_frames": (r'''
class Stop {
  depth int
}
function Dive(n: int, at: int) -> int {
  if (n == at) { throw Stop { depth: n }; }
  if (n > 50) { return n; }
  Dive(n + 1, at) + 1
}
function Run(at: int) -> int {
  Dive(0, at) catch (e) {
    let s: Stop => -s.depth,
  }
}
''', "Run", [{"at": 10}, {"at": 0}, {"at": -1}]),

"catch_in_loop": (r'''
function SumValid(xs: string[]) -> int[] {
  let ok = 0;
  let bad = 0;
  for (let s in xs) {
    let v = int.parse(s) catch (e) {
      baml.errors.ParseError => {
        bad += 1;
        continue;
      },
    };
    ok += v;
  }
  [ok, bad]
}
''', "SumValid", [{"xs": ["1", "x", "3", ""]}, {"xs": []}]),

"panics_user": (r'''
function Check(x: int) -> int {
  if (x == 1) { baml.sys.panic("custom"); }
  if (x == 2) { assert.equal(x, 3); }
  if (x == 3) { assert.is_true(x > 5); }
  assert.equal([x], [x]);
  assert.is_true(x != 1);
  x
}
''', "Check", [{"x": 0}, {"x": 1}, {"x": 2}, {"x": 3}]),

"panic_not_caught_by_type": (r'''
function Go(x: int) -> int {
  let r = baml.sys.panic("p") catch (e) {
    let s: string => 1,
    _ => 2,
  };
  r + x
}
''', "Go", [{"x": 1}]),

"assert_caught": (r'''
function Go(x: int) -> string {
  let r = { assert.equal(x, 1); "ok" } catch (e) {
    let a: baml.panics.AssertionFailed => a.message,
  };
  let u = { baml.sys.panic(`u${x}`); "no" } catch (e) {
    let p: baml.panics.UserPanic => p.message,
  };
  `${r} / ${u}`
}
''', "Go", [{"x": 1}, {"x": 2}]),

"index_out_of_bounds": (r'''
function Set(xs: int[], i: int, v: int) -> int[] {
  xs[i] = v;
  xs[i] += 1;
  xs
}
''', "Set", [{"xs": [1, 2], "i": 0, "v": 5}, {"xs": [1, 2], "i": -2, "v": 5}, {"xs": [1, 2], "i": 2, "v": 5},
              {"xs": [1, 2], "i": -3, "v": 5}, {"xs": [], "i": 0, "v": 5}]),

# ---------------------------------------------------------------- syntax
"comments_semicolons": (r'''
/// Doc comment on a function.
function Add(a: int, b: int) -> int {
  // line comment
  let x = a /* inline */ + b
  let y = x * 2 let z = y + 1
  /* block
     spanning lines */
  z
}
/* a block comment with // inside */
function Run(a: int) -> int {
  let r = Add(a, 1)
  r
}
''', "Run", [{"a": 1}, {"a": -1}]),

"paren_free": (r'''
function P(n: int, xs: int[]) -> string {
  let s = "";
  if n > 0 { s += "pos"; } else if n < 0 { s += "neg"; } else { s += "zero"; }
  let k = 0;
  while k < 3 { k += 1; }
  let m = match n { 0 => "z", _ => "nz" };
  `${s} ${k} ${m}`
}
''', "P", [{"n": 1, "xs": []}, {"n": 0, "xs": []}, {"n": -2, "xs": []}]),

"block_values": (r'''
function B(x: int) -> int {
  let a = { x + 1 };
  let b = {
    let t = a * 2;
    {
      let u = t + 1;
      u * 10
    }
  };
  let c = { let q = 1; };
  let d = if (c == null) { 1 } else { 0 };
  a + b + d
}
''', "B", [{"x": 0}, {"x": 4}]),

# ---------------------------------------------------------------- algorithms
"quicksort": (r'''
function QSort(xs: int[]) -> int[] {
  if (xs.length() <= 1) { return xs; }
  let p = xs[0];
  let rest = xs.slice(1, xs.length());
  let lo = QSort(rest.filter((x) => { x < p }));
  let hi = QSort(rest.filter((x) => { x >= p }));
  lo.concat([p]).concat(hi)
}
''', "QSort", [{"xs": [5, 3, 8, 1, 9, 2, 5]}, {"xs": []}, {"xs": [1]}, {"xs": [-1, -2, -3]}]),

"binary_search": (r'''
function BSearch(xs: int[], t: int) -> int {
  let lo = 0;
  let hi = xs.length() - 1;
  while (lo <= hi) {
    let mid = (lo + hi) / 2;
    if (xs[mid] == t) { return mid; }
    if (xs[mid] < t) { lo = mid + 1; } else { hi = mid - 1; }
  }
  -(lo + 1)
}
''', "BSearch", [{"xs": [1, 3, 5, 7, 9], "t": 7}, {"xs": [1, 3, 5, 7, 9], "t": 4}, {"xs": [], "t": 1},
                  {"xs": [1, 3], "t": 0}, {"xs": [1, 3], "t": 10}]),

"sieve": (r'''
function Primes(n: int) -> int[] {
  if (n < 2) { return []; }
  let flags: bool[] = [];
  for (let i = 0; i <= n; i += 1) { flags.push(true); }
  flags[0] = false;
  flags[1] = false;
  for (let i = 2; i * i <= n; i += 1) {
    if (!flags[i]) { continue; }
    for (let j = i * i; j <= n; j += i) { flags[j] = false; }
  }
  let out: int[] = [];
  for (let i = 0; i <= n; i += 1) {
    if (flags[i]) { out.push(i); }
  }
  out
}
''', "Primes", [{"n": 1}, {"n": 2}, {"n": 30}]),

"word_freq": (r'''
function Top(text: string, k: int) -> string[] {
  let counts: map<string, int> = {};
  for (let w in text.to_lower_case().split(" ")) {
    let t = w.trim();
    if (t.is_empty()) { continue; }
    counts[t] = counts.get_or_insert(t, 0) + 1;
  }
  let words = counts.keys();
  words.sort_by((a, b) => {
    let c = counts[b].cmp(counts[a]);
    if (c == baml.ops.Ordering.Equal) { a.cmp(b) } else { c }
  });
  words.slice(0, k).map((w) => { `${w}=${counts[w]}` })
}
''', "Top", [{"text": "b a B c a b", "k": 2}, {"text": "", "k": 3}, {"text": "x  y", "k": 5}]),

"matrix_mult": (r'''
function Mul(a: int[][], b: int[][]) -> int[][] {
  let n = a.length();
  let m = b[0].length();
  let out: int[][] = [];
  for (let i = 0; i < n; i += 1) {
    let row: int[] = [];
    for (let j = 0; j < m; j += 1) {
      let s = 0;
      for (let k = 0; k < b.length(); k += 1) {
        s += a[i][k] * b[k][j];
      }
      row.push(s);
    }
    out.push(row);
  }
  out
}
''', "Mul", [{"a": [[1, 2], [3, 4]], "b": [[5, 6], [7, 8]]}, {"a": [[1, 2, 3]], "b": [[1], [2], [3]]},
              {"a": [[1, 2]], "b": [[1]]}]),

"rle": (r'''
function Rle(s: string) -> string {
  let out = "";
  let prev = "";
  let n = 0;
  for (let c in s.chars()) {
    if (c == prev) {
      n += 1;
    } else {
      if (n > 0) { out += `${n}${prev}`; }
      prev = c;
      n = 1;
    }
  }
  if (n > 0) { out += `${n}${prev}`; }
  out
}
''', "Rle", [{"s": "aaabccdddd"}, {"s": ""}, {"s": "é😀😀"}]),
# ---------------------------------------------------------------- type namespaces
"type_namespace_members": (r'''
function Members(x: int, f: float, s: string, xs: int[], m: map<string, int>, t: bool) -> string[] {
  let parsed = baml.Int.parse("3") + baml.Int.max_value() / 1000000000000;
  let sizes = baml.Array.length(xs) + baml.Map.length(m) + baml.String.length(s);
  let pushed = baml.Array.push(xs, x);
  [
    string.from(baml.Int.pow(x, 2)),
    string.from(baml.Int.abs(x)),
    string.from(parsed),
    string.from(baml.Float.max(f, 1.0) + baml.Float.pi()),
    string.from(baml.Float.floor(f)),
    string.from(baml.String.split(s, "B")),
    baml.String.slice(s, 1, 3),
    string.from(sizes),
    string.from(pushed),
    string.from(baml.Int.cmp(x, 1)),
    string.from(baml.Bool.cmp(t, false)),
    baml.Bool.to_string(t),
    string.from(baml.Map.has(m, "a")),
    string.from(xs),
  ]
}
''', "Members", [{"x": -7, "f": 2.5, "s": "aBc", "xs": [3, 1, 2], "m": {"a": 1}, "t": True},
                {"x": 12, "f": -0.5, "s": "", "xs": [], "m": {}, "t": False}]),

"type_namespace_errors": (r'''
function Parse(s: string) -> int {
  baml.Int.parse(s) catch (e) {
    baml.errors.ParseError => -1,
  }
}
''', "Parse", [{"s": "42"}, {"s": "4x"}, {"s": ""}]),
# ---------------------------------------------------------------- unary precedence
# `-` and `~` bind looser than `*`, `/`, `%` on the engine: `-a * b` is `-(a * b)`.
"unary_minus_precedence": (r'''
function Neg(b: int) -> int[] {
  [-b * 3, -10 / 3 * 3, ~1 * 2, -b + 1 * 2, -(b + 3) % 2, -7 % 3 * 2, ~b % 4]
}
''', "Neg", [{"b": 5}, {"b": -4}, {"b": 0}]),

"unary_minus_overflow": (r'''
function Over(b: int) -> int {
  -(b + 2305843009213693952) * 2
}
''', "Over", [{"b": 0}, {"b": -1}, {"b": 1}]),
}

INVALID = {
# E0150: `-N * 1` negates the product, so `N` stands alone as a literal and is out of range
"negated_product_literal": 'function F() -> int {\n  -4611686018427387904 * 1\n}',
# E0005: optional trailing parameters are required through a type namespace
"type_namespace_optional_arg": 'function F(s: string) -> string { baml.String.slice(s, 1) }',
# E0003: lower-case type namespaces do not exist
"type_namespace_lower_case": 'function F(x: int) -> int { baml.int.abs(x) }',
# E0001 type mismatch
"return_string_for_int": 'function F() -> int {\n  "x"\n}',
"int_to_float_var": 'function F(x: int) -> float {\n  let f: float = x;\n  f\n}',
"wrong_arg_type": 'function G(s: string) -> int { s.length() }\nfunction F() -> int { G(5) }',
"int_plus_eq_float": 'function F() -> int {\n  let n = 1;\n  n += 1.5;\n  n\n}',
"interpolate_optional": 'function F(x: int?) -> string { `${x}` }',
"return_array_for_string": 'function F(xs: int[]) -> string { xs }',
"missing_else_value": 'function F(c: bool) -> string {\n  let s: string = if (c) { "a" };\n  s\n}',
# E0002 unresolved type
"bare_ident_pattern": 'function F(x: int) -> int {\n  match (x) {\n    n => n,\n  }\n}',
"unknown_param_type": 'function F(x: Widget[]) -> int { 0 }',
# E0003 unresolved name
"try_block": 'function F() -> int {\n  try { 1 }\n}',
"undefined_variable": 'function F() -> int {\n  let a = 1;\n  a + b\n}',
"block_scope_leak": 'function F() -> int {\n  {\n    let inner = 1;\n  }\n  inner\n}',
"bare_assert": 'function F() -> int {\n  assert(1 == 1);\n  1\n}',
# E0004 operator
"string_plus_int": 'function F() -> string { "a" + 1 }',
"array_plus_array": 'function F() -> int[] { [1] + [2] }',
"chained_comparison": 'function F() -> bool { 1 < 2 < 3 }',
"enum_ordering": 'enum E {\n  A\n  B\n}\nfunction F() -> bool { E.A < E.B }',
"bitand_precedence": 'function F(a: int) -> int { a & 3 == 1 }',
"string_times_int": 'function F() -> string { "ab" * 3 }',
# E0005 arity
"too_few_args": 'function G(a: int, b: int) -> int { a + b }\nfunction F() -> int { G(1) }',
"default_positional": 'function G(a: int, b: int = 2) -> int { a + b }\nfunction F() -> int { G(1, 3) }',
# E0006 not callable / not iterable
"call_non_function": 'function F() -> int {\n  let x = 3;\n  x(1)\n}',
"iterate_map": 'function F() -> int {\n  let m = {"a": 1};\n  let s = 0;\n  for (let k in m) { s += 1; }\n  s\n}',
# E0007 no member / no field
"no_such_method": 'function F(xs: int[]) -> int { xs.len() }',
"unknown_field_construct": 'class P {\n  a int\n}\nfunction F() -> int {\n  let p = P { a: 1, z: 2 };\n  p.a\n}',
"field_of_optional": 'class B {\n  v int\n}\nclass A {\n  b B?\n}\nfunction F(a: A) -> int { a.b.v }',
"no_such_field_read": 'class P {\n  a int\n}\nfunction F(p: P) -> int { p.b }',
# E0008
"index_int": 'function F(x: int) -> int { x[0] }',
# E0010 syntax
"chained_assignment": 'function F() -> int {\n  let a = 1;\n  let b = 2;\n  a = b = 3;\n  a\n}',
"leading_dot_float": 'function F() -> float { .5 }',
"trailing_dot_float": 'function F() -> float { 5. }',
"ternary": 'function F(c: bool) -> int { c ? 1 : 2 }',
"non_null_assertion": 'function F(x: int?) -> int { x! }',
"single_quotes": "function F() -> string { 'abc' }",
"missing_return_type": 'function F() {\n  1\n}',
"plus_plus": 'function F() -> int {\n  let i = 0;\n  i++;\n  i\n}',
"class_field_default": 'class P {\n  y int = 7\n}\nfunction F() -> int { 1 }',
"enum_explicit_value": 'enum E {\n  A = 1\n}\nfunction F() -> int { 1 }',
"let_without_init": 'function F() -> int {\n  let x: int;\n  1\n}',
"unclosed_block": 'function F() -> int {\n  let x = 1;\n  x\n',
"named_arg_colon": 'function G(a: int) -> int { a }\nfunction F() -> int { G(a: 1) }',
"non_ascii_ident": 'function F() -> int {\n  let café = 1;\n  café\n}',
"keyword_as_name": 'function F() -> int {\n  let match = 1;\n  match\n}',
# E0011 / E0012 duplicates
"duplicate_class": 'class P {\n  a int\n}\nclass P {\n  b int\n}\nfunction F() -> int { 1 }',
"duplicate_field": 'class P {\n  a int\n  a string\n}\nfunction F() -> int { 1 }',
# E0015 / E0016 attributes
"check_attribute": 'class P {\n  age int @check(pos, {{ this > 0 }})\n}\nfunction F() -> int { 1 }',
"dynamic_attribute": 'class P {\n  a int\n  @@dynamic\n}\nfunction F() -> int { 1 }',
"enum_dynamic": 'enum E {\n  A\n  @@dynamic\n}\nfunction F() -> int { 1 }',
"class_attr_before_method": 'class P {\n  a int\n  @@alias("Q")\n  function m(self) -> int { self.a }\n}\nfunction F() -> int { 1 }',
# E0029 missing value
"block_semicolon_value": 'function F() -> int {\n  let x = { 1; };\n  x\n}',
"block_semicolon_typed": 'function F() -> int {\n  let x: int = { 1; };\n  x\n}',
"body_ends_with_semicolon": 'function F() -> int {\n  1;\n}',
# E0062 / E0063 match checks
"non_exhaustive_enum": 'enum E {\n  A\n  B\n  C\n}\nfunction F(e: E) -> int {\n  match (e) {\n    E.A => 1,\n    E.B => 2,\n  }\n}',
"non_exhaustive_bool": 'function F(b: bool) -> int {\n  match (b) {\n    true => 1,\n  }\n}',
"unreachable_after_wildcard": 'function F(x: int) -> int {\n  match (x) {\n    _ => 1,\n    0 => 2,\n  }\n}',
# E0098 removed
"legacy_block_string_prompt": 'function F() -> string {\n  #"hi"#\n}',
"enum_literal_type_reassign": 'enum E {\n  A\n  B\n}\nfunction F() -> E {\n  let e = E.A;\n  e = E.B;\n  e\n}',
"method_without_call": 'function F(s: string) -> int { s.length }',
"root_binding": 'function F() -> int {\n  let root = 1;\n  root\n}',
"return_wrong_type_early": 'function F(x: int) -> int {\n  if (x > 0) { return "pos"; }\n  x\n}',
"static_call_on_method": 'class C {\n  n int\n  function get(self) -> int { self.n }\n}\nfunction F() -> int { C.get() }',
# E0150 int literal range
"int_literal_negative_range": 'function F() -> int { 0x4000000000000000 }',
"int_literal_huge": 'function F() -> int { 99999999999999999999 }',
# E0151 function type throws clause
"fn_type_without_throws": 'function F() -> (int) -> int {\n  (x: int) -> int { x }\n}',
# E0155 annotations needed
"empty_map_literal": 'function F() -> int {\n  let m = {};\n  1\n}',
"empty_array_compare": 'function F() -> bool { [] == [] }',
"empty_array_let": 'function F() -> int {\n  let xs = [];\n  0\n}',
}


def plain(v):
    """Turn the bridge's result into plain JSON values (pydantic models -> dicts)."""
    if isinstance(v, pydantic.BaseModel):
        return {k: plain(x) for k, x in dict(v).items()}
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        raise ValueError(f"non-JSON float {v!r}: render it to a string inside the program")
    return v


def run(src, fn, args):
    rt = b.BamlRuntime.initialize_runtime(".", {"main.baml": src})
    set_type_map(_AnyClassMap())  # only while calling; compile errors keep their plain message
    cases = []
    try:
        for a in args:
            try:
                cases.append({"args": a, "expect": plain(b.call_function_sync(rt, fn, a).result())})
            except ValueError:
                raise
            except BaseException as e:
                msg = str(e)
                cls = getattr(e, "class_name", None)  # e.g. "baml.panics.DivisionByZero", "baml.errors.ParseError", "user.Bad"
                m = re.search(r"'(baml\.panics\.[A-Za-z]+)'", msg) or re.search(r"(baml\.panics\.[A-Za-z]+)", msg)
                name = cls if cls else (m.group(1) if m else None)
                cases.append({"args": a, "error": name.split(".")[-1] if name else msg})
    finally:
        set_type_map(BamlTypeMap())
    return cases


def main(only=()):
    (HERE / "invalid").mkdir(exist_ok=True)
    bad = 0
    for name, (src, fn, args) in PROGRAMS.items():
        if only and name not in only and "valid" not in only:
            continue
        src = src.lstrip()  # compile exactly the text of NAME.baml
        try:
            cases = run(src, fn, args)
        except ValueError as e:
            print(name, "NOT JSON", e)
            bad += 1
            continue
        except BaseException as e:
            print(name, "COMPILE ERROR", str(e)[:400])
            bad += 1
            for p in (HERE / f"{name}.baml", HERE / f"{name}.json"):
                p.unlink(missing_ok=True)
            continue
        odd = [c["error"] for c in cases if "error" in c and not re.fullmatch(r"[A-Za-z_]\w*", c["error"])]
        if odd:
            print(name, "ERROR WITHOUT A CLASS NAME", odd)
            bad += 1
        (HERE / f"{name}.baml").write_text(src)
        (HERE / f"{name}.json").write_text(json.dumps({"function": fn, "cases": cases}, indent=1, allow_nan=False,
                                                      ensure_ascii=False) + "\n")
        print(name, json.dumps(cases, ensure_ascii=False)[:300])
    for name, src in INVALID.items():
        if only and name not in only and "invalid" not in only:
            continue
        src += "\n"  # compile exactly the text of invalid/NAME.baml
        try:
            b.BamlRuntime.initialize_runtime(".", {"main.baml": src})
        except BaseException as e:
            print("invalid", name, str(e)[:200])
            (HERE / "invalid" / f"{name}.baml").write_text(src)
            (HERE / "invalid" / f"{name}.error").write_text(str(e) + "\n")
            continue
        print("invalid", name, "ACCEPTED?!")
        bad += 1
        for p in (HERE / "invalid" / f"{name}.baml", HERE / "invalid" / f"{name}.error"):
            p.unlink(missing_ok=True)
    return bad


if __name__ == "__main__":
    sys.exit(1 if main(set(sys.argv[1:])) else 0)
