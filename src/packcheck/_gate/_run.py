"""The gate's run: its phases, each case judged by the run's oracle.

:func:`run_gate` checks, in this order, stopping at the first failure:

1. **fixtures**: the seed cases shipped with packcheck, plus any saved regressions;
2. **generated**: ``max_examples`` short cases from :func:`packcheck.strategies.cases`,
   drawn and shrunk by Hypothesis;
3. **wide ranges**: every edge of what a unit is (``true``, ``"4"``, ``2.5``, ``0``,
   an absent key, ``4.0``, as the budget and after the budget is spent), and short
   cases whose budgets and sums cross 2**31, 2**32, 2**53, 2**63 and 2**64, those
   within ``max_units`` (:mod:`packcheck._gate._probes`), so that an overflow or a lenient
   reading is caught at every seed;
4. **long lists**: every length of a ladder from 16 to 2**17 + 1 blocks (just below,
   at and above powers of two and round thresholds), power-of-two runs whose sums
   reach exactly 2**63, and lists laid out on the edges of a scan in levels (the
   remaining landing on ``tau = R // 16`` and beside it, search-step edges, sums past
   2**63, prefixes past int64: :mod:`packcheck._gate._edge_probes`).

The phases only make cases: what an answer is compared with is the run's
:class:`Oracle`, the declared rule for ``verify`` (:mod:`packcheck.verify`) and the
packer's previous version for ``diff`` (:mod:`packcheck.diff`).  The first failure is
shrunk (by Hypothesis, or for a probe by :mod:`packcheck._gate._shrink`: shorter
first), explained by the oracle, saved when new, and returned in the
:class:`~packcheck._gate._outcome.Outcome`.  With ``count`` every phase runs to its end
and its failures are counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import seed as hypothesis_seed

from .. import _stop
from .._packers import PackerTimeout
from .._rule.jsonio import dumps
from ..strategies import cases
from ._findings import Finding
from ._fixtures import Fixture, save_fixture, saved_fixtures, seed_fixtures, writable_directory
from ._hypothesis_compat import private_hypothesis_storage, same_cases_whatever_is_loaded
from ._outcome import PHASES, Command, Outcome
from ._probes import Probe, long_probes, unit_probes, wide_probes
from ._settings import Progress, Settings, seeded
from ._shrink import shrink

__all__ = ["EXPLAINING", "Oracle", "run_gate", "save_new"]

#: After the first failure, shrinking tries at most this many cases, so the same seed
#: gives the same counterexample on a busy machine as on an idle one (and stops after
#: ``shrink_seconds`` with the best case so far, whichever comes first).
SHRINK_TRIES = 2000
#: Generated cases have at most this many blocks; length is the long lists' job, so
#: that a counterexample that does not need length shrinks to a few blocks.
SHORT_BLOCKS = 12
# After Hypothesis's shrinker, a few hundred tries of packcheck's own (blocks, detail).
_POLISH_TRIES = 400
#: The progress callback's phase while the first failure is explained (its causes
#: confirmed on a sample): after every phase, before the report.
EXPLAINING = "explaining"

#: The record a run returns: :class:`Outcome` or a command's own name for it.
R = TypeVar("R", bound=Outcome)


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


class Counted(Exception):
    """Raised inside Hypothesis's test for a failing case: one raise site, as
    Hypothesis tells failures apart by where they are raised."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.origin)
        self.finding = finding


class _Unanswered(BaseException):
    """Raised inside Hypothesis's test when a case gets no answer within the timeout:
    it ends Hypothesis's run at once (a ``BaseException``, which Hypothesis lets
    through), as each new try could wait the timeout and, refused, would leave
    Hypothesis's shrinker trying passing cases for seconds of CPU.  ``shrinking``: the
    case was a try while shrinking an earlier failure."""

    def __init__(self, finding: Finding, shrinking: bool) -> None:
        super().__init__(finding.origin)
        self.finding = finding
        self.shrinking = shrinking


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

        @_drawn(seed, max_examples, max_units)
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
                if isinstance(finding.answer, PackerTimeout):
                    raise _Unanswered(finding, shrinking=len(failures) > 1)
            # One raise site: Hypothesis tells failures apart by where they are raised.
            raise Counted(finding)

        try:
            with same_cases_whatever_is_loaded():
                conforms()
        except Counted as exc:
            counted.append(exc.finding)
        except _Unanswered as exc:
            why = (
                "shrinking stopped: this case got no answer within the timeout"
                if exc.shrinking
                else _unshrunk(exc.finding)
            )
            counted.append(replace(exc.finding, origin=f"generated case (seed {seed}, {why})"))
        self._keep_generated(counted, seed)

    def _keep_generated(self, counted: list[Finding], seed: int) -> None:
        """Count the generated cases' failures; the first, shrunk, may be the run's."""
        if counted and self.failed("generated"):
            first = counted[0]
            tries_left = SHRINK_TRIES if self.count else _POLISH_TRIES
            if self.oracle.polish(first):
                self.first = self.shrunk(None, first, tries_left)
            elif self.count:  # counted as found: neither Hypothesis nor packcheck shrank it
                why = _unshrunk(first)
                self.first = replace(first, origin=f"generated case (seed {seed}, {why})")
            else:
                self.first = first
        self.failing["generated"] += max(0, len(counted) - 1)


