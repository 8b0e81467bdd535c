"""Python twins of the BAML programs in `bench/explore/`, for the CrossHair baseline.

Each twin mirrors its BAML program statement for statement (same conditions, same
order, same planted bug) where BAML and Python semantics coincide: no integer can
overflow, no `//` or `%` has a negative operand that would change control flow,
strings are compared and measured the same way for ASCII text, enums are
`enum.Enum`, classes are dataclasses, a thrown BAML class is a Python exception,
and an LLM function's result is an extra parameter named after the LLM function
(`Categorize` -> `categorize`). `fees.baml` has no twin (its bug is an integer
overflow, which Python ints cannot have).

Each entry function carries the PEP 316 contract `post: True` in its docstring:
without a contract `crosshair check` analyses nothing (concolic.md section 10).
BAML panics raised by built-ins are modelled by the helpers `baml_panic`,
`assert_equal` and `assert_true`, defined outside the twins so that they add no
branch arcs to the twins' line ranges.

`TWINS` maps a twin name (the `python_twin` field of `bench/explore/NAME.json`) to
its entry function and the functions whose branch arcs count (the entry and its
callees); `python_args` converts a witness of the BAML program (JSON arguments and
LLM mocks) into keyword arguments of the twin.
"""

# The twins keep `typing.List` / `Optional`, as in concolic.md's baseline, for CrossHair.
# ruff: noqa: UP006, UP035, UP045
from __future__ import annotations

import dataclasses
import enum
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, List, Optional


# -- BAML panics and assertions as Python exceptions ---------------------------------------
class UserPanic(Exception):
    """`baml.sys.panic(msg)`."""


class AssertionFailed(Exception):
    """A failed `assert.equal` / `assert.is_true`."""


def baml_panic(message: str) -> None:
    raise UserPanic(message)


def assert_equal(left: object, right: object) -> None:
    if left != right:
        raise AssertionFailed(f"assertion failed: left = {left}, right = {right}")


def assert_true(cond: bool) -> None:
    if not cond:
        raise AssertionFailed("assertion failed: expected true")


# -- triage.baml ---------------------------------------------------------------------------
def triage(severity: int, title: str, tier: int) -> int:
    """
    post: True
    """
    score = 0
    if severity > 5:
        score += 10
        if title == "outage":
            score += 20
            if tier == 4:
                if severity == 9:
                    return score // (severity - 9)
                score += 1
            else:
                score += 2
        elif len(title) > 3:
            score += 3
    else:
        if tier < 0:
            score -= 1
    return score


# -- tally.baml ----------------------------------------------------------------------------
def tally(xs: List[int]) -> int:
    """
    post: True
    """
    neg = 0
    even = 0
    odd = 0
    for x in xs:
        if x < 0:
            neg += 1
        elif x % 2 == 0:
            even += x % 100
        else:
            odd += 1
    if neg >= 2 and even > 10:
        if odd == 0:
            return xs[len(xs)]
        return neg
    if odd > 3:
        return odd
    return even - neg


