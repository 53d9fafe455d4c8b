"""A finished gate run (``verify``'s or ``diff``'s) and its reports: text, JSON, GitHub,
JUnit.  The JSON shapes (docs/ci.md) gain keys, never lose or rename one."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._rule.jsonio import dumps, one_line
from . import forms
from .findings import Finding

__all__ = [
    "CHECKED",
    "NEAR",
    "SEEN",
    "Command",
    "Outcome",
    "render",
    "seeds_text",
    "tallies",
    "text",
]

#: The phases of a run, in order, as :data:`Progress` names them.
PHASES = ("fixtures", "generated", "wide ranges", "long lists", "shrinking")
#: The phases whose cases are checked and reported.
CHECKED: tuple[str, ...] = PHASES[:-1]
#: The cases asked beside the generated cases' transition points: counted apart, so
#: that the generated cases stay ``max_examples``; their time is the generated phase's.
NEAR = "transition points"
# What a summary line calls the cases of each phase.
_NOUNS = {
    "fixtures": "fixture",
    "generated": "generated case",
    NEAR: "transition-point case",
    "wide ranges": "wide-range case",
    "long lists": "long list",
}
#: What the followed side did on a case, as the oracle's ``seen`` names it, in words.
SEEN = {
    "answer": "answered",
    "error": "answered an error",
    "raise": "raised",
    "fault": "gave no answer",
}


@dataclass(frozen=True, slots=True)
class Command:
    """A gate command's words: its name, verdicts, JSON failure key and JUnit type."""

    name: str
    passed: str
    failed: str
    failure_key: str
    exception: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one gate run checked, and the first finding if it found one.

    ``checked``/``failing``: cases per phase (for ``shrinking``, the tries); ``seeds``:
    of a passing run of several (counts summed); ``seen``: per phase, what the followed
    side did (:data:`SEEN`); ``set_aside``: cases both sides failed alike, replaced;
    ``follows``: the side followed (``None``: the declared rule); ``declared``: the rule
    when not the seed's.
    """

    command: Command
    seed: int
    seconds: float
    checked: Mapping[str, int]
    failing: Mapping[str, int]
    finding: Finding | None = None
    phase: str | None = None
    phase_seconds: Mapping[str, float] = field(default_factory=dict)
    counted: bool = False
    subject: str = ""
    names: Mapping[str, str] = field(default_factory=dict)
    rerun: str = ""
    saved: str | None = None
    saved_to: Path | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)
    seeds: tuple[int, ...] = ()
    seen: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    set_aside: int = 0
    follows: str | None = None
    declared: str | None = None

    @property
    def status(self) -> int:
        """The exit status: 0 passed, 1 not."""
        return 0 if self.finding is None else 1

    @property
    def shrink_tries(self) -> int:
        """The cases tried while shrinking the finding."""
        return self.checked.get("shrinking", 0)

    def counts(self) -> str:
        """``1 fixture, 1000 generated cases, 12 transition-point cases, ...``."""
        numbers = {phase: self.checked.get(phase, 0) for phase in _NOUNS}
        return ", ".join(
            f"{numbers[phase]} {noun}{'' if numbers[phase] == 1 else 's'}"
            for phase, noun in _NOUNS.items()
        )

    def shares(self) -> list[str]:
        """Per phase: ``generated: 3 of 1000 cases differ (0.3%)``."""
        lines = []
        for phase in (*CHECKED, *([NEAR] if self.checked.get(NEAR) else [])):
            total, failing = self.checked[phase], self.failing.get(phase, 0)
            share = f"{100 * failing / total:.3g}%" if total else "no cases"
            lines.append(f"{phase}: {failing} of {total} cases differ ({share})")
        return lines

    def followed(self) -> list[str]:
        """Per phase with cases: ``generated: answered 85%, raised 15%``."""
        lines = []
        for phase in (*CHECKED, NEAR):
            seen = self.seen.get(phase, {})
            tally = {word: seen[word] for word in SEEN if seen.get(word)}
            total = sum(tally.values())
            if total:
                done = ", ".join(f"{SEEN[w]} {100 * n / total:.3g}%" for w, n in tally.items())
                if phase == "generated" and self.set_aside:
                    done += f" ({self.set_aside} more, failed alike, set aside)"
                lines.append(f"{phase}: {done}")
        return lines

    def verdict_line(self) -> str:
        """``conformant: 3 fixtures, ...`` or ``NOT conformant after 1 fixture, ...``
        (the cases run, the failing one included)."""
        if self.finding is None:
            verdict = f"{self.command.passed}:"
        else:
            verdict = f"{self.command.failed} after"
        if self.seeds:
            many = "s" if len(self.seeds) != 1 else ""
            seeds = f"{len(self.seeds)} seed{many} passed (seeds {seeds_text(self.seeds)})"
            line = f"{seeds}, in all {self.counts()}, {self.seconds:.1f} s ({self.subject})"
        else:
            line = f"{self.counts()}, seed {self.seed}, {self.seconds:.1f} s ({self.subject})"
        return f"packcheck {self.command.name}: {verdict} {line}"


def tallies(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Several seeds' tallies as one outcome's fields: summed, notes with their seed."""
    phases = {phase for o in outcomes for phase in o.seen}
    return {
        "seen": {
            p: dict(sum((Counter(o.seen.get(p, {})) for o in outcomes), Counter())) for p in phases
        },
        "notes": tuple(f"seed {o.seed}: {note}" for o in outcomes for note in o.notes),
        "set_aside": sum(o.set_aside for o in outcomes),
    }


