"""Programs for the Anthropic, Gemini, Vertex AI and Bedrock clients (recorded by make_cases.py).

Each client points at the local server: `env.LLM_MOCK_ROOT` (`http://127.0.0.1:PORT`,
where Anthropic appends `/v1/messages` and Bedrock `/model/ID/converse`) or
`env.LLM_MOCK_URL` (`.../v1`, where Gemini and Vertex append `/models/M:generateContent`
and `/M:generateContent`). A case's `env` may name `{SA_FILE}` or `{SA_JSON}`: the
service-account key in cases/service_account.json with its `token_uri` on the
local server (see `expand_env`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

CASES = Path(__file__).resolve().parent / "cases"

PERSON = """\
class Person {
  name string
  age int @description("age in years")
}
"""
P_JSON = '{"name": "Ann Lee", "age": 31}'
P_VALUE = {"name": "Ann Lee", "age": 31}


def fn(name: str, params: str, ret: str, prompt: str, client: str) -> str:
    return f"function {name}({params}) -> {ret} {{\n  client: {client}\n  prompt: `{prompt}`\n}}\n"


def text(*replies: str, stop: str | None = None) -> list[dict[str, Any]]:
    return [{"text": r, **({"stop": stop} if stop else {})} for r in replies]


ROLES = '${role("system")}You extract people. ${ctx.output_format()}${role("user")}Text: ${q}'
CHAT = ('${role("system")}You count things.${role("user")}How many in: ${q}?${role("assistant")}Let me see.'
        '${role("user")}${ctx.output_format()}')
PLAIN = "Count the items in: ${q}. ${ctx.output_format()}"


def functions(client: str, suffix: str = "") -> str:
    return (fn(f"Extract{suffix}", "q: string", "Person", ROLES, client)
            + fn(f"Count{suffix}", "q: string", "int", PLAIN, client)
            + fn(f"Talk{suffix}", "q: string", "int", CHAT, client))


PROGRAMS: dict[str, tuple[str, list[dict[str, Any]]]] = {}

# -- Anthropic Messages -----------------------------------------------------------------------------
ANTHROPIC_ERROR = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
PROGRAMS["anthropic"] = ("""\
client Claude = anthropic.Client.new(model = "claude-sonnet-4-5", api_key = "sk-ant-test", base_url = env.LLM_MOCK_ROOT);
client Tuned = anthropic.Client.new(model = "claude-opus-4-1", api_key = "sk-ant-test", base_url = env.LLM_MOCK_ROOT, max_tokens = 1024, temperature = 0.2, top_p = 0.9, top_k = 40, stop_sequences = ["END"], headers = {"anthropic-beta": "context-1m", "X-Team": "core"}, query_params = {"trace": "on"}, request_body = {"metadata": {"user_id": "u-1"}, "top_k": null});
client EnvKey = anthropic.Client.new(model = "claude-haiku-4-5", base_url = env.LLM_MOCK_ROOT);
client Think = anthropic.Client.new(api_key = "sk-ant-test", base_url = env.LLM_MOCK_ROOT, max_tokens = 4096, thinking = anthropic.ThinkingConfig.enabled(2048));
""" + PERSON + functions("Claude") + fn("CountTuned", "q: string", "int", PLAIN, "Tuned")
    + fn("CountEnv", "q: string", "int", PLAIN, "EnvKey")
    + fn("CountShort", "q: string", "int", PLAIN, '"anthropic/claude-haiku-4-5"')
    + fn("CountThink", "q: string", "int", PLAIN, "Think")
    + fn("Opener", "q: string", "int", '${role("assistant")}I will count ${q}.', "Claude"), [
    {"function": "Extract", "args": {"q": "Ann Lee, 31"}, "replies": text(P_JSON)},
    {"function": "Extract", "args": {"q": "Ann"}, "replies": text("nobody here", "```json\n" + P_JSON + "\n```")},
    {"function": "Count", "args": {"q": "a, b, c"}, "replies": text("3")},
    {"function": "Talk", "args": {"q": "x y"}, "replies": text("2")},
    {"function": "Opener", "args": {"q": "apples"}, "replies": text("5")},
    {"function": "Count", "args": {"q": "d"}, "replies": text("4", stop="max_tokens")},
    {"function": "Count", "args": {"q": "e"}, "replies": text("1", stop="pause_turn")},
    {"function": "Count", "args": {"q": "f"}, "replies": text("I can't help with that.", stop="refusal")},
    {"function": "Count", "args": {"q": "g"}, "replies": [{"json": {
        "id": "m", "type": "message", "role": "assistant", "model": "claude",
        "content": [{"type": "thinking", "thinking": "hmm", "signature": "s"}, {"type": "text", "text": "7"},
                    {"type": "text", "text": "8"}], "stop_reason": "end_turn"}}]},
    {"function": "Count", "args": {"q": "h"}, "replies": [{"status": 429, "headers": {"retry-after": "3"},
                                                          "body": {"type": "error", "error": {
                                                              "type": "rate_limit_error", "message": "slow"}}}]},
    {"function": "Count", "args": {"q": "i"}, "replies": [{"status": 401, "body": {"type": "error", "error": {
        "type": "authentication_error", "message": "invalid x-api-key"}}}]},
    {"function": "Count", "args": {"q": "j"}, "replies": [{"status": 529, "body": ANTHROPIC_ERROR}]},
    {"function": "Count", "args": {"q": "k"}, "replies": [{"json": ANTHROPIC_ERROR}]},
    {"function": "Count", "args": {"q": "l"}, "replies": [{"status": 200, "body": "not json"}]},
    {"function": "CountTuned", "args": {"q": "m"}, "replies": text("9")},
    {"function": "CountEnv", "args": {"q": "n"}, "replies": text("10"), "env": {"ANTHROPIC_API_KEY": "sk-ant-env"}},
    {"function": "CountEnv", "args": {"q": "o"}, "replies": text("11"), "env": {"ANTHROPIC_API_KEY": None}},
    {"function": "CountShort", "args": {"q": "p"}, "replies": text("12"), "env": {"ANTHROPIC_API_KEY": None}},
    {"function": "CountThink", "args": {"q": "r"}, "replies": [{"json": {
        "id": "m", "type": "message", "role": "assistant", "model": "claude",
        "content": [{"type": "thinking", "thinking": "count them", "signature": "s"}, {"type": "text", "text": "13"}],
        "stop_reason": "end_turn"}}]},
])

# -- Gemini Developer API ------------------------------------------------------------------------------
GEMINI_TUNED = ('client GemTuned = google.GeminiClient.new(model = "gemini-2.5-pro", api_key = "g-test", '
                'base_url = env.LLM_MOCK_URL, temperature = 0.1, max_output_tokens = 256, top_p = 0.8, top_k = 20, '
                'stop_sequences = ["END"], response_modalities = ["TEXT"], headers = {"X-Team": "core"}, '
                'query_params = {"trace": "on off"}, request_body = {"generationConfig": {"candidateCount": 1}, '
                '"labels": {"team": "core"}});\n')


def gemini_reply(parts: list[dict[str, Any]], finish: str | None = "STOP", **extra: Any) -> dict[str, Any]:
    cand: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
    if finish:
        cand["finishReason"] = finish
    return {"json": {"candidates": [cand], **extra}}


PROGRAMS["gemini"] = ("""\
client Gem = google.GeminiClient.new(model = "gemini-2.5-flash", api_key = "g-test", base_url = env.LLM_MOCK_URL);
client GemEnv = google.GeminiClient.new(base_url = env.LLM_MOCK_URL);
client GemSafe = google.GeminiClient.new(api_key = "g-test", base_url = env.LLM_MOCK_URL, safety_settings = [google.SafetySetting.new("HARM_CATEGORY_HARASSMENT", "BLOCK_NONE"), google.SafetySetting.new(category = "HARM_CATEGORY_HATE_SPEECH", threshold = "BLOCK_ONLY_HIGH")]);
""" + GEMINI_TUNED + PERSON + functions("Gem") + fn("CountTuned", "q: string", "int", PLAIN, "GemTuned")
    + fn("CountEnv", "q: string", "int", PLAIN, "GemEnv")
    + fn("CountShort", "q: string", "int", PLAIN, '"google/gemini-2.5-flash"')
    + fn("CountSafe", "q: string", "int", PLAIN, "GemSafe")
    + fn("Opener", "q: string", "int", '${role("assistant")}I will count ${q}.', "Gem"), [
    {"function": "Extract", "args": {"q": "Ann Lee, 31"}, "replies": text(P_JSON)},
    {"function": "Extract", "args": {"q": "Ann"}, "replies": text("nobody here", P_JSON)},
    {"function": "Count", "args": {"q": "a, b, c"}, "replies": text("3")},
    {"function": "Talk", "args": {"q": "x y"}, "replies": text("2")},
    {"function": "Opener", "args": {"q": "apples"}, "replies": text("5")},
    {"function": "Count", "args": {"q": "d"}, "replies": text("4", stop="MAX_TOKENS")},
    {"function": "Count", "args": {"q": "e"}, "replies": text("1", stop="SAFETY")},
    {"function": "Count", "args": {"q": "f"}, "replies": [{"json": {"promptFeedback": {"blockReason": "SAFETY"}}}]},
    {"function": "Count", "args": {"q": "g"}, "replies": [gemini_reply(
        [{"text": "thinking...", "thought": True}, {"text": "7"}, {"text": "8"}])]},
    {"function": "Count", "args": {"q": "h"}, "replies": [{"json": {"error": {
        "code": 400, "message": "API key not valid", "status": "INVALID_ARGUMENT"}}}]},
    {"function": "Count", "args": {"q": "i"}, "replies": [{"json": {"candidates": []}}]},
    {"function": "Count", "args": {"q": "j"}, "replies": [{"status": 429, "headers": {"retry-after": "2"},
                                                          "body": {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED",
                                                                             "message": "quota"}}}]},
    {"function": "Count", "args": {"q": "k"}, "replies": [{"status": 403, "body": {"error": {
        "code": 403, "status": "PERMISSION_DENIED", "message": "denied"}}}]},
    {"function": "Count", "args": {"q": "l"}, "replies": [{"status": 503, "body": "unavailable"}]},
    {"function": "Count", "args": {"q": "m"}, "replies": text("6", stop="RECITATION")},
    {"function": "CountTuned", "args": {"q": "n"}, "replies": text("9")},
    {"function": "CountEnv", "args": {"q": "o"}, "replies": text("10"), "env": {"GOOGLE_API_KEY": "g-env"}},
    {"function": "CountEnv", "args": {"q": "p"}, "replies": text("11"), "env": {"GOOGLE_API_KEY": None}},
    {"function": "CountShort", "args": {"q": "q"}, "replies": text("12"), "env": {"GOOGLE_API_KEY": None}},
    {"function": "CountSafe", "args": {"q": "r"}, "replies": text("13")},
])

# -- Vertex AI (Gemini and Claude) -------------------------------------------------------------------
SA = {"GOOGLE_APPLICATION_CREDENTIALS": "{SA_FILE}"}
NO_ADC = {"GOOGLE_APPLICATION_CREDENTIALS": "{MISSING_FILE}", "GOOGLE_APPLICATION_CREDENTIALS_CONTENT": None}
PROGRAMS["vertex"] = ("""\
client Vx = google.VertexClient.new(model = "gemini-2.5-pro", base_url = env.LLM_MOCK_URL);
client VxTuned = google.VertexClient.new(model = "gemini-2.5-flash", base_url = env.LLM_MOCK_URL, temperature = 0.3, max_output_tokens = 100, headers = {"X-Team": "core"}, query_params = {"trace": "on"}, request_body = {"labels": {"team": "core"}});
client VxExpress = google.VertexClient.new(model = "gemini-2.5-flash", api_key = "vx-express", base_url = env.LLM_MOCK_URL);
client VxClaude = google.VertexClient.new(model = "claude-sonnet-4-5@20250929", base_url = env.LLM_MOCK_URL, temperature = 0.5);
""" + PERSON + functions("Vx") + fn("CountTuned", "q: string", "int", PLAIN, "VxTuned")
    + fn("CountExpress", "q: string", "int", PLAIN, "VxExpress")
    + functions("VxClaude", "Claude")
    + fn("CountShort", "q: string", "int", PLAIN, '"vertex/gemini-2.5-flash"'), [
    {"function": "Extract", "args": {"q": "Ann Lee, 31"}, "replies": text(P_JSON), "env": SA},
    {"function": "Extract", "args": {"q": "Ann"}, "replies": text("nobody", P_JSON), "env": SA},
    {"function": "Count", "args": {"q": "a, b"}, "replies": text("2"), "env": {
        "GOOGLE_APPLICATION_CREDENTIALS_CONTENT": "{SA_JSON}", "GOOGLE_APPLICATION_CREDENTIALS": "{MISSING_FILE}"}},
    {"function": "Talk", "args": {"q": "x y"}, "replies": text("2"), "env": SA},
    {"function": "Count", "args": {"q": "c"}, "replies": text("4", stop="MAX_TOKENS"), "env": SA},
    {"function": "Count", "args": {"q": "d"}, "replies": text("1", stop="PROHIBITED_CONTENT"), "env": SA},
    {"function": "Count", "args": {"q": "e"}, "replies": [{"status": 429, "body": {"error": {
        "code": 429, "status": "RESOURCE_EXHAUSTED", "message": "quota"}}}], "env": SA},
    {"function": "Count", "args": {"q": "f"}, "replies": [{"status": 401, "body": "unauthenticated"}], "env": SA},
    {"function": "Count", "args": {"q": "g"}, "replies": [{"json": {"error": {
        "code": 500, "message": "internal", "status": "INTERNAL"}}}], "env": SA},
    {"function": "CountTuned", "args": {"q": "h"}, "replies": text("9"), "env": SA},
    {"function": "CountExpress", "args": {"q": "i"}, "replies": text("10"), "env": NO_ADC},
    {"function": "ExtractClaude", "args": {"q": "Ann Lee, 31"}, "replies": text(P_JSON), "env": SA},
    {"function": "CountClaude", "args": {"q": "j"}, "replies": text("3"), "env": SA},
    {"function": "CountClaude", "args": {"q": "k"}, "replies": text("3", stop="max_tokens"), "env": SA},
    {"function": "Count", "args": {"q": "l"}, "replies": text("5"), "env": NO_ADC, "volatile": ["detail"]},
    {"function": "CountShort", "args": {"q": "m"}, "replies": text("5"),
     "env": {**NO_ADC, "GOOGLE_CLOUD_PROJECT": None, "GCLOUD_PROJECT": None}, "volatile": ["detail"]},
])

# -- AWS Bedrock Converse -----------------------------------------------------------------------------
BR = 'model = "anthropic.claude-3-haiku-20240307-v1:0", endpoint_url = env.LLM_MOCK_ROOT'
KEYS = 'region = "us-east-1", access_key_id = "AKIDEXAMPLE", secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"'
AWS_ENV = {"AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_SESSION_TOKEN": "session-tok",
           "AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": None, "AWS_PROFILE": None}
NO_AWS = {"AWS_ACCESS_KEY_ID": None, "AWS_SECRET_ACCESS_KEY": None, "AWS_SESSION_TOKEN": None, "AWS_REGION": None,
          "AWS_DEFAULT_REGION": None, "AWS_PROFILE": None, "AWS_CONFIG_FILE": "{MISSING_FILE}",
          "AWS_SHARED_CREDENTIALS_FILE": "{MISSING_FILE}"}
AWS_FILES = {**NO_AWS, "AWS_CONFIG_FILE": "{AWS_CONFIG}", "AWS_SHARED_CREDENTIALS_FILE": "{AWS_CREDENTIALS}"}
AWS_CONFIG = "[profile dev]\nregion = ap-south-1\n"
AWS_CREDENTIALS = "[dev]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile-secret\n"
PROGRAMS["bedrock"] = (f"""\
client Br = aws.BedrockClient.new({BR}, {KEYS});
client BrTuned = aws.BedrockClient.new({BR}, {KEYS}, max_tokens = 300, temperature = 0.4, top_p = 0.9, stop_sequences = ["END"], additional_model_request_fields = {{"top_k": 50}}, headers = {{"X-Team": "core"}}, query_params = {{"trace": "on off"}}, request_body = {{"performanceConfig": {{"latency": "optimized"}}}});
client BrEnv = aws.BedrockClient.new(model = "meta.llama3-8b-instruct-v1:0", endpoint_url = env.LLM_MOCK_ROOT);
client BrProfile = aws.BedrockClient.new(model = "amazon.nova-lite-v1:0", profile = "dev", endpoint_url = env.LLM_MOCK_ROOT);
""" + PERSON + functions("Br") + fn("CountTuned", "q: string", "int", PLAIN, "BrTuned")
    + fn("CountEnv", "q: string", "int", PLAIN, "BrEnv")
    + fn("CountShort", "q: string", "int", PLAIN, '"bedrock/anthropic.claude-3-haiku-20240307-v1:0"')
    + fn("CountProfile", "q: string", "int", PLAIN, "BrProfile")
    + fn("Opener", "q: string", "int", '${role("assistant")}I will count ${q}.', "Br"), [
    {"function": "Extract", "args": {"q": "Ann Lee, 31"}, "replies": text(P_JSON)},
    {"function": "Extract", "args": {"q": "Ann"}, "replies": text("nobody", P_JSON)},
    {"function": "Count", "args": {"q": "a, b, c"}, "replies": text("3")},
    {"function": "Talk", "args": {"q": "x y"}, "replies": text("2")},
    {"function": "Opener", "args": {"q": "apples"}, "replies": text("5")},
    {"function": "Count", "args": {"q": "d"}, "replies": text("4", stop="max_tokens")},
    {"function": "Count", "args": {"q": "e"}, "replies": text("1", stop="content_filtered")},
    {"function": "Count", "args": {"q": "f"}, "replies": text("1", stop="guardrail_intervened")},
    {"function": "Count", "args": {"q": "g"}, "replies": text("1", stop="malformed_model_output")},
    {"function": "Count", "args": {"q": "h"}, "replies": [{"json": {"stopReason": "end_turn"}}]},
    {"function": "Count", "args": {"q": "i"}, "replies": [{"status": 429, "body": {
        "message": "Too many requests"}, "headers": {"x-amzn-errortype": "ThrottlingException"}}]},
    {"function": "Count", "args": {"q": "j"}, "replies": [{"status": 403, "body": {"message": "denied"}}]},
    {"function": "Count", "args": {"q": "k"}, "replies": [{"status": 500, "body": {"message": "internal"}}]},
    {"function": "CountTuned", "args": {"q": "l"}, "replies": text("9")},
    {"function": "CountEnv", "args": {"q": "m"}, "replies": text("10"), "env": AWS_ENV},
    {"function": "CountEnv", "args": {"q": "n"}, "replies": text("11"), "env": NO_AWS},
    {"function": "CountShort", "args": {"q": "o"}, "replies": text("12"), "env": NO_AWS},
    {"function": "CountProfile", "args": {"q": "p"}, "replies": text("13"), "env": AWS_FILES},
    {"function": "CountEnv", "args": {"q": "r"}, "replies": text("14"), "env": {**AWS_FILES, "AWS_PROFILE": "dev"}},
])


# Every provider case starts from no credentials at all; metadata servers are pointed at a closed
# loopback port so nothing ever leaves the machine.
BASE_ENV: dict[str, str | None] = {
    "ANTHROPIC_API_KEY": None, "GOOGLE_API_KEY": None, "GOOGLE_APPLICATION_CREDENTIALS": "{MISSING_FILE}",
    "GOOGLE_APPLICATION_CREDENTIALS_CONTENT": None, "GOOGLE_CLOUD_PROJECT": None, "GCLOUD_PROJECT": None,
    "GOOGLE_CLOUD_LOCATION": None, "GOOGLE_CLOUD_REGION": None, "GCE_METADATA_HOST": "127.0.0.1:9",
    "GCE_METADATA_IP": "127.0.0.1:9", "AWS_EC2_METADATA_DISABLED": "true", **NO_AWS,
}


def service_account(port: int) -> str:
    return (CASES / "service_account.json").read_text(encoding="utf-8").replace("{PORT}", str(port))


def expand_env(env: dict[str, str | None], port: int, scratch: Path) -> dict[str, str | None]:
    """A case's environment with `{SA_FILE}`, `{SA_JSON}` and `{MISSING_FILE}` filled in."""
    sa_file = scratch / "service_account.json"
    sa_file.write_text(service_account(port), encoding="utf-8")
    env = {**BASE_ENV, **env}
    (scratch / "aws_config").write_text(AWS_CONFIG, encoding="utf-8")
    (scratch / "aws_credentials").write_text(AWS_CREDENTIALS, encoding="utf-8")
    values = {"{SA_FILE}": str(sa_file), "{SA_JSON}": service_account(port),
              "{MISSING_FILE}": str(scratch / "does-not-exist.json"), "{AWS_CONFIG}": str(scratch / "aws_config"),
              "{AWS_CREDENTIALS}": str(scratch / "aws_credentials")}
    return {k: values.get(v, v) if isinstance(v, str) else v for k, v in env.items()}


