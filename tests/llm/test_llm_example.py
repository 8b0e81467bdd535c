"""examples/llm runs end to end against its local mock server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "llm"


def test_demo_routes_messages_and_its_tests_pass(capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    for name in ("OPENAI_API_KEY", "SUPPORT_LLM_URL"):  # main() sets both; restore them afterwards
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    import run_demo

    assert run_demo.main() == 0
    out = capsys.readouterr().out
    assert "-> 'engineering (urgent): Site down.'" in out
    assert "-> 'billing: Customer asks for a refund.'" in out
    assert "-> 'front-desk: General question.'" in out
    assert "3 passed, 0 failed" in out
    sys.modules.pop("run_demo", None)
