"""The engines: every one gives the reference's answer, whatever the magnitudes."""

from __future__ import annotations

import pytest
from _scan_check import INSTALLED_ENGINES

from packcheck import ENGINES, reference
from packcheck._bench._workloads import WORKLOADS
from packcheck._engines import levels as scan
from packcheck._engines import sizes as _sizes
from packcheck._engines.choice import CROSSOVER, kept_flags

INT64_MAX = 2**63 - 1


def assert_engines_agree(budget: int, sizes: list[int]) -> tuple[list[bool], int]:
    """Every engine's (mask, remaining) equals the reference's, as plain Python values.

    The NumPy kernel is also run on its own, below the crossover where ``"numpy"``
    would hand a short list to the reference's loop.
    """
    expected = reference.pack_sizes(budget, sizes)
    kernel_mask, kernel_remaining = scan.pack_input(budget, _sizes.from_ints(budget, sizes))
    assert (kernel_mask.tolist(), kernel_remaining) == expected, "kernel"
    assert type(kernel_remaining) is int
    for engine in INSTALLED_ENGINES:
        mask, remaining = kept_flags(budget, sizes, engine)
        assert (list(map(bool, mask)), remaining) == expected, engine
        assert type(remaining) is int, engine
    return expected


def test_the_engines_are_the_reference_numpy_and_numba() -> None:
    assert ENGINES == ("reference", "numpy", "numba")


@pytest.mark.parametrize(
    ("budget", "sizes", "kept", "remaining"),
    [
        (7, [4, 3, 2], [True, True, False], 0),
        (3, [4, 2], [False, True], 1),
        (0, [1, 1], [False, False], 0),
        (5, [], [], 5),
        (4, [5, 1, 1, 1, 1, 1], [False, True, True, True, True, False], 0),
        (5, [5, 1, 1, 1, 1, 1], [True, False, False, False, False, False], 0),
    ],
)
def test_small_cases(budget: int, sizes: list[int], kept: list[bool], remaining: int) -> None:
    assert assert_engines_agree(budget, sizes) == (kept, remaining)


def test_sizes_beyond_int64_under_a_small_budget_are_clipped_not_wrapped() -> None:
    # 2**64 + 1 wraps to 1 in a careless int64 conversion and would be kept.
    mask, remaining = assert_engines_agree(3, [2**64 + 1, 2, 10**30])
    assert (mask, remaining) == ([False, True, False], 1)


def test_a_budget_beyond_int64_falls_back_to_exact_arithmetic() -> None:
    budget = 2**64
    mask, remaining = assert_engines_agree(budget, [2**63, 2**63, 1, 10**40])
    assert (mask, remaining) == ([True, True, False, False], 0)
    big = 10**5000
    assert assert_engines_agree(big, [big - 1, 2, 1]) == ([True, False, True], 0)


def test_sums_that_would_overflow_int64_stay_exact() -> None:
    half = INT64_MAX // 2
    assert assert_engines_agree(INT64_MAX - 1, [half, half, 1, 1]) == (
        [True, True, False, False],
        0,
    )


def test_an_unknown_engine_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown engine 'fast'; expected one of reference, numpy"):
        kept_flags(1, [1], "fast")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["uniform-50%", "alternating", "huge-budget-alt"])
@pytest.mark.parametrize("offset", [-1, 0, 1])
def test_numpy_takes_the_kernel_from_the_crossover_on(name: str, offset: int) -> None:
    sizes, budget = WORKLOADS[name].generate(CROSSOVER + offset, seed=offset + 1)
    assert_engines_agree(budget, sizes.tolist())


def test_past_the_crossover_sizes_past_int64_are_still_exact() -> None:
    sizes = [2**64 + 1, 2, 10**30, 1] * CROSSOVER
    assert_engines_agree(3, sizes)
    assert_engines_agree(2**64, sizes)
