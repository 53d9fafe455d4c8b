"""Benchmarks of the packers, measured side by side, and a gate on their speedups.

:func:`run` times every packer and the reference on the same seeded data, repeat
by repeat in turn, so machine load hits both alike; a packer's *speedup* is the
reference's median time over its own.  :func:`compare` checks a run against a saved
baseline on speedups, not absolute times, so a baseline taken on another machine
still gates.  Every packer's answer is checked against the reference's (or, above
``reference_limit``, the NumPy packer's, which the tests tie to the reference).
"""

from __future__ import annotations

import gc
import math
import platform
import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from . import __version__, reference, scan
from ._workloads import WORKLOADS, Workload, workload

__all__ = [
    "DEFAULT_SIZES",
    "REFERENCE",
    "WORKLOADS",
    "BenchError",
    "Kernel",
    "Regression",
    "Report",
    "Timing",
    "compare",
    "run",
]

#: A ``pack_sizes``-compatible function: int64 sizes in, kept flags and remaining out.
Kernel = Callable[[int, npt.NDArray[np.int64]], tuple[Sequence[bool] | npt.NDArray[np.bool_], int]]
#: The name under which the reference (given a Python list) appears in a report.
REFERENCE = "reference"
#: Powers of ten from 10 blocks (one model step packs tens to a thousand) to 10**6.
DEFAULT_SIZES: tuple[int, ...] = (10, 10**2, 10**3, 10**4, 10**5, 10**6)
# Looked up at each run, so a test can put the whole CLI on simulated time.
_clock: Callable[[], float] = time.perf_counter
# Calls per timed sample at most: a call that seems free must not loop forever.
_MAX_CALLS = 10_000
_reference: Callable[[int, list[int]], tuple[list[bool], int]] = reference.pack_sizes


class BenchError(Exception):
    """A packer gave a wrong answer or changed its input; ``str()`` is one line."""


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
    """The timings of one run, with the speedups and scaling exponents they imply."""

    timings: list[Timing]
    machine: dict[str, str] = field(default_factory=dict)

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
        ratio of the medians.
        """
        mine = self.timing(engine, name, n)
        theirs = self.timing(REFERENCE, name, n)
        if mine is None or theirs is None:
            return None
        if mine.samples and len(mine.samples) == len(theirs.samples):
            pairs = zip(theirs.samples, mine.samples, strict=True)
            return statistics.median(_ratio(a, b) for a, b in pairs)
        return _ratio(theirs.seconds, mine.seconds)

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
        """A JSON-ready dict: the machine, then every timing."""
        return {
            "packcheck": __version__,
            "machine": self.machine,
            "timings": [asdict(t) for t in self.timings],
        }

    @classmethod
    def from_json(cls, data: Any) -> Report:
        """Read :meth:`to_json`'s output; ``ValueError`` (one line) if it is not that."""
        try:
            timings = [
                Timing(**{**t, "samples": tuple(t.get("samples", ()))}) for t in data["timings"]
            ]
            machine = dict(data.get("machine", {}))
        except (TypeError, KeyError, AttributeError) as exc:
            why = f"{type(exc).__name__}: {exc}"
            raise ValueError(f"not a packcheck bench report ({why})") from None
        return cls(timings, machine)


def _ratio(theirs: float, mine: float) -> float:
    return theirs / mine if mine > 0 else math.inf


def machine() -> dict[str, str]:
    """What the timings depend on: interpreter, NumPy, processor."""
    return {
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "processor": platform.processor() or "unknown",
        "system": platform.system(),
    }


def run(
    *,
    packers: Mapping[str, Kernel] | None = None,
    sizes: Iterable[int] = DEFAULT_SIZES,
    workloads: Iterable[str] | None = None,
    repeat: int = 5,
    seed: int = 0,
    reference_limit: int = 10**6,
    min_time: float = 0.02,
    clock: Callable[[], float] | None = None,
    progress: Callable[[str], None] | None = None,
) -> Report:
    """Time ``packers`` (default: the NumPy packer as ``"numpy"``) and the reference.

    For every workload and size: the data are generated from ``seed``, each packer's
    answer is checked, then ``repeat`` rounds each time every packer in turn; a
    timing is the median over rounds.  The reference (given a Python list) runs only
    up to ``reference_limit`` blocks, so no speedup is reported above that.  In a
    repeat each packer is called often enough to take ``min_time`` seconds (judged by
    its first call), so a fast call is timed over many.  ``clock`` (default
    :func:`time.perf_counter`) lets tests run on simulated time.  The garbage
    collector is off while timing.

    Raises :class:`BenchError` when a packer's answer is wrong or it mutates its
    input, ``ValueError`` for an unknown workload or a size or repeat below 1.
    """
    chosen = dict(packers) if packers is not None else {"numpy": scan.pack_sizes}
    names = list(workloads) if workloads is not None else list(WORKLOADS)
    ns = sorted(set(sizes))
    if repeat < 1 or not ns or ns[0] < 1:
        raise ValueError("sizes and repeat must be at least 1")
    cells = [(workload(name), n) for name in names for n in ns]
    timings: list[Timing] = []
    for done, (load, n) in enumerate(cells):
        if progress is not None:
            progress(f"[{done + 1}/{len(cells)}] {load.name} n={n:,}")
        timings += _measure(
            load, n, seed, chosen, (repeat, min_time), n <= reference_limit, clock or _clock
        )
    return Report(timings, machine())


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
    """The answer of ``call`` and how many calls take ``min_time`` (1 to _MAX_CALLS)."""
    start = clock()
    answer = call()
    once = clock() - start
    if once >= min_time:
        return answer, 1
    return answer, min(_MAX_CALLS, math.ceil(min_time / max(once, 1e-9)))


def _check(engine: str, name: str, n: int, answer: Any, expected: tuple[list[bool], int]) -> None:
    try:
        mask, remaining = answer
        flags = mask.tolist() if isinstance(mask, np.ndarray) else list(mask)
        right = type(remaining) is int and remaining == expected[1] and flags == expected[0]
    except (TypeError, ValueError):
        right = False
    if not right:
        raise BenchError(f"{engine} gave a wrong answer on {name} at n={n:,}")


@dataclass(frozen=True)
class Regression:
    """A speedup that fell by more than the allowed fraction against the baseline."""

    engine: str
    workload: str
    n: int
    baseline: float
    current: float

    def __str__(self) -> str:
        drop = 1 - self.current / self.baseline
        return (
            f"{self.workload} ({self.engine}, n={self.n:,}): speedup {self.current:.1f}x, "
            f"was {self.baseline:.1f}x ({drop:.0%} slower)"
        )


def compare(baseline: Report, current: Report, max_regression: float) -> list[Regression]:
    """Every engine and workload whose speedup fell by more than ``max_regression``.

    Compared at the largest size both reports have a speedup for; an engine or
    workload only one report has is not compared.  ``max_regression`` is a fraction
    (0.1 allows a 10% lower speedup).
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
            before = baseline.speedup(engine, name, n)
            now = current.speedup(engine, name, n)
            assert before is not None  # common says so
            assert now is not None
            if now < before * (1 - max_regression):
                regressions.append(Regression(engine, name, n, before, now))
    return regressions
