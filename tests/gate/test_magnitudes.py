"""The magnitude shrinker of the gate (packcheck._gate.magnitudes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from packers import message_overhead, ragflow, wild

from packcheck._gate.magnitudes import scaled_magnitudes, smaller_magnitudes

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


# Scaling the budget and the sizes together.

#: A real port's counterexample (RAGFlow's knowledge prompt, ``<=`` for ``<``): the
#: chunks fill a 0.97 share of the budget exactly, as doubles compute it.
SHARE_BUDGET = 4_503_599_627_370_488


def _share_holds() -> Callable[[Any], bool]:
    return _differs(ragflow.kb_prompt_le, ragflow.kb_prompt)


def test_a_ratio_comes_back_small_when_scaled() -> None:
    case = {
        "budget": SHARE_BUDGET,
        "blocks": [{"id": "A", "size": 4368491638549373}],
        "required": [],
    }
    holds = _share_holds()
    assert holds(case)
    # One coordinate at a time leaves the ratio only by a few units: still huge.
    assert smaller_magnitudes(case, holds)["budget"] > 10**15
    after = scaled_magnitudes(case, holds)
    _check(case, after, holds)
    assert after == {"budget": 100, "blocks": [{"id": "A", "size": 97}], "required": []}


def test_an_exact_fit_of_several_blocks_scales_by_running_totals() -> None:
    sizes = [2251799813685241, 2116691824864132]
    blocks = [{"id": "A", "size": sizes[0]}, {"id": "B", "size": sizes[1]}]
    case = {"budget": SHARE_BUDGET, "blocks": blocks, "required": []}
    holds = _share_holds()
    after = scaled_magnitudes(case, holds)
    _check(case, after, holds)
    assert after["budget"] == 100
    assert [b["size"] for b in after["blocks"]] == [50, 47]


def test_the_greatest_common_divisor_first_then_powers_of_ten_then_their_multiples() -> None:
    calls: list[dict[str, Any]] = []

    def holds(candidate: dict[str, Any]) -> bool:
        calls.append(candidate)
        budget, size = candidate["budget"], candidate["blocks"][0]["size"]
        return bool(budget == size >= 30)

    case = {"budget": 7 * 10**6, "blocks": [{"id": "A", "size": 7 * 10**6}], "required": []}
    after = scaled_magnitudes(case, holds)
    assert after == {"budget": 30, "blocks": [{"id": "A", "size": 30}], "required": []}
    budgets = [c["budget"] for c in calls]
    assert budgets == [1, 1, 10, 100, 20, 30]  # 7e6 / gcd, then 1, 10, 100, then 20, 30


def test_a_ratio_that_needs_exact_units_is_divided_by_their_common_divisor() -> None:
    blocks = [{"id": "A", "size": 3 * 10**9}, {"id": "B", "size": 10**9}]
    case = {"budget": 4 * 10**9, "blocks": blocks, "required": []}

    def holds(candidate: dict[str, Any]) -> bool:
        first, second = (b["size"] for b in candidate["blocks"])
        return bool(4 * first == 3 * candidate["budget"] and 3 * second == first)

    after = scaled_magnitudes(case, holds)
    assert after["budget"] == 4
    assert [b["size"] for b in after["blocks"]] == [3, 1]


def test_both_roundings_are_tried_where_they_differ_within_the_tries() -> None:
    case = {"budget": 20, "blocks": [{"id": "A", "size": 3}, {"id": "B", "size": 3}]}
    calls: list[dict[str, Any]] = []

    def never(candidate: dict[str, Any]) -> bool:
        calls.append(candidate)
        return False

    assert scaled_magnitudes(case, never) == case
    # At 1 both roundings give [1, 1]; at 10, each size alone [2, 2], by running totals [2, 1].
    assert [[b["size"] for b in c["blocks"]] for c in calls] == [[1, 1], [2, 2], [2, 1]]
    calls.clear()
    assert scaled_magnitudes(case, never, tries=2) == case
    assert len(calls) == 2


def test_a_failure_that_needs_its_magnitude_keeps_it_within_the_tries() -> None:
    case = {"budget": 2**63, "blocks": [{"id": "A", "size": 2**62 + 1}], "required": []}
    calls: list[dict[str, Any]] = []

    def holds(candidate: dict[str, Any]) -> bool:
        calls.append(candidate)
        return bool(candidate["budget"] >= 2**63)

    assert scaled_magnitudes(case, holds) == case
    assert 19 <= len(calls) <= 60
    calls.clear()
    assert scaled_magnitudes(case, holds, tries=5) == case
    assert len(calls) == 5


def test_units_the_rule_does_not_accept_are_not_scaled() -> None:
    def never(candidate: dict[str, Any]) -> bool:
        raise AssertionError("not to be called")

    for case in (
        {"budget": 2.5, "blocks": [], "required": []},
        {"budget": True, "blocks": [], "required": []},
        {"budget": -1, "blocks": [], "required": []},
        {"budget": 5, "blocks": None, "required": []},
        {"budget": 5, "blocks": ["A"], "required": []},
        {"budget": 5, "blocks": [{"id": "A", "size": 0}], "required": []},
        {"budget": 5, "blocks": [{"id": "A", "size": 4.0}], "required": []},
        {"budget": 0, "blocks": [], "required": []},
        {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []},
    ):
        assert scaled_magnitudes(case, never) == case
    # No blocks: the budget alone is scaled.
    assert scaled_magnitudes({"budget": 10**9, "blocks": []}, lambda c: c["budget"] > 50) == {
        "budget": 60,
        "blocks": [],
    }
