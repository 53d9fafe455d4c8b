"""The reference interpreter of a declared rule: the pipeline of docs/rules.md, literally.

Obviously right, not fast, exact; it records what happened to every block, from which
:func:`packcheck.trace` builds the steps, the partition and the reasons.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .answer import REFUSED, answer
from .declared import Charge, Rule
from .model import Case, SizeError, read_case
from .order import missing_ids
from .outcomes import KEPT_EVENTS, Bucket, Event, Reason, buckets, reasons
from .stages import candidates_of, pins_of, scan_order, whole

__all__ = ["REFUSED", "SIZE_ERROR", "Outcome", "interpret", "interpret_case", "scan_order"]

#: The declared result of a case with an invalid budget or size, whatever the rule.
SIZE_ERROR: dict[str, Any] = {"error": "size"}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a rule made of one case: the declared ``result``; per block, its event, its
    bucket and what was ``left`` when the scan met it; each missing ID's reason."""

    result: dict[str, Any]
    events: tuple[Event, ...] = ()
    buckets: tuple[Bucket, ...] = ()
    left: tuple[Charge, ...] = ()
    reasons: dict[str, Reason] | None = None
    size_error: SizeError | None = None


def interpret(rule: Rule, case: object, *, result_only: bool = False) -> Outcome:
    """The rule's answer to ``case`` and what happened to each block (``result_only``:
    the answer alone); raises :class:`packcheck.MalformedCase`.  O(n + r log r)."""
    read = read_case(case)
    if isinstance(read, SizeError):
        return Outcome(dict(SIZE_ERROR), size_error=read)
    return interpret_case(rule, read, result_only=result_only)


def interpret_case(rule: Rule, case: Case, *, result_only: bool = False) -> Outcome:
    """:func:`interpret` of a case already read, whose units are valid."""
    if result_only:
        return Outcome(answer(rule, case))
    n = len(case.ids)
    start = whole(case.budget - rule.reserve)
    if case.budget < rule.refuse_budget_below or (rule.refuse_empty and n == 0):
        return _refused(case, start)

    def fits(cost: Charge, left: Charge) -> bool:
        return cost <= left if rule.fit == "le" else cost < left

    events: list[Event | None] = [None] * n
    left_at: list[Charge] = [start] * n
    # 3. Candidates, in input order.
    candidates = candidates_of(case.ids, rule.dedup)
    for index in set(range(n)).difference(candidates):
        events[index] = "duplicate"
    # 4. Pins leave the scan.
    pins = pins_of(rule, case, candidates)
    pinned = set(pins)
    if rule.pin == "required" and rule.dedup == "kept":
        # Invariant: only the first block of each required ID is a pin; the others are
        # duplicates of a pin, skipped before the scan.
        wanted = set(case.required)
        for index in candidates:
            if index not in pinned and case.ids[index] in wanted:
                events[index] = "duplicate"
    scan = [i for i in candidates if i not in pinned and events[i] is None]

    # 5-6. What is left, and the pins charged in input order.
    left: Charge = start
    count = 0
    kept_ids: set[str] = set()
    for index in pins:
        cost = case.sizes[index] + rule.per_item + (rule.separator if count else 0)
        if not fits(cost, left) and rule.pin_overflow == "refuse":
            return _refused(case, start)
        left_at[index] = left
        left = whole(left - cost)
        count += 1
        events[index] = "pin"
        kept_ids.add(case.ids[index])
    after_pins = left

    # 7. The scan.
    ended: Event | None = "count" if rule.max_count and count >= rule.max_count else None
    scanned: list[int] = []
    for index in scan_order(scan, rule.order):
        left_at[index] = left
        if ended is not None:
            events[index] = ended
            continue
        if rule.dedup == "kept" and case.ids[index] in kept_ids:
            events[index] = "duplicate"
            continue
        cost = case.sizes[index] + rule.per_item + (rule.separator if count else 0)
        if fits(cost, left) or rule.on_misfit == "overshoot":
            events[index] = "kept" if fits(cost, left) else "overshoot"
            left = whole(left - cost)
            count += 1
            kept_ids.add(case.ids[index])
            scanned.append(index)
            if events[index] == "overshoot":
                ended = "stopped"
            elif rule.max_count and count >= rule.max_count:
                ended = "count"
        elif rule.on_misfit == "stop":
            events[index] = "stop"
            ended = "stopped"
        else:
            events[index] = "misfit"

    # 8. The answer.
    final = [event for event in events if event is not None]
    # Invariant: every block met an event (a pin, a duplicate, or the scan).
    assert len(final) == n, events
    kept_flags = [event in KEPT_EVENTS for event in final]
    order = [i for i in range(n) if kept_flags[i]] if rule.output == "input" else pins + scanned
    kept = [case.ids[i] for i in order]
    if rule.remaining == "charged":
        remaining: Charge = left
    else:
        remaining = case.budget - sum(case.sizes[i] for i in order)
    # Invariant: every charge is whole under "charged" (the rule refuses fractions), and
    # sizes are ints.
    assert isinstance(remaining, int), remaining
    missing = missing_ids(case.required, kept) if case.required else []
    result = {"kept": kept, "remaining": remaining, "missing": missing}
    placed = buckets(rule, case, final, pins, after_pins, fits)
    why = reasons(rule, case, missing, final, placed, pins, fits)
    return Outcome(result, tuple(final), tuple(placed), tuple(left_at), why)


def _refused(case: Case, start: Charge) -> Outcome:
    n = len(case.ids)
    reasons: dict[str, Reason] = dict.fromkeys(missing_ids(case.required, ()), "refused")
    refused: Event = "refused"
    dropped: Bucket = "dropped"
    events = (refused,) * n
    buckets = (dropped,) * n
    return Outcome(dict(REFUSED), events, buckets, (start,) * n, reasons)
