"""``packcheck.rules.show``: every key of a rule with its value and its meaning."""

from __future__ import annotations

from fractions import Fraction

import pytest

from packcheck import Rule
from packcheck._rule.declared import CHOICES
from packcheck.rules import meaning, show


def test_every_value_of_every_key_with_choices_has_a_meaning_of_its_own() -> None:
    for key, choices in CHOICES.items():
        meanings = [meaning(key, choice) for choice in choices]
        assert len(set(meanings)) == len(meanings), key


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        ("per_item", 0, "each kept block costs its size"),
        ("per_item", 1, "each kept block costs its size plus 1 unit"),
        ("per_item", Fraction(3, 2), "each kept block costs its size plus 3/2 of a unit"),
        ("separator", 0, "nothing is charged between kept blocks"),
        ("separator", 2, "each kept block after the first (pins count) costs 2 units more"),
        ("reserve", 0, "the whole budget is there for the blocks"),
        ("reserve", 5, "5 units of the budget set aside before any block"),
        ("max_count", 0, "no limit on the number of kept blocks"),
        ("max_count", 1, "the scan ends once 1 block is kept, pins counted"),
        ("max_count", 3, "the scan ends once 3 blocks are kept, pins counted"),
        ("refuse_budget_below", 0, "no budget is refused"),
        ("refuse_budget_below", 4, "a budget below 4 is refused"),
        ("refuse_empty", True, "an empty block list is refused"),
        ("refuse_empty", False, "an empty block list is packed"),
        ("name", "x", "shown in reports; never changes an answer"),
        (
            "order",
            "reversed",
            "the scan meets the blocks that are not pinned last first (newest first)",
        ),
    ],
)
def test_a_value_is_said_in_words(key: str, value: object, said: str) -> None:
    assert meaning(key, value) == said


def test_the_report_names_the_source_and_shows_every_key() -> None:
    rule = Rule(name="chat", order="reversed", per_item=4)
    report = show(rule, "chat-rule.toml").text().splitlines()
    assert report[0] == "rule from chat-rule.toml"
    assert [line.split()[0] for line in report[1:]] == list(rule.keys())
    assert report[1].split() == ["name", '"chat"', "shown", "in", "reports;", "never", "changes",
                                 "an", "answer"]  # fmt: skip
    assert report[2].endswith("(newest first)")
    assert report[3].endswith("(default)")
    assert len(report) == 1 + len(rule.keys())


def test_keys_that_cannot_matter_are_named_with_the_rule_they_leave() -> None:
    shown = show(Rule(max_count=1, separator=5, pin_overflow="refuse"), "r.toml")
    assert shown.unused() == ["separator", "pin_overflow"]
    assert shown.text().splitlines()[-1] == (
        "the same rule as: max_count = 1 (separator, pin_overflow cannot change an answer here)"
    )
    assert show(Rule(pin_overflow="refuse"), "r.toml").text().splitlines()[-1] == (
        "the same rule as: the default rule (pin_overflow cannot change an answer here)"
    )


def test_a_rule_files_fixtures_are_counted() -> None:
    case = {"budget": 1, "blocks": [], "required": []}
    rule = Rule(fixtures=(("empty", case, {"kept": [], "remaining": 1, "missing": []}),))
    assert "fixtures: 1 (checked against the rule)" in show(rule, "r.toml").text()
    assert show(rule, "r.toml").json()["fixtures"] == 1


def test_the_json_report_has_each_key_its_value_and_meaning() -> None:
    report = show(Rule(per_item="1/2", remaining="sizes"), "pyproject.toml").json()
    assert report["source"] == "pyproject.toml"
    assert report["name"] == ""
    per_item = next(k for k in report["keys"] if k["key"] == "per_item")
    assert per_item == {
        "key": "per_item",
        "value": "1/2",
        "default": False,
        "meaning": "each kept block costs its size plus 1/2 of a unit",
    }
    assert report["changed"] == ['per_item = "1/2"', 'remaining = "sizes"']
    assert report["canonical"] == report["changed"]
    assert report["unused"] == []
