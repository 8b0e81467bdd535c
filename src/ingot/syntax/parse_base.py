"""The parser's cursor over the tokens and what every part of the parser shares:
token helpers, error reporting (`ParseError`), operator binding powers.

`Parser` (parser.py) is this base plus one mixin per part of the grammar: expressions
(parse_expr.py), statements, patterns and types (parse_stmt.py), items and templates
(parser.py). The methods one part calls in another are declared here.
"""

from __future__ import annotations

from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Diagnostic, SourceFile, Span
from ingot.syntax.lexer import KEYWORDS, T, Token

# Binary operators: binding power (higher binds tighter), as BAML orders them.
BINARY_POWER = {
    "??": 1,
    "||": 2,
    "&&": 3,
    "|": 4,
    "^": 5,
    "&": 6,
    "==": 7, "!=": 7,
    "<": 8, "<=": 8, ">": 8, ">=": 8,
    "<<": 9, ">>": 9,
    "+": 10, "-": 10,
    "*": 11, "/": 11, "%": 11,
}
IS_POWER = 8  # `x is T` sits with the relational operators
UNARY_POWER = 12
COMPOUND_ASSIGN = {"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="}
# How deeply expressions, blocks, types and patterns may nest. The BAML engine (0.23) overflows
# its stack near 190 nested `if`s and 570 nested parentheses; beyond this limit ingot reports a
# diagnostic, and the compiler's stack (compiler.py) is sized for every pass at this depth.
# Chains (`a + b + ...`, `else if`, `.method()` calls) do not nest.
MAX_NESTING = 1000
ITEM_KEYWORDS = {"function", "class", "enum", "type", "const", "client", "test", "testset", "let",
                 "generator", "retry_policy", "template_string"}

# Which words can name what, as the engine (0.23) decides: it has no single list of reserved
# words. Control-flow words are never names. Item words are no parameter, field or function
# name; `let <item word>` ends the body there (see parse_let). `client` and `const` name a
# parameter, a field or a class literal's field, not a local; `extends`, `requires` and
# `interface` name a parameter of no kind but declare a field (which no class literal can set).
CONTROL_WORDS = frozenset("if else for while let in break continue return throw match catch throws "
                          "instanceof await is spawn defer".split())
ITEM_WORDS = frozenset("function class enum generator test testset retry_policy template_string".split())
# A parameter (of a function or a lambda): E0107 at the name, or E0010 for the words the engine
# reads as a misplaced item (`let`, removed `retry_policy` / `template_string` blocks).
PARAM_RESERVED = CONTROL_WORDS | ITEM_WORDS | {"extends", "interface", "implements", "implement", "requires"}
PARAM_MISPLACED = frozenset({"let", "retry_policy", "template_string"})
# A function's (or method's) name: E0107 at `function`.
FUNCTION_NAME_RESERVED = CONTROL_WORDS | ITEM_WORDS | {"client"}
# A local (`let`, `for (let x in ...)`, a pattern's `let x`, a catch binding): E0010 at the name.
LOCAL_RESERVED = CONTROL_WORDS | {"client", "const", "test", "testset", "extends", "requires"}
# `let <word>` where the word starts an item: the body ends before it (see parse_let).
LOCAL_ITEM_WORDS = (ITEM_WORDS - {"test", "testset"}) | {"interface", "implements", "implement"}
# A field declared in a class body (`function` starts a method): E0010 at the name.
FIELD_RESERVED = CONTROL_WORDS | (ITEM_WORDS - {"function"})
# A field set in a class literal or matched in a class pattern: E0010 at the name.
FIELD_VALUE_RESERVED = FIELD_RESERVED | {"extends", "requires", "interface"}


class ParseError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


def describe(tok: Token) -> str:
    """A token as the engine's messages show it: `EOF`, `';'`, `foo`."""
    if tok.kind is T.EOF:
        return "EOF"
    if tok.kind is T.PUNCT:
        return f"'{tok.text}'"
    return tok.text


