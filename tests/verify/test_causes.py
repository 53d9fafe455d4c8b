"""``packcheck.verify._causes``: named causes of a wrong answer, and blame by kept position."""

from __future__ import annotations

from decimal import Decimal
from types import MappingProxyType
from typing import Any

import pytest
from named_causes import named_causes
from packers import broken

from packcheck import pack
from packcheck.verify._causes import CAUSES, LENIENT, agrees, departure, departure_index


def _case(
    budget: object, sizes: list[object], required: list[str], ids: str = ""
) -> dict[str, Any]:
    names = ids or "ABCDEFGH"[: len(sizes)]
    return {
        "budget": budget,
        "blocks": [{"id": name, "size": size} for name, size in zip(names, sizes, strict=True)],
        "required": required,
    }


def _loose(block_id: str, wanted: str) -> dict[str, Any]:
    return {"budget": 1, "blocks": [{"id": block_id, "size": 1}], "required": [wanted]}


STOPS = 'on_misfit = "stop" (declared "skip")'
LESS = 'fit = "lt" (declared "le")'
DOUBLES = "arithmetic in doubles (precision past 2**53)"
WRAP = "int64 wrap-around (sums past 2**63)"
PREFIX = "int64 prefix sums wrapping (sums past 2**63)"
CODEPOINTS = "missing sorted by code points (Python's sorted), not UTF-16"
UNSORTED = "missing not sorted (required order)"
DEDUP = "missing deduplicated (repeats in required dropped)"
KEPT_DEDUP = "kept IDs deduplicated in the output"
ONCE = 'dedup = "kept" (declared "none")'
ANY_SKIPPED = "an ID counted missing when any block of it was skipped"
LOOSE = "IDs compared loosely (case, spaces or Unicode normalisation)"
TRUE = "true read as the unit 1 (a bool is never a unit)"
STRINGS = "numeric strings read as numbers ('4' is not a unit)"
ZERO = "a size of 0 accepted (sizes must be >= 1)"
SPENT = "sizes not checked once the budget is spent"
AT_ZERO = "sizes not checked when the budget is 0"

# (broken packer, a small case that shows its bug, the cause it must be named by)
SHOWN = [
    ("stop_at_first_misfit", _case(3, [4, 2], ["B"]), STOPS),
    ("less_than", _case(3, [3], []), LESS),
    ("float_arithmetic", _case(2**53 + 1, [1, 2**53], []), DOUBLES),
    ("int64_wrap", _case(2**63 + 5, [1], []), WRAP),
    ("python_sorted_missing", _case(0, [], ["\uff00", "\U0001f600"]), CODEPOINTS),
    ("missing_dedup", _case(0, [], ["Z", "Z"]), DEDUP),
    ("kept_dedup", _case(2, [1, 1], [], ids="AA"), KEPT_DEDUP),
    ("skip_repeated_ids", _case(2, [1, 1], [], ids="AA"), ONCE),
    ("casefold_ids", _loose("a", "A"), LOOSE),
    ("lower_ids", _loose("a", "A"), LOOSE),
    ("stripped_ids", _loose(" A", "A"), LOOSE),
    ("nfc_ids", _loose("e\u0301", "\u00e9"), LOOSE),
    ("true_is_one", _case(True, [1], ["A"]), TRUE),
    ("digit_string_units", _case("4", [1], []), STRINGS),
    ("skip_validation_when_exhausted", _case(0, [2.5], ["A"]), SPENT),
]


def test_the_causes_and_readings_are_the_ones_these_tests_name() -> None:
    # Early stops, "<", once per ID and the order of missing are the vocabulary's or
    # on top of the declared rule, not in this list.
    assert [name for name, _ in CAUSES] == [
        DOUBLES,
        WRAP,
        PREFIX,
        DEDUP,
        KEPT_DEDUP,
        ANY_SKIPPED,
        LOOSE,
    ]
    assert [name for name, _ in LENIENT] == [TRUE, STRINGS, ZERO, SPENT, AT_ZERO]


