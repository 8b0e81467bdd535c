"""Expressions: precedence climbing over binary operators, unary and postfix operators,
primaries, literals, lambdas, `if`, `match` and `catch`."""

from __future__ import annotations

from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Diagnostic, Span
from ingot.syntax.lexer import T, Token
from ingot.syntax.parse_base import (
    BINARY_POWER,
    COMPOUND_ASSIGN,
    FIELD_VALUE_RESERVED,
    IS_POWER,
    ParseError,
    ParserBase,
    describe,
)


class ExprParser(ParserBase):
    """The expression grammar."""

    # -- expressions --------------------------------------------------------
    def parse_expr(self, no_class_lit: bool = False, allow_assign: bool = False) -> A.Expr:
        start = self.tok.start
        expr = self.parse_binary(0, no_class_lit)
        if self.at("=") or (self.tok.kind is T.PUNCT and self.tok.text in COMPOUND_ASSIGN):
            op_tok = self.advance()
            value = self.parse_expr(no_class_lit)
            span = self.span(start)
            if not allow_assign:
                raise ParseError(Diagnostic(
                    Code.SYNTAX, "assignment is not allowed in expression position; assignment is a statement",
                    span, "assignment not allowed here"))
            self.check_assign_target(expr)
            op = None if op_tok.text == "=" else op_tok.text[:-1]
            return A.Assign(expr, op, value, span)
        return expr

    def check_assign_target(self, expr: A.Expr) -> None:
        if not isinstance(expr, (A.Name, A.FieldAccess, A.Index)):
            raise ParseError(Diagnostic(Code.SYNTAX, "invalid assignment target", expr.span,
                                        "only variables, fields and indexed elements can be assigned"))

    def parse_binary(self, min_power: int, no_class_lit: bool) -> A.Expr:
        start = self.tok.start
        left = self.parse_unary(no_class_lit)
        while True:
            t = self.tok
            if t.kind is T.IDENT and t.text == "is" and IS_POWER > min_power:
                self.advance()
                left = self.parse_is(left, start, no_class_lit)
                continue
            if t.kind is T.IDENT and t.text == "instanceof":
                raise ParseError(Diagnostic(
                    Code.REMOVED_FEATURE,
                    "`instanceof` is no longer supported. Use a `match` expression for type checking instead.",
                    Span(self.src, t.start, t.end), "use `match` instead"))
            if t.kind is not T.PUNCT or t.text not in BINARY_POWER:
                return left
            power = BINARY_POWER[t.text]
            if power <= min_power:
                return left
            if t.text == "-" and t.newline_before and self.nesting == 0:
                return left  # `-x` on a new line starts a new statement, as in BAML
            self.advance()
            right = self.parse_binary(power, no_class_lit)
            left = A.Binary(t.text, left, right, self.span(start), self.span(t.start, t.end))

    def parse_is(self, left: A.Expr, start: int, no_class_lit: bool) -> A.IsType | A.IsPattern:
        """`v is T` (a type test, which narrows) or `v is <pattern>` (`1 | 2`, `let _`, `Color.Red`)."""
        pat_start = self.tok.start
        alts = [self.parse_pattern_single(no_class_pat=no_class_lit)]
        while self.at("|"):
            self.advance()
            alts.append(self.parse_pattern_single(no_class_pat=no_class_lit))
        pattern = alts[0] if len(alts) == 1 else A.OrPat(alts, self.span(pat_start))
        if isinstance(pattern, A.TypePat):
            return A.IsType(left, pattern.type, self.span(start))
        if isinstance(pattern, A.PathPat) and len(pattern.path) == 1:
            return A.IsType(left, A.NamedType(pattern.path[0], pattern.span), self.span(start))
        return A.IsPattern(left, pattern, self.span(start))

    def parse_catch(self, expr: A.Expr, start: int) -> A.Catch:
        self.advance()
        self.expect("(")
        binding = self.local_name("an error binding")
        if self.eat(","):
            self.local_name("a context binding")
        self.expect(")")
        arms = self.parse_arms(guards=False)
        return A.Catch(expr, binding.text, arms, self.span(start))

    def parse_unary(self, no_class_lit: bool) -> A.Expr:
        self.enter()
        try:
            return self._parse_unary(no_class_lit)
        finally:
            self.depth -= 1

    def _parse_unary(self, no_class_lit: bool) -> A.Expr:
        t = self.tok
        if t.kind is T.PUNCT and t.text in ("-", "!", "~"):
            self.advance()
            if t.text == "!":
                operand = self.parse_unary(no_class_lit)
            else:
                # The engine's `-` and `~` bind looser than `*`, `/` and `%`: `-a * b` is
                # `-(a * b)` (it overflows where `(-a) * b` would not), `~1 * 2` is -3.
                operand = self.parse_binary(BINARY_POWER["+"], no_class_lit)
            if t.text == "-" and isinstance(operand, (A.IntLit, A.FloatLit)) and \
                    operand.span.start_offset == t.end:
                # Fold `-5` so that INT_MIN is writable as a literal.
                return type(operand)(-operand.value, self.span(t.start))  # type: ignore[arg-type]
            return A.Unary(t.text, operand, self.span(t.start))
        if t.kind is T.PUNCT and t.text == "+":
            self.advance()
            self.parse_unary(no_class_lit)  # an error here (`i++;`) is the one the engine reports
            raise self.error("unexpected token", t, primary="there is no unary `+`")
        start = self.tok.start  # a postfix on `(...)` spans the parentheses, as the engine's do
        return self.parse_postfix(self.parse_primary(no_class_lit), start)

    def parse_postfix(self, expr: A.Expr, start: int | None = None) -> A.Expr:
        start = expr.span.start_offset if start is None else start
        while True:
            t = self.tok
            if t.is_(".") or t.is_("?."):
                self.advance()
                if self.tok.kind is T.INT:
                    raise self.error("unexpected token", primary="expected a member name")
                name = self.ident("a member name")
                expr = A.FieldAccess(expr, name.text, t.text == "?.", self.span(start),
                                     self.span(name.start, name.end))
            elif t.is_("catch") and self.peek().is_("(") and self.catch_allowed:
                expr = self.parse_catch(expr, start)
            elif t.is_("(") and not t.newline_before:
                self.advance()
                self.nesting += 1
                try:
                    args = self.parse_args()
                finally:
                    self.nesting -= 1
                expr = A.Call(expr, args, self.span(start))
            elif t.is_("[") and not t.newline_before:
                self.advance()
                index = self.parse_expr()
                if self.at(":"):
                    raise self.error("slicing syntax is not supported; use `.slice(a, b)`")
                self.expect("]")
                expr = A.Index(expr, index, self.span(start))
            elif t.is_("!") and not t.newline_before and self.peek().kind is T.PUNCT and \
                    self.peek().text in (";", ")", "}", ".", ","):
                raise ParseError(Diagnostic(
                    Code.SYNTAX, "there is no non-null assertion operator `!`",
                    Span(self.src, t.start, t.end), "use `??` or `if let` instead"))
            else:
                return expr

    def parse_args(self) -> list[A.Arg]:
        args: list[A.Arg] = []
        while not self.at(")"):
            start = self.tok.start
            name = None
            if self.tok.kind is T.IDENT and self.peek().is_("="):
                name = self.advance().text
                self.advance()
            value = self.parse_expr()
            args.append(A.Arg(name, value, self.span(start)))
            if not self.eat(","):
                break
        self.expect(")")
        return args

    def parse_primary(self, no_class_lit: bool = False) -> A.Expr:
        t = self.tok
        k = t.kind
        if k is T.INT:
            self.advance()
            return A.IntLit(int(t.value), self.span(t.start, t.end))  # type: ignore[call-overload]
        if k is T.FLOAT:
            self.advance()
            return A.FloatLit(float(t.value), self.span(t.start, t.end))  # type: ignore[arg-type]
        if k is T.STRING:
            self.advance()
            return A.StringLit(str(t.value), self.span(t.start, t.end))
        if k is T.TEMPLATE:
            self.advance()
            return self.parse_template(t)
        if k is T.PUNCT:
            if t.text == "(":
                if self.looks_like_lambda():
                    return self.parse_lambda()
                self.advance()
                self.nesting += 1
                try:
                    inner = self.parse_expr()
                finally:
                    self.nesting -= 1
                self.expect(")")
                return inner
            if t.text == "[":
                return self.parse_array()
            if t.text == "{":
                if self.looks_like_map():
                    return self.parse_map()
                return self.parse_block()
            if t.text == "." and self.peek().kind is T.INT:
                raise self.error("unexpected token", primary="a float literal needs a digit before `.`")
            raise self.error("unexpected token", primary=f"expected `expression`, found `{describe(t)}`")
        if k is T.IDENT:
            text = t.text
            if text == "true" or text == "false":
                self.advance()
                return A.BoolLit(text == "true", self.span(t.start, t.end))
            if text == "null":
                self.advance()
                return A.NullLit(self.span(t.start, t.end))
            if text == "if":
                return self.parse_if()
            if text == "match":
                return self.parse_match()
            if text in ("return", "break", "continue", "throw"):
                # A diverging statement used as a value (`0 => return 0,`): a block that never ends.
                stmt, _ = self.parse_stmt_no_semicolon()
                return A.Block([stmt], None, stmt.span)
            if text == "b" and self.peek().kind is T.STRING and self.peek().start == t.end:
                raise self.error("byte strings (`b\"...\"`, the `uint8array` type) are not supported yet",
                                 code=Code.UNSUPPORTED)
            if text in ("let", "while", "for", "function", "class", "enum", "extends", "interface", "requires"):
                raise self.error("unexpected token",
                                 primary=f"expected an expression, found keyword `{text}`")
            if text == "baml" and not no_class_lit and (qualified := self.qualified_class_name()) is not None:
                return self.parse_class_lit(qualified)
            self.advance()
            if self.at("<") and self.looks_like_type_args():
                self.parse_type_args()  # checked by erasure: type arguments are not kept
            if not no_class_lit and self.at("{") and self.looks_like_class_lit():
                return self.parse_class_lit(t)
            return A.Name(text, self.span(t.start, t.end))
        raise self.error("unexpected token", primary=f"expected `expression`, found `{describe(t)}`")

    def looks_like_lambda(self) -> bool:
        """At `(`: is the token after its matching `)` a `->` or `=>`?"""
        if self.paren_close is None:  # matched once per parse: nested parentheses stay linear
            self.paren_close, opened = {}, []
            for j, tk in enumerate(self.toks):
                if tk.is_("("):
                    opened.append(j)
                elif tk.is_(")") and opened:
                    self.paren_close[opened.pop()] = j
        close = self.paren_close.get(self.i)
        if close is None:
            return False
        nxt = self.toks[close + 1]
        return nxt.is_("->") or nxt.is_("=>")

    def looks_like_map(self) -> bool:
        a, b = self.peek(1), self.peek(2)
        if a.is_("}"):
            return True
        # `{key: 1}` with `key` a variable too: the key is its value, as on the engine (a block
        # cannot start with `name:`, there are no labels)
        if a.kind in (T.STRING, T.INT, T.FLOAT, T.TEMPLATE, T.IDENT) or a.is_("true") or a.is_("false"):
            return b.is_(":")
        if a.is_("-") and b.kind is T.INT:
            return self.peek(3).is_(":")
        return False

    def qualified_class_name(self) -> Token | None:
        """At `baml`: a built-in class's name before a class literal (`baml.errors.InvalidArgument
        { message: "empty" }`), consumed and returned as one token; None (nothing consumed) otherwise."""
        j = 1
        while self.peek(j).is_(".") and self.peek(j + 1).kind is T.IDENT:
            j += 2
        if j == 1 or not self.peek(j).is_("{") or not self.looks_like_class_lit(j):
            return None
        first, last = self.tok, self.peek(j - 1)
        name = "".join(self.peek(k).text for k in range(j))
        for _ in range(j):
            self.advance()
        return Token(T.IDENT, name, first.start, last.end, first.newline_before)

    def looks_like_class_lit(self, at: int = 0) -> bool:
        """At the `{` after a class's name (or `at` tokens before it): do a class literal's fields follow?"""
        a, b = self.peek(at + 1), self.peek(at + 2)
        if a.is_("}") or a.is_("..."):
            return True
        return a.kind is T.IDENT and (b.is_(":") or b.is_(",") or b.is_("}"))

    def parse_lambda(self) -> A.Lambda:
        start = self.expect("(").start
        params: list[A.Param] = []
        while not self.at(")"):
            params.append(self.parse_param(require_type=False))
            if not self.eat(","):
                break
        self.expect(")")
        # `->` and `=>` are one arrow to the engine: either may be followed by a return type
        # (`(x: int) => int { ... }`, `(x: int) -> { ... }`), read up to `throws` or the body.
        if not self.eat("->"):
            self.expect("=>")
        ret = None
        if not (self.at("{") or self.at("throws")):
            ret = self.parse_type()
        throws = None
        if self.eat("throws"):
            throws = self.parse_type()
        if not self.at("{"):
            raise self.error("unexpected token", primary="a lambda body must be a block `{ ... }`")
        self.body_type = ret
        body = self.parse_block(function_body=True)
        return A.Lambda(params, ret, body, self.span(start), throws)

    def parse_array(self) -> A.ArrayLit:
        start = self.expect("[").start
        elements: list[A.Expr] = []
        while not self.at("]"):
            elements.append(self.parse_expr())
            if not self.eat(","):
                break
        self.expect("]")
        return A.ArrayLit(elements, self.span(start))

    def parse_map(self) -> A.MapLit:
        start = self.expect("{").start
        entries: list[tuple[A.Expr, A.Expr]] = []
        while not self.at("}"):
            key = self.parse_expr()
            self.expect(":")
            value = self.parse_expr()
            entries.append((key, value))
            if not self.eat(","):
                break
        self.expect("}")
        return A.MapLit(entries, self.span(start))

    def parse_class_lit(self, name: Token) -> A.ClassLit:
        self.expect("{")
        fields: list[tuple[str, A.Expr, Span]] = []
        spread = None
        spread_at = 0
        while not self.at("}"):
            if self.at("..."):
                self.advance()
                spread = self.parse_expr()
                spread_at = len(fields)
            else:
                f = self.name_ident("a field name", FIELD_VALUE_RESERVED)
                if self.eat(":"):
                    value = self.parse_expr()
                else:
                    value = A.Name(f.text, self.span(f.start, f.end))
                fields.append((f.text, value, self.span(f.start)))
            if not self.eat(","):
                break
        self.expect("}")
        return A.ClassLit(name.text, self.span(name.start, name.end), fields, spread, self.span(name.start),
                          spread_at)

    def parse_if(self) -> A.If:
        """`if c { } else if d { } else { }`: an `else if` chain is read in a loop, not recursively."""
        links: list[tuple[int, A.Expr | A.IfLet, A.Block]] = []
        otherwise: A.Block | A.If | None = None
        while True:
            start = self.advance().start
            links.append((start, self.parse_if_condition(), self.parse_block()))
            if not self.at("else"):
                break
            self.advance()
            if not self.at("if"):
                otherwise = self.parse_block()
                break
        for start, cond, then in reversed(links):  # the innermost `if` first
            otherwise = A.If(cond, then, otherwise, self.span(start))
        assert isinstance(otherwise, A.If)
        return otherwise

    def parse_if_condition(self) -> A.Expr | A.IfLet:
        if self.at("let") or (self.at("(") and self.peek().is_("let")):
            paren = self.eat("(") is not None
            let_start = self.tok.start
            if self.peek().kind is T.IDENT and (self.peek(2).is_(":") or self.peek(2).is_("=")):
                pattern = self.parse_pattern_single()  # `let name[: T]`
            else:
                self.advance()
                pattern = self.parse_pattern_single()
            self.expect("=")
            value = self.parse_expr(no_class_lit=True)
            if paren:
                self.expect(")")
            return A.IfLet(pattern, value, self.span(let_start))
        return self.parse_expr(no_class_lit=True)

    def parse_match(self) -> A.Match:
        start = self.advance().start
        scrutinee = self.parse_expr(no_class_lit=True)
        arms = self.parse_arms()
        return A.Match(scrutinee, arms, self.span(start))

    def parse_arms(self, guards: bool = True) -> list[A.MatchArm]:
        """A `match`'s arms, or (`guards` False) a `catch`'s, which take no `if` guard on the engine."""
        self.expect("{")
        if self.at("}"):
            raise self.error("unexpected token", primary=f"expected `at least one {'match' if guards else 'catch'} arm`, "
                             "found `'}'`")
        arms: list[A.MatchArm] = []
        while not self.at("}"):
            start = self.tok.start
            pattern = self.parse_pattern()
            guard = None
            if not guards and not self.at("=>"):
                raise self.error("unexpected token",
                                 primary=f"expected `'=>' after catch pattern`, found `{describe(self.tok)}`")
            if self.at("if"):
                self.advance()
                guard = self.parse_expr()
            self.expect("=>")
            body = self.parse_expr()
            arms.append(A.MatchArm(pattern, guard, body, self.span(start)))
            self.eat(",")  # (optional, even between arms on one line: `1 => 1 _ => 2`, as on the engine)
        self.expect("}")
        return arms
