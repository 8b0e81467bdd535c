"""The language corpus: programs written for each language feature, run on the real engine by
generate.py. `PROGRAMS[NAME] = (source, function, [args, ...])`; `INVALID[NAME] = source`.

Enum values are never passed as arguments: the bridge cannot hand an enum argument to the engine
(`c == Color.Red` is false for the argument "Red"), so programs build enum values themselves.
"""

PROGRAMS: dict[str, tuple[str, str, list[dict]]] = {}
INVALID: dict[str, str] = {}


def program(name: str, fn: str, args: list[dict], source: str) -> None:
    assert name not in PROGRAMS, name
    PROGRAMS[name] = (source, fn, args)


def invalid(name: str, source: str) -> None:
    assert name not in INVALID, name
    INVALID[name] = source


# ------------------------------------------------------------------ `is` with patterns
program("is_type_union", "Kind", [{"v": 1}, {"v": "s"}, {"v": True}, {"v": 2.5}], r'''
function Kind(v: int | bool | string | float) -> bool[] {
  [v is int | bool, v is let _, v is string, v is float | string]
}''')

program("is_int_literals", "Small", [{"n": 1}, {"n": 3}, {"n": 4}, {"n": -1}], r'''
function Small(n: int) -> bool {
  n is 1 | 2 | 3
}''')

program("is_string_literals", "IsGreeting", [{"s": "hi"}, {"s": "hello"}, {"s": "bye"}], r'''
function IsGreeting(s: string) -> string {
  if (s is "hi" | "hello" | "hey") { "greeting" } else { "other" }
}''')

program("is_enum_variant", "Warm", [{"n": 0}, {"n": 1}, {"n": 2}], r'''
enum Color { Red Green Blue }
function Pick(n: int) -> Color {
  match (n) { 0 => Color.Red, 1 => Color.Green, _ => Color.Blue }
}
function Warm(n: int) -> bool[] {
  let c = Pick(n);
  [c is Color.Red, c is Color.Red | Color.Blue, c is Color]
}''')

program("is_wildcard_bind", "Any", [{"v": None}, {"v": 0}], r'''
function Any(v: int?) -> bool[] {
  [v is let _, v is _, v is null, v is int]
}''')

program("is_class_shape", "Flag", [{"x": 0}, {"x": 5}], r'''
class Point { x int y int }
function Flag(x: int) -> bool[] {
  let p = Point { x: x, y: 2 };
  [p is Point { x: 0 }, p is Point { y: 2 }, p is Point]
}''')

program("is_narrows_union", "Twice", [{"v": 4}, {"v": "ab"}, {"v": False}], r'''
function Twice(v: int | string | bool) -> string {
  if (v is int | string) {
    `${v}${v}`
  } else {
    "no"
  }
}''')

program("is_in_filter", "Evens", [{"xs": [1, 2, 3, 4, 6, 9]}], r'''
function Evens(xs: int[]) -> int[] {
  xs.filter((x: int) -> bool { x is 2 | 4 | 6 | 8 })
}''')

program("is_negated", "Keep", [{"xs": ["a", "b", "skip", "c", "drop"]}], r'''
function Keep(xs: string[]) -> string[] {
  let out: string[] = [];
  for (let x in xs) {
    if (!(x is "skip" | "drop")) {
      out.push(x);
    }
  }
  out
}''')

# ------------------------------------------------------------------ match arms
program("match_newline_arms", "Name", [{"n": 1}, {"n": 2}, {"n": 7}], r'''
function Name(n: int) -> string {
  match (n) {
    1 => "one"
    2 => "two"
    _ => "many"
  }
}''')

program("match_newline_mixed", "Grade", [{"score": 95}, {"score": 85}, {"score": 10}], r'''
function Grade(score: int) -> string {
  let bucket = score / 10;
  match (bucket) {
    10 | 9 => "A"
    8 => { "B" }
    7 => "C",
    _ => "F"
  }
}''')