def sa_email() -> str:
    return str(json.loads((CASES / "service_account.json").read_text(encoding="utf-8"))["client_email"])


def token_claims(form: str) -> dict[str, Any]:
    """An OAuth2 JWT-bearer token request: its grant type, the assertion's header and claims (without the
    times it was made at)."""
    import base64
    from urllib.parse import parse_qs

    fields = {k: v[0] for k, v in parse_qs(form).items()}
    header, claims, _ = fields.pop("assertion").split(".")

    def part(text: str) -> dict[str, Any]:
        return dict(json.loads(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))))

    body = {k: v for k, v in part(claims).items() if k not in ("iat", "exp")}
    return {"form": sorted(fields), "grant_type": fields.get("grant_type"), "header": part(header), "claims": body}


# -- streaming ---------------------------------------------------------------------------------------------
# Cases with `"stream": true` run the function's streaming entry (`F@stream` on the engine,
# `Program.stream` on ingot): `partials` are the values in the order they were yielded.
STREAM_CLIENTS = """\
client Chat = openai.ChatClient.new(model = "gpt-4o-mini", api_key = "sk-test", base_url = env.LLM_MOCK_URL);
client Resp = openai.ResponsesClient.new(model = "gpt-4.1", api_key = "sk-test", base_url = env.LLM_MOCK_URL);
client Claude = anthropic.Client.new(model = "claude-sonnet-4-5", api_key = "sk-ant-test", base_url = env.LLM_MOCK_ROOT);
client Gem = google.GeminiClient.new(model = "gemini-2.5-flash", api_key = "g-test", base_url = env.LLM_MOCK_URL);
client VxGem = google.VertexClient.new(model = "gemini-2.5-pro", api_key = "vx-test", base_url = env.LLM_MOCK_URL);
client VxClaude = google.VertexClient.new(model = "claude-sonnet-4-5@20250929", api_key = "vx-test", base_url = env.LLM_MOCK_URL);
client Br = aws.BedrockClient.new(model = "anthropic.claude-3-haiku-20240307-v1:0", region = "us-east-1", access_key_id = "AKIDEXAMPLE", secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", endpoint_url = env.LLM_MOCK_ROOT);
"""
STREAM_DECLS = """\
enum Mood {
  HAPPY
  SAD
}
class Profile {
  name string
  age int
  nick string?
  tags string[]
}
class Board {
  people Profile[]
  note string
  mood Mood
}
"""
STREAM_PROFILE = ['Here: {"na', 'me": "An', 'n", "age": 3', '1, "tags": ["a', '", "b"], "ni', 'ck": "Jo', '"}']
STREAM_BOARD = ['{"people": [{"name": "A", "age": 1', ', "tags": []}, {"name": "B', '"}], "note": "hi', ' there", "mo',
                'od": "SA', 'D"}']
