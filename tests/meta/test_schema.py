"""JSON Schema from BAML types: each type form, checked against what `Program.call` accepts."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

import ingot
from ingot.meta.schema import SchemaBuilder, SchemaError, input_schema, output_schema

SOURCE = """
/// A point.
class Point {
  /// across
  x float @description("horizontal")
  y float
  tag string?
}
/// A colour.
enum Color {
  RED
  GREEN
}
class Node {
  value int
  next Node?
}
type Tree = int | Tree[]
type Id = string

function Prims(i: int, f: float, b: bool, s: string) -> null { null }
function Opt(i: int?, c: Color?) -> int? { i }
function Lits(l: "a" | "b", n: 1 | 2 | null, one: "x") -> "a" | "b" { l }
function Unions(u: int | string, v: Point | int[]) -> int { 1 }
function Lists(xs: int[][], ps: Point[]) -> Point[] { ps }
function Maps(m: map<string, float>, e: map<Color, int>) -> map<string, Point> { {} }
function Named(p: Point, c: Color, n: Node, t: Tree, id: Id) -> Tree { t }
function Takes(f: (int) -> int throws never) -> int { f(1) }
"""


@pytest.fixture(scope="module")
def program() -> ingot.Program:
    return ingot.load(SOURCE)


def schema_of(program: ingot.Program, fn: str) -> dict[str, Any]:
    return input_schema(program.view, program.view.function(fn))


def agrees(program: ingot.Program, fn: str, args: dict[str, Any]) -> bool:
    """The schema and the call-time argument check give the same verdict; return it."""
    by_schema = jsonschema.Draft202012Validator(schema_of(program, fn)).is_valid(args)
    optional = {p: None for p, ty in program.view.function(fn).params
                if SchemaBuilder(program.view).nullable(ty)}
    try:
        program.convert_args(fn, optional | args)
        by_call = True
    except ingot.ArgumentError:
        by_call = False
    assert by_schema == by_call, f"{fn}{args}: schema says {by_schema}, call says {by_call}"
    return by_schema


def test_primitives(program: ingot.Program) -> None:
    s = schema_of(program, "Prims")
    assert s["properties"] == {"i": {"type": "integer"}, "f": {"type": "number"},
                               "b": {"type": "boolean"}, "s": {"type": "string"}}
    assert s["required"] == ["i", "f", "b", "s"] and s["additionalProperties"] is False
    assert agrees(program, "Prims", {"i": 1, "f": 2, "b": True, "s": "x"})  # an int is a float
    assert not agrees(program, "Prims", {"i": 1.5, "f": 2.0, "b": True, "s": "x"})
    assert not agrees(program, "Prims", {"i": 1, "f": "2", "b": True, "s": "x"})
    assert not agrees(program, "Prims", {"i": 1, "f": 2.0, "b": True})
    assert not agrees(program, "Prims", {"i": 1, "f": 2.0, "b": True, "s": "x", "extra": 1})


def test_optionals_are_not_required(program: ingot.Program) -> None:
    s = schema_of(program, "Opt")
    assert s["required"] == []
    assert s["properties"]["i"] == {"type": ["integer", "null"]}
    assert s["properties"]["c"] == {"anyOf": [{"$ref": "#/$defs/Color"}, {"type": "null"}]}
    assert agrees(program, "Opt", {})
    assert agrees(program, "Opt", {"i": None, "c": "RED"})
    assert not agrees(program, "Opt", {"c": "BLUE"})


def test_literal_types(program: ingot.Program) -> None:
    s = schema_of(program, "Lits")
    assert s["properties"] == {"l": {"enum": ["a", "b"]}, "n": {"enum": [1, 2, None]}, "one": {"const": "x"}}
    assert s["required"] == ["l", "one"]
    assert agrees(program, "Lits", {"l": "a", "n": 2, "one": "x"})
    assert not agrees(program, "Lits", {"l": "c", "one": "x"})
    assert not agrees(program, "Lits", {"l": "a", "n": 3, "one": "x"})
    assert not agrees(program, "Lits", {"l": "a", "one": "y"})


def test_unions(program: ingot.Program) -> None:
    s = schema_of(program, "Unions")
    assert s["properties"]["u"] == {"type": ["integer", "string"]}
    assert s["properties"]["v"] == {"anyOf": [{"$ref": "#/$defs/Point"},
                                              {"type": "array", "items": {"type": "integer"}}]}
    assert agrees(program, "Unions", {"u": "s", "v": [1, 2]})
    assert agrees(program, "Unions", {"u": 3, "v": {"x": 1, "y": 2}})
    assert not agrees(program, "Unions", {"u": True, "v": [1]})
    assert not agrees(program, "Unions", {"u": 1, "v": ["a"]})


def test_arrays(program: ingot.Program) -> None:
    s = schema_of(program, "Lists")
    assert s["properties"]["xs"] == {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}}
    assert agrees(program, "Lists", {"xs": [[1], []], "ps": [{"x": 0, "y": 0}]})
    assert not agrees(program, "Lists", {"xs": [1], "ps": []})
    assert not agrees(program, "Lists", {"xs": [], "ps": [{"x": 0}]})


def test_maps_with_string_and_enum_keys(program: ingot.Program) -> None:
    s = schema_of(program, "Maps")
    assert s["properties"]["m"] == {"type": "object", "additionalProperties": {"type": "number"}}
    assert s["properties"]["e"] == {"type": "object", "additionalProperties": {"type": "integer"},
                                    "propertyNames": {"$ref": "#/$defs/Color"}}
    assert agrees(program, "Maps", {"m": {"a": 1.5}, "e": {"RED": 1}})
    assert not agrees(program, "Maps", {"m": {"a": "x"}, "e": {}})
    assert not agrees(program, "Maps", {"m": {}, "e": {"BLUE": 1}})


def test_classes_enums_and_aliases_go_to_defs(program: ingot.Program) -> None:
    s = schema_of(program, "Named")
    assert s["properties"] == {"p": {"$ref": "#/$defs/Point"}, "c": {"$ref": "#/$defs/Color"},
                               "n": {"$ref": "#/$defs/Node"}, "t": {"$ref": "#/$defs/Tree"},
                               "id": {"$ref": "#/$defs/Id"}}
    defs = s["$defs"]
    assert defs["Point"] == {
        "type": "object", "description": "A point.", "additionalProperties": False,
        "properties": {"x": {"type": "number", "description": "horizontal"},  # @description wins over ///
                       "y": {"type": "number"},
                       "tag": {"type": ["string", "null"]}},
        "required": ["x", "y"]}
    assert defs["Color"] == {"type": "string", "enum": ["RED", "GREEN"], "description": "A colour."}
    assert defs["Node"]["properties"]["next"] == {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}
    assert defs["Tree"] == {"anyOf": [{"type": "integer"}, {"type": "array", "items": {"$ref": "#/$defs/Tree"}}]}
    assert defs["Id"] == {"type": "string"}
    good = {"p": {"x": 1, "y": 2}, "c": "GREEN", "n": {"value": 1, "next": {"value": 2}},
            "t": [1, [2, [3]]], "id": "k"}
    assert agrees(program, "Named", good)
    assert not agrees(program, "Named", good | {"t": [1, ["x"]]})
    assert not agrees(program, "Named", good | {"n": {"value": 1, "next": {"value": "2"}}})
    assert not agrees(program, "Named", good | {"p": {"x": 1, "y": 2, "z": 3}})


def test_field_doc_comment_is_the_description_without_description_attribute() -> None:
    p = ingot.load("class A {\n  /// the count\n  n int\n}\nfunction F(a: A) -> int { a.n }")
    assert schema_of(p, "F")["$defs"]["A"]["properties"]["n"] == {"type": "integer", "description": "the count"}


def test_parameter_descriptions_are_attached(program: ingot.Program) -> None:
    s = input_schema(program.view, program.view.function("Named"), {"p": "the origin"})
    assert s["properties"]["p"] == {"$ref": "#/$defs/Point", "description": "the origin"}


def test_output_schema_wraps_the_result(program: ingot.Program) -> None:
    view = program.view
    assert output_schema(view, view.function("Opt")) == {
        "type": "object", "properties": {"result": {"type": ["integer", "null"]}}, "required": ["result"]}
    out = output_schema(view, view.function("Named"))
    assert out["properties"]["result"] == {"$ref": "#/$defs/Tree"} and "Tree" in out["$defs"]
    assert "Point" not in out["$defs"]  # only what the return type reaches
    assert output_schema(view, view.function("Prims"))["properties"]["result"] == {"type": "null"}


def test_function_types_cannot_be_json(program: ingot.Program) -> None:
    with pytest.raises(SchemaError, match="cannot be passed as JSON"):
        schema_of(program, "Takes")


def test_every_schema_is_valid_json_schema(program: ingot.Program) -> None:
    for fn in ("Prims", "Opt", "Lits", "Unions", "Lists", "Maps", "Named"):
        jsonschema.Draft202012Validator.check_schema(schema_of(program, fn))
        jsonschema.Draft202012Validator.check_schema(output_schema(program.view, program.view.function(fn)))