@pytest.mark.parametrize(("packer", "case", "cause"), SHOWN, ids=[s[0] for s in SHOWN])
def test_each_broken_packer_is_named_by_its_cause(
    packer: str, case: dict[str, Any], cause: str
) -> None:
    expected = pack(case)
    answer = getattr(broken, packer)(case)
    assert answer != expected
    assert cause in named_causes(case, answer, expected)
    # The rule's own answer on the same case agrees with no wrong variant.
    assert named_causes(case, broken.correct(case), expected) == []


def test_hand_made_answers_are_named_by_the_other_causes() -> None:
    # int64 prefix sums: 2**62 + 2**62 wraps to -2**63, which "fits" what is left.
    case = _case(2**63 - 1, [2**62, 2**62, 1], [])
    wrapped = {"kept": ["A", "B", "C"], "remaining": -2, "missing": []}
    assert named_causes(case, wrapped, pack(case))[0] == PREFIX
    case = _case(0, [], ["\U0001f600", "\uff00", "B"])
    unsorted = {"kept": [], "remaining": 0, "missing": ["\U0001f600", "\uff00", "B"]}
    assert named_causes(case, unsorted, pack(case))[0] == UNSORTED
    case = _case(1, [1, 5], ["A"], ids="AA")
    any_skipped = {"kept": ["A"], "remaining": 0, "missing": ["A"]}
    assert named_causes(case, any_skipped, pack(case)) == [ANY_SKIPPED]
    case = _case(3, [0, 1], [])
    assert named_causes(case, {"kept": ["A", "B"], "remaining": 2, "missing": []}, pack(case)) == [
        ZERO
    ]


def test_a_variant_that_equals_the_expected_output_is_never_named() -> None:
    # Every block fits and nothing is missing: most variants give the rule's output.
    case = _case(10, [1, 2, 3], [])
    expected = pack(case)
    assert named_causes(case, expected, expected) == []
    # The answer agrees with "stops early" only where stopping changes nothing.
    assert STOPS not in named_causes(case, {**expected, "remaining": 5}, expected)


def test_an_answer_wrong_only_in_its_types_or_unlike_every_variant_has_no_cause() -> None:
    case = _case(2, [1, 1], ["C"])
    expected = pack(case)
    assert named_causes(case, broken.zero_remaining_as_float(case), expected) == []
    assert named_causes(case, {**expected, "kept": ["Q"]}, expected) == []
    # "<" for "<=" keeps nothing here and leaves 3: only the number 3 is that answer.
    case = _case(3, [3], [])
    expected = pack(case)
    assert named_causes(case, {"kept": [], "remaining": 3, "missing": []}, expected)[0] == LESS
    for remaining in (True, float("nan"), float("inf"), "3", None):
        answer = {"kept": [], "remaining": remaining, "missing": []}
        assert named_causes(case, answer, expected) == [], remaining


def test_numbers_are_compared_by_value_and_a_partition_is_ignored() -> None:
    case = _case(3, [3], [])
    expected = pack(case)
    for remaining in (3, 3.0, Decimal("3.0")):
        answer = {"kept": [], "remaining": remaining, "missing": [], "partition": None}
        assert named_causes(case, answer, expected)[0] == LESS
    # Lists of other things than strings are compared entry by entry, by value.
    assert agrees({"kept": [1, "A"]}, {"kept": [1.0, "A"]})
    assert not agrees({"kept": [True]}, {"kept": [1]})
    # A surrogate pair is the same ID as its character.
    case = _case(0, [], ["\uff00", "\U0001f600"])
    answer = {"kept": [], "remaining": 0, "missing": ["\uff00", "\ud83d\ude00"]}
    assert named_causes(case, answer, pack(case))[:2] == [CODEPOINTS, UNSORTED]


def test_answers_not_shaped_like_the_declared_output_get_no_cause() -> None:
    case = _case(3, [4, 2], ["B"])
    expected = pack(case)
    stopped = broken.stop_at_first_misfit(case)
    assert named_causes(case, stopped, expected)[0] == STOPS
    assert named_causes(case, [stopped], expected) == []
    assert named_causes(case, {**stopped, "engine": "x"}, expected) == []
    assert named_causes(case, {"error": "size"}, expected) == []
    assert named_causes(case, stopped, None) == []
    assert named_causes({"blocks": 3}, stopped, expected) == []


