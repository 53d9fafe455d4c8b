"""Regression-check a packer against its previous self, whatever rule it follows.

:func:`run` gives every case of ``verify``'s phases to NEW and OLD and compares their
behaviour exactly; the first divergence is shrunk and returned in the
:class:`DiffSummary`.  :func:`check` raises :class:`Divergence`, for a test suite::

    from packcheck import diff
    diff.check(my_packer, my_packer_as_released, seed=1)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, Unpack

from .._gate import CHECKED, Changes, Settings, raising, run_gate
from .._gate import Outcome as GateOutcome
from .._packers import Packer, adapter
from .._rule.declared import Rule
from .._rule.same import same as same_answer
from ._behaviour import Outcome
from ._oracle import DIFF, DiffFinding, DiffOracle

__all__ = [
    "DiffFinding",
    "DiffSummary",
    "Divergence",
    "Outcome",
    "check",
    "run",
    "same_answer",
]

#: The phases whose cases are counted, in order (shrinking is not a phase of cases).
COUNTED_PHASES = CHECKED


class Divergence(AssertionError):
    """NEW and OLD behave differently; :attr:`finding` holds the (shrunk) case."""

    def __init__(self, finding: DiffFinding) -> None:
        super().__init__(finding.report())
        self.finding = finding


class DiffSummary(GateOutcome):
    """A ``diff`` run's :class:`~packcheck._gate.Outcome`, in ``diff``'s words: per phase
    of :data:`COUNTED_PHASES`, the ``cases`` compared and those ``differing``;
    ``finding`` is ``None`` when they agree."""

    __slots__ = ()

    @property
    def agree(self) -> bool:
        """No divergence was found."""
        return self.finding is None

    @property
    def cases(self) -> dict[str, int]:
        return {phase: self.checked[phase] for phase in COUNTED_PHASES}

    @property
    def differing(self) -> dict[str, int]:
        return {phase: self.failing[phase] for phase in COUNTED_PHASES}


def run(
    new: Callable[[dict[str, Any]], object] | Packer,
    old: Callable[[dict[str, Any]], object] | Packer,
    settings: Settings | None = None,
    *,
    count: bool = False,
    rule: Rule | None = None,
    **changes: Unpack[Changes],
) -> DiffSummary:
    """Compare ``new`` with ``old`` on every case of the gate's phases.

    Each is a function ``case -> output`` (given its own deep copy of each case) or a
    :class:`Packer` adapter (not closed here); settings as :func:`packcheck.verify.run`
    takes them, ``fixtures`` replayed on both sides with their expected outputs unused.
    ``count=True`` runs every phase to its end, counting the differing cases.  A
    divergence is saved (``save_failures=DIR``) with OLD's answer as expected output, or
    the declared ``rule``'s (``None``: the seed's), which the report shows.
    """
    oracle = DiffOracle(adapter(new), adapter(old), count=count, rule=rule)
    s = replace(settings or Settings(), **changes)  # type: ignore[arg-type]
    return run_gate(oracle, s, DIFF, DiffSummary, rule=rule)


@raising(run)
def check(summary: DiffSummary) -> None:
    """:func:`run`, raising :class:`Divergence` if NEW and OLD differ on any case.

    For a test suite: ``packcheck.diff.check(pack_v2, pack_v1, seed=1)``.
    """
    if summary.finding is not None:
        assert isinstance(summary.finding, DiffFinding)
        raise Divergence(summary.finding)
