"""How many cases a gate run generates and ``rule diff`` searches and shows: here, so
``--help`` states them without importing the gate or Hypothesis."""

from __future__ import annotations

from .jsonio import show

__all__ = ["DEFAULT_BASES", "DEFAULT_CASES", "DEFAULT_MAX_EXAMPLES", "MAX_EXAMPLES", "examples"]

#: Generated (short) cases per run (how long a default run takes: docs/gate.md, "Runs,
#: seeds and time").
DEFAULT_MAX_EXAMPLES = 1000
#: The most generated cases a run takes: a run holds about 10 KB of Hypothesis's
#: bookkeeping per generated case until it ends.
MAX_EXAMPLES = 10**6
#: Small cases ``rule diff`` draws and walks, unless told otherwise.
DEFAULT_BASES = 200
#: Distinct shrunk cases ``rule diff`` reports at most, unless told otherwise.
DEFAULT_CASES = 3


def examples(value: object) -> int:
    """``value`` if it is an integer from 1 to :data:`MAX_EXAMPLES`, else a one-line
    :class:`ValueError`."""
    if type(value) is not int or not 1 <= value <= MAX_EXAMPLES:
        raise ValueError(f"{show(value, 40)} is not a count of cases from 1 to {MAX_EXAMPLES:,}")
    return value
