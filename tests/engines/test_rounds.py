"""The level kernel's one round guard: a loop past its bound raises instead of running on."""

from __future__ import annotations

import pytest

from packcheck import scan
from packcheck._engines.rounds import KernelError, next_round


def _spin(bound: int, seen: list[int]) -> None:
    """A loop that never ends but for its guard (and, should the guard fail, the test's
    own stop at 1,000 rounds)."""
    rounds = 0
    while len(seen) < 1000:
        rounds = next_round("spin", rounds, bound)
        seen.append(rounds)


def test_a_loop_that_never_ends_raises_on_the_round_past_its_bound() -> None:
    seen: list[int] = []
    with pytest.raises(KernelError, match=r"^spin: more than 5 rounds$"):
        _spin(5, seen)
    assert seen == [1, 2, 3, 4, 5]


def test_a_bound_of_zero_refuses_the_first_round() -> None:
    seen: list[int] = []
    with pytest.raises(KernelError, match=r"^spin: more than 0 rounds$"):
        _spin(0, seen)
    assert seen == []


def test_the_error_is_the_public_one_and_a_runtime_error() -> None:
    assert scan.KernelError is KernelError
    assert issubclass(KernelError, RuntimeError)
