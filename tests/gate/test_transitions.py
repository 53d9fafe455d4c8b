"""The transition-point search of the gate (packcheck._gate.transitions), on functions and
packers whose transitions are known."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import pytest
from packers import message_overhead

from packcheck import Rule
from packcheck._engines.pack import pack
from packcheck._gate.transitions import candidates, case_candidates, shape, transitions

CASE = {
    "budget": 10,
    "blocks": [{"id": "A", "size": 4}, {"id": "B", "size": 3}, {"id": "C", "size": 5}],
    "required": ["C"],
}


def _budget(packer: Callable[[dict[str, Any]], object]) -> Callable[[int], Hashable]:
    def answer_at(budget: int) -> Hashable:
        try:
            return shape(packer({**CASE, "budget": budget}))
        except ValueError:
            return "raised ValueError"

    return answer_at


def _all_points(answer_at: Callable[[int], Hashable], low: int, high: int) -> list[int]:
    return [t for t in range(low + 1, high + 1) if answer_at(t - 1) != answer_at(t)]


def _check(found: list[int], answer_at: Callable[[int], Hashable], expected: list[int]) -> None:
    """Every point found is a transition, and they are the expected ones."""
    for point in found:
        assert answer_at(point - 1) != answer_at(point), f"{point} is no transition"
    assert found == expected


def test_the_reference_transitions_are_where_a_block_starts_to_fit() -> None:
    # Kept by budget: [] up to 2, [B] at 3, [A] 4-6, [A, B] 7-11, [A, B, C] from 12.
    answer_at = _budget(pack)
    assert _all_points(answer_at, 0, 100) == [3, 4, 7, 12]
    _check(transitions(answer_at, 10, 0, 100, per_side=4), answer_at, [3, 4, 7, 12])
    _check(transitions(answer_at, 10, 0, 2**53), answer_at, [4, 7, 12])


def test_a_wrong_answer_fails_the_check() -> None:
    answer_at = _budget(pack)
    with pytest.raises(AssertionError, match="no transition"):
        _check([11], answer_at, [11])
    with pytest.raises(AssertionError):
        _check(transitions(answer_at, 10, 0, 100), answer_at, [4, 7, 13])


def test_a_per_item_cost_moves_the_points() -> None:
    # Newest first at 7 tokens a message: C costs 12, B 10, A 11 (stop at a misfit).
    answer_at = _budget(message_overhead.pack)
    _check(transitions(answer_at, 5, 0, 2**53, per_side=3), answer_at, [12, 22, 33])
    # The `>=` regression differs from the packer exactly at the points, not beside them.
    for budget in candidates([12, 22, 33], 0, 2**53):
        case = {**CASE, "budget": budget}
        same = message_overhead.pack_ge(case) == message_overhead.pack(case)
        assert same is (budget not in (12, 22, 33))


def test_a_packer_that_raises_above_a_threshold() -> None:
    def packer(case: dict[str, Any]) -> object:
        if case["budget"] > 1000:
            raise ValueError("budget too large")
        return pack(case)

    answer_at = _budget(packer)
    _check(transitions(answer_at, 500, 0, 2**53), answer_at, [7, 12, 1001])


def test_where_the_answer_is_not_monotonic_each_point_found_is_a_transition() -> None:
    def answer_at(value: int) -> Hashable:
        return value % 10 < 5

    found = transitions(answer_at, 2, 0, 1000, per_side=3)
    _check(found, answer_at, [5, 10, 15])
    assert transitions(answer_at, 502, 0, 1000, per_side=1) == [500, 505]


def test_calls_are_bounded_per_side() -> None:
    asked: list[int] = []

    def answer_at(value: int) -> Hashable:
        asked.append(value)
        return value >= 3000

    assert transitions(answer_at, 0, 0, 2**20, per_side=1) == [3000]
    # The start, 13 galloping steps (1 .. 4096) and 11 bisecting ones: 2 * ceil(log2(3000)) + 1.
    assert len(asked) == len(set(asked)) <= 2 * 12 + 1
    asked.clear()
    assert transitions(answer_at, 0, 0, 2**20, calls=5) == []
    assert len(asked) == 5


def test_no_point_where_the_answer_never_changes() -> None:
    assert transitions(lambda value: "same", 7, 0, 2**53) == []
    assert transitions(lambda value: value > 0, 0, 0, 0) == []
    with pytest.raises(ValueError, match="outside"):
        transitions(lambda value: value, 11, 0, 10)


def test_candidates_are_each_point_and_its_neighbours_in_range() -> None:
    assert candidates([1, 12, 13], 1, 13) == [1, 2, 11, 12, 13]
    assert candidates([], 0, 5) == []


def test_shape_blanks_numbers_only() -> None:
    assert shape({"kept": ["A"], "remaining": 3}) == shape({"remaining": 7, "kept": ["A"]})
    assert shape({"kept": ["A"], "remaining": 3}) != shape({"kept": ["B"], "remaining": 3})
    assert shape([True, None, 2.5, "x"]) == (True, None, "#", "x")
    assert shape(True) != shape(1)
    assert shape({1, 2}) == repr({1, 2})


def test_case_candidates_reach_the_exact_fit_a_regression_changes() -> None:
    case = {**CASE, "budget": 30}

    def answer(candidate: dict[str, Any]) -> Hashable:
        return shape(message_overhead.pack(candidate))

    found = case_candidates(answer, case, max_units=2**53, calls=64)
    assert case not in found
    assert message_overhead.pack_ge(case) == message_overhead.pack(case)
    assert any(message_overhead.pack_ge(c) != message_overhead.pack(c) for c in found)
    budgets = sorted(c["budget"] for c in found if c["blocks"] == case["blocks"])
    assert budgets == [11, 12, 13, 21, 22, 23, 32, 33, 34]
    # Along C's size: A fits up to 2 (an exact fit: (2 + 7) + (3 + 7) + (4 + 7) = 30),
    # B up to 13, C itself up to 23.
    walked = [c for c in found if c["budget"] == 30 and c["blocks"][:2] == case["blocks"][:2]]
    sizes = sorted(c["blocks"][2]["size"] for c in walked)
    assert sizes == [2, 3, 4, 13, 14, 15, 23, 24, 25]
    # Walking C's size alone (and the budget): no candidate changes A's or B's.
    only_c = case_candidates(answer, case, max_units=2**53, calls=64, sizes=(2,))
    assert all(c["blocks"][:2] == case["blocks"][:2] for c in only_c)
    assert sorted(c["blocks"][2]["size"] for c in only_c if c["budget"] == 30) == sizes
    assert case_candidates(answer, case, max_units=2**53, calls=64, sizes=()) == [
        c for c in only_c if c["blocks"] == case["blocks"]
    ]
    # At 8 calls a side, the nearest point each way is found, the second one down is not.
    nearest = case_candidates(answer, case, max_units=2**53, calls=8)
    budgets = sorted(c["budget"] for c in nearest if c["blocks"] == case["blocks"])
    assert budgets == [21, 22, 23, 32, 33, 34]


def test_case_candidates_walk_integer_units_within_range_only() -> None:
    case = {
        "budget": 2.5,
        "blocks": [{"id": "A", "size": True}, {"id": "B", "size": 2**60}, "not a block"],
        "required": [],
    }
    assert case_candidates(lambda c: shape(pack(c)), case, max_units=2**53) == []
    assert case_candidates(lambda c: 0, {"budget": 1, "blocks": None}, max_units=9) == []


def test_case_candidates_walk_the_length_from_no_block_when_asked() -> None:
    # A rule that refuses an empty list: its answer ends at one block, which no unit
    # of the case moves.
    refuses_empty = Rule(refuse_empty=True)
    blocks = [{"id": "A", "size": 2}, {"id": "B", "size": 1}, {"id": "C", "size": 5}]
    case = {"budget": 4, "blocks": blocks, "required": []}

    def answer(candidate: dict[str, Any]) -> Hashable:
        return shape(pack(candidate, rule=refuses_empty))

    assert not any(c["blocks"] == [] for c in case_candidates(answer, case, max_units=99))
    found = case_candidates(answer, case, max_units=99, length=True)
    # Points at 1 (the refusal ends) and 2 (B kept): each and a block either side, the
    # case itself (3 blocks) left out.
    cut = [c["blocks"] for c in found if len(c["blocks"]) < 3]
    assert cut == [[], blocks[:1], blocks[:2]]
    assert all(c["budget"] == 4 for c in found if len(c["blocks"]) < 3)
