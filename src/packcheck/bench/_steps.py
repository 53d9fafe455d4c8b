"""Engines at the sizes agents pack: one model step per call, and many steps at once.

Each row pairs a call on the reference's side with the same work on NumPy's side,
timed back to back in every repeat (the order alternating), on the same seeded
input and checked to give the same answer.  Its *speedup* is the reference side's
time over NumPy's, the median of the repeats' ratios with its interval; *faster*
names the side that wins by more than :data:`TIE` across the whole interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from ._report import _summary

__all__ = ["CALLS", "TIE", "Faster", "StepTiming", "StepsReport"]

#: What each side of a row runs, by the row's ``call``.
CALLS: dict[str, tuple[str, str]] = {
    "pack(case)": ('pack(case, engine="reference")', 'pack(case, engine="numpy")'),
    "pack_batch": (
        "reference.pack_sizes(budget, sizes) once per step",
        "scan.pack_batch(budgets, sizes, offsets) on every step at once",
    ),
    "pack_many": ("[pack(case) for case in cases]", 'pack_many(cases, engine="numpy")'),
}
#: A side wins only by more than this fraction, across the speedup's whole interval.
TIE = 0.10

#: ``numpy``/``reference``: that side is faster by more than :data:`TIE` across the
#: interval; ``neither``: the interval lies within it; ``unclear``: it straddles it.
Faster = Literal["numpy", "reference", "neither", "unclear"]


@dataclass(frozen=True)
class StepTiming:
    """One row: the seconds per call of each side in every repeat, in order (the
    ``i``-th samples were taken one right after the other)."""

    call: str
    workload: str
    cases: int
    blocks: int
    fewest: int
    most: int
    seed: int
    reference_samples: tuple[float, ...]
    numpy_samples: tuple[float, ...]

    def speedup_interval(self) -> tuple[float, float, float]:
        """``(speedup, low, high)``: the median ratio of the repeats and its interval
        (the 95% sign-test interval from 6 repeats on, the range below)."""
        pairs = zip(self.reference_samples, self.numpy_samples, strict=True)
        return _summary([a / b if b > 0 else math.inf for a, b in pairs])

    def faster(self) -> Faster:
        """Which side wins, by more than :data:`TIE` across the interval, if either."""
        _, low, high = self.speedup_interval()
        if low > 1 + TIE:
            return "numpy"
        if high < 1 / (1 + TIE):
            return "reference"
        if low >= 1 / (1 + TIE) and high <= 1 + TIE:
            return "neither"
        return "unclear"

    def to_json(self) -> dict[str, Any]:
        """The row as a self-describing dict: what each side ran, on what, and the
        median seconds, speedup and verdict with their intervals."""
        ours, theirs = _summary(list(self.numpy_samples)), _summary(list(self.reference_samples))
        speedup = self.speedup_interval()
        return {
            "call": self.call,
            "workload": self.workload,
            "cases": self.cases,
            "blocks": self.blocks,
            "blocks_per_case": [self.fewest, self.most],
            "seed": self.seed,
            "reference": CALLS[self.call][0],
            "numpy": CALLS[self.call][1],
            "reference_seconds": theirs[0],
            "reference_interval": list(theirs[1:]),
            "numpy_seconds": ours[0],
            "numpy_interval": list(ours[1:]),
            "speedup": speedup[0],
            "speedup_interval": list(speedup[1:]),
            "faster": self.faster(),
            "repeats": len(self.numpy_samples),
        }


@dataclass
class StepsReport:
    """The rows of one run, in the order they were measured."""

    timings: list[StepTiming]

    def to_json(self) -> dict[str, Any]:
        """``{"about": ..., "tie": ..., "results": [...]}``: stored beside a matrix
        report's keys, which readers of those ignore."""
        return {
            "about": (
                "engines at the sizes agents pack: per row, the reference side and the "
                "numpy side timed back to back in each repeat on the same input, answers "
                "checked identical; speedup = reference seconds / numpy seconds, the "
                "median of the repeats' ratios and its interval; faster: the side that "
                "wins by more than the tie fraction across the interval"
            ),
            "tie": TIE,
            "results": [timing.to_json() for timing in self.timings],
        }
