"""Blocks and statements (`let`, loops, `return`, ...), patterns and type expressions."""

from __future__ import annotations

from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Diagnostic, Span
from ingot.syntax.lexer import T, Token
from ingot.syntax.parse_base import (
    FIELD_VALUE_RESERVED,
    LOCAL_ITEM_WORDS,
    ParseError,
    ParserBase,
    describe,
)


def accepts_null(ty: A.TypeExpr) -> bool:
    """Whether a declared type (as written) holds `null`: a body of this type may end without a value."""
    if isinstance(ty, A.OptionalType):
        return True
    if isinstance(ty, A.UnionType):
        return any(accepts_null(m) for m in ty.members)
    return isinstance(ty, A.NamedType) and ty.name in ("null", "void")


class StmtParser(ParserBase):
    """The statement, pattern and type grammar."""

    def parse_type_args(self) -> list[A.TypeExpr]:
        self.expect("<")
        args: list[A.TypeExpr] = []
        while not self.at(">") and not self.at(">>"):
            args.append(self.parse_type())
            if not self.eat(","):
                break
        self.expect_close_angle()
        return args

    def looks_like_type_args(self) -> bool:
        """At `<` after a name in an expression: `Id<int>(x)` or `Box<int> { ... }`, not `a < b`."""
        depth, j = 0, self.i
        while True:
            tk = self.toks[j]
            if tk.is_("<"):
                depth += 1
            elif tk.is_(">") or tk.is_(">>"):
                depth -= 1 if tk.is_(">") else 2
                if depth <= 0:
                    nxt = self.toks[j + 1]
                    return depth == 0 and (nxt.is_("(") or nxt.is_("{"))
            elif not (tk.kind is T.IDENT or tk.text in (",", "[", "]", "?", "|", ".", "(", ")", "->")):
                return False
            j += 1

    # -- types --------------------------------------------------------------
    def parse_type(self) -> A.TypeExpr:
        self.enter()
        try:
            return self._parse_type()
        finally:
            self.depth -= 1

    def _parse_type(self) -> A.TypeExpr:
        start = self.tok.start
        if self.at("|"):  # `a: | "x" | "y"`: no leading bar, as on the engine
            raise self.error("unexpected token", primary="expected `type annotation`, found `'|'`")
        members = [self.parse_type_postfix()]
        while self.at("|"):
            self.advance()
            members.append(self.parse_type_postfix())
        if len(members) == 1:
            return members[0]
        return A.UnionType(members, self.span(start))

    def parse_type_postfix(self) -> A.TypeExpr:
        start = self.tok.start
        ty = self.parse_type_primary()
        while True:
            if self.at("?"):
                self.advance()
                ty = A.OptionalType(ty, self.span(start))
            elif self.at("??"):  # `int??`: one token to the lexer, two optionals (one type) to the engine
                self.advance()
                ty = A.OptionalType(A.OptionalType(ty, self.span(start)), self.span(start))
            elif self.at("[") and self.peek().is_("]"):
                self.advance()
                self.advance()
                ty = A.ArrayType(ty, self.span(start))
            else:
                return ty

    def parse_type_primary(self) -> A.TypeExpr:
        t = self.tok
        if t.is_("("):
            self.advance()
            inner: list[A.TypeExpr] = []
            while not self.at(")"):
                if self.tok.kind is T.IDENT and self.peek().is_(":"):
                    self.advance()
                    self.advance()
                inner.append(self.parse_type())
                if not self.eat(","):
                    break
            self.expect(")")
            if self.eat("->"):
                ret = self.parse_type()
                throws = None
                if self.at("throws"):
                    self.advance()
                    throws = self.parse_type()
                return A.FunctionType(inner, ret, self.span(t.start), throws)
            if len(inner) != 1:
                raise self.error("unexpected token", primary="expected `->` after a parameter list")
            return inner[0]
        if t.kind is T.STRING:
            self.advance()
            return A.LiteralType(str(t.value), self.span(t.start, t.end))
        if t.kind is T.INT:
            self.advance()
            return A.LiteralType(int(t.value), self.span(t.start, t.end))  # type: ignore[call-overload]
        if t.is_("-") and self.peek().kind is T.INT:
            self.advance()
            n = self.advance()
            return A.LiteralType(-int(n.value), self.span(t.start, n.end))  # type: ignore[call-overload]
        if t.is_("true") or t.is_("false"):
            self.advance()
            return A.LiteralType(t.text == "true", self.span(t.start, t.end))
        if t.kind is T.IDENT:
            self.advance()
            name = t.text
            if name == "map" and self.at("<"):
                args = self.parse_type_args()  # (`map<string, int,>` too, as the engine allows)
                if len(args) == 2:
                    return A.MapType(args[0], args[1], self.span(t.start))
                return A.NamedType(name, self.span(t.start), args)  # the wrong count: E0171
            while self.at(".") and self.peek().kind is T.IDENT:
                self.advance()
                name += "." + self.advance().text
            args = self.parse_type_args() if self.at("<") else []
            return A.NamedType(name, self.span(t.start), args)
        raise self.error("unexpected token", primary=f"expected a type, found `{describe(t)}`")

    # -- blocks and statements ----------------------------------------------
    def parse_block(self, function_body: bool = False) -> A.Block:
        start = self.expect("{").start
        self.blocks.append((start, self.body_type if function_body else None))
        self.body_type = None
        try:
            return self.parse_block_rest(start)
        finally:
            self.blocks.pop()

    def parse_block_rest(self, start: int) -> A.Block:
        stmts: list[A.Stmt] = []
        tail: A.Expr | None = None
        while not self.at("}"):
            if self.tok.kind is T.EOF:
                raise self.error("unexpected token", primary="expected `'}'`, found `EOF`")
            if tail is not None:
                stmts.append(A.ExprStmt(tail, tail.span))
                tail = None
            if self.eat(";"):
                continue
            stmt, is_tail = self.parse_stmt()
            if is_tail:
                assert isinstance(stmt, A.ExprStmt)
                tail = stmt.expr
            else:
                stmts.append(stmt)
        self.expect("}")
        return A.Block(stmts, tail, self.span(start))

    def parse_stmt(self) -> tuple[A.Stmt, bool]:
        """One statement; the flag says it is an expression without `;` (a candidate tail)."""
        t = self.tok
        if t.is_("let") or (t.is_("const") and self.peek().kind is T.IDENT):
            return self.parse_let(), False
        if t.is_("return"):
            self.advance()
            value = None
            if not (self.at(";") or self.at("}")):
                value = self.parse_expr()
            self.eat(";")
            return A.Return(value, self.span(t.start)), False
        if t.is_("break"):
            self.advance()
            self.eat(";")
            return A.Break(self.span(t.start)), False
        if t.is_("continue"):
            self.advance()
            self.eat(";")
            return A.Continue(self.span(t.start)), False
        if t.is_("throw"):
            self.advance()
            value = self.parse_throw_value()
            stmt: A.Stmt = A.Throw(value, self.span(t.start))
            if self.at("catch") and self.peek().is_("("):
                # `throw x catch (e) { ... }` catches its own throw: a statement with a value
                # that is discarded, never the block's tail.
                protected = A.Block([stmt], None, stmt.span)
                handled = self.parse_catch(protected, t.start)
                stmt = A.ExprStmt(handled, handled.span)
            self.eat(";")
            return stmt, False
        if t.is_("while"):
            self.advance()
            cond = self.parse_expr(no_class_lit=True)
            body = self.parse_block()
            self.eat(";")
            return A.While(cond, body, self.span(t.start)), False
        if t.is_("for"):
            return self.parse_for(), False
        if t.is_("@@"):
            raise self.error("attribute is not valid here", code=Code.MISPLACED_ATTRIBUTE)
        expr = self.parse_expr(allow_assign=True)
        if isinstance(expr, A.Assign):
            self.eat(";")
            return expr, False
        if self.eat(";"):
            return A.ExprStmt(expr, self.span(t.start)), False
        return A.ExprStmt(expr, self.span(t.start)), True

    def parse_throw_value(self) -> A.Expr:
        """The value of `throw`: `catch` anywhere inside it belongs to the throw itself."""
        outer, self.catch_allowed = self.catch_allowed, False
        try:
            return self.parse_expr()
        finally:
            self.catch_allowed = outer

    def parse_stmt_no_semicolon(self) -> tuple[A.Stmt, bool]:
        t = self.tok
        self.advance()
        if t.text in ("break", "continue"):
            return (A.Break if t.text == "break" else A.Continue)(self.span(t.start)), False
        if t.text == "throw":
            return A.Throw(self.parse_throw_value(), self.span(t.start)), False
        value = None
        if not (self.at(";") or self.at("}") or self.at(",")):
            value = self.parse_expr()
        return A.Return(value, self.span(t.start)), False

    def parse_let(self) -> A.Let | A.LetPattern:
        start = self.advance().start
        if self.tok.kind is T.IDENT and self.tok.text in LOCAL_ITEM_WORDS:
            raise self.item_in_body(self.toks[self.i - 1])
        if not (self.tok.kind is T.IDENT and (self.peek().is_(":") or self.peek().is_("="))):
            pattern = self.parse_pattern()
            self.expect("=")
            return self.parse_let_rest(pattern, start)
        name = self.local_name("a variable name")
        ty = self.parse_type() if self.eat(":") else None
        if not self.at("="):
            raise self.error("unexpected token", primary=f"expected `'='`, found `{describe(self.tok)}`")
        self.advance()
        value = self.parse_expr()
        if self.at("else") and self.peek().is_("{"):
            return self.parse_let_rest(A.BindPat(name.text, ty, self.span(name.start)), start, value)
        self.eat(";")
        return A.Let(name.text, ty, value, self.span(start), self.span(name.start, name.end))

    def item_in_body(self, let: Token) -> ParseError:
        """`let class = ...`: to the engine the item word starts an item, which ends the body
        at `let`. A body that must give a value reports that first (E0029 at its `{`);
        otherwise the item has no name (E0107)."""
        word = self.tok
        block_start, result = self.blocks[-1] if self.blocks else (None, None)
        if block_start is not None and result is not None and not accepts_null(result):
            shown = self.src.text[result.span.start_offset:result.span.end_offset]
            return ParseError(Diagnostic(
                Code.MISSING_VALUE, "missing value", Span(self.src, block_start, let.end),
                f"expected `{shown}`, but this block ends without a value"))
        return self.error(f"{word.text} is missing a name", word, "expected a name here", code=Code.MISSING_NAME)

    def parse_let_rest(self, pattern: A.Pattern, start: int, value: A.Expr | None = None) -> A.LetPattern:
        """After `let <pattern> =`: the value and an optional `else { ... }`."""
        if value is None:
            value = self.parse_expr()
        otherwise = None
        if self.eat("else"):
            otherwise = self.parse_block()
        self.eat(";")
        return A.LetPattern(pattern, value, otherwise, self.span(start))

    def parse_for(self) -> A.Stmt:
        start = self.advance().start
        paren = self.eat("(") is not None
        binder = self.at("let") or self.at("const")
        if self.tok.kind is T.IDENT and not binder and self.peek().is_("in"):
            self.advance()  # `for (x in xs)`: the engine wants `let`, and reads `x` as an expression
            raise self.error("unexpected token", primary="expected `expression`, found `in`")
        if binder and self.peek(2).is_("in"):
            self.advance()
            name = self.local_name("a loop variable")
            self.expect("in")
            iterable = self.parse_expr(no_class_lit=True)
            if paren:
                self.expect(")")
            body = self.parse_block()
            return A.ForIn(name.text, iterable, body, self.span(start))
        if not paren:
            raise self.error("unexpected token", primary="expected `(` after `for`")
        init: A.Stmt | None = None
        if not self.at(";"):
            init = self.parse_let() if self.at("let") or self.at("const") else self.parse_simple_stmt(";")
        else:
            self.advance()
        cond = None if self.at(";") else self.parse_expr()
        self.expect(";")
        step = None if self.at(")") else self.parse_simple_stmt(")")
        self.expect(")")
        body = self.parse_block()
        return A.ForC(init, cond, step, body, self.span(start))

    def parse_simple_stmt(self, terminator: str) -> A.Stmt:
        start = self.tok.start
        expr = self.parse_expr(allow_assign=True)
        if terminator == ";":
            self.eat(";")
        if isinstance(expr, A.Assign):
            return expr
        return A.ExprStmt(expr, self.span(start))

    # -- patterns -----------------------------------------------------------
    def parse_pattern(self) -> A.Pattern:
        start = self.tok.start
        first = self.parse_pattern_single()
        if not self.at("|"):
            return first
        alts = [first]
        while self.eat("|"):
            alts.append(self.parse_pattern_single())
        return A.OrPat(alts, self.span(start))

    def parse_pattern_single(self, no_class_pat: bool = False) -> A.Pattern:
        self.enter()
        try:
            return self._parse_pattern_single(no_class_pat)
        finally:
            self.depth -= 1

    def _parse_pattern_single(self, no_class_pat: bool = False) -> A.Pattern:
        t = self.tok
        if t.is_("("):
            self.advance()
            inner = self.parse_pattern()
            self.expect(")")
            return inner
        if t.is_("_"):
            self.advance()
            return A.WildcardPat(self.span(t.start, t.end))
        if t.is_("let"):
            self.advance()
            name = self.local_name("a binding name")
            ty = self.parse_type_postfix() if self.eat(":") else None
            return A.BindPat(name.text, ty, self.span(t.start))
        if t.kind in (T.INT, T.FLOAT, T.STRING):
            self.advance()
            return A.LiteralPat(t.value, self.span(t.start, t.end))  # type: ignore[arg-type]
        if t.is_("-") and self.peek().kind in (T.INT, T.FLOAT):
            self.advance()
            n = self.advance()
            return A.LiteralPat(-n.value, self.span(t.start, n.end))  # type: ignore[operator]
        if t.is_("true") or t.is_("false"):
            self.advance()
            return A.LiteralPat(t.text == "true", self.span(t.start, t.end))
        if t.is_("null"):
            self.advance()
            return A.LiteralPat(None, self.span(t.start, t.end))
        if t.is_("["):
            return self.parse_array_pattern()
        if t.kind is T.IDENT:
            if t.is_("map") and self.peek().is_("<"):
                return self.parse_type_pattern()
            saved = self.i
            self.advance()
            path = [t.text]
            while self.at(".") and self.peek().kind is T.IDENT:
                self.advance()
                path.append(self.advance().text)
            if self.at("{") and not no_class_pat:  # in `if v is A { ... }` the brace opens the body
                return self.parse_class_pattern(".".join(path), t.start)
            if self.at("?") or (self.at("[") and self.peek().is_("]")):
                self.i = saved  # re-read the path as the start of a type
                return self.parse_type_pattern()
            return A.PathPat(path, self.span(t.start))
        raise self.error("unexpected token", primary=f"expected a pattern, found `{describe(t)}`")

    def parse_type_pattern(self) -> A.TypePat:
        start = self.tok.start
        ty = self.parse_type_postfix()
        return A.TypePat(ty, self.span(start))

    def parse_array_pattern(self) -> A.ArrayPat:
        start = self.expect("[").start
        elements: list[A.Pattern] = []
        rest: A.Pattern | None = None
        has_rest = False
        while not self.at("]"):
            if self.at("..") or self.at("..."):
                raise self.error("unexpected token", primary="write the rest of an array pattern as `..let name`")
            if self.at(".") and self.peek().is_("."):
                self.advance()
                self.advance()
                has_rest = True
                if not (self.at("]") or self.at(",")):
                    rest = self.parse_pattern_single()
            else:
                if has_rest:
                    raise self.error("unexpected token", primary="`..` must come last in an array pattern")
                elements.append(self.parse_pattern())
            if not self.eat(","):
                break
        self.expect("]")
        return A.ArrayPat(elements, has_rest, rest, self.span(start))

    def parse_class_pattern(self, name: str, start: int) -> A.ClassPat:
        self.expect("{")
        fields: list[tuple[str, A.Pattern]] = []
        while not self.at("}"):
            f = self.name_ident("a field name", FIELD_VALUE_RESERVED)
            if self.eat(":"):
                fields.append((f.text, self.parse_pattern()))
            else:
                fields.append((f.text, A.BindPat(f.text, None, self.span(f.start, f.end))))
            if not self.eat(","):
                break
        self.expect("}")
        return A.ClassPat(name, fields, self.span(start))
