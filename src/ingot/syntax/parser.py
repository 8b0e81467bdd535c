"""Tokens -> syntax tree: a recursive-descent parser with precedence climbing.

Errors become `Diagnostic`s; after an error in an item the parser skips to the
next item keyword, so one run reports every broken item. Statements end at a
`;`, or wherever the next token cannot continue the expression.
"""

from __future__ import annotations

from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Diagnostic, SourceFile, Span
from ingot.syntax.lexer import KEYWORDS, LexError, T, TemplateHole, Token, tokenize

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
ITEM_KEYWORDS = {"function", "class", "enum", "type", "const", "client", "test", "testset", "let",
                 "generator", "retry_policy", "template_string"}


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


class Parser:
    def __init__(self, source: SourceFile, tokens: list[Token], docs: dict[int, str]) -> None:
        self.src = source
        self.toks = tokens
        self.docs = docs
        self.i = 0
        self.catch_allowed = True  # false inside a `throw` value (see parse_throw_value)
        self.diagnostics: list[Diagnostic] = []
        self.nesting = 0  # inside ( ) or [ ], where newlines never end an expression

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

    def name_ident(self, what: str = "a name") -> Token:
        """An identifier that is not a reserved word (for `let`, parameters, ...)."""
        t = self.ident(what)
        if t.text in KEYWORDS and t.text not in ("null", "true", "false"):
            raise self.error("unexpected token", t, f"expected {what}, found keyword `{t.text}`")
        return t

    def doc_at(self, index: int) -> str | None:
        return self.docs.get(index)

    # -- module -------------------------------------------------------------
    def parse_module(self) -> A.Module:
        items: list[A.Item] = []
        while self.tok.kind is not T.EOF:
            start = self.i
            try:
                item = self.parse_item()
                if item is not None:
                    items.append(item)
            except ParseError as e:
                self.diagnostics.append(e.diagnostic)
                self.recover(start)
        return A.Module(items, Span(self.src, 0, len(self.src.text)))

    def recover(self, start: int) -> None:
        """Skip to the next token that starts an item at the beginning of a line."""
        if self.i == start:
            self.advance()
        while self.tok.kind is not T.EOF:
            t = self.tok
            if t.kind is T.IDENT and t.text in ITEM_KEYWORDS and t.newline_before and \
                    self.src.position(t.start).column == 1:
                return
            self.advance()

    def parse_item(self) -> A.Item | None:
        doc = self.doc_at(self.i)
        t = self.tok
        if t.is_("function"):
            return self.parse_function(doc)
        if t.is_("class"):
            return self.parse_class(doc)
        if t.is_("enum"):
            return self.parse_enum(doc)
        if t.is_("type") and self.peek().kind is T.IDENT:
            return self.parse_type_alias()
        if t.is_("const"):
            return self.parse_const()
        if t.is_("interface") and self.peek().kind is T.IDENT:
            return self.parse_interface()
        if (t.is_("implements") or t.is_("implement")) and self.peek().kind is T.IDENT:
            return self.parse_impl()
        if t.is_("client"):
            return self.parse_client()
        if t.is_("test"):
            return self.parse_test(None)
        if t.is_("testset"):
            return self.parse_testset()
        if t.is_("let"):
            raise self.error("global variables are declared with `const`: `const NAME = value;`",
                             primary="write `const` here; `let` is only allowed inside a body")
        if t.is_("@@") or t.is_("@"):
            raise self.error("attributes must be inside a class, enum or function",
                             code=Code.MISPLACED_ATTRIBUTE)
        if t.kind is T.IDENT and t.text in ("generator", "retry_policy", "template_string"):
            raise self.error("removed language feature", code=Code.REMOVED_FEATURE,
                             primary=f"`{t.text}` blocks are not part of this BAML")
        raise self.error("unexpected token",
                         primary=f"expected an item (`function`, `class`, `enum`, ...), found `{describe(t)}`")

    # -- attributes ---------------------------------------------------------
    def parse_attributes(self, block: bool) -> list[A.Attribute]:
        marker = "@@" if block else "@"
        attrs = []
        while self.at(marker):
            start = self.advance().start
            name = self.ident("an attribute name").text
            while self.at(".") and self.peek().kind is T.IDENT:
                self.advance()
                name += "." + self.advance().text
            args: list[A.Expr] = []
            if self.at("(") and not self.tok.newline_before:
                self.advance()
                while not self.at(")"):
                    args.append(self.parse_expr())
                    if not self.eat(","):
                        break
                self.expect(")")
            attrs.append(A.Attribute(name, block, args, self.span(start)))
        return attrs

    # -- functions ----------------------------------------------------------
    def parse_type_params(self) -> list[str]:
        """`<T, U>` after a function or class name (or nothing)."""
        names: list[str] = []
        if self.eat("<"):
            while not self.at(">"):
                names.append(self.name_ident("a type parameter").text)
                if not self.eat(","):
                    break
            self.expect_close_angle()
        return names

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

    def parse_interface(self) -> A.InterfaceDecl:
        start = self.advance().start
        name = self.name_ident("an interface name")
        requires: list[str] = []
        if self.eat("requires"):
            requires.append(self.dotted_type_name())
            while self.eat(","):
                requires.append(self.dotted_type_name())
        self.expect("{")
        methods: list[A.Function] = []
        while not self.at("}"):
            methods.append(self.parse_function(self.doc_at(self.i), in_class=True, abstract_ok=True))
        self.expect("}")
        return A.InterfaceDecl(name.text, methods, requires, self.span(start), self.span(name.start, name.end))

    def parse_impl(self) -> A.ImplDecl:
        start = self.advance().start
        iface_start = self.tok.start
        iface = self.dotted_type_name()
        iface_span = self.span(iface_start)
        if self.at("<"):
            self.parse_type_args()
        self.expect("for")
        target = self.name_ident("a class name")
        self.expect("{")
        methods: list[A.Function] = []
        while not self.at("}"):
            if self.at("type"):  # `type Output = V;`: the result type, read from the method itself
                self.advance()
                self.name_ident("an associated type name")
                self.expect("=")
                self.parse_type()
                self.eat(";")
                continue
            methods.append(self.parse_function(self.doc_at(self.i), in_class=True))
        self.expect("}")
        return A.ImplDecl(iface, target.text, methods, self.span(start), iface_span,
                          self.span(target.start, target.end))

    def dotted_type_name(self) -> str:
        name = self.ident("a type name").text
        while self.at(".") and self.peek().kind is T.IDENT:
            self.advance()
            name += "." + self.advance().text
        return name

    def parse_function(self, doc: str | None, in_class: bool = False, abstract_ok: bool = False) -> A.Function:
        start = self.expect("function").start
        name = self.name_ident("a function name")
        type_params = self.parse_type_params()
        self.expect("(")
        params: list[A.Param] = []
        has_self = False
        while not self.at(")"):
            if self.at("self") and in_class and not params and not has_self:
                self.advance()
                has_self = True
            else:
                params.append(self.parse_param(require_type=True))
            if not self.eat(","):
                break
        self.expect(")")
        if not self.at("->"):
            raise self.error("unexpected token",
                             primary=f"expected `return type (->)`, found `{describe(self.tok)}`")
        self.advance()
        ret = self.parse_type()
        throws = None
        if self.at("throws"):
            self.advance()
            throws = self.parse_type()
        body: A.Block | A.LlmBody
        abstract = abstract_ok and not self.at("{")
        if abstract:
            body = A.Block([], None, self.span(start))
        elif self.at("{") and self.peek().is_("client") and self.peek(2).is_(":"):
            body = self.parse_llm_body()
        else:
            body = self.parse_block(function_body=True)
        return A.Function(name.text, params, ret, throws, body, self.span(start),
                          self.span(name.start, name.end), doc, [], has_self, type_params, abstract)

    def parse_param(self, require_type: bool) -> A.Param:
        name = self.name_ident("a parameter name")
        ty = None
        if self.eat(":"):
            ty = self.parse_type()
        elif require_type:
            raise self.error("unexpected token", primary=f"expected `':'`, found `{describe(self.tok)}`")
        attrs = self.parse_attributes(block=False)
        default = None
        if self.eat("="):
            default = self.parse_expr()
        return A.Param(name.text, ty, default, self.span(name.start), attrs)

    def parse_llm_body(self) -> A.LlmBody:
        start = self.expect("{").start
        self.expect("client")
        self.expect(":")
        if self.tok.kind is T.STRING:
            t = self.advance()
            client: A.Expr = A.StringLit(str(t.value), self.span(t.start, t.end))
        else:
            client = self.parse_postfix(self.parse_primary())
        self.eat(",")
        self.eat(";")
        self.expect("prompt")
        self.expect(":")
        prompt = self.parse_expr()
        self.eat(",")
        self.eat(";")
        self.expect("}")
        return A.LlmBody(client, prompt, self.span(start))

    # -- classes and enums --------------------------------------------------
    def parse_class(self, doc: str | None) -> A.ClassDecl:
        start = self.expect("class").start
        name = self.name_ident("a class name")
        type_params = self.parse_type_params()
        self.expect("{")
        fields: list[A.FieldDecl] = []
        methods: list[A.Function] = []
        attrs: list[A.Attribute] = []
        pending: list[A.Attribute] = []
        while not self.at("}"):
            member_doc = self.doc_at(self.i)
            if self.at("function"):
                fn = self.parse_function(member_doc, in_class=True)
                fn.attributes = pending
                pending = []
                methods.append(fn)
            elif self.at("@@"):
                pending = pending + self.parse_attributes(block=True)
            elif self.tok.kind is T.IDENT:
                fields.append(self.parse_field(member_doc))
            else:
                raise self.error("unexpected token", primary=f"expected a field, found `{describe(self.tok)}`")
        self.expect("}")
        attrs += pending
        return A.ClassDecl(name.text, fields, methods, attrs, self.span(start),
                           self.span(name.start, name.end), doc, type_params)

    def parse_field(self, doc: str | None) -> A.FieldDecl:
        name = self.ident("a field name")
        self.eat(":")
        ty = self.parse_type()
        attrs = self.parse_attributes(block=False)
        if self.at("="):
            raise self.error("unexpected token", primary="class fields cannot have default values")
        if not (self.eat(",") or self.eat(";")):
            pass
        return A.FieldDecl(name.text, ty, attrs, self.span(name.start), doc)

    def parse_enum(self, doc: str | None) -> A.EnumDecl:
        start = self.expect("enum").start
        name = self.name_ident("an enum name")
        self.expect("{")
        variants: list[A.EnumVariant] = []
        attrs: list[A.Attribute] = []
        while not self.at("}"):
            if self.at("@@"):
                attrs += self.parse_attributes(block=True)
                continue
            vdoc = self.doc_at(self.i)
            v = self.ident("a variant name")
            vattrs = self.parse_attributes(block=False)
            if self.at("="):
                raise self.error("unexpected token", primary="enum variants cannot have values")
            self.eat(",")
            variants.append(A.EnumVariant(v.text, vattrs, self.span(v.start), vdoc))
        self.expect("}")
        return A.EnumDecl(name.text, variants, attrs, self.span(start), self.span(name.start, name.end), doc)

    def parse_type_alias(self) -> A.TypeAlias:
        start = self.advance().start
        name = self.ident("a type name")
        self.expect("=")
        ty = self.parse_type()
        self.eat(";")
        return A.TypeAlias(name.text, ty, self.span(start), self.span(name.start, name.end))

    def parse_const(self) -> A.Const:
        start = self.advance().start
        name = self.name_ident("a constant name")
        ty = self.parse_type() if self.eat(":") else None
        self.expect("=")
        value = self.parse_expr()
        self.eat(";")
        return A.Const(name.text, ty, value, self.span(start), self.span(name.start, name.end))

    def parse_client(self) -> A.ClientDecl:
        start_tok = self.advance()
        if self.at("<"):
            depth, j = 0, self.i
            # Find the end of the removed `client<llm> Name { ... }` block for the span.
            while self.toks[j].kind is not T.EOF:
                if self.toks[j].is_("{"):
                    depth += 1
                elif self.toks[j].is_("}"):
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            shown = self.peek(3).text if self.peek(3).kind is T.IDENT else "Name"
            end = self.toks[j].end
            self.i = min(j + 1, len(self.toks) - 1)
            raise ParseError(Diagnostic(
                Code.SYNTAX,
                f"`client<llm>` config blocks are removed; declare a client value instead: "
                f'`client {shown} = openai.ResponsesClient.new(model = "...");` '
                "(compose reliability with ai.Retry / ai.Fallback / ai.RoundRobin)",
                Span(self.src, start_tok.start, end), "replace with `client Name = <expr>;`"))
        name = self.name_ident("a client name")
        self.expect("=")
        value = self.parse_expr(no_class_lit=True)
        if self.at("{") and isinstance(value, (A.Name, A.FieldAccess)):
            # `ai.clients.Fallback { members: [A, B] }`: a client built from a class literal.
            path = self.dotted_name(value)
            value = self.parse_class_lit(Token(T.IDENT, path, value.span.start_offset, value.span.end_offset, False))
        self.eat(";")
        return A.ClientDecl(name.text, value, self.span(start_tok.start), self.span(name.start, name.end))

    def dotted_name(self, e: A.Expr) -> str:
        if isinstance(e, A.Name):
            return e.ident
        if isinstance(e, A.FieldAccess):
            return f"{self.dotted_name(e.obj)}.{e.name}"
        raise self.error("unexpected token", primary="expected a client constructor")

    def parse_test(self, group: str | None) -> A.TestDecl:
        start = self.advance().start
        if self.tok.kind is not T.STRING:
            end = self.tok.end
            raise ParseError(Diagnostic(
                Code.REMOVED_FEATURE, "removed language feature", Span(self.src, start, end),
                "Legacy test declarations were removed. Use an expression-body test with a quoted name, "
                "for example: `test \"Name\" { assert.equal(Foo(...), expected) }`."))
        name = str(self.advance().value)
        body = self.parse_block(function_body=True)
        return A.TestDecl(name, body, self.span(start), group)

    def parse_testset(self) -> A.TestSet:
        start = self.advance().start
        if self.tok.kind is not T.STRING:
            raise self.error("unexpected token", primary="expected a quoted testset name")
        name = str(self.advance().value)
        self.expect("{")
        items: list[A.TestDecl | A.TestSet] = []
        while not self.at("}"):
            if self.at("test"):
                items.append(self.parse_test(name))
            elif self.at("testset"):
                items.append(self.parse_testset())
            else:
                raise self.error("unexpected token",
                                 primary=f"expected `test` or `testset`, found `{describe(self.tok)}`")
        self.expect("}")
        return A.TestSet(name, items, self.span(start))

    # -- types --------------------------------------------------------------
    def parse_type(self) -> A.TypeExpr:
        start = self.tok.start
        self.eat("|")
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
                self.advance()
                k = self.parse_type()
                self.expect(",")
                v = self.parse_type()
                self.expect_close_angle()
                return A.MapType(k, v, self.span(t.start))
            while self.at(".") and self.peek().kind is T.IDENT:
                self.advance()
                name += "." + self.advance().text
            args = self.parse_type_args() if self.at("<") else []
            return A.NamedType(name, self.span(t.start), args)
        raise self.error("unexpected token", primary=f"expected a type, found `{describe(t)}`")

    # -- blocks and statements ----------------------------------------------
    def parse_block(self, function_body: bool = False) -> A.Block:
        start = self.expect("{").start
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
        if not (self.tok.kind is T.IDENT and (self.peek().is_(":") or self.peek().is_("="))):
            pattern = self.parse_pattern()
            self.expect("=")
            return self.parse_let_rest(pattern, start)
        name = self.name_ident("a variable name")
        ty = self.parse_type() if self.eat(":") else None
        if not self.at("="):
            raise self.error("unexpected token", primary=f"expected `'='`, found `{describe(self.tok)}`")
        self.advance()
        value = self.parse_expr()
        if self.at("else") and self.peek().is_("{"):
            return self.parse_let_rest(A.BindPat(name.text, ty, self.span(name.start)), start, value)
        self.eat(";")
        return A.Let(name.text, ty, value, self.span(start), self.span(name.start, name.end))

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
        if (binder and self.peek(2).is_("in")) or (self.tok.kind is T.IDENT and self.peek().is_("in")):
            if binder:
                self.advance()
            name = self.name_ident("a loop variable")
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
        binding = self.name_ident("an error binding")
        if self.eat(","):
            self.name_ident("a context binding")
        self.expect(")")
        arms = self.parse_arms()
        return A.Catch(expr, binding.text, arms, self.span(start))

    def parse_unary(self, no_class_lit: bool) -> A.Expr:
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
        return self.parse_postfix(self.parse_primary(no_class_lit))

    def parse_postfix(self, expr: A.Expr) -> A.Expr:
        start = expr.span.start_offset
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
            if text in ("let", "while", "for", "function", "class", "enum"):
                raise self.error("unexpected token",
                                 primary=f"expected an expression, found keyword `{text}`")
            self.advance()
            if self.at("<") and self.looks_like_type_args():
                self.parse_type_args()  # checked by erasure: type arguments are not kept
            if not no_class_lit and self.at("{") and self.looks_like_class_lit():
                return self.parse_class_lit(t)
            return A.Name(text, self.span(t.start, t.end))
        raise self.error("unexpected token", primary=f"expected `expression`, found `{describe(t)}`")

    def looks_like_lambda(self) -> bool:
        depth, j = 0, self.i
        while self.toks[j].kind is not T.EOF:
            tk = self.toks[j]
            if tk.is_("("):
                depth += 1
            elif tk.is_(")"):
                depth -= 1
                if depth == 0:
                    nxt = self.toks[j + 1]
                    return nxt.is_("->") or nxt.is_("=>")
            j += 1
        return False

    def looks_like_map(self) -> bool:
        a, b = self.peek(1), self.peek(2)
        if a.is_("}"):
            return True
        if a.kind in (T.STRING, T.INT, T.FLOAT, T.TEMPLATE) or a.is_("true") or a.is_("false"):
            return b.is_(":")
        if a.is_("-") and b.kind is T.INT:
            return self.peek(3).is_(":")
        return False

    def looks_like_class_lit(self) -> bool:
        a, b = self.peek(1), self.peek(2)
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
        ret = None
        if self.eat("->"):
            ret = self.parse_type()
        else:
            self.expect("=>")
        throws = None
        if self.eat("throws"):
            throws = self.parse_type()
        if not self.at("{"):
            raise self.error("unexpected token", primary="a lambda body must be a block `{ ... }`")
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
                f = self.ident("a field name")
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
        start = self.advance().start
        cond: A.Expr | A.IfLet
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
            cond = A.IfLet(pattern, value, self.span(let_start))
        else:
            cond = self.parse_expr(no_class_lit=True)
        then = self.parse_block()
        otherwise: A.Block | A.If | None = None
        if self.at("else"):
            self.advance()
            otherwise = self.parse_if() if self.at("if") else self.parse_block()
        return A.If(cond, then, otherwise, self.span(start))

    def parse_match(self) -> A.Match:
        start = self.advance().start
        scrutinee = self.parse_expr(no_class_lit=True)
        arms = self.parse_arms()
        return A.Match(scrutinee, arms, self.span(start))

    def parse_arms(self) -> list[A.MatchArm]:
        self.expect("{")
        arms: list[A.MatchArm] = []
        while not self.at("}"):
            start = self.tok.start
            pattern = self.parse_pattern()
            guard = None
            if self.at("if"):
                self.advance()
                guard = self.parse_expr()
            self.expect("=>")
            body = self.parse_expr()
            arms.append(A.MatchArm(pattern, guard, body, self.span(start)))
            if not self.eat(",") and not isinstance(body, A.Block) and not self.at("}") \
                    and not self.tok.newline_before:
                raise self.error("unexpected token", primary=f"expected `','`, found `{describe(self.tok)}`")
        self.expect("}")
        return arms

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
            name = self.name_ident("a binding name")
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
            f = self.ident("a field name")
            if self.eat(":"):
                fields.append((f.text, self.parse_pattern()))
            else:
                fields.append((f.text, A.BindPat(f.text, None, self.span(f.start, f.end))))
            if not self.eat(","):
                break
        self.expect("}")
        return A.ClassPat(name, fields, self.span(start))

    # -- templates ----------------------------------------------------------
    def parse_template(self, tok: Token) -> A.Template:
        parts: list[str | A.Expr | A.TemplateStmt] = []
        for part in dedent_template(tok.value):  # type: ignore[arg-type]
            if isinstance(part, str):
                parts.append(part)
            else:
                parts.append(self.parse_hole(part))
        return A.Template(parts, self.span(tok.start, tok.end))

    def parse_hole(self, hole: TemplateHole) -> A.Expr | A.TemplateStmt:
        try:
            tokens, docs = tokenize(self.src, hole.start, hole.end)
        except LexError as e:
            raise ParseError(e.diagnostic) from None
        sub = Parser(self.src, tokens, docs)
        stmts: list[A.Stmt] = []
        while sub.tok.kind is not T.EOF:
            if sub.eat(";"):
                continue
            stmt, is_tail = sub.parse_stmt()
            if is_tail and sub.tok.kind is T.EOF and not stmts:
                assert isinstance(stmt, A.ExprStmt)
                return stmt.expr
            stmts.append(stmt)
        span = Span(self.src, hole.start, hole.end)
        if not stmts:
            raise ParseError(Diagnostic(Code.SYNTAX, "empty `${}` in template string", span))
        return A.TemplateStmt(stmts, span)


