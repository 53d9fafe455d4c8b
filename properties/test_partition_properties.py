"""The partition checker accepts exactly the reference's partition, and audits agree."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_fuzz_cli import IDS, LINES, VALUES, _array, _object, case_texts, cli_io

from packcheck import trace
from packcheck._cli import main
from packcheck._partition.facts import (
    BUCKETS,
    PartitionError,
    check_partition,
    partition_json,
)
from packcheck._rule.jsonio import dumps, loads
from packcheck._rule.order import same_utf16
from packcheck.audit import CHECKS, check_run, record_step
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


IDS_TEXT = st.lists(IDS, max_size=3).map(_array)
PARTITIONS = VALUES | st.tuples(IDS_TEXT, IDS_TEXT, IDS_TEXT).map(
    lambda lists: _object(list(zip(['"packed"', '"available"', '"dropped"'], lists, strict=True)))
)


@st.composite
def step_texts(draw: st.DrawFn) -> bytes:
    """A case with a captured partition (of any shape) and sometimes a result."""
    text = draw(case_texts())
    extra = [('"partition"', draw(PARTITIONS))] if draw(st.integers(0, 9)) else []
    if draw(st.booleans()):
        extra.append(('"result"', draw(VALUES)))
    if not extra:
        return text.encode()
    joined = ",".join(f"{key}:{value}" for key, value in extra)
    return (text[:-1] + ("," if text != "{}" else "") + joined + "}").encode()


# An eighth of the profile's examples: each runs the whole command on big literals.
@settings(max_examples=max(25, settings.default.max_examples // 8))
@given(st.lists(step_texts() | LINES.map(b"\n".join), max_size=5).map(b"\n".join))
@example(b'{"budget":1,"blocks":[],"required":[],"partition":{"packed":[1]}}')
@example(b"\xff\n\n[]")
def test_audit_reads_any_bytes_in_one_line_messages(data: bytes) -> None:
    with cli_io(data) as (out, err):
        status = main(["audit", "--json", "-"])
    assert status in (0, 1, 2)
    for line in err.getvalue().splitlines():
        assert line.startswith("packcheck audit: ")
    objects = [loads(text) for text in out.getvalue().splitlines()]
    if not objects:
        assert status == 2  # no steps at all
        return
    *violations, summary = objects
    numbers = len(data.split(b"\n"))
    assert all(1 <= v["line"] <= numbers and v["check"] in CHECKS for v in violations)
    assert summary["violations"] + summary["malformed"] == len(violations)
    assert status == (2 if summary["malformed"] else 1 if summary["violations"] else 0)
