"""A declared rule as data: its keys, defaults, validation and descriptions."""

from __future__ import annotations

from fractions import Fraction

import pytest

from packcheck import Rule, RuleError


def test_the_default_rule_is_the_seeds_and_is_named_nowhere() -> None:
    rule = Rule()
    assert rule.is_default
    assert rule.changed() == []
    assert rule.describe() is None
    assert Rule(name="mine").is_default
    assert Rule(name="mine").describe() is None
    assert Rule() == Rule(name="")  # fixtures take no part in equality
    assert hash(Rule()) == hash(Rule())


def test_changed_keys_are_toml_lines_in_table_order() -> None:
    rule = Rule(
        name="chat",
        refuse_empty=True,
        per_item="1/3",
        order="reversed",
        remaining="sizes",
        max_count=2,
    )
    assert rule.changed() == [
        'order = "reversed"',
        'per_item = "1/3"',
        "max_count = 2",
        'remaining = "sizes"',
        "refuse_empty = true",
    ]
    assert rule.describe() == (
        'chat (order = "reversed", per_item = "1/3", max_count = 2, remaining = "sizes",'
        " refuse_empty = true)"
    )
    assert Rule(on_misfit="stop").describe() == 'on_misfit = "stop"'
    assert not rule.is_default


@pytest.mark.parametrize(
    ("value", "stored"),
    [(3, 3), ("4/2", 2), ("0/5", 0), (Fraction(6, 3), 2), ("1/3", Fraction(1, 3))],
)
def test_charges_are_exact_and_a_whole_fraction_is_an_integer(
    value: object, stored: object
) -> None:
    rule = Rule(per_item=value, separator=value, reserve=value, remaining="sizes")
    assert rule.per_item == rule.separator == rule.reserve == stored
    assert type(rule.per_item) is type(stored)


@pytest.mark.parametrize(
    ("keys", "message"),
    [
        ({"per_item": 2.5}, 'per_item: expected an integer >= 0 or "p/q", got 2.5 (float)'),
        ({"separator": True}, 'separator: expected an integer >= 0 or "p/q", got True (bool)'),
        (
            {"reserve": "3"},
            "reserve: expected \"p/q\" with integers p >= 0 and q > 0, got '3': write 3 "
            'without quotes, or "3/1"',
        ),
        (
            {"per_item": "three"},
            "per_item: expected \"p/q\" with integers p >= 0 and q > 0, got 'three'",
        ),
        ({"reserve": "1/0"}, "reserve: expected \"p/q\" with integers p >= 0 and q > 0, got '1/0'"),
        (
            {"reserve": "-1/2"},
            "reserve: expected \"p/q\" with integers p >= 0 and q > 0, got '-1/2'",
        ),
        ({"per_item": -1}, "per_item: expected a value >= 0, got -1"),
        ({"per_item": Fraction(-1, 2)}, "per_item: expected a value >= 0, got -1/2"),
        ({"max_count": "2/1"}, "max_count: expected an integer >= 0, got '2/1' (str)"),
        ({"max_count": False}, "max_count: expected an integer >= 0, got False (bool)"),
        ({"refuse_budget_below": -3}, "refuse_budget_below: expected an integer >= 0, got -3"),
        (
            {"order": "newest"},
            'order: expected one of "given", "reversed", "middle-out", got \'newest\' (str)',
        ),
        ({"fit": 1}, 'fit: expected one of "le", "lt", got 1 (int)'),
        ({"refuse_empty": 1}, "refuse_empty: expected true or false, got 1 (int)"),
        ({"name": 3}, "name: expected a string, got 3 (int)"),
        (
            {"separator": "1/2"},
            'separator: fractional charge 1/2 needs remaining = "sizes" (answers stay integers)',
        ),
    ],
)
def test_a_bad_value_fails_when_the_rule_is_built_naming_the_key(
    keys: dict[str, object], message: str
) -> None:
    with pytest.raises(RuleError) as caught:
        Rule(**keys)  # type: ignore[arg-type]
    assert str(caught.value) == message
    assert isinstance(caught.value, ValueError)
    assert "\n" not in message


def test_a_rule_is_frozen() -> None:
    rule = Rule()
    with pytest.raises(AttributeError):
        rule.order = "reversed"  # type: ignore[misc]


def test_keys_lists_every_key_with_its_value() -> None:
    keys = Rule(name="n", pin="last").keys()
    assert list(keys)[:2] == ["name", "order"]
    assert keys["pin"] == "last"
    assert "fixtures" not in keys
    assert len(keys) == 15


def test_fixtures_built_in_python_are_checked_against_their_rule() -> None:
    case = {"budget": 3, "blocks": [{"id": "A", "size": 4}, {"id": "C", "size": 2}], "required": []}
    kept = {"kept": ["C"], "remaining": 1, "missing": []}
    rule = Rule(fixtures=(("skip", case, kept),))  # type: ignore[arg-type]
    assert rule.fixtures[0].id == "skip"
    assert rule.fixtures[0].expected == kept
    with pytest.raises(RuleError, match=r"^fixture 'skip': expected \{\"kept\":\[\"C\"\]"):
        Rule(on_misfit="stop", fixtures=(("skip", case, kept),))  # type: ignore[arg-type]
    with pytest.raises(RuleError, match=r"^fixtures\[0\]: expected an \(id, input, expected\)"):
        Rule(fixtures=(("skip", case),))  # type: ignore[arg-type]
    with pytest.raises(RuleError, match=r"^fixtures\[0\]: expected"):
        Rule(fixtures=([1, case, kept],))  # type: ignore[arg-type]
