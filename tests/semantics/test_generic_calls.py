"""A call of a generic function has the type its arguments give the type parameters; a member
of a value whose type stays erased (a generic class's `T` field) is a clear compile error.

What the engine runs is pinned by the conformance programs `generic_field_read`,
`generic_field_write` and `generic_class_result`.
"""

import pytest

import ingot

CLASSES = """
class Ver { major int }
class Box<T> { value T }
function Pick<T>(a: T, b: T) -> T { a }
function Boxed<T>(v: T) -> Box<T> { Box { value: v } }
"""


def _run(body: str, **args: object) -> object:
    return ingot.load_source(CLASSES + body).run("Run", args, tier="interp")


def test_the_result_of_a_generic_call_has_the_argument_type_s_members():
    body = "function Run(a: int) -> int { let v = Pick(Ver { major: a }, Ver { major: 0 }); v.major = v.major + 1; v.major }"
    assert _run(body, a=41) == 42


@pytest.mark.parametrize("stmt", ["Boxed(Ver { major: a }).value.major", "{ let b = Boxed(Ver { major: a }); b.value.major = 1; 0 }"])
def test_a_member_of_an_erased_generic_field_is_a_compile_error(stmt: str):
    with pytest.raises(ingot.CompileError) as info:
        ingot.load_source(CLASSES + f"function Run(a: int) -> int {{ {stmt} }}")
    assert info.value.diagnostics[0].code.value == "I0002"
    assert "generic type" in info.value.diagnostics[0].message
