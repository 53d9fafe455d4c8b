"""The differential gate: does a packer give the declared output on every case?

:func:`run` is the gate.  It checks, in this order, stopping at the first failure:

1. **fixtures**: the seed cases shipped with packcheck, plus any saved regressions;
2. **generated**: ``max_examples`` short cases from :func:`packcheck.strategies.cases`,
   drawn and shrunk by Hypothesis;
3. **wide ranges**: every edge of what a unit is (``true``, ``"4"``, ``2.5``, ``0``,
   an absent key, ``4.0``, as the budget and after the budget is spent), and short
   cases whose budgets and sums cross 2**31, 2**32, 2**53, 2**63 and 2**64, those
   within ``max_units`` (:mod:`packcheck.verify._probes`), so that an overflow or a lenient
   reading is caught at every seed;
4. **long lists**: every length of a ladder from 16 to 2**17 + 1 blocks (just below,
   at and above powers of two and round thresholds), power-of-two runs whose sums
   reach exactly 2**63, and lists laid out on the edges of a scan in levels (the
   remaining landing on ``tau = R // 16`` and beside it, search-step edges, sums past
   2**63, prefixes past int64: :mod:`packcheck.verify._edge_probes`).

Each answer must equal the reference's output exactly (as JSON, with exact types)
*and* pass the invariant checker :func:`check_output`.  The first failure is shrunk
(by Hypothesis, or for a probe by :mod:`packcheck.verify._shrink`: shorter first), named
(which known wrong variant of the rule it agrees with, and where ``kept`` departs from
the rule's), and returned in the :class:`Summary`.  :func:`check` is the same gate for
a test suite: it raises :class:`Counterexample` instead.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

from .._engines.pack import pack
from .._packers import CallablePacker, Packer, PackerFault
from .._partition.invariants import InvariantError, check_output, check_trace
from .._rule.jsonio import dumps
from ..strategies import MAX_SAFE_UNITS, cases
from ._findings import Finding, diagnosed, examine, show_answer
from ._fixtures import Fixture, read_fixtures, seed_fixtures
from ._hypothesis_compat import private_hypothesis_storage, same_cases_whatever_is_loaded
from ._probes import Probe, long_probes, unit_probes, wide_probes
from ._shrink import shrink

__all__ = [
    "DEFAULT_MAX_EXAMPLES",
    "DEFAULT_PACKER",
    "PHASES",
    "SHRINK_SECONDS",
    "Counterexample",
    "Finding",
    "Fixture",
    "InvariantError",
    "Progress",
    "Summary",
    "check",
    "check_output",
    "check_trace",
    "read_fixtures",
    "run",
    "seed_fixtures",
    "show_answer",
]

#: Generated (short) cases per run.  With the wide-range and long-list probes, a
#: default run of a Python or command packer takes 10-20 s on two cores.
DEFAULT_MAX_EXAMPLES = 1000
#: The packer ``verify`` checks when none is named: packcheck's NumPy kernel.
DEFAULT_PACKER = "packcheck._engines.pack:numpy_packer"
#: After the first failure, shrinking tries at most this many cases, so the same seed
#: gives the same counterexample on a busy machine as on an idle one ...
SHRINK_TRIES = 2000
#: ... and stops after this long with the best case so far, whichever comes first: a
#: packer that is slow on every shrink step must not stall CI.
SHRINK_SECONDS = 120.0
#: Generated cases have at most this many blocks; length is the long lists' job, so
#: that a counterexample that does not need length shrinks to a few blocks.
SHORT_BLOCKS = 12
# After Hypothesis's shrinker, a few hundred tries of packcheck's own (blocks, detail).
_POLISH_TRIES = 400
#: The phases of a run, in order, as :data:`Progress` names them.
PHASES = ("fixtures", "generated", "wide ranges", "long lists", "shrinking")

#: ``progress(phase, cases_done, cases_in_phase_or_None)`` after each case.
Progress = Callable[[str, int, "int | None"], None]


class Counterexample(AssertionError):
    """The packer does not conform; :attr:`finding` holds the (shrunk) case."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.report())
        self.finding = finding


