"""The invariant checker, checked by feeding it wrong answers (one per invariant)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from cases import DISTRACTOR

from packcheck import pack, trace
from packcheck._partition.invariants import InvariantError, check_output, check_trace

SKIP = {
    "budget": 3,
    "blocks": [{"id": "A", "size": 4}, {"id": "C", "size": 2}, {"id": "D", "size": 2}],
    "required": ["C", "D", "E", "\uff00", "\U0001f600", "D"],
}
BAD = {"budget": 3, "blocks": [{"id": "C", "size": -1}], "required": ["C"]}


def _raises(case: Any, output: Any, invariant: str) -> InvariantError:
    with pytest.raises(InvariantError) as info:
        check_output(case, output)
    assert info.value.invariant.startswith(invariant), str(info.value)
    return info.value


@pytest.mark.parametrize("case", [DISTRACTOR, SKIP, BAD])
def test_the_declared_output_passes(case: dict[str, Any]) -> None:
    check_output(case, pack(case))
    check_trace(case, trace(case))


@pytest.mark.parametrize(
    "output",
    [
        {"kept": [], "remaining": 3, "missing": ["C"]},
        {"error": "size", "detail": "x"},
        {"error": "input"},
        ["error", "size"],
    ],
)
def test_a_size_error_case_must_answer_exactly_the_size_error(output: Any) -> None:
    error = _raises(BAD, output, "size error")
    assert "blocks[0].size" in error.detail


@pytest.mark.parametrize(
    ("output", "invariant", "where"),
    [
        ([], "shape", "list"),
        (object(), "shape", "expected a JSON object (a dict), got a Python object"),
        ({"kept": ["A", "B"], "remaining": 0}, "keys", "absent keys ['missing']"),
        ({"kept": ["A", "B"], "remaining": 0, "missing": ["C"], "x": 1}, "keys", "['x']"),
        ({"kept": ("A", "B"), "remaining": 0, "missing": ["C"]}, "types", "kept is tuple"),
        ({"kept": ["A", "B"], "remaining": 0, "missing": [1]}, "types", "missing[0] is int"),
        ({"kept": ["A", "B"], "remaining": 0.0, "missing": ["C"]}, "types", "remaining is float"),
        ({"kept": ["A", "B"], "remaining": False, "missing": ["C"]}, "types", "remaining is bool"),
        (
            {"kept": ["A", "B"], "remaining": np.int64(0), "missing": ["C"]},
            "types",
            "numpy.int64",
        ),
        ({"kept": ["A", "B", "C"], "remaining": -2, "missing": []}, "remaining >= 0", "-2"),
        ({"kept": ["A"], "remaining": 3, "missing": ["B", "C"]}, "every skip is forced", "[1]"),
        ({"kept": ["B", "A"], "remaining": 0, "missing": ["C"]}, "kept blocks in scan order", ""),
        ({"kept": ["A", "B", "Z"], "remaining": 0, "missing": ["C"]}, "kept blocks in scan", "Z"),
        (
            {"kept": ["A", "B"], "remaining": 1, "missing": ["C"]},
            "sum(kept sizes)",
            "kept sizes 7 = 0",
        ),
        ({"kept": ["A", "B"], "remaining": 0, "missing": []}, "missing == required - kept", ""),
    ],
)
def test_each_wrong_output_names_its_invariant(output: Any, invariant: str, where: str) -> None:
    error = _raises(DISTRACTOR, output, invariant)
    assert where in error.detail


def test_missing_must_be_in_utf16_order_not_python_order() -> None:
    right = pack(SKIP)
    assert right["missing"] == ["D", "D", "E", "\U0001f600", "\uff00"]
    wrong = {**right, "missing": sorted(right["missing"])}
    _raises(SKIP, wrong, "missing in UTF-16 order")


def test_missing_keeps_repeated_required_entries() -> None:
    wrong = {**pack(SKIP), "missing": ["D", "E", "\U0001f600", "\uff00"]}
    _raises(SKIP, wrong, "missing == required - kept")


def test_a_forced_skip_may_share_its_id_with_the_next_kept_block() -> None:
    case = {"budget": 2, "blocks": [{"id": "A", "size": 3}, {"id": "A", "size": 2}], "required": []}
    check_output(case, {"kept": ["A"], "remaining": 0, "missing": []})


def _broken_trace(case: dict[str, Any], **changes: Any) -> Any:
    return dataclasses.replace(trace(case), **changes)


def test_check_trace_rejects_a_wrong_step() -> None:
    good = trace(SKIP)
    steps = (good.steps[0], dataclasses.replace(good.steps[1], bucket="available"), good.steps[2])
    with pytest.raises(InvariantError, match="steps\\[1\\]"):
        check_trace(SKIP, _broken_trace(SKIP, steps=steps))
    with pytest.raises(InvariantError, match="2 steps for 3 blocks"):
        check_trace(SKIP, _broken_trace(SKIP, steps=good.steps[:2]))


def test_check_trace_rejects_a_wrong_partition_or_reason() -> None:
    good = trace(SKIP)
    partition = dataclasses.replace(good.partition, dropped=(), available=("A",))
    with pytest.raises(InvariantError, match="partition"):
        check_trace(SKIP, _broken_trace(SKIP, partition=partition))
    assert good.reasons == {
        "D": "evicted",
        "E": "not-retrieved",
        "\U0001f600": "not-retrieved",
        "\uff00": "not-retrieved",
    }
    reasons = {**good.reasons, "D": "oversized"}
    with pytest.raises(InvariantError, match="reasons"):
        check_trace(SKIP, _broken_trace(SKIP, reasons=reasons))


def test_an_oversized_reason_is_checked_too() -> None:
    case = {"budget": 1, "blocks": [{"id": "A", "size": 2}], "required": ["A"]}
    assert trace(case).reasons == {"A": "oversized"}
    check_trace(case, trace(case))


def test_check_trace_of_a_size_error_must_be_empty_and_name_the_field() -> None:
    with pytest.raises(InvariantError, match="must be empty"):
        check_trace(BAD, _broken_trace(BAD, steps=trace(DISTRACTOR).steps))
    with pytest.raises(InvariantError, match="names"):
        check_trace(BAD, _broken_trace(BAD, size_error="budget: nonsense"))


def test_a_packer_echoing_a_surrogate_pair_is_not_a_false_alarm() -> None:
    pair = "\ud800\udc00"
    case = {"budget": 1, "blocks": [{"id": pair, "size": 1}], "required": [pair]}
    check_output(case, {"kept": [pair], "remaining": 0, "missing": []})


def test_a_forced_skip_after_many_kept_blocks_shows_the_last_three() -> None:
    case = {"budget": 6, "blocks": [{"id": i, "size": 1} for i in "ABCDEF"], "required": []}
    with pytest.raises(InvariantError, match="every skip is forced") as raised:
        check_output(case, {"kept": ["A", "B", "C", "D", "E"], "remaining": 1, "missing": []})
    assert 'not kept (5 kept before it, the last ["C","D","E"])' in str(raised.value)