program("match_paren_or", "Size", [{"n": 1}, {"n": 2}, {"n": 5}, {"n": 100}], r'''
function Size(n: int) -> string {
  match (n) {
    (1 | 2) => "small",
    (3 | 4 | 5) => "medium",
    _ => "large",
  }
}''')

program("match_paren_single", "Zero", [{"n": 0}, {"n": 1}], r'''
function Zero(n: int) -> bool {
  match (n) {
    (0) => true,
    _ => false,
  }
}''')

program("match_or_binding", "Value", [{"k": 0, "v": 3}, {"k": 1, "v": 4}], r'''
class A { x int }
class B { x int }
function Make(k: int, v: int) -> A | B {
  if (k == 0) { A { x: v } } else { B { x: v * 10 } }
}
function Value(k: int, v: int) -> int {
  match (Make(k, v)) {
    A { x } | B { x } => x,
  }
}''')

program("match_or_binding_field_pattern", "Label", [{"k": 0}, {"k": 1}, {"k": 2}], r'''
class Cat { name string lives int }
class Dog { name string good bool }
function Make(k: int) -> Cat | Dog | string {
  match (k) {
    0 => Cat { name: "Tom", lives: 9 },
    1 => Dog { name: "Rex", good: true },
    _ => "nobody",
  }
}
function Label(k: int) -> string {
  match (Make(k)) {
    Cat { name: let n } | Dog { name: let n } => `pet ${n}`,
    string => "none",
  }
}''')

program("match_or_binding_guard", "Big", [{"k": 0, "v": 3}, {"k": 1, "v": 30}, {"k": 0, "v": 50}], r'''
class A { x int }
class B { x int }
function Big(k: int, v: int) -> string {
  let item = if (k == 0) { A { x: v } } else { B { x: v } };
  match (item) {
    A { x } | B { x } if x > 10 => `big ${x}`,
    _ => "small",
  }
}''')

program("match_enum_or", "Weekend", [{"n": 0}, {"n": 5}, {"n": 6}], r'''
enum Day { Mon Tue Wed Thu Fri Sat Sun }
function DayOf(n: int) -> Day {
  match (n) {
    0 => Day.Mon, 1 => Day.Tue, 2 => Day.Wed, 3 => Day.Thu, 4 => Day.Fri, 5 => Day.Sat, _ => Day.Sun,
  }
}
function Weekend(n: int) -> bool {
  match (DayOf(n)) {
    Day.Sat | Day.Sun => true,
    _ => false,
  }
}''')

# ------------------------------------------------------------------ lambdas and function types
program("lambda_throws_clause", "Safe", [{"n": 3}, {"n": -2}], r'''
class Bad { code int }
function Safe(n: int) -> int {
  let f = (x: int) -> int throws Bad {
    if (x < 0) { throw Bad { code: x }; }
    x
  };
  f(n) catch (e) { let b: Bad => b.code * 10 }
}''')

program("lambda_arrow_throws", "Safe", [{"n": 3}, {"n": -2}], r'''
class Bad { code int }
function Safe(n: int) -> int {
  let f = (x: int) => throws Bad {
    if (x < 0) { throw Bad { code: x }; }
    x * 2
  };
  f(n) catch (e) { let b: Bad => b.code }
}''')

program("lambda_inferred_return", "Run", [{"xs": [1, 2, 3]}], r'''
function Run(xs: int[]) -> string[] {
  let label = (x: int) => { `#${x}` };
  xs.map(label)
}''')

program("lambda_untyped_params", "Sum", [{"xs": [1, 2, 3, 4]}], r'''
function Sum(xs: int[]) -> int {
  let total = 0;
  xs.map((x) => { x * x }).filter((y) => { y > 1 }).map((z) => { total += z; z });
  total
}''')

program("fn_param_no_throws", "Twice", [{"n": 3}, {"n": -4}], r'''
function Apply(f: (int) -> int, x: int) -> int { f(f(x)) }
function Twice(n: int) -> int {
  Apply((x: int) -> int { x * 2 + 1 }, n)
}''')

