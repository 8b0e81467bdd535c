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

# ------------------------------------------------------------------ everyday programs around LLM calls
program("classify_ticket", "Route", [{"text": "my card was charged twice"}, {"text": "app crashes on start"}, {"text": "hello"}], r'''
enum Team { Billing Engineering Support }
class Ticket { text string team Team priority int }
function Route(text: string) -> string {
  let team = if (text.includes("charge") || text.includes("refund")) {
    Team.Billing
  } else if (text.includes("crash") || text.includes("error")) {
    Team.Engineering
  } else {
    Team.Support
  };
  let t = Ticket { text: text, team: team, priority: if (team == Team.Engineering) { 1 } else { 3 } };
  match (t.team) {
    Team.Billing => `billing:${t.priority}`,
    Team.Engineering => `eng:${t.priority}`,
    Team.Support => `support:${t.priority}`,
  }
}''')

program("extract_fields_optional", "Summary", [{"r": {"name": "Ada", "email": None, "age": 36}}, {"r": {"name": "Bob", "email": "b@x.io", "age": None}}], r'''
class Resume { name string email string? age int? }
function Summary(r: Resume) -> string {
  let contact = r.email ?? "no email";
  let age = `${r.age ?? 0}`;
  `${r.name} <${contact}> ${age}`
}''')

program("score_answers", "Score", [{"answers": ["A", "b", "C", "d"], "key": ["A", "B", "D", "D"]}], r'''
function Score(answers: string[], key: string[]) -> int {
  let score = 0;
  for (let i = 0; i < answers.length(); i += 1) {
    if (answers[i].to_upper_case() == key[i]) {
      score += 1;
    }
  }
  score
}''')

program("word_counts_map", "Counts", [{"text": "a b a c b a"}], r'''
function Counts(text: string) -> map<string, int> {
  let counts: map<string, int> = {};
  for (let w in text.split(" ")) {
    counts[w] = (counts[w] ?? 0) + 1;
  }
  counts
}''')

program("nested_class_update", "Bump", [{}], r'''
class Usage { prompt int completion int }
class Reply { text string usage Usage }
function Bump() -> int {
  let r = Reply { text: "hi", usage: Usage { prompt: 10, completion: 5 } };
  r.usage.completion += 7;
  r.usage.prompt + r.usage.completion
}''')

program("retry_loop_with_catch", "Attempts", [{"fail_until": 2}, {"fail_until": 9}], r'''
class Flaky { attempt int }
function Call(attempt: int, fail_until: int) -> string {
  if (attempt < fail_until) { throw Flaky { attempt: attempt }; }
  `ok after ${attempt}`
}
function Attempts(fail_until: int) -> string {
  let attempt = 0;
  while (attempt < 5) {
    let r = Call(attempt, fail_until) catch (e) {
      Flaky { attempt } => { null }
    };
    if (r != null) { return r; }
    attempt += 1;
  }
  "gave up"
}''')

program("closure_counter", "Count", [{"n": 4}], r'''
function Count(n: int) -> int {
  let calls = 0;
  let tick = () -> int { calls += 1; calls };
  for (let i = 0; i < n; i += 1) { tick(); }
  calls * 10 + tick()
}''')

program("closure_captures_loop_var", "Fns", [{}], r'''
function Fns() -> int[] {
  let fs: ((int) -> int throws never)[] = [];
  for (let k in [1, 2, 3]) {
    fs.push((x: int) -> int { x * k });
  }
  fs.map((f: (int) -> int throws never) -> int { f(10) })
}''')

program("recursive_tree_sum", "Sum", [{}], r'''
class Node { value int children Node[] }
function Total(n: Node) -> int {
  let s = n.value;
  for (let c in n.children) { s += Total(c); }
  s
}
function Sum() -> int {
  Total(Node { value: 1, children: [Node { value: 2, children: [] }, Node { value: 3, children: [Node { value: 4, children: [] }] }] })
}''')

