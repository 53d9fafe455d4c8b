"""What the gate compares a packer's answers with: the oracle of a run.

The gate's phases (fixtures, generated cases, wide ranges, long lists, shrinking) only
produce cases; an :class:`Oracle` says whether the packer under test answers a case as
expected, and makes the first finding ready to report.  ``verify``'s oracle is
:class:`ReferenceOracle`: the fixture's expected output, else the reference's, plus the
invariant checker.  ``packcheck diff`` plugs in the packer's previous version instead.
"""

from __future__ import annotations

from typing import Any, Protocol

from .._engines.pack import pack
from .._packers import Packer, PackerFault
from .._plain_case import PlainCase
from ..strategies import MAX_SAFE_UNITS
from ._causes import departure_index
from ._findings import Finding, diagnosed, examine
from ._fixtures import Fixture

__all__ = ["Oracle", "ReferenceOracle"]


class Oracle(Protocol):
    """Judges one case at a time for the gate."""

    def judge(self, case: Any, origin: str, fixture: Fixture | None = None) -> Finding | None:
        """A :class:`Finding` unless the answer for ``case`` is the expected one.

        ``fixture`` is given when the case is a fixture's (with its expected output).
        """
        ...  # pragma: no cover - protocol

    def polish(self, finding: Finding) -> bool:
        """Whether a failure Hypothesis has shrunk is worth more shrinking of packcheck's."""
        ...  # pragma: no cover - protocol

    def departs(self, finding: Finding) -> int | None:
        """The index of the block where the finding's answer departs from the expected
        one, if known: shrinking tries the case cut just past it."""
        ...  # pragma: no cover - protocol

    def explained(self, finding: Finding) -> Finding:
        """The reported finding with whatever explanation is worth computing once."""
        ...  # pragma: no cover - protocol


class ReferenceOracle:
    """``verify``'s oracle: the declared output (the fixture's, else the reference's)."""

    def __init__(
        self,
        packer: Packer,
        *,
        partition: bool = False,
        seed: int = 0,
        max_units: int = MAX_SAFE_UNITS,
    ) -> None:
        self.packer = packer
        self.partition = partition
        # Where the sample that confirms a cause is drawn from.
        self.seed = seed
        self.max_units = max_units

    def judge(self, case: Any, origin: str, fixture: Fixture | None = None) -> Finding | None:
        """Ask the packer; compare with the declared output and check the invariants
        (unless the answer is exactly the reference's output, which passes them)."""
        if fixture is not None:
            return examine(self.packer, case, fixture.expected, origin, partition=self.partition)
        # The reference's own output: an answer exactly equal to it needs no invariant check.
        expected = case.expected() if isinstance(case, PlainCase) else pack(case)
        return examine(self.packer, case, expected, origin, partition=self.partition, declared=True)

    def polish(self, finding: Finding) -> bool:
        """A fault (a raise, a timeout) is shown as Hypothesis left it."""
        return not isinstance(finding.answer, PackerFault)

    def departs(self, finding: Finding) -> int | None:
        """Where the answer's ``kept`` first departs from the rule's, by block."""
        return departure_index(finding.case, finding.answer)

    def explained(self, finding: Finding) -> Finding:
        """Named causes, each confirmed on a sample, and the position where ``kept``
        departs from the rule's; or, when the case passes alone, that it needs state."""
        return diagnosed(
            finding,
            self.packer,
            seed=self.seed,
            max_units=self.max_units,
            partition=self.partition,
        )
