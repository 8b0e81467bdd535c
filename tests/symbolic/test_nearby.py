"""Where Z3 answers unknown, the solver searches for a model near the run's own values
(`ingot.symbolic.nearby`): what it returns satisfies the whole query by BAML's semantics, a
split's parts follow the string they are cut from, and the search is bounded and repeatable."""

from __future__ import annotations

import random
from types import SimpleNamespace

from ingot.stdlib.string_models import _Parts
from ingot.symbolic import nearby
from ingot.symbolic.expr import Expr, Interner, Op, Sort, evaluate
from ingot.symbolic.solver import Solver


def capped(tokens: nearby.Tokens | None) -> Solver:
    """A solver whose Z3 gives up on any string query: only the search can answer."""
    s = Solver(timeout_ms=600_000, rlimit=2_000)
    s.nearby_tokens = tokens
    return s


def parsed_below_ten(x: Interner) -> tuple[Expr, list[Expr]]:
    s = x.var("s", Sort.STRING)
    n = x.str_op(Op.TO_INT, s)
    # a word equation every string satisfies: at 2,000 units Z3 gives up on the query all the same
    words = x.eq(x.concat(x.concat(s, x.const("a=")), s), x.concat(x.concat(s, x.const("a")), x.concat(x.const("="), s)))
    return s, [words, x.le(x.const(0), n), x.lt(n, x.const(10)), x.eq(x.length(s), x.const(2))]


def holds(query: list[Expr], env: dict) -> bool:
    memo: dict = {}
    return all(evaluate(e, env, memo) is True for e in query)


def test_an_unknown_query_is_answered_by_a_model_near_the_run_that_satisfies_it() -> None:
    x = Interner()
    _, query = parsed_below_ten(x)
    assert capped(None).solve(query, near={"s": "43"}).status == "unknown"
    solver = capped(nearby.Tokens(strings=["total"], separators=[","], ints=[10]))
    assert solver.solve(query).status == "unknown"  # nothing to search near
    result = solver.solve(query, near={"s": "43"})
    assert result.status == "sat" and result.model is not None
    assert holds(query, result.model)
    stats = solver.stats.as_dict()
    assert stats["nearby_sat"] == 1 and 0 < stats["nearby_evaluations"] <= 2 * nearby.EVALUATIONS_PER_QUERY


def test_a_splits_parts_are_computed_from_the_string_they_are_cut_from() -> None:
    x = Interner()
    text = x.var("text", Sort.STRING)
    parts = _Parts(SimpleNamespace(x=x), text, ",", 4)
    query = [parts.definition, parts.bounded, x.lt(x.const(2), parts.count), x.eq(parts.parts[2], x.const("go"))]
    model, spent = nearby.search(query, {"text": "a,b"}, nearby.Tokens(["go"], [","], []),
                                 random.Random(0), 2_000, 32)
    assert model is not None and set(model) == {"text"}  # the parts are not inputs
    cut = model["text"].split(",")
    assert len(cut) > 2 and cut[2] == "go"
    env = dict(model)
    assert nearby.Query.of(query).score(env)[0] == len(query) and holds(query, env)
    assert spent <= 2_000


def test_the_search_draws_the_same_way_for_the_same_seed_and_stops_at_its_budget() -> None:
    x = Interner()
    _, query = parsed_below_ten(x)
    tokens = nearby.Tokens(["total"], [","], [10])
    runs = [nearby.search(query, {"s": "43"}, tokens, random.Random(7), 300, 32) for _ in range(2)]
    assert runs[0] == runs[1]
    impossible = [*query, x.eq(x.var("s", Sort.STRING), x.const("zz"))]
    assert nearby.search(impossible, {"s": "43"}, tokens, random.Random(7), 50, 32) == (None, 50)
    solver = capped(tokens)
    solver.stats.nearby_evaluations = nearby.TOTAL_EVALUATIONS  # the exploration's share is spent
    assert solver.solve(query, near={"s": "43"}).status == "unknown"
    assert solver.stats.nearby_evaluations == nearby.TOTAL_EVALUATIONS


def second_word_of_second_line(x: Interner) -> list[Expr]:
    """`text.split("\\n")[1].split(" ")[1] == "fee"`, the line's first word kept as "+4"."""
    text = x.var("text", Sort.STRING)
    lines = _Parts(SimpleNamespace(x=x), text, "\n", 4)
    words = _Parts(SimpleNamespace(x=x), lines.parts[1], " ", 4)
    return [lines.definition, lines.bounded, x.lt(x.const(1), lines.count),
            words.definition, words.bounded, x.lt(x.const(1), words.count),
            x.eq(words.parts[0], x.const("+4")), x.eq(words.parts[1], x.const("fee"))]


def satisfied(query: list[Expr], model: dict) -> bool:
    """Does the model (inputs only) satisfy the query, its split parts computed from them?"""
    env = dict(model)
    return nearby.Query.of(query).score(env) is not None and holds(query, env)


def test_a_part_equated_with_a_literal_is_written_into_the_texts_it_was_cut_from(monkeypatch) -> None:
    x = Interner()
    query = second_word_of_second_line(x)
    near = {"text": "a\n+4 -2\nb"}
    tokens = nearby.Tokens(["total"], [",", " ", "\n"], [])  # "fee" is the query's, not the program's
    model, spent = nearby.search(query, near, tokens, random.Random(3), 60, 32)
    assert model is not None and satisfied(query, model)
    assert model["text"].split("\n")[1].startswith("+4 fee")  # the run's second line, its second word written
    assert spent <= 60
    # what found it is the aimed write, not chance: without it the same budget finds nothing
    monkeypatch.setattr(nearby, "AIMED_SHARE", 0.0)
    assert nearby.search(query, near, tokens, random.Random(3), 60, 32) == (None, 60)


