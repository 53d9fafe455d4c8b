"""Packers with the faults real packers have, one each (or one pair), written the way
public context builders write them, from docs/rule.md without packcheck's code.

``FAULTS`` maps each packer to the cause ``packcheck verify`` must name for it (a
substring of the cause); every other known cause must stay unnamed.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._ported import Message, answer, messages, port


@port()
def newest_suffix(budget: int, items: list[Message]) -> tuple[list[Message], int]:
    # Chat history trimming: from the newest message back, stop at the first misfit.
    out: list[Message] = []
    total = 0
    for item in reversed(items):
        if total + item.tokens > budget:
            break
        total += item.tokens
        out.insert(0, item)
    return out, budget - total


@port()
def middle_eviction(budget: int, items: list[Message]) -> tuple[list[Message], int]:
    # "Keep the head and the tail": drop the middle item until the rest fits.
    kept = list(items)
    while sum(size for _, size in kept) > budget:
        kept.pop(len(kept) // 2)
    return kept, budget - sum(size for _, size in kept)


@port()
def overshoot(budget: int, items: list[Message]) -> tuple[list[Message], int]:
    # Add first, check after: the block that crosses the budget is kept.
    out, used = [], 0
    for item in items:
        out.append(item)
        used += item.tokens
        if used > budget:
            break
    return out, budget - used


@port()
def separator_cost(budget: int, items: list[Message]) -> tuple[list[Message], int]:
    # Each document costs its tokens plus 3 for the separator "\n\n" and a header.
    out, left = [], budget
    for item in items:
        if item.tokens + 3 <= left:
            out.append(item)
            left -= item.tokens + 3
    return out, left


def _greedy(items: Iterable[Message], left: int) -> tuple[list[Message], int]:
    # The declared scan, on the items and the budget each fault below hands it.
    out = []
    for item in items:
        if item.tokens <= left:
            out.append(item)
            left -= item.tokens
    return out, left


@port()
def largest_first(budget: int, items: list[Message]) -> tuple[list[Message], int]:
    return _greedy(sorted(items, key=lambda item: item.tokens, reverse=True), budget)


@port()
def smallest_first(budget: int, items: list[Message]) -> tuple[list[Message], int]:
    chosen, left = set(), budget
    order = sorted(range(len(items)), key=lambda i: items[i][1])
    for index in order:
        if items[index][1] <= left:
            chosen.add(index)
            left -= items[index][1]
    return [items[i] for i in sorted(chosen)], left


@port()
def ignores_last(budget: int, items: list[Message]) -> tuple[list[Message], int]:
    # An off-by-one (range(len(items) - 1)): the last item is never considered.
    return _greedy(items[:-1], budget)


@port()
def budget_share(budget: int, items: list[Message]) -> tuple[list[Message], int]:
    # 20% of the context window is kept back for the answer.
    return _greedy(items, int(budget * 0.8))


@port()
def strict_and_stops(budget: int, items: list[Message]) -> tuple[list[Message], int]:
    out, left = [], budget
    for item in items:
        if not item.tokens < left:
            break
        out.append(item)
        left -= item.tokens
    return out, left


#: Each packer and the cause the report must name for it.
FAULTS = {
    "newest_suffix": 'order = "reversed" (declared "given") and on_misfit = "stop"',
    "middle_eviction": 'order = "middle-out" (declared "given") and on_misfit = "stop"',
    "overshoot": 'on_misfit = "overshoot" (declared "skip")',
    "separator_cost": "per_item = 3 (declared 0)",
    "largest_first": "largest first",
    "smallest_first": "smallest first",
    "ignores_last": "ignores the last block",
    "budget_share": "a share of the budget (80%)",
    "strict_and_stops": 'fit = "lt" (declared "le") and on_misfit = "stop" (declared "skip")',
}


# Capture faults: the result is right, the partition is not.  Ported the way context
# builders that report what they left out compute it: "everything not selected".


def _capturing(bucket: str | None, *, by_id: bool) -> Any:
    def packer(case: dict[str, Any]) -> dict[str, Any]:
        read = messages(case)
        if read is None:
            return {"error": "size"}
        budget, items = read
        kept: list[Message] = []
        left, skipped = budget, []
        for item in items:
            if item.tokens <= left:
                kept.append(item)
                left -= item.tokens
            else:
                skipped.append(item)
        result = answer(case, kept, left)
        lists: dict[str, list[str]] = {"packed": result["kept"], "available": [], "dropped": []}
        for block_id, size in skipped:
            if by_id and block_id in result["kept"]:  # "not selected", compared by ID
                continue
            lists[bucket or ("available" if size <= budget else "dropped")].append(block_id)
        return {**result, "partition": lists}

    return packer


all_dropped = _capturing("dropped", by_id=False)
all_available = _capturing("available", by_id=False)
repeated_id_lost = _capturing(None, by_id=True)

#: Each capture fault and the cause the report must name (with ``--partition``).
CAPTURE_FAULTS = {
    "all_dropped": "every skipped block captured as dropped",
    "all_available": "every skipped block captured as available",
    "repeated_id_lost": "a skipped block whose ID was also kept is in no bucket",
}
