"""The oracle of ``packcheck diff``: the packer's previous version (OLD) answers each
case; what is not compared is counted in the notes (docs/diff.md, "Faults alike")."""

from __future__ import annotations

import time
from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import Any

from hypothesis import strategies as st

from .._engines.pack import pack
from .._gate import SHOWN_WHOLE, Command, Finding, Fixture, plain_json
from .._gate.findings import case_summary, cut_lists
from .._gate.plain_case import PlainCase, blocks_in
from .._gate.transitions import shape
from .._packers import Packer, PackerTimeout
from .._rule.declared import Rule
from .._rule.jsonio import dumps, one_line, show
from .._rule.model import MalformedCase
from ..strategies import cases
from ._behaviour import Outcome, alike, differences, outcome, parting, parting_block

__all__ = ["DIFF", "DiffFinding", "DiffOracle", "shown_outcome"]

#: ``diff``'s words in its reports.
DIFF = Command("diff", "agree", "DIFFERENT", "divergence", "Divergence")


@dataclass(frozen=True, slots=True)
class DiffFinding(Finding):
    """A case on which NEW (``answer``) and OLD (``expected``) behave differently;
    ``rule``: the declared rule's answer, as context."""

    PREFIX = "diff"

    new: Outcome | None = None
    old: Outcome | None = None
    rule: Any = None
    parts: str | None = None

    def declared(self) -> Any:
        """Under a declared rule, its answer; else OLD's answer when it is JSON data, or
        ``{"behaviour": ...}`` in the report's words."""
        if isinstance(self.under, Rule):
            return _rule_answer(self.case, self.under)
        old = self.old
        if old is not None and old.kind == "answer" and plain_json(old.value):
            return old.value
        return {"behaviour": shown_outcome(old, whole=True)} if old is not None else None

    def verdict(self) -> str:
        """``error`` when a side faulted, else ``diverge``."""
        faulted = any(side is not None and side.kind == "fault" for side in (self.new, self.old))
        return "error" if faulted else "diverge"

    def json(self) -> dict[str, Any]:
        return {
            "differs": list(self.failures),
            "case": self.case,
            "new": _side(self.new),
            "old": _side(self.old),
            "rule": self.rule,
            "parts": self.parts,
        }

    def report(self) -> str:
        lines = [f"DIFFERS {self.origin}"]
        lines += [f"  differs:  {failure}" for failure in self.failures]
        if self.parts is not None:
            lines.append(f"  parts:    {self.parts}")
        whole = self.blocks() <= SHOWN_WHOLE
        lines.append(f"  case:     {dumps(self.case) if whole else case_summary(self.case)}")
        for label, side in (("new", self.new), ("old", self.old)):
            lines.append(f"  {label}:      {shown_outcome(side, whole)}")
        lines.append(f"  rule:     {_summarised(self.rule, whole)} (the declared rule, as context)")
        if whole:
            lines.append(f"  fixture:  {dumps([self.fixture()])}")
        else:
            lines.append(f"  fixture:  too long to show; {self.saving} saves it whole")
        return "\n".join(map(one_line, lines))


def _counted(count: int, noun: str, which: str, what: str) -> str:
    """``1 case WHICH was WHAT`` or ``3 cases WHICH were WHAT``."""
    many = count != 1
    return f"{count:,} {noun}{'s' * many} {which} {'were' if many else 'was'} {what}"


def shown_outcome(side: Outcome | None, whole: bool) -> str:
    """One side's outcome as the report shows it."""
    assert side is not None
    if side.kind == "answer":
        return _summarised(side.value, whole)
    if side.kind == "raise":
        return f"({side.describe()})"
    return f"(no answer: {side.describe()})"


def _side(side: Outcome | None) -> dict[str, Any]:
    assert side is not None
    plain = side.kind == "answer" and plain_json(side.value)
    return {
        "kind": side.kind,
        "answer": side.value if plain else None,
        "text": shown_outcome(side, whole=True),
        "raised": side.raised,
        "fault": side.describe() if side.kind == "fault" else None,
    }


def _summarised(output: object, whole: bool) -> str:
    """JSON (else ``repr``); long lists cut unless ``whole``."""
    if whole or not isinstance(output, dict):
        return show(output, 10**9)
    return cut_lists(output, lambda key: show(key, 40), tuples=True)


def _kind(side: Outcome) -> str:
    """What a side did, as the reports tally it (``_gate.outcome.SEEN``)."""
    if side.kind != "answer":
        return side.kind
    return "error" if isinstance(side.value, dict) and "error" in side.value else "answer"


#: OLD is not asked again once it gave no answer to this many cases in a row.
GIVE_UP_AFTER = 3


