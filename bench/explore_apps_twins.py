"""Python twins of the application programs in `bench/explore/apps/`, for the CrossHair baseline.

The conventions of `explore_twins.py` hold here too: each twin mirrors its BAML program
statement for statement (same conditions, same order, same planted bug), a BAML class is a
dataclass, an enum an `enum.Enum`, a thrown BAML class a Python exception, and the PEP 316
contract `post: True` in the entry's docstring makes `crosshair check` analyse it (a throw the
program means, like `ParseHeader`'s `BadHeader`, is declared with `raises:`). A BAML `??` and an
`if` expression are written as `if` statements, so that they stay branches in Python too.

What BAML does differently from Python is done by the helpers of `explore_apps_support.py`
(defined outside the twins, so they add no branch arcs to the twins' line ranges):

- `trim` strips Unicode White_Space (Rust's set, not Python's `str.strip()`), `lines` splits
  on `\\n` with no trailing empty line, `index_of`/`last_index_of` give `None` when absent;
- `parse_int` is `int.parse` (ASCII digits after one optional sign, in BAML's 63-bit range)
  and `parse_float` is `float.parse` (Rust's syntax: no whitespace, no `_`); both raise
  `ParseError`, the only error BAML's parsers throw, so a BAML `catch` of every error is an
  `except ParseError` here (the rethrow edge of BAML's catch is infeasible, and absent);
- `int_div` is BAML's integer `/` (truncating toward zero, ZeroDivisionError on 0), `iround`
  is `float.iround` (half away from zero; InvalidArgument out of the int range), and
  `int_mul` checks the 63-bit range (IntegerOverflow) in `price_parse`, whose bug is one.
  Other arithmetic is Python's unbounded ints, as in `explore_twins.py`: no edge the
  benchmark counts needs an overflow (`inventory`'s `stock[item] - 1` at `int.min_value()`
  and `cart`'s `total - prices["shipping"]` at the extremes do overflow in BAML; those
  unplanted bugs are not modelled).

String indexing, slicing, `split`, `startswith`, `in`, `replace` and `*` are Python's, which
are BAML's (code points; slices clamp); `lower()` is BAML's `to_lower_case` except for a
handful of non-ASCII characters whose Unicode tables differ between Python and Rust.

LLM calls: the parsed result of an LLM function is an extra parameter named after it
(`DecideAction` -> `decide_action`), `Optional[...]` where a `catch` turns a failed call into
`null` (`None`: the reply and the repair turn's reply did not parse). A function called in a
loop takes the list of its results in call order (`List[...]`); a call past the end of the
list fails (`retry_extract`, whose catch makes it `null`) or, with no catch around it, gets a
fixed reply (`votes`: NEUTRAL), so every input is a complete run.

`TWINS` maps a twin name (the `python_twin` field of `bench/explore/apps/NAME.json`) to its
entry function; `python_args` turns a witness of the BAML program (JSON arguments and the
model's raw replies) into keyword arguments of the twin (`explore_apps_support.plain` turns a
twin's result into the JSON value the BAML program returns).
"""

# The twins keep `typing.List` / `Dict` / `Optional`, as in explore_twins.py, for CrossHair.
# ruff: noqa: UP006, UP035, UP045
from __future__ import annotations

import enum
import typing
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Union

from explore_apps_support import (
    IntegerOverflow,
    InvalidArgument,
    ParseError,
    call_results,
    convert,
    index_of,
    int_div,
    int_mul,
    iround,
    last_index_of,
    lines,
    llm_reply,
    parse_float,
    parse_int,
    snake,
    strip_optional,
    trim,
)
from explore_twins import PY_EXCEPTION as EXPLORE_PY_EXCEPTION
from explore_twins import Twin, assert_equal, assert_true, baml_panic


# -- cart.baml -----------------------------------------------------------------------------
@dataclass
class Line:
    sku: str
    qty: int


def cart_total(prices: Dict[str, int], lines: List[Line], coupon: str) -> int:
    """
    post: True
    """
    total = 0
    for ln in lines:
        if ln.sku not in prices or ln.qty <= 0 or ln.qty > 100:
            continue
        p = prices[ln.sku]
        if p < 0 or p > 100000:
            continue
        cost = p * ln.qty
        if ln.qty >= 10:
            cost = cost - int_div(cost, 10)
        total += cost
    if coupon == "SAVE5" and total > 500:
        total -= 500
    elif coupon == "FREESHIP" and len(lines) > 2 and total > 5000:
        total -= prices["shipping"]
    return total


