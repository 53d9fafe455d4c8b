"""What an audit reports: each violation, each lost ID, the summary and the whole run;
in an audit of several files, each line names its file too."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .._rule.jsonio import dumps, show

#: Where a lost ID was missing: ``(line, label)``, or ``(line, label, file)`` in an
#: audit of several files; ``label`` is the step's own ``step`` (or ``id``) or ``None``.
StepAt = tuple[int, Any] | tuple[int, Any, str]
# A lost ID's line in the text summary names its first few steps; to_json all kept.
_STEPS_IN_TEXT = 5


def label_text(label: Any) -> str:
    """A step's label as the text shows it: a printable string as is, else its JSON."""
    return label if isinstance(label, str) and label.isprintable() else dumps(label)[:80]


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken check on one line: ``check`` (:data:`CHECKS`) and a one-line message;
    ``step`` is the step's ``step`` (else ``id``) field, ``file`` its file among several."""

    line: int
    check: str
    message: str
    step: Any = None
    file: str | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"file"?, "line", "check", "message"}``, and ``"step"`` when the step has one."""
        out: dict[str, Any] = {} if self.file is None else {"file": self.file}
        out.update(line=self.line, check=self.check, message=self.message)
        if self.step is not None:
            out["step"] = self.step
        return out

    def __str__(self) -> str:
        where = f"{_where(self.line, self.step)}: {self.check}: {self.message}"
        return where if self.file is None else f"{self.file}: {where}"


def _where(line: int, label: Any) -> str:
    return f"line {line}" if label is None else f"line {line} (step {label_text(label)})"


def _where_in(at: StepAt) -> str:
    where = _where(at[0], at[1])
    return where if len(at) == 2 else f"{at[2]} {where}"


@dataclass(frozen=True, slots=True)
class Loss:
    """A required ID missing in ``count`` steps: ``reasons`` counted, the first ``steps``,
    each a :data:`StepAt` (``(line, label)``, with ``file`` among several files)."""

    id: str
    count: int
    reasons: dict[str, int]
    steps: tuple[StepAt, ...]
    #: Under a declared rule: each reason in the rule's words, from the first step it
    #: was met in (in the order first met).
    why: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """``{"id", "count", "reasons", "steps": [{"file"?, "line", "step"?}, ...]}``,
        and ``"why"`` under a declared rule."""
        out = {
            "id": self.id,
            "count": self.count,
            "reasons": self.reasons,
            "steps": [_step_json(at) for at in self.steps],
        }
        if self.why:
            out["why"] = self.why
        return out

    def __str__(self) -> str:
        """:meth:`lines`, one under another."""
        return "\n".join(self.lines())

    def lines(self) -> list[str]:
        """One line; under a declared rule, then a line per reason in the rule's words
        (from the first step it was met in), indented under it."""
        why = ", ".join(f"{reason} {count}" for reason, count in self.reasons.items())
        steps = ", ".join(_where_in(at) for at in self.steps[:_STEPS_IN_TEXT])
        more = ", ..." if self.count > min(len(self.steps), _STEPS_IN_TEXT) else ""
        plural = "" if self.count == 1 else "s"
        head = f"lost {show(self.id, 80)}: missing in {self.count} step{plural} ({why}): "
        return [head + steps + more, *(f"    {r}: {self.why[r]}" for r in self.why)]


def _step_json(at: StepAt) -> dict[str, Any]:
    out: dict[str, Any] = {"line": at[0]} if len(at) == 2 else {"file": at[2], "line": at[0]}
    if at[1] is not None:
        out["step"] = at[1]
    return out


@dataclass(frozen=True, slots=True)
class RunSummary:
    """Counts over the run, and what it lost, most frequent first."""

    steps: int
    correct: int
    violations: int
    malformed: int
    left_out: int
    lost: tuple[Loss, ...] = ()
    untracked: int = 0
    #: The declared rule the run was audited under (``Rule.describe()``); ``None`` for
    #: packcheck's own.
    rule: str | None = None
    #: Each file that could not be read, or was cut short, where the audit met it:
    #: ``name: why`` (the audit went on with the other files).
    unreadable: tuple[str, ...] = ()
    #: Steps whose record shows no list of kept IDs (neither a result's ``kept`` nor,
    #: with no result, a partition's ``packed``): what they lost is unknown.
    unknown: int = 0
    #: Whether :attr:`rule` is the one the run's records name (no rule was given).
    rule_recorded: bool = False

    @property
    def warning(self) -> str | None:
        """Why a clean run may still prove nothing: no step left any block out."""
        if self.steps and not self.left_out:
            return (
                "no step left any block out, so this run cannot show that available "
                "and dropped are captured"
            )
        return None

    def status(self, *, strict: bool = False) -> int:
        """Exit status: 2 malformed input or an unreadable file, 1 a violation (or,
        strict, the warning), else 0."""
        if self.malformed or self.unreadable:
            return 2
        return 1 if self.violations or (strict and self.warning) else 0

    def to_json(self) -> dict[str, Any]:
        """The summary object ``packcheck audit --json`` prints last."""
        return {
            "steps": self.steps,
            "correct": self.correct,
            "violations": self.violations,
            "malformed": self.malformed,
            "left_out": self.left_out,
            "warning": self.warning,
            "lost": [loss.to_json() for loss in self.lost],
            "untracked_losses": self.untracked,
            **({} if self.rule is None else {"rule": self.rule}),
            **({"unreadable": list(self.unreadable)} if self.unreadable else {}),
            **({"unknown_steps": self.unknown} if self.unknown else {}),
        }


@dataclass(frozen=True, slots=True)
class RunReport:
    """A whole run: every violation, in file then line order, and the summary."""

    violations: tuple[Violation, ...]
    summary: RunSummary

    @property
    def ok(self) -> bool:
        """No violation and no malformed line."""
        return self.summary.status() == 0