program("match_union_types", "Render", [{"v": 3}, {"v": "x"}, {"v": [1, 2]}, {"v": None}], r'''
function Render(v: int | string | int[] | null) -> string {
  match (v) {
    int => "number",
    string => "text",
    int[] => "list",
    null => "nothing",
  }
}''')

program("match_bind_typed", "Double", [{"v": 3}, {"v": "ab"}], r'''
function Double(v: int | string) -> string {
  match (v) {
    let n: int => `${n * 2}`,
    let s: string => s + s,
  }
}''')

program("match_guard_ranges", "Bucket", [{"n": -5}, {"n": 0}, {"n": 7}, {"n": 50}], r'''
function Bucket(n: int) -> string {
  match (n) {
    let k if k < 0 => "negative",
    0 => "zero",
    let k if k < 10 => "small",
    _ => "large",
  }
}''')

program("match_array_patterns", "Shape", [{"xs": []}, {"xs": [1]}, {"xs": [1, 2, 3]}], r'''
function Shape(xs: int[]) -> string {
  match (xs) {
    [] => "empty",
    [let only] => `one ${only}`,
    [let first, ..let rest] => `first ${first} then ${rest.length()}`,
  }
}''')

program("match_class_fields", "Area", [{"k": 0}, {"k": 1}, {"k": 2}], r'''
class Circle { r int }
class Rect { w int h int }
function Make(k: int) -> Circle | Rect {
  match (k) { 0 => Circle { r: 2 }, 1 => Rect { w: 2, h: 3 }, _ => Rect { w: 0, h: 9 } }
}
function Area(k: int) -> int {
  match (Make(k)) {
    Circle { r } => 3 * r * r,
    Rect { w: 0 } => 0,
    Rect { w, h } => w * h,
  }
}''')

program("optional_chaining", "City", [{"u": {"name": "a", "address": {"city": "Paris"}}}, {"u": {"name": "b", "address": None}}], r'''
class Address { city string }
class User { name string address Address? }
function City(u: User) -> string {
  u.address?.city ?? "unknown"
}''')

program("if_let_narrowing", "Describe", [{"v": 5}, {"v": None}], r'''
function Describe(v: int?) -> string {
  if let n: int = v {
    `got ${n + 1}`
  } else {
    "none"
  }
}''')

program("null_check_narrowing", "Len", [{"s": "hello"}, {"s": None}], r'''
function Len(s: string?) -> int {
  if (s == null) { return -1; }
  s.length()
}''')

program("template_multiline", "Prompt", [{"name": "Ada", "items": ["x", "y"]}], r'''
function Prompt(name: string, items: string[]) -> string {
  let list = items.join(", ");
  `Hello ${name}!
You have ${items.length()} items: ${list}.`
}''')

program("string_methods_chain", "Clean", [{"s": "  Hello World  "}], r'''
function Clean(s: string) -> string[] {
  let t = s.trim();
  [t.to_lower_case(), t.replace("World", "BAML"), `${t.length()}`]
}''')

program("array_methods_chain", "Stats", [{"xs": [5, 3, 8, 1]}], r'''
function Stats(xs: int[]) -> int[] {
  let doubled = xs.map((x: int) -> int { x * 2 });
  let big = doubled.filter((x: int) -> bool { x > 5 });
  [doubled.length(), big.length(), big[0]]
}''')

program("map_keys_iteration", "Keys", [{"m": {"b": 2, "a": 1}}], r'''
function Keys(m: map<string, int>) -> string {
  let out = "";
  for (let k in m.keys()) {
    out += `${k}=${m[k]};`;
  }
  out
}''')

program("while_break_continue_sum", "Sum", [{"n": 10}], r'''
function Sum(n: int) -> int {
  let i = 0;
  let s = 0;
  while (true) {
    i += 1;
    if (i > n) { break; }
    if (i % 3 == 0) { continue; }
    s += i;
  }
  s
}''')