# -- csv_row.baml --------------------------------------------------------------------------
@dataclass
class Row:
    sku: str
    qty: int
    note: str


def parse_row(line: str) -> Row:
    """
    post: True
    """
    parts = line.split(",")
    if len(parts) < 2:
        return Row(sku="", qty=0, note="too few fields")
    sku = trim(parts[0])
    try:
        qty = parse_int(trim(parts[1]))
    except ParseError:
        qty = 0
    note = ""
    if len(parts) > 2:
        note = parts[2]
    if sku.startswith("X-") and qty > 50:
        note = trim(parts[2])
    if qty < 0:
        qty = 0
    return Row(sku=sku, qty=qty, note=note)


# -- email_check.baml ----------------------------------------------------------------------
def normalize_email(addr: str) -> str:
    """
    post: True
    """
    a = trim(addr)
    at = index_of(a, "@")
    if at is None:
        return "invalid: no @"
    if last_index_of(a, "@") != at:
        return "invalid: two @"
    local = a[0:at]
    domain = a[at + 1 : len(a)].lower()
    if len(local) == 0 or "." not in domain:
        return "invalid: parts"
    if domain == "corp.example":
        plus = index_of(local, "+")
        if plus is not None:
            base = local[0:plus]
            if len(local) > 8:
                assert_equal(len(base), len(local))
            local = base
    return local + "@" + domain


# -- grades.baml ---------------------------------------------------------------------------
def grade(scores: List[int], bonus: bool) -> str:
    """
    post: True
    """
    letters = ["F", "D", "C", "B", "A"]
    total = 0
    valid = 0
    for s in scores:
        if s < 0 or s > 100:
            continue
        total += s
        valid += 1
    if valid == 0:
        return "n/a"
    avg = int_div(total, valid)
    idx = 0
    if avg >= 90:
        idx = 4
    elif avg >= 80:
        idx = 3
    elif avg >= 70:
        idx = 2
    elif avg >= 60:
        idx = 1
    if bonus and avg == 100 and valid >= 3:
        idx += 1
    return letters[idx]