program("fn_param_named_function", "Run", [{"s": "ab"}], r'''
function Shout(s: string) -> string { s.to_upper_case() + "!" }
function Each(f: (string) -> string, xs: string[]) -> string[] { xs.map(f) }
function Run(s: string) -> string[] {
  Each(Shout, [s, "c"])
}''')

program("fn_param_two_args", "Fold", [{"xs": [1, 2, 3, 4]}], r'''
function Reduce(xs: int[], f: (int, int) -> int, init: int) -> int {
  let acc = init;
  for (let x in xs) { acc = f(acc, x); }
  acc
}
function Fold(xs: int[]) -> int[] {
  [Reduce(xs, (a: int, b: int) -> int { a + b }, 0), Reduce(xs, (a: int, b: int) -> int { a * b }, 1)]
}''')

program("fn_param_throwing_callback", "Try", [{"n": 2}, {"n": 0}], r'''
function Call(f: (int) -> int, x: int) -> int { f(x) }
function Try(n: int) -> int {
  Call((x: int) -> int { 100 / x }, n) catch (e) { baml.panics.DivisionByZero => -1 }
}''')

# ------------------------------------------------------------------ const bindings
program("for_const_in", "Total", [{"xs": [1, 2, 3]}, {"xs": []}], r'''
function Total(xs: int[]) -> int {
  let s = 0;
  for (const x in xs) { s += x; }
  s
}''')

program("const_local", "Area", [{"w": 3, "h": 4}], r'''
function Area(w: int, h: int) -> int {
  const a = w * h;
  const label = "area";
  if (label == "area") { a } else { 0 }
}''')

program("for_const_c_style", "Sum", [{"n": 4}], r'''
function Sum(n: int) -> int {
  let s = 0;
  for (const i = 0; i < n; i += 1) { s += i; }
  s
}''')

# ------------------------------------------------------------------ throw and catch
program("throw_int_caught", "F", [{}], r'''
function Fail() -> int { throw 1; }
function F() -> int {
  Fail() catch (e) { _ => 2 }
}''')

program("throw_paren_caught", "F", [{"n": 1}, {"n": 5}], r'''
function F(n: int) -> int {
  (throw n) catch (e) {
    1 => 10,
    _ => 20,
  }
}''')

program("catch_binds_payload", "F", [{"n": 3}, {"n": 0}], r'''
class Oops { why string }
function Risky(n: int) -> int {
  if (n == 0) { throw Oops { why: "zero" }; }
  n * 2
}
function F(n: int) -> string {
  let r = Risky(n) catch (e) {
    Oops { why } => { return `caught ${why}`; }
  };
  `ok ${r}`
}''')

program("catch_tighter_than_plus", "F", [{}], r'''
function G() -> int { throw 5; }
function F() -> int {
  let x = 1 + G() catch (e) { _ => 2 };
  x
}''')

program("catch_string_literal_arm", "F", [{"s": "a"}, {"s": "b"}, {"s": "c"}], r'''
function Raise(s: string) -> string {
  if (s == "c") { return "fine"; }
  throw s;
}
function F(s: string) -> string {
  Raise(s) catch (e) {
    "a" => "got a",
    "b" | "z" => "got b",
  }
}''')

# ------------------------------------------------------------------ unbound method references
program("unbound_method_map", "Names", [{}], r'''
class Employee {
  first string
  last string
  function full_name(self) -> string { self.first + " " + self.last }
}
function Names() -> string[] {
  let staff = [Employee { first: "Ada", last: "Lovelace" }, Employee { first: "Alan", last: "Turing" }];
  staff.map(Employee.full_name)
}''')

program("unbound_method_call", "Tags", [{"n": "x"}], r'''
class Item {
  n string
  function plain(self) -> string { self.n }
  function tagged(self, t: string) -> string { t + self.n }
}
function Tags(n: string) -> string[] {
  let it = Item { n: n };
  [Item.plain(it), Item.tagged(it, "#")]
}''')

