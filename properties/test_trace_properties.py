"""The trace: steps and partition cover the blocks in order, reasons are right."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given

from packcheck import pack, trace
from packcheck._partition.invariants import check_trace
from packcheck.strategies import cases

REPEATED = {
    "budget": 3,
    "blocks": [{"id": "A", "size": 4}, {"id": "B", "size": 3}, {"id": "A", "size": 1}],
    "required": ["A", "B", "C"],
}


@example(REPEATED)
@given(cases())
def test_the_trace_partitions_the_blocks_in_order_with_the_right_reasons(
    case: dict[str, Any],
) -> None:
    check_trace(case, trace(case))


@given(cases(max_units=2**70))
def test_the_numpy_trace_is_the_reference_trace(case: dict[str, Any]) -> None:
    assert trace(case, engine="numpy") == trace(case)


@given(cases(allow_invalid=False))
def test_merging_the_buckets_by_position_gives_the_blocks(case: dict[str, Any]) -> None:
    steps = trace(case).steps
    assert [s.id for s in steps] == [b["id"] for b in case["blocks"]]
    kept = [s.id for s in steps if s.bucket == "packed"]
    assert kept == pack(case)["kept"]