def test_an_aimed_write_extends_a_text_with_too_few_parts_and_is_evaluated_like_any_candidate() -> None:
    x = Interner()
    query = second_word_of_second_line(x)
    q = nearby.Query.of(query)
    # one line only: the second line is made, holding the word that entry wants
    outs = {q.aimed({"text": "+4"}, random.Random(seed))["text"] for seed in range(8)}
    assert outs == {"+4\n fee", "+4\n+4"}
    assert not satisfied(query, {"text": "+4\n fee"})  # one entry at a time: the search goes on from there
    model, _ = nearby.search(query, {"text": "+4"}, nearby.Tokens([], [" ", "\n"], []), random.Random(0), 400, 32)
    assert model is not None and satisfied(query, model)


def test_a_slice_equated_with_a_literal_is_written_where_it_was_read() -> None:
    """`a.slice(at + 1, a.length()) == "corp.example"` after `at = a.index_of("@")`: the text
    after the "@" is replaced, whatever it was ("x@." gives "x@corp.example")."""
    x = Interner()
    addr = x.var("addr", Sort.STRING)
    after = x.arith(Op.ADD, x.str_op(Op.INDEX_OF, addr, x.const("@"), x.const(0)), x.const(1))
    domain = x.str_op(Op.SUBSTR, addr, after, x.arith(Op.SUB, x.length(addr), after))
    query = [x.le(x.const(0), x.str_op(Op.INDEX_OF, addr, x.const("@"), x.const(0))),
             x.eq(domain, x.const("corp.example"))]
    q = nearby.Query.of(query)
    assert q.aimed({"addr": "x@."}, random.Random(0)) == {"addr": "x@corp.example"}
    model, spent = nearby.search(query, {"addr": "x@."}, nearby.Tokens([], ["@"], []), random.Random(0), 40, 32)
    assert model is not None and satisfied(query, model) and spent <= 40


def fields_under_ten(x: Interner) -> list[Expr]:
    """Three two-digit fields ("43 57 81") whose numbers add up to less than 10."""
    s = x.var("s", Sort.STRING)
    fields = [x.str_op(Op.TO_INT, x.str_op(Op.SUBSTR, s, x.const(3 * i), x.const(2))) for i in range(3)]
    total = x.arith(Op.ADD, x.arith(Op.ADD, fields[0], fields[1]), fields[2])
    return [x.eq(x.length(s), x.const(8)), x.eq(x.str_op(Op.SUBSTR, s, x.const(2), x.const(1)), x.const(" ")),
            x.eq(x.str_op(Op.SUBSTR, s, x.const(5), x.const(1)), x.const(" ")),
            *[x.le(x.const(0), f) for f in fields], x.lt(total, x.const(10))]


def test_numbers_inside_a_string_are_moved_until_a_bound_on_their_sum_holds(monkeypatch) -> None:
    """Every field must shrink, and keep its width: moving a field's number (halved, zeroed, by
    a step, zero-padded) gets there within a few hundred evaluations on most seeds, where digits
    replaced at random rarely do (about 1,500 evaluations when they do, on half the seeds)."""
    query = fields_under_ten(Interner())
    assert models_found(query, "43 57 81", 600, width=8) >= 14
    monkeypatch.setattr(nearby, "NUMBER_MOVES", 0.0)
    assert models_found(query, "43 57 81", 600, width=8) <= 3


def models_found(query: list[Expr], near: str, evaluations: int, width: int | None = None) -> int:
    """On how many of 20 seeds the search finds a model of `query` near `{"s": near}` (each one
    checked: it satisfies the query and, with `width`, keeps the string that long)."""
    found = 0
    for seed in range(20):
        model, _ = nearby.search(query, {"s": near}, nearby.Tokens([], [" "], []), random.Random(seed), evaluations, 32)
        if model is not None:
            assert satisfied(query, model) and (width is None or len(model["s"]) == width)
            found += 1
    return found


def many_fields_under_a_bound(x: Interner) -> list[Expr]:
    """`s.split(" ")`: four "NNh" fields ("76h 76h 76h 76h") whose numbers add up to less than 4."""
    s = x.var("s", Sort.STRING)
    fields = _Parts(SimpleNamespace(x=x), s, " ", 4)
    query = [fields.definition, fields.bounded, x.eq(fields.count, x.const(4))]
    total: Expr = x.const(0)
    for part in fields.parts[:4]:
        digits = x.str_op(Op.SUBSTR, part, x.const(0), x.arith(Op.SUB, x.length(part), x.const(1)))
        query += [x.str_pred(Op.SUFFIX, part, x.const("h")), x.le(x.const(0), x.str_op(Op.TO_INT, digits))]
        total = x.arith(Op.ADD, total, x.str_op(Op.TO_INT, digits))
    return [*query, x.lt(total, x.const(4))]


def test_every_number_in_a_string_moves_at_once_for_a_sum_of_many_fields(monkeypatch) -> None:
    """Four fields that must all come down (an hour-first duration under an hour): one field
    at a time, each step must also survive the walk's restarts from the run's values; every
    field moved the same way at once (zeroed, halved) is one step."""
    query = many_fields_under_a_bound(Interner())
    assert models_found(query, "76h 76h 76h 76h", 200) >= 15
    monkeypatch.setattr(nearby, "ALL_NUMBERS_SHARE", 0.0)
    assert models_found(query, "76h 76h 76h 76h", 200) <= 5
