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

The phases only make cases: what an answer is compared with is the run's oracle
(:mod:`packcheck.verify._oracle`), the reference for ``verify`` and the packer's previous
version for ``packcheck diff``; both run through :func:`gate`, which can also run every
phase to its end and count the failures (``count=True``).
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

from .. import _stop
from .._packers import CallablePacker, Packer, PackerTimeout
from .._partition.invariants import InvariantError, check_output, check_trace
from .._rule.jsonio import dumps
from ..strategies import MAX_SAFE_UNITS, cases
from ._findings import Finding, show_answer
from ._fixtures import Fixture, read_fixtures, save_fixture, saved_fixtures, seed_fixtures
from ._hypothesis_compat import private_hypothesis_storage, same_cases_whatever_is_loaded
from ._oracle import Oracle, ReferenceOracle
from ._probes import Probe, long_probes, unit_probes, wide_probes
from ._shrink import shrink

__all__ = [
    "DEFAULT_MAX_EXAMPLES",
    "DEFAULT_PACKER",
    "EXPLAINING",
    "PHASES",
    "SHRINK_SECONDS",
    "Counterexample",
    "Finding",
    "Fixture",
    "InvariantError",
    "Progress",
    "Summary",
    "Tally",
    "check",
    "check_output",
    "check_trace",
    "gate",
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
#: The progress callback's phase while the first failure is explained (its causes
#: confirmed on a sample): after every phase, before the report.
EXPLAINING = "explaining"

#: ``progress(phase, cases_done, cases_in_phase_or_None)`` after each case.
Progress = Callable[[str, int, "int | None"], None]


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


@dataclass(frozen=True, slots=True)
class Summary:
    """What a run checked, and the counterexample if it found one.

    ``fixtures``, ``wide``, ``generated`` and ``long_lists`` count the cases each
    phase checked (the failing one included), ``shrink_tries`` the cases tried while
    shrinking; ``phase_seconds`` maps each phase that ran, in order, to its seconds
    (shrinking and explaining included in the phase that failed); ``finding`` is
    ``None`` for a conformant packer.
    """

    fixtures: int
    generated: int
    seed: int
    seconds: float
    wide: int = 0
    long_lists: int = 0
    finding: Finding | None = None
    shrink_tries: int = 0
    phase_seconds: dict[str, float] = field(default_factory=dict)

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
        return phase_counts(
            {
                "fixtures": self.fixtures,
                "generated": self.generated,
                "wide ranges": self.wide,
                "long lists": self.long_lists,
            }
        )


# What a summary line calls the cases of each checked phase.
_NOUNS = (
    ("fixtures", "fixture"),
    ("generated", "generated case"),
    ("wide ranges", "wide-range case"),
    ("long lists", "long list"),
)


def phase_counts(cases: Mapping[str, int]) -> str:
    """``1 fixture, 1000 generated cases, ...``: the cases of each checked phase (keyed
    as :data:`PHASES` names them), each count with its noun in the right number."""
    return ", ".join(
        f"{cases[phase]} {noun}{'' if cases[phase] == 1 else 's'}" for phase, noun in _NOUNS
    )


class _Gate:
    """One run's state: the oracle, the clock, the progress callback, the counts.

    A phase stops the run at its first failure; with ``count`` every phase runs to its
    end, counting its failures, and only the first failure is shrunk.
    """

    def __init__(
        self, oracle: Oracle, progress: Progress | None, shrink_seconds: float, count: bool
    ) -> None:
        self.oracle = oracle
        self.progress = progress
        self.shrink_seconds = shrink_seconds
        self.count = count
        self.counts = dict.fromkeys(PHASES, 0)
        self.failing = dict.fromkeys(PHASES, 0)
        self.first: Finding | None = None
        #: The phase of the run's first failure.
        self.failed_in = PHASES[0]
        # The first failure as it was first found, before shrinking.
        self.found: Finding | None = None

    def tick(self, phase: str, total: int | None = None) -> None:
        self.counts[phase] += 1
        if self.progress is not None:
            self.progress(phase, self.counts[phase], total)

    def failed(self, phase: str) -> bool:
        """Count a failure of ``phase``; whether it is the run's first (to be kept)."""
        self.failing[phase] += 1
        if self.first is None:
            self.failed_in = phase
        return self.first is None

    def judge(self, case: Any, origin: str, fixture: Fixture | None = None) -> Finding | None:
        """The oracle's judgement of ``case``; the run's first failure is kept as found."""
        finding = self.oracle.judge(case, origin, fixture)
        if finding is not None:
            _stop.note(found=finding)  # said and saved if the run is stopped
        if finding is not None and self.found is None:
            self.found = replace(finding, before=sum(self.counts.values()) - 1)
        return finding

    @property
    def done(self) -> bool:
        """The run stops here: a failure was found and failures are not being counted."""
        return self.first is not None and not self.count

    def fixtures(self, fixtures: Iterable[Fixture]) -> None:
        for fixture in fixtures:
            self.tick("fixtures")
            finding = self.judge(fixture.case, fixture.origin, fixture)
            if finding is not None and self.failed("fixtures"):
                self.first = replace(finding, name=fixture.name)
            if self.done:
                return

    def probes(self, phase: str, probes: list[Probe], origin: str) -> None:
        for probe in probes:
            self.tick(phase, len(probes))
            parts = probe.parts()
            finding = self.judge(probe.build() if parts is None else parts, origin)
            if finding is not None and self.failed(phase):
                # Each shrinking try of a case that hangs would wait the whole timeout.
                timed_out = isinstance(finding.answer, PackerTimeout)
                self.first = finding if timed_out else self.shrunk(probe, finding, SHRINK_TRIES)
            if self.done:
                return

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
                result = self.judge(case, finding.origin)
                if result is None:
                    answers[key] = None
                    return False
                found[key] = result
            return key in found

        def departs(case: dict[str, Any]) -> int | None:
            return self.oracle.departs(found[dumps(case)])

        found[dumps(finding.case)] = finding
        best = shrink(
            finding.case,
            fails,
            probe=probe,
            deadline=time.monotonic() + self.shrink_seconds,
            tries=tries,
            departs=departs,
        )
        result = found[dumps(best)]
        if probe is None:
            return result
        length = len(best["blocks"]) if isinstance(best.get("blocks"), list) else 0
        note = f"{probe.describe()}, shrunk to {length} block{'s' if length != 1 else ''}"
        return replace(result, origin=f"{result.origin}: {note}")

    def generated(self, *, seed: int, max_examples: int, max_units: int) -> None:
        """Hypothesis's cases; the shrunk first failure, if any, becomes :attr:`first`.

        Failures are remembered by case, so the final replay of the shrunk case needs no
        packer call (a flaky or slow packer cannot turn the report into Hypothesis's
        ``Flaky``); after :data:`SHRINK_TRIES` new cases or ``shrink_seconds`` of
        shrinking, new cases are no longer tried.  When failures are counted, every case
        is tried and the first failure is shrunk by packcheck's own shrinker.
        """
        failures: dict[str, Finding] = {}
        counted: list[Finding] = []
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
                    if any(isinstance(f.answer, PackerTimeout) for f in failures.values()):
                        return  # each try of a case that hangs would wait the timeout
                if first_failure is None:
                    self.tick("generated", max_examples)
                else:
                    self.tick("shrinking")
                finding = self.judge(case, origin)
                if finding is None:
                    return
                if self.count:
                    counted.append(finding)
                    return
                first_failure = first_failure or now
                failures[key] = finding
            # One raise site: Hypothesis tells failures apart by where they are raised.
            raise Counterexample(finding)

        try:
            with same_cases_whatever_is_loaded():
                conforms()
        except Counterexample as exc:
            counted.append(exc.finding)
        if counted and self.failed("generated"):
            first = counted[0]
            tries_left = SHRINK_TRIES if self.count else _POLISH_TRIES
            polish = self.oracle.polish(first)
            self.first = self.shrunk(None, first, tries_left) if polish else first
        self.failing["generated"] += max(0, len(counted) - 1)


@dataclass(frozen=True, slots=True)
class Tally:
    """What one gate run checked: cases and failures per phase, and the first finding.

    ``counts`` and ``failing`` are keyed by :data:`PHASES`; ``finding`` is explained by
    the oracle.  Without ``count`` a run stops at its first failure.
    """

    seed: int
    seconds: float
    counts: dict[str, int]
    failing: dict[str, int]
    finding: Finding | None
    #: Seconds each phase that ran took, in order.
    phase_seconds: dict[str, float] = field(default_factory=dict)


def gate(
    oracle: Oracle,
    *,
    seed: int | None = None,
    max_examples: int = DEFAULT_MAX_EXAMPLES,
    max_units: int = MAX_SAFE_UNITS,
    fixtures: Iterable[Fixture] | None = None,
    long_lists: bool = True,
    progress: Progress | None = None,
    shrink_seconds: float | None = None,
    count: bool = False,
) -> Tally:
    """Run the phases of the gate with ``oracle`` judging every case (see :func:`run`).

    With ``count`` every phase runs to its end and its failures are counted; only the
    first is shrunk and reported.
    """
    seed = random.SystemRandom().randrange(2**32) if seed is None else seed
    started = time.monotonic()
    shrink_for = SHRINK_SECONDS if shrink_seconds is None else shrink_seconds
    state = _Gate(oracle, progress, shrink_for, count)
    phases: list[Callable[[], None]] = [
        lambda: state.fixtures(seed_fixtures() if fixtures is None else fixtures),
        lambda: state.generated(seed=seed, max_examples=max_examples, max_units=max_units),
        lambda: state.probes(
            "wide ranges",
            [*unit_probes(seed), *wide_probes(seed, max_units)],
            f"wide-range case (seed {seed})",
        ),
        lambda: state.probes(
            "long lists",
            list(long_probes(seed, max_units)) if long_lists else [],
            f"long list (seed {seed})",
        ),
    ]
    # Hypothesis's files (its Unicode tables) go to packcheck's cache, not the cwd.
    phase_seconds: dict[str, float] = {}
    with private_hypothesis_storage():
        for name, phase in zip(PHASES, phases, strict=False):
            began = time.monotonic()
            phase()
            phase_seconds[name] = time.monotonic() - began
            if state.done:
                break
        finding = state.first
        if finding is not None:
            # Confirming a cause asks the packer again: its time is the failing phase's.
            began = time.monotonic()
            if progress is not None:
                progress(EXPLAINING, 0, None)
            finding = oracle.explained(replace(finding, first=state.found))
            phase_seconds[state.failed_in] += time.monotonic() - began
    return Tally(
        seed=seed,
        seconds=time.monotonic() - started,
        counts=state.counts,
        failing=state.failing,
        finding=finding,
        phase_seconds=phase_seconds,
    )


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
    tally = gate(
        ReferenceOracle(adapter, partition=partition, seed=seed, max_units=max_units),
        seed=seed,
        max_examples=max_examples,
        max_units=max_units,
        fixtures=fixtures,
        long_lists=long_lists,
        progress=progress,
        shrink_seconds=shrink_seconds,
    )
    counts = tally.counts
    return Summary(
        fixtures=counts["fixtures"],
        generated=counts["generated"],
        seed=tally.seed,
        seconds=tally.seconds,
        wide=counts["wide ranges"],
        long_lists=counts["long lists"],
        finding=tally.finding,
        shrink_tries=counts["shrinking"],
        phase_seconds=tally.phase_seconds,
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
    save_failures: str | os.PathLike[str] | None = None,
) -> Summary:
    """:func:`run`, raising :class:`Counterexample` if the packer does not conform.

    For a test suite: ``packcheck.verify.check(my_packer, seed=1)``.  With
    ``save_failures=DIR`` (``packcheck verify --save-failures DIR``), the fixtures in
    ``DIR/*.json`` are replayed after ``fixtures``, and a new counterexample is saved
    there whole, as a fixture.
    """
    directory = None if save_failures is None else Path(save_failures)
    if directory is not None:
        fixtures = [*(seed_fixtures() if fixtures is None else fixtures)]
        fixtures += saved_fixtures(directory)
    summary = run(
        packer,
        seed=seed,
        max_examples=max_examples,
        max_units=max_units,
        fixtures=fixtures,
        long_lists=long_lists,
        partition=partition,
    )
    finding = summary.finding
    if finding is not None:
        fresh = directory is not None and not finding.origin.startswith("fixture")
        saved = save_fixture(finding.fixture(), directory) if fresh and directory else None
        raise Counterexample(finding, saved)
    return summary
