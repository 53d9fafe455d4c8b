"""What a declared rule did with each block: its event, its bucket, and why each
missing ID is missing (docs/rules.md, "The trace and the partition under a rule")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from .declared import Charge, Rule
from .model import Case

__all__ = ["KEPT_EVENTS", "REASON_BUCKET", "Bucket", "Event", "Reason", "buckets", "reasons"]

#: What happened to one block: ``pin`` and ``kept`` (kept in the scan) and
#: ``overshoot`` (kept over what was left, ending the scan) are kept; ``misfit``
#: (skipped, the scan went on), ``stop`` (the misfit that ended the scan), ``stopped``
#: (not met: the scan had ended at a misfit or an overshoot), ``count`` (not met: the
#: count was reached), ``duplicate`` (removed by ``dedup``) and ``refused`` are not.
Event = Literal[
    "pin", "kept", "overshoot", "misfit", "stop", "stopped", "count", "duplicate", "refused"
]
Bucket = Literal["packed", "available", "dropped"]
Reason = Literal[
    "evicted",
    "oversized",
    "not-retrieved",
    "stopped",
    "pin-overflow",
    "duplicate",
    "count",
    "refused",
]

KEPT_EVENTS: frozenset[str] = frozenset({"pin", "kept", "overshoot"})
#: The reason a block of the ``available`` bucket gives its missing ID.
_AVAILABLE_REASON: dict[str, Reason] = {
    "misfit": "evicted",
    "stop": "stopped",
    "stopped": "stopped",
    "count": "count",
}
#: The bucket each reason goes in (``not-retrieved``: no block, no bucket).
REASON_BUCKET: dict[Reason, Bucket | None] = {
    "evicted": "available",
    "stopped": "available",
    "count": "available",
    "duplicate": "available",
    "oversized": "dropped",
    "pin-overflow": "dropped",
    "refused": "dropped",
    "not-retrieved": None,
}
#: Whether a cost fits what is left, under the rule's ``fit``.
Fits = Callable[[Charge, Charge], bool]


def buckets(
    rule: Rule, case: Case, events: list[Event], pins: list[int], after_pins: Charge, fits: Fits
) -> list[Bucket]:
    """Each block's bucket: ``packed`` if kept; ``dropped`` if this rule could not keep
    it even as the only block beside the pins; ``available`` otherwise."""
    pins_full = bool(rule.max_count) and len(pins) >= rule.max_count
    pin_ids = {case.ids[i] for i in pins} if rule.dedup != "none" else set()
    extra = rule.per_item + (rule.separator if pins else 0)
    buckets: list[Bucket] = []
    for index, event in enumerate(events):
        if event in KEPT_EVENTS:
            buckets.append("packed")
            continue
        alone = rule.on_misfit == "overshoot" or fits(case.sizes[index] + extra, after_pins)
        if pins_full or case.ids[index] in pin_ids or not alone:
            buckets.append("dropped")
        else:
            buckets.append("available")
    return buckets


def reasons(
    rule: Rule,
    case: Case,
    missing: list[str],
    events: list[Event],
    buckets: list[Bucket],
    pins: list[int],
    fits: Fits,
) -> dict[str, Reason]:
    """Why each distinct missing ID is missing, in ``missing``'s order: its first
    ``available`` block's event, else ``duplicate``, ``pin-overflow`` (it could be kept
    with nothing pinned), ``oversized`` or ``not-retrieved`` (docs/rules.md)."""
    if not missing:
        return {}
    wanted = set(missing)
    first_available: dict[str, Event] = {}
    removed_available: set[str] = set()
    fits_unpinned: set[str] = set()
    seen: set[str] = set()
    pins_full = bool(rule.max_count) and len(pins) >= rule.max_count
    start = case.budget - rule.reserve
    for index, block_id in enumerate(case.ids):
        if block_id not in wanted:
            continue
        seen.add(block_id)
        if buckets[index] == "available" and events[index] == "duplicate":
            removed_available.add(block_id)
        elif buckets[index] == "available":
            first_available.setdefault(block_id, events[index])
        elif pins and (
            pins_full
            or rule.on_misfit == "overshoot"
            or fits(case.sizes[index] + rule.per_item, start)
        ):
            fits_unpinned.add(block_id)
    reasons: dict[str, Reason] = {}
    for block_id in missing:
        if block_id in first_available:
            reasons[block_id] = _AVAILABLE_REASON[first_available[block_id]]
        elif block_id in removed_available:
            reasons[block_id] = "duplicate"
        elif block_id in fits_unpinned:
            reasons[block_id] = "pin-overflow"
        else:
            reasons[block_id] = "oversized" if block_id in seen else "not-retrieved"
    return reasons
