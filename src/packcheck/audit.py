"""Auditing a recorded run: did every model step capture the partition the rule gives?

A run is JSON Lines, one model step per line (docs/rule.md, "A recorded run"): the step's
case (``budget``, ``blocks``, ``required``), the ``partition`` captured at pack time
and, when recorded, ``result``, the declared output.  Other keys (``step``,
``attempt``, timestamps) belong to the recording system: kept, and ignored.

Each step is checked for: a partition present and not ``null``; the partition facts
of :func:`packcheck._partition.facts.check_partition` for that step's case; a recorded
result that is the declared output; and a record that survives a round trip (read,
written back by packcheck, read again: the same JSON text).  A line that is not a
step at all (not UTF-8, not JSON, not an object, not a well-formed case) is
malformed: named, counted, and the other lines are still checked.

:class:`Audit` takes one line at a time and keeps only counters, so a run of any
length is audited in flat memory; it also tallies what the run *lost*: each required
ID missing in some step, how often and why (evicted, oversized, not retrieved).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ._engines.choice import Engine
from ._partition.expected import Expected, exactly
from ._partition.facts import (
    CAPTURE_FACTS,
    InvariantError,
    PartitionError,
    check_partition,
    partition_json,
)
from ._partition.invariants import check_output
from ._partition.trace import trace
from ._rule.jsonio import JSONError, dumps, loads, shallow, show, write_json
from ._rule.model import MalformedCase, json_type, read_case
from ._rule.order import same_utf16

__all__ = [
    "CHECKS",
    "MAX_STEPS_SHOWN",
    "MAX_TRACKED_IDS",
    "Audit",
    "Loss",
    "PartitionError",
    "RunReport",
    "RunSummary",
    "Violation",
    "check_partition",
    "check_run",
    "record_step",
]

#: Every ``check`` a violation can name: the partition facts, then the step's own.
CHECKS = (*CAPTURE_FACTS, "result", "round-trip", "malformed")
#: Steps named per lost ID (the first ones met); the count covers them all.
MAX_STEPS_SHOWN = 10
#: Distinct lost IDs tallied; past it, losses are only counted (memory stays flat).
MAX_TRACKED_IDS = 10_000
_BOM = "\ufeff"
# A lost ID's line in the text summary names its first few steps; to_json all kept.
_STEPS_IN_TEXT = 5


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken check on one line: ``check`` (see :data:`CHECKS`) and a one-line message.

    ``step`` is the step's own ``step`` field (else its ``id``), ``None`` when it has
    neither.
    """

    line: int
    check: str
    message: str
    step: Any = None

    def to_json(self) -> dict[str, Any]:
        """``{"line", "check", "message"}``, and ``"step"`` when the step has one."""
        out: dict[str, Any] = {"line": self.line, "check": self.check, "message": self.message}
        if self.step is not None:
            out["step"] = self.step
        return out

    def __str__(self) -> str:
        where = f"line {self.line}"
        if self.step is not None:
            where += f" (step {_label_text(self.step)})"
        return f"{where}: {self.check}: {self.message}"


@dataclass(frozen=True, slots=True)
class Loss:
    """A required ID missing in ``count`` steps: ``reasons`` counted, the first ``steps``.

    Each of ``steps`` is ``(line, label)``: its line number, and its own ``step`` (or
    ``id``) field or ``None``.
    """

    id: str
    count: int
    reasons: dict[str, int]
    steps: tuple[tuple[int, Any], ...]

    def to_json(self) -> dict[str, Any]:
        """``{"id", "count", "reasons", "steps": [{"line", "step"?}, ...]}``."""
        return {
            "id": self.id,
            "count": self.count,
            "reasons": self.reasons,
            "steps": [
                {"line": line} if label is None else {"line": line, "step": label}
                for line, label in self.steps
            ],
        }

    def __str__(self) -> str:
        why = ", ".join(f"{reason} {count}" for reason, count in self.reasons.items())
        steps = ", ".join(
            f"line {line}" if label is None else f"line {line} (step {_label_text(label)})"
            for line, label in self.steps[:_STEPS_IN_TEXT]
        )
        more = ", ..." if self.count > min(len(self.steps), _STEPS_IN_TEXT) else ""
        plural = "" if self.count == 1 else "s"
        return (
            f"lost {show(self.id, 80)}: missing in {self.count} step{plural} ({why}): {steps}{more}"
        )


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
        """Exit status: 2 malformed input, 1 a violation (or, strict, the warning), else 0."""
        if self.malformed:
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
        }


@dataclass(frozen=True, slots=True)
class RunReport:
    """A whole run: every violation, in line order, and the summary."""

    violations: tuple[Violation, ...]
    summary: RunSummary

    @property
    def ok(self) -> bool:
        """No violation and no malformed line."""
        return self.summary.status() == 0


@dataclass(slots=True)
class _Tally:
    count: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    steps: list[tuple[int, Any]] = field(default_factory=list)


def _label(record: Mapping[str, Any]) -> Any:
    return record.get("step", record.get("id"))


def _label_text(label: Any) -> str:
    return label if isinstance(label, str) and label.isprintable() else dumps(label)[:80]


