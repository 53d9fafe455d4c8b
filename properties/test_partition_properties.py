"""The partition checker accepts exactly the reference's partition, and audits agree."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from packcheck import trace
from packcheck._jsonio import dumps
from packcheck._order import same_utf16
from packcheck._partition import BUCKETS, PartitionError, check_partition, partition_json
from packcheck.audit import check_run, record_step
from packcheck.strategies import cases

REPEATED = {
    "budget": 3,
    "blocks": [{"id": "A", "size": 4}, {"id": "A", "size": 1}, {"id": "A", "size": 3}],
    "required": ["A"],
}


def _same(left: dict[str, list[str]], right: dict[str, list[str]]) -> bool:
    return all(
        [same_utf16(i) for i in left[n]] == [same_utf16(i) for i in right[n]] for n in BUCKETS
    )


@example(REPEATED, 0)
@given(cases(), st.integers(min_value=0))
def test_any_change_to_the_partition_is_caught_and_nothing_else(
    case: dict[str, Any], pick: int
) -> None:
    right = partition_json(trace(case).partition)
    check_partition(case, right)
    entries = [(name, index) for name in BUCKETS for index in range(len(right[name]))]
    if not entries:
        return
    name, index = entries[pick % len(entries)]
    other = BUCKETS[(BUCKETS.index(name) + 1 + pick % 2) % 3]
    wrong = {n: list(ids) for n, ids in right.items()}
    block_id = wrong[name][index]
    # Move one entry to another list, or drop it, or repeat it, by ``pick``.
    kind = pick % 3
    if kind == 0:
        del wrong[name][index]
        wrong[other].insert(min(index, len(wrong[other])), block_id)
    elif kind == 1:
        del wrong[name][index]
    else:
        wrong[name].insert(index, block_id)
    if _same(wrong, right):
        check_partition(case, wrong)
        return
    with pytest.raises(PartitionError):
        check_partition(case, wrong)


@given(cases(max_units=2**70))
def test_a_recorded_step_audits_clean_and_survives_the_round_trip(case: dict[str, Any]) -> None:
    line = dumps(record_step(case))
    report = check_run([line, line.encode()])
    assert report.violations == ()
    assert report.summary.correct == 2