program("block_expression_value", "Calc", [{"a": 2, "b": 3}], r'''
function Calc(a: int, b: int) -> int {
  let r = {
    let t = a * b;
    t + 1
  };
  r * 2
}''')

program("int_division_and_modulo", "Div", [{"a": 7, "b": 2}, {"a": -7, "b": 2}, {"a": 1, "b": 0}], r'''
function Div(a: int, b: int) -> int[] {
  [a / b, a % b]
}''')

program("float_arithmetic", "Avg", [{"xs": [1.5, 2.5, 3.0]}], r'''
function Avg(xs: float[]) -> float {
  let s = 0.0;
  for (let x in xs) { s += x; }
  s / 3.0
}''')

program("class_method_self_update", "Run", [{}], r'''
class Counter {
  n int
  function bump(self, by: int) -> int {
    self.n += by;
    self.n
  }
}
function Run() -> int[] {
  let c = Counter { n: 1 };
  [c.bump(2), c.bump(3), c.n]
}''')

program("static_method_constructor", "Run", [{"n": 3}], r'''
class Range {
  lo int
  hi int
  function upto(n: int) -> Range { Range { lo: 0, hi: n } }
  function size(self) -> int { self.hi - self.lo }
}
function Run(n: int) -> int {
  Range.upto(n).size()
}''')

program("enum_in_class_field", "Count", [{}], r'''
enum Status { Open Closed }
class Issue { id int status Status }
function Count() -> int {
  let issues = [Issue { id: 1, status: Status.Open }, Issue { id: 2, status: Status.Closed }, Issue { id: 3, status: Status.Open }];
  issues.filter((i: Issue) -> bool { i.status == Status.Open }).length()
}''')

program("throw_user_class_escapes", "Check", [{"n": 1}, {"n": -1}], r'''
class NegativeInput { value int }
function Check(n: int) -> int {
  if (n < 0) { throw NegativeInput { value: n }; }
  n
}''')

program("catch_rethrow_other", "Run", [{"k": 0}, {"k": 1}], r'''
class A { }
class B { }
function Raise(k: int) -> int {
  if (k == 0) { throw A { }; }
  throw B { };
}
function Run(k: int) -> int {
  Raise(k) catch (e) {
    A => 1,
  }
}''')

program("nested_catch", "Run", [{"d": 0}, {"d": 2}], r'''
function Inner(d: int) -> int {
  (10 / d) catch (e) { baml.panics.DivisionByZero => { throw "inner"; } }
}
function Run(d: int) -> string {
  let v = Inner(d) catch (e) { "inner" => -1 };
  `${v}`
}''')

program("index_out_of_range_panic", "At", [{"i": 1}, {"i": 5}], r'''
function At(i: int) -> int {
  let xs = [10, 20, 30];
  xs[i]
}''')

program("catch_index_panic", "At", [{"i": 1}, {"i": 5}], r'''
function At(i: int) -> int {
  let xs = [10, 20, 30];
  xs[i] catch (e) { baml.panics.IndexOutOfBounds => -1 }
}''')

program("truthiness_conditions", "Truthy", [{}], r'''
function Truthy() -> bool[] {
  let out: bool[] = [];
  for (let s in ["", "a"]) { out.push(if (s) { true } else { false }); }
  out.push(!0);
  out.push([0] || false);
  out
}''')

program("short_circuit", "Run", [{}], r'''
function Boom() -> bool { throw "boom"; }
function Run() -> bool[] {
  [false && Boom(), true || Boom()]
}''')

program("shadowing_in_blocks", "Run", [{"x": 1}], r'''
function Run(x: int) -> int[] {
  let x = x + 10;
  let inner = {
    let x = x * 2;
    x
  };
  [x, inner]
}''')

