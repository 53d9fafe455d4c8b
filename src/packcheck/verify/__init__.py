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
    """The packer does not conform; :attr:`finding` holds the (shrunk) case, and
    :attr:`saved` the fixture file it was saved to, if it was."""

    def __init__(self, finding: Finding, saved: Path | None = None) -> None:
        report = finding.report()
        if saved is not None:
            report += f"\nsaved:    {saved}"
        super().__init__(report)
        self.finding = finding
        self.saved = saved


class Summary(Outcome):
    """A ``verify`` run's :class:`~packcheck._gate.Outcome`, in ``verify``'s words:
    cases per phase (``fixtures``, ``generated``, ``wide``, ``long_lists``),
    ``shrink_tries``, and ``finding`` (``None`` for a conformant packer)."""

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
    """Check ``packer`` against the declared rule; the :class:`Summary` says how it went.

    ``packer`` is a function ``case -> output`` (given its own deep copy of each case) or
    a :class:`Packer` adapter (not closed here).  ``rule``: a :class:`~packcheck.Rule` or
    the path of a rule file (:class:`RuleError` if unreadable); default the seed's; under
    another rule a refusal is ``ValueError`` or ``{"error": "refused"}`` (docs/rules.md).
    Settings are ``settings`` with ``changes`` named as its fields (``seed=1``...), a
    value out of range a :class:`ValueError`.  ``partition=True``: every answer but
    ``{"error": "size"}`` must capture its partition.  Hypothesis's files go to
    ``~/.cache/packcheck/hypothesis`` (or ``$HYPOTHESIS_STORAGE_DIRECTORY``).
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
    """:func:`run`, raising :class:`Counterexample` if the packer does not conform
    (``packcheck.verify.check(my_packer, seed=1)`` in a test suite)."""
    if summary.finding is not None:
        assert isinstance(summary.finding, Finding)
        raise Counterexample(summary.finding, summary.saved_to)
