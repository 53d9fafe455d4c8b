"""The differential gate: does a packer give the declared output on every case?

:func:`run` checks a packer (a Python callable or a command speaking JSON Lines)
against the reference, phase by phase (:mod:`packcheck._gate`), and returns a
:class:`Summary`; :func:`check` is the same gate for a test suite and raises
:class:`Counterexample`.  Both take a :class:`Settings` and/or its fields as keywords.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any, Unpack

from .._engines.pack import pack
from .._gate import (
    DEFAULT_MAX_EXAMPLES,
    PHASES,
    SHRINK_SECONDS,
    Changes,
    Fixture,
    Outcome,
    Progress,
    Settings,
    read_fixtures,
    run_gate,
    seed_fixtures,
    show_answer,
)
from .._packers import Packer, PackerFault, SetupError, adapter
from .._partition.invariants import InvariantError, check_output, check_trace
from .._rule.declared import Rule
from ._findings import Finding
from ._oracle import VERIFY, ReferenceOracle

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
    "Settings",
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
    """A ``verify`` run's :class:`~packcheck._gate.Outcome`, in ``verify``'s words.

    ``fixtures``, ``generated``, ``wide`` and ``long_lists`` count the cases each phase
    checked (the failing one included), ``shrink_tries`` the cases tried while
    shrinking; ``finding`` is ``None`` for a conformant packer.
    """

    __slots__ = ()

    @property
    def conformant(self) -> bool:
        """No counterexample was found."""
        return self.finding is None

    @property
    def fixtures(self) -> int:
        return self.checked["fixtures"]

    @property
    def generated(self) -> int:
        return self.checked["generated"]

    @property
    def wide(self) -> int:
        return self.checked["wide ranges"]

    @property
    def long_lists(self) -> int:
        return self.checked["long lists"]

    @property
    def cases(self) -> int:
        """Every case checked, in all phases."""
        return self.fixtures + self.wide + self.generated + self.long_lists


def run(
    packer: Callable[[dict[str, Any]], object] | Packer,
    settings: Settings | None = None,
    *,
    partition: bool = False,
    rule: Rule | None = None,
    **changes: Unpack[Changes],
) -> Summary:
    """Check ``packer`` against the declared rule; the :class:`Summary` says how it went.

    ``packer`` is a function ``case -> output`` (called with its own deep copy of each
    case) or a :class:`Packer` adapter (which this function does not close).  The
    run's settings are ``settings`` (default: :class:`Settings`'s) with ``changes``,
    keywords named as its fields (``seed=1``, ``max_examples=200``,
    ``save_failures=DIR``, ``progress=callback``...), checked as they are given: a
    value out of range is a :class:`ValueError` here.  With ``partition=True`` every
    answer but ``{"error": "size"}`` must capture its partition (docs/rule.md); a
    captured one is always checked.  Hypothesis's files go to
    ``~/.cache/packcheck/hypothesis`` (or ``$HYPOTHESIS_STORAGE_DIRECTORY``), never to
    the current directory.  ``rule`` is the declared rule (``None``: the seed's): the
    fixtures of another rule run their input only, and a failure is saved under it.
    """
    s = replace(settings or Settings(), **changes)  # type: ignore[arg-type]
    declared = {} if rule is None or rule.is_default else {"rule": partial(pack, rule=rule)}
    oracle = ReferenceOracle(
        adapter(packer), partition=partition, max_units=s.max_units, **declared
    )
    return run_gate(oracle, s, VERIFY, Summary, rule=rule)


def check(
    packer: Callable[[dict[str, Any]], object] | Packer,
    settings: Settings | None = None,
    *,
    partition: bool = False,
    rule: Rule | None = None,
    **changes: Unpack[Changes],
) -> Summary:
    """:func:`run`, raising :class:`Counterexample` if the packer does not conform.

    For a test suite: ``packcheck.verify.check(my_packer, seed=1)``.  With
    ``save_failures=DIR`` (``packcheck verify --save-failures DIR``), the fixtures in
    ``DIR/*.json`` are replayed after ``fixtures``, and a new counterexample is saved
    there whole, as a fixture.
    """
    summary = run(packer, settings, partition=partition, rule=rule, **changes)
    if summary.finding is not None:
        assert isinstance(summary.finding, Finding)
        raise Counterexample(summary.finding, summary.saved_to)
    return summary