def test_a_size_error_is_named_only_by_a_lenient_reading_that_gives_the_answer() -> None:
    case = _case(True, [1], ["A"])
    expected = pack(case)
    assert named_causes(case, broken.true_is_one(case), expected) == [TRUE]
    assert named_causes(case, {"kept": [], "remaining": 1, "missing": ["A"]}, expected) == []
    # A reading that still finds an invalid unit names nothing.
    for budget in ("x", "2.5", "Infinity", -1, None):
        case = _case(budget, [1], [])
        assert named_causes(case, {"kept": [], "remaining": 0, "missing": []}, pack(case)) == []
    # Sizes checked only while budget is left: an invalid size with room left counts.
    case = _case(5, [None, 1], [])
    assert named_causes(case, {"kept": ["B"], "remaining": 4, "missing": []}, pack(case)) == []
    case = _case(1, [1, 3, None], [])
    answer = {"kept": ["A"], "remaining": 0, "missing": []}
    assert named_causes(case, answer, pack(case)) == [SPENT]
    # A case that is a mapping but not a dict is read, never replayed leniently.
    proxy = MappingProxyType({"budget": True, "blocks": [], "required": []})
    assert named_causes(proxy, {"kept": [], "remaining": 1, "missing": []}, {"error": "size"}) == []


def test_departure_blames_by_position_with_repeated_ids() -> None:
    case = _case(12, [1] * 1000, [], ids="A" * 1000)
    answer = {"kept": ["A", "A"], "remaining": 10, "missing": []}
    assert departure(case, answer) == (
        'kept[2]: the rule keeps blocks[2] (id "A", size 1, 10 left before it); '
        "the answer ends after 2 entries"
    )
    assert departure_index(case, answer) == 2
    one = {"kept": ["A"], "remaining": 11, "missing": []}
    assert departure(case, one) == (
        'kept[1]: the rule keeps blocks[1] (id "A", size 1, 11 left before it); '
        "the answer ends after 1 entry"
    )


def test_departure_names_the_entry_that_differs_or_goes_on() -> None:
    case = _case(3, [4, 2, 1], [])
    assert departure(case, {"kept": ["B", 7]}) == (
        'kept[1]: the rule keeps blocks[2] (id "C", size 1, 1 left before it); the answer has 7'
    )
    # The answer keeps A, which the rule skips: the departure is at A, not at B.
    assert departure(case, {"kept": ["A"]}) == (
        'kept[0]: the answer keeps blocks[0] (id "A", size 4, 3 left before it), '
        "which the rule skips"
    )
    assert departure_index(case, {"kept": ["A"]}) == 0
    assert departure(case, {"kept": ["D"]}) == (
        'kept[0]: the rule keeps blocks[1] (id "B", size 2, 3 left before it); the answer has "D"'
    )
    # Past the rule's last kept block too: the answer goes on with a skipped block.
    late = _case(3, [2, 1, 5], [])
    assert departure(late, {"kept": ["A", "B", "C"]}) == (
        'kept[2]: the answer keeps blocks[2] (id "C", size 5, 0 left before it), '
        "which the rule skips"
    )
    assert departure_index(late, {"kept": ["A", "B", "C"]}) == 2
    assert departure(case, {"kept": ["B", "C", "C"]}) == (
        'kept[2]: the rule keeps 2 block(s); the answer goes on with "C"'
    )
    assert departure_index(case, {"kept": ["B", "C", "C"]}) is None
    assert departure(case, {"kept": ["B", "\ud83d\ude00"]}) == (
        'kept[1]: the rule keeps blocks[2] (id "C", size 1, 1 left before it); '
        'the answer has "\\ud83d\\ude00"'
    )


def test_departure_is_none_where_there_is_nothing_to_blame() -> None:
    case = _case(3, [4, 2, 1], [])
    assert departure(case, pack(case)) is None
    assert departure(case, ["B", "C"]) is None
    assert departure(case, {"kept": "BC"}) is None
    assert departure(case, {"error": "size"}) is None
    assert departure(_case(3, [0], []), {"kept": ["A"]}) is None
    assert departure({"budget": 3, "blocks": [{"size": 1}], "required": []}, {"kept": []}) is None
    assert departure_index(case, pack(case)) is None
    # The check can fail: a wrong kept list is blamed.
    assert departure(case, {"kept": ["C"]}) is not None
