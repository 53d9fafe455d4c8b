"""pytest-benchmark suite of what ``pack`` writes per case: the declared output, the run
record (``--record``) and the trace (``--trace``).

1,000 cases of 5-40 blocks from ``make_big_inputs.py`` (its fixed seed), read as
``pack`` reads them.  The record is written from the kernel's kept mask, the trace of
each of these (plain) cases by one loop over its blocks (docs/performance.md, "Traces
and records"); beside them, the same lines written
by the walk per block of :func:`packcheck.trace`, as before.  Under the project's
``--benchmark-disable`` (CI) each runs once as a plain test, and every line is
checked against the walk's.  Whole-process figures: ``packcheck pack`` on the file,
as docs/performance.md shows.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from make_big_inputs import SEED, case_lines

from packcheck import pack, trace
from packcheck._partition.facts import partition_json
from packcheck._partition.trace_text import trace_json
from packcheck._rule.jsonio import loads, write_json
from packcheck.audit import record_step

CASES = 1_000


@cache
def _cases() -> list[dict[str, Any]]:
    return [loads(line) for line in case_lines(CASES, blocks=5, most=40)]


def _walked_record(case: dict[str, Any]) -> str:
    walked = trace(case)
    return write_json(
        {**case, "partition": partition_json(walked.partition), "result": walked.result}
    )


def _walked_trace(case: dict[str, Any]) -> str:
    return write_json(trace(case).to_json())


WRITERS: dict[str, Callable[[dict[str, Any]], str]] = {
    "pack": lambda case: write_json(pack(case)),
    "record": lambda case: write_json(record_step(case)),
    "trace": lambda case: "".join(trace_json(case)),
    "record, walked": _walked_record,
    "trace, walked": _walked_trace,
}
# What each writer's lines must equal: the walk per block's, or pack's own.
CHECKED_BY = {
    "pack": "pack",
    "record": "record, walked",
    "trace": "trace, walked",
    "record, walked": "record, walked",
    "trace, walked": "trace, walked",
}


def _lines(write: Callable[[dict[str, Any]], str], cases: list[dict[str, Any]]) -> list[str]:
    return [write(case) for case in cases]


@pytest.mark.parametrize("writer", list(WRITERS))
def test_write_each_case(benchmark: Any, writer: str) -> None:
    cases = _cases()
    benchmark.group = f"pack: {CASES:,} cases of 5-40 blocks"
    blocks = sum(len(case["blocks"]) for case in cases)
    benchmark.extra_info.update(cases=CASES, blocks=blocks, seed=SEED, writer=writer)
    lines = benchmark(_lines, WRITERS[writer], cases)
    assert lines == _lines(WRITERS[CHECKED_BY[writer]], cases)
