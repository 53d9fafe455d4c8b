"""Regression-check a packer against its previous self, whatever rule it follows.

:func:`run` gives every case of ``verify``'s phases (fixtures, generated cases, wide
ranges, long lists) to two packers, NEW and OLD, and compares their behaviour exactly:
answers as JSON with exact types, a raised exception by its type, a timeout or a dead
process as that side's fault.  The first divergence is shrunk while the two still
differ and returned in the :class:`DiffSummary`, with the declared rule's answer as
context.  With ``count=True`` every phase runs to its end and the share of cases on
which the two differ is counted per phase.  :func:`check` raises :class:`Divergence`.

    from packcheck import diff
    diff.check(my_packer, my_packer_as_released, seed=1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .._packers import CallablePacker, Packer, PackerFault, SetupError
from ..strategies import MAX_SAFE_UNITS
from ..verify._fixtures import Fixture
from ..verify._gate import DEFAULT_MAX_EXAMPLES, PHASES, Progress, gate, phase_counts
from ._behaviour import Outcome, same_answer
from ._oracle import DiffFinding, DiffOracle

__all__ = [
    "COUNTED_PHASES",
    "DEFAULT_MAX_EXAMPLES",
    "DiffFinding",
    "DiffSummary",
    "Divergence",
    "Outcome",
    "Packer",
    "PackerFault",
    "SetupError",
    "check",
    "run",
    "same_answer",
]

#: The phases whose cases are counted, in order (shrinking is not a phase of cases).
COUNTED_PHASES = tuple(phase for phase in PHASES if phase != "shrinking")


class Divergence(AssertionError):
    """NEW and OLD behave differently; :attr:`finding` holds the (shrunk) case."""

    def __init__(self, finding: DiffFinding) -> None:
        super().__init__(finding.report())
        self.finding = finding


@dataclass(frozen=True, slots=True)
class DiffSummary:
    """What a run compared, and the first divergence if it found one.

    ``cases`` and ``differing`` map each of :data:`COUNTED_PHASES` to the cases it
    compared and those on which the two differ (with ``counted=False`` the run stops at
    the first divergence, so at most one).  ``finding`` is ``None`` when they agree.
    ``shrink_tries`` counts the cases tried while shrinking it; ``phase_seconds`` maps
    each phase that ran, in order, to its seconds (shrinking and explaining included in
    the phase that found the divergence).
    """

    seed: int
    seconds: float
    counted: bool
    cases: dict[str, int] = field(default_factory=dict)
    differing: dict[str, int] = field(default_factory=dict)
    finding: DiffFinding | None = None
    shrink_tries: int = 0
    phase_seconds: dict[str, float] = field(default_factory=dict)

    @property
    def agree(self) -> bool:
        """No divergence was found."""
        return self.finding is None

    @property
    def phase(self) -> str | None:
        """The phase that found the divergence (``None`` when the two agree)."""
        if self.finding is None:
            return None
        return next(phase for phase in COUNTED_PHASES if self.differing[phase])

    def counts(self) -> str:
        """``3 fixtures, 1000 generated cases, ...`` for a summary line."""
        return phase_counts(self.cases)

    def shares(self) -> list[str]:
        """Per phase: ``generated: 3 of 1000 cases differ (0.3%)``."""
        lines = []
        for phase in COUNTED_PHASES:
            total, differ = self.cases[phase], self.differing[phase]
            share = f"{100 * differ / total:.3g}%" if total else "no cases"
            lines.append(f"{phase}: {differ} of {total} cases differ ({share})")
        return lines


def _adapter(packer: Callable[[dict[str, Any]], object] | Packer) -> Packer:
    return packer if isinstance(packer, Packer) else CallablePacker(packer)


def run(
    new: Callable[[dict[str, Any]], object] | Packer,
    old: Callable[[dict[str, Any]], object] | Packer,
    *,
    seed: int | None = None,
    max_examples: int = DEFAULT_MAX_EXAMPLES,
    max_units: int = MAX_SAFE_UNITS,
    fixtures: Iterable[Fixture] | None = None,
    long_lists: bool = True,
    progress: Progress | None = None,
    shrink_seconds: float | None = None,
    count: bool = False,
) -> DiffSummary:
    """Compare ``new`` with ``old`` on every case of the gate's phases.

    Each is a function ``case -> output`` (called with its own deep copy of each case)
    or a :class:`Packer` adapter (not closed here).  The options are
    :func:`packcheck.verify.run`'s; ``fixtures`` (default: the seed cases) are replayed
    on both sides, their expected outputs unused.  ``count=True`` runs every phase to
    its end and counts the cases on which the two differ; only the first divergence is
    shrunk.
    """
    tally = gate(
        DiffOracle(_adapter(new), _adapter(old)),
        seed=seed,
        max_examples=max_examples,
        max_units=max_units,
        fixtures=fixtures,
        long_lists=long_lists,
        progress=progress,
        shrink_seconds=shrink_seconds,
        count=count,
    )
    finding = tally.finding
    assert finding is None or isinstance(finding, DiffFinding)
    return DiffSummary(
        seed=tally.seed,
        seconds=tally.seconds,
        counted=count,
        cases={phase: tally.counts[phase] for phase in COUNTED_PHASES},
        differing={phase: tally.failing[phase] for phase in COUNTED_PHASES},
        finding=finding,
        shrink_tries=tally.counts["shrinking"],
        phase_seconds=tally.phase_seconds,
    )


def check(
    new: Callable[[dict[str, Any]], object] | Packer,
    old: Callable[[dict[str, Any]], object] | Packer,
    *,
    seed: int | None = None,
    max_examples: int = DEFAULT_MAX_EXAMPLES,
    max_units: int = MAX_SAFE_UNITS,
    fixtures: Iterable[Fixture] | None = None,
    long_lists: bool = True,
) -> DiffSummary:
    """:func:`run`, raising :class:`Divergence` if NEW and OLD differ on any case.

    For a test suite: ``packcheck.diff.check(pack_v2, pack_v1, seed=1)``.
    """
    summary = run(
        new,
        old,
        seed=seed,
        max_examples=max_examples,
        max_units=max_units,
        fixtures=fixtures,
        long_lists=long_lists,
    )
    if summary.finding is not None:
        raise Divergence(summary.finding)
    return summary
