"""How the parser reads the pattern and item forms the language corpus relies on: which tree
each spelling becomes, so that the checker and lowering see one shape per feature."""
from __future__ import annotations

import pytest

from ingot.syntax import ast as A
from ingot.syntax.diagnostics import SourceFile
from ingot.syntax.parser import parse


def body_tail(src: str) -> A.Expr:
    module, diags = parse(SourceFile("main.baml", src))
    assert not diags, diags
    fn = module.items[-1]
    assert isinstance(fn, A.Function) and isinstance(fn.body, A.Block) and fn.body.tail is not None
    return fn.body.tail


def body_stmts(src: str) -> list[A.Stmt]:
    module, diags = parse(SourceFile("main.baml", src))
    assert not diags, diags
    fn = module.items[-1]
    assert isinstance(fn, A.Function) and isinstance(fn.body, A.Block)
    return fn.body.stmts


@pytest.mark.parametrize("test, node", [
    ("v is int", A.IsType),                # a plain type test narrows: stays IsType
    ("v is int[]", A.IsType),
    ("v is int | bool", A.IsPattern),
    ("v is 1 | 2", A.IsPattern),
    ("v is let _", A.IsPattern),
    ("v is Color.Red", A.IsPattern),
])
def test_is_reads_a_type_or_a_pattern(test, node):
    assert isinstance(body_tail(f"function F(v: int) -> bool {{ {test} }}"), node)


def test_or_pattern_in_parentheses_is_one_or_pattern():
    m = body_tail("function F(n: int) -> int { match (n) { (1 | 2) => 1, _ => 0 } }")
    assert isinstance(m, A.Match) and isinstance(m.arms[0].pattern, A.OrPat)


def test_match_arms_may_be_separated_by_newlines():
    m = body_tail('function F(n: int) -> string { match (n) {\n 1 => "a"\n _ => "b"\n } }')
    assert isinstance(m, A.Match) and len(m.arms) == 2


def test_let_with_pattern_and_else():
    stmts = body_stmts("function F(v: int | string) -> int { let n: int = v else { return 0; }; "
                       "let P { x } = q; n }")
    first, second = stmts
    assert isinstance(first, A.LetPattern) and isinstance(first.pattern, A.BindPat) and first.otherwise
    assert isinstance(second, A.LetPattern) and isinstance(second.pattern, A.ClassPat) and not second.otherwise


def test_throw_followed_by_catch_catches_the_throw_itself():
    (stmt,) = body_stmts("function F() -> int { throw 1 catch (e) { _ => 2 } }")
    assert isinstance(stmt, A.ExprStmt) and isinstance(stmt.expr, A.Catch)
    assert isinstance(stmt.expr.expr, A.Block) and isinstance(stmt.expr.expr.stmts[0], A.Throw)


def test_type_arguments_in_expressions_do_not_swallow_comparisons():
    assert isinstance(body_tail("function F(a: int, b: int) -> bool { a < b }"), A.Binary)
    call = body_tail("function F(n: int) -> int { Id<int>(n) }")
    assert isinstance(call, A.Call) and isinstance(call.callee, A.Name)


def test_interface_and_implements_items():
    module, diags = parse(SourceFile("main.baml", """
interface Shape { function area(self) -> int throws never
  function twice(self) -> int throws never { self.area() * 2 } }
implements Shape for Sq { function area(self) -> int throws never { 1 } }
implement baml.ops.Add<Sq> for Sq { type Output = Sq; function add(self, rhs: Sq) -> Sq throws never { rhs } }
"""))
    assert not diags
    iface, impl, ops = module.items
    assert isinstance(iface, A.InterfaceDecl) and [m.abstract for m in iface.methods] == [True, False]
    assert isinstance(impl, A.ImplDecl) and (impl.interface, impl.target) == ("Shape", "Sq")
    assert isinstance(ops, A.ImplDecl) and ops.interface == "baml.ops.Add"


def test_byte_strings_are_a_clear_unsupported_error():
    _, diags = parse(SourceFile("main.baml", 'function F() -> int { let b = b"abc"; 1 }'))
    assert [str(d.code) for d in diags] == ["I0002"] and "byte strings" in diags[0].message
