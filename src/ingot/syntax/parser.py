"""Tokens -> syntax tree: a recursive-descent parser with precedence climbing.

Errors become `Diagnostic`s; after an error in an item the parser skips to the
next item keyword, so one run reports every broken item. Statements end at a
`;`, or wherever the next token cannot continue the expression.

This module holds `parse`, the items (functions, classes, enums, clients, tests, ...) and
template strings; the token cursor is in parse_base.py, expressions in parse_expr.py,
statements, patterns and types in parse_stmt.py.
"""

from __future__ import annotations

from ingot.syntax import ast as A
from ingot.syntax.diagnostics import Code, Diagnostic, SourceFile, Span
from ingot.syntax.lexer import LexError, T, TemplateEscape, TemplateHole, Token, tokenize
from ingot.syntax.parse_base import (
    FIELD_RESERVED,
    FUNCTION_NAME_RESERVED,
    ITEM_KEYWORDS,
    ITEM_WORDS,
    PARAM_MISPLACED,
    PARAM_RESERVED,
    ParseError,
    describe,
)
from ingot.syntax.parse_expr import ExprParser
from ingot.syntax.parse_stmt import StmtParser


class Parser(ExprParser, StmtParser):
    """The whole parser: items and templates here, the rest in its parts."""

    # -- module -------------------------------------------------------------
    def parse_module(self) -> A.Module:
        items: list[A.Item] = []
        while self.tok.kind is not T.EOF:
            start = self.i
            try:
                self.class_impls: list[A.ImplDecl] = []
                item = self.parse_item()
                if item is not None:
                    items.append(item)
                items.extend(self.class_impls)  # a class's `implements I { ... }` blocks
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
        if t.is_("generator") and (self.peek().is_("{") or (self.peek().kind is T.IDENT and self.peek(2).is_("{"))):
            self.skip_generator()
            return None
        if t.kind is T.IDENT and t.text in ("retry_policy", "template_string"):
            raise self.error("removed language feature", code=Code.REMOVED_FEATURE,
                             primary=f"`{t.text}` blocks are not part of this BAML")
        raise self.error("unexpected token",
                         primary=f"expected an item (`function`, `class`, `enum`, ...), found `{describe(t)}`")

    def skip_generator(self) -> None:
        """`generator target { output_type "python/pydantic" ... }`: the settings of the engine's
        client code generators, which the engine reads (whatever they hold) and ingot, which
        generates no client code, does not: skipped, balanced braces and all."""
        self.advance()
        if self.tok.kind is T.IDENT:
            self.advance()
        depth = 0
        while self.tok.kind is not T.EOF:
            t = self.advance()
            depth += 1 if t.is_("{") else -1 if t.is_("}") else 0
            if depth == 0:
                return
        raise self.error("unexpected token", primary="expected `'}'`, found `EOF`")

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

    def parse_impl(self, in_class: Token | None = None) -> A.ImplDecl:
        """`implement I for C { ... }`, or inside class `C` (`in_class`: its name) `implements I { ... }`."""
        start = self.advance().start
        iface_start = self.tok.start
        iface = self.dotted_type_name()
        iface_span = self.span(iface_start)
        if self.at("<"):
            self.parse_type_args()
        if in_class is None:
            self.expect("for")
        target = self.name_ident("a class name") if in_class is None else in_class
        if in_class is None and self.at("<"):
            self.parse_type_args()  # `for Slot<int>`: generics are erased, the impl is the class's
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
        name = self.ident("a function name")
        if name.text in FUNCTION_NAME_RESERVED:
            raise ParseError(Diagnostic(Code.MISSING_NAME, "function is missing a name",
                                        Span(self.src, start, name.end), "expected a name here"))
        type_params = self.parse_type_params()
        self.expect("(")
        params: list[A.Param] = []
        has_self = False
        while not self.at(")"):
            if self.at("self") and not (self.peek().is_(",") or self.peek().is_(")")):
                self.advance()  # `self` is the receiver, never a typed parameter
                raise self.error("unexpected token", primary=f"expected `')'`, found `{describe(self.tok)}`")
            if self.at("self") and in_class and not params and not has_self:
                self.advance()
                has_self = True
            else:
                params.append(self.parse_param(require_type=True, owner=name.text))
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
        elif self.at("{") and (self.peek().is_("client") or self.peek().is_("prompt")) and self.peek(2).is_(":"):
            body = self.parse_llm_body()
        else:
            self.body_type = ret
            body = self.parse_block(function_body=True)
        return A.Function(name.text, params, ret, throws, body, self.span(start),
                          self.span(name.start, name.end), doc, [], has_self, type_params, abstract)

    def parse_param(self, require_type: bool, owner: str = "lambda") -> A.Param:
        """One parameter of function `owner` (or of a lambda)."""
        before = self.toks[self.i - 1].end  # (the engine's "missing name" points just after `(` or `,`)
        name = self.ident("a parameter name")
        if name.text in PARAM_MISPLACED:
            raise self.error("unexpected token", name, f"expected a parameter name, found keyword `{name.text}`")
        if name.text in PARAM_RESERVED:
            raise self.error(f"parameter in function `{owner}` is missing a name", name, "expected a parameter name",
                             code=Code.MISSING_NAME, span=Span(self.src, before, before))
        ty = None
        if self.eat(":"):
            ty = self.parse_type()
        elif require_type and self.tok.kind is T.IDENT:  # `F(a int)`: the engine reads the type without the colon
            ty = self.parse_type()
        elif require_type:
            raise self.error("unexpected token", primary=f"expected `':'`, found `{describe(self.tok)}`")
        attrs = self.parse_attributes(block=False)
        default = None
        if self.eat("="):
            default = self.parse_expr()
        return A.Param(name.text, ty, default, self.span(name.start), attrs)

    def parse_llm_body(self) -> A.LlmBody:
        """`{ client: C  prompt: `...` }`: the two fields in either order, each once, apart by a
        newline (or nothing) but not by `,` or `;`, as on the engine."""
        start = self.expect("{").start
        fields: dict[str, A.Expr] = {}
        while not self.at("}") and self.tok.kind is not T.EOF:
            name = self.tok
            if not (name.is_("client") or name.is_("prompt")):
                raise self.error("unexpected token", primary=f"expected `client` or `prompt`, found `{describe(name)}`")
            if name.text in fields:
                raise self.error("unexpected token", primary=f"expected `Duplicate '{name.text}' field`, "
                                 f"found `{name.text}`")
            self.advance()
            self.expect(":")
            fields[name.text] = self.parse_llm_client() if name.text == "client" else self.parse_expr()
            if self.at(",") or self.at(";"):
                raise self.error("invalid syntax", primary=f"unexpected `{self.tok.text}` between LLM function "
                                 "fields; separate `client` and `prompt` with a newline")
        for required in ("client", "prompt"):
            if required not in fields:
                raise self.error("unexpected token", primary=f"expected `LLM function missing '{required}' field`, "
                                 f"found `{describe(self.tok)}`")
        self.expect("}")
        return A.LlmBody(fields["client"], fields["prompt"], self.span(start))

    def parse_llm_client(self) -> A.Expr:
        if self.tok.kind is T.STRING:
            t = self.advance()
            return A.StringLit(str(t.value), self.span(t.start, t.end))
        return self.parse_postfix(self.parse_primary())

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
            elif self.starts_impl_block():
                self.class_impls.append(self.parse_impl(in_class=name))
            elif self.tok.kind is T.IDENT:
                fields.append(self.parse_field(member_doc))
            else:
                raise self.error("unexpected token", primary=f"expected a field, found `{describe(self.tok)}`")
        self.expect("}")
        attrs += pending
        return A.ClassDecl(name.text, fields, methods, attrs, self.span(start),
                           self.span(name.start, name.end), doc, type_params)

    def starts_impl_block(self) -> bool:
        """`implements I { ... }` (or `implement`) in a class body. As on the engine, a class
        has no field named `implements`: the word always opens a block."""
        return (self.at("implements") or self.at("implement")) and self.peek().kind is T.IDENT

    def parse_field(self, doc: str | None) -> A.FieldDecl:
        name = self.ident("a field name")
        if name.text in FIELD_RESERVED:
            expected = "'}'" if name.text in ITEM_WORDS else "a field"
            raise self.error("unexpected token", name, f"expected {expected}, found keyword `{name.text}`")
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
        sub.depth = self.depth  # a hole nests inside its template
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


