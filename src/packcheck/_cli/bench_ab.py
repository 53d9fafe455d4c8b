"""``packcheck bench --against OLD``: NEW against OLD in one process, a verdict each."""

from __future__ import annotations

import argparse
import sys

from ..bench import _run as bench
from .bench_show import progress, progress_done, table_ab, write_json

__all__ = ["FULL_BUDGET", "QUICK_BUDGET", "QUICK_SIZES", "run_ab"]

#: ``--quick``: one size, half a minute.  Without it: every size, two minutes.
QUICK_SIZES = (10**5,)
QUICK_BUDGET = 30.0
FULL_BUDGET = 120.0


def run_ab(args: argparse.Namespace, new: bench.Kernel, old: bench.Kernel) -> int:
    """Compare, print the table; 1 on a confident slowdown or differing answers (or,
    with ``--strict``, an inconclusive workload), 2 when ``--json`` cannot be written."""
    try:
        report = bench.ab(
            new,
            old,
            workloads=args.workload,
            sizes=args.sizes or (QUICK_SIZES if args.quick else bench.DEFAULT_SIZES),
            threshold=args.max_regression,
            time_budget=args.time_budget or (QUICK_BUDGET if args.quick else FULL_BUDGET),
            seed=args.seed,
            clock=args.clock,
            progress=progress(),
        )
    except bench.BenchError as exc:
        print(f"packcheck: {exc}", file=sys.stderr)
        return 1
    finally:
        progress_done()
    new_spec = args.packer[0] if args.packer else "packcheck.scan:pack_sizes"
    print(table_ab(report, new_spec, args.against))
    if args.json:
        try:
            write_json(args.json, report.to_json(new_spec, args.against))
        except OSError as exc:
            print(f"packcheck: {exc.filename}: cannot write: {exc.strerror}", file=sys.stderr)
            return 2
    limit = f"{report.threshold:.0%}"
    slower = [
        f"{c.workload} n={c.n:,}" for c in report.comparisons if c.estimate.verdict == "slower"
    ]
    unsure = [
        f"{c.workload} n={c.n:,}"
        for c in report.comparisons
        if c.estimate.verdict == "inconclusive"
    ]
    if slower:
        print(f"FAIL: NEW is slower than OLD by more than {limit} on: {', '.join(slower)}")
        return 1
    if unsure:
        status = "fails under --strict" if args.strict else "passes; --strict would fail it"
        print(f"inconclusive within the time budget on: {', '.join(unsure)} ({status})")
        return 1 if args.strict else 0
    print(f"ok: NEW is not slower than OLD by more than {limit} on any workload")
    return 0