class ParserBase:
    """Token cursor and shared helpers; see the module docstring."""

    def __init__(self, source: SourceFile, tokens: list[Token], docs: dict[int, str]) -> None:
        self.src = source
        self.toks = tokens
        self.docs = docs
        self.i = 0
        self.catch_allowed = True  # false inside a `throw` value (see parse_throw_value)
        self.diagnostics: list[Diagnostic] = []
        self.nesting = 0  # inside ( ) or [ ], where newlines never end an expression
        self.depth = 0  # nested expressions, types and patterns being parsed (see MAX_NESTING)
        self.paren_close: dict[int, int] | None = None  # `(` token index -> its `)`, when first needed
        # The blocks being parsed, innermost last: each one's `{` offset and, for a body, the
        # declared result type (which parse_let's `let class` error names, as the engine does).
        self.blocks: list[tuple[int, A.TypeExpr | None]] = []
        self.body_type: A.TypeExpr | None = None  # the result type of the body parsed next

    # -- token helpers ------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Token:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def advance(self) -> Token:
        t = self.toks[self.i]
        if t.kind is not T.EOF:
            self.i += 1
        return t

    def at(self, text: str) -> bool:
        t = self.toks[self.i]
        return t.text == text and t.kind in (T.PUNCT, T.IDENT)

    def eat(self, text: str) -> Token | None:
        if self.at(text):
            return self.advance()
        return None

    def span(self, start: int, end: int | None = None) -> Span:
        if end is None:
            end = self.toks[self.i - 1].end if self.i > 0 else start
        return Span(self.src, start, end)

    def error(self, message: str, tok: Token | None = None, primary: str | None = None,
              code: Code = Code.SYNTAX, span: Span | None = None) -> ParseError:
        tok = tok or self.tok
        if span is None:
            span = Span(self.src, tok.start, tok.start if tok.kind is T.EOF else tok.end)
        return ParseError(Diagnostic(code, message, span, primary))

    def enter(self) -> None:
        """One level deeper into an expression, type or pattern; a diagnostic past MAX_NESTING."""
        if self.depth >= MAX_NESTING:
            raise self.error(f"nesting too deep: at most {MAX_NESTING} nested expressions, blocks, types "
                             "or patterns are supported", code=Code.UNSUPPORTED)
        self.depth += 1

    def expect(self, text: str) -> Token:
        if self.at(text):
            return self.advance()
        raise self.error("unexpected token", primary=f"expected `'{text}'`, found `{describe(self.tok)}`")

    def expect_close_angle(self) -> None:
        """`>` closing a type argument list; splits `>>` as in `map<K, map<K, V>>`."""
        t = self.tok
        if t.kind is T.PUNCT and t.text in (">>", ">>=", ">="):
            rest = t.text[1:]
            self.toks[self.i] = Token(T.PUNCT, rest, t.start + 1, t.end, False)
            return
        self.expect(">")

    def ident(self, what: str = "identifier") -> Token:
        if self.tok.kind is T.IDENT:
            return self.advance()
        raise self.error("unexpected token", primary=f"expected {what}, found `{describe(self.tok)}`")

    def name_ident(self, what: str = "a name", reserved: frozenset[str] | None = None) -> Token:
        """An identifier that is not a reserved word: `reserved` (one of the sets above), by default
        the lexer's KEYWORDS (for the names of types, constants, clients, ...)."""
        t = self.ident(what)
        if reserved is None:
            reserved = KEYWORDS
        if t.text in reserved and t.text not in ("null", "true", "false"):
            raise self.error("unexpected token", t, f"expected {what}, found keyword `{t.text}`")
        return t

    def local_name(self, what: str) -> Token:
        """The name a `let`, a `for` loop, a pattern or a `catch` binds."""
        return self.name_ident(what, LOCAL_RESERVED)

    def doc_at(self, index: int) -> str | None:
        return self.docs.get(index)

    # -- implemented by the parts (parse_expr, parse_stmt, parser) ---------------------
    def parse_expr(self, no_class_lit: bool = False, allow_assign: bool = False) -> A.Expr:
        raise NotImplementedError

    def parse_catch(self, expr: A.Expr, start: int) -> A.Catch:
        raise NotImplementedError

    def parse_block(self, function_body: bool = False) -> A.Block:
        raise NotImplementedError

    def parse_stmt(self) -> tuple[A.Stmt, bool]:
        raise NotImplementedError

    def parse_stmt_no_semicolon(self) -> tuple[A.Stmt, bool]:
        raise NotImplementedError

    def parse_pattern(self) -> A.Pattern:
        raise NotImplementedError

    def parse_pattern_single(self, no_class_pat: bool = False) -> A.Pattern:
        raise NotImplementedError

    def parse_type(self) -> A.TypeExpr:
        raise NotImplementedError

    def parse_type_args(self) -> list[A.TypeExpr]:
        raise NotImplementedError

    def looks_like_type_args(self) -> bool:
        raise NotImplementedError

    def parse_param(self, require_type: bool, owner: str = "lambda") -> A.Param:
        raise NotImplementedError

    def parse_template(self, tok: Token) -> A.Template:
        raise NotImplementedError