program("unbound_method_filter", "Adults", [{"ages": [3, 30, 18, 70]}], r'''
class Person {
  age int
  function adult(self) -> bool { self.age >= 18 }
}
function Adults(ages: int[]) -> int {
  let people = ages.map((a: int) -> Person { Person { age: a } });
  people.filter(Person.adult).length()
}''')

program("unbound_method_as_value", "Run", [{}], r'''
class Counter {
  n int
  function twice(self) -> int { self.n * 2 }
}
function Run() -> int {
  let f = Counter.twice;
  f(Counter { n: 21 })
}''')

program("static_method_value", "Run", [{"xs": [1, 2, 3]}], r'''
class Math {
  function square(x: int) -> int { x * x }
}
function Run(xs: int[]) -> int[] {
  xs.map(Math.square)
}''')

# ------------------------------------------------------------------ let with patterns
program("let_class_destructure", "Sum", [{"p": {"x": 1, "y": 2}}], r'''
class Point { x int y int }
function Sum(p: Point) -> int {
  let Point { x, y } = p;
  x + y
}''')

program("let_class_nested_wildcard", "First", [{}], r'''
class Pair { a string b string }
function First() -> string {
  let Pair { a, b: _ } = Pair { a: "left", b: "right" };
  a
}''')

program("let_else_typed", "Next", [{"v": 1}, {"v": "s"}], r'''
function Next(v: int | string) -> int {
  let n: int = v else { return -1; };
  n + 1
}''')

program("let_else_class", "Size", [{"k": 0}, {"k": 1}], r'''
class Small { size int }
class Large { size int extra string }
function Make(k: int) -> Small | Large {
  if (k == 0) { Small { size: 5 } } else { Large { size: 50, extra: "x" } }
}
function Size(k: int) -> int {
  let Small { size } = Make(k) else { return -1; };
  size
}''')

program("let_else_optional", "Len", [{"s": "abc"}, {"s": None}], r'''
function Len(s: string?) -> int {
  let text: string = s else { return 0; };
  text.length()
}''')

program("let_else_in_loop", "Count", [{"xs": [1, "a", 2, "b", 3]}], r'''
function Count(xs: (int | string)[]) -> int {
  let total = 0;
  for (let x in xs) {
    let n: int = x else { continue; };
    total += n;
  }
  total
}''')

program("let_else_throw", "Parse", [{"v": 4}, {"v": "no"}], r'''
class Invalid { what string }
function Need(v: int | string) -> int {
  let n: int = v else { throw Invalid { what: "not a number" }; };
  n * 10
}
function Parse(v: int | string) -> string {
  let r = Need(v) catch (e) { Invalid { what } => { return what; } };
  `${r}`
}''')

invalid("let_refutable_class", r'''
class Point { x int y int }
function F(p: Point) -> int {
  let Point { x: a, y: let b } = p;
  b
}''')

invalid("let_refutable_typed", r'''
function F(v: int | string) -> int {
  let Point { x } = v;
  x
}''')

invalid("enum_variant_assign", r'''
enum Shape { Circle Square }
function F() -> int {
  Shape.Circle = Shape.Circle;
  1
}''')

invalid("unbound_method_no_receiver", r'''
class E {
  n string
  function full(self) -> string { self.n }
}
function F() -> string { E.full() }''')

invalid("unbound_method_too_many", r'''
class E {
  n string
  function tag(self, t: string) -> string { t + self.n }
}
function F() -> string { E.tag(E { n: "a" }, "b", "c") }''')

invalid("unbound_method_wrong_receiver", r'''
class E {
  n string
  function full(self) -> string { self.n }
}
function F() -> string { E.full("x") }''')

invalid("is_binding_not_in_scope", r'''
function F(v: int | string) -> int {
  if (v is let n: int) { n + 1 } else { 0 }
}''')

