"""A benchmark run's timings, the speedups they imply, and their JSON form (a stored
report keeps per cell the median and its interval, not every sample)."""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

import numpy as np

from . import stored
from ._paired import median_interval

#: The name under which the reference (given a Python list) appears in a report.
REFERENCE = "reference"
#: The ``kind`` of a report written by :meth:`Report.to_json`.
KIND = "packcheck bench"
_CONTEXT_KEYS = ("created", "commit", "machine")


@dataclass(frozen=True)
class Timing:
    """The median seconds per call of one packer on one workload at one size;
    ``samples`` in repeat order, paired with the reference's."""

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
    """The timings of one run, with the speedups and scaling exponents they imply;
    ``context``: where they came from (:func:`context`)."""

    timings: list[Timing]
    context: dict[str, Any] = field(default_factory=dict)
    clock: str = "thread"
    stored: dict[tuple[str, str, int], tuple[float, float, float]] = field(default_factory=dict)
    #: Lines on cells that time mostly errors or refusals (:func:`._answers.error_note`).
    notes: list[str] = field(default_factory=list)

    @property
    def machine(self) -> dict[str, str]:
        return dict(self.context.get("machine", {}))

    def engines(self) -> list[str]:
        """Engine names in first-seen order, the reference first if present."""
        names = dict.fromkeys(t.engine for t in self.timings)
        return sorted(names, key=lambda name: name != REFERENCE)

    def workloads(self) -> list[str]:
        """Workload names in first-seen order."""
        return list(dict.fromkeys(t.workload for t in self.timings))

    def sizes(self) -> list[int]:
        return sorted({t.n for t in self.timings})

    def timing(self, engine: str, name: str, n: int) -> Timing | None:
        for timing in self.timings:
            if (timing.engine, timing.workload, timing.n) == (engine, name, n):
                return timing
        return None

    def seconds(self, engine: str, name: str, n: int) -> float | None:
        timing = self.timing(engine, name, n)
        return None if timing is None else timing.seconds

    def speedup(self, engine: str, name: str, n: int) -> float | None:
        """The reference's time over ``engine``'s: the median of paired ratios, else the
        stored median (read from JSON), else the ratio of the medians."""
        interval = self.speedup_interval(engine, name, n)
        return None if interval is None else interval[0]

    def speedup_interval(self, engine: str, name: str, n: int) -> tuple[float, float, float] | None:
        """``(speedup, low, high)``: the 95% sign-test interval of the median pair ratio
        from 6 repeats on, the range of the ratios below that, a point without pairs."""
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
        return next(t.family for t in self.timings if t.workload == name)

    def to_json(self) -> dict[str, Any]:
        """Where and how it was measured, then per cell the median seconds, their
        interval and (for an engine) the speedup and its."""
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
        notes = {"notes": list(self.notes)} if self.notes else {}
        return {"kind": KIND, "clock": self.clock, **where, "results": results, **notes}

    @classmethod
    def from_json(cls, data: Any) -> Report:
        """Read :meth:`to_json`'s output (older reports with every sample too);
        ``ValueError`` (one line, naming the field) if it is not that."""
        try:
            data = stored.mapping(data, "the report")
            if data.get("kind") != KIND:
                return cls._from_samples(data)
            where = {
                key: stored.text(data.get(key), key, optional=True) for key in _CONTEXT_KEYS[:2]
            }
            where["machine"] = stored.strings(data.get("machine"), "machine")
            report = cls([], where, stored.text(data.get("clock"), "clock"))
            results = data.get("results")
            if not isinstance(results, list):
                raise stored.StoredError("results", "absent or not a list")
            for i, result in enumerate(results):
                report._read_cell(stored.mapping(result, f"results[{i}]"), f"results[{i}]")
        except stored.StoredError as exc:
            raise ValueError(f"not a packcheck bench report ({exc})") from None
        return report

    @classmethod
    def _from_samples(cls, data: dict[str, Any]) -> Report:
        """A report from before the kind field, with every sample."""
        timings = data.get("timings")
        if not isinstance(timings, list):
            raise stored.StoredError("timings", "absent or not a list")
        report = cls([], {"machine": stored.strings(data.get("machine", {}), "machine")}, "wall")
        for i, entry in enumerate(timings):
            at = f"timings[{i}]"
            timing = Timing(*stored.cell(stored.mapping(entry, at), at))
            samples = stored.finite(entry.get("samples", []), f"{at}.samples")
            report.timings.append(replace(timing, samples=samples))
        return report

    def _read_cell(self, result: dict[str, Any], at: str) -> None:
        timing = Timing(*stored.cell(result, at))
        if "interval" in result:
            stored.interval(result["interval"], f"{at}.interval", timing.seconds)
        if "repeats" in result:
            stored.whole(result["repeats"], f"{at}.repeats", least=0)
        self.timings.append(timing)
        if "speedup" in result or "speedup_interval" in result:
            speedup = stored.number(result.get("speedup"), f"{at}.speedup", positive=True)
            low, high = stored.interval(
                result.get("speedup_interval"), f"{at}.speedup_interval", speedup, positive=True
            )
            self.stored[timing.engine, timing.workload, timing.n] = (speedup, low, high)


def _ratio(theirs: float, mine: float) -> float:
    return theirs / mine if mine > 0 else math.inf


def _summary(values: list[float]) -> tuple[float, float, float]:
    """The median and its 95% sign-test interval, or the range below 6 values."""
    low, high = median_interval(values, 0.95)
    if math.isinf(low):
        low, high = min(values), max(values)
    return statistics.median(values), low, high


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
    """One row of :func:`run_steps`: each side's seconds per call in every repeat, the
    ``i``-th samples taken back to back."""

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
        """``(speedup, low, high)``: the median ratio of the repeats and its interval."""
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
    timings: list[StepTiming]

    def to_json(self) -> dict[str, Any]:
        """Stored beside a matrix report's keys, which its readers ignore."""
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
