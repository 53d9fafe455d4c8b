"""``pack --trace``'s text: the one loop over a plain case's blocks, and the path by the
kept mask that takes every other case, each written as the walk per block writes it."""

from __future__ import annotations

from typing import Any
from unittest import mock

import pytest

from packcheck import MalformedCase, trace
from packcheck._partition import trace_text
from packcheck._partition.trace_text import trace_json
from packcheck._rule.jsonio import write_json


def _walked(case: object) -> str:
    return write_json(trace(case).to_json())


def _plain(case: object) -> bool:
    """Whether the one loop traced ``case`` (the path by the mask was never taken)."""
    with mock.patch.object(trace_text, "read_case", side_effect=AssertionError("read")):
        try:
            "".join(trace_json(case))
        except AssertionError:
            return False
    return True


def _case(budget: Any, *blocks: Any, required: Any = ()) -> dict[str, Any]:
    return {"budget": budget, "blocks": list(blocks), "required": list(required)}


A4, B3, C2 = {"id": "A", "size": 4}, {"id": "B", "size": 3}, {"id": "C", "size": 2}


@pytest.mark.parametrize(
    "case",
    [
        _case(7, A4, B3, C2, required=["B", "C", "Z", "C"]),  # packed, available, absent
        _case(3, A4, C2, required=["A"]),  # A is larger than the budget: dropped
        _case(4, A4, {"id": "A", "size": 5}, required=["A"]),  # one ID, two buckets
        # B skipped at exactly the budget (available), C larger than it (dropped).
        _case(5, {"id": "A", "size": 1}, {"id": "B", "size": 5}, C2 | {"size": 6}, required="BC"),
        _case(0, required=[]),
        _case(5, {"id": "x", "size": 5, "text": "kept as read"}),  # other keys ignored
        {**_case(7, A4), "step": 3},  # a recording system's keys ignored
        _case(7, {"id": "caf\u00e9", "size": 1}),  # an escape: the exact writer
        _case(2**70, {"id": "A", "size": 2**69}),  # past int64: the exact integers
    ],
)
def test_a_plain_case_is_traced_in_one_loop_as_the_walk_traces_it(case: object) -> None:
    assert _plain(case)
    assert "".join(trace_json(case)) == _walked(case)


@pytest.mark.parametrize(
    "case",
    [
        _case(7, A4, {"id": "B", "size": 0}),  # a size below 1, kept: a size error
        _case(-1, A4),  # a budget below 0
        _case(7.0, A4),  # a unit that is not an int
        _case(7, {"id": "A", "size": 4.0}),
        _case(7, {"id": "A", "size": True}),
        _case(7, A4, required=["\ud800"]),  # a surrogate: not its own UTF-16 identity
        _case(7, {"id": "\ud800", "size": 8}),
        _case(7, {"id": "\ud800", "size": 4}, B3),
        _case(7, {"id": "A"}),  # no size: a size error
    ],
)
def test_any_other_case_is_traced_by_the_mask_as_the_walk_traces_it(case: object) -> None:
    assert not _plain(case)
    assert "".join(trace_json(case)) == _walked(case)


@pytest.mark.parametrize(
    "case",
    [
        ["not", "a", "case"],
        _case(7, "A"),
        _case(7, A4, 3),
        _case(7, {"id": 5, "size": 4}),
        _case(7, {"size": 4}),
        _case(7, A4, required=[1]),
        {"budget": 7, "blocks": [A4], "required": "A"},
        {"budget": 7, "blocks": [A4]},
        {"budget": 7, "required": []},
    ],
)
def test_a_malformed_case_raises_as_the_walk_raises(case: object) -> None:
    with pytest.raises(MalformedCase) as walked:
        _walked(case)
    with pytest.raises(MalformedCase) as written:
        trace_json(case)
    assert str(written.value) == str(walked.value)


@pytest.mark.parametrize("first", ["A", "caf\u00e9"])  # an escape: the exact writer
def test_a_case_of_more_blocks_than_are_written_at_once_is_written_in_pieces(first: str) -> None:
    case = _case(3, A4 | {"id": first}, B3, C2, A4, required=["C"])
    with mock.patch.object(trace_text, "STEPS_AT_ONCE", 3):
        pieces = list(trace_json(case))
        assert not _plain(case)
    assert len(pieces) == 4  # the result, two chunks of steps, the partition
    assert "".join(pieces) == _walked(case)
    with mock.patch.object(trace_text, "STEPS_AT_ONCE", 4):
        assert _plain(case)