_SPECIAL = "\x00"  # stands for a `${...}` or an escaped character while the literal text is dedented


def dedent_template(parts: list[str | TemplateHole | TemplateEscape]) -> list[str | TemplateHole]:
    """A multi-line template loses its common indentation, its leading blank lines and its
    trailing blank space; its line breaks are `\\n` even in a file written with `\\r\\n`.

    As the engine does, before interpolation: `\\n    a\\n    b\\n  ` is `a\\nb`, `   a\\n  b`
    is ` a\\nb` (the first line keeps what is left of its indentation), a single-line template
    keeps its spaces, and a line without indentation keeps every line as written. Only the
    source's own layout counts: an escape (`\\n`, `\\t`) is text, like an interpolated value.
    """
    specials = [p for p in parts if not isinstance(p, str)]
    literal = "".join(p.replace("\r\n", "\n") if isinstance(p, str) else _SPECIAL for p in parts)
    if "\n" in literal:
        lines = literal.split("\n")
        indents = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip(" \t")]
        margin = min(indents) if indents else 0
        text = "\n".join(line[margin:] if line.strip(" \t") else "" for line in lines)
        literal = text.lstrip("\n").rstrip(" \t\r\n")
    out: list[str | TemplateHole] = []
    text = ""  # the literal text since the last hole
    pending = iter(specials)
    for i, piece in enumerate(literal.split(_SPECIAL)):
        if i:
            special = next(pending)
            if isinstance(special, TemplateEscape):
                text += special.char
            else:
                if text:
                    out.append(text)
                out.append(special)
                text = ""
        text += piece
    if text:
        out.append(text)
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