# -- classify.baml -------------------------------------------------------------------------
def classify(s: str) -> str:
    """
    post: True
    """
    if s.startswith("ERR:"):
        if len(s) > 12:
            return "long-error"
        if s.endswith("!"):
            return str(10 // (len(s) - 7))
        return "error"
    elif s.startswith("WARN"):
        if len(s) == 4:
            return "bare-warn"
        return "warn"
    elif len(s) == 0:
        return "empty"
    return "other"


# -- route.baml ----------------------------------------------------------------------------
class Tier(enum.Enum):
    FREE = "FREE"
    PRO = "PRO"
    ENTERPRISE = "ENTERPRISE"


class Channel(enum.Enum):
    EMAIL = "EMAIL"
    PAGER = "PAGER"
    CHAT = "CHAT"


@dataclass
class Ticket:
    severity: int
    title: str
    tier: Tier


def route(t: Ticket, ch: Channel) -> str:
    """
    post: True
    """
    match t.tier:
        case Tier.FREE:
            if ch == Channel.PAGER:
                return "deny"
            return "queue"
        case Tier.PRO:
            if t.severity >= 7 and ch == Channel.CHAT:
                return "escalate"
            return "queue-pro"
        case Tier.ENTERPRISE:
            if ch == Channel.PAGER and t.title == "db down":
                return str(100 // (t.severity - t.severity))
            if t.severity > 3:
                return "page"
            return "ticket"
    return "unreachable"


# -- shipping.baml -------------------------------------------------------------------------
def shipping_rate(weight: int, zone: int, express: bool) -> int:
    """
    post: True
    """
    if weight <= 0:
        return 0
    rate = 5
    if weight <= 10:
        rate += weight
    elif weight <= 50:
        rate += 10 + (weight - 10) // 2
    else:
        rate += 40
        if zone == 3 and express:
            if weight > 100:
                baml_panic("express parcels over 100 kg cannot ship to zone 3")
            rate += 25
    if express:
        rate += 15
    match zone:
        case 0:
            return rate
        case 1 | 2:
            return rate + 2
        case z if z < 0:
            return -1
        case _:
            return rate + 6


# -- sensors.baml --------------------------------------------------------------------------
def scan_readings(readings: List[int], threshold: int) -> int:
    """
    post: True
    """
    alerts = 0
    streak = 0
    skipped = 0
    for r in readings:
        if r < 0:
            skipped += 1
            continue
        if r > 1000:
            break
        if r >= threshold:
            streak += 1
            if streak == 2:
                alerts += 1
                streak = 0
        else:
            streak = 0
    if alerts >= 2 and threshold > 500:
        return readings[alerts * 2]
    if skipped > 2:
        return -skipped
    return alerts


# -- command.baml --------------------------------------------------------------------------
def parse_command(line: str) -> int:
    """
    post: True
    """
    if len(line) == 0:
        return 0
    if not line.startswith("/"):
        if line.endswith("?"):
            return 2
        return 1
    if line == "/help":
        return 10
    if line.startswith("/set "):
        if len(line) > 24:
            return -2
        if line.endswith("=on"):
            if "debug" in line:
                assert_equal(len(line), 13)
                return 21
            return 20
        return 22
    return -1


# -- checkout.baml -------------------------------------------------------------------------
@dataclass
class Customer:
    name: str
    vip: bool
    credit: int


@dataclass
class Item:
    sku: str
    qty: int
    price: int


@dataclass
class Order:
    customer: Customer
    items: List[Item]
    coupon: Optional[str]


class Rejected(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class PaymentDeclined(Exception):
    def __init__(self, total: int, credit: int) -> None:
        super().__init__(total, credit)
        self.total = total
        self.credit = credit


def line_price(it: Item) -> int:
    if it.qty <= 0 or it.qty > 100:
        raise Rejected("quantity")
    if it.price < 0 or it.price > 1000:
        raise Rejected("price")
    return it.price + 2 * it.qty


def checkout(o: Order) -> int:
    """
    post: True
    """
    total = 0
    rejected = 0
    for it in o.items:
        try:
            p = line_price(it)
        except Rejected:
            rejected += 1
            p = 0
        total += p
    if rejected > 0 and total == 0:
        return -1
    coupon = o.coupon
    if o.customer.vip:
        if coupon == "VIP50" and total > 200:
            if o.customer.credit < total:
                raise PaymentDeclined(total, o.customer.credit)
            total -= 50
    elif coupon is not None:
        if coupon.startswith("SAVE"):
            total -= 10
    return total


# -- workflow.baml -------------------------------------------------------------------------
class State(enum.Enum):
    IDLE = "IDLE"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    FAILED = "FAILED"
    DONE = "DONE"


class Event(enum.Enum):
    START = "START"
    PAUSE = "PAUSE"
    RESUME = "RESUME"
    FINISH = "FINISH"
    ERROR = "ERROR"
    RESET = "RESET"


def run_job(events: List[Event], max_retries: int) -> State:
    """
    post: True
    """
    s = State.IDLE
    retries = 0
    for e in events:
        match s:
            case State.IDLE:
                match e:
                    case Event.START:
                        s = State.RUNNING
                    case _:
                        s = State.IDLE
            case State.RUNNING:
                match e:
                    case Event.PAUSE:
                        s = State.PAUSED
                    case Event.FINISH:
                        s = State.DONE
                    case Event.ERROR:
                        s = State.FAILED
                    case _:
                        s = State.RUNNING
            case State.PAUSED:
                match e:
                    case Event.RESUME:
                        s = State.RUNNING
                    case Event.ERROR:
                        s = State.FAILED
                    case _:
                        s = State.PAUSED
            case State.FAILED:
                match e:
                    case Event.RESET:
                        retries += 1
                        if retries > max_retries:
                            s = State.DONE
                        else:
                            _backoff = 60 // (max_retries - retries)
                            s = State.IDLE
                    case _:
                        s = State.FAILED
            case State.DONE:
                s = State.DONE
    return s


# -- discount.baml -------------------------------------------------------------------------
CODE_PCT = {"SAVE10": 10, "VIP": 20, "VIP-GOLD": 30}


def discount(code: Optional[str], qty: Optional[int], member_years: Optional[int]) -> int:
    """
    post: True
    """
    q = 1 if qty is None else qty
    if q <= 0:
        return 0
    pct = 0
    if code is not None:
        if code == "SAVE10":
            pct += CODE_PCT[code]
        elif code.startswith("VIP") and member_years is not None and member_years >= 2:
            pct += CODE_PCT[code]
    years = 0 if member_years is None else member_years
    if years > 5:
        pct += 5
    if q >= 10:
        pct += 5
    return pct


# -- dispatch.baml (LLM result `Categorize(msg)` as the parameter `categorize`) --------------
class Category(enum.Enum):
    BILLING = "BILLING"
    OUTAGE = "OUTAGE"
    SPAM = "SPAM"
    OTHER = "OTHER"


def dispatch(msg: str, priority: int, categorize: Category) -> str:
    """
    post: True
    """
    if len(msg) == 0:
        return "drop"
    c = categorize
    match c:
        case Category.SPAM:
            return "drop"
        case Category.BILLING:
            if priority > 3:
                return "billing-urgent"
            else:
                return "billing"
        case Category.OUTAGE:
            if priority >= 5 and msg.startswith("PROD"):
                if priority == 7:
                    baml_panic("no pager rotation for priority 7")
                return "page-oncall"
            else:
                return "ops"
        case Category.OTHER:
            return "general"
    return "unreachable"


# -- moderate.baml (LLM result `ExtractReview(text)` as the parameter `extract_review`) -----
class Sentiment(enum.Enum):
    POSITIVE = "POSITIVE"
    NEGATIVE = "NEGATIVE"
    MIXED = "MIXED"


@dataclass
class Review:
    stars: int
    sentiment: Sentiment
    tags: List[str]
    reply: Optional[str]


def moderate(text: str, strict: bool, extract_review: Review) -> int:
    """
    post: True
    """
    r = extract_review
    if r.stars < 1 or r.stars > 5:
        return -1
    score = r.stars
    flagged = False
    for tag in r.tags:
        if tag == "refund":
            score -= 2
        elif tag == "abuse":
            flagged = True
    if flagged and strict:
        return 3
    match r.sentiment:
        case Sentiment.POSITIVE:
            if score >= 4:
                return 1
            else:
                return 0
        case Sentiment.NEGATIVE:
            if r.reply is None and strict:
                assert_true(r.stars <= 3)
                return 2
            return 0
        case Sentiment.MIXED:
            return 0
    return -9


# -- thermostat.baml (float comparisons only; BAML orders NaN above every number while
#    Python's comparisons with NaN are false, so the twins agree on finite inputs, which
#    reach every feasible edge) ----------------------------------------------------------
class Mode(enum.Enum):
    HEAT = "HEAT"
    COOL = "COOL"
    AUTO = "AUTO"


class SensorFault(Exception):
    def __init__(self, temp: float, humidity: float) -> None:
        super().__init__(temp, humidity)
        self.temp = temp
        self.humidity = humidity


def thermostat(temp: float, humidity: float, mode: Mode) -> str:
    """
    post: True
    """
    if humidity < 0.0 or humidity > 1.0:
        return "bad-humidity"
    match mode:
        case Mode.HEAT:
            if temp < 18.0:
                return "heat-on"
            else:
                return "idle"
        case Mode.COOL:
            if temp > 45.5 and humidity < 0.05:
                raise SensorFault(temp, humidity)
            if temp > 26.5:
                return "cool-on"
            else:
                return "idle"
        case Mode.AUTO:
            if temp < 18.0:
                return "heat-on"
            elif temp > 26.5 or humidity > 0.7:
                return "cool-on"
            else:
                return "idle"
    return "unreachable"


# -- withdraw.baml -------------------------------------------------------------------------
@dataclass
class Account:
    balance: int
    pin: str
    failed: int
    frozen: bool


class Locked(Exception):
    def __init__(self, attempts: int) -> None:
        super().__init__(attempts)
        self.attempts = attempts


class InsufficientFunds(Exception):
    def __init__(self, balance: int, amount: int) -> None:
        super().__init__(balance, amount)
        self.balance = balance
        self.amount = amount


def authenticate(acct: Account, pin: str) -> bool:
    if acct.frozen or acct.failed >= 3:
        raise Locked(acct.failed)
    if pin != acct.pin:
        acct.failed += 1
        return False
    return True


def withdraw(acct: Account, pin: str, amount: int) -> int:
    """
    post: True
    """
    if amount <= 0 or acct.balance < 0 or acct.balance > 1000000:
        return -2
    try:
        ok = authenticate(acct, pin)
    except Locked:
        ok = False
    if not ok:
        return -1
    if amount > acct.balance:
        if amount - acct.balance <= 100 and acct.failed == 0:
            return acct.balance - amount
        raise InsufficientFunds(acct.balance, amount)
    return acct.balance - amount


# -- pairs.baml ----------------------------------------------------------------------------
def find_pair(xs: List[int], target: int) -> int:
    """
    post: True
    """
    if target < 0 or target > 1000:
        return -2
    n = len(xs)
    for i in range(n):
        if xs[i] < 0 or xs[i] > target:
            continue
        for j in range(i + 1, n):
            if xs[j] > target:
                continue
            if xs[i] + xs[j] == target:
                if i == 0 and j == n - 1 and target > 100:
                    return xs[j + 1]
                return i * 100 + j
    return -1


# -- luhn.baml -----------------------------------------------------------------------------
def luhn(digits: List[int]) -> int:
    """
    post: True
    """
    if len(digits) < 2:
        return -1
    total = 0
    double = False
    i = len(digits) - 1
    while i >= 0:
        d = digits[i]
        if d < 0 or d > 9:
            return -2
        if double:
            d = d * 2
            if d > 9:
                d -= 9
        total += d
        double = not double
        i -= 1
    check = total % 10
    if check == 0 and digits[0] == 4 and len(digits) == 4:
        assert_equal(total, 20)
    return check


# -- start-up reference ---------------------------------------------------------------------
def identity(x: int) -> int:
    """
    post: True
    """
    return x


# -- registry ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Twin:
    entry: Callable[..., Any]
    callees: tuple[Callable[..., Any], ...] = ()

    @property
    def functions(self) -> tuple[Callable[..., Any], ...]:
        """The functions whose branch arcs count: the entry and the callees."""
        return (self.entry, *self.callees)


TWINS: dict[str, Twin] = {
    "triage": Twin(triage),
    "tally": Twin(tally),
    "classify": Twin(classify),
    "route": Twin(route),
    "shipping_rate": Twin(shipping_rate),
    "scan_readings": Twin(scan_readings),
    "parse_command": Twin(parse_command),
    "checkout": Twin(checkout, (line_price,)),
    "run_job": Twin(run_job),
    "discount": Twin(discount),
    "dispatch": Twin(dispatch),
    "moderate": Twin(moderate),
    "thermostat": Twin(thermostat),
    "withdraw": Twin(withdraw, (authenticate,)),
    "find_pair": Twin(find_pair),
    "luhn": Twin(luhn),
}

# Which Python exception stands for which BAML error kind (`ingot.BamlError.kind`).
PY_EXCEPTION = {
    "DivisionByZero": ZeroDivisionError,
    "IndexOutOfBounds": IndexError,
    "MapKeyNotFound": KeyError,
    "AssertionFailed": AssertionFailed,
    "UserPanic": UserPanic,
    "PaymentDeclined": PaymentDeclined,
    "SensorFault": SensorFault,
    "InsufficientFunds": InsufficientFunds,
}


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(name))


def _convert(value: Any, ty: Any) -> Any:
    """A JSON value of a BAML witness as a value of Python type `ty`."""
    origin = typing.get_origin(ty)
    if origin is typing.Union:
        if value is None:
            return None
        (inner,) = [a for a in typing.get_args(ty) if a is not type(None)]
        return _convert(value, inner)
    if origin is list:
        (inner,) = typing.get_args(ty)
        return [_convert(v, inner) for v in value]
    if isinstance(ty, type) and issubclass(ty, enum.Enum):
        return ty[value]
    if dataclasses.is_dataclass(ty):
        hints = typing.get_type_hints(ty)
        return ty(**{f.name: _convert(value[f.name], hints[f.name]) for f in dataclasses.fields(ty)})
    if ty is float and isinstance(value, int):
        return float(value)
    return value


def python_args(twin: str, args: dict[str, Any], mocks: dict[str, Any] | None = None) -> dict[str, Any]:
    """Keyword arguments of twin `twin` for a BAML witness (`args`, LLM `mocks`)."""
    fn = TWINS[twin].entry
    hints = typing.get_type_hints(fn)
    values = dict(args)
    for llm_name, reply in (mocks or {}).items():
        values[_snake(llm_name)] = reply
    return {name: _convert(values[name], hints[name]) for name in hints if name != "return"}
