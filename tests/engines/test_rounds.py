"""The level kernel's one round guard: a loop past its bound raises instead of running on."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from packcheck import scan
from packcheck._engines.rounds import KernelError, bounded


def _spin(rounds: Iterator[int], seen: list[int]) -> None:
    """A loop that never ends but for its guard."""
    while True:
        seen.append(next(rounds))


def test_a_loop_that_never_ends_raises_on_the_round_past_its_bound() -> None:
    seen: list[int] = []
    with pytest.raises(KernelError, match=r"^spin: more than 5 rounds$"):
        _spin(bounded("spin", 5), seen)
    assert seen == [1, 2, 3, 4, 5]


def test_a_loop_within_its_bound_gets_each_round_numbered() -> None:
    rounds = bounded("short", 3)
    assert [next(rounds) for _ in range(3)] == [1, 2, 3]


def test_a_bound_of_zero_refuses_the_first_round() -> None:
    with pytest.raises(KernelError, match=r"^none: more than 0 rounds$"):
        next(bounded("none", 0))


def test_the_error_is_the_public_one_and_a_runtime_error() -> None:
    assert scan.KernelError is KernelError
    assert issubclass(KernelError, RuntimeError)