program("type_alias_union", "Label", [{"v": 1}, {"v": "a"}], r'''
type Id = int | string;
function Label(v: Id) -> string {
  match (v) {
    int => "numeric",
    string => "textual",
  }
}''')

program("default_param_by_name", "Greet", [{"name": "Ada"}], r'''
function Hello(name: string, greeting: string = "Hello") -> string { `${greeting}, ${name}` }
function Greet(name: string) -> string[] {
  [Hello(name), Hello(name, greeting = "Hi")]
}''')

program("global_const", "Limit", [{"n": 5}, {"n": 50}], r'''
const MAX_TOKENS = 10;
function Limit(n: int) -> int {
  if (n > MAX_TOKENS) { MAX_TOKENS } else { n }
}''')

program("compound_assignments", "Ops", [{"n": 6}], r'''
function Ops(n: int) -> int[] {
  let a = n;
  a += 2;
  a *= 3;
  a -= 4;
  a /= 2;
  a %= 7;
  let b = n;
  b <<= 2;
  b |= 1;
  [a, b]
}''')

program("string_concat_loop", "Join", [{"xs": ["a", "b", "c"]}], r'''
function Join(xs: string[]) -> string {
  let out = "";
  for (let i = 0; i < xs.length(); i += 1) {
    if (i > 0) { out += "-"; }
    out += xs[i];
  }
  out
}''')

program("early_return_in_loop", "Find", [{"xs": [4, 7, 9], "t": 7}, {"xs": [1], "t": 3}], r'''
function Find(xs: int[], t: int) -> int {
  for (let i = 0; i < xs.length(); i += 1) {
    if (xs[i] == t) { return i; }
  }
  -1
}''')

program("match_string_scrutinee", "Sentiment", [{"s": "good"}, {"s": "bad"}, {"s": "meh"}], r'''
function Sentiment(s: string) -> int {
  match (s) {
    "good" | "great" => 1,
    "bad" | "awful" => -1,
    _ => 0,
  }
}''')

program("match_null_and_value", "Or", [{"v": None}, {"v": 4}], r'''
function Or(v: int?) -> int {
  match (v) {
    null => 0,
    let n: int => n,
  }
}''')

program("match_without_parens", "Sign", [{"n": 3}, {"n": 0}], r'''
function Sign(n: int) -> string {
  match n {
    0 => "zero",
    _ => "nonzero",
  }
}''')

program("if_without_parens", "Abs", [{"n": -3}, {"n": 2}], r'''
function Abs(n: int) -> int {
  if n < 0 { -n } else { n }
}''')

program("lambda_returning_class", "Names", [{"xs": ["a", "b"]}], r'''
class Tag { name string }
function Names(xs: string[]) -> Tag[] {
  xs.map((x: string) -> Tag { Tag { name: x.to_upper_case() } })
}''')

program("map_of_classes", "Total", [{}], r'''
class Price { cents int }
function Total() -> int {
  let prices: map<string, Price> = { "a": Price { cents: 150 }, "b": Price { cents: 250 } };
  let s = 0;
  for (let k in prices.keys()) { s += prices[k].cents; }
  s
}''')

program("array_of_optional", "Present", [{"xs": [1, None, 3]}], r'''
function Present(xs: int?[]) -> int {
  let s = 0;
  for (let x in xs) {
    if (x != null) { s += x; }
  }
  s
}''')

program("spread_class_literal", "Update", [{}], r'''
class Config { model string temperature float retries int }
function Update() -> Config {
  let base = Config { model: "gpt", temperature: 0.5, retries: 1 };
  Config { ...base, retries: 3 }
}''')

program("int_overflow_panic", "Mul", [{"a": 3, "b": 4}, {"a": 4611686018427387903, "b": 2}], r'''
function Mul(a: int, b: int) -> int {
  a * b
}''')

program("recursion_fib", "Fib", [{"n": 10}], r'''
function Fib(n: int) -> int {
  if (n < 2) { n } else { Fib(n - 1) + Fib(n - 2) }
}''')

