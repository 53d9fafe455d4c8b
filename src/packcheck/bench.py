"""Benchmarks of the packers, measured side by side, and gates on their speed.

:func:`ab` is the gate to use: a new kernel against an old one, timed in pairs in
one process, a verdict per workload (:mod:`packcheck._ab`).  :func:`run` times every
packer and the reference on the same seeded data, repeat by repeat in turn, so
machine load hits both alike; a packer's *speedup* is the reference's time over its
own.  :func:`compare` checks a run against a stored baseline on speedups, allowing
for the noise measured in both.  Every packer's answer is checked against the
reference's (or, above ``reference_limit``, the NumPy packer's, which the tests tie
to the reference).  Times are the calling thread's CPU time unless told otherwise
(``clock``; why: :mod:`packcheck._ab`).
"""

from __future__ import annotations

import gc
import math
import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

import numpy as np

from . import reference, scan
from ._ab import CLOCKS, ABReport, Comparison, ab
from ._context import MACHINE_KEYS, VERSION_KEYS, context, mismatches
from ._kernels import BenchError, Kernel, read_answer
from ._paired import median_interval
from ._workloads import WORKLOADS, Workload, workload

__all__ = [
    "CLOCKS",
    "DEFAULT_SIZES",
    "KIND",
    "REFERENCE",
    "WORKLOADS",
    "ABReport",
    "BenchError",
    "Comparison",
    "Kernel",
    "Regression",
    "Report",
    "Timing",
    "ab",
    "compare",
    "context",
    "differences",
    "run",
]

#: The name under which the reference (given a Python list) appears in a report.
REFERENCE = "reference"
#: Powers of ten from 10**3 to 10**6 blocks.
DEFAULT_SIZES: tuple[int, ...] = (10**3, 10**4, 10**5, 10**6)
#: The ``kind`` of a report written by :meth:`Report.to_json`.
KIND = "packcheck bench"
_CONTEXT_KEYS = ("created", "commit", "machine")
# Calls per timed sample at most: a call that seems free must not loop forever.
_MAX_CALLS = 10_000
_reference: Callable[[int, list[int]], tuple[list[bool], int]] = reference.pack_sizes


@dataclass(frozen=True)
class Timing:
    """The median seconds per call of one packer on one workload at one size.

    ``samples`` holds the seconds per call of each repeat, in order: the reference's
    and a packer's ``i``-th samples were taken one right after the other.
    """

    engine: str
    workload: str
    family: str
    n: int
    budget: int
    seed: int
    seconds: float
    samples: tuple[float, ...] = ()


