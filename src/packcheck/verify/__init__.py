"""The differential gate: does a packer give the declared output on every case?

:func:`run` checks a packer against the declared rule and returns a :class:`Summary`;
:func:`check` raises :class:`Counterexample` instead, for a test suite.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Unpack

from .._gate import (
    Changes,
    Fixture,
    Outcome,
    PhaseCases,
    Settings,
    raising,
    read_fixtures,
    run_gate,
    seed_fixtures,
)
from .._packers import Packer, adapter
from .._partition.invariants import InvariantError, check_output, check_trace
from .._rule.declared import Rule
from ._findings import Finding
from ._oracle import VERIFY, ReferenceOracle, unit_bound

__all__ = [
    "Counterexample",
    "Finding",
    "Fixture",
    "InvariantError",
    "Packer",
    "Settings",
    "Summary",
    "check",
    "check_output",
    "check_trace",
    "read_fixtures",
    "run",
    "seed_fixtures",
]


class Counterexample(AssertionError):
    """The packer does not conform: the (shrunk) :attr:`finding`, and the fixture file
    it was :attr:`saved` to, if it was."""

    def __init__(self, finding: Finding, saved: Path | None = None) -> None:
        report = finding.report()
        if saved is not None:
            report += f"\nsaved:    {saved}"
        super().__init__(report)
        self.finding = finding
        self.saved = saved


class Summary(Outcome):
    """A ``verify`` run's :class:`~packcheck._gate.Outcome`, with its cases per phase."""

    __slots__ = ()

    @property
    def conformant(self) -> bool:
        """No counterexample was found."""
        return self.finding is None

    fixtures = PhaseCases("fixtures")
    generated = PhaseCases("generated")
    wide = PhaseCases("wide ranges")
    long_lists = PhaseCases("long lists")

    @property
    def cases(self) -> int:
        """Every case checked, in all phases."""
        return self.fixtures + self.wide + self.generated + self.long_lists


def run(
    packer: Callable[[dict[str, Any]], object] | Packer,
    settings: Settings | None = None,
    *,
    partition: bool = False,
    rule: Rule | str | os.PathLike[str] | None = None,
    **changes: Unpack[Changes],
) -> Summary:
    """Check ``packer`` against the declared rule.

    ``packer``: a function ``case -> output`` (given its own copy of each case) or a
    :class:`Packer` (not closed here).  ``rule``: a :class:`~packcheck.Rule` or a rule
    file's path (:class:`RuleError` if unreadable), default the seed's (docs/rules.md).
    ``changes`` override fields of ``settings``.  ``partition=True``: every answer but
    ``{"error": "size"}`` must capture its partition.
    """
    s = replace(settings or Settings(), **changes)  # type: ignore[arg-type]
    declared = Rule() if rule is None else rule if isinstance(rule, Rule) else Rule.load(rule)
    s = replace(s, max_units=unit_bound(declared, s.max_units))
    oracle = ReferenceOracle(
        adapter(packer), rule=declared, partition=partition, max_units=s.max_units
    )
    in_use = None if declared.is_default else declared
    summary = run_gate(oracle, s, VERIFY, Summary, rule=in_use)
    return replace(summary, declared=declared.describe())


@raising(run)
def check(summary: Summary) -> None:
    """:func:`run`, raising :class:`Counterexample` if the packer does not conform."""
    if summary.finding is not None:
        assert isinstance(summary.finding, Finding)
        raise Counterexample(summary.finding, summary.saved_to)
