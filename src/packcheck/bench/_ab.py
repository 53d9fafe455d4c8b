"""NEW against OLD: two kernels timed in one process, in pairs, on the same inputs.

A stored baseline compares today's machine with another day's; two kernels timed
side by side compare only the kernels.  Each pair is one sample of each, taken back
to back in a random order (seeded), so both see the same load and neither always
runs first; the verdict comes from the paired ratios (:mod:`packcheck.bench._paired`), and
sampling goes on while it is inconclusive and the time budget lasts.

The default clock is the calling thread's CPU time: time the thread spends waiting
for a core on a busy machine is not counted, nor work done by other processes or by
other threads of this one (such as a thread pool spinning while idle).  What still
reaches it (cache and memory bandwidth shared with the neighbours, a slower clock
speed) reaches both kernels alike.  A kernel that works in other threads or
processes, or waits, needs the ``process`` or ``wall`` clock.
"""

from __future__ import annotations

import gc
import math
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import reference
from ._context import context
from ._kernels import BenchError, Kernel, read_answer
from ._paired import Estimate, Verdict, estimate
from ._workloads import WORKLOADS, Workload, workload

__all__ = ["CLOCKS", "ABReport", "Comparison", "ab"]

#: The clocks a sample can be taken on, by name.
CLOCKS: dict[str, Callable[[], float]] = {
    "thread": time.thread_time,
    "process": time.process_time,
    "wall": time.perf_counter,
}
# The time budget is the caller's: always wall time.  Looked up at each use, so a
# test can put a whole run on simulated time.
_wall: Callable[[], float] = time.monotonic
# Calls per sample at most, so a call that seems free cannot loop for ever.
_MAX_CALLS = 10_000
# Untimed calls of each kernel before the one that sets the calls per sample.
_WARMUP = 2


@dataclass(frozen=True)
class Comparison:
    """NEW against OLD on one workload at one size: median seconds per call and the
    paired estimate of their ratio (``estimate.ratio > 1``: NEW is slower)."""

    workload: str
    family: str
    n: int
    new_seconds: float
    old_seconds: float
    estimate: Estimate


@dataclass
class ABReport:
    """The comparisons of one run and how they were measured."""

    comparisons: list[Comparison]
    threshold: float
    confidence: float
    clock: str
    seconds: float
    counts: Counter[Verdict] = field(init=False)

    def __post_init__(self) -> None:
        self.counts = Counter(c.estimate.verdict for c in self.comparisons)

    def to_json(self, new: str, old: str) -> dict[str, Any]:
        """A small, self-describing dict: what was compared, where, how, and each
        comparison's medians, ratio, interval and verdict."""
        return {
            "kind": "packcheck bench A/B",
            "new": new,
            "old": old,
            "clock": self.clock,
            "threshold": self.threshold,
            "confidence": self.confidence,
            "seconds": self.seconds,
            **context(),
            "comparisons": [
                {
                    "workload": c.workload,
                    "family": c.family,
                    "n": c.n,
                    "new_seconds": c.new_seconds,
                    "old_seconds": c.old_seconds,
                    "ratio": c.estimate.ratio,
                    "interval": [c.estimate.low, c.estimate.high],
                    "pairs": c.estimate.pairs,
                    "verdict": c.estimate.verdict,
                }
                for c in self.comparisons
            ],
        }


def ab(
    new: Kernel,
    old: Kernel,
    *,
    workloads: Iterable[str] | None = None,
    sizes: Iterable[int] = (10**5,),
    threshold: float = 0.1,
    confidence: float = 0.95,
    time_budget: float = 30.0,
    min_pairs: int = 8,
    max_pairs: int = 1000,
    min_time: float = 0.005,
    seed: int = 0,
    clock: str = "thread",
    progress: Callable[[str], None] | None = None,
) -> ABReport:
    """Time ``new`` against ``old`` on every workload and size, and judge each.

    Per cell: the data come from ``seed``; both answers are checked (equal to each
    other, inputs untouched), then each kernel is warmed up and one call of each sets
    how many calls make a sample last ``min_time``.  Pairs are taken until the
    verdict is not ``inconclusive`` (looked at from ``min_pairs`` on), ``max_pairs``
    is reached, or the cell's share of what is left of ``time_budget`` (wall seconds)
    is spent; every cell gets ``min_pairs`` pairs whatever the budget.  The garbage
    collector is off while timing.

    Raises :class:`BenchError` when the answers differ (saying which one the
    reference agrees with), one is not an answer, a kernel raises or changes its input;
    ``ValueError`` for an unknown clock, an empty matrix or impossible counts.
    """
    if clock not in CLOCKS:
        raise ValueError(f"unknown clock {clock!r}; expected one of {', '.join(CLOCKS)}")
    names = list(workloads) if workloads is not None else list(WORKLOADS)
    cells = [(workload(name), n) for name in names for n in sorted(set(sizes))]
    if not cells or cells[0][1] < 1 or not 1 <= min_pairs <= max_pairs:
        raise ValueError("need a workload, sizes >= 1 and 1 <= min_pairs <= max_pairs")
    start = _wall()
    end = start + time_budget
    rng = random.Random(seed)
    comparisons = []
    for done, (load, n) in enumerate(cells):
        if progress is not None:
            progress(f"[{done + 1}/{len(cells)}] {load.name} n={n:,}")
        deadline = _wall() + max(0.0, end - _wall()) / (len(cells) - done)
        pairs = (min_pairs, max_pairs, deadline)
        judging = (threshold, confidence, min_time)
        comparisons.append(_compare(load, n, seed, (new, old), pairs, judging, clock, rng))
    return ABReport(comparisons, threshold, confidence, clock, _wall() - start)


