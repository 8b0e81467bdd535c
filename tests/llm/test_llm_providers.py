"""Anthropic, Gemini, Vertex AI and Bedrock beyond the request/reply replay of test_llm_conformance.py:
SigV4 signatures, Google service-account tokens, and `ingot prompt` for every provider."""

from __future__ import annotations

import datetime
import functools
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from provider_cases import expand_env, sa_email, token_claims

import ingot
from ingot.cli import main
from ingot.llm import bedrock, google
from ingot.llm.request import HttpRequest

CASES = Path(__file__).resolve().parent / "cases"
SECRETS = {"x-api-key", "x-goog-api-key", "authorization", "x-amz-date", "x-amz-security-token"}


@functools.cache
def _program(name: str) -> ingot.Program:
    return ingot.load(CASES / f"{name}.baml")


def recorded(name: str) -> list[dict[str, Any]]:
    return list(json.loads((CASES / f"{name}.json").read_text(encoding="utf-8"))["cases"])


def _signed_cases() -> list[Any]:
    out = []
    for name in ("bedrock", "streaming"):
        for i, case in enumerate(recorded(name)):
            for j, req in enumerate(case["requests"]):
                if "x-amz-date" in req["headers"]:
                    out.append(pytest.param(name, case, req, id=f"{name}[{i}].{j}-{case['function']}"))
    return out


@pytest.mark.parametrize(("program", "case", "req"), _signed_cases())
def test_sigv4_signature_is_the_engines(program: str, case: dict[str, Any], req: dict[str, Any],
                                        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """ingot signs the engine's recorded request (same URL, port, body and time) to the same signature."""
    headers = dict(req["headers"])
    when = datetime.datetime.strptime(headers.pop("x-amz-date"), "%Y%m%dT%H%M%SZ")
    monkeypatch.setattr(bedrock, "now", lambda: when.replace(tzinfo=datetime.UTC))
    want = headers.pop("authorization")
    headers.pop("x-amz-security-token", None)
    # sent by the engine, left out of the recording as a transport header
    streamed = req["path"].split("?")[0].endswith("/converse-stream")
    headers["accept"] = "application/vnd.amazon.eventstream" if streamed else "application/json"
    for name, value in expand_env(case.get("env", {}), 0, tmp_path).items():
        if value is None:
            monkeypatch.delenv(name, raising=False)
        else:
            monkeypatch.setenv(name, value)
    spec = _program(program).view.client_of(case["function"])
    assert spec is not None
    options = dict(spec.options)
    body = json.dumps(req["body"], ensure_ascii=False, separators=(",", ":"))
    signed = bedrock.sign(options, HttpRequest("POST", f"http://127.0.0.1:{case['port']}{req['path']}", headers, body))
    assert signed.headers["authorization"] == want
    assert signed.headers.get("x-amz-security-token") == req["headers"].get("x-amz-security-token")


def test_vertex_service_account_token_request_is_the_engines(llm_server: Any, set_env: Any, tmp_path: Path) -> None:
    """The JWT-bearer grant ingot posts to the key's token_uri carries the engine's claims, signed by the key."""
    from google.auth import jwt

    engine = next(t for c in recorded("vertex") for t in c.get("token_requests", []))
    google._CREDENTIALS.clear()
    set_env(expand_env({"GOOGLE_APPLICATION_CREDENTIALS": "{SA_FILE}"}, llm_server.port, tmp_path))
    llm_server.reset([{"text": "3"}])
    program = ingot.load(CASES / "vertex.baml")
    assert program.call("Count", q="a, b, c") == 3
    [token] = llm_server.token_requests
    mine = token_claims(token["body"])
    assert mine["claims"]["aud"] == f"{llm_server.root_url}/token"
    engine["claims"]["aud"] = mine["claims"]["aud"] = "TOKEN_URI"  # the port differs between runs
    assert (mine["grant_type"], mine["claims"], mine["header"]["alg"]) == \
        (engine["grant_type"], engine["claims"], engine["header"]["alg"])
    assert mine["claims"]["iss"] == sa_email()
    key = json.loads((tmp_path / "service_account.json").read_text(encoding="utf-8"))["private_key"]
    assertion = dict(p.split("=", 1) for p in token["body"].split("&"))["assertion"]
    jwt.decode(assertion.replace("%2E", "."), certs=_public_pem(key), audience=f"{llm_server.root_url}/token")
    assert llm_server.requests[0]["headers"]["authorization"] == "Bearer ya29.local-test-token"


def _public_pem(private_pem: str) -> bytes:
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(private_pem.encode(), password=None)
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


@pytest.mark.parametrize(("name", "function", "index"), [
    ("anthropic", "Extract", 0), ("anthropic", "CountTuned", 14), ("gemini", "Talk", 3),
    ("gemini", "CountTuned", 15), ("vertex", "ExtractClaude", 11), ("bedrock", "CountTuned", 13),
])
def test_prompt_shows_the_engines_request_without_secrets(name: str, function: str, index: int,
                                                          llm_server: Any, set_env: Any, tmp_path: Path) -> None:
    case = recorded(name)[index]
    assert case["function"] == function
    set_env(expand_env(case.get("env", {}), llm_server.port, tmp_path))
    result = CliRunner().invoke(main, ["prompt", str(CASES / f"{name}.baml"), function, "--args",
                                       json.dumps(case["args"])])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    want = case["requests"][0]
    assert shown["url"].removeprefix(llm_server.root_url) == want["path"]
    assert shown["body"] == want["body"]
    kept = {k: v for k, v in want["headers"].items() if k not in SECRETS}
    assert {k: v for k, v in shown["headers"].items() if k != "accept"} == kept
    assert not SECRETS & set(shown["headers"])
    assert llm_server.requests == [] and llm_server.token_requests == []  # nothing was sent


def test_vertex_express_key_is_redacted_in_prompt(llm_server: Any) -> None:
    result = CliRunner().invoke(main, ["prompt", str(CASES / "vertex.baml"), "CountExpress", "--args", '{"q": "i"}'])
    assert result.exit_code == 0, result.output
    url = json.loads(result.output)["url"]
    assert url.endswith(":generateContent?key=%3CPREVIEW%3E") and "vx-express" not in url  # escaped as on the engine
