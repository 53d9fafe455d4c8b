"""The sign-test interval and the verdict rule, checked against exact binomial sums."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from packcheck._bench._paired import estimate, median_interval


def _coverage(n: int, k: int) -> Fraction:
    """Exact coverage of [x_(k), x_(n+1-k)] for the median of n continuous values."""
    return 1 - 2 * Fraction(sum(math.comb(n, i) for i in range(k)), 2**n)


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
def test_the_interval_is_the_narrowest_with_the_coverage_asked_for(confidence: float) -> None:
    for n in range(1, 200):
        values = [float(i) for i in range(n)]
        random.Random(n).shuffle(values)  # the order given does not matter
        low, high = median_interval(values, confidence)
        if low == -math.inf:
            assert high == math.inf
            assert _coverage(n, 1) < confidence  # even the full range is not enough
            continue
        k = int(low) + 1
        assert high == n - k  # symmetric order statistics
        assert _coverage(n, k) >= confidence
        assert k == n // 2 or _coverage(n, k + 1) < confidence  # and the narrowest


def test_textbook_values() -> None:
    # Sign-test intervals as tabulated: n=6 needs the whole range at 95%, n=8 at 99%.
    assert median_interval(range(5), 0.95) == (-math.inf, math.inf)
    assert median_interval(range(6), 0.95) == (0, 5)
    assert median_interval(range(7), 0.99) == (-math.inf, math.inf)
    assert median_interval(range(8), 0.99) == (0, 7)
    assert median_interval(range(12), 0.95) == (2, 9)
    assert median_interval(range(100), 0.95) == (39, 60)
    # Past 2**1023 sign patterns the arithmetic stays exact.
    assert median_interval(range(3000), 0.95) == (1445, 1554)


def test_impossible_confidences_are_rejected() -> None:
    for confidence in (0.0, 1.0, -0.5, 2.0):
        with pytest.raises(ValueError, match="confidence must be between 0 and 1"):
            median_interval([1.0, 2.0], confidence)


def _logs(*ratios: float) -> list[float]:
    return [math.log(r) for r in ratios]


def test_verdicts_at_a_20_percent_threshold() -> None:
    slower = estimate(_logs(1.5, 1.45, 1.55, 1.5, 1.6, 1.4, 1.5, 1.52), 0.2, 0.95)
    assert slower.verdict == "slower"
    assert slower.pairs == 8
    assert slower.ratio == pytest.approx(1.5)
    assert (slower.low, slower.high) == pytest.approx((1.4, 1.6))
    assert estimate(_logs(*[1 / 1.5] * 8), 0.2, 0.95).verdict == "faster"
    assert estimate(_logs(1.0, 1.1, 0.9, 1.05, 0.95, 1.0, 1.02, 0.98), 0.2, 0.95).verdict == "same"
    # An interval reaching past the threshold either way decides nothing.
    assert estimate(_logs(1.0, 1.3, 0.9, 1.05, 0.95, 1.0, 1.02, 0.98), 0.2, 0.95).verdict == (
        "inconclusive"
    )
    assert estimate(_logs(1.5, 1.5, 1.5, 1.5, 1.5), 0.2, 0.95).verdict == "inconclusive"  # n < 6
    # The threshold is a slowdown's bound, not the interval's width.
    assert estimate(_logs(*[1.19] * 8), 0.2, 0.95).verdict == "same"
    assert estimate(_logs(*[1.21] * 8), 0.2, 0.95).verdict == "slower"


def test_a_zero_threshold_never_says_same() -> None:
    assert estimate([0.0] * 20, 0.0, 0.95).verdict == "inconclusive"
    assert estimate(_logs(*[1.01] * 20), 0.0, 0.95).verdict == "slower"


def test_estimate_rejects_no_pairs_and_a_negative_threshold() -> None:
    with pytest.raises(ValueError, match="no pairs"):
        estimate([], 0.1, 0.95)
    with pytest.raises(ValueError, match="threshold must be >= 0"):
        estimate([0.0], -0.1, 0.95)
