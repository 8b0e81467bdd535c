"""Name resolution and type checking: AST -> typed HIR."""
