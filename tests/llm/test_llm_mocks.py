"""Mocked LLM calls: `program.options(llm={...}).call(...)`, `Replies`, and the `ingot_llm_mock` fixture."""

from __future__ import annotations

import pytest

import ingot
from ingot.llm import MockError, Replies, Value

SOURCE = """
client Fast = openai.ChatClient.new(model = "gpt-4o-mini", api_key = "sk-test", base_url = "http://127.0.0.1:9/v1")
enum Category {
  BILLING
  TECHNICAL @alias("tech")
}
class Ticket {
  category Category
  urgent bool
  note string?
}
function Classify(message: string) -> Ticket {
  client: Fast
  prompt: `Classify: ${message} ${ctx.output_format()}`
}
function Pick(message: string) -> Category {
  client: Fast
  prompt: `Pick: ${message} ${ctx.output_format()}`
}
function Name(n: int) -> string {
  client: Fast
  prompt: `Name ${n}`
}
function Urgent(messages: string[]) -> int {
  let n = 0;
  for (let m in messages) {
    if (Classify(m).urgent) { n += 1; }
  }
  n
}
function Guarded(message: string) -> string {
  let t = Classify(message) catch (e) {
    _ => Ticket { category: Category.BILLING, urgent: false, note: "fallback" },
  };
  t.note ?? "none"
}
"""


@pytest.fixture(scope="module")
def program() -> ingot.Program:
    return ingot.load(SOURCE)


def test_a_string_is_a_raw_reply_parsed_like_a_real_one(program: ingot.Program) -> None:
    reply = 'Sure:\n```json\n{"category": "tech", "urgent": "true",}\n```'
    assert program.options(llm={"Classify": reply}).call("Classify", message="x") == \
        {"category": "TECHNICAL", "urgent": True, "note": None}
    assert program.options(llm={"Pick": "I would say BILLING."}).call("Pick", message="x") == "BILLING"


def test_a_value_is_the_result(program: ingot.Program) -> None:
    assert program.options(llm={"Classify": {"category": "BILLING", "urgent": False}}).call("Classify", message="x") == \
        {"category": "BILLING", "urgent": False, "note": None}
    assert program.options(llm={"Name": Value("{not parsed}")}).call("Name", n=1) == "{not parsed}"


def test_a_value_of_the_wrong_type_is_a_mock_error(program: ingot.Program) -> None:
    with pytest.raises(MockError, match="urgent"):
        program.options(llm={"Classify": {"category": "BILLING", "urgent": "yes"}}).call("Classify", message="x")
    with pytest.raises(MockError, match="no field"):
        program.options(llm={"Classify": {"category": "BILLING", "urgent": True, "x": 1}}).call("Classify", message="x")


def test_one_reply_answers_every_call_and_replies_answer_in_order(program: ingot.Program) -> None:
    urgent = '{"category": "BILLING", "urgent": true}'
    calm = '{"category": "BILLING", "urgent": false}'
    assert program.options(llm={"Classify": urgent}).call("Urgent", messages=["a", "b", "c"]) == 3
    assert program.options(llm={"Classify": Replies(urgent, calm, urgent)}).call("Urgent", messages=["a", "b", "c"]) == 2
    with pytest.raises(MockError, match="no mock reply left"):
        program.options(llm={"Classify": Replies(urgent)}).call("Urgent", messages=["a", "b"])


def test_an_unparsable_reply_gets_the_repair_turn(program: ingot.Program) -> None:
    # like the engine, a reply that does not fit is followed by one more attempt
    assert program.options(llm={"Pick": Replies("no idea", "tech")}).call("Pick", message="x") == "TECHNICAL"
    with pytest.raises(ingot.BamlError) as info:
        program.options(llm={"Pick": Replies("no idea", "still none")}).call("Pick", message="x")
    assert info.value.qualified_kind == "ai.errors.ParseFailed"
    assert info.value.value.get("raw_output") == "still none"


def test_parse_failures_are_catchable(program: ingot.Program) -> None:
    assert program.options(llm={"Classify": "garbage"}).call("Guarded", message="x") == "fallback"


def test_a_callable_gets_the_arguments(program: ingot.Program) -> None:
    seen = []

    def classify(message: str) -> str:
        seen.append(message)
        return '{"category": "BILLING", "urgent": %s}' % ("true" if "!" in message else "false")

    assert program.options(llm={"Classify": classify}).call("Urgent", messages=["ok", "help!"]) == 1
    assert seen == ["ok", "help!"]


def test_fixture_answers_every_call_and_records_prompts(ingot_llm_mock, program: ingot.Program) -> None:
    ingot_llm_mock.reply("Classify", '{"category": "tech", "urgent": true}')
    assert program.call("Urgent", messages=["a", "b"]) == 2
    calls = ingot_llm_mock.calls_to("Classify")
    assert [c.args for c in calls] == [{"message": "a"}, {"message": "b"}]
    assert calls[0].prompt.startswith("Classify: a Answer in JSON using this schema:")
    assert calls[0].replies == ['{"category": "tech", "urgent": true}']


def test_fixture_refuses_unmocked_calls(ingot_llm_mock, program: ingot.Program) -> None:
    with pytest.raises(MockError, match="`Pick` has no mock"):
        program.call("Pick", message="x")
    # an explicit llm mapping is merged over the fixture's mocks
    assert program.options(llm={"Pick": "BILLING"}).call("Pick", message="x") == "BILLING"
