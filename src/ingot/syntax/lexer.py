"""BAML source -> tokens.

Newlines are not tokens: BAML ends a statement at a newline, a `;` or where
the next statement begins, so the parser stops an expression where the next
token cannot continue it. Each token still records whether a newline came
before it, which the parser uses to keep `f\n(x)` from becoming a call.

A template string (backticks) is one token holding its literal pieces and the
offsets of each `${...}` hole; the parser lexes and parses the holes itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, auto

from ingot.syntax.diagnostics import Code, Diagnostic, SourceFile, Span


class T(Enum):
    IDENT = auto()
    INT = auto()
    FLOAT = auto()
    STRING = auto()
    TEMPLATE = auto()
    PUNCT = auto()
    EOF = auto()


KEYWORDS = frozenset(
    "function class enum client test testset const let if else match while for in break "
    "continue return throw catch true false null".split()
)

# Longest first, so `<<=` wins over `<<` and `<`.
PUNCTUATION = sorted(
    """<<= >>= ... ?. ?? -> => == != <= >= << >> && || += -= *= /= %= &= |= ^= @@
    { } ( ) [ ] , ; : . ? = < > + - * / % & | ^ ~ ! @""".split(),
    key=len,
    reverse=True,
)
# The candidates for each first character, longest first: a token tries a handful, not all.
PUNCTUATION_BY_FIRST = {c: [p for p in PUNCTUATION if p[0] == c] for c in {p[0] for p in PUNCTUATION}}


@dataclass(frozen=True, slots=True)
class TemplateHole:
    """`${...}` inside a template: the offsets of the text between the braces."""

    start: int
    end: int


@dataclass(frozen=True, slots=True)
class TemplateEscape:
    """An escaped character inside a template (`\\n`): text, but not the source's own layout, so
    the dedent of a multi-line template neither breaks lines at it nor trims it."""

    char: str


@dataclass(frozen=True, slots=True)
class Token:
    kind: T
    text: str  # punctuation or identifier text; raw text for literals
    start: int
    end: int
    newline_before: bool
    value: object = None  # decoded literal: int, float, str, or template parts

    def is_(self, text: str) -> bool:
        return (self.kind is T.PUNCT or self.kind is T.IDENT) and self.text == text


class LexError(Exception):
    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


# An integer literal far beyond 64 bits keeps this value: the checker reports it as too large
# (E0152) either way, and Python cannot convert (or print) ints of more than 4,300 digits.
OVERSIZED_INT = 1 << 64


def _int_value(digits: str, base: int) -> int:
    if len(digits.lstrip("0")) > 80:  # past 64 bits in every base (binary too)
        return OVERSIZED_INT
    return int(digits, base)


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", '"': '"', "\\": "\\", "$": "$", "`": "`", "'": "'"}


class Lexer:
    def __init__(self, source: SourceFile, start: int = 0, end: int | None = None) -> None:
        self.src = source
        self.text = source.text
        self.pos = start
        self.end = len(self.text) if end is None else end
        self.tokens: list[Token] = []
        self.doc_comments: dict[int, str] = {}  # token index -> `///` text before it

    # -- errors -------------------------------------------------------------
    def _error(self, start: int, end: int, message: str, code: Code = Code.SYNTAX,
               primary: str | None = None) -> LexError:
        return LexError(Diagnostic(code, message, Span(self.src, start, end), primary))

    # -- main loop ----------------------------------------------------------
    def tokenize(self) -> list[Token]:
        newline = True
        doc: list[str] = []
        text, end = self.text, self.end
        while True:
            newline, doc = self._skip_trivia(newline, doc)
            if self.pos >= end:
                # Like the engine, "found `EOF`" points just after the last token.
                at = self.tokens[-1].end if self.tokens else self.pos
                self.tokens.append(Token(T.EOF, "", at, at, True))
                return self.tokens
            if doc:
                self.doc_comments[len(self.tokens)] = "\n".join(doc)
                doc = []
            ch = text[self.pos]
            start = self.pos
            if ch == "r" and self.pos + 1 < end and text[self.pos + 1] == '"':
                tok = self._raw_string(start, newline)
            elif ch.isascii() and (ch.isalpha() or ch == "_"):
                tok = self._ident(start, newline)
            elif ch.isdigit():
                tok = self._number(start, newline)
            elif ch == '"':
                tok = self._string(start, newline)
            elif ch == "`":
                tok = self._template(start, newline)
            elif ch == "#" and self.pos + 1 < end and text[self.pos + 1] == '"':
                tok = self._hash_string(start)
            elif ch == "'":
                raise self._error(start, start + 1, "unexpected character `'`",
                                  primary="strings use double quotes or backticks")
            else:
                tok = self._punct(start, newline)
            self.tokens.append(tok)
            newline = False

    def _skip_trivia(self, newline: bool, doc: list[str]) -> tuple[bool, list[str]]:
        text, end = self.text, self.end
        while self.pos < end:
            ch = text[self.pos]
            if ch == "\n":
                newline = True
                self.pos += 1
            elif ch in " \t\r\ufeff":
                self.pos += 1
            elif text.startswith("///", self.pos) and not text.startswith("////", self.pos):
                stop = text.find("\n", self.pos)
                stop = end if stop < 0 or stop > end else stop
                line = text[self.pos + 3 : stop]
                doc.append(line[1:] if line.startswith(" ") else line)
                self.pos = stop
            elif text.startswith("//", self.pos):
                stop = text.find("\n", self.pos)
                self.pos = end if stop < 0 or stop > end else stop
                doc = []
            elif text.startswith("/*", self.pos):
                stop = text.find("*/", self.pos + 2)
                if (stop < 0 or stop + 2 > end) and end == len(text):
                    self.pos = end  # the engine reads an unclosed comment as running to the end of the file
                    break
                if stop < 0 or stop + 2 > end:
                    raise self._error(self.pos, self.pos + 2, "unterminated block comment")
                newline = newline or "\n" in text[self.pos : stop]
                self.pos = stop + 2
            else:
                break
        return newline, doc

    def _ident(self, start: int, newline: bool) -> Token:
        text, end = self.text, self.end
        p = start + 1
        while p < end and (text[p].isascii() and (text[p].isalnum() or text[p] == "_")):
            p += 1
        if p < end and not text[p].isascii() and text[p].isalpha():
            q = p
            while q < end and (text[q].isalnum() or text[q] == "_"):
                q += 1
            raise self._error(p, p + 1, f"invalid identifier `{text[start:q]}`",
                              primary="identifiers may contain only ASCII letters, digits and `_`")
        self.pos = p
        return Token(T.IDENT, text[start:p], start, p, newline)

    def _number(self, start: int, newline: bool) -> Token:
        text, end = self.text, self.end
        p = start
        if text.startswith(("0x", "0X", "0b", "0B", "0o", "0O"), p):
            base = {"x": 16, "b": 2, "o": 8}[text[p + 1].lower()]
            p += 2
            digits = "0123456789abcdefABCDEF_"[: {16: 22, 8: 8, 2: 2}[base]] + "_"
            q = p
            while q < end and text[q] in digits:
                q += 1
            raw = text[p:q].replace("_", "")
            if not raw:
                raise self._error(start, q, "invalid integer literal")
            self.pos = q
            return Token(T.INT, text[start:q], start, q, newline, _int_value(raw, base))
        while p < end and (text[p].isdigit() or text[p] == "_"):
            p += 1
        is_float = False
        if p + 1 < end and text[p] == "." and text[p + 1].isdigit():
            is_float = True
            p += 1
            while p < end and (text[p].isdigit() or text[p] == "_"):
                p += 1
        if p < end and text[p] in "eE":
            q = p + 1
            if q < end and text[q] in "+-":
                q += 1
            if q < end and text[q].isdigit():
                is_float = True
                p = q
                while p < end and text[p].isdigit():
                    p += 1
        raw = text[start:p].replace("_", "")
        self.pos = p
        if p < end and text[p] == "n" and not is_float:
            raise self._error(start, p + 1, "`bigint` literals are not supported yet", Code.UNSUPPORTED)
        if is_float:
            return Token(T.FLOAT, text[start:p], start, p, newline, float(raw))
        return Token(T.INT, text[start:p], start, p, newline, _int_value(raw, 10))

    def _escape(self, p: int) -> tuple[str, int]:
        """Decode the escape at text[p] == '\\'; return (char, next offset). As on the engine: `\\x`
        goes up to `\\x7F`, `\\u{...}` up to U+10FFFF, and a UTF-16 surrogate is valid only as the
        high half of a pair whose low half is the next escape (`\\uD83D\\uDE00` is one character)."""
        text = self.text
        if p + 1 >= self.end:
            raise self._error(p, p + 1, "unterminated escape")
        c = text[p + 1]
        if c in _ESCAPES:
            return _ESCAPES[c], p + 2
        if c not in "ux":
            raise self._error(p, p + 2, f'unknown escape sequence "\\{c}" - did you mean "\\\\{c}" '
                              f'(escaped backslash) or r"\\{c}" (raw string)?', Code.INVALID_ESCAPE, "unknown escape")
        value, end = self._code_point(p)
        if c == "x" and value > 0x7F:
            raise self._error(p, end, f'out of range escape sequence "{text[p:end]}" - "\\x" escapes in strings only '
                              'go up to "\\x7F"; use "\\u{...}" for a non-ASCII character', Code.INVALID_ESCAPE,
                              "invalid escape")
        if 0xD800 <= value <= 0xDBFF and text.startswith("\\u", end):
            low, after = self._code_point(end)
            if 0xDC00 <= low <= 0xDFFF:
                return chr(0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)), after
        if 0xD800 <= value <= 0xDFFF:
            raise self._error(p, end, f'invalid escape sequence "{text[p:end]}" - unpaired UTF-16 surrogate '
                              f"U+{value:04X}; a high surrogate (U+D800-U+DBFF) must be immediately followed by a "
                              "low surrogate (U+DC00-U+DFFF)", Code.INVALID_ESCAPE, "invalid escape")
        return chr(value), end

    def _code_point(self, p: int) -> tuple[int, int]:
        """The number a `\\u{...}`, `\\uXXXX` or `\\xXX` escape at `p` writes, and the offset after it."""
        text, c = self.text, self.text[p + 1]
        if c == "u" and p + 2 < self.end and text[p + 2] == "{":
            close = text.find("}", p + 3, min(self.end, p + 12))
            digits, end = (text[p + 3 : close], close + 1) if close >= 0 else ("", p + 3)
        else:
            width = 4 if c == "u" else 2
            digits, end = text[p + 2 : p + 2 + width], p + 2 + width
            if len(digits) < width:
                digits = ""
        try:
            value = int(digits, 16) if digits and all(d in "0123456789abcdefABCDEF" for d in digits) else -1
        except ValueError:
            value = -1
        if value < 0:
            raise self._error(p, min(p + 2, self.end), f"invalid escape `\\{c}`", Code.INVALID_ESCAPE,
                              "write `\\u{1F600}`, `\\u0041` or `\\x41`")
        if value > 0x10FFFF:
            raise self._error(p, end, f'invalid escape sequence "{text[p:end]}" - the value exceeds U+10FFFF',
                              Code.INVALID_ESCAPE, "invalid escape")
        return value, end

    def _unclosed(self, what: str) -> LexError:
        """A literal the file ends inside: reported just after the last text, as the engine does."""
        eof = len(self.text[: self.end].rstrip())
        return LexError(Diagnostic(Code.SYNTAX, "unexpected token", Span(self.src, eof, eof),
                                   f"expected `Unclosed {what}`, found `EOF`"))

    def _string(self, start: int, newline: bool) -> Token:
        text, end = self.text, self.end
        p = start + 1
        out: list[str] = []
        while True:
            if p >= end:
                raise self._unclosed("string literal")
            c = text[p]
            if c == '"':
                self.pos = p + 1
                return Token(T.STRING, text[start : p + 1], start, p + 1, newline, "".join(out))
            if c == "\\":
                ch, p = self._escape(p)
                out.append(ch)
            else:
                out.append(c)
                p += 1

    def _raw_string(self, start: int, newline: bool) -> Token:
        """`r"C:\\path\\n"`: the text as written. As in Python's raw strings, a backslash keeps the
        character after it from closing the string, and both stay in the text (`r"a\\"b"` is `a\\"b`)."""
        text, end = self.text, self.end
        p = start + 2
        while True:
            if p >= end:
                raise self._unclosed("raw string literal")
            c = text[p]
            if c == '"':
                self.pos = p + 1
                return Token(T.STRING, text[start : p + 1], start, p + 1, newline, text[start + 2 : p])
            p += 2 if c == "\\" else 1

    def _template(self, start: int, newline: bool) -> Token:
        """A backtick template: parts are str (literal) or TemplateHole."""
        text, end = self.text, self.end
        p = start + 1
        parts: list[str | TemplateHole | TemplateEscape] = []
        lit: list[str] = []
        while True:
            if p >= end:
                raise LexError(Diagnostic(Code.SYNTAX, "unexpected token", Span(self.src, end, end),
                                          "expected `Unclosed template string`, found `EOF`"))
            c = text[p]
            if c == "`":
                if lit:
                    parts.append("".join(lit))
                self.pos = p + 1
                return Token(T.TEMPLATE, text[start : p + 1], start, p + 1, newline, parts)
            if c == "\\":
                ch, p = self._escape(p)
                if lit:
                    parts.append("".join(lit))
                    lit = []
                parts.append(TemplateEscape(ch))
            elif c == "$" and p + 1 < end and text[p + 1] == "{":
                if lit:
                    parts.append("".join(lit))
                    lit = []
                close = self._matching_brace(p + 1)
                parts.append(TemplateHole(p + 2, close))
                p = close + 1
            else:
                lit.append(c)
                p += 1

    def _matching_brace(self, open_at: int) -> int:
        """Offset of the `}` closing the `{` at open_at, skipping nested literals."""
        inner = Lexer(self.src, open_at + 1, self.end)
        depth = 0
        while True:
            inner._skip_trivia(False, [])
            if inner.pos >= self.end:
                raise self._error(open_at, open_at + 1, "unclosed `${` in template string")
            ch = self.text[inner.pos]
            if ch == '"':
                inner._string(inner.pos, False)
            elif ch == "`":
                inner._template(inner.pos, False)
            elif ch == "{":
                depth += 1
                inner.pos += 1
            elif ch == "}":
                if depth == 0:
                    return inner.pos
                depth -= 1
                inner.pos += 1
            else:
                inner.pos += 1

    def _hash_string(self, start: int) -> Token:
        close = self.text.find('"#', start + 2)
        stop = close + 2 if close >= 0 else start + 2
        raise self._error(start, stop, "removed language feature", Code.REMOVED_FEATURE,
                          "Hash string literals like `#\"...\"#` are no longer supported. "
                          "Use quoted strings or backtick strings instead.")

    def _punct(self, start: int, newline: bool) -> Token:
        text = self.text
        for p in PUNCTUATION_BY_FIRST.get(text[start], ()):
            if text.startswith(p, start) and start + len(p) <= self.end:
                self.pos = start + len(p)
                return Token(T.PUNCT, p, start, self.pos, newline)
        raise self._error(start, start + 1, f"unexpected character `{text[start]}`")


def tokenize(source: SourceFile, start: int = 0, end: int | None = None) -> tuple[list[Token], dict[int, str]]:
    lexer = Lexer(source, start, end)
    return lexer.tokenize(), lexer.doc_comments