class Audit:
    """A run checked one line at a time; :meth:`summary` at any point.

    Memory is flat in the number of steps: counters, and at most
    :data:`MAX_TRACKED_IDS` lost IDs with :data:`MAX_STEPS_SHOWN` steps each.
    """

    def __init__(self) -> None:
        self.steps = 0
        self.correct = 0
        self.violations = 0
        self.malformed = 0
        self.left_out = 0
        self.untracked = 0
        self._lost: dict[str, _Tally] = {}

    def check_line(self, line: bytes | str, number: int) -> list[Violation]:
        """Check the step on line ``number`` (1-based); its violations, if any.

        A blank line is no step.  A malformed line gives one ``malformed`` violation
        (counted apart: it is bad input, not a bad capture).  O(n + r log r) in the
        step's blocks and required IDs.
        """
        text: str | bytes = line
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as exc:
                return [
                    self._malformed(
                        number, f"not UTF-8: byte 0x{text[exc.start]:02x} at offset {exc.start}"
                    )
                ]
        # Without its line end, so a message's column is on this line.
        text = text.rstrip("\r\n")
        if number == 1:
            text = text.removeprefix(_BOM)
        if not text.strip():
            return []
        try:
            record = loads(text)
        except JSONError as exc:
            return [self._malformed(number, str(exc))]
        if not isinstance(record, dict):
            return [self._malformed(number, f"expected a step object, got {json_type(record)}")]
        if record.get("error") == "input" and set(record) == {"error", "detail"}:
            # What `packcheck pack --record` writes for a line it could not read.
            why = f"not a step: the recorded input was malformed ({show(record['detail'], 200)})"
            return [self._malformed(number, why)]
        try:
            read = read_case(record)
        except MalformedCase as exc:
            return [self._malformed(number, str(exc))]
        return self._check_step(record, number, Expected(read), text)

    def _malformed(self, number: int, why: str) -> Violation:
        self.malformed += 1
        return Violation(number, "malformed", why)

    def _check_step(
        self, record: dict[str, Any], number: int, reference: Expected, text: str
    ) -> list[Violation]:
        """Each check: a correct step costs equality tests against the reference; the
        full checkers (and their messages) run only where a check may fail."""
        self.steps += 1
        label = _label(record)
        found: list[tuple[str, str]] = []

        # Check the round trip: written back by packcheck and read again, the same record.
        # A record written as the very line it was read from reads again as itself;
        # unless nested deep enough that reading it again, one call deeper, could meet
        # the recursion limit: such a record goes the whole way, as it always did.
        written = write_json(record)
        if written != text or not shallow(text):
            try:
                again = write_json(loads(written))
            except JSONError as exc:
                again = f"unreadable ({exc})"
            if again != written:
                found.append(
                    ("round-trip", f"written back as {written[:60]}, read again as {again[:60]}")
                )

        # Check a recorded result: the declared output.
        kept = None
        if "result" in record:
            result = record["result"]
            if exactly(result, reference.result):
                kept = reference.result.get("kept")
            else:
                try:
                    check_output(record, result)
                except InvariantError as exc:
                    found.append(("result", f"{exc.invariant}: {exc.detail}"))
                else:
                    kept = [same_utf16(i) for i in result["kept"]] if "kept" in result else None

        # Check the partition: present, not null, and the one the rule gives.
        try:
            partition = record.get("partition")
            if partition is None:
                why = "it is null" if "partition" in record else "the step has no 'partition'"
                raise PartitionError("no-partition", f"no partition captured: {why}")
            if not exactly(partition, reference.partition_json):
                check_partition(record, partition, kept=kept, reference=reference.partition())
        except PartitionError as exc:
            found.insert(0, (exc.check, exc.detail))
        else:
            self.correct += 1

        self._tally(reference.left_out, reference.reasons(), number, label)
        self.violations += len(found)
        return [Violation(number, check, message, label) for check, message in found]

    def _tally(self, left_out: bool, reasons: Mapping[str, str], line: int, label: Any) -> None:
        if left_out:
            self.left_out += 1
        if label is not None and not (
            type(label) is int or (type(label) is str and len(label) <= 200)
        ):
            # Memory stays flat: a label kept for the summary is small.
            label = dumps(label)[:200]
        for block_id, reason in reasons.items():
            tally = self._lost.get(block_id)
            if tally is None:
                if len(self._lost) >= MAX_TRACKED_IDS:
                    self.untracked += 1
                    continue
                tally = self._lost[block_id] = _Tally()
            tally.count += 1
            tally.reasons[reason] += 1
            if len(tally.steps) < MAX_STEPS_SHOWN:
                tally.steps.append((line, label))

    def summary(self) -> RunSummary:
        """The counts so far, lost IDs most frequent first (ties: first met first)."""
        ranked = sorted(self._lost.items(), key=lambda item: -item[1].count)
        lost = tuple(
            Loss(block_id, tally.count, dict(tally.reasons.most_common()), tuple(tally.steps))
            for block_id, tally in ranked
        )
        return RunSummary(
            self.steps,
            self.correct,
            self.violations,
            self.malformed,
            self.left_out,
            lost,
            self.untracked,
        )


def check_run(lines: Iterable[bytes | str]) -> RunReport:
    """Audit a recorded run given as its lines (an open file, a list of strings).

    Keeps every violation in the :class:`RunReport`; for a run too large for that, feed
    :class:`Audit` line by line.  Lines are numbered from 1.
    """
    audit = Audit()
    found: list[Violation] = []
    for number, line in enumerate(lines, start=1):
        found += audit.check_line(line, number)
    return RunReport(tuple(found), audit.summary())


def record_step(case: Mapping[str, Any], *, engine: Engine = "reference") -> dict[str, Any]:
    """``case`` as a run record: its keys, plus the ``partition`` and ``result`` captured.

    What ``packcheck pack --record`` writes, one per line.  A size-error case records
    the empty partition (nothing was scanned) and ``{"error": "size"}``.  Raises
    :class:`packcheck.MalformedCase` like :func:`packcheck.pack`.
    """
    captured = trace(case, engine=engine)
    return {**case, "partition": partition_json(captured.partition), "result": captured.result}
