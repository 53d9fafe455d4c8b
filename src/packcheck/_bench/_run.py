"""The matrix (:func:`run`), the engines at agents' sizes (:func:`run_steps`) and the
check of a run against a stored baseline (:func:`compare`)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from .. import reference
from .._engines import numpy_entry as scan
from .._engines.choice import Engine
from .._engines.pack import pack, pack_many
from .._rule.declared import Rule
from ._answers import BenchError, Kernel, Progress, check_answers, error_note, first_answer
from ._context import MACHINE_KEYS, VERSION_KEYS, context, mismatches
from ._report import CALLS, REFERENCE, Report, StepsReport, StepTiming, Timing
from ._subjects import Load, Subject, as_subject, where_of
from ._timing import CLOCKS, Run, calls_per_sample, commands_clock, in_turn, repeated
from ._workloads import WORKLOADS, Batch, Recorded, Workload, batch_of_steps, workload

#: Powers of ten from 10 blocks (one model step packs tens to a thousand) to 10**6.
DEFAULT_SIZES: tuple[int, ...] = (10, 10**2, 10**3, 10**4, 10**5, 10**6)
#: Sizes for case-level and command packers: agent-sized steps, then long lists.
CASE_SIZES: tuple[int, ...] = (10, 100, 1000, 10**4, 10**5)
#: Workloads for case-level and command packers: every one whose numbers JSON
#: implementations all hold exactly (up to 2**53 - 1; ``huge-budget-alt`` goes past it).
CASE_WORKLOADS: tuple[str, ...] = tuple(name for name in WORKLOADS if name != "huge-budget-alt")
#: Blocks per case where agents pack: one model step is tens to a thousand blocks.
STEP_SIZES: tuple[int, ...] = (10, 100, 1000)
#: The workloads :func:`run_steps` packs one step at a time unless told.
STEP_WORKLOADS: tuple[str, ...] = ("uniform-50%", "doc-chunks", "alternating")
#: Model steps (of 10-200 blocks) in :func:`run_steps`'s batch workload.
STEPS = 10_000
_reference: Callable[[int, list[int]], tuple[list[bool], int]] = reference.pack_sizes


def run(
    *,
    packers: Mapping[str, Kernel | Subject] | None = None,
    sizes: Iterable[int] = DEFAULT_SIZES,
    workloads: Iterable[str] | None = None,
    repeat: int = 5,
    seed: int = 0,
    reference_limit: int = 10**6,
    min_time: float = 0.02,
    clock: str = "thread",
    progress: Progress | None = None,
    recorded: Recorded | None = None,
    rule: Rule | None = None,
) -> Report:
    """Time ``packers`` (default: the NumPy packer as ``"numpy"``) and the reference.

    A packer is a kernel (``pack_sizes(budget, sizes)``) or any :class:`Subject`; one
    run's are all kernel-level or all case-level (the reference then ``pack(case)``,
    under ``rule``).  ``recorded`` cases are a workload of their own, first.  Per cell
    each answer is checked, then ``repeat`` rounds time every packer in turn.  Raises
    :class:`BenchError` when an answer is wrong or an input mutated.
    """
    given = dict(packers) if packers is not None else {"numpy": scan.pack_sizes}
    chosen = {name: as_subject(name, packer) for name, packer in given.items()}
    timer = CLOCKS[clock]  # KeyError before any work for an unknown clock
    if len({packer.family for packer in chosen.values()}) > 1:
        raise ValueError("kernel-level and case-level packers are timed in separate runs")
    if any(packer.kind == "command" for packer in chosen.values()):
        commands_clock(clock)
    for packer in chosen.values():
        packer.rule = rule
    names = list(workloads) if workloads is not None else list(WORKLOADS)
    ns = sorted(set(sizes))
    if repeat < 1 or not ns or ns[0] < 1:
        raise ValueError("sizes and repeat must be at least 1")
    cells: list[tuple[Load, int]] = [] if recorded is None else [(recorded, len(recorded.recorded))]
    cells += [(workload(name), n) for name in names for n in ns]
    timings: list[Timing] = []
    notes: list[str] = []
    for done, (load, n) in enumerate(cells):
        if progress is not None:
            progress(f"{load.name} n={n:,}", done + 1, len(cells))
        rounds = (repeat, min_time)
        measured = _measure(load, n, seed, chosen, rounds, n <= reference_limit, timer, notes)
        timings += measured
    return Report(timings, context(), clock, notes=notes)


def _measure(
    load: Load,
    n: int,
    seed: int,
    packers: Mapping[str, Subject],
    rounds: tuple[int, float],
    with_reference: bool,
    clock: Callable[[], float],
    notes: list[str],
) -> list[Timing]:
    repeat, min_time = rounds
    where = where_of(load, n)
    runs: dict[str, Run] = {}
    numbers: dict[str, int] = {}
    cases = any(packer.family == "case" for packer in packers.values())
    rule = next(iter(packers.values())).rule
    calls: list[Callable[[], Any]]
    if cases:
        inputs: list[Any] = load.cases(n, seed, rule)
        shared = inputs
        engine: Engine = "reference" if with_reference or rule is not None else "numpy"
        calls = [partial(pack, case, engine=engine, rule=rule) for case in inputs]
        budget = inputs[0]["budget"] if isinstance(load, Workload) else 0
    else:
        arrays = load.arrays(n, seed)
        shared = arrays
        if with_reference:
            calls = [partial(_reference, b, s.tolist()) for s, b in arrays]
        else:
            calls = [partial(_numpy_answer, b, s) for s, b in arrays]
        budget = arrays[0][1] if isinstance(load, Workload) else 0
    # One case is called as it is: a wrapper's cost would count in the reference's time.
    call = calls[0] if len(calls) == 1 else partial(_each_answer, calls)
    if with_reference:
        expected = first_answer(REFERENCE, call, where)
        runs[REFERENCE] = repeated(call)
        numbers[REFERENCE] = calls_per_sample(runs[REFERENCE], clock, min_time)
    else:
        expected = call()
    note = error_note(expected, where)
    if note is not None:
        notes.append(note)
    for name, packer in packers.items():
        # Every packer packs the same input objects, as NEW and OLD do (_ab._compare).
        cell = packer.cell(load, n, seed, shared)
        check_answers({name: first_answer(name, cell.answer, where)}, lambda: expected, where)
        if not cell.untouched():
            raise BenchError(f"{name} changed its input {where}")
        runs[name] = cell.run
        numbers[name] = calls_per_sample(cell.run, clock, min_time)
    samples = in_turn(runs, numbers, repeat, clock)
    return [
        Timing(name, load.name, load.family, n, budget, seed, statistics.median(t), tuple(t))
        for name, t in samples.items()
    ]


def _each_answer(calls: list[Callable[[], Any]]) -> list[Any]:
    return [call() for call in calls]


def _numpy_answer(budget: int, sizes: Any) -> tuple[list[bool], int]:
    mask, remaining = scan.pack_sizes(budget, sizes)
    return mask.tolist(), remaining


def run_steps(
    *,
    workloads: Iterable[str] | None = None,
    sizes: Iterable[int] = STEP_SIZES,
    steps: int | None = None,
    repeat: int = 5,
    seed: int = 0,
    min_time: float = 0.02,
    clock: str = "thread",
    progress: Progress | None = None,
) -> StepsReport:
    """The engines at the sizes agents pack, each row's two sides (:data:`CALLS`) timed
    in turn: ``pack(case)`` on cases of ``sizes`` blocks from ``workloads``, then the
    batch calls on ``steps`` model steps.  Raises :class:`BenchError` when the sides'
    answers differ or an input changes.
    """
    timer = CLOCKS[clock]  # KeyError before any work for an unknown clock
    loads = [workload(name) for name in (STEP_WORKLOADS if workloads is None else workloads)]
    ns = sorted(set(sizes))
    count = STEPS if steps is None else steps
    if repeat < 1 or not ns or ns[0] < 1 or count < 0:
        raise ValueError("sizes and repeat must be at least 1, steps at least 0")
    rounds = (repeat, min_time)
    total = len(loads) * len(ns) + (2 if count else 0)
    timings: list[StepTiming] = []

    def say(message: str) -> None:
        if progress is not None:
            progress(f"steps: {message}", len(timings) + 1, total)

    for load in loads:
        for n in ns:
            say(f"pack(case) {load.name} n={n:,}")
            case = load.case(n, seed)
            one = (partial(pack, case, engine="reference"), partial(pack, case, engine="numpy"))
            samples = _pair(one, rounds, timer, f"{load.name} at n={n:,}", "pack(case)")
            timings.append(StepTiming("pack(case)", load.name, 1, n, n, n, seed, *samples))
    if count:
        _batches(count, seed, rounds, timer, say, timings)
    return StepsReport(timings)


def _batches(
    count: int,
    seed: int,
    rounds: tuple[int, float],
    timer: Callable[[], float],
    say: Callable[[str], None],
    timings: list[StepTiming],
) -> None:
    """The rows of :func:`run_steps` on ``count`` steps in one call."""
    batch = batch_of_steps(count, seed)
    shape = (count, int(batch.offsets[-1]), 10, 200, seed)
    say(f"pack_batch {count:,} steps")
    samples = _batch_pair(batch, rounds, timer)
    timings.append(StepTiming("pack_batch", "batch_of_steps", *shape, *samples))
    say(f"pack_many {count:,} steps")
    cases = batch.as_cases()
    many = (partial(_case_by_case, cases), partial(pack_many, cases, engine="numpy"))
    samples = _pair(many, rounds, timer, f"{count:,} steps", "pack_many")
    timings.append(StepTiming("pack_many", "batch_of_steps", *shape, *samples))


def _case_by_case(cases: list[Any]) -> list[dict[str, Any]]:
    return [pack(case) for case in cases]


def _batch_pair(
    batch: Batch, rounds: tuple[int, float], clock: Callable[[], float]
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    steps = batch.cases()
    arrays = (batch.budgets, batch.sizes, batch.offsets)
    pristine = [array.copy() for array in arrays]
    bounds = batch.offsets.tolist()

    def per_step() -> list[tuple[list[bool], int]]:
        return [_reference(budget, sizes) for budget, sizes in steps]

    def per_step_answers(answer: Any) -> list[tuple[list[bool], int]]:
        kept, remaining = answer
        return [
            (kept[lo:hi].tolist(), left)
            for lo, hi, left in zip(bounds, bounds[1:], remaining.tolist(), strict=False)
        ]

    sides = (per_step, partial(scan.pack_batch, *arrays))
    where = f"{len(steps):,} steps"
    samples = _pair(sides, rounds, clock, where, "pack_batch", per_step_answers)
    if not all(np.array_equal(a, b) for a, b in zip(arrays, pristine, strict=True)):
        raise BenchError(f"{CALLS['pack_batch'][1]} changed its input")
    return samples


def _pair(
    sides: tuple[Callable[[], Any], Callable[[], Any]],
    rounds: tuple[int, float],
    clock: Callable[[], float],
    where: str,
    call: str,
    read: Callable[[Any], Any] | None = None,
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The samples of the reference side and the NumPy side, timed in turn, once the
    NumPy side's answer (put as the reference side's by ``read``) is checked."""
    repeat, min_time = rounds
    label = CALLS[call][1]
    expected = first_answer(CALLS[call][0], sides[0], f"on {where}")
    answer = first_answer(label, sides[1], f"on {where}", read)
    check_answers({label: answer}, lambda: expected, f"on {where}")
    runs = {"r": repeated(sides[0]), "n": repeated(sides[1])}
    numbers = {name: calls_per_sample(run, clock, min_time) for name, run in runs.items()}
    samples = in_turn(runs, numbers, repeat, clock)
    return tuple(samples["r"]), tuple(samples["n"])


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


