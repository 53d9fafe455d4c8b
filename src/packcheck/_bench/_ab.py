"""NEW against OLD: two packers timed in one process, in pairs, on the same inputs."""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Literal

from .._rule.declared import Rule
from ._answers import BenchError, Kernel, Progress, check_answers, error_note, first_answer
from ._context import context
from ._paired import Estimate, Verdict
from ._subjects import Cell, Load, Subject, as_subject, where_of
from ._timing import CLOCKS, commands_clock, common_calls, log_ratio, own_clock, paired, wall
from ._workloads import WORKLOADS, Recorded, workload

# Untimed calls of each kernel before the one that sets the calls per sample.
_WARMUP = 2
#: The verdicts in the order reports count them, the one that fails a run first.
VERDICTS: tuple[Verdict, ...] = ("slower", "inconclusive", "faster", "same")
#: A run's verdict, as its last line says it.
Status = Literal["fail", "inconclusive", "ok"]


@dataclass(frozen=True)
class Comparison:
    """NEW against OLD on one workload at one size: the paired estimate of their ratio
    (``estimate.ratio > 1``: NEW is slower) and seconds per call (the median pair's, and
    ``new_median``/``old_median`` each side's own)."""

    workload: str
    family: str
    n: int
    new_seconds: float
    old_seconds: float
    estimate: Estimate
    new_median: float = 0.0
    old_median: float = 0.0


@dataclass
class ABReport:
    comparisons: list[Comparison]
    threshold: float
    confidence: float
    clock: str
    seconds: float
    kinds: tuple[str, str] = ("kernel", "kernel")
    #: Lines on cells that time mostly errors or refusals (:func:`._answers.error_note`).
    notes: list[str] = field(default_factory=list)
    counts: Counter[Verdict] = field(init=False)

    def __post_init__(self) -> None:
        self.counts = Counter(c.estimate.verdict for c in self.comparisons)

    @property
    def status(self) -> Status:
        """The run's verdict: ``fail`` when a comparison is ``slower``, else
        ``inconclusive`` when one is (``--strict`` fails it), else ``ok``."""
        if self.counts["slower"]:
            return "fail"
        return "inconclusive" if self.counts["inconclusive"] else "ok"

    def to_json(self, new: str, old: str) -> dict[str, Any]:
        """What was compared, where, how, and each comparison's times (the median pair's),
        ratio, interval and verdict."""
        return {
            "kind": "packcheck bench A/B",
            "new": new,
            "old": old,
            "status": self.status,
            "verdicts": {verdict: self.counts[verdict] for verdict in VERDICTS},
            "kinds": list(self.kinds),
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
                    "new_seconds": _number(c.new_seconds),
                    "old_seconds": _number(c.old_seconds),
                    "new_median_seconds": _number(c.new_median),
                    "old_median_seconds": _number(c.old_median),
                    "ratio": _number(c.estimate.ratio),
                    "interval": [_number(c.estimate.low), _number(c.estimate.high)],
                    "pairs": c.estimate.pairs,
                    "verdict": c.estimate.verdict,
                }
                for c in self.comparisons
            ],
            **({"notes": list(self.notes)} if self.notes else {}),
        }


def _number(value: float) -> float | None:
    """``value`` for JSON: ``None`` for a time or ratio a cell never measured (NaN) and
    for the open end of an interval too few pairs leave (infinite)."""
    return value if math.isfinite(value) else None


def ab(
    new: Kernel | Subject,
    old: Kernel | Subject,
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
    progress: Progress | None = None,
    recorded: Recorded | None = None,
    rule: Rule | None = None,
) -> ABReport:
    """Time ``new`` against ``old`` on every workload and size, and judge each.

    ``new``/``old`` are kernels or any :class:`Subject`, in any mix (a command needs the
    ``command`` or ``wall`` clock).  Per cell both answers are checked, then pairs are
    taken until the verdict is clear, ``max_pairs``, or the cell's share of what is left
    of ``time_budget`` (wall seconds); a cell left with fewer than ``min_pairs`` pairs is
    ``inconclusive``.  ``recorded`` cases are a cell of their own, first.  Raises
    :class:`BenchError` when the answers differ, one is not an answer, or a kernel
    raises or changes its input; ``ValueError`` for bad clocks or counts.
    """
    subjects = (as_subject("NEW", new), as_subject("OLD", old))
    for subject in subjects:
        subject.rule = rule
    if recorded is not None and subjects[0].family != subjects[1].family:
        recorded = recorded.packable()  # a kernel packs only these: both sides alike
    cells = _cells(subjects, workloads, sizes, clock, (min_pairs, max_pairs), recorded)
    start = wall()
    end = start + time_budget
    rng = random.Random(seed)
    comparisons = []
    notes: list[str] = []
    setup = 0.0  # wall seconds the last cell took before its first pair
    for done, (load, n) in enumerate(cells):
        if progress is not None:
            progress(f"{load.name} n={n:,}", done + 1, len(cells))
        began = wall()
        if began + setup >= end:
            comparisons.append(_unjudged(load, n))
            continue
        # The cell's pairs get an equal share of what its checks and warm-up leave.
        pairs = (min_pairs, max_pairs, end, len(cells) - done)
        judging = (threshold, confidence, min_time)
        compared, setup = _compare(load, n, seed, subjects, pairs, judging, clock, rng, notes)
        comparisons.append(compared)
    kinds = (subjects[0].kind, subjects[1].kind)
    return ABReport(comparisons, threshold, confidence, clock, wall() - start, kinds, notes)