def _compare(
    load: Workload,
    n: int,
    seed: int,
    kernels: tuple[Kernel, Kernel],
    pairs: tuple[int, int, float],
    judging: tuple[float, float, float],
    clock_name: str,
    rng: random.Random,
) -> Comparison:
    sizes, budget = load.generate(n, seed)
    _check_answers(load.name, n, budget, sizes, kernels)
    clock = CLOCKS[clock_name]
    calls = [partial(kernel, budget, sizes) for kernel in kernels]
    min_pairs, max_pairs, deadline = pairs
    threshold, confidence, min_time = judging
    number = min(_calls_per_sample(call, clock, min_time) for call in calls)
    samples: tuple[list[float], list[float]] = ([], [])
    log_ratios: list[float] = []
    collecting = gc.isenabled()
    gc.disable()  # as timeit does: a collection would land on whichever call is running
    try:
        while True:
            order = (0, 1) if rng.random() < 0.5 else (1, 0)
            for side in order:
                samples[side].append(_sample(calls[side], number, clock))
            log_ratios.append(_log_ratio(samples[0][-1], samples[1][-1]))
            if len(log_ratios) < min_pairs:
                continue
            judged = estimate(log_ratios, threshold, confidence)
            if judged.verdict != "inconclusive" or len(log_ratios) >= max_pairs:
                break
            if _wall() >= deadline:
                break
    finally:
        if collecting:
            gc.enable()
    new_seconds, old_seconds = (statistics.median(times) for times in samples)
    return Comparison(load.name, load.family, n, new_seconds, old_seconds, judged)


def _check_answers(
    name: str,
    n: int,
    budget: int,
    sizes: npt.NDArray[np.int64],
    kernels: tuple[Kernel, Kernel],
) -> None:
    pristine = sizes.copy()
    where = f"on {name} at n={n:,}"
    answers = []
    for label, kernel in zip(("NEW", "OLD"), kernels, strict=True):
        try:
            answer = read_answer(kernel(budget, sizes))
        except Exception as exc:
            raise BenchError(f"{label} raised {type(exc).__name__}: {exc} {where}") from None
        if answer is None:
            raise BenchError(f"{label} did not return (flags, int remaining) {where}")
        if not np.array_equal(sizes, pristine):
            raise BenchError(f"{label} changed its input {where}")
        answers.append(answer)
    if answers[0] != answers[1]:
        expected = reference.pack_sizes(budget, sizes.tolist())
        right = (
            " and ".join(
                label for label, got in zip(("NEW", "OLD"), answers, strict=True) if got == expected
            )
            or "neither"
        )
        raise BenchError(
            f"NEW and OLD answer differently {where}; the reference agrees with {right}"
        )


def _calls_per_sample(call: Callable[[], Any], clock: Callable[[], float], min_time: float) -> int:
    for _ in range(_WARMUP):
        call()
    once = _sample(call, 1, clock)
    if once >= min_time:
        return 1
    return min(_MAX_CALLS, math.ceil(min_time / max(once, 1e-9)))


def _sample(call: Callable[[], Any], number: int, clock: Callable[[], float]) -> float:
    """Seconds per call, over ``number`` calls."""
    start = clock()
    for _ in range(number):
        call()
    return (clock() - start) / number


def _log_ratio(new: float, old: float) -> float:
    # A sample below the clock's resolution reads 0: count it as one tick (1 ns),
    # so the ratio stays finite and still says which side was faster.
    return math.log(max(new, 1e-9) / max(old, 1e-9))
