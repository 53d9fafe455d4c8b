"""Declared rules on the engines: side-by-side ratios at 10**6 blocks, in one run.

Usage (from the repository root)::

    .venv/bin/python benchmarks/rule_engine_ratios.py [--n 1000000] [--repeat 3]

For each rule of issue 40's table and each typical workload of ``packcheck bench``, the
interpreter's answer-only loop (:func:`packcheck._rule.answer.kept_blocks`, given Python
lists) and the NumPy and compiled engines (:func:`packcheck._engines.rules.pack_rule`,
given int64 arrays) are timed back to back on the calling thread's CPU (best of
``--repeat``), with the seed's reference (``reference.pack_sizes``) on the same sizes.
IDs are drawn from a pool of 10**5, or of ``n`` below that (``b0``, ``b1``, ... for the
interpreter, their numbers for the engines).  Answers are checked identical first.
Prints, per rule, the median and the worst over the workloads of: the interpreter over
the reference (the largest, and its workload), and the interpreter over each engine
(the smallest); then what meeting every block's ID costs over the reference, with no
lookup (:func:`pack_meeting_ids`) and as ``set(ids)``.  Not a test: ratios move with the
machine's load.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from packcheck import Rule, compiled, reference, scan
from packcheck._bench._workloads import WORKLOADS
from packcheck._engines.rules import pack_rule
from packcheck._rule.answer import kept_blocks
from packcheck._rule.model import Case

#: Issue 40's rules, by the names this script prints.
RULES = {
    "reversed, stop, per_item 4": Rule(order="reversed", on_misfit="stop", per_item=4),
    "pin first, separator 1, reserve 3, lt": Rule(pin="first", separator=1, reserve=3, fit="lt"),
    "dedup kept": Rule(dedup="kept"),
    "middle-out, stop": Rule(order="middle-out", on_misfit="stop"),
    "default": Rule(),
}
POOL = 10**5


def cpu(repeat: int, call: Callable[..., Any], *args: Any, **kwargs: Any) -> float:
    """The best CPU time of ``repeat`` calls of ``call(*args, **kwargs)``."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        call(*args, **kwargs)
        best = min(best, time.process_time() - start)
    return best


def pack_meeting_ids(budget: int, sizes: list[int], ids: list[str]) -> tuple[list[bool], int]:
    """``reference.pack_sizes`` with each block's ID met as well, and not looked up: the
    least a Python scan pays when each block's ID decides it, as under ``dedup = "kept"``
    where every block fits."""
    remaining = budget
    kept: list[bool] = []
    for size, _ in zip(sizes, ids, strict=True):
        fits = size <= remaining
        if fits:
            remaining -= size
        kept.append(fits)
    return kept, remaining


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=10**6)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = args.n
    # The engines take IDs below n (pack_rule), so a shorter run draws from a smaller pool.
    numbers = np.random.default_rng(1).integers(0, min(POOL, n), n)
    names = [f"b{i}" for i in range(POOL)]
    ids = [names[i] for i in numbers.tolist()]
    compiled.pack_sizes(1, np.ones(1, dtype=np.int64))
    ratios: dict[str, list[tuple[float, float, float]]] = {name: [] for name in RULES}
    typical = [w for w in WORKLOADS.values() if w.family == "typical"]
    floors: list[tuple[float, float]] = []
    for workload in typical:
        sizes, budget = workload.generate(n, 0)
        listed = sizes.tolist()
        case = Case(budget, ids, listed, ())  # type: ignore[arg-type]
        seed = cpu(args.repeat, reference.pack_sizes, budget, listed)
        met = cpu(args.repeat, pack_meeting_ids, budget, listed, ids)
        floors.append((met / seed, cpu(args.repeat, set, ids) / seed))
        for name, rule in RULES.items():
            if rule.is_default:
                # The seed's rule: its reference and its kernels, untouched by rules.
                expected = reference.pack_sizes(budget, listed)[0]
                assert scan.pack_sizes(budget, sizes)[0].tolist() == expected
                slow = seed
                numpy = cpu(args.repeat, scan.pack_sizes, budget, sizes)
                numba = cpu(args.repeat, compiled.pack_sizes, budget, sizes)
            else:
                rule_ids = numbers if rule.dedup != "none" else None
                want = kept_blocks(rule, case)
                assert want is not None
                for flag in (False, True):
                    got = pack_rule(rule, budget, sizes, rule_ids, compiled=flag)
                    assert got is not None
                    assert got.flags.tolist() == want.flags
                    assert got.remaining == want.remaining
                slow = cpu(args.repeat, kept_blocks, rule, case)
                numpy = cpu(args.repeat, pack_rule, rule, budget, sizes, rule_ids)
                numba = cpu(args.repeat, pack_rule, rule, budget, sizes, rule_ids, compiled=True)
            ratios[name].append((slow / seed, slow / numpy, slow / numba))
            print(
                f"{workload.name:13} {name:38} interpreter {slow * 1e3:7.1f} ms"
                f" = {slow / seed:4.2f}x reference; numpy {slow / numpy:6.1f}x;"
                f" compiled {slow / numba:6.1f}x",
                flush=True,
            )
    print("\nper rule, median (worst) over the typical workloads:")
    for name, rows in ratios.items():
        slowest = max(range(len(rows)), key=lambda k: rows[k][0])
        cells = [
            f"{statistics.median(row[0] for row in rows):.2f} ({rows[slowest][0]:.2f},"
            f" {typical[slowest].name})"
        ]
        for column in (1, 2):
            values = [row[column] for row in rows]
            cells.append(f"{statistics.median(values):.2f} ({min(values):.2f})")
        print(f"{name:38} interpreter/reference {cells[0]}; numpy {cells[1]}; compiled {cells[2]}")
    cells = []
    for column in (0, 1):
        values = [row[column] for row in floors]
        cells.append(f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})")
    print(
        f"\nmeeting every block's ID, over the reference, median (range): the reference's"
        f" loop meeting each ID too {cells[0]}; set(ids) {cells[1]}"
    )


if __name__ == "__main__":
    main()
