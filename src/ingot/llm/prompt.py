"""A rendered prompt as the engine's chat messages (`ai.Prompt.messages()`).

`${role("user")}` in a prompt renders a marker (`ROLE_OPEN + name + ROLE_CLOSE`)
into the prompt text; here the text is cut at those markers. As on the
engine, each message's text is trimmed; the text before the first marker is a
`system` message, kept only when it has content; a prompt without markers is
one `system` message (each client decides where that goes: OpenAI Chat sends
it as a system message, Anthropic, Gemini and Bedrock promote a system-only
prompt to the user turn).
"""

from __future__ import annotations

from dataclasses import dataclass

from ingot.semantics.clients import ROLE_CLOSE, ROLE_OPEN


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    text: str


def prompt_messages(rendered: str) -> list[Message]:
    if ROLE_OPEN not in rendered:
        return [Message("system", rendered.strip())]
    head, *rest = rendered.split(ROLE_OPEN)
    out = [Message("system", head.strip())] if head.strip() else []
    for chunk in rest:
        role, _, text = chunk.partition(ROLE_CLOSE)
        out.append(Message(role, text.strip()))
    return out


def readable(rendered: str) -> str:
    """The prompt with each role marker shown as a `[role]` header line."""
    if ROLE_OPEN not in rendered:
        return rendered
    head, *rest = rendered.split(ROLE_OPEN)
    parts = [head.strip()] if head.strip() else []
    for chunk in rest:
        role, _, text = chunk.partition(ROLE_CLOSE)
        parts.append(f"[{role}]\n{text.strip()}")
    return "\n\n".join(parts)