STREAM_FUNCTIONS = "".join(
    fn(f"{kind}{api}", "q: string", ret, "${role(\"system\")}Answer briefly.${role(\"user\")}" + prompt, api)
    for api in ("Chat", "Resp", "Claude", "Gem", "VxGem", "VxClaude", "Br")
    for kind, ret, prompt in (("Profile", "Profile", "Who is ${q}? ${ctx.output_format()}"),
                              ("Board", "Board", "Describe ${q}. ${ctx.output_format()}"),
                              ("Say", "string", "Say ${q}."),
                              ("Nums", "int[]", "List ${q}. ${ctx.output_format()}"),
                              ("Feel", "Mood", "How is ${q}? ${ctx.output_format()}")))


def _stream_cases(api: str) -> list[dict[str, Any]]:
    def case(kind: str, q: str, **reply: Any) -> dict[str, Any]:
        return {"function": f"{kind}{api}", "args": {"q": q}, "replies": [reply], "stream": True}

    return [case("Profile", "Ann", stream=STREAM_PROFILE), case("Board", "the room", stream=STREAM_BOARD),
            case("Say", "hello", stream=["Hel", "lo, wor", "ld!"]), case("Nums", "three", stream=["[1", ", 2", ", 33]"]),
            case("Feel", "Bo", stream=["HA", "PPY"]),
            case("Profile", "cut", stream=['{"name": "Ann", "age": 3', '1, "tags": []'], cut=True),
            case("Say", "long", stream=["Once upon", " a time"], stop="length" if api == "Chat" else
                 {"Resp": None, "Claude": "max_tokens", "Gem": "MAX_TOKENS", "VxGem": "MAX_TOKENS",
                                                     "VxClaude": "max_tokens", "Br": "max_tokens"}[api]),
            {**case("Say", "429", status=429, body="slow down", headers={"retry-after": "1"}),
             **({"gap": CHAT_STREAM_ERROR_NOTE} if api == "Chat" else {})}]