@dataclass
class Report:
    """The timings of one run, with the speedups and scaling exponents they imply.

    ``context`` says where they came from (:func:`context`: machine, versions, commit,
    time); ``clock`` what they were measured on.  A report read back from JSON has
    no samples, only each cell's median and interval.
    """

    timings: list[Timing]
    context: dict[str, Any] = field(default_factory=dict)
    clock: str = "thread"
    stored: dict[tuple[str, str, int], tuple[float, float, float]] = field(default_factory=dict)

    @property
    def machine(self) -> dict[str, str]:
        """The machine and versions (:func:`packcheck._context.machine`)."""
        return dict(self.context.get("machine", {}))

    def engines(self) -> list[str]:
        """Engine names in first-seen order, the reference first if present."""
        names = dict.fromkeys(t.engine for t in self.timings)
        return sorted(names, key=lambda name: name != REFERENCE)

    def workloads(self) -> list[str]:
        """Workload names in first-seen order."""
        return list(dict.fromkeys(t.workload for t in self.timings))

    def sizes(self) -> list[int]:
        """The block counts measured, ascending."""
        return sorted({t.n for t in self.timings})

    def timing(self, engine: str, name: str, n: int) -> Timing | None:
        """The timing of that cell, or ``None`` if it was not measured."""
        for timing in self.timings:
            if (timing.engine, timing.workload, timing.n) == (engine, name, n):
                return timing
        return None

    def seconds(self, engine: str, name: str, n: int) -> float | None:
        """Median seconds per call, or ``None`` if that cell was not measured."""
        timing = self.timing(engine, name, n)
        return None if timing is None else timing.seconds

    def speedup(self, engine: str, name: str, n: int) -> float | None:
        """The reference's time over ``engine``'s, both from this run.

        The median of the repeats' ratios when both have the same repeats (each ratio
        compares two calls made back to back, under the same machine load), else the
        stored median (a report read from JSON), else the ratio of the medians.
        """
        interval = self.speedup_interval(engine, name, n)
        return None if interval is None else interval[0]

    def speedup_interval(self, engine: str, name: str, n: int) -> tuple[float, float, float] | None:
        """``(speedup, low, high)``: the speedup and the interval of its repeats.

        The 95% sign-test interval of the median pair ratio from 6 repeats on; below
        that, the range of the ratios (with 3 repeats it holds the median 75% of the
        time).  A point when there are no pairs.
        """
        mine = self.timing(engine, name, n)
        theirs = self.timing(REFERENCE, name, n)
        if mine is None or theirs is None:
            return None
        if mine.samples and len(mine.samples) == len(theirs.samples):
            pairs = zip(theirs.samples, mine.samples, strict=True)
            return _summary([_ratio(a, b) for a, b in pairs])
        if (engine, name, n) in self.stored:
            return self.stored[engine, name, n]
        point = _ratio(theirs.seconds, mine.seconds)
        return point, point, point

    def slope(self, engine: str, name: str) -> float | None:
        """The scaling exponent: least-squares slope of log time against log n."""
        points = [
            (math.log(t.n), math.log(t.seconds))
            for t in self.timings
            if (t.engine, t.workload) == (engine, name) and t.seconds > 0
        ]
        if len({x for x, _ in points}) < 2:
            return None
        slope, _ = np.polyfit([x for x, _ in points], [y for _, y in points], 1)
        return float(slope)

    def family(self, name: str) -> str:
        """The family (``typical`` or ``adversarial``) of workload ``name``."""
        return next(t.family for t in self.timings if t.workload == name)

    def to_json(self) -> dict[str, Any]:
        """A small, self-describing dict: where and how it was measured, then per cell
        the median seconds, their interval and (for an engine) the speedup and its."""
        results = []
        for t in self.timings:
            result: dict[str, Any] = {
                k: v for k, v in asdict(t).items() if k not in ("samples", "seconds")
            }
            seconds = _summary(list(t.samples)) if t.samples else (t.seconds,) * 3
            result.update(seconds=seconds[0], interval=list(seconds[1:]), repeats=len(t.samples))
            speedup = self.speedup_interval(t.engine, t.workload, t.n)
            if t.engine != REFERENCE and speedup is not None:
                result.update(speedup=speedup[0], speedup_interval=list(speedup[1:]))
            results.append(result)
        where = {key: self.context.get(key) for key in _CONTEXT_KEYS} | {"machine": self.machine}
        return {"kind": KIND, "clock": self.clock, **where, "results": results}

    @classmethod
    def from_json(cls, data: Any) -> Report:
        """Read :meth:`to_json`'s output; ``ValueError`` (one line) if it is not that.

        Reports written before the format had a kind (with every sample) read too.
        """
        try:
            if data.get("kind") != KIND:
                timings = [
                    Timing(**{**t, "samples": tuple(t.get("samples", ()))}) for t in data["timings"]
                ]
                return cls(timings, {"machine": dict(data.get("machine", {}))}, "wall")
            report = cls([], {k: data[k] for k in _CONTEXT_KEYS}, data["clock"])
            for r in data["results"]:
                report.timings.append(
                    Timing(r["engine"], r["workload"], r["family"], r["n"], r["budget"],
                           r["seed"], r["seconds"])
                )  # fmt: skip
                if "speedup" in r:
                    low, high = r["speedup_interval"]
                    report.stored[r["engine"], r["workload"], r["n"]] = (r["speedup"], low, high)
        except (TypeError, KeyError, AttributeError, ValueError) as exc:
            why = f"{type(exc).__name__}: {exc}"
            raise ValueError(f"not a packcheck bench report ({why})") from None
        return report


def _ratio(theirs: float, mine: float) -> float:
    return theirs / mine if mine > 0 else math.inf


def _summary(values: list[float]) -> tuple[float, float, float]:
    """The median and its 95% sign-test interval, or the range below 6 values."""
    low, high = median_interval(values, 0.95)
    if math.isinf(low):
        low, high = min(values), max(values)
    return statistics.median(values), low, high


