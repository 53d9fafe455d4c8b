"""NEW against OLD: two kernels timed in one process, in pairs, on the same inputs.

A stored baseline compares today's machine with another day's; two kernels timed
side by side compare only the kernels.  Each pair is one sample of each, taken back
to back in a random order (seeded), so both see the same load and neither always
runs first; the verdict comes from the paired ratios (:mod:`packcheck.bench._paired`), and
sampling goes on while it is inconclusive and the time budget lasts.

How samples are taken and on which clock: :mod:`packcheck.bench._timing`.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import reference
from ._answers import check_answers, first_answer
from ._context import context
from ._kernels import BenchError, Kernel, read_answer
from ._paired import Estimate, Verdict
from ._timing import CLOCKS, calls_per_sample, paired, repeated, wall
from ._workloads import WORKLOADS, Workload, workload

__all__ = ["CLOCKS", "ABReport", "Comparison", "ab"]

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
    start = wall()
    end = start + time_budget
    rng = random.Random(seed)
    comparisons = []
    for done, (load, n) in enumerate(cells):
        if progress is not None:
            progress(f"[{done + 1}/{len(cells)}] {load.name} n={n:,}")
        deadline = wall() + max(0.0, end - wall()) / (len(cells) - done)
        pairs = (min_pairs, max_pairs, deadline)
        judging = (threshold, confidence, min_time)
        comparisons.append(_compare(load, n, seed, (new, old), pairs, judging, clock, rng))
    return ABReport(comparisons, threshold, confidence, clock, wall() - start)


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
    new, old = (repeated(partial(kernel, budget, sizes)) for kernel in kernels)
    runs = (new, old)
    number = min(calls_per_sample(run, clock, judging[2], warmup=_WARMUP) for run in runs)
    judged, samples = paired(runs, number, clock, rng, pairs, judging[:2])
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
    answers = {}
    for label, kernel in zip(("NEW", "OLD"), kernels, strict=True):
        call = partial(kernel, budget, sizes)
        answers[label] = first_answer(label, call, where, read_answer, "(flags, int remaining)")
        if not np.array_equal(sizes, pristine):
            raise BenchError(f"{label} changed its input {where}")
    check_answers(answers, lambda: reference.pack_sizes(budget, sizes.tolist()), where)