invalid("throw_catch_statement_value", r'''
function G() -> int { throw 5; }
function F() -> int { throw G() catch (e) { _ => 2 } }''')

invalid("fn_type_let_needs_throws", r'''
function F(n: int) -> int {
  let f: (int) -> int = (x: int) -> int { x + 1 };
  f(n)
}''')

# ------------------------------------------------------------------ unreachable and missing arms
invalid("unreachable_duplicate_literal", r'''
function F(n: int) -> string {
  match (n) {
    1 => "a",
    1 => "b",
    _ => "c",
  }
}''')

invalid("unreachable_duplicate_variant", r'''
enum Tone { Warm Cold }
function F(t: Tone) -> string {
  match (t) {
    Tone.Warm => "a",
    Tone.Cold => "b",
    Tone.Warm => "c",
  }
}''')

invalid("unreachable_after_binding", r'''
function F(n: int) -> string {
  match (n) {
    let k => `${k}`,
    2 => "two",
  }
}''')

invalid("unreachable_after_wildcard_twice", r'''
function F(n: int) -> string {
  match (n) {
    _ => "a",
    2 => "b",
    3 => "c",
  }
}''')

invalid("unreachable_duplicate_type", r'''
function F(v: int | string) -> string {
  match (v) {
    int => "a",
    int => "b",
    string => "c",
  }
}''')

invalid("unreachable_after_all_variants", r'''
enum Tone { Warm Cold }
function F(t: Tone) -> string {
  match (t) {
    Tone.Warm => "a",
    Tone.Cold => "b",
    _ => "c",
  }
}''')

invalid("unreachable_literal_after_type", r'''
function F(n: int) -> string {
  match (n) {
    int => "a",
    1 => "b",
  }
}''')

invalid("unreachable_after_true_false", r'''
function F(b: bool) -> string {
  match (b) {
    true => "a",
    false => "b",
    _ => "c",
  }
}''')

invalid("unreachable_class_shape_after_class", r'''
class Box { n int }
function F(b: Box) -> string {
  match (b) {
    Box => "any box",
    Box { n: 1 } => "one",
  }
}''')

# The engine does not report a guarded arm as unreachable, even after the same literal.
program("guarded_arm_after_same_literal", "F", [{"n": 1}, {"n": 2}], r'''
function F(n: int) -> string {
  match (n) {
    1 => "a",
    1 if n > 0 => "b",
    _ => "c",
  }
}''')

invalid("unreachable_string_in_or", r'''
function F(s: string) -> string {
  match (s) {
    "a" | "b" => "first",
    "b" | "a" => "again",
    _ => "other",
  }
}''')

invalid("non_exhaustive_enum", r'''
enum Tone { Warm Cold Neutral }
function F(t: Tone) -> string {
  match (t) {
    Tone.Warm => "a",
    Tone.Cold => "b",
  }
}''')

invalid("non_exhaustive_union", r'''
class A { x int }
class B { y int }
function F(v: A | B | null) -> int {
  match (v) {
    A => 1,
    null => 0,
  }
}''')

invalid("catch_arm_return_wrong_type", r'''
function G() -> int { throw "x"; }
function F() -> int {
  G() catch (e) { _ => { return "s"; } }
}''')

invalid("catch_arm_let_return_wrong_type", r'''
function G() -> int { throw "x"; }
function F() -> int {
  let v = G() catch (e) { _ => { return "s"; } };
  v
}''')

invalid("catch_arm_value_wrong_type", r'''
function G() -> int { throw "x"; }
function F() -> int {
  G() catch (e) { _ => "fallback" }
}''')

program("overlapping_or_arms", "Kind", [{"n": 2}, {"n": 3}, {"n": 9}], r'''
function Kind(n: int) -> string {
  match (n) {
    1 | 2 => "low",
    2 | 3 => "mid",
    _ => "high",
  }
}''')