program("for_in_over_string_chars", "Vowels", [{"s": "education"}], r'''
function Vowels(s: string) -> int {
  let n = 0;
  for (let c in s.split("")) {
    if (c is "a" | "e" | "i" | "o" | "u") { n += 1; }
  }
  n
}''')

program("nested_functions_values", "Compose", [{"n": 3}], r'''
function Inc(x: int) -> int { x + 1 }
function Dbl(x: int) -> int { x * 2 }
function Compose(n: int) -> int[] {
  let fs = [Inc, Dbl, Inc];
  let out: int[] = [];
  let v = n;
  for (let f in fs) { v = f(v); out.push(v); }
  out
}''')

# The engine does not narrow a field path (`r.age`) by a null test, only locals.
invalid("field_path_not_narrowed", r'''
class Resume { name string age int? }
function F(r: Resume) -> string {
  if (r.age != null) { `${r.age}` } else { "?" }
}''')

# ------------------------------------------------------------------ interfaces
program("interface_dispatch", "Areas", [{"n": 2}], r'''
interface Shape {
  function area(self) -> int throws never
}
class Square { side int }
implements Shape for Square {
  function area(self) -> int throws never { self.side * self.side }
}
class Circle { r int }
implements Shape for Circle {
  function area(self) -> int throws never { 3 * self.r * self.r }
}
function Areas(n: int) -> int[] {
  let shapes: Shape[] = [Square { side: n }, Circle { r: n }, Square { side: n + 1 }];
  shapes.map((s: Shape) -> int { s.area() })
}''')

program("interface_match_binding", "Name", [{"k": 0}, {"k": 1}], r'''
interface Named {
  function name(self) -> string throws never
}
class Agent { id string }
implements Named for Agent {
  function name(self) -> string throws never { `agent ${self.id}` }
}
class Anonymous { }
function Name(k: int) -> string {
  let v = if (k == 0) { Agent { id: "7" } } else { Anonymous { } };
  match (v) {
    let n: Named => n.name(),
    _ => "unnamed",
  }
}''')

program("interface_default_method", "Greet", [{"who": "Ada"}], r'''
interface Greeter {
  function name(self) -> string throws never
  function greet(self) -> string throws never { "hello " + self.name() }
}
class Person { n string }
implements Greeter for Person {
  function name(self) -> string throws never { self.n }
}
function Greet(who: string) -> string {
  let g: Greeter = Person { n: who };
  g.greet()
}''')

program("interface_requires", "Step", [{}], r'''
interface Provider {
  function name(self) -> string throws never
}
interface ToolProvider requires Provider {
  function step(self) -> string throws never
}
class OpenAi { }
implements Provider for OpenAi {
  function name(self) -> string throws never { "openai" }
}
implements ToolProvider for OpenAi {
  function step(self) -> string throws never { "native-tools" }
}
function Step() -> string {
  let p: Provider = OpenAi { };
  match (p) {
    let t: ToolProvider => `${p.name()}:${t.step()}`,
    _ => "plain",
  }
}''')

program("interface_is_test", "Check", [{"k": 0}, {"k": 1}], r'''
interface Shape {
  function area(self) -> int throws never
}
class Square { side int }
implements Shape for Square {
  function area(self) -> int throws never { self.side }
}
class Label { text string }
function Check(k: int) -> bool {
  let v = if (k == 0) { Square { side: 1 } } else { Label { text: "x" } };
  v is Shape
}''')

program("interface_method_with_args", "Run", [{"x": 5}], r'''
interface Scorer {
  function score(self, x: int) -> int throws never
}
class Doubler { }
implements Scorer for Doubler {
  function score(self, x: int) -> int throws never { x * 2 }
}
class Offset { by int }
implements Scorer for Offset {
  function score(self, x: int) -> int throws never { x + self.by }
}
function Best(scorers: Scorer[], x: int) -> int {
  let best = 0;
  for (let s in scorers) {
    let v = s.score(x);
    if (v > best) { best = v; }
  }
  best
}
function Run(x: int) -> int {
  Best([Doubler { }, Offset { by: 100 }], x)
}''')

