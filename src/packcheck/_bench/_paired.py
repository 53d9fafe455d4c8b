"""Paired comparison of two timings: the median log ratio, its sign-test interval
(distribution-free: a shared machine's skewed noise costs width, not validity) and a
verdict."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

#: ``slower``/``faster``: NEW's time differs from OLD's by more than the threshold,
#: with confidence; ``same``: the whole interval is within the threshold.
Verdict = Literal["slower", "faster", "same", "inconclusive"]


def median_interval(values: Sequence[float], confidence: float) -> tuple[float, float]:
    """The sign-test interval for the median of ``values``: ``[x_(k), x_(n+1-k)]`` with
    the largest ``k`` whose exact coverage reaches ``confidence``; ``(-inf, inf)`` when
    none does (at 95%, below 6 values).  O(n log n)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    ordered = sorted(values)
    n = len(ordered)
    # One tail may hold at most this much of the 2**n equally likely sign patterns;
    # exact fractions, since 2**n overflows a double past n = 1023.
    allowed = (1 - Fraction(confidence)) * 2**n / 2
    k, tail, term = 0, 0, 1  # Invariant: term == comb(n, k), tail == sum of comb(n, i < k).
    while k < n // 2 and tail + term <= allowed:
        tail += term
        term = term * (n - k) // (k + 1)
        k += 1
    if k == 0:
        return -math.inf, math.inf
    return ordered[k - 1], ordered[n - k]


@dataclass(frozen=True)
class Estimate:
    ratio: float
    low: float
    high: float
    pairs: int
    verdict: Verdict


def estimate(log_ratios: Sequence[float], threshold: float, confidence: float) -> Estimate:
    """Judge ``log(new / old)`` per pair against a relative ``threshold`` (0.2 is 20%):
    *slower* or *faster* when the interval lies past ``±log(1 + threshold)``, *same*
    when strictly within, else *inconclusive*."""
    if threshold < 0:
        raise ValueError(f"threshold must be >= 0, got {threshold}")
    if not log_ratios:
        raise ValueError("no pairs to judge")
    low, high = median_interval(log_ratios, confidence)
    bound = math.log1p(threshold)
    verdict: Verdict
    if low > bound:
        verdict = "slower"
    elif high < -bound:
        verdict = "faster"
    elif -bound < low and high < bound:
        verdict = "same"
    else:
        verdict = "inconclusive"
    middle = statistics.median(log_ratios)
    return Estimate(math.exp(middle), math.exp(low), math.exp(high), len(log_ratios), verdict)
