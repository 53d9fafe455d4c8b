"""The partition checker, checked by feeding it wrong captures (one per fact)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from cases import DISTRACTOR, blocks
from packers import capture

from packcheck import pack, trace
from packcheck._partition.facts import (
    PartitionError,
    check_partition,
    partition_json,
    require_partition,
    without_partition,
)
from packcheck._partition.invariants import InvariantError, check_output, check_trace

# Every bucket, a repeated ID in two buckets, and a surrogate pair.
MIXED = {
    "budget": 5,
    "blocks": blocks(9, 3, 2, 4, 6, ids="ABA\U0001f600B"),
    "required": ["A", "\U0001f600"],
}
BAD = {"budget": 3, "blocks": [{"id": "C", "size": -1}], "required": ["C"]}
# The seed's integration scenario: 10 candidates, a budget admitting 6.
TEN = {
    "budget": 60,
    "blocks": [{"id": f"doc-{n}", "size": 10} for n in range(6)]
    + [
        {"id": "doc-6", "size": 5},
        {"id": "doc-7", "size": 70},
        {"id": "doc-8", "size": 8},
        {"id": "doc-9", "size": 100},
    ],
    "required": ["doc-0", "doc-6", "doc-7", "doc-9", "doc-10"],
}


def _lists(case: dict[str, Any]) -> dict[str, list[str]]:
    return partition_json(trace(case).partition)


def _broken(case: Any, partition: Any, check: str, *, kept: Any = None) -> PartitionError:
    with pytest.raises(PartitionError) as info:
        check_partition(case, partition, kept=kept)
    assert info.value.check == check, str(info.value)
    return info.value


@pytest.mark.parametrize("case", [DISTRACTOR, MIXED, BAD, TEN])
def test_the_reference_partition_passes(case: dict[str, Any]) -> None:
    check_partition(case, _lists(case), kept=pack(case).get("kept"))
    check_output(
        case, {**pack(case), "partition": _lists(case)} if "kept" in pack(case) else pack(case)
    )


def test_the_seed_scenario_packs_six_and_accounts_for_the_other_four() -> None:
    lists = _lists(TEN)
    assert len(lists["packed"]) == 6
    assert sorted(lists["available"] + lists["dropped"]) == ["doc-6", "doc-7", "doc-8", "doc-9"]
    assert lists["dropped"] == ["doc-7", "doc-9"]
    assert trace(TEN).reasons == {
        "doc-10": "not-retrieved",
        "doc-6": "evicted",
        "doc-7": "oversized",
        "doc-9": "oversized",
    }
    answer = capture.correct(TEN)
    check_output(TEN, answer)
    only_packed = capture.only_packed(TEN)
    with pytest.raises(PartitionError, match="merged by position") as info:
        check_output(TEN, only_packed)
    assert "blocks[6]" in info.value.detail


def test_a_surrogate_pair_and_its_character_are_one_id() -> None:
    lists = _lists(MIXED)
    lists["available"] = ["\ud83d\ude00" if i == "\U0001f600" else i for i in lists["available"]]
    check_partition(MIXED, lists)


@pytest.mark.parametrize(
    ("partition", "where"),
    [
        (["A", "B"], "got array"),
        ("packed", "got string"),
        ({"packed": [], "available": []}, "absent keys ['dropped']"),
        ({"packed": [], "available": [], "dropped": [], "evicted": []}, "extra keys ['evicted']"),
        ({"packed": ("A", "B"), "available": ["C"], "dropped": []}, "packed is tuple"),
        ({"packed": ["A", "B"], "available": [3], "dropped": []}, "available[0] is int"),
        ({"packed": ["A", "B"], "available": ["C"], "dropped": None}, "dropped is NoneType"),
    ],
)
def test_a_partition_of_the_wrong_shape_is_named(partition: Any, where: str) -> None:
    error = _broken(DISTRACTOR, partition, "shape")
    assert where in error.detail
    assert error.invariant == "partition: shape"


def test_null_is_no_partition() -> None:
    _broken(DISTRACTOR, None, "no-partition")


@pytest.mark.parametrize(
    ("kept", "where"),
    [
        (["A"], 'packed[1] is "B" but kept[1] is absent'),
        (["B", "A"], 'packed[0] is "A" but kept[0] is "B"'),
        (["A", "B", "C"], 'packed[2] is absent but kept[2] is "C"'),
    ],
)
def test_packed_must_be_exactly_the_answers_kept(kept: list[str], where: str) -> None:
    error = _broken(DISTRACTOR, _lists(DISTRACTOR), "packed-is-kept", kept=kept)
    assert where in error.detail


@pytest.mark.parametrize(
    ("change", "check", "where"),
    [
        # Only packed captured: the first skipped block is in no list.
        ({"available": []}, "merged-by-position", 'blocks[2] (id "C") is next in none'),
        # An entry that is no block.
        ({"dropped": ["Z"]}, "merged-by-position", 'dropped[0] = "Z" is left over'),
        # Out of scan order.
        ({"packed": ["B", "A"]}, "merged-by-position", 'blocks[0] (id "A")'),
        # Available and dropped swapped.
        ({"available": [], "dropped": ["C"]}, "bucket", "is in dropped, but belongs in available"),
        # A block that fits what is left, recorded as evicted.
        (
            {"packed": ["A"], "available": ["B", "C"]},
            "bucket",
            'blocks[1] (id "B", size 3) is in available, but belongs in packed: size 3 <= the 3',
        ),
    ],
)
def test_each_wrong_capture_names_its_fact_and_block(
    change: dict[str, list[str]], check: str, where: str
) -> None:
    error = _broken(DISTRACTOR, {**_lists(DISTRACTOR), **change}, check)
    assert where in error.detail, error.detail


def test_an_oversized_block_must_be_dropped_not_available() -> None:
    lists = _lists(MIXED)
    assert lists == {"packed": ["B", "A"], "available": ["\U0001f600"], "dropped": ["A", "B"]}
    wrong = {"packed": ["B", "A"], "available": ["A", "\U0001f600"], "dropped": ["B"]}
    error = _broken(MIXED, wrong, "bucket")
    assert (
        'blocks[0] (id "A", size 9) is in available, but belongs in dropped: size 9 > the budget 5'
        in error.detail
    )


def test_a_failure_shows_the_lists_beside_the_references() -> None:
    error = _broken(
        DISTRACTOR, {"packed": ["A", "B"], "available": [], "dropped": []}, "merged-by-position"
    )
    text = str(error)
    assert text.splitlines()[0] == f"{error.invariant}: {error.detail}"
    assert error.table == (
        "           captured   reference",
        'packed:    ["A","B"]  ["A","B"]',
        'available: []         ["C"]',
        "dropped:   []         []",
    )
    assert text.endswith(" " * 12 + "dropped:   []         []")


def test_a_size_error_case_captures_nothing() -> None:
    check_partition(BAD, {"packed": [], "available": [], "dropped": []})
    error = _broken(BAD, {"packed": [], "available": [], "dropped": ["C"]}, "size-error")
    assert "blocks[0].size" in error.detail


def test_check_output_checks_a_present_partition_and_never_calls_it_an_extra_key() -> None:
    right = pack(DISTRACTOR)
    check_output(DISTRACTOR, {**right, "partition": _lists(DISTRACTOR)})
    check_output(DISTRACTOR, {**right, "partition": None})  # none captured, not required
    with pytest.raises(PartitionError, match="partition: bucket"):
        check_output(
            DISTRACTOR,
            {**right, "partition": {**_lists(DISTRACTOR), "available": [], "dropped": ["C"]}},
        )
    with pytest.raises(InvariantError, match="extra keys \\['engine'\\]"):
        check_output(DISTRACTOR, {**right, "partition": None, "engine": "x"})


def test_an_error_answer_carries_no_partition() -> None:
    empty = {"packed": [], "available": [], "dropped": []}
    for partition in (empty, None):
        with pytest.raises(PartitionError) as info:
            check_output(BAD, {"error": "size", "partition": partition})
        assert info.value.check == "partition-on-error"
    with pytest.raises(InvariantError, match="size error"):
        check_output(BAD, {"error": "input", "partition": empty})


@pytest.mark.parametrize(
    ("answer", "absent"),
    [
        ({"kept": [], "remaining": 0, "missing": []}, "has no 'partition'"),
        ({"kept": [], "remaining": 0, "missing": [], "partition": None}, "'partition' is null"),
        ({"error": "size"}, None),
        (["not", "an", "object"], None),
        ({"kept": [], "remaining": 0, "missing": [], "partition": {}}, None),
    ],
)
def test_required_capture_means_present_and_not_null(answer: Any, absent: str | None) -> None:
    if absent is None:
        require_partition(answer)
        return
    with pytest.raises(PartitionError, match=absent) as info:
        require_partition(answer)
    assert info.value.check == "no-partition"


def test_without_partition_leaves_the_declared_output() -> None:
    answer = capture.correct(DISTRACTOR)
    assert without_partition(answer) == pack(DISTRACTOR)
    assert "partition" in answer
    assert without_partition(["x"]) == ["x"]


def test_units_past_4300_digits_are_shown_in_messages_not_a_value_error() -> None:
    big = 10**5000
    case = {
        "budget": big,
        "blocks": [{"id": "A", "size": big}, {"id": "B", "size": 1}],
        "required": [],
    }
    assert _lists(case) == {"packed": ["A"], "available": ["B"], "dropped": []}
    error = _broken(case, {"packed": ["A"], "available": [], "dropped": ["B"]}, "bucket")
    assert "size 1 > the 0 unit(s) remaining before it, and <= the budget 1000000" in error.detail
    error = _broken(case, {"packed": [], "available": ["A", "B"], "dropped": []}, "bucket")
    assert "is in available, but belongs in packed: size 10000" in error.detail
    with pytest.raises(InvariantError, match="every skip is forced"):
        check_output(case, {"kept": [], "remaining": big, "missing": []})
    with pytest.raises(InvariantError, match="sum\\(kept sizes\\)"):
        check_output(case, {"kept": ["A"], "remaining": big, "missing": []})
    good = trace(case)
    steps = (dataclasses.replace(good.steps[0], remaining_before=big + 1), good.steps[1])
    with pytest.raises(InvariantError, match="steps\\[0\\] is \\[0,"):
        check_trace(case, dataclasses.replace(good, steps=steps))
