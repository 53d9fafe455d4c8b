"""How every benchmark takes its samples: the clocks, calls per sample, the samplers.

A *sample* is the time of ``number`` calls of a :data:`Run` divided by ``number``, the
garbage collector off.  The clocks: docs/performance.md, "Running the benchmarks".
"""

from __future__ import annotations

import gc
import math
import os
import random
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

from ._paired import Estimate, estimate

# The processes whose CPU time the ``command`` clock adds, by who watches them.
_watched: dict[int, Callable[[], int | None]] = {}


def watch(key: int, pid: Callable[[], int | None]) -> None:
    """Add the CPU time of process ``pid()`` (while it is not ``None``) to the
    ``command`` clock, until :func:`unwatch` with the same ``key``."""
    _watched[key] = pid


def unwatch(key: int) -> None:
    _watched.pop(key, None)


def _process_cpu(pid: int) -> float:
    """Seconds on a CPU of every thread of process ``pid`` (Linux ``schedstat``)."""
    total = 0
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:  # the process has ended
        return 0.0
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat", encoding="ascii") as stream:
                total += int(stream.read().split()[0])
        except OSError:
            continue
    return total / 1e9


def command_clock(only: int | None = None) -> float:
    """The calling thread's CPU time plus that of the watched processes (``only``: of
    the one watched under that key)."""
    pids = _watched.values() if only is None else [_watched.get(only, lambda: None)]
    running = (pid() for pid in list(pids))
    return time.thread_time() + sum(_process_cpu(pid) for pid in running if pid is not None)


#: Whether this system shows a process's CPU time in nanoseconds (Linux), which the
#: ``command`` clock reads.
COMMAND_CLOCK = os.path.isfile(f"/proc/{os.getpid()}/task/{os.getpid()}/schedstat")
#: The clocks a sample can be taken on, by name.
CLOCKS: dict[str, Callable[[], float]] = {
    "thread": time.thread_time,
    "process": time.process_time,
    "wall": time.perf_counter,
    "command": command_clock,
}
#: ``run(number)``: do the timed work ``number`` times.
Run = Callable[[int], Any]
# A time budget is the caller's: always wall time.  Looked up at each use, so a test
# can put a whole run on simulated time.
_wall: Callable[[], float] = time.monotonic
# Calls per sample at most, so a call that seems free cannot loop for ever.
_MAX_CALLS = 10_000
# Wall seconds a sample lasts at most, however little it costs on its clock: a packer
# that waits (sleeps, or asks a server) costs no CPU time, and 10,000 of its calls
# would outlast any time budget.
MAX_SAMPLE_WALL = 1.0


def own_clock(name: str, key: int) -> Callable[[], float]:
    """The clock ``name`` as it times the packer watched under ``key``: on the
    ``command`` clock its process alone, so that none is charged with another's work."""
    clock = CLOCKS[name]
    return partial(command_clock, key) if clock is command_clock else clock


def commands_clock(clock: str) -> None:
    """``ValueError`` unless ``clock`` sees a command packer's work: ``command`` (where
    :data:`COMMAND_CLOCK`) or ``wall``."""
    if clock not in ("command", "wall") or (clock == "command" and not COMMAND_CLOCK):
        usable = "command or wall" if COMMAND_CLOCK else "wall"
        raise ValueError(
            f"the {clock} clock cannot see a command packer's work (it runs in another "
            f"process): use the {usable} clock"
        )


def wall() -> float:
    """Wall seconds, for time budgets (never for samples)."""
    return _wall()


def repeated(call: Callable[[], Any]) -> Run:

    def run(number: int) -> None:
        for _ in range(number):
            call()

    return run


@contextmanager
def collector_off() -> Iterator[None]:
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def sample(run: Run, number: int, clock: Callable[[], float]) -> float:
    start = clock()
    run(number)
    return (clock() - start) / number


def calls_per_sample(run: Run, clock: Callable[[], float], min_time: float) -> int:
    return common_calls((run,), (clock,), min_time)


def common_calls(
    runs: Sequence[Run], clocks: Sequence[Callable[[], float]], min_time: float, *, warmup: int = 0
) -> int:
    """How many calls make a sample of the slowest of ``runs`` last ``min_time`` (1 to
    the cap), judged by one timed call of each after ``warmup`` untimed ones, in turn;
    at most :data:`MAX_SAMPLE_WALL` wall seconds a sample."""
    for _ in range(warmup):
        for run, clock in zip(runs, clocks, strict=True):
            if _timed(run, clock)[1] >= MAX_SAMPLE_WALL:
                return 1
    number = _MAX_CALLS
    for run, clock in zip(runs, clocks, strict=True):  # every run, each as often as the rest
        once, took = _timed(run, clock)
        by_clock = 1 if once >= min_time else math.ceil(min_time / max(once, 1e-9))
        number = min(number, by_clock, math.floor(MAX_SAMPLE_WALL / max(took, 1e-9)))
    return max(1, number)


def _timed(run: Run, clock: Callable[[], float]) -> tuple[float, float]:
    start = wall()
    once = sample(run, 1, clock)
    return once, wall() - start


def in_turn(
    runs: Mapping[str, Run], numbers: Mapping[str, int], repeat: int, clock: Callable[[], float]
) -> dict[str, list[float]]:
    """Seconds per call of each of ``runs`` in each of ``repeat`` rounds, timed in turn,
    the order alternating so neither always runs first (warm caches)."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    with collector_off():
        for index in range(repeat):
            for name in list(runs)[:: 1 if index % 2 == 0 else -1]:
                samples[name].append(sample(runs[name], numbers[name], clock))
    return samples


def paired(
    runs: tuple[Run, Run],
    number: int,
    clocks: tuple[Callable[[], float], Callable[[], float]],
    rng: random.Random,
    pairs: tuple[int, int, float],
    judging: tuple[float, float],
) -> tuple[Estimate | None, tuple[list[float], list[float]]]:
    """Pairs of samples of ``runs`` (NEW, OLD), each back to back in a random order,
    until the verdict is clear (from ``min_pairs`` on), ``max_pairs``, or the wall
    ``deadline`` (``pairs``); the estimate (``None`` without a pair) and the samples."""
    min_pairs, max_pairs, deadline = pairs
    samples: tuple[list[float], list[float]] = ([], [])
    log_ratios: list[float] = []
    took = 0.0  # the last pair's wall seconds: a pair is begun only if one more fits
    with collector_off():
        while (began := wall()) + took < deadline:
            order = (0, 1) if rng.random() < 0.5 else (1, 0)
            for side in order:
                samples[side].append(sample(runs[side], number, clocks[side]))
            took = wall() - began
            log_ratios.append(log_ratio(samples[0][-1], samples[1][-1]))
            if len(log_ratios) < min_pairs:
                continue
            judged = estimate(log_ratios, *judging)
            if judged.verdict != "inconclusive" or len(log_ratios) >= max_pairs:
                break
    return (estimate(log_ratios, *judging) if log_ratios else None), samples


def log_ratio(new: float, old: float) -> float:
    # A sample below the clock's resolution reads 0: count it as one tick (1 ns),
    # so the ratio stays finite and still says which side was faster.
    return math.log(max(new, 1e-9) / max(old, 1e-9))
