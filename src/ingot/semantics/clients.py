"""Client declarations evaluated at compile time.

`client Fast = openai.ChatClient.new(model = "gpt-4o-mini", api_key = env.KEY)`
becomes `ClientSpec("Fast", "openai.ChatClient", {"model": "gpt-4o-mini",
"api_key": EnvRef("KEY")})`. An LLM function names a client (`client: Fast`) or
uses the shorthand `client: "openai/gpt-4o-mini"`. Options must be literals
(strings, numbers, booleans, `null`, arrays and maps of them) or `env.NAME`
references, resolved when the client is used.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Diagnostic, Span

# `${role("user")}` in a prompt renders as ROLE_OPEN + "user" + ROLE_CLOSE; the LLM
# client splits the rendered prompt into chat messages at these markers.
ROLE_OPEN = "\x00role:"
ROLE_CLOSE = "\x00"


@dataclass(frozen=True, slots=True)
class EnvRef:
    """`env.NAME`: read from the environment when the client is used."""

    name: str


@dataclass(frozen=True, slots=True)
class ClientRef:
    """A declared client named inside another client's options (`inner = Fast`)."""

    name: str


@dataclass(frozen=True, slots=True)
class ClientSpec:
    name: str  # the declared name, or the shorthand text ("openai/gpt-4o-mini")
    provider: str  # "openai.ChatClient", "openai.ResponsesClient", or the shorthand's "openai"
    options: dict[str, Any] = field(default_factory=dict)
    span: Span | None = None
    shorthand: bool = False


class ClientError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def dotted(e: A.Expr) -> str | None:
    if isinstance(e, A.Name):
        return e.ident
    if isinstance(e, A.FieldAccess) and not e.optional:
        base = dotted(e.obj)
        return None if base is None else f"{base}.{e.name}"
    return None


def literal(e: A.Expr, clients: frozenset[str] = frozenset()) -> Any:
    """A compile-time value of a client option; `clients` are the names of declared clients."""
    if isinstance(e, (A.StringLit, A.IntLit, A.FloatLit, A.BoolLit)):
        return e.value
    if isinstance(e, A.NullLit):
        return None
    if isinstance(e, A.Template) and all(isinstance(p, str) for p in e.parts):
        return "".join(p for p in e.parts if isinstance(p, str))
    if isinstance(e, A.ArrayLit):
        return [literal(x, clients) for x in e.elements]
    if isinstance(e, A.MapLit):
        return {literal(k, clients): literal(v, clients) for k, v in e.entries}
    if isinstance(e, A.Name) and e.ident in clients:
        return ClientRef(e.ident)
    if isinstance(e, A.Call):
        return option_constructor(e, clients)
    path = dotted(e)
    if path is not None and path.startswith("env.") and path.count(".") == 1:
        return EnvRef(path[4:])
    raise ClientError(Diagnostic(Code.UNSUPPORTED, "client options must be literals or `env.NAME`; "
                                 "computed client options are not supported yet", e.span))


# Typed client options built by a constructor (`google.SafetySetting.new(...)`): the
# constructor's parameters, and the JSON object it stands for.
OPTION_CONSTRUCTORS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "google.SafetySetting.new": (("category", "threshold"), {}),
    "anthropic.ThinkingConfig.enabled": (("budget_tokens",), {"type": "enabled"}),
    "anthropic.ThinkingConfig.disabled": ((), {"type": "disabled", "budget_tokens": None}),
}


def option_constructor(e: A.Call, clients: frozenset[str]) -> dict[str, Any]:
    """`google.SafetySetting.new("HARM_CATEGORY_X", "BLOCK_NONE")` as the object it builds."""
    path = dotted(e.callee)
    if path not in OPTION_CONSTRUCTORS:
        raise ClientError(Diagnostic(Code.UNSUPPORTED, "client options must be literals, `env.NAME` or one of "
                                     + ", ".join(f"`{name}(...)`" for name in OPTION_CONSTRUCTORS), e.span))
    params, fixed = OPTION_CONSTRUCTORS[path]
    out: dict[str, Any] = dict(fixed)
    for i, arg in enumerate(e.args):
        name = arg.name if arg.name is not None else (params[i] if i < len(params) else None)
        if name not in params or name in out and name not in fixed:
            raise ClientError(Diagnostic(Code.BAD_ARGUMENTS, f"`{path}` takes ({', '.join(params)})", arg.span))
        out[name] = literal(arg.value, clients)
    missing = [p for p in params if p not in out]
    if missing:
        raise ClientError(Diagnostic(Code.BAD_ARGUMENTS, f"`{path}` needs `{missing[0]}`", e.span))
    return out


def client_spec(decl: A.ClientDecl, clients: frozenset[str] = frozenset()) -> ClientSpec:
    """Evaluate `client Name = provider.Kind.new(option = value, ...)` (or `ai.clients.Fallback { ... }`)."""
    value = decl.value
    if isinstance(value, A.ClassLit):
        fields = {name: literal(v, clients) for name, v, _ in value.fields}
        return ClientSpec(decl.name, value.name, fields, decl.span)
    if not isinstance(value, A.Call):
        raise ClientError(Diagnostic(Code.UNSUPPORTED, "a client must be built with `<provider>.<Client>.new(...)`",
                                     value.span))
    path = dotted(value.callee)
    if path is None or not path.endswith(".new"):
        raise ClientError(Diagnostic(Code.UNSUPPORTED, "a client must be built with `<provider>.<Client>.new(...)`",
                                     value.callee.span))
    options: dict[str, Any] = {}
    for arg in value.args:
        if arg.name is None:
            raise ClientError(Diagnostic(Code.BAD_ARGUMENTS, "client options are passed by name "
                                         "(`model = \"...\"`)", arg.span))
        options[arg.name] = literal(arg.value, clients)
    return ClientSpec(decl.name, path[: -len(".new")], options, decl.span)


def shorthand_spec(text: str, span: Span) -> ClientSpec:
    """`client: "openai/gpt-4o-mini"`."""
    provider, _, model = text.partition("/")
    if not model:
        raise ClientError(Diagnostic(Code.SYNTAX, "a client shorthand is `\"provider/model\"`", span))
    return ClientSpec(text, provider, {"model": model}, span, shorthand=True)


def collect_clients(module: A.Module) -> tuple[dict[str, ClientSpec], dict[str, ClientSpec], list[Diagnostic]]:
    """(client specs by name, the spec each LLM function uses by function name, diagnostics)."""
    specs: dict[str, ClientSpec] = {}
    diags: list[Diagnostic] = []
    names = frozenset(item.name for item in module.items if isinstance(item, A.ClientDecl))
    for item in module.items:
        if isinstance(item, A.ClientDecl):
            try:
                specs[item.name] = client_spec(item, names)
            except ClientError as e:
                diags.append(e.diagnostic)
    uses: dict[str, ClientSpec] = {}
    for item in module.items:
        if isinstance(item, A.Function) and isinstance(item.body, A.LlmBody):
            client = item.body.client
            try:
                if isinstance(client, A.StringLit):
                    uses[item.name] = shorthand_spec(client.value, client.span)
                elif isinstance(client, A.Name) and client.ident in specs:
                    uses[item.name] = specs[client.ident]
            except ClientError as e:
                diags.append(e.diagnostic)
    return specs, uses, diags