def _cells(
    subjects: tuple[Subject, Subject],
    workloads: Iterable[str] | None,
    sizes: Iterable[int],
    clock: str,
    pairs: tuple[int, int],
    recorded: Recorded | None,
) -> list[tuple[Load, int]]:
    """The recorded cases, then the workloads at the sizes to compare."""
    if clock not in CLOCKS:
        raise ValueError(f"unknown clock {clock!r}; expected one of {', '.join(CLOCKS)}")
    if any(s.kind == "command" for s in subjects):
        commands_clock(clock)
    names = list(workloads) if workloads is not None else list(WORKLOADS)
    ns = sorted(set(sizes))
    cells: list[tuple[Load, int]] = [] if recorded is None else [(recorded, len(recorded.recorded))]
    cells += [(workload(name), n) for name in names for n in ns]
    if not cells or (ns and ns[0] < 1) or not 1 <= pairs[0] <= pairs[1]:
        raise ValueError("need a workload, sizes >= 1 and 1 <= min_pairs <= max_pairs")
    return cells


def _compare(
    load: Load,
    n: int,
    seed: int,
    subjects: tuple[Subject, Subject],
    pairs: tuple[int, int, float, int],
    judging: tuple[float, float, float],
    clock_name: str,
    rng: random.Random,
    notes: list[str],
) -> tuple[Comparison, float]:
    """The comparison on one cell and the wall seconds before its first pair; ``pairs``
    is ``(min_pairs, max_pairs, end, cells)``: an equal share of the time to ``end``."""
    began = wall()
    where = where_of(load, n)
    # Both sides of one family pack the very same input objects: each side's own copy
    # biased the ratio by where in memory it landed (docs/performance.md).
    alike = subjects[0].family == subjects[1].family
    inputs = subjects[0].inputs(load, n, seed) if alike else None
    cells = (subjects[0].cell(load, n, seed, inputs), subjects[1].cell(load, n, seed, inputs))
    case = partial(_case, load, n, seed, subjects[0].family == "kernel")
    note = error_note(_check_answers(where, subjects, cells, case), where)
    if note is not None:
        notes.append(note)
    clocks = (own_clock(clock_name, id(subjects[0])), own_clock(clock_name, id(subjects[1])))
    runs = (cells[0].run, cells[1].run)
    number = common_calls(runs, clocks, judging[2], warmup=_WARMUP)
    now = wall()
    setup = now - began
    min_pairs, max_pairs, end, cells_left = pairs
    deadline = now + max(0.0, end - now) / cells_left
    judged, samples = paired(
        runs, number, clocks, rng, (min_pairs, max_pairs, deadline), judging[:2]
    )
    if judged is None or judged.pairs < min_pairs:
        # Cut short by the budget: too few pairs for any verdict, whatever they say.
        if judged is None:
            return _unjudged(load, n), setup
        judged = replace(judged, verdict="inconclusive")
    new_seconds, old_seconds = _median_pair(*samples)
    medians = (statistics.median(times) for times in samples)
    return Comparison(load.name, load.family, n, new_seconds, old_seconds, judged, *medians), setup


def _unjudged(load: Load, n: int) -> Comparison:
    nothing = Estimate(math.nan, math.nan, math.nan, 0, "inconclusive")
    return Comparison(load.name, load.family, n, math.nan, math.nan, nothing, math.nan, math.nan)


def _median_pair(new: list[float], old: list[float]) -> tuple[float, float]:
    """The times of the pair whose ratio is the median (of the two middle pairs, their
    geometric means): their ratio is the median ratio."""
    ratios = [log_ratio(a, b) for a, b in zip(new, old, strict=True)]
    order = sorted(range(len(ratios)), key=ratios.__getitem__)
    low, high = order[(len(order) - 1) // 2], order[len(order) // 2]
    return math.sqrt(new[low] * new[high]), math.sqrt(old[low] * old[high])


def _case(load: Load, n: int, seed: int, kernel: bool, first: int | None) -> str:
    """Which case of a cell two sides answer differently, so that it can be rerun: a
    workload's one case by its seed, a recorded case by its place among those read
    (``first``: the index of the first answer that differs, ``None`` for the one; among
    the cases a kernel can pack, for a ``kernel``)."""
    if isinstance(load, Recorded):
        chosen = (load.packable() if kernel else load).recorded[first or 0]
        place = next(k for k, case in enumerate(load.recorded) if case is chosen)
        return f", first on recorded case {place + 1:,} of {len(load.recorded):,}"
    return f", seed {seed} (--workload {load.name} --sizes {n} --seed {seed})"


def _check_answers(
    where: str,
    subjects: tuple[Subject, Subject],
    cells: tuple[Cell, Cell],
    case: Callable[[int | None], str] | None = None,
) -> Any:
    """NEW's answer, once both are checked (``case``: which case two that differ
    differ on, as :func:`check_answers` is told)."""
    answers = {}
    for label, cell in zip(("NEW", "OLD"), cells, strict=True):
        answers[label] = first_answer(label, cell.answer, where, shape=cell.shape)
        if not cell.untouched():
            raise BenchError(f"{label} changed its input {where}")
    if subjects[0].family == subjects[1].family:
        check_answers(answers, cells[0].expected, where, case)
        return answers["NEW"]
    for (label, answer), cell in zip(answers.items(), cells, strict=True):
        check_answers({label: answer}, cell.expected, where)
    return answers["NEW"]
