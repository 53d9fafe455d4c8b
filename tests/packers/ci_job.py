"""Packers for tests/test_ci_job.py: a run as a CI job lives it.

Each call appends a line (``what pid``) to the file ``$PACKCHECK_TEST_MARKS``, so the
test knows which phase the run has reached and which worker processes it started.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any

from packcheck import pack

#: More blocks than a generated case has: a long list.
_SHORT = 12


def _mark(what: str) -> None:
    with open(os.environ["PACKCHECK_TEST_MARKS"], "a", encoding="utf-8") as marks:
        marks.write(f"{what} {os.getpid()}\n")


def _blocks(case: dict[str, Any]) -> int:
    blocks = case.get("blocks")
    return len(blocks) if isinstance(blocks, list) else 0


def slow(case: dict[str, Any]) -> Any:
    """Right, 20 ms a case; a long list hangs."""
    if _blocks(case) > _SHORT:
        _mark("long")
        time.sleep(3600)
    _mark("case")
    time.sleep(0.02)
    return pack(case)


def hangs_on_long(case: dict[str, Any]) -> Any:
    """Right, at once; a long list hangs (the phases before it pass in seconds)."""
    if _blocks(case) > _SHORT:
        _mark("long")
        time.sleep(3600)
    _mark("case")
    return pack(case)


def fails_slowly(case: dict[str, Any]) -> Any:
    """Wrong on every case of four blocks or more (no seed fixture has that many),
    200 ms a wrong answer: shrinking takes a while."""
    if _blocks(case) < 4:
        return pack(case)
    _mark("fail")
    time.sleep(0.2)
    return {**pack(case), "missing": ["wrong"]}


def huge_remaining(case: dict[str, Any]) -> Any:
    """An answer whose ``remaining`` has 100,001 digits."""
    return {**pack(case), "remaining": 10**100_000}


def terminates_itself(case: dict[str, Any]) -> Any:
    """Right, but sends its own process SIGTERM on a case of five blocks or more (a
    generated one: no seed fixture has that many); for a run in-process."""
    if _blocks(case) >= 5:
        os.kill(os.getpid(), signal.SIGTERM)
    return pack(case)
