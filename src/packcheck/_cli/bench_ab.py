"""``packcheck bench --against OLD``: NEW against OLD in one process, a verdict each."""

from __future__ import annotations

import argparse
from typing import TextIO

from .._bench import CASE_SIZES, CASE_WORKLOADS, DEFAULT_SIZES, ABReport, Subject, ab
from ._options import FULL_BUDGET, QUICK_BUDGET, QUICK_CASE_SIZES, QUICK_SIZES
from .bench_show import measuring, published, table_ab

#: The shortest sample on the wall clock: a shorter one is mostly the scheduler's.
WALL_MIN_TIME = 0.05


def run_ab(args: argparse.Namespace, new: Subject, old: Subject, clock: str) -> int:
    """Compare, print the table and verdict (with ``--json`` on stderr, the JSON on
    stdout); 1 on a confident slowdown or wrong answers (or, with ``--strict``, an
    inconclusive workload)."""
    cases = "case" in (new.family, old.family)
    if cases:
        sizes = QUICK_CASE_SIZES if args.quick else CASE_SIZES
    else:
        sizes = QUICK_SIZES if args.quick else DEFAULT_SIZES
    with measuring(args.quiet) as shown:
        report = ab(
            new,
            old,
            workloads=args.workload or (CASE_WORKLOADS if cases else None),
            sizes=args.sizes or sizes,
            threshold=args.max_regression,
            time_budget=args.time_budget or (QUICK_BUDGET if args.quick else FULL_BUDGET),
            min_time=min_time(args, clock, 0.005),
            seed=args.seed,
            clock=clock,
            progress=shown,
            recorded=args.recorded,
            rule=args.declared,
        )
    report.notes[:0] = args.read_notes
    text = table_ab(report, new.name, old.name)
    out = published(text, lambda: report.to_json(new.name, old.name), args.format == "json")
    return _verdict(report, args.strict, out)


def min_time(args: argparse.Namespace, clock: str, default: float) -> float:
    """``--min-time``, else ``default`` (on the wall clock at least :data:`WALL_MIN_TIME`)."""
    if args.min_time is not None:
        return float(args.min_time)
    return max(default, WALL_MIN_TIME) if clock == "wall" else default


def _verdict(report: ABReport, strict: bool, out: TextIO) -> int:
    limit = f"{report.threshold:.0%}"
    slower, unsure = (
        [f"{c.workload} n={c.n:,}" for c in report.comparisons if c.estimate.verdict == verdict]
        for verdict in ("slower", "inconclusive")
    )
    if report.status == "fail":
        print(
            f"FAIL: NEW is slower than OLD by more than {limit} on: {', '.join(slower)}", file=out
        )
        return 1
    if report.status == "inconclusive":
        status = "fails under --strict" if strict else "passes; --strict would fail it"
        print(f"inconclusive within the time budget on: {', '.join(unsure)} ({status})", file=out)
        return 1 if strict else 0
    print(f"ok: NEW is not slower than OLD by more than {limit} on any workload", file=out)
    return 0