_HOLE = "\x00"  # stands for a `${...}` while the literal text is dedented


def dedent_template(parts: list[str | TemplateHole]) -> list[str | TemplateHole]:
    """A multi-line template loses its common indentation and its surrounding blank space.

    As the engine does, before interpolation: `\n    a\n    b\n  ` is `a\nb`, while a
    single-line template keeps its spaces and a first line without indentation
    keeps every line as written. Interpolated values are never touched.
    """
    literal = "".join(p if isinstance(p, str) else _HOLE for p in parts)
    if "\n" not in literal:
        return parts
    lines = literal.split("\n")
    indents = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip(" \t")]
    margin = min(indents) if indents else 0
    text = "\n".join(line[margin:] if line.strip(" \t") else line.lstrip(" \t") for line in lines)
    text = text.strip(" \t\r\n")
    holes = iter(p for p in parts if not isinstance(p, str))
    out: list[str | TemplateHole] = []
    for i, piece in enumerate(text.split(_HOLE)):
        if i:
            out.append(next(holes))
        if piece:
            out.append(piece)
    return out


def parse(source: SourceFile) -> tuple[A.Module, list[Diagnostic]]:
    """Parse a whole file; returns the tree (possibly partial) and the diagnostics."""
    try:
        tokens, docs = tokenize(source)
    except LexError as e:
        return A.Module([], Span(source, 0, len(source.text))), [e.diagnostic]
    parser = Parser(source, tokens, docs)
    try:
        module = parser.parse_module()
    except LexError as e:  # from a template hole
        parser.diagnostics.append(e.diagnostic)
        module = A.Module([], Span(source, 0, len(source.text)))
    return module, parser.diagnostics