program("interface_method_called_directly", "Area", [{"n": 3}], r'''
interface Shape {
  function area(self) -> int throws never
}
class Square { side int }
implements Shape for Square {
  function area(self) -> int throws never { self.side * self.side }
}
function Area(n: int) -> int {
  Square { side: n }.area()
}''')

invalid("interface_method_needs_throws", r'''
interface Shape {
  function area(self) -> int
}
function F() -> int { 1 }''')

invalid("interface_missing_method", r'''
interface Shape {
  function area(self) -> int throws never
}
class Square { side int }
implements Shape for Square { }
function F() -> int { 1 }''')

invalid("interface_not_implemented", r'''
interface Shape {
  function area(self) -> int throws never
}
class Square { side int }
function F() -> int {
  let s: Shape = Square { side: 1 };
  1
}''')

invalid("interface_unknown_method", r'''
interface Shape {
  function area(self) -> int throws never
}
class Square { side int }
implements Shape for Square {
  function area(self) -> int throws never { self.side }
}
function F() -> int {
  let s: Shape = Square { side: 1 };
  s.perimeter()
}''')

# ------------------------------------------------------------------ operator interfaces
program("ops_add_class", "Total", [{"n": 3}], r'''
class Tokens { n int }
implements baml.ops.Add<Tokens> for Tokens {
  type Output = Tokens;
  function add(self, rhs: Tokens) -> Tokens throws never { Tokens { n: self.n + rhs.n } }
}
function Total(n: int) -> int {
  let t = Tokens { n: n } + Tokens { n: 10 } + Tokens { n: 100 };
  t.n
}''')

program("ops_add_other_operand", "Shift", [{"n": 3}], r'''
class Cursor { pos int }
implements baml.ops.Add<int> for Cursor {
  type Output = Cursor;
  function add(self, rhs: int) -> Cursor throws never { Cursor { pos: self.pos + rhs } }
}
function Shift(n: int) -> int {
  (Cursor { pos: n } + 4).pos
}''')

invalid("ops_sub_not_an_interface", r'''
class Money { cents int }
implements baml.ops.Sub<Money> for Money {
  type Output = Money;
  function sub(self, rhs: Money) -> Money throws never { Money { cents: self.cents - rhs.cents } }
}
function F() -> int { 1 }''')

invalid("ops_add_without_impl", r'''
class Money { cents int }
function F() -> int {
  let m = Money { cents: 1 } + Money { cents: 2 };
  m.cents
}''')

program("is_class_without_parens", "Get", [{"v": 3}, {"v": {"x": 9}}], r'''
class A { x int }
function Get(v: A | int) -> int {
  if v is A { v.x } else { -1 }
}''')

program("is_pattern_in_while", "Drain", [{"xs": [1, 2, 3, 9, 1]}], r'''
function Drain(xs: int[]) -> int {
  let i = 0;
  while (i < xs.length() && xs[i] is 1 | 2 | 3) {
    i += 1;
  }
  i
}''')

program("or_binding_in_catch", "Code", [{"k": 0}, {"k": 1}], r'''
class Timeout { code int }
class Refused { code int }
function Call(k: int) -> int {
  if (k == 0) { throw Timeout { code: 408 }; }
  throw Refused { code: 503 };
}
function Code(k: int) -> int {
  Call(k) catch (e) {
    Timeout { code } | Refused { code } => code,
  }
}''')

program("or_binding_array_patterns", "Edge", [{"xs": [7]}, {"xs": [1, 8]}, {"xs": []}], r'''
function Edge(xs: int[]) -> int {
  match (xs) {
    [let v] | [_, let v] => v,
    _ => -1,
  }
}''')

