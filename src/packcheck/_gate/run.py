"""The gate's run: its phases, each case judged by the run's oracle.

:func:`run_gate` runs the fixtures, the generated cases (then those beside their
transition points), the wide ranges and the long lists, stopping at the first failure.
The phases only make cases; the run's :class:`Oracle` judges each one and sets the run's
policy.  The first failure is shrunk, explained by the oracle, saved when new, and
returned in the :class:`~.outcome.Outcome` (docs/gate.md tells each phase).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from hypothesis import HealthCheck, Phase, Verbosity, given, reject, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from .._packers import PackerFault, PackerTimeout
from .._rule.declared import Rule
from .._rule.fixture_rule import others_note, same_rule
from .._rule.jsonio import dumps
from .._stop import pending
from .findings import SHOWN_WHOLE, Finding
from .fixtures import (
    Fixture,
    rule_fixtures,
    save_fixture,
    saved_fixtures,
    seed_fixtures,
    writable_directory,
)
from .hypothesis_compat import private_hypothesis_storage, same_cases_whatever_is_loaded
from .outcome import NEAR, PHASES, Command, Outcome
from .probes import Probe, long_probes, unit_probes, wide_probes
from .settings import Settings
from .shrink import SHRINK_TRIES, polished, shrink
from .transitions import case_candidates

__all__ = ["EXPLAINING", "Oracle", "replayed", "run_gate", "save_new"]

#: Generated cases have at most this many blocks; length is the long lists' job, so
#: that a counterexample that does not need length shrinks to a few blocks.
SHORT_BLOCKS = 12
# After Hypothesis's shrinker, a few hundred tries of packcheck's own (blocks, detail).
_POLISH_TRIES = 400
#: Generated cases on which both sides failed alike are kept up to this share of those
#: kept (never none: a NEW that starts raising must still be met); past it, one is set
#: aside and another drawn, at most ``max_examples // 2`` times a run.
ALIKE_SHARE = 0.1
#: The progress callback's phase while the first failure is explained (its causes
#: confirmed on a sample): after every phase, before the report.
EXPLAINING = "explaining"

#: The record a run returns: :class:`Outcome` or a command's own name for it.
R = TypeVar("R", bound=Outcome)


class Oracle(Protocol):
    """Judges one case at a time for the gate, and sets the run's policy.

    ``follows``: the side it follows (``"OLD"``; ``None``: the declared rule); ``count``:
    every phase runs to its end counting failures; ``transition_bases``: generated cases
    walked for transition points; ``walks_length``: each is walked along its length too.
    """

    follows: str | None
    count: bool
    transition_bases: int
    walks_length: bool

    def drawn(self, max_units: int, max_blocks: int) -> st.SearchStrategy[dict[str, Any]]:
        """The generated cases: at most ``max_blocks`` blocks, units within ``max_units``."""
        ...  # pragma: no cover - protocol

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

    def seen(self) -> str | None:
        """What the oracle's side did on the case last judged (a key of
        :data:`~.outcome.SEEN`; ``"answer"``: worth walking for transition points)."""
        ...  # pragma: no cover - protocol

    def expected_shape(self, case: dict[str, Any]) -> Hashable:
        """The expected outcome of ``case``, comparable with its numbers blanked: where
        it changes along a coordinate is a transition point.  Raises
        :class:`PackerFault` when the side gives no answer (the walk stops)."""
        ...  # pragma: no cover - protocol

    def skips(self, case: Any) -> bool:
        """Whether a probe's ``case`` is left out (its side cannot answer so long a
        list in time); the oracle counts it for its notes."""
        ...  # pragma: no cover - protocol

    def notes(self) -> tuple[str, ...]:
        """Lines for the report: the cases not compared, and why."""
        ...  # pragma: no cover - protocol


class Counted(Exception):
    """Raised inside Hypothesis's test for a failing case: one raise site, as
    Hypothesis tells failures apart by where they are raised."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.origin)
        self.finding = finding


class _Unanswered(BaseException):
    """A case got no answer within the timeout: ends Hypothesis's run at once.

    A ``BaseException``, which Hypothesis lets through: each further try could wait the
    timeout.  ``shrinking``: the case was a try while shrinking an earlier failure."""

    def __init__(self, finding: Finding, shrinking: bool) -> None:
        super().__init__(finding.origin)
        self.finding = finding
        self.shrinking = shrinking


