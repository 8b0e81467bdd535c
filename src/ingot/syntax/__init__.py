"""Front-end: annotations, lexer, parser, syntax tree, diagnostics."""