# -- headers.baml --------------------------------------------------------------------------
class BadHeader(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Header:
    name: str
    value: str


def parse_header(line: str, chunks: int) -> Header:
    """
    raises: BadHeader
    post: True
    """
    colon = index_of(line, ":")
    if colon is None:
        raise BadHeader("missing colon")
    name = trim(line[0:colon]).lower()
    value = trim(line[colon + 1 : len(line)])
    if len(name) == 0:
        raise BadHeader("empty name")
    if name == "content-length":
        try:
            n = parse_int(value)
        except ParseError:
            n = -1
        if n < 0:
            return Header(name=name, value="invalid")
        if n > 1000 and value.endswith("0"):
            per = int_div(n, chunks)
            return Header(name=name, value=str(per))
    elif name == "content-type" and "/" not in value:
        return Header(name=name, value="application/octet-stream")
    return Header(name=name, value=value)


# -- inventory.baml ------------------------------------------------------------------------
def reserve(stock: Dict[str, int], items: List[str]) -> List[str]:
    """
    post: True
    """
    reorder = {"widget": 10, "gadget": 5}
    low: List[str] = []
    if len(items) == 0:
        return low
    for item in items:
        if item not in stock:
            low.append("missing:" + item)
            continue
        left = stock[item] - 1
        stock[item] = left
        if left <= 0:
            low.append(item)
    if items[0] == "gift" and "gift" in stock and stock["gift"] == 0 and len(items) > 2:
        low.append("reorder:" + str(reorder["gift"]))
    return low


# -- kv_config.baml ------------------------------------------------------------------------
def load_config(text: str) -> Dict[str, str]:
    """
    post: True
    """
    cfg: Dict[str, str] = {}
    for line in lines(text):
        ln = trim(line)
        if len(ln) == 0 or ln.startswith("#"):
            continue
        kv = ln.split("=")
        if len(kv) != 2:
            cfg["error"] = ln
            continue
        cfg[trim(kv[0])] = trim(kv[1])
    if "mode" in cfg and cfg["mode"] == "batch":
        workers_text = cfg.get("workers")
        if workers_text is None:
            workers_text = "1"
        try:
            workers = parse_int(workers_text)
        except ParseError:
            workers = 1
        if "retries" in cfg:
            per = int_div(10, workers)
            cfg["per_worker"] = str(per)
    return cfg


# -- llm_union.baml (LLM result `DecideAction(message)` as the parameter `decide_action`) ---
@dataclass
class Refund:
    amount: int
    reason: str


@dataclass
class Escalate:
    team: str
    urgency: int


@dataclass
class Reply:
    text: str


def handle(message: str, order_total: int, decide_action: Union[Refund, Escalate, Reply]) -> str:
    """
    post: True
    """
    action = decide_action
    if isinstance(action, Refund):
        r = action
        if r.amount <= 0:
            return "no refund"
        elif r.amount > order_total:
            return "refund capped at " + str(order_total)
        else:
            return "refund " + str(r.amount)
    elif isinstance(action, Escalate):
        e = action
        if e.team == "billing":
            if e.urgency > 3:
                share = int_div(100, order_total)
                return "billing priority " + str(share)
            return "billing queue"
        else:
            return "escalate to " + e.team
    else:
        m = action
        if len(trim(m.text)) == 0:
            return "empty reply"
        else:
            return m.text


# -- mask_card.baml ------------------------------------------------------------------------
def mask_card(input: str) -> str:
    """
    post: True
    """
    digits = ""
    seps = 0
    total = 0  # BAML's `sum`
    for c in input:
        if c == " " or c == "-":
            seps += 1
            continue
        try:
            d = parse_int(c)
        except ParseError:
            d = -1
        if d < 0:
            return "invalid character"
        digits += c
        total += d
    if len(digits) < 12 or len(digits) > 19:
        return "invalid length"
    if len(digits) == 16 and digits.startswith("4") and total % 10 == 0:
        ratio = int_div(16, seps)
        digits = digits + str(ratio)
    return "*" * (len(digits) - 4) + digits[len(digits) - 4 : len(digits)]


# -- path_norm.baml ------------------------------------------------------------------------
def normalize_path(path: str) -> str:
    """
    post: True
    """
    if not path.startswith("/"):
        return "relative"
    stack: List[str] = []
    ups = 0
    for seg in path.split("/"):
        if seg == "" or seg == ".":
            continue
        if seg == "..":
            ups += 1
            if len(stack) > 0:
                stack.pop()
            continue
        stack.append(seg)
    out = "/" + "/".join(stack)
    if path.endswith("/") and len(stack) > 0:
        out += "/"
    if path.startswith("/api/") and ups >= 3 and path.endswith("/"):
        out = out + stack[len(stack) - 1]
    return out


# -- price_parse.baml ----------------------------------------------------------------------
def price_cents(text: str, qty: int) -> int:
    """
    post: True
    """
    t = trim(text)
    if t.startswith("$"):
        t = t[1 : len(t)]
    elif t.startswith("EUR "):
        t = t[4 : len(t)]
    if len(t) == 0:
        return -1
    cents = 0
    if "." in t:
        try:
            f = parse_float(t)
        except ParseError:
            f = -1.0
        if f < 0.0:
            return -1
        cents = iround(f * 100.0)
    else:
        try:
            n = parse_int(t)
        except ParseError:
            n = -1
        if n < 0:
            return -1
        if len(t) > 15 and qty > 1000:
            return int_mul(int_mul(n, 100), qty)
        cents = int_mul(n, 100)
    if qty <= 0:
        return 0
    return cents


# -- query_string.baml ---------------------------------------------------------------------
def page_of(query: str, total: int) -> Dict[str, int]:
    """
    post: True
    """
    params: Dict[str, str] = {}
    if query.startswith("?"):
        query = query[1 : len(query)]
    for part in query.split("&"):
        if len(part) == 0:
            continue
        eq = index_of(part, "=")
        if eq is None:
            params[part] = "true"
        else:
            params[part[0:eq]] = part[eq + 1 : len(part)]
    out: Dict[str, int] = {}
    page_text = params.get("page")
    if page_text is None:
        page_text = "1"
    try:
        page = parse_int(page_text)
    except ParseError:
        page = 1
    out["page"] = page
    if "per" in params:
        try:
            per = parse_int(params["per"])
        except ParseError:
            per = 10
        if "sort" in params and total > 0:
            out["pages"] = int_div(total, per)
        out["per"] = per
    return out


# -- rate_limit.baml -----------------------------------------------------------------------
def throttled(times: List[int], window: int, limit: int) -> List[int]:
    """
    post: True
    """
    dropped: List[int] = []
    if window <= 0 or limit <= 0:
        return times
    start = 0
    passed: List[int] = []
    for i in range(len(times)):
        t = times[i]
        if t < 0 or t > 100000:
            continue
        while start < len(passed) and passed[start] <= t - window:
            start += 1
        if len(passed) - start >= limit:
            dropped.append(i)
        else:
            passed.append(t)
    if len(dropped) >= 2 and window == 60 and limit == 2:
        last = dropped[len(dropped) - 1]
        dropped.append(times[last + 1])
    return dropped


# -- retry_extract.baml (LLM results `ExtractInvoice(doc)`, in call order, as `extract_invoice`;
#    None: the call failed and the catch made it null) -----------------------------------
@dataclass
class Invoice:
    total: int
    currency: str


def read_invoice(doc: str, attempts: int, extract_invoice: List[Optional[Invoice]]) -> str:
    """
    post: True
    """
    labels = ["first", "second", "third"]
    n = 0
    while n < attempts:
        n += 1
        inv = llm_reply(extract_invoice, n - 1, None)
        if inv is None:
            continue
        if inv.total <= 0:
            continue
        if inv.currency != "EUR" and inv.currency != "USD":
            return "unsupported currency"
        return labels[n - 1] + ": " + str(inv.total) + " " + inv.currency
    return "gave up after " + str(n)


# -- slugify.baml --------------------------------------------------------------------------
def slugify(title: str) -> str:
    """
    post: True
    """
    s = trim(title).lower()
    if len(s) == 0:
        return "untitled"
    s = s.replace(" ", "-").replace("_", "-")
    while "--" in s:
        s = s.replace("--", "-")
    if s.startswith("draft"):
        if len(s) > 10 and s.endswith("-v2"):
            assert_true(len(s) > 40)
        s = "d/" + s
    if len(s) > 24:
        s = s[0:24]
    return s


# -- statement.baml ------------------------------------------------------------------------
def balance(statement: str, opening: int) -> int:
    """
    post: True
    """
    if opening < 0 or opening > 1000000:
        return 0
    balance = opening
    rejected = 0
    fee = False
    for line in lines(statement):
        parts = trim(line).split(" ")
        amount_text = parts[0]
        if not amount_text.startswith("+") and not amount_text.startswith("-"):
            rejected += 1
            continue
        try:
            amount = parse_int(amount_text[1 : len(amount_text)])
        except ParseError:
            amount = -1
        if amount < 0 or amount > 1000000:
            rejected += 1
            continue
        if amount_text.startswith("-"):
            amount = -amount
        if len(parts) > 1 and parts[1] == "fee":
            fee = True
        balance += amount
    if fee and rejected >= 2:
        assert_true(balance >= 0)
    return balance


# -- tags.baml -----------------------------------------------------------------------------
def normalize_tags(raw: str) -> List[str]:
    """
    post: True
    """
    out: List[str] = []
    urgent_at = -1
    for t in raw.split(","):
        tag = trim(t).lower()
        if len(tag) == 0:
            continue
        if tag in out:
            continue
        if tag == "urgent":
            urgent_at = len(out)
        out.append(tag)
    if urgent_at >= 0 and "security" in out:
        if len(out) > 3 and urgent_at > 0:
            baml_panic("urgent security ticket lost its priority")
        out.insert(0, "p0")
    return out


# -- ticket_router.baml (LLM result `TriageTicket(body)` as `triage_ticket`; None: the call
#    failed and the catch made it null) --------------------------------------------------
@dataclass
class Triage:
    labels: List[str]
    customer_id: Optional[str]
    severity: int


def route_ticket(body: str, vip: bool, triage_ticket: Optional[Triage]) -> str:
    """
    post: True
    """
    t = triage_ticket
    if t is None:
        return "general"
    if t.severity < 1 or t.severity > 5:
        return "invalid severity"
    queue = "general"
    if "billing" in t.labels:
        queue = "billing"
    if "security" in t.labels:
        if t.severity == 5 and t.customer_id is None and vip:
            baml_panic("no on-call route for anonymous VIP security tickets")
        queue = "security"
    cid = t.customer_id
    if cid is None:
        cid = ""
    if cid.startswith("ent-"):
        queue += "-enterprise"
    return queue


# -- version_cmp.baml ----------------------------------------------------------------------
def compare_versions(a: str, b: str) -> int:
    """
    post: True
    """
    pa = a.split(".")
    pb = b.split(".")
    if len(pa) > 3 or len(pb) > 3:
        return -99
    va = [0, 0, 0]
    vb = [0, 0, 0]
    for i in range(3):
        if i < len(pa):
            try:
                va[i] = parse_int(pa[i])
            except ParseError:
                va[i] = -1
        if i < len(pb):
            try:
                vb[i] = parse_int(pb[i])
            except ParseError:
                vb[i] = -1
        if va[i] < 0 or vb[i] < 0:
            return -99
    if va[0] != vb[0]:
        if va[0] < vb[0]:
            return -1
        return 1
    if va[0] > 2 and va[2] != vb[2]:
        ratio = int_div(vb[1], va[1])
        return ratio
    if va[1] != vb[1]:
        if va[1] < vb[1]:
            return -1
        return 1
    return 0


# -- votes.baml (LLM results `RateReview(review)`, in call order, as `rate_review`) ---------
class Sentiment(enum.Enum):
    POSITIVE = "POSITIVE"
    NEGATIVE = "NEGATIVE"
    NEUTRAL = "NEUTRAL"


def summarize_reviews(reviews: List[str], rate_review: List[Sentiment]) -> str:
    """
    post: True
    """
    pos = 0
    neg = 0
    refund_neutral = False
    calls = 0
    for r in reviews:
        if len(trim(r)) == 0:
            continue
        s = llm_reply(rate_review, calls, Sentiment.NEUTRAL)
        calls += 1
        match s:
            case Sentiment.POSITIVE:
                pos += 1
            case Sentiment.NEGATIVE:
                neg += 1
            case Sentiment.NEUTRAL:
                if "refund" in r.lower():
                    refund_neutral = True
    if neg >= 2 and pos == 0 and refund_neutral:
        baml_panic("cannot summarise a refund dispute")
    if pos > neg:
        return "mostly positive"
    elif neg > pos:
        return "mostly negative"
    else:
        return "mixed"


# -- word_count.baml -----------------------------------------------------------------------
def top_word(text: str) -> str:
    """
    post: True
    """
    counts: Dict[str, int] = {}
    words: List[str] = []
    for w in text.split(" "):
        if w == "":
            continue
        if w in counts:
            counts[w] = counts[w] + 1
        else:
            counts[w] = 1
            words.append(w)
    if len(words) == 0:
        return ""
    best = words[0]
    triple = False
    for w in words:
        if counts[w] > counts[best]:
            best = w
        if counts[w] == 3:
            triple = True
    if triple and len(text.split(" ")) > 5 and words[0] == "please":
        return words[len(words)]
    return best


# -- registry ------------------------------------------------------------------------------
TWINS: dict[str, Twin] = {
    "cart_total": Twin(cart_total),
    "parse_row": Twin(parse_row),
    "normalize_email": Twin(normalize_email),
    "grade": Twin(grade),
    "parse_header": Twin(parse_header),
    "reserve": Twin(reserve),
    "load_config": Twin(load_config),
    "handle": Twin(handle),
    "mask_card": Twin(mask_card),
    "normalize_path": Twin(normalize_path),
    "price_cents": Twin(price_cents),
    "page_of": Twin(page_of),
    "throttled": Twin(throttled),
    "read_invoice": Twin(read_invoice),
    "slugify": Twin(slugify),
    "balance": Twin(balance),
    "normalize_tags": Twin(normalize_tags),
    "route_ticket": Twin(route_ticket),
    "compare_versions": Twin(compare_versions),
    "summarize_reviews": Twin(summarize_reviews),
    "top_word": Twin(top_word),
}

# Which Python exception stands for which BAML error kind (`ingot.BamlError.kind`).
PY_EXCEPTION: dict[str, type[Exception]] = {
    **EXPLORE_PY_EXCEPTION,
    "IntegerOverflow": IntegerOverflow,
    "InvalidArgument": InvalidArgument,
    "ParseError": ParseError,
    "BadHeader": BadHeader,
}


def python_args(
    twin: str, args: dict[str, Any], llm: list[list[str]] | None = None
) -> dict[str, Any]:
    """Keyword arguments of twin `twin` for a BAML witness: `args` and the `llm` raw replies
    (`[[function, text], ...]` in call order)."""
    fn = TWINS[twin].entry
    hints = {k: v for k, v in typing.get_type_hints(fn).items() if k != "return"}
    kwargs = {name: convert(args[name], ty) for name, ty in hints.items() if name in args}
    by_fn: dict[str, list[str]] = {}
    for name, text in llm or []:
        by_fn.setdefault(snake(name), []).append(text)
    for name, ty in hints.items():
        if name in kwargs:
            continue
        many = typing.get_origin(ty) is list
        elem = typing.get_args(ty)[0] if many else ty
        results = call_results(by_fn.get(name, []), strip_optional(elem))
        if many:
            kwargs[name] = results
        elif len(results) == 1:
            kwargs[name] = results[0]
        else:
            raise ValueError(
                f"{twin}: {name} needs one model reply, the witness has {len(results)}"
            )
    return kwargs
