"""Smaller numbers for a counterexample: budgets and sizes shrunk while it still holds
(docs/gate.md, "Reading a counterexample").  Nothing is assumed monotonic: a value
kept is one at which ``holds`` was seen true."""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Iterator
from fractions import Fraction
from itertools import accumulate
from typing import Any

__all__ = ["scaled_magnitudes", "sized", "smaller_magnitudes", "unit"]

Case = dict[str, Any]


class _Spent(Exception):
    """The tries allowed are used up."""


def unit(value: object) -> bool:
    """Whether ``value`` is an integer (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _least(holds_at: Callable[[int], bool], low: int, high: int) -> int:
    """The least value found in ``[low, high]`` where ``holds_at`` (true at ``high``):
    ``low`` first, then bisection."""
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
    """``case`` with block ``index``'s size (and the budget, if given) changed."""
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
    """One lowering of every coordinate."""
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
    """``case`` (which holds) with its budget and integer sizes each lowered, alone and
    with the budget, while ``holds``: passes until one changes nothing or ``tries``
    calls are spent."""
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


def _nearest(value: Fraction) -> int:
    """``value`` rounded to the nearest integer, halves up."""
    return math.floor(value + Fraction(1, 2))


def _scaled(budget: int, sizes: list[int], ratio: Fraction) -> Iterator[tuple[int, list[int]]]:
    """The budget and sizes times ``ratio``: each size rounded alone, then as steps
    between rounded running totals; no size below 1."""
    scaled = _nearest(budget * ratio)
    alone = [max(1, _nearest(size * ratio)) for size in sizes]
    yield scaled, alone
    steps, total = [], 0
    for running in accumulate(sizes):
        steps.append(max(1, _nearest(running * ratio) - total))
        total += steps[-1]
    if steps != alone:
        yield scaled, steps


def _targets(largest: int) -> Generator[int, bool, None]:
    """Targets below ``largest``: 1, 10, 100... until sent ``True``, then 2, 3... 9
    times the power below until sent ``True`` again."""
    power = 1
    while power < largest:
        if (yield power):
            for times in range(2, 10) if power > 1 else ():
                if (yield times * power // 10):
                    return
            return
        power *= 10


def _accepted_units(case: Case) -> tuple[int, list[int]] | None:
    """The budget and sizes, if all are integer units the rule accepts."""
    budget, blocks = case.get("budget"), case.get("blocks")
    if not (isinstance(budget, int) and unit(budget) and budget >= 0 and isinstance(blocks, list)):
        return None
    if not all(isinstance(b, dict) and unit(b.get("size")) and b["size"] >= 1 for b in blocks):
        return None
    return budget, [b["size"] for b in blocks]


def scaled_magnitudes(case: Case, holds: Callable[[Case], bool], *, tries: int = 60) -> Case:
    """``case`` (which holds) with its valid integer units scaled down together by one
    ratio, so a threshold set by a ratio stays crossed: by their gcd, then the largest
    to the least of :func:`_targets` where a rounding holds; at most ``tries`` calls."""
    units = _accepted_units(case)
    if units is None:
        return case
    budget, sizes = units
    left = tries

    def tried(new_budget: int, sizes: list[int]) -> Case | None:
        nonlocal left
        if left <= 0:
            return None
        left -= 1
        blocks = [{**b, "size": size} for b, size in zip(case["blocks"], sizes, strict=True)]
        candidate = {**case, "budget": new_budget, "blocks": blocks}
        return candidate if holds(candidate) else None

    divisor = math.gcd(budget, *sizes)
    if divisor > 1:
        exact = tried(budget // divisor, [size // divisor for size in sizes])
        if exact is not None:
            case, budget, sizes = exact, budget // divisor, [size // divisor for size in sizes]
    largest = max([budget, *sizes])
    best = case
    targets = _targets(largest)
    try:
        target = next(targets)
        while left > 0:
            ratio = Fraction(target, largest)
            found = next(
                filter(None, (tried(*units) for units in _scaled(budget, sizes, ratio))), None
            )
            best = found or best
            target = targets.send(found is not None)
    except StopIteration:
        pass
    return best