program("let_else_nested_class", "Model", [{"k": 0}, {"k": 1}], r'''
class Choice { text string }
class Refusal { reason string }
class Reply { body Choice | Refusal }
function Model(k: int) -> string {
  let r = Reply { body: if (k == 0) { Choice { text: "42" } } else { Refusal { reason: "no" } } };
  let Choice { text } = r.body else { return "refused"; };
  text
}''')

program("generic_function_with_lambda", "Pick", [{"xs": [3, 8, 1]}], r'''
function Max<T>(xs: T[], key: (T) -> int) -> T? {
  let best: T? = null;
  let best_key = 0;
  for (let x in xs) {
    let k = key(x);
    if (best == null || k > best_key) { best = x; best_key = k; }
  }
  best
}
function Pick(xs: int[]) -> int {
  Max(xs, (x: int) -> int { x }) ?? -1
}''')

program("for_const_over_classes", "Names", [{}], r'''
class User { name string admin bool }
function Names() -> string[] {
  let out: string[] = [];
  for (const u in [User { name: "a", admin: true }, User { name: "b", admin: false }]) {
    if (u.admin) { out.push(u.name); }
  }
  out
}''')

# An `if` or `match` whose branches are literals has a union-of-literals type: it orders only
# with its own type and has no built-in methods; `let` widens it, arithmetic accepts it.
invalid("if_literal_union_ordered_with_int", r'''
function F(c: bool, b: int) -> bool {
  (if (c) { 2 } else { 10 }) >= b
}''')

invalid("match_literal_union_ordered_with_int", r'''
function F(c: int, b: int) -> bool {
  (match (c) { 1 => 2, _ => 10 }) >= b
}''')

invalid("if_literal_union_method", r'''
function F(c: bool) -> bool {
  (if (c) { "a" } else { "b" }).is_empty()
}''')

invalid("if_literal_union_length", r'''
function F(c: bool) -> int {
  (if (c) { "a" } else { "bb" }).length()
}''')

program("if_literal_union_widened", "F", [{"c": True, "b": 5}, {"c": False, "b": 5}], r'''
function F(c: bool, b: int) -> string {
  let v = if (c) { 2 } else { 10 };
  let s = (if (c) { "a" } else { "bb" }) + "!";
  let same = (if (c) { 7 } else { 7 }) >= b;
  let t = (if (c) { 2 } else { 10 }) + b;
  s + " " + (v >= b).to_string() + " " + same.to_string() + " " + t.to_string()
    + " " + ((if (c) { 2 } else { 10 }) == b).to_string()
}''')

# An assignment narrows a variable until the next join: after an `if` each variable a branch
# assigns (or a condition narrows) has the union of its types where the branches that complete
# end. A variable assigned in a loop has its declared type at the loop's head and after it (but
# for the condition's falsity when no `break` leaves the loop); one assigned in a `match` arm or
# a lambda is back to its declared type.
program("assign_after_null_check", "Shout", [{"name": None}, {"name": "bob"}], r'''
function Shout(name: string?) -> string {
  let n = name;
  if (n == null) { n = "anon"; }
  n.to_upper_case()
}''')

program("assign_in_both_branches", "F", [{"b": True, "a": None}, {"b": False, "a": None}, {"b": False, "a": "xyz"}], r'''
function F(b: bool, a: string | int | null) -> int {
  let x: int? = null;
  if (b) { x = 1; } else { x = 2; }
  let y = a;
  if (y is string) { y = y.length(); } else if (y == null) { y = 0; }
  x + y
}''')

program("assign_branch_diverges", "F", [{"b": True, "c": 1}, {"b": False, "c": 1}, {"b": False, "c": 7}], r'''
function F(b: bool, c: int) -> int {
  let x: int? = null;
  if (b) { return 0; } else { x = 1; }
  let y: int? = null;
  if (c > 5) { y = c; } else if (c == 1) { y = 10; } else { throw "no" }
  x + y
}''')

