"""A rule's canonical form: equal spellings meet, and a reset never changes an answer."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from packcheck import Rule
from packcheck._rule.interpret import interpret


def small_cases() -> Iterator[dict[str, Any]]:
    """Every case of at most 3 blocks (sizes 1-3, IDs A or B), budget 0-7, and
    ``required`` empty or ``["A"]``: where the resets' conditions are decided."""
    for n in range(4):
        for sizes in itertools.product((1, 2, 3), repeat=n):
            for ids in itertools.product("AB", repeat=n):
                blocks = [{"id": i, "size": s} for i, s in zip(ids, sizes, strict=True)]
                for budget in range(8):
                    for required in ([], ["A"]):
                        yield {"budget": budget, "blocks": blocks, "required": required}


CASES = list(small_cases())


def differs(one: Rule, other: Rule) -> dict[str, Any] | None:
    """The first small case the two rules answer differently, if any."""
    for case in CASES:
        if interpret(one, case).result != interpret(other, case).result:
            return case
    return None


#: Pairs of spellings of one rule, the second the canonical form of the first.
SAME = [
    (Rule(fit="le", order="given", per_item=0), Rule()),
    (Rule(name="mine", per_item="4/2"), Rule(per_item=2)),
    (Rule(max_count=1, separator=5), Rule(max_count=1)),
    (Rule(pin_overflow="refuse"), Rule()),
    (
        Rule(max_count=1, dedup="kept", output="scan", order="reversed"),
        Rule(max_count=1, order="reversed"),
    ),
    (Rule(order="given", pin="first", output="scan"), Rule(pin="first")),
    (Rule(remaining="sizes"), Rule()),
    (
        Rule(pin="first", max_count=1, on_misfit="stop", order="middle-out", dedup="first"),
        Rule(pin="first", max_count=1),
    ),
    (
        Rule(pin="last", max_count=1, fit="lt", per_item=2, reserve="1/2", remaining="sizes"),
        Rule(pin="last", max_count=1),
    ),
    (
        Rule(
            on_misfit="overshoot", max_count=1, fit="lt", separator=3, remaining="sizes", per_item=1
        ),
        Rule(on_misfit="overshoot", max_count=1),
    ),
    (
        Rule(
            refuse_empty=True, pin="first", pin_overflow="refuse", per_item=1, refuse_budget_below=2
        ),
        Rule(refuse_empty=True, pin="first", pin_overflow="refuse", per_item=1),
    ),
    (
        Rule(refuse_empty=True, pin="last", pin_overflow="refuse", fit="lt", refuse_budget_below=2),
        Rule(refuse_empty=True, pin="last", pin_overflow="refuse", fit="lt"),
    ),
]

#: Rules that keep every key: each key changes an answer on some small case.
KEPT = [
    Rule(max_count=1, pin="required", separator=5),
    Rule(max_count=1, pin="required", dedup="kept"),
    Rule(max_count=2, separator=1),
    Rule(order="reversed", output="scan"),
    Rule(pin="last", output="scan"),
    Rule(pin="first", max_count=1, dedup="last"),
    Rule(pin="first", max_count=1, pin_overflow="refuse", fit="lt"),
    Rule(on_misfit="overshoot", max_count=1, per_item=1),
    Rule(on_misfit="overshoot", max_count=2, fit="lt"),
    Rule(refuse_empty=True, pin="first", pin_overflow="refuse", refuse_budget_below=2),
    Rule(refuse_empty=True, pin="first", pin_overflow="refuse", fit="lt", refuse_budget_below=3),
    Rule(pin="first", pin_overflow="refuse", refuse_budget_below=1),
    Rule(per_item=1, remaining="sizes"),
]


@pytest.mark.parametrize(("spelling", "form"), SAME)
def test_equal_spellings_have_one_canonical_form(spelling: Rule, form: Rule) -> None:
    assert spelling.canonical() == form
    assert form.canonical() == form
    assert differs(spelling, form) is None


@pytest.mark.parametrize("rule", KEPT)
def test_a_key_that_changes_an_answer_is_kept(rule: Rule) -> None:
    assert rule.canonical() == rule
    default = Rule()
    for key, value in rule.keys().items():
        if value == getattr(default, key):
            continue
        fewer = {k: v for k, v in rule.keys().items() if k != key}
        if key in ("per_item", "separator", "reserve") and not any(
            fewer.get(k) for k in ("per_item", "separator", "reserve")
        ):
            fewer.pop("remaining", None)
        assert differs(rule, Rule(**fewer)) is not None, key


def test_the_canonical_form_has_no_name_and_no_fixtures() -> None:
    case = {"budget": 3, "blocks": [{"id": "A", "size": 2}], "required": []}
    named = Rule(
        name="x", per_item=1, fixtures=(("f", case, interpret(Rule(per_item=1), case).result),)
    )
    assert named.canonical().name == ""
    assert named.canonical().fixtures == ()
    assert named.canonical() == Rule(per_item=1)
