"""The differential gate: does a packer give the declared output on every case?

:func:`run` checks a packer (a Python callable or a command speaking JSON Lines)
against the reference, phase by phase, and returns a :class:`Summary`;
:func:`check` is the same gate for a test suite and raises :class:`Counterexample`.
"""

from __future__ import annotations

from .._packers import Packer, PackerFault, SetupError
from ._gate import (
    DEFAULT_MAX_EXAMPLES,
    PHASES,
    SHRINK_SECONDS,
    Counterexample,
    Finding,
    Fixture,
    InvariantError,
    Progress,
    Summary,
    check,
    check_output,
    check_trace,
    read_fixtures,
    run,
    seed_fixtures,
    show_answer,
)

__all__ = [
    "DEFAULT_MAX_EXAMPLES",
    "PHASES",
    "SHRINK_SECONDS",
    "Counterexample",
    "Finding",
    "Fixture",
    "InvariantError",
    "Packer",
    "PackerFault",
    "Progress",
    "SetupError",
    "Summary",
    "check",
    "check_output",
    "check_trace",
    "read_fixtures",
    "run",
    "seed_fixtures",
    "show_answer",
]
