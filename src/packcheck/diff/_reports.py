"""``packcheck diff``'s report in the forms CI reads: text, JSON, GitHub Actions, JUnit XML.

Every form is built from the same :class:`DiffOutcome` (the run's :class:`DiffSummary`,
the two packers' names, the command that reruns it, what was saved), never by parsing
the text; the GitHub and JUnit forms are built by :mod:`packcheck._reports`, as
``verify``'s are.  The JSON shape (docs/ci.md) is stable: keys are added, never
renamed or removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import _reports as forms
from .._rule.jsonio import dumps
from ..verify._findings import _plain_json
from . import DiffSummary
from ._behaviour import Outcome
from ._oracle import DiffFinding, shown_outcome

__all__ = ["DiffOutcome", "github", "json_report", "junit_xml", "text"]


@dataclass(frozen=True, slots=True)
class DiffOutcome:
    """A finished ``diff`` run: what it compared, with what, and how to run it again.

    ``saved`` is the line after ``saved:`` in the text (where a new divergence was
    saved, or why it was not), ``None`` when nothing was to be saved; ``settings`` are
    the options that decide what was compared, as the JSON report shows them.
    """

    summary: DiffSummary
    new: str
    old: str
    rerun: str
    saved: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> int:
        """The exit status: 0 the two agree, 1 not."""
        return 0 if self.summary.finding is None else 1

    @property
    def verdict(self) -> str:
        """``agree``; ``diverge``: they behave differently; ``error``: the reported case
        is one a side could not answer at all (a fault: a timeout, a dead process)."""
        finding = self.summary.finding
        if finding is None:
            return "agree"
        sides = (finding.new, finding.old)
        faulted = any(side is not None and side.kind == "fault" for side in sides)
        return "error" if faulted else "diverge"

    def names(self) -> str:
        """``NEW ..., OLD ...``."""
        return f"NEW {self.new}, OLD {self.old}"

    def verdict_line(self) -> str:
        """The last line of the text report."""
        s = self.summary
        line = f"{s.counts()}, seed {s.seed}, {s.seconds:.1f} s ({self.names()})"
        return f"packcheck diff: {'agree' if s.agree else 'DIFFERENT'}: {line}"


def text(outcome: DiffOutcome) -> str:
    """The report for a person: the divergence (if any), the shares with ``--count``,
    where it was saved, the rerun command, and the verdict line."""
    s = outcome.summary
    shares = [f"share:    {share}" for share in s.shares()] if s.counted else []
    if s.finding is None:
        return "\n".join([*shares, outcome.verdict_line()])
    lines = [s.finding.report(), *shares]
    if outcome.saved is not None:
        lines.append(f"saved:    {outcome.saved}")
    lines.append(f"rerun:    {outcome.rerun}")
    lines.append(outcome.verdict_line())
    return "\n".join(lines)


def _side(side: Outcome | None) -> dict[str, Any]:
    """One side's outcome as JSON data."""
    assert side is not None
    plain = side.kind == "answer" and _plain_json(side.value)
    return {
        "kind": side.kind,
        "answer": side.value if plain else None,
        "text": shown_outcome(side, whole=True),
        "raised": side.raised,
        "fault": side.describe() if side.kind == "fault" else None,
    }


def _divergence(outcome: DiffOutcome, finding: DiffFinding) -> dict[str, Any]:
    return {
        "phase": outcome.summary.phase,
        "origin": finding.origin,
        "name": finding.name,
        "differs": list(finding.failures),
        "case": finding.case,
        "new": _side(finding.new),
        "old": _side(finding.old),
        "rule": finding.rule,
        "parts": finding.parts,
        "fixture": finding.fixture(),
        "saved": outcome.saved,
        "rerun": outcome.rerun,
        "report": text(outcome),
    }


def _share(summary: DiffSummary, phase: str) -> float | None:
    cases = summary.cases[phase]
    if not summary.counted or not cases:
        return None
    return round(summary.differing[phase] / cases, 6)


def json_report(outcome: DiffOutcome) -> str:
    """One JSON object (one line): verdict, seed, both packers, phases, the divergence.

    Integers are exact at any size (cases past 2**53 keep their digits).
    """
    s = outcome.summary
    report: dict[str, Any] = {
        "format": forms.JSON_VERSION,
        "command": "diff",
        "verdict": outcome.verdict,
        "status": outcome.status,
        "seed": s.seed,
        "new": outcome.new,
        "old": outcome.old,
        "settings": dict(outcome.settings),
        "counted": s.counted,
        "cases": sum(s.cases.values()),
        "seconds": round(s.seconds, 3),
        "phases": [
            {
                "name": phase,
                "cases": s.cases[phase],
                "seconds": round(s.phase_seconds.get(phase, 0.0), 3),
                "differing": s.differing[phase],
                "share": _share(s, phase),
            }
            for phase in s.cases
        ],
        "shrink_tries": s.shrink_tries,
        "divergence": None if s.finding is None else _divergence(outcome, s.finding),
        "rerun": outcome.rerun,
    }
    return dumps(report)


def github(outcome: DiffOutcome) -> str:
    """GitHub Actions workflow commands, then the text report.

    An ``::error`` for the divergence, titled with the phase and how the two differ,
    its message the report with the rerun command; an agreeing run gets a ``::notice``.
    """
    finding = outcome.summary.finding
    report = text(outcome)
    if finding is None:
        message = outcome.verdict_line()
        return forms.github("diff", passed=True, title="agree", message=message, text=report)
    title = f"{outcome.summary.phase}: {finding.failures[0]}"
    return forms.github("diff", passed=False, title=title, message=report, text=report)


def junit_xml(outcome: DiffOutcome) -> bytes:
    """JUnit XML: a ``testsuite`` for the run, a ``testcase`` per phase.

    The phase that found the divergence holds a ``failure`` whose text is the report.
    A run stops there: the phases after it are ``skipped``.  With ``--count`` every
    phase runs, and each other phase with cases that differ holds a ``failure`` too,
    saying how many.  A phase with no cases (``--no-long-lists``) is ``skipped``.
    """
    s = outcome.summary
    failed = s.phase
    cases = []
    after_failure = False
    for name, count in s.cases.items():
        seconds = s.phase_seconds.get(name, 0.0)
        differing = s.differing[name]
        stopped = after_failure and not s.counted
        if stopped or not count:
            why = "an earlier phase failed" if stopped else "no cases: left out"
            cases.append(forms.TestCase(name, seconds, skipped=why))
        elif name == failed:
            assert s.finding is not None
            failure = forms.Failure(s.finding.failures[0], "Divergence", text(outcome))
            cases.append(forms.TestCase(name, seconds, failure=failure))
            after_failure = True
        elif differing:
            share = f"{differing} of {count} cases differ"
            shown = f"{share}; the first divergence, shrunk, is reported under {failed}"
            failure = forms.Failure(share, "Divergence", shown)
            cases.append(forms.TestCase(name, seconds, failure=failure))
        else:
            cases.append(forms.TestCase(name, seconds, out=f"{count} cases"))
    properties = {"seed": s.seed, "rerun": outcome.rerun, **outcome.settings}
    return forms.junit_xml("diff", outcome.names(), s.seconds, properties, cases)
