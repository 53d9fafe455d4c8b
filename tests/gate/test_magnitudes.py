"""The magnitude shrinker of the gate (packcheck._gate._magnitudes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from packers import message_overhead, wild

from packcheck._gate._magnitudes import smaller_magnitudes

BIG = 9007199254740957


def _differs(new: Callable[[Any], object], old: Callable[[Any], object]) -> Callable[[Any], bool]:
    return lambda case: new(case) != old(case)


def _check(before: dict[str, Any], after: dict[str, Any], holds: Callable[[Any], bool]) -> None:
    """``after`` still holds, and no number of it is above ``before``'s."""
    assert holds(after), "the shrunk case no longer holds"
    assert after["budget"] <= before["budget"]
    for old, new in zip(before["blocks"], after["blocks"], strict=True):
        assert new["size"] <= old["size"]


def test_an_exact_fit_shrinks_with_the_budget_following() -> None:
    case = {"budget": BIG, "blocks": [{"id": "A", "size": BIG}], "required": []}
    holds = _differs(wild.keep_newest_lt, wild.keep_newest)
    after = smaller_magnitudes(case, holds)
    _check(case, after, holds)
    assert after == {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []}


def test_a_per_item_cost_keeps_its_offset() -> None:
    blocks = [{"id": "A", "size": 2**40}, {"id": "B", "size": BIG - 7 - 2**40 - 7}]
    case = {"budget": BIG, "blocks": blocks, "required": ["A"]}
    holds = _differs(message_overhead.pack_ge, message_overhead.pack)
    after = smaller_magnitudes(case, holds)
    _check(case, after, holds)
    # Newest first at 7 a message: the newest alone fills the budget exactly.
    assert after["budget"] == 8
    assert [b["size"] for b in after["blocks"]] == [1, 1]


def test_a_wrong_answer_fails_the_check() -> None:
    case = {"budget": BIG, "blocks": [{"id": "A", "size": BIG}], "required": []}
    holds = _differs(wild.keep_newest_lt, wild.keep_newest)
    wrong = {"budget": 2, "blocks": [{"id": "A", "size": 1}], "required": []}
    with pytest.raises(AssertionError, match="no longer holds"):
        _check(case, wrong, holds)


def test_one_coordinate_alone() -> None:
    case = {"budget": 10**12, "blocks": [{"id": "A", "size": 10**9}], "required": []}

    def holds(candidate: dict[str, Any]) -> bool:
        return bool(candidate["blocks"][0]["size"] > 1000)

    after = smaller_magnitudes(case, holds)
    assert after == {"budget": 0, "blocks": [{"id": "A", "size": 1001}], "required": []}


def test_values_that_are_not_integers_stay() -> None:
    blocks = [{"id": "A", "size": True}, {"id": "B", "size": "4"}, "no block", {"id": "C"}]
    case = {"budget": 2.5, "blocks": blocks, "required": []}
    assert smaller_magnitudes(case, lambda candidate: True) == case
    assert smaller_magnitudes({"budget": 5, "blocks": None}, lambda c: True) == {
        "budget": 0,
        "blocks": None,
    }


def test_tries_are_bounded_and_the_last_holding_case_is_kept() -> None:
    case = {"budget": 2**50, "blocks": [{"id": "A", "size": 2**50}], "required": []}
    calls: list[dict[str, Any]] = []

    def holds(candidate: dict[str, Any]) -> bool:
        calls.append(candidate)
        return bool(candidate["budget"] >= candidate["blocks"][0]["size"] > 2**20)

    after = smaller_magnitudes(case, holds, tries=10)
    assert len(calls) == 10
    _check(case, after, holds)
    assert smaller_magnitudes(case, holds, tries=0) == case
    full = smaller_magnitudes(case, holds)
    assert full["blocks"][0]["size"] == full["budget"] == 2**20 + 1