class DiffOracle:
    """NEW is judged by OLD; ``count``: every phase runs to its end, counting."""

    follows: str | None = "OLD"
    #: OLD's answers are walked for transition points: its rule is not known.
    transition_bases = 100
    walks_length = False

    def __init__(
        self, new: Packer, old: Packer, *, count: bool = False, rule: Rule | None = None
    ) -> None:
        self.new = new
        self.old = old
        self.count = count
        #: The declared rule shown as context (``None``: the seed's).
        self.rule = rule
        # A side that answers in JSON text cannot tell 4 from 4.0: compared by value.
        self.json_numbers = any(p.speaks_json for p in (new, old))
        #: OLD's seconds a case (its adapter's timeout; none in this process).
        self.limit: float = old.timeout
        self.last: str | None = None
        # Cases not compared: OLD gave no answer; NEW none where OLD was slow; faults alike.
        self.unanswered = self.slow = self.faults_alike = 0
        # The shortest long list OLD could not answer in time, why, and those left out.
        self.too_long: int | None = None
        self.why_long = ""
        self.left_out = 0
        # OLD's timeouts in a row (asked no more at GIVE_UP_AFTER), and the cases since.
        self.in_a_row = self.not_asked = 0

    def drawn(self, max_units: int, max_blocks: int) -> st.SearchStrategy[dict[str, Any]]:
        """One draw in ten from all cases, the rest with valid units, so that OLD answers
        most of them."""
        anything = cases(max_units=max_units, max_blocks=max_blocks)
        valid = cases(max_units=max_units, max_blocks=max_blocks, allow_invalid=False)
        return st.integers(0, 9).flatmap(lambda roll: anything if roll == 9 else valid)

    def _long(self, case: Any, why: str) -> bool:
        """Whether ``case`` is a long list; if so, lists as long are left out from now on."""
        length = blocks_in(case)
        if length > SHOWN_WHOLE and (self.too_long is None or length < self.too_long):
            self.too_long, self.why_long = length, why
        return length > SHOWN_WHOLE

    def judge(self, case: Any, origin: str, fixture: Fixture | None = None) -> Finding | None:
        """A :class:`DiffFinding` unless NEW and OLD behave alike (or it is not compared)."""
        if self.in_a_row >= GIVE_UP_AFTER:
            self.not_asked += 1
            self.last = None
            return None
        began = time.monotonic()
        old = outcome(self.old, case)
        took = time.monotonic() - began
        self.last = _kind(old)
        timed_out = isinstance(old.value, PackerTimeout)
        self.in_a_row = self.in_a_row + 1 if timed_out else 0
        if timed_out:
            self.unanswered += 1
            self._long(case, f"gave no answer within {self.limit:g} s to")
            return None
        slow = took > self.limit / 4 and self._long(
            case, f"took {took:.1f} s, more than a quarter of the timeout, on"
        )
        new = outcome(self.new, case)
        if slow and took > self.limit / 2 and isinstance(new.value, PackerTimeout):
            self.slow += 1
            return None
        if alike(new, old):
            self.faults_alike += 1
            return None
        why = differences(new, old, json_numbers=self.json_numbers)
        if not why:
            return None
        if isinstance(case, PlainCase):
            case = case.build()
        return DiffFinding(case, old.value, new.value, why, origin, new=new, old=old)

    def seen(self) -> str | None:
        """What OLD did on the case last judged."""
        return self.last

    def expected_shape(self, case: dict[str, Any]) -> Hashable:
        """OLD's outcome of ``case``, numbers blanked; raises if it gave none."""
        if self.in_a_row >= GIVE_UP_AFTER:
            raise PackerTimeout("OLD is no longer asked")
        old = outcome(self.old, case)
        if old.kind == "answer":
            return old.kind, shape(old.value)
        if isinstance(old.value, PackerTimeout):
            raise old.value
        return old.kind, old.raised or type(old.value).__name__

    def skips(self, case: Any) -> bool:
        """Lists as long as one OLD could not answer in time are left out."""
        skipped = self.too_long is not None and blocks_in(case) >= self.too_long
        self.left_out += skipped
        return skipped

    def notes(self) -> tuple[str, ...]:
        """What was not compared, and why."""
        limit = f"{self.limit:g} s"
        # The lines a longer timeout changes come last, the hint after them.
        counted = [
            (self.faults_alike, "where both sides faulted alike"),
            (self.unanswered, f"where OLD gave no answer within {limit}"),
            (
                self.slow,
                f"where NEW gave no answer within {limit} and OLD took more than half of that",
            ),
        ]
        lines = [_counted(n, "case", why, "not compared") for n, why in counted if n]
        if self.in_a_row >= GIVE_UP_AFTER:
            lines.append(
                f"OLD gave no answer within {limit} to {GIVE_UP_AFTER} cases in a row and was "
                f"not asked again: {_counted(self.not_asked, 'case', 'after them', 'not compared')}"
            )
        if self.left_out:
            lines.append(
                _counted(self.left_out, "long list", f"of {self.too_long:,} blocks or more", "not")
                + f" asked: OLD {self.why_long} a list of {self.too_long:,} blocks"
            )
        if self.unanswered or self.slow or self.left_out:
            lines[-1] += "; a longer timeout raises the limit"
        return tuple(lines)

    def polish(self, finding: Finding) -> bool:
        """Whether to polish: a fault (a timeout) is shown as found."""
        assert isinstance(finding, DiffFinding)
        return all(side is not None and side.kind != "fault" for side in (finding.new, finding.old))

    def departs(self, finding: Finding) -> int | None:
        """The last block named where NEW's and OLD's ``kept`` lists part, if known."""
        assert isinstance(finding, DiffFinding)
        assert finding.new is not None
        assert finding.old is not None
        return parting_block(finding.case, finding.new, finding.old)

    def explained(self, finding: Finding) -> Finding:
        """The declared rule's answer, and where the two ``kept`` lists part."""
        assert isinstance(finding, DiffFinding)
        assert finding.new is not None
        assert finding.old is not None
        rule = _rule_answer(finding.case, self.rule)
        return replace(finding, rule=rule, parts=parting(finding.new, finding.old))


def _rule_answer(case: Any, rule: Rule | None) -> Any:
    """The declared rule's answer, as ``packcheck pack`` gives it."""
    try:
        return pack(case, rule=rule)
    except MalformedCase as exc:
        return {"error": "input", "detail": str(exc)}