def seeds_text(seeds: tuple[int, ...]) -> str:
    """``1-8`` or ``1,4,9``: increasing ``seeds``, each run of consecutive ones as A-B."""
    parts: list[str] = []
    start = previous = seeds[0]
    for seed in (*seeds[1:], None):
        if seed is not None and seed == previous + 1:
            previous = seed
            continue
        parts.append(str(start) if start == previous else f"{start}-{previous}")
        if seed is not None:
            start = previous = seed
    return ",".join(parts)


def text(outcome: Outcome) -> str:
    """The report for a person: the finding, shares, notes, rerun and verdict line."""
    shares = [f"share:    {share}" for share in outcome.shares()] if outcome.counted else []
    if outcome.counted and outcome.follows:
        shares += [f"{outcome.follows + ':':10}{line}" for line in outcome.followed()]
    shares += [f"note:     {note}" for note in outcome.notes]
    if outcome.declared is not None:
        shares.append(f"rule:     {outcome.declared}")
    if outcome.finding is None:
        return "\n".join(map(one_line, [*shares, outcome.verdict_line()]))
    lines = [*shares]
    if outcome.saved is not None:
        lines.append(f"saved:    {outcome.saved}")
    lines.append(f"rerun:    {outcome.rerun}")
    lines.append(outcome.verdict_line())
    # The finding's report escapes its own lines (Finding.report); these are one each.
    return "\n".join([outcome.finding.report(), *map(one_line, lines)])


def _failure(outcome: Outcome, finding: Finding) -> dict[str, Any]:
    return {
        "phase": outcome.phase,
        "origin": finding.origin,
        "name": finding.name,
        **finding.json(),
        "fixture": finding.fixture(),
        "saved": outcome.saved,
        "rerun": outcome.rerun,
        "report": text(outcome),
    }


def _phase(outcome: Outcome, name: str) -> dict[str, Any]:
    cases = outcome.checked[name]
    entry: dict[str, Any] = {
        "name": name,
        "cases": cases,
        "seconds": round(outcome.phase_seconds.get(name, 0.0), 3),
    }
    if outcome.follows:
        share = round(outcome.failing[name] / cases, 6) if outcome.counted and cases else None
        entry.update(differing=outcome.failing[name], share=share)
        tally = dict.fromkeys(SEEN, 0) | dict(outcome.seen.get(name, {}))
        entry[outcome.follows.lower()] = tally
        if name == "generated":
            entry["set_aside"] = outcome.set_aside
    if name == "generated":
        entry["transition_cases"] = outcome.checked.get(NEAR, 0)
        if outcome.follows:
            entry["transition_differing"] = outcome.failing.get(NEAR, 0)
    return entry


