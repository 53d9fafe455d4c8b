"""The gate's report in the forms CI reads: text, JSON, GitHub Actions commands, JUnit XML.

Every form is built from the same :class:`Outcome` (the run's :class:`Summary`, the
packer's name, the command that reruns it, what was saved), never by parsing the text;
the GitHub and JUnit forms are built by :mod:`packcheck._reports`, as ``diff``'s are.  The
JSON shape (docs/ci.md) is stable: keys are added, never renamed or removed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .. import _reports as forms
from .._packers import PackerFault
from .._rule.jsonio import dumps
from ._findings import Finding, _plain_json, show_answer
from ._gate import PHASES, Summary

__all__ = ["FORMATS", "JSON_VERSION", "Outcome", "github", "json_report", "junit_xml", "text"]

#: The values of ``--format``.
FORMATS = forms.FORMATS
#: ``"format"`` in the JSON report: raised only if a key changes meaning or goes away.
JSON_VERSION = forms.JSON_VERSION
#: The phases a run goes through, as the reports name them (shrinking is part of the
#: phase whose failure it shrinks).
CHECKED: tuple[str, ...] = PHASES[:-1]


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished run: what it checked, with what, and how to run it again.

    ``saved`` is the line after ``saved:`` in the text (where a new counterexample was
    saved, or why it was not), ``None`` when nothing was to be saved; ``settings`` are
    the options that decide what was checked, as the JSON report shows them.
    """

    summary: Summary
    packer: str
    rerun: str
    saved: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)

    @property
    def status(self) -> int:
        """The exit status: 0 conformant, 1 not."""
        return 0 if self.summary.finding is None else 1

    def phase(self) -> str | None:
        """The phase the counterexample was found in (``None`` when conformant)."""
        if self.summary.finding is None:
            return None
        counts = self.counts()
        failed: str = next(name for name in reversed(CHECKED) if counts[name])
        return failed

    def counts(self) -> dict[str, int]:
        """Cases checked by each phase, the failing one included, and shrinking tries."""
        s = self.summary
        return {
            "fixtures": s.fixtures,
            "generated": s.generated,
            "wide ranges": s.wide,
            "long lists": s.long_lists,
            "shrinking": s.shrink_tries,
        }

    def verdict_line(self) -> str:
        """The last line of the text report."""
        s = self.summary
        line = f"{s.counts()}, seed {s.seed}, {s.seconds:.1f} s ({self.packer})"
        verdict = "conformant" if s.finding is None else "NOT conformant"
        return f"packcheck verify: {verdict}: {line}"


def text(outcome: Outcome) -> str:
    """The report for a person: the counterexample (if any) and the verdict line."""
    finding = outcome.summary.finding
    if finding is None:
        return outcome.verdict_line()
    lines = [finding.report()]
    if outcome.saved is not None:
        lines.append(f"saved:    {outcome.saved}")
    lines.append(f"rerun:    {outcome.rerun}")
    lines.append(outcome.verdict_line())
    return "\n".join(lines)


def _answer(answer: object) -> object:
    """The answer as JSON data, or ``None`` when it is not plain JSON (or no answer)."""
    if isinstance(answer, PackerFault) or not _plain_json(answer):
        return None
    return answer


def _failure(outcome: Outcome, finding: Finding) -> dict[str, Any]:
    fault = finding.answer if isinstance(finding.answer, PackerFault) else None
    return {
        "phase": outcome.phase(),
        "origin": finding.origin,
        "name": finding.name,
        "check": finding.failures[0],
        "checks": list(finding.failures),
        "case": finding.case,
        "answer": _answer(finding.answer),
        "answer_text": show_answer(finding.answer),
        "fault": None if fault is None else str(fault),
        "expected": finding.expected,
        "departure": finding.departs,
        "causes": list(finding.causes),
        "cause": None if fault is not None else "; ".join(finding.causes) or "no known cause",
        "fixture": finding.fixture(),
        "saved": outcome.saved,
        "rerun": outcome.rerun,
        "report": text(outcome),
    }


def json_report(outcome: Outcome) -> str:
    """One JSON object (one line): verdict, seed, packer, phases and the failure.

    Integers are exact at any size (cases past 2**53 keep their digits).
    """
    s = outcome.summary
    phases = s.phase_seconds
    counts = outcome.counts()
    report: dict[str, Any] = {
        "format": JSON_VERSION,
        "verdict": "conformant" if s.finding is None else "not conformant",
        "status": outcome.status,
        "seed": s.seed,
        "packer": outcome.packer,
        "settings": dict(outcome.settings),
        "cases": s.cases,
        "seconds": round(s.seconds, 3),
        "phases": [
            {"name": name, "cases": counts[name], "seconds": round(phases.get(name, 0.0), 3)}
            for name in CHECKED
        ],
        "shrink_tries": s.shrink_tries,
        "failure": None if s.finding is None else _failure(outcome, s.finding),
        "rerun": outcome.rerun,
    }
    return dumps(report)


def github(outcome: Outcome) -> str:
    """GitHub Actions workflow commands, then the text report.

    One ``::error`` per failure (a run stops at its first), titled with the phase and
    the failed check, its message the report with the rerun command; a conformant run
    gets a ``::notice``.
    """
    finding = outcome.summary.finding
    if finding is None:
        return forms.github(
            "verify",
            passed=True,
            title="conformant",
            message=outcome.verdict_line(),
            text=text(outcome),
        )
    report = text(outcome)
    title = f"{outcome.phase()}: {finding.failures[0]}"
    return forms.github("verify", passed=False, title=title, message=report, text=report)


def junit_xml(outcome: Outcome) -> bytes:
    """JUnit XML: a ``testsuite`` for the run, a ``testcase`` per phase.

    The failing phase's ``testcase`` holds a ``failure`` whose text is the report; the
    phases after it (and the long lists when left out) are ``skipped``.
    """
    s = outcome.summary
    failed = outcome.phase()
    counts = outcome.counts()
    cases = []
    after_failure = False
    for name in CHECKED:
        seconds = s.phase_seconds.get(name, 0.0)
        if after_failure or not counts[name]:
            why = "an earlier phase failed" if after_failure else "no cases: left out"
            cases.append(forms.TestCase(name, seconds, skipped=why))
        elif name == failed:
            assert s.finding is not None
            failure = forms.Failure(s.finding.failures[0], "Counterexample", text(outcome))
            cases.append(forms.TestCase(name, seconds, failure=failure))
            after_failure = True
        else:
            cases.append(forms.TestCase(name, seconds, out=f"{counts[name]} cases"))
    properties = {"seed": s.seed, "rerun": outcome.rerun, **outcome.settings}
    return forms.junit_xml("verify", outcome.packer, s.seconds, properties, cases)