# The engine's Chat client reports a stream that failed to open with `raw_body` cut out of its
# transport error's text (`slow down" }` for a body `slow down`); ingot reports the body.
CHAT_STREAM_ERROR_NOTE = "the engine's Chat stream quotes the error body from its transport error's text"


ANTHROPIC_MIDSTREAM_ERROR = (
    'event: message_start\ndata: {"type": "message_start", "message": {"id": "m", "type": "message", "role": '
    '"assistant", "model": "mock", "content": [], "stop_reason": null, "usage": {"input_tokens": 1, "output_tokens": 0}}}'
    '\n\nevent: content_block_start\ndata: {"type": "content_block_start", "index": 0, "content_block": {"type": "text", '
    '"text": ""}}\n\nevent: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"type": '
    '"text_delta", "text": "Hel"}}\n\nevent: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
    '"message": "Overloaded"}}\n\n')
CHAT_MIDSTREAM_ERROR = ('data: {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m", "choices": '
                        '[{"index": 0, "delta": {"content": "Hel"}, "finish_reason": null}]}\n\n'
                        'data: {"error": {"message": "server overloaded", "type": "server_error", "code": "overloaded"}}'
                        '\n\n')
GEMINI_MIDSTREAM_ERROR = ('data: {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}, "index": 0}]}'
                          '\n\ndata: {"error": {"code": 500, "message": "internal", "status": "INTERNAL"}}\n\n')
