"""Benchmarks of the packers, measured side by side, and gates on their speed.

:func:`ab` is the gate to use: NEW against OLD, timed in pairs in one process, a
verdict per workload.  :func:`run` times every engine and the reference on the same
seeded data; :func:`run_steps` packs agent-sized steps one at a time and in a batch;
:func:`compare` checks a run against a stored baseline.
"""

from __future__ import annotations

from ._ab import CLOCKS, ABReport, Comparison, ab
from ._context import context
from ._kernels import BenchError, Kernel
from ._report import KIND, REFERENCE, Report, Timing
from ._run import (
    DEFAULT_SIZES,
    STEP_SIZES,
    STEP_WORKLOADS,
    STEPS,
    Regression,
    compare,
    differences,
    run,
    run_steps,
)
from ._steps import CALLS, TIE, StepsReport, StepTiming
from ._workloads import WORKLOADS

__all__ = [
    "CALLS",
    "CLOCKS",
    "DEFAULT_SIZES",
    "KIND",
    "REFERENCE",
    "STEPS",
    "STEP_SIZES",
    "STEP_WORKLOADS",
    "TIE",
    "WORKLOADS",
    "ABReport",
    "BenchError",
    "Comparison",
    "Kernel",
    "Regression",
    "Report",
    "StepTiming",
    "StepsReport",
    "Timing",
    "ab",
    "compare",
    "context",
    "differences",
    "run",
    "run_steps",
]
