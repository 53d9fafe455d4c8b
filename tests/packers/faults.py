"""Packers with the faults real packers have, one each (or one pair), written the way
public context builders write them, from docs/rule.md without packcheck's code.

``FAULTS`` maps each packer to the cause ``packcheck verify`` must name for it (a
substring of the cause); every other known cause must stay unnamed.
"""

from __future__ import annotations

from typing import Any

from ._ported import messages


def _answer(case: dict[str, Any], kept: list[str], remaining: int) -> dict[str, Any]:
    present = set(kept)
    missing = [want for want in case["required"] if want not in present]
    missing.sort(key=lambda text: text.encode("utf-16-be", "surrogatepass"))
    return {"kept": kept, "remaining": remaining, "missing": missing}


def _packer(loop: Any) -> Any:
    def packer(case: dict[str, Any]) -> dict[str, Any]:
        read = messages(case)
        if read is None:
            return {"error": "size"}
        budget, items = read
        kept, remaining = loop(budget, items)
        return _answer(case, kept, remaining)

    return packer


@_packer
def newest_suffix(budget: int, items: list[tuple[str, int]]) -> tuple[list[str], int]:
    # Chat history trimming: from the newest message back, stop at the first misfit.
    out: list[str] = []
    total = 0
    for block_id, size in reversed(items):
        if total + size > budget:
            break
        total += size
        out.insert(0, block_id)
    return out, budget - total


@_packer
def middle_eviction(budget: int, items: list[tuple[str, int]]) -> tuple[list[str], int]:
    # "Keep the head and the tail": drop the middle item until the rest fits.
    kept = list(items)
    while sum(size for _, size in kept) > budget:
        kept.pop(len(kept) // 2)
    return [i for i, _ in kept], budget - sum(size for _, size in kept)


@_packer
def overshoot(budget: int, items: list[tuple[str, int]]) -> tuple[list[str], int]:
    # Add first, check after: the block that crosses the budget is kept.
    out, used = [], 0
    for block_id, size in items:
        out.append(block_id)
        used += size
        if used > budget:
            break
    return out, budget - used


@_packer
def separator_cost(budget: int, items: list[tuple[str, int]]) -> tuple[list[str], int]:
    # Each document costs its tokens plus 3 for the separator "\n\n" and a header.
    out, left = [], budget
    for block_id, size in items:
        if size + 3 <= left:
            out.append(block_id)
            left -= size + 3
    return out, left


@_packer
def largest_first(budget: int, items: list[tuple[str, int]]) -> tuple[list[str], int]:
    out, left = [], budget
    for block_id, size in sorted(items, key=lambda item: item[1], reverse=True):
        if size <= left:
            out.append(block_id)
            left -= size
    return out, left


@_packer
def smallest_first(budget: int, items: list[tuple[str, int]]) -> tuple[list[str], int]:
    chosen, left = set(), budget
    order = sorted(range(len(items)), key=lambda i: items[i][1])
    for index in order:
        if items[index][1] <= left:
            chosen.add(index)
            left -= items[index][1]
    return [items[i][0] for i in sorted(chosen)], left


@_packer
def ignores_last(budget: int, items: list[tuple[str, int]]) -> tuple[list[str], int]:
    out, left = [], budget
    for i in range(len(items) - 1):  # an off-by-one: the last item is never considered
        if items[i][1] <= left:
            out.append(items[i][0])
            left -= items[i][1]
    return out, left


@_packer
def budget_share(budget: int, items: list[tuple[str, int]]) -> tuple[list[str], int]:
    # 20% of the context window is kept back for the answer.
    left = int(budget * 0.8)
    out = []
    for block_id, size in items:
        if size <= left:
            out.append(block_id)
            left -= size
    return out, left


@_packer
def strict_and_stops(budget: int, items: list[tuple[str, int]]) -> tuple[list[str], int]:
    out, left = [], budget
    for block_id, size in items:
        if not size < left:
            break
        out.append(block_id)
        left -= size
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
        kept: list[str] = []
        left, skipped = budget, []
        for block_id, size in items:
            if size <= left:
                kept.append(block_id)
                left -= size
            else:
                skipped.append((block_id, size))
        lists: dict[str, list[str]] = {"packed": kept, "available": [], "dropped": []}
        for block_id, size in skipped:
            if by_id and block_id in kept:  # "not selected", compared by ID
                continue
            lists[bucket or ("available" if size <= budget else "dropped")].append(block_id)
        return {**_answer(case, kept, left), "partition": lists}

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
