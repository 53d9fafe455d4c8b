"""What the option table names but cannot import at once (the gate's formats import
Hypothesis, ``bench``'s workloads NumPy): each a :class:`Later`, made when a command's
options are, so that a command imports only what its own options name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Later:
    """``make()`` makes the value."""

    make: Callable[[], Any]


@Later
def formats() -> Sequence[str]:
    from .._gate import FORMATS

    return FORMATS


@Later
def connect_timeout() -> float:
    from .._cluster import CONNECT_TIMEOUT

    return CONNECT_TIMEOUT


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
