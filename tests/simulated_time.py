"""Simulated time for the benchmark tests: one fake clock in place of every clock bench
reads, so that a verdict is checked on costs the test chose, not on the machine's."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import pytest

from packcheck._bench import _timing

C = TypeVar("C", bound=Callable[[], float])


class Clock:
    """Simulated time: it moves only when a packer or a kernel works (``now += ...``)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def simulate(monkeypatch: pytest.MonkeyPatch, clock: C) -> C:
    """``clock`` as each of bench's named clocks and as its wall clock, for one test."""
    for name in _timing.CLOCKS:
        monkeypatch.setitem(_timing.CLOCKS, name, clock)
    monkeypatch.setattr(_timing, "_wall", clock)
    return clock