program("assign_nested_and_chained", "F", [{"a": None, "b": True}, {"a": None, "b": False}, {"a": 7, "b": True}], r'''
function F(a: int?, b: bool) -> int {
  let x = a;
  if (x == null) { if (b) { x = 1; } else { x = 2; } }
  let z = a;
  if (z == null) { z = 10; } else if (b) { z = 20; }
  x + z
}''')

program("assign_in_block_and_if_value", "F", [{"a": None, "b": True}, {"a": None, "b": False}], r'''
function F(a: int?, b: bool) -> int {
  let x = a;
  let y = { x = 1; 2 };
  let w = a;
  let v = if (b) { w = 3; 10 } else { w = 4; 20 };
  x + y + w + v
}''')

program("assign_in_null_loop", "F", [{"a": None, "b": False}, {"a": 3, "b": True}], r'''
function F(a: int?, b: bool) -> int {
  let x = a;
  let tries = 0;
  while (x == null) {
    tries += 1;
    if (b && tries < 2) { continue; }
    x = 5;
  }
  x + tries
}''')

program("diverging_else_if_links_narrow", "F", [{"x": None, "y": 1}, {"x": 1, "y": None}, {"x": 2, "y": 3}], r'''
function F(x: int?, y: int?) -> int {
  if (x == null) { return -1; } else if (y == null) { return -2; }
  x + y
}''')

invalid("assign_in_one_branch_only", r'''
function F(b: bool) -> int {
  let x: int? = null;
  if (b) { x = 1; }
  x + 1
}''')

invalid("assign_null_in_else", r'''
function F(b: bool) -> int {
  let x: int? = 0;
  if (b) { x = 1; } else { x = null; }
  x + 1
}''')

invalid("assign_in_match_arm", r'''
function F(a: int?) -> int {
  let x = a;
  match (x) { null => { x = 1; }, _ => {} }
  x + 1
}''')

invalid("assign_in_lambda_forgets", r'''
function F(a: int?) -> int {
  let x = a;
  if (x == null) { x = 1; }
  let f = () -> null { x = null; };
  f();
  x + 1
}''')

invalid("assign_in_loop_widens_head", r'''
function F(a: int?) -> int {
  let x = a;
  if (x == null) { x = 0; }
  let t = 0;
  let i = 0;
  while (i < 3) { t = t + x; x = null; i += 1; }
  t
}''')

invalid("assign_in_loop_widens_after", r'''
function F(a: int?) -> int {
  let x = a;
  if (x == null) { x = 0; }
  for (let i = 0; i < 3; i += 1) { x = 1; }
  x + 1
}''')

invalid("assign_in_loop_with_break", r'''
function F(a: int?, b: bool) -> int {
  let x = a;
  while (x == null) { if (b) { x = 3; break; } x = 5; }
  x + 1
}''')

# An `if` without `else` is `null`: its value cannot be used where a value is expected (even
# one that holds null), and its `then` branch's value must be null where none is expected.
invalid("if_without_else_let", r'''
function F(score: int) -> string {
  let s = "x";
  let suffix = if (score > 90) { " (top)" };
  s
}''')

invalid("if_without_else_else_if_let", r'''
function F(b: bool, c: bool) -> int? {
  let x = if (b) { 1 } else if (c) { 2 };
  x
}''')

invalid("if_without_else_tail", r'''
function F(b: bool) -> int? {
  if (b) { 1 }
}''')

invalid("if_without_else_returned", r'''
function F(b: bool) -> int? {
  return if (b) { 1 };
}''')

invalid("if_without_else_argument", r'''
function G(x: int?) -> int? { x }
function F(b: bool) -> int? {
  G(if (b) { 1 })
}''')

invalid("if_without_else_tail_of_null_function", r'''
function F(b: bool) -> null {
  if (b) { 1 }
}''')
