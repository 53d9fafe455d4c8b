"""The audit itself: :class:`Audit` checks a run's lines one at a time and keeps only
counters and the lost IDs; two audits of consecutive parts of a run merge exactly."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from .._inputs import ReadError
from .._partition.facts import (
    CAPTURE_FACTS,
    InvariantError,
    PartitionError,
    check_partition,
)
from .._partition.invariants import check_output
from .._partition.ruled import RuledExpected
from .._partition.trace import Expected, Reason
from .._rule.declared import Rule
from .._rule.jsonio import JSONError, dumps, loads, shallow, show, write_json
from .._rule.model import MalformedCase, json_type, read_case
from .._rule.order import same_utf16
from .._rule.recorded import RULE_KEY
from .._rule.same import same
from ._lost import Lost, losses, shown_kept
from ._lost import words as lost_words
from ._record import recorded_rule, same_rule_or_raise
from ._report import Loss, RunReport, RunSummary, StepAt, Violation
from ._twice import keys_twice

#: Every ``check`` a violation can name: the partition facts, then the step's own.
CHECKS = (*CAPTURE_FACTS, "result", "round-trip", "malformed")
#: Steps named per lost ID (the first ones met); the count covers them all.
MAX_STEPS_SHOWN = 10
#: Distinct lost IDs tallied; past it, losses are only counted (memory stays flat).
MAX_TRACKED_IDS = 10_000
_BOM = "\ufeff"
#: A step's losses as the per-step path tallies them: each missing ID with its reason
#: (in the order the step lists them), and the step as a lost ID names it.
HeldLosses = tuple[Mapping[str, Lost], StepAt]


@dataclass(slots=True)
class _Tally:
    count: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    steps: list[StepAt] = field(default_factory=list)
    #: Under a declared rule: each reason's words, from the first step it was met in.
    why: dict[str, str] = field(default_factory=dict)


def _label(record: Mapping[str, Any]) -> Any:
    return record.get("step", record.get("id"))


class Audit:
    """A run checked one line at a time; :meth:`summary` at any point.

    Memory is flat: counters, and at most ``max_tracked`` lost IDs (``None``: every one,
    for a part of a run to :meth:`merge`).  ``rule`` (``None``: the seed's) is the rule
    every step is checked against; a step naming another raises :class:`RuleMismatch`.
    """

    def __init__(
        self,
        *,
        max_tracked: int | None = MAX_TRACKED_IDS,
        rule: Rule | None = None,
        rule_from_run: bool = False,
    ) -> None:
        self.max_tracked = max_tracked
        #: The rule in use, ``None`` for the default (the seed's path, as fast as ever).
        self.rule = None if rule is None or rule.is_default else rule
        #: With ``rule_from_run`` and no ``rule``: the rule is still to be read from the
        #: run's first record (an object, not an unreadable input): the rule its
        #: ``rule`` key names, else packcheck's own.
        self.unsettled = rule_from_run and rule is None
        #: Whether the rule in use is one the run's first record named.
        self.rule_recorded = False
        self.steps = 0
        self.correct = 0
        self.violations = 0
        self.malformed = 0
        self.left_out = 0
        self.untracked = 0
        #: Steps whose record shows no list of kept IDs: what they lost is unknown.
        self.unknown = 0
        #: The files that could not be read (:meth:`unreadable_file`), ``name: why``.
        self.unreadable: list[str] = []
        self._lost: dict[str, _Tally] = {}
        # Where a step's losses go instead of the tallies, while one is held.
        self._held: list[HeldLosses] | None = None

    def check_line(
        self, line: bytes | str, number: int, file: str | None = None
    ) -> list[Violation]:
        """Check the step on line ``number`` (1-based) of ``file``; its violations, if any.

        A blank line is no step; a malformed line gives one ``malformed`` violation.
        O(n + r log r) in the step's blocks and required IDs.
        """
        text: str | bytes = line
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as exc:
                return [
                    self.refused(
                        number,
                        f"not UTF-8: byte 0x{text[exc.start]:02x} at offset {exc.start}",
                        file,
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
            return [self.refused(number, str(exc), file)]
        if not isinstance(record, dict):
            why = f"expected a step object, got {json_type(record)}"
            return [self.refused(number, why, file)]
        if record.get("error") == "input" and set(record) == {"error", "detail"}:
            # What `packcheck pack --record` writes for a line it could not read.
            why = f"not a step: the recorded input was malformed ({show(record['detail'], 200)})"
            return [self.refused(number, why, file)]
        if self.unsettled:
            self.unsettled = False
            if RULE_KEY in record:
                self.rule = recorded_rule(record[RULE_KEY], number, file)
                self.rule_recorded = self.rule is not None
        elif RULE_KEY in record:
            same_rule_or_raise(record[RULE_KEY], self.rule, number, file)
        try:
            read = read_case(record)
        except MalformedCase as exc:
            return [self.refused(number, str(exc), file)]
        if self.rule is None:
            return self._check_step(record, (number, file), Expected(read), text)
        ruled = RuledExpected(read, self.rule)
        return self._check_step(record, (number, file), ruled, text, ruled.why)

    def check_held(
        self, line: bytes | str, number: int, file: str | None, held: list[HeldLosses]
    ) -> list[Violation]:
        """:meth:`check_line`, the step's losses appended to ``held`` instead of tallied
        (everything else counted), for a caller that tallies many steps' at once in line
        order (:meth:`add_losses`)."""
        self._held = held
        try:
            return self.check_line(line, number, file)
        finally:
            self._held = None

    def refused(self, number: int, why: str, file: str | None = None) -> Violation:
        """Line ``number`` of ``file`` is no step, for the reason ``why``: its violation,
        counted apart (bad input, not a bad capture)."""
        self.malformed += 1
        return Violation(number, "malformed", why, None, file)

    def unreadable_file(self, error: ReadError) -> None:
        """A file of the run could not be read, or was cut short (the audit goes on with
        the others): named in the summary, and the exit status is 2."""
        self.unreadable.append(str(error))

    def _check_step(
        self,
        record: dict[str, Any],
        at: tuple[int, str | None],
        reference: Expected | RuledExpected,
        text: str,
        words: Callable[[str, Reason], str] | None = None,
    ) -> list[Violation]:
        """Each check: a correct step costs equality tests against the reference; the
        full checkers (and their messages) run only where a check may fail.  ``words``,
        under a declared rule, say why a missing ID is missing in its terms."""
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
        result_right = partition_right = False
        if "result" in record:
            result = record["result"]
            if same(result, reference.result):
                kept = reference.result.get("kept")
                result_right = True
            else:
                try:
                    check_output(record, result, rule=self.rule)
                except InvariantError as exc:
                    if exc.invariant == "keys":
                        recheck = partial(check_output, record, rule=self.rule)
                        exc = keys_twice(exc, text, "result", recheck)
                    found.append(("result", f"{exc.invariant}: {exc.detail}"))
                else:
                    kept = [same_utf16(i) for i in result["kept"]] if "kept" in result else None
                    result_right = True

        # Check the partition: present, not null, and the one the rule gives.
        try:
            partition = record.get("partition")
            if partition is None:
                why = "it is null" if "partition" in record else "the step has no 'partition'"
                raise PartitionError("no-partition", f"no partition captured: {why}")
            if not same(partition, reference.partition_json):
                check_partition(
                    record, partition, kept=kept, reference=reference.partition(), rule=self.rule
                )
        except PartitionError as exc:
            if exc.check == "shape":
                recheck = partial(
                    check_partition,
                    record,
                    kept=kept,
                    reference=reference.partition(),
                    rule=self.rule,
                )
                exc = keys_twice(exc, text, "partition", recheck)
            found.insert(0, (exc.check, exc.detail))
        else:
            self.correct += 1
            partition_right = True

        # What the step lost, as its record shows it (docs/partition.md, "What the run lost").
        shown = shown_kept(record, result_right, partition_right)
        if shown is True or (shown is not None and same(shown, reference.result.get("kept"))):
            self._tally(reference.left_out, reference.reasons(), at, label, words)
        elif shown is None:
            self.unknown += 1
            self._tally(reference.left_out, {}, at, label)
        else:
            lost = losses(record, shown, reference, self.rule is None)
            self._tally(reference.left_out, lost, at, label, words and lost_words)
        self.violations += len(found)
        return [Violation(at[0], check, message, label, at[1]) for check, message in found]

    def _tally(
        self,
        left_out: bool,
        reasons: Mapping[str, Lost],
        at: tuple[int, str | None],
        label: Any,
        # Said of a reason of ``reasons``: the rule's words, or those of _lost.
        words: Callable[[str, Any], str] | None = None,
    ) -> None:
        if left_out:
            self.left_out += 1
        if label is not None and not (
            type(label) is int or (type(label) is str and len(label) <= 200)
        ):
            # Memory stays flat: a label kept for the summary is small.
            label = dumps(label)[:200]
        step: StepAt = (at[0], label) if at[1] is None else (at[0], label, at[1])
        if self._held is not None:
            self._held.append((reasons, step))
            return
        for block_id, reason in reasons.items():
            tally = self._tally_of(block_id, 1)
            if tally is not None:
                tally.count += 1
                if words is not None and reason not in tally.reasons:
                    tally.why[reason] = words(block_id, reason)
                tally.reasons[reason] += 1
                if len(tally.steps) < MAX_STEPS_SHOWN:
                    tally.steps.append(step)

    def add_losses(
        self,
        block_id: str,
        reasons: Sequence[tuple[Lost, int]],
        steps: Callable[[int], list[StepAt]],
    ) -> None:
        """``block_id`` missing in several steps at once, counted as their one-by-one
        tallies count it: ``reasons`` each with its number of steps, in the order first
        met; ``steps(n)`` the first ``n`` of those steps (asked only for what is shown)."""
        count = sum(number for _, number in reasons)
        tally = self._tally_of(block_id, count)
        if tally is None:
            return
        tally.count += count
        for reason, number in reasons:
            tally.reasons[reason] += number
        room = MAX_STEPS_SHOWN - len(tally.steps)
        if room > 0:
            tally.steps += steps(room)

    def _tally_of(self, block_id: str, losses: int) -> _Tally | None:
        """The tally of ``block_id``, new if need be; ``None`` (its ``losses`` counted
        as untracked) when it is new and :attr:`max_tracked` IDs are tracked already."""
        tally = self._lost.get(block_id)
        if tally is None:
            if self.max_tracked is not None and len(self._lost) >= self.max_tracked:
                self.untracked += losses
                return None
            tally = self._lost[block_id] = _Tally()
        return tally

    def merge(self, later: Audit) -> None:
        """Add the audit of the lines that follow this audit's: afterwards this audit is
        the one that checked them all, in order (``later`` must track every lost ID it
        met, ``max_tracked=None``, or the IDs past its own limit are only counted)."""
        self.steps += later.steps
        self.correct += later.correct
        self.violations += later.violations
        self.malformed += later.malformed
        self.left_out += later.left_out
        self.untracked += later.untracked
        self.unknown += later.unknown
        for block_id, theirs in later._lost.items():
            tally = self._tally_of(block_id, theirs.count)
            if tally is not None:
                tally.count += theirs.count
                tally.reasons.update(theirs.reasons)
                tally.why = {**theirs.why, **tally.why}
                tally.steps += theirs.steps[: MAX_STEPS_SHOWN - len(tally.steps)]

    def summary(self) -> RunSummary:
        """The counts so far, lost IDs most frequent first (ties: first met first)."""
        ranked = sorted(self._lost.items(), key=lambda item: -item[1].count)
        lost = tuple(
            Loss(
                block_id,
                tally.count,
                dict(tally.reasons.most_common()),
                tuple(tally.steps),
                dict(tally.why),
            )
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
            None if self.rule is None else self.rule.describe(),
            tuple(self.unreadable),
            self.unknown,
            self.rule_recorded,
        )

    def shift(self, lines: int) -> None:
        """Number the steps it names ``lines`` further on: the audit of a piece of a
        file, made before the lines ahead of the piece were counted."""
        for tally in self._lost.values():
            tally.steps = [(at[0] + lines, *at[1:]) for at in tally.steps]


def check_run(lines: Iterable[bytes | str], *, rule: Rule | None = None) -> RunReport:
    """Audit a recorded run given as its lines, numbered from 1, under ``rule`` (``None``:
    the seed's); every violation is kept in the :class:`RunReport` (feed :class:`Audit`
    for a run too large for that).  Raises :class:`RuleMismatch`."""
    audit = Audit(rule=rule)
    found: list[Violation] = []
    for number, line in enumerate(lines, start=1):
        found += audit.check_line(line, number)
    return RunReport(tuple(found), audit.summary())
