"""The partition a declared rule other than the default gives one case, and why each
block is in its bucket, in the rule's own terms (docs/partition.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from fractions import Fraction
from functools import partial
from typing import Any

from .._rule.declared import Charge, Rule
from .._rule.interpret import SIZE_ERROR, Outcome, interpret_case
from .._rule.jsonio import show
from .._rule.model import Case, SizeError
from .trace import Bucket, Expected, Reason

__all__ = ["RuledExpected", "lost_why", "ruled_buckets"]


class RuledExpected(Expected):
    """:class:`Expected` under ``rule``, from its interpreter (``outcome``: ``None`` for a
    case with an invalid unit)."""

    __slots__ = ("_case", "_rule", "outcome")

    def __init__(self, read: Case | SizeError, rule: Rule) -> None:
        self._rule = rule
        self._case = read
        self.outcome: Outcome | None = None
        lists: dict[str, list[str]] = {"packed": [], "available": [], "dropped": []}
        if isinstance(read, SizeError):
            self.result: dict[str, Any] = dict(SIZE_ERROR)
        else:
            self.outcome = interpret_case(rule, read)
            self.result = self.outcome.result
            for block_id, bucket in zip(read.ids, self.outcome.buckets, strict=True):
                lists[bucket].append(block_id)
        self.available = lists["available"]
        self.dropped = lists["dropped"]
        self.left_out = bool(self.available or self.dropped)
        self.partition_json = lists

    def reasons(self) -> dict[str, Reason]:
        """Why each distinct missing ID is missing, in the rule's reason codes."""
        return {} if self.outcome is None else dict(self.outcome.reasons or {})

    def why(self, block_id: str, reason: Reason) -> str:
        """Why ``block_id``, missing for ``reason``, is missing, in the rule's words."""
        # Invariant: only a scanned case has reasons.
        assert isinstance(self._case, Case)
        assert self.outcome is not None
        return lost_why(self._rule, self._case, self.outcome, block_id, reason)


def _units(value: Charge) -> str:
    # Shown, not str(): an integer past 4300 digits has no str() in CPython.
    if isinstance(value, Fraction):
        return f"{show(value.numerator, 40)}/{show(value.denominator, 40)}"
    return show(value, 40)


def _pins_took(rule: Rule, case: Case, outcome: Outcome) -> tuple[int, Charge]:
    """How many pins there are and the units they took, charged in input order."""
    took: Charge = 0
    count = 0
    for index, event in enumerate(outcome.events):
        if event == "pin":
            took += case.sizes[index] + rule.per_item + (rule.separator if count else 0)
            count += 1
    return count, took


def _stop_at(case: Case, outcome: Outcome) -> str:
    """Where the scan ended at a misfit or an overshoot, for a message."""
    # Invariant: a block the scan never met after it ended follows a stop or overshoot.
    index = next(i for i, event in enumerate(outcome.events) if event in {"stop", "overshoot"})
    return f"blocks[{index}] (id {show(case.ids[index], 60)}, {outcome.events[index]})"


def _why(rule: Rule, case: Case, outcome: Outcome, index: int) -> str:
    """Why block ``index`` is in its bucket, in the rule's terms."""
    event = outcome.events[index]
    left = _units(outcome.left[index])
    if event == "pin":
        return "a pin: kept and charged before the scan"
    if event == "kept":
        return f"it fits the {left} unit(s) left when the scan met it"
    if event == "overshoot":
        return f"kept over the {left} unit(s) left, ending the scan (overshoot)"
    if event == "refused":
        return "the rule refused the input"
    if outcome.buckets[index] == "dropped":
        return _dropped(rule, case, outcome, index)
    if event == "misfit":
        return f"it did not fit the {left} unit(s) left when the scan met it"
    if event == "stop":
        return f"the scan stopped at it: it did not fit the {left} unit(s) left"
    if event == "stopped":
        return f"the scan had stopped before it, at {_stop_at(case, outcome)}"
    if event == "count":
        return f"the count was reached (max_count {rule.max_count}) before the scan met it"
    if rule.dedup == "kept":
        return 'a duplicate of a kept block (dedup = "kept")'
    return "a duplicate: dedup kept another block with its ID"


def _dropped(rule: Rule, case: Case, outcome: Outcome, index: int) -> str:
    """Why the rule could not keep block ``index`` even as the only block beside the pins."""
    pins, took = _pins_took(rule, case, outcome)
    start = case.budget - rule.reserve
    cost: Charge = case.sizes[index] + rule.per_item
    if pins and rule.max_count and pins >= rule.max_count:
        return f"the pins alone reach max_count {rule.max_count}"
    pinned = {case.ids[i] for i, event in enumerate(outcome.events) if event == "pin"}
    if rule.dedup != "none" and case.ids[index] in pinned:
        return "a duplicate of a pinned block's ID"
    alone = cost <= start if rule.fit == "le" else cost < start
    if rule.on_misfit == "overshoot" or alone:
        return (
            f"the pins took {_units(took)} of {_units(start)} unit(s), leaving "
            f"{_units(start - took)}; it costs {_units(cost)} beside them"
        )
    return f"larger than the whole budget: it costs {_units(cost)} of {_units(start)} unit(s)"


def ruled_buckets(rule: Rule, case: Case) -> Iterator[tuple[Bucket, Callable[[], str]]]:
    """Each block's bucket under ``rule``, in input order, with what says why."""
    outcome = interpret_case(rule, case)
    for index, bucket in enumerate(outcome.buckets):
        yield bucket, partial(_why, rule, case, outcome, index)


def lost_why(rule: Rule, case: Case, outcome: Outcome, block_id: str, reason: Reason) -> str:
    """Why ``block_id`` is missing in this step, in a few of the rule's words."""
    if reason == "not-retrieved":
        return "no block has it"
    if reason == "duplicate":
        return "a duplicate: dedup kept another block with its ID"
    if reason == "refused":  # an ID of a refused input, with a block or none
        return "the rule refused the input"
    # The first block of it in the bucket its reason goes in says why.
    wanted = "dropped" if reason in {"oversized", "pin-overflow"} else "available"
    # Invariant: the reason came from such a block (a removed duplicate gives its
    # reason only when it is dropped, or as "duplicate" above).
    index = next(
        i
        for i, (one, bucket) in enumerate(zip(case.ids, outcome.buckets, strict=True))
        if one == block_id
        and bucket == wanted
        and (wanted == "dropped" or outcome.events[i] != "duplicate")
    )
    return _why(rule, case, outcome, index)
