"""Smaller numbers for a counterexample: budgets and sizes shrunk while it still holds.

Shrinking by blocks leaves magnitudes as they were drawn (``"size":9007199254740957``
where 1 shows the same difference).  :func:`smaller_magnitudes` lowers them: each
integer coordinate (the budget toward 0, each block's size toward 1) alone, and each
size together with the budget (the budget lowered by as much as the size, so that an
exact fit or a per-item cost stays what it was), each move the least value found by
bisection at which ``holds`` is still true.  Nothing is assumed monotonic: a value
kept is one at which ``holds`` was seen true.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["sized", "smaller_magnitudes", "unit"]

Case = dict[str, Any]


class _Spent(Exception):
    """The tries allowed are used up."""


def unit(value: object) -> bool:
    """Whether ``value`` is an integer (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _least(holds_at: Callable[[int], bool], low: int, high: int) -> int:
    """The least value found in ``[low, high]`` at which ``holds_at`` is true, given
    that it is at ``high``: ``low`` first, then bisection."""
    if low >= high or holds_at(low):
        return min(low, high)
    # Invariant: not holds_at(low), holds_at(high).
    while high - low > 1:
        middle = (low + high) // 2
        if holds_at(middle):
            high = middle
        else:
            low = middle
    return high


def sized(case: Case, index: int, size: int, budget: int | None = None) -> Case:
    """``case`` with block ``index``'s size ``size`` (and the budget ``budget``, if given)."""
    blocks = list(case["blocks"])
    blocks[index] = {**blocks[index], "size": size}
    return {**case, "blocks": blocks, **({} if budget is None else {"budget": budget})}


def _lower_size(case: Case, index: int, holds: Callable[[Case], bool]) -> Case:
    """Block ``index``'s size lowered alone, then with the budget following it."""
    alone = _least(lambda v: holds(sized(case, index, v)), 1, case["blocks"][index]["size"])
    case = sized(case, index, alone)
    if not unit(case.get("budget")) or alone == 1:
        return case
    budget: int = case["budget"]

    def along(v: int) -> bool:
        return holds(sized(case, index, v, budget - (alone - v)))

    least = _least(along, max(1, alone - budget), alone)
    return sized(case, index, least, budget - (alone - least))


def _pass(case: Case, holds: Callable[[Case], bool]) -> Case:
    """One lowering of every coordinate; the case at the end of it."""
    if unit(case.get("budget")):
        budget = _least(lambda v: holds({**case, "budget": v}), 0, case["budget"])
        case = {**case, "budget": budget}
    blocks = case.get("blocks")
    for index in range(len(blocks) if isinstance(blocks, list) else 0):
        block = case["blocks"][index]
        if isinstance(block, dict) and unit(block.get("size")):
            case = _lower_size(case, index, holds)
    return case


def smaller_magnitudes(case: Case, holds: Callable[[Case], bool], *, tries: int = 400) -> Case:
    """``case`` with its budget and integer sizes lowered while ``holds`` stays true.

    ``holds(case)`` is assumed true.  Passes over every coordinate repeat until one
    changes nothing or ``tries`` calls of ``holds`` are spent; the result is the last
    case at which ``holds`` was seen true (``case`` itself when nothing could be
    lowered).  Values that are not integers (a bool, ``2.5``, ``"4"``) stay as they are.
    """
    left = tries
    best = case

    def counted(candidate: Case) -> bool:
        nonlocal left, best
        if left <= 0:
            raise _Spent
        left -= 1
        if holds(candidate):
            best = candidate
            return True
        return False

    try:
        while True:
            before = best
            lowered = _pass(best, counted)
            if lowered == before:
                return best
            best = lowered
    except _Spent:
        return best