def run(
    *,
    packers: Mapping[str, Kernel] | None = None,
    sizes: Iterable[int] = DEFAULT_SIZES,
    workloads: Iterable[str] | None = None,
    repeat: int = 5,
    seed: int = 0,
    reference_limit: int = 10**6,
    min_time: float = 0.02,
    clock: str = "thread",
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Time ``packers`` (default: the NumPy packer as ``"numpy"``) and the reference.

    For every workload and size: the data are generated from ``seed``, each packer's
    answer is checked, then ``repeat`` rounds each time every packer in turn; a
    timing is the median over rounds.  The reference (given a Python list) runs only
    up to ``reference_limit`` blocks, so no speedup is reported above that.  In a
    repeat each packer is called often enough to take ``min_time`` seconds (judged by
    a warm-up call), so a fast call is timed over many.  ``clock`` names one of
    :data:`CLOCKS`.  The garbage collector is off while timing.

    Raises :class:`BenchError` when a packer's answer is wrong or it mutates its
    input, ``ValueError`` for an unknown workload or a size or repeat below 1.
    """
    chosen = dict(packers) if packers is not None else {"numpy": scan.pack_sizes}
    timer = CLOCKS[clock]  # KeyError before any work for an unknown clock
    names = list(workloads) if workloads is not None else list(WORKLOADS)
    ns = sorted(set(sizes))
    if repeat < 1 or not ns or ns[0] < 1:
        raise ValueError("sizes and repeat must be at least 1")
    cells = [(workload(name), n) for name in names for n in ns]
    timings: list[Timing] = []
    for done, (load, n) in enumerate(cells):
        if progress is not None:
            progress(f"[{done + 1}/{len(cells)}] {load.name} n={n:,}")
        timings += _measure(load, n, seed, chosen, (repeat, min_time), n <= reference_limit, timer)
    return Report(timings, context(), clock)


def _measure(
    load: Workload,
    n: int,
    seed: int,
    packers: Mapping[str, Kernel],
    rounds: tuple[int, float],
    with_reference: bool,
    clock: Callable[[], float],
) -> list[Timing]:
    sizes, budget = load.generate(n, seed)
    pristine = sizes.copy()
    repeat, min_time = rounds
    calls: dict[str, Callable[[], Any]] = {}
    numbers: dict[str, int] = {}
    if with_reference:
        calls[REFERENCE] = partial(_reference, budget, sizes.tolist())
        expected, numbers[REFERENCE] = _first_call(calls[REFERENCE], clock, min_time)
    else:
        mask, remaining = scan.pack_sizes(budget, sizes)
        expected = (mask.tolist(), remaining)
    for name, packer in packers.items():
        calls[name] = partial(packer, budget, sizes)
        answer, numbers[name] = _first_call(calls[name], clock, min_time)
        _check(name, load.name, n, answer, expected)
        if not np.array_equal(sizes, pristine):
            raise BenchError(f"{name} changed its input on {load.name} at n={n:,}")
    samples: dict[str, list[float]] = {name: [] for name in calls}
    collecting = gc.isenabled()
    gc.disable()  # as timeit does: a collection would land on whichever call is running
    try:
        for index in range(repeat):
            # Alternate the order, so neither side always runs first (warm caches).
            for name in list(calls)[:: 1 if index % 2 == 0 else -1]:
                call, number = calls[name], numbers[name]
                start = clock()
                for _ in range(number):
                    call()
                samples[name].append((clock() - start) / number)
    finally:
        if collecting:
            gc.enable()
    return [
        Timing(
            name, load.name, load.family, n, budget, seed, statistics.median(times), tuple(times)
        )
        for name, times in samples.items()
    ]


def _first_call(call: Callable[[], Any], clock: Callable[[], float], min_time: float) -> Any:
    """The answer of ``call`` and how many calls take ``min_time`` (1 to _MAX_CALLS),
    judged by a second, warm call."""
    answer = call()
    start = clock()
    call()
    once = clock() - start
    if once >= min_time:
        return answer, 1
    return answer, min(_MAX_CALLS, math.ceil(min_time / max(once, 1e-9)))


def _check(engine: str, name: str, n: int, answer: Any, expected: tuple[list[bool], int]) -> None:
    if read_answer(answer) != expected:
        raise BenchError(f"{engine} gave a wrong answer on {name} at n={n:,}")


@dataclass(frozen=True)
class Regression:
    """A speedup that fell by more than the allowed fraction against the baseline,
    beyond the noise of both: ``(speedup, low, high)`` before and now."""

    engine: str
    workload: str
    n: int
    baseline: tuple[float, float, float]
    current: tuple[float, float, float]

    def __str__(self) -> str:
        drop = 1 - self.current[0] / self.baseline[0]
        return (
            f"{self.workload} ({self.engine}, n={self.n:,}): speedup {_span(self.current)}, "
            f"was {_span(self.baseline)} ({drop:.0%} slower)"
        )


def _span(speedup: tuple[float, float, float]) -> str:
    middle, low, high = speedup
    return f"{middle:.1f}x [{low:.1f}x, {high:.1f}x]"


def compare(baseline: Report, current: Report, max_regression: float) -> list[Regression]:
    """Every engine and workload whose speedup fell by more than ``max_regression``.

    A fall counts only when even the top of the current speedup's interval is below
    the bottom of the baseline's, less ``max_regression`` (a fraction: 0.1 allows
    10%): the threshold widens by the noise measured in either run, so a noisy run
    asks for a larger fall before it fails.  Compared at the largest size both
    reports have a speedup for; an engine or workload only one report has is not
    compared.
    """
    regressions = []
    for engine in current.engines():
        for name in current.workloads():
            common = [
                n
                for n in current.sizes()
                if current.speedup(engine, name, n) is not None
                and baseline.speedup(engine, name, n) is not None
            ]
            if engine == REFERENCE or not common:
                continue
            n = common[-1]
            before = baseline.speedup_interval(engine, name, n)
            now = current.speedup_interval(engine, name, n)
            assert before is not None  # common says so
            assert now is not None
            if now[2] < before[1] * (1 - max_regression):
                regressions.append(Regression(engine, name, n, before, now))
    return regressions


def differences(baseline: Report, current: Report) -> tuple[list[str], list[str]]:
    """How the machines differ, then how the Python and NumPy versions do
    (``key before -> now``); two empty lists when the runs are comparable."""
    before, now = baseline.machine, current.machine
    return mismatches(before, now, MACHINE_KEYS), mismatches(before, now, VERSION_KEYS)
