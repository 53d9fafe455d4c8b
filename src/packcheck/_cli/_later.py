"""What the option table names but cannot import at once: each value a :class:`Later`,
made when a command's options are (the gate's formats import Hypothesis, ``bench``'s
names NumPy's workloads, ``rule diff``'s limits the rules), so that a command, or the
pytest plugin, imports only what its own options name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Later",
    "cases_help",
    "clocks",
    "connect_timeout",
    "engines",
    "formats",
    "kinds",
    "line_help",
    "max_line_bytes",
    "quick_help",
    "rule_diff_bases",
    "rule_diff_bases_help",
    "rule_diff_cases",
    "rule_diff_cases_help",
    "steps_help",
    "time_budget_help",
    "workload_help",
    "workloads",
]


@dataclass(frozen=True, slots=True)
class Later:
    """A value the table names but cannot import at once: ``make()`` makes it."""

    make: Callable[[], Any]


@Later
def formats() -> Sequence[str]:
    from .._gate import FORMATS

    return FORMATS


@Later
def engines() -> Sequence[str]:
    from .._engines.choice import ENGINES

    return ENGINES


@Later
def connect_timeout() -> float:
    from .._cluster import CONNECT_TIMEOUT

    return CONNECT_TIMEOUT


@Later
def max_line_bytes() -> int:
    from .._rule.lines import MAX_LINE_BYTES

    return MAX_LINE_BYTES


@Later
def line_help() -> str:
    return (
        "refuse, as malformed, an input line (a case, a record, a document read whole, a "
        "CSV table) longer than BYTES, never holding it whole; 64M, 1G, or digits "
        f"(default: {max_line_bytes.make() >> 20}M)"
    )


@Later
def kinds() -> Sequence[str]:
    from .._bench import KINDS

    return KINDS


@Later
def workloads() -> list[str]:
    from .._bench import WORKLOADS

    return list(WORKLOADS)


@Later
def clocks() -> list[str]:
    from .._bench import CLOCKS

    return list(CLOCKS)


@Later
def rule_diff_bases() -> int:
    from ..rules import DEFAULT_BASES

    return DEFAULT_BASES


@Later
def rule_diff_bases_help() -> str:
    return f"small cases drawn and walked (default: {rule_diff_bases.make()})"


@Later
def rule_diff_cases() -> int:
    from ..rules import DEFAULT_CASES

    return DEFAULT_CASES


@Later
def rule_diff_cases_help() -> str:
    return f"cases shown at most, smallest first (default: {rule_diff_cases.make()})"


@Later
def workload_help() -> str:
    # argparse expands %-formats in help: the names hold % signs.
    return f"only this workload (repeatable): {', '.join(workloads.make()).replace('%', '%%')}"


@Later
def steps_help() -> str:
    from .._bench import STEP_WORKLOADS, STEPS

    return (
        "after the matrix, the engines at the sizes agents pack: pack(case) with "
        "either engine at 10, 100 and 1,000 blocks (on the --workload ones, else "
        f"{', '.join(STEP_WORKLOADS).replace('%', '%%')}), and {STEPS:,} "
        "steps of 10-200 blocks: scan.pack_batch against the reference once per step, "
        'pack_many(engine="numpy") against pack case by case (default: on when neither '
        "--sizes nor --workload narrows the matrix and no packer is given)"
    )


@Later
def quick_help() -> str:
    from .bench import FULL_REPEAT, QUICK_REPEAT

    return f"{QUICK_REPEAT} repeats, not {FULL_REPEAT}; with --against, n=100000 only"


@Later
def time_budget_help() -> str:
    from .bench_ab import QUICK_BUDGET

    return (
        f"--against: wall seconds for the comparison, checks and warm-ups included "
        f"(default: {QUICK_BUDGET:g} with --quick, else 120); sampling stops early where "
        "every verdict is clear, and a cell the budget leaves too few pairs is inconclusive"
    )


@Later
def cases_help() -> str:
    from .bench_cases import MAX_CASES

    return (
        "also time the packers on these recorded cases (files, globs, .gz, fsspec "
        "URLs; JSON Lines, a recorded run, CSV: what pack reads), as a workload of their "
        f"own, 'recorded', first; the first {MAX_CASES:,} cases at most; with --workload "
        "only the workloads named as well"
    )