@dataclass(frozen=True, slots=True)
class Summary:
    """What a run checked, and the counterexample if it found one.

    ``fixtures``, ``wide``, ``generated`` and ``long_lists`` count the cases each
    phase checked (the failing one included); ``finding`` is ``None`` for a
    conformant packer.
    """

    fixtures: int
    generated: int
    seed: int
    seconds: float
    wide: int = 0
    long_lists: int = 0
    finding: Finding | None = None

    @property
    def conformant(self) -> bool:
        """No counterexample was found."""
        return self.finding is None

    @property
    def cases(self) -> int:
        """Every case checked, in all phases."""
        return self.fixtures + self.wide + self.generated + self.long_lists

    def counts(self) -> str:
        """``3 fixtures, 1000 generated cases, ...`` for a summary line."""
        return (
            f"{self.fixtures} fixtures, {self.generated} generated cases, {self.wide} "
            f"wide-range cases, {self.long_lists} long lists"
        )


class _Gate:
    """One run's state: the packer, the clock, the progress callback, the counts."""

    def __init__(
        self, packer: Packer, progress: Progress | None, shrink_seconds: float, partition: bool
    ) -> None:
        self.packer = packer
        self.partition = partition
        self.progress = progress
        self.shrink_seconds = shrink_seconds
        self.counts = dict.fromkeys(PHASES, 0)
        self.first: Finding | None = None  # the first failure, before shrinking

    def tick(self, phase: str, total: int | None = None) -> None:
        self.counts[phase] += 1
        if self.progress is not None:
            self.progress(phase, self.counts[phase], total)

    def examine(self, case: Any, expected: Any, origin: str) -> Finding | None:
        finding = examine(self.packer, case, expected, origin, partition=self.partition)
        if finding is not None and self.first is None:
            self.first = replace(finding, before=sum(self.counts.values()) - 1)
        return finding

    def fixtures(self, fixtures: Iterable[Fixture]) -> Finding | None:
        for fixture in fixtures:
            self.tick("fixtures")
            finding = self.examine(fixture.case, fixture.expected, fixture.origin)
            if finding is not None:
                return replace(finding, name=fixture.name)
        return None

    def probes(self, phase: str, probes: list[Probe], origin: str) -> Finding | None:
        for probe in probes:
            self.tick(phase, len(probes))
            case = probe.build()
            finding = self.examine(case, pack(case), origin)
            if finding is not None:
                return self.shrunk(probe, finding, SHRINK_TRIES)
        return None

    def shrunk(self, probe: Probe | None, finding: Finding, tries: int) -> Finding:
        """The smallest failing case found from ``finding`` in ``tries`` packer calls.

        A probe's finding is shortened along its recipe first; any finding then loses
        blocks and detail while it still fails (Hypothesis's shrinker can leave blocks
        that a choice drawn after them depends on).
        """
        found: dict[str, Finding] = {}
        answers: dict[str, object] = {}

        def fails(case: dict[str, Any]) -> bool:
            self.tick("shrinking")
            key = dumps(case)
            if key not in found and key not in answers:
                result = self.examine(case, pack(case), finding.origin)
                if result is None:
                    answers[key] = None
                    return False
                found[key] = result
            return key in found

        def answer_of(case: dict[str, Any]) -> object:
            return found[dumps(case)].answer

        found[dumps(finding.case)] = finding
        best = shrink(
            finding.case,
            fails,
            probe=probe,
            deadline=time.monotonic() + self.shrink_seconds,
            tries=tries,
            answer_of=answer_of,
        )
        result = found[dumps(best)]
        if probe is None:
            return result
        length = len(best["blocks"]) if isinstance(best.get("blocks"), list) else 0
        note = f"{probe.describe()}, shrunk to {length} block{'s' if length != 1 else ''}"
        return replace(result, origin=f"{result.origin}: {note}")

    def generated(self, *, seed: int, max_examples: int, max_units: int) -> Finding | None:
        """Hypothesis's cases; the shrunk first failure, if any.

        Failures are remembered by case, so the final replay of the shrunk case needs no
        packer call (a flaky or slow packer cannot turn the report into Hypothesis's
        ``Flaky``); after :data:`SHRINK_TRIES` new cases or ``shrink_seconds`` of
        shrinking, new cases are no longer tried.
        """
        failures: dict[str, Finding] = {}
        first_failure: float | None = None
        tries = 0
        origin = f"generated case (seed {seed}, shrunk)"

        @hypothesis_seed(seed)
        @settings(
            max_examples=max_examples,
            database=None,
            deadline=None,
            derandomize=False,
            phases=(Phase.generate, Phase.shrink),
            report_multiple_bugs=False,
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
        )
        @given(cases(max_units=max_units, max_blocks=SHORT_BLOCKS))
        def conforms(case: dict[str, Any]) -> None:
            nonlocal first_failure, tries
            key = dumps(case)
            finding = failures.get(key)
            if finding is None:
                now = time.monotonic()
                if first_failure is not None:
                    tries += 1
                    if tries > SHRINK_TRIES or now - first_failure > self.shrink_seconds:
                        return
                self.tick("generated" if first_failure is None else "shrinking", max_examples)
                finding = self.examine(case, pack(case), origin)
                if finding is None:
                    return
                first_failure = first_failure or now
                failures[key] = finding
            # One raise site: Hypothesis tells failures apart by where they are raised.
            raise Counterexample(finding)

        try:
            with same_cases_whatever_is_loaded():
                conforms()
        except Counterexample as exc:
            if isinstance(exc.finding.answer, PackerFault):
                return exc.finding
            return self.shrunk(None, exc.finding, _POLISH_TRIES)
        return None


