"""Regression-check a packer against its previous self, whatever rule it follows:
``diff.check(my_packer, my_packer_as_released, seed=1)``."""

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

#: The phases whose cases are counted, in order.
COUNTED_PHASES = CHECKED


class Divergence(AssertionError):
    """NEW and OLD behave differently; :attr:`finding` holds the (shrunk) case."""

    def __init__(self, finding: DiffFinding) -> None:
        super().__init__(finding.report())
        self.finding = finding


class DiffSummary(GateOutcome):
    """A ``diff`` run's :class:`~packcheck._gate.Outcome`: per phase, the ``cases``
    compared and those ``differing``."""

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
    """Compare ``new`` with ``old`` on every case of the gate's phases; the first
    divergence is shrunk.

    Packers and settings as :func:`packcheck.verify.run` takes them (``fixtures`` run on
    both sides, their outputs unused).  ``count=True`` runs every phase to its end,
    counting the differing cases.  A divergence is saved with OLD's answer as expected
    output, or the declared ``rule``'s, which the report shows.
    """
    oracle = DiffOracle(adapter(new), adapter(old), count=count, rule=rule)
    s = replace(settings or Settings(), **changes)  # type: ignore[arg-type]
    return run_gate(oracle, s, DIFF, DiffSummary, rule=rule)


@raising(run)
def check(summary: DiffSummary) -> None:
    """:func:`run`, raising :class:`Divergence` if NEW and OLD differ on any case."""
    if summary.finding is not None:
        assert isinstance(summary.finding, DiffFinding)
        raise Divergence(summary.finding)