MIDSTREAM = [("SayChat", CHAT_MIDSTREAM_ERROR), ("SayClaude", ANTHROPIC_MIDSTREAM_ERROR),
             ("SayGem", GEMINI_MIDSTREAM_ERROR)]

PROGRAMS["streaming"] = (STREAM_CLIENTS + STREAM_DECLS + STREAM_FUNCTIONS,
                         [c for api in ("Chat", "Resp", "Claude", "Gem") for c in _stream_cases(api)]
                         + [c for api in ("VxGem", "VxClaude") for c in _stream_cases(api)[:3]]
                         + [{"function": f, "args": {"q": "error"}, "replies": [{"sse": sse}], "stream": True}
                            for f, sse in MIDSTREAM]
                         + [{"function": f"Profile{api}", "args": {"q": "nobody"}, "stream": True,
                             "replies": [{"stream": ["I do not ", "know them."]}],
                             "volatile": ["message"]}  # the engine parser's own wording of the mismatch
                            for api in ("Chat", "Claude")]
                         + _stream_cases("Br")
                         + [{"function": "SayBr", "args": {"q": "error"}, "stream": True, "replies": [{"frames": [
                             ["messageStart", {"role": "assistant"}],
                             ["contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": "Hel"}}],
                             ["throttlingException", {"message": "Too many tokens"}]]}]}])