program("guarded_then_same_literal", "Sign", [{"n": 1}, {"n": 0}], r'''
function Sign(n: int) -> string {
  match (n) {
    1 if n > 0 => "guarded one",
    1 => "one",
    _ => "other",
  }
}''')

program("catch_arms_not_checked_for_reachability", "F", [{}], r'''
function G() -> int { throw "x"; }
function F() -> int {
  G() catch (e) {
    "x" => 1,
    "x" => 2,
  }
}''')

program("catch_wildcard_then_panic", "F", [{"d": 0}, {"d": 5}], r'''
function F(d: int) -> int {
  (10 / d) catch (e) {
    _ => -1,
    baml.panics.DivisionByZero => -2,
  }
}''')

program("match_class_shapes_then_class", "Describe", [{"n": 1}, {"n": 2}, {"n": 3}], r'''
class Box { n int }
function Describe(n: int) -> string {
  match (Box { n: n }) {
    Box { n: 1 } => "one",
    Box { n: 2 } => "two",
    Box => "other",
  }
}''')

program("match_bool_exhaustive", "Word", [{"b": True}, {"b": False}], r'''
function Word(b: bool) -> string {
  match (b) {
    true => "yes",
    false => "no",
  }
}''')

invalid("match_arm_wrong_type", r'''
function F(n: int) -> int {
  match (n) { 1 => "a", _ => 2 }
}''')

invalid("match_arm_wrong_type_in_let", r'''
function F(n: int) -> int {
  let x: int = match (n) { 1 => "a", _ => 2 };
  x
}''')

invalid("if_branch_wrong_type", r'''
function F(n: int) -> int {
  if (n == 1) { "a" } else { 2 }
}''')

# ------------------------------------------------------------------ generics (checked by erasure)
program("generic_identity", "Run", [{"n": 4}], r'''
function Id<T>(x: T) -> T { x }
function Run(n: int) -> int[] {
  [Id(n), Id<int>(n + 1)]
}''')

program("generic_first_or_null", "Head", [{"xs": ["a", "b"]}, {"xs": []}], r'''
function First<T>(xs: T[]) -> T? {
  if (xs.length() > 0) { xs[0] } else { null }
}
function Head(xs: string[]) -> string {
  First(xs) ?? "none"
}''')

program("generic_class_literal", "Unbox", [{"n": 4}], r'''
class Box<T> { value T }
function Unbox(n: int) -> int {
  let b = Box<int> { value: n };
  b.value * 2
}''')

program("generic_class_method", "Get", [{"n": 4}], r'''
class Box<T> {
  value T
  function get(self) -> T { self.value }
}
function Get(n: int) -> int {
  let b: Box<int> = Box { value: n };
  b.get() + 1
}''')

program("generic_pair_return", "Make", [{"n": 4}], r'''
class Pair<A, B> { first A second B }
function Make(n: int) -> Pair<int, string> {
  Pair<int, string> { first: n, second: `#${n}` }
}''')

program("generic_map_values", "Lengths", [{"words": ["a", "bcd", ""]}], r'''
function Apply<T, U>(xs: T[], f: (T) -> U) -> U[] {
  let out: U[] = [];
  for (let x in xs) { out.push(f(x)); }
  out
}
function Lengths(words: string[]) -> int[] {
  Apply(words, (w: string) -> int { w.length() })
}''')

program("generic_nested_type_args", "Count", [{}], r'''
class Bag<T> { items T[] }
function Count() -> int {
  let b = Bag<map<string, int>> { items: [{"a": 1}, {"b": 2}] };
  b.items.length()
}''')

program("generic_less_than_still_compares", "Less", [{"a": 1, "b": 2}, {"a": 3, "b": 2}], r'''
function Less(a: int, b: int) -> bool {
  let x = a < b;
  x
}''')

invalid("generic_unknown_type_argument", r'''
class Box<T> { value T }
function F() -> int {
  let b: Box<Missing> = Box { value: 1 };
  1
}''')