def json_report(outcome: Outcome) -> str:
    """One JSON object on one line; integers exact at any size."""
    command, finding = outcome.command, outcome.finding
    report: dict[str, Any] = {"format": forms.JSON_VERSION}
    if outcome.follows:
        report["command"] = command.name
    report["verdict"] = command.passed if finding is None else finding.verdict()
    report.update(status=outcome.status, seed=None if outcome.seeds else outcome.seed)
    if outcome.seeds:
        report["seeds"] = list(outcome.seeds)
    report.update(outcome.names)
    if outcome.declared is not None:
        report["rule"] = outcome.declared
    report["settings"] = dict(outcome.settings)
    if outcome.follows:
        report["counted"] = outcome.counted
    report["cases"] = sum(outcome.checked[name] for name in CHECKED)
    report["seconds"] = round(outcome.seconds, 3)
    report["phases"] = [_phase(outcome, name) for name in CHECKED]
    report["shrink_tries"] = outcome.shrink_tries
    if outcome.follows or outcome.notes:
        report["notes"] = list(outcome.notes)
    report[command.failure_key] = None if finding is None else _failure(outcome, finding)
    report["rerun"] = outcome.rerun
    return dumps(report)


def github(outcome: Outcome) -> str:
    """An ``::error`` for the finding (else a ``::notice``), then the text report."""
    finding, report, name = outcome.finding, text(outcome), outcome.command.name
    if finding is None:
        title, message = outcome.command.passed, outcome.verdict_line()
        return forms.github(name, passed=True, title=title, message=message, text=report)
    title = f"{outcome.phase}: {finding.failures[0]}"
    return forms.github(name, passed=False, title=title, message=report, text=report)


def _testcase(outcome: Outcome, name: str, stopped: bool) -> forms.TestCase:
    seconds, cases = outcome.phase_seconds.get(name, 0.0), outcome.checked[name]
    failing = outcome.failing[name]
    if stopped or not cases:
        why = "an earlier phase failed" if stopped else "no cases: left out"
        return forms.TestCase(name, seconds, skipped=why)
    kind = outcome.command.exception
    if name == outcome.phase:
        assert outcome.finding is not None
        failure = forms.Failure(outcome.finding.failures[0], kind, text(outcome))
        return forms.TestCase(name, seconds, failure=failure)
    if failing:
        share = f"{failing} of {cases} cases differ"
        shown = f"{share}; the first divergence, shrunk, is reported under {outcome.phase}"
        return forms.TestCase(name, seconds, failure=forms.Failure(share, kind, shown))
    return forms.TestCase(name, seconds, out=f"{cases} cases")


def junit_xml(outcome: Outcome) -> bytes:
    """JUnit XML, a ``testcase`` per phase: the failed one a ``failure``, later ones
    ``skipped`` (a counted run: every phase with failing cases a ``failure``)."""
    cases = []
    after_failure = False
    for name in CHECKED:
        cases.append(_testcase(outcome, name, after_failure and not outcome.counted))
        after_failure = after_failure or name == outcome.phase
    seed = {"seeds": seeds_text(outcome.seeds)} if outcome.seeds else {"seed": outcome.seed}
    rule = {} if outcome.declared is None else {"rule": outcome.declared}
    properties = {**seed, **rule, "rerun": outcome.rerun, **outcome.settings}
    name = outcome.command.name
    return forms.junit_xml(name, outcome.subject, outcome.seconds, properties, cases)


def render(outcome: Outcome, form: str) -> str:
    """The report on stdout in ``form``, one of :data:`~.forms.FORMATS`."""
    return {"text": text, "json": json_report, "github": github}[form](outcome)