def run(
    packer: Callable[[dict[str, Any]], object] | Packer,
    *,
    seed: int | None = None,
    max_examples: int = DEFAULT_MAX_EXAMPLES,
    max_units: int = MAX_SAFE_UNITS,
    fixtures: Iterable[Fixture] | None = None,
    long_lists: bool = True,
    progress: Progress | None = None,
    shrink_seconds: float | None = None,
    partition: bool = False,
) -> Summary:
    """Check ``packer`` against the declared rule; the :class:`Summary` says how it went.

    ``packer`` is a function ``case -> output`` (called with its own deep copy of each
    case) or a :class:`packcheck.verify.Packer` adapter (which this function does not
    close).  ``fixtures`` default to the seed cases.  ``seed=None`` picks a seed,
    reported in the summary and in any counterexample's origin; generated units lie
    within ``±max_units``.  ``long_lists=False`` leaves out the long lists (for quick
    runs of your own).  ``progress`` is called after every case.  Shrinking a failure
    stops after :data:`SHRINK_TRIES` tries or ``shrink_seconds`` (default
    :data:`SHRINK_SECONDS`), whichever comes first, with the best case
    so far.  With ``partition=True`` every answer but ``{"error": "size"}`` must
    capture its partition (docs/rule.md); a captured one is always checked.
    Hypothesis's files go to ``~/.cache/packcheck/hypothesis`` (or
    ``$HYPOTHESIS_STORAGE_DIRECTORY``), never to the current directory.
    """
    adapter = packer if isinstance(packer, Packer) else CallablePacker(packer)
    seed = random.SystemRandom().randrange(2**32) if seed is None else seed
    started = time.monotonic()
    shrink_for = SHRINK_SECONDS if shrink_seconds is None else shrink_seconds
    gate = _Gate(adapter, progress, shrink_for, partition)
    phases: Iterator[Callable[[], Finding | None]] = iter(
        [
            lambda: gate.fixtures(seed_fixtures() if fixtures is None else fixtures),
            lambda: gate.generated(seed=seed, max_examples=max_examples, max_units=max_units),
            lambda: gate.probes(
                "wide ranges",
                [*unit_probes(seed), *wide_probes(seed, max_units)],
                f"wide-range case (seed {seed})",
            ),
            lambda: gate.probes(
                "long lists",
                list(long_probes(seed, max_units)) if long_lists else [],
                f"long list (seed {seed})",
            ),
        ]
    )
    # Hypothesis's files (its Unicode tables) go to packcheck's cache, not the cwd.
    with private_hypothesis_storage():
        finding = next((found for phase in phases if (found := phase()) is not None), None)
    counts = gate.counts
    return Summary(
        fixtures=counts["fixtures"],
        generated=counts["generated"],
        seed=seed,
        seconds=time.monotonic() - started,
        wide=counts["wide ranges"],
        long_lists=counts["long lists"],
        finding=None
        if finding is None
        else diagnosed(
            replace(finding, first=gate.first),
            adapter,
            seed=seed,
            max_units=max_units,
            partition=partition,
        ),
    )


def check(
    packer: Callable[[dict[str, Any]], object] | Packer,
    *,
    seed: int | None = None,
    max_examples: int = DEFAULT_MAX_EXAMPLES,
    max_units: int = MAX_SAFE_UNITS,
    fixtures: Iterable[Fixture] | None = None,
    long_lists: bool = True,
    partition: bool = False,
) -> Summary:
    """:func:`run`, raising :class:`Counterexample` if the packer does not conform.

    For a test suite: ``packcheck.verify.check(my_packer, seed=1)``.
    """
    summary = run(
        packer,
        seed=seed,
        max_examples=max_examples,
        max_units=max_units,
        fixtures=fixtures,
        long_lists=long_lists,
        partition=partition,
    )
    if summary.finding is not None:
        raise Counterexample(summary.finding)
    return summary
