"""Benchmarks of the packers, measured side by side, and gates on their speed: the room
behind ``packcheck bench``, whose public face is :mod:`packcheck.bench`.

:func:`ab` times NEW against OLD in pairs; :func:`run` times packers and the reference
on the same seeded data; :func:`run_steps` packs agent-sized steps;
:func:`compare` checks a run against a stored baseline.
"""

from __future__ import annotations

from ._ab import VERDICTS, ABReport, ab
from ._answers import BenchError, Kernel
from ._context import context
from ._limit import Limit
from ._report import CALLS, KIND, REFERENCE, TIE, Report, StepsReport, StepTiming, Timing
from ._run import (
    CASE_SIZES,
    CASE_WORKLOADS,
    DEFAULT_SIZES,
    STEP_WORKLOADS,
    STEPS,
    compare,
    compared,
    differences,
    run,
    run_steps,
)
from ._subjects import KINDS, CaseSubject, CommandSubject, KernelSubject, Subject, python_subject
from ._timing import CLOCKS, COMMAND_CLOCK, commands_clock
from ._workloads import WORKLOADS, Recorded

__all__ = [
    "CALLS",
    "CASE_SIZES",
    "CASE_WORKLOADS",
    "CLOCKS",
    "COMMAND_CLOCK",
    "DEFAULT_SIZES",
    "KIND",
    "KINDS",
    "REFERENCE",
    "STEPS",
    "STEP_WORKLOADS",
    "TIE",
    "VERDICTS",
    "WORKLOADS",
    "ABReport",
    "BenchError",
    "CaseSubject",
    "CommandSubject",
    "Kernel",
    "KernelSubject",
    "Limit",
    "Recorded",
    "Report",
    "StepTiming",
    "StepsReport",
    "Subject",
    "Timing",
    "ab",
    "commands_clock",
    "compare",
    "compared",
    "context",
    "differences",
    "python_subject",
    "run",
    "run_steps",
]
