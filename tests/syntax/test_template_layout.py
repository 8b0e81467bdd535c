"""A template's layout is the source's own: escapes are text, and `\\r\\n` files read as `\\n` ones.

The engine (baml_bridge 0.23.0) gives `a\\nb` for the template below whether the file's lines
end in `\\n` or `\\r\\n`; the conformance programs `template_*` pin the rest against it.
"""

import ingot

TEMPLATE = "function F(s: string) -> string {{\n  `{body}`\n}}\n"


def _value(body: str, newline: str = "\n") -> str:
    src = TEMPLATE.format(body=body).replace("\n", newline)
    return ingot.load_source(src).run("F", {"s": "v"}, tier="interp")


def test_a_file_with_crlf_lines_gives_the_same_template_as_one_with_lf():
    body = "\n    a\n    b ${s}\n  "
    assert _value(body, "\r\n") == _value(body) == "a\nb v"


def test_escaped_line_breaks_are_not_dedented_or_trimmed():
    assert _value("\\n  x\\n") == "\n  x\n"


def test_a_real_line_break_dedents_around_escapes_without_breaking_at_them():
    assert _value("\n    a\\n  b\n    c\n") == "a\n  b\nc"