def _unshrunk(finding: Finding) -> str:
    """Why a failure counted as found was not shrunk: a fault is shown as found."""
    if isinstance(finding.answer, PackerTimeout):
        return "not shrunk: no answer within the timeout"
    return "not shrunk: a packer fault is shown as found"


def _drawn(
    seed: int, max_examples: int, max_units: int
) -> Callable[[Callable[[dict[str, Any]], None]], Callable[[], None]]:
    """A Hypothesis test of ``max_examples`` short cases drawn at ``seed``: generated
    and shrunk, quiet, with no database, deadline or health check."""

    def test(conforms: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        given_cases = given(cases(max_units=max_units, max_blocks=SHORT_BLOCKS))(conforms)
        configured = settings(
            max_examples=max_examples,
            database=None,
            deadline=None,
            derandomize=False,
            phases=(Phase.generate, Phase.shrink),
            report_multiple_bugs=False,
            suppress_health_check=list(HealthCheck),
            verbosity=Verbosity.quiet,
        )
        run: Callable[[], None] = hypothesis_seed(seed)(configured(given_cases))
        return run

    return test


def _phases(
    state: _Gate, s: Settings, seed: int, fixtures: list[Fixture]
) -> list[Callable[[], None]]:
    """The phases of :data:`PHASES` but shrinking, in order, ready to run."""
    return [
        lambda: state.fixtures(fixtures),
        lambda: state.generated(seed=seed, max_examples=s.max_examples, max_units=s.max_units),
        lambda: state.probes(
            "wide ranges",
            [*unit_probes(seed), *wide_probes(seed, s.max_units)],
            f"wide-range case (seed {seed})",
        ),
        lambda: state.probes(
            "long lists",
            list(long_probes(seed, s.max_units)) if s.long_lists else [],
            f"long list (seed {seed})",
        ),
    ]


def _fixtures(s: Settings) -> list[Fixture]:
    """The fixtures to replay: ``s.fixtures`` (default the seed cases), then those
    saved in ``s.save_failures``; raises :class:`OSError` or ``SourceError``."""
    fixtures = [*(seed_fixtures() if s.fixtures is None else s.fixtures)]
    if s.save_failures is not None:
        writable_directory(s.save_failures)
        fixtures += saved_fixtures(s.save_failures)
    return fixtures


def save_new(outcome: R, directory: Path | None) -> R:
    """``outcome``, its finding saved in ``directory`` as a fixture if it is new (not
    found by replaying a fixture); a file that cannot be written is said in ``saved``."""
    if outcome.finding is None or outcome.phase == "fixtures" or directory is None:
        return outcome
    try:
        path = save_fixture(outcome.finding.fixture(), directory)
    except OSError as exc:
        return replace(outcome, saved=f"nothing: {exc.strerror or exc}")
    line = f"{path} (replayed first by the next run with --save-failures)"
    return replace(outcome, saved=line, saved_to=path)


def run_gate(oracle: Oracle, s: Settings, command: Command, record: type[R], **report: Any) -> R:
    """Run the gate's phases with ``oracle`` judging every case; the ``record`` (an
    :class:`Outcome`) of the run, with ``report``'s fields (``subject``, ``rerun``...).

    Raises :class:`OSError` or ``SourceError`` when the fixtures cannot be read.
    """
    fixtures = _fixtures(s)
    s = seeded(s)
    assert s.seed is not None
    seed = s.seed
    started = time.monotonic()
    state = _Gate(oracle, s.progress, s.shrink_seconds, s.count)
    phase_seconds: dict[str, float] = {}
    # Hypothesis's files (its Unicode tables) go to packcheck's cache, not the cwd.
    with private_hypothesis_storage():
        for name, phase in zip(PHASES, _phases(state, s, seed, fixtures), strict=False):
            began = time.monotonic()
            phase()
            phase_seconds[name] = time.monotonic() - began
            if state.done:
                break
        finding = state.first
        if finding is not None:
            # Confirming a cause asks the packer again: its time is the failing phase's.
            began = time.monotonic()
            if s.progress is not None:
                s.progress(EXPLAINING, 0, None)
            finding = oracle.explained(replace(finding, first=state.found))
            phase_seconds[state.failed_in] += time.monotonic() - began
    outcome = record(
        command=command,
        seed=seed,
        seconds=time.monotonic() - started,
        checked=state.counts,
        failing=state.failing,
        finding=finding,
        phase=None if finding is None else state.failed_in,
        phase_seconds=phase_seconds,
        counted=s.count,
        **report,
    )
    return save_new(outcome, s.save_failures)