def compared(baseline: Report, current: Report) -> list[tuple[str, str, int]]:
    """``(engine, workload, n)`` for every engine and workload of ``current`` with a
    speedup in both reports, at the largest such n."""
    cells = []
    for engine in current.engines():
        for name in current.workloads():
            common = [
                n
                for n in current.sizes()
                if current.speedup(engine, name, n) is not None
                and baseline.speedup(engine, name, n) is not None
            ]
            if engine != REFERENCE and common:
                cells.append((engine, name, common[-1]))
    return cells


def compare(baseline: Report, current: Report, max_regression: float) -> list[Regression]:
    """Every engine and workload (:func:`compared`) whose speedup fell by more than
    ``max_regression``: the top of the current interval is below the bottom of the
    baseline's, less that fraction.  A speedup that is not finite is a fall."""
    regressions = []
    for engine, name, n in compared(baseline, current):
        before = baseline.speedup_interval(engine, name, n)
        now = current.speedup_interval(engine, name, n)
        assert before is not None  # compared says so
        assert now is not None
        # NaN compares false with everything: a speedup that is not a finite number
        # (a call timed at 0 s) fails, or it would pass any gate.
        finite = all(math.isfinite(value) for value in (*before, *now))
        if not finite or now[2] < before[1] * (1 - max_regression):
            regressions.append(Regression(engine, name, n, before, now))
    return regressions


def differences(baseline: Report, current: Report) -> tuple[list[str], list[str]]:
    """How the machines differ, then how the Python and NumPy versions do."""
    before, now = baseline.machine, current.machine
    return mismatches(before, now, MACHINE_KEYS), mismatches(before, now, VERSION_KEYS)