class _Gate:
    """One run's state: the oracle, the clock, the progress callback, the counts."""

    def __init__(self, oracle: Oracle, s: Settings) -> None:
        self.oracle = oracle
        self.progress = s.progress
        self.shrink_seconds = s.shrink_seconds
        self.count = oracle.count
        self.follows = oracle.follows is not None
        self.counts = dict.fromkeys((*PHASES, NEAR), 0)
        self.failing = dict.fromkeys((*PHASES, NEAR), 0)
        #: Per phase, what the oracle's side did on each case (:meth:`Oracle.seen`).
        self.seen: dict[str, Counter[str]] = {phase: Counter() for phase in self.counts}
        self.phase = PHASES[0]
        # Generated cases the oracle's side answered, to walk for transition points.
        self.bases: list[dict[str, Any]] = []
        # Generated cases kept on which both sides failed alike; those set aside.
        self.alike = self.set_aside = 0
        self.first: Finding | None = None
        #: The phase of the run's first failure.
        self.failed_in = PHASES[0]
        # The first failure as it was first found, before shrinking; the latest failure.
        self.found: Finding | None = None
        self.latest: Finding | None = None

    def tick(self, phase: str, total: int | None = None) -> None:
        self.phase = phase
        self.counts[phase] += 1
        if self.progress is not None:
            self.progress(phase, self.counts[phase], total)

    def failed(self, phase: str) -> bool:
        """Count a failure of ``phase``; whether it is the run's first (to be kept)."""
        self.failing[phase] += 1
        if self.first is None:
            self.failed_in = "generated" if phase == NEAR else phase
        return self.first is None

    def judge(self, case: Any, origin: str, fixture: Fixture | None = None) -> Finding | None:
        """The oracle's judgement of ``case``; the run's first failure is kept as found."""
        finding = self.oracle.judge(case, origin, fixture)
        seen = self.oracle.seen()
        if seen is not None:
            self.seen[self.phase][seen] += 1
        if finding is not None:
            self.latest = finding  # said and saved if the run is stopped
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
            parts = probe.parts()
            case = probe.build() if parts is None else parts
            if self.oracle.skips(case):
                continue
            self.tick(phase, len(probes))
            finding = self.judge(case, origin)
            if finding is not None and self.failed(phase):
                # Each shrinking try of a case that hangs would wait the whole timeout.
                if isinstance(finding.answer, PackerTimeout):
                    why = _unshrunk(finding)
                    self.first = replace(finding, origin=f"{origin.removesuffix(')')}, {why})")
                else:
                    self.first = self.shrunk(probe, finding, SHRINK_TRIES)
            if self.done:
                return

    def shrunk(self, probe: Probe | None, finding: Finding, tries: int) -> Finding:
        """The smallest failing case found from ``finding`` in ``tries`` packer calls.

        A probe's finding is shortened along its recipe first; any finding then loses
        blocks and detail while it still fails.
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
        deadline = time.monotonic() + self.shrink_seconds
        best = shrink(
            finding.case, fails, probe=probe, deadline=deadline, tries=tries, departs=departs
        )

        def holds(case: dict[str, Any]) -> bool:
            return time.monotonic() < deadline and fails(case)

        if isinstance(best, dict) and len(best.get("blocks") or ()) <= SHOWN_WHOLE:
            best = polished(best, holds)
        result = found[dumps(best)]
        if probe is None:
            return result
        length = len(best["blocks"]) if isinstance(best.get("blocks"), list) else 0
        note = f"{probe.describe()}, shrunk to {length} block{'s' if length != 1 else ''}"
        return replace(result, origin=f"{result.origin}: {note}")

    def generated(self, *, seed: int, max_examples: int, max_units: int) -> None:
        """Hypothesis's cases; the shrunk first failure, if any, becomes :attr:`first`.

        Failures are remembered by case, so the final replay needs no packer call (a
        flaky packer cannot turn the report into Hypothesis's ``Flaky``); shrinking stops
        after :data:`SHRINK_TRIES` new cases or ``shrink_seconds``.
        """
        failures: dict[str, Finding] = {}
        counted: list[Finding] = []
        first_failure: float | None = None
        tries = 0
        origin = f"generated case (seed {seed}, shrunk)"

        @_drawn(seed, max_examples, self.oracle.drawn(max_units, SHORT_BLOCKS))
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
                    if first_failure is None:
                        self._passed(case, max_examples)
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
        if not self.done:
            self.near(seed, max_units)

    def _passed(self, case: dict[str, Any], max_examples: int) -> None:
        """A generated case that passed: a base for transition points if the oracle's
        side answered it and it has blocks; set aside (Hypothesis draws another) if
        both sides failed alike on it and such cases passed :data:`ALIKE_SHARE` of those
        kept."""
        seen = self.oracle.seen()
        if seen == "answer" and case["blocks"]:
            self.bases.append(case)
        if not self.follows or seen in (None, "answer"):
            return
        if self.alike > ALIKE_SHARE * self.counts["generated"] and (
            self.set_aside < max_examples // 2
        ):
            self.counts["generated"] -= 1
            self.seen["generated"][seen] -= 1
            self.set_aside += 1
            reject()
        self.alike += 1

    def near(self, seed: int, max_units: int) -> None:
        """The cases beside the transition points of some of :attr:`bases`, evenly
        spread: the budget and one block's size of each (the next block for each base)
        walked by asking the oracle's side alone, then each point and one unit either
        side judged."""
        origin = f"generated case (seed {seed}, at a transition point"
        wanted = self.oracle.transition_bases
        chosen = self.bases[:: max(1, len(self.bases) // max(1, wanted))][:wanted]
        for index, base in enumerate(chosen):
            sizes = (index % len(base["blocks"]),)
            try:
                found = case_candidates(
                    self.oracle.expected_shape,
                    base,
                    max_units=max_units,
                    sizes=sizes,
                    length=self.oracle.walks_length,
                )
            except PackerFault:  # no answer: every further call of the walk could wait
                return
            for candidate in found:
                self.tick(NEAR)
                finding = self.judge(candidate, f"{origin})")
                if finding is not None and self.failed(NEAR):
                    if self.oracle.polish(finding):
                        shrunk = replace(finding, origin=f"{origin}, shrunk)")
                        self.first = self.shrunk(None, shrunk, SHRINK_TRIES)
                    else:
                        self.first = replace(finding, origin=f"{origin}, {_unshrunk(finding)})")
                if self.done or (finding is not None and isinstance(finding.answer, PackerTimeout)):
                    return

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
    seed: int, max_examples: int, drawn: st.SearchStrategy[dict[str, Any]]
) -> Callable[[Callable[[dict[str, Any]], None]], Callable[[], None]]:
    """A Hypothesis test of ``max_examples`` cases ``drawn`` at ``seed``: generated
    and shrunk, quiet, with no database, deadline or health check."""

    def test(conforms: Callable[[dict[str, Any]], None]) -> Callable[[], None]:
        given_cases = given(drawn)(conforms)
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


def replayed(s: Settings, rule: Rule | None = None) -> tuple[list[Fixture], list[str]]:
    """The fixtures to replay: ``s.fixtures`` (default the seed cases and ``rule``'s
    own), then those saved in ``s.save_failures``, and a note for each entry of that
    folder skipped.  Raises :class:`OSError` or ``SourceError``
    (:func:`._fixtures.read_fixtures`)."""
    fixtures = [
        *(seed_fixtures() + rule_fixtures(rule or Rule()) if s.fixtures is None else s.fixtures)
    ]
    if s.save_failures is None:
        return fixtures, []
    writable_directory(s.save_failures)
    saved, skipped = saved_fixtures(s.save_failures)
    return fixtures + saved, skipped


def _sorted_out(
    fixtures: list[Fixture], rule: Rule | None, follows: str | None
) -> tuple[list[Fixture], tuple[str, ...]]:
    """``fixtures``, those of another rule than the run's (``rule``, else the default;
    and the side it ``follows``) marked to run their input only, and the note that
    counts them."""
    own: list[Rule | str] = [rule or Rule(), *([follows] if follows is not None else [])]
    marked = [
        f if any(same_rule(f.rule, r) for r in own) else replace(f, checked=False) for f in fixtures
    ]
    others = [f for f in marked if not f.checked]
    return marked, others_note(len(others), sum(f.built_in for f in others))


def _under(finding: Finding | None, rule: Rule | None, follows: str | None) -> Finding | None:
    """``finding`` knowing the rule its saved fixture records: ``rule``, else the side
    the oracle follows (``None``: the default rule)."""
    if finding is None:
        return None
    return replace(finding, under=rule if rule is not None else follows)


def save_new(outcome: R, directory: Path | None) -> R:
    """``outcome``, its finding saved in ``directory`` as a fixture if it is new (not
    found by replaying a fixture); a file that cannot be written is said in ``saved``."""
    if outcome.finding is None or outcome.phase == "fixtures" or directory is None:
        return outcome
    try:
        path = save_fixture(outcome.finding.fixture(), directory)
    except OSError as exc:
        return replace(outcome, saved=f"nothing: {exc.strerror or exc}")
    return replace(outcome, saved=str(path), saved_to=path)


def run_gate(
    oracle: Oracle,
    s: Settings,
    command: Command,
    record: type[R],
    *,
    rule: Rule | None = None,
    **report: Any,
) -> R:
    """Run the gate's phases with ``oracle`` judging every case; the ``record`` of the run.

    ``rule`` is the declared rule in use (``None``: the default): only its fixtures have
    their expected answers checked, and a failure is saved under it.  Raises
    :class:`OSError` or ``SourceError`` when the fixtures cannot be read or one
    contradicts its own rule.
    """
    replay, skipped = replayed(s, rule)
    fixtures, sorted_out = _sorted_out(replay, rule, oracle.follows)
    seed = random.SystemRandom().randrange(2**32) if s.seed is None else s.seed  # reported
    started = time.monotonic()
    state = _Gate(oracle, s)
    phase_seconds: dict[str, float] = {}
    # Hypothesis's files (its Unicode tables) go to packcheck's cache, not the cwd.
    try:
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
    except BaseException as exc:
        stop = pending(exc)
        if stop is None:
            raise
        # Said and saved as the run stops.
        stop.found = _under(state.latest, rule, oracle.follows)
        raise stop from None
    outcome = record(
        command=command,
        seed=seed,
        seconds=time.monotonic() - started,
        checked=state.counts,
        failing=state.failing,
        finding=_under(finding, rule, oracle.follows),
        phase=None if finding is None else state.failed_in,
        phase_seconds=phase_seconds,
        counted=oracle.count,
        follows=oracle.follows,
        seen={phase: dict(tally) for phase, tally in state.seen.items() if tally},
        notes=(*skipped, *sorted_out, *oracle.notes()),
        set_aside=state.set_aside,
        **report,
    )
    return save_new(outcome, s.save_failures)
