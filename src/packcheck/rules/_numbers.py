"""The numeric keys of a packer's rule, found by probing cases of 1-unit blocks one
number at a time, galloping then bisecting (docs/rules.md, "Inferring a rule")."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .._gate.transitions import transitions
from .._rule.declared import Charge
from .._rule.stages import whole
from ._asking import Asker

__all__ = ["DENOMINATOR", "Numbers", "probe", "simplest"]

#: The largest denominator a recovered fraction may have.
DENOMINATOR = 64
#: The list lengths lengthened to find ``max_count`` (up to 1,024 blocks), and those
#: whose transition points give the charges' slope.
_LENGTHS = (1, 2, 3, *(2**i for i in range(2, 11)))
_LADDER = (1, 2, 3, 16, 128, 1024)
_FINEST = 8192
_REFUSED = ("error", "'refused'")


@dataclass
class Numbers:
    """The candidate values of the numeric keys (``charges``: ``(per_item, separator,
    reserve)`` triples), and the cases asked to find them."""

    floors: set[int] = field(default_factory=lambda: {0})
    counts: set[int] = field(default_factory=lambda: {0})
    charges: set[tuple[Charge, Charge, Charge]] = field(default_factory=set)
    charged: bool = False
    empty_refused: bool = False
    asked: list[dict[str, Any]] = field(default_factory=list)


def blocks_of_one(count: int, budget: int) -> dict[str, Any]:
    """``count`` blocks of 1 unit, IDs ``b0``, ``b1``, ..., and no required IDs."""
    blocks = [{"id": f"b{i}", "size": 1} for i in range(count)]
    return {"budget": budget, "blocks": blocks, "required": []}


def simplest(low: Fraction, high: Fraction) -> Fraction | None:
    """The simplest fraction in ``(low, high]`` with a denominator of at most
    :data:`DENOMINATOR`, else ``None``."""
    for q in range(1, DENOMINATOR + 1):
        p = (low * q).__floor__() + 1
        if Fraction(p, q) <= high:
            return Fraction(p, q)
    return None


def _kept(answer: Hashable) -> int | None:
    """How many blocks an answer kept (``None`` for an error or a fault)."""
    if isinstance(answer, tuple) and len(answer) == 3 and isinstance(answer[0], tuple):
        return len(answer[0])
    return None


def _left(answer: Hashable) -> int | None:
    if isinstance(answer, tuple) and len(answer) == 3 and isinstance(answer[1], int):
        return answer[1]
    return None


def probe(ask: Asker, max_units: int) -> Numbers:
    """The numbers the packer's answers show; O(log max_units) calls per walk."""
    found = Numbers()
    large = max(1, max_units // 4)

    def asked(case: dict[str, Any]) -> Hashable:
        found.asked.append(case)
        return ask(case)

    def walk(at: Callable[[int], Hashable], start: int, points: int = 2) -> list[int]:
        """Up to ``points`` points above ``start`` along the budget."""
        calls = 4 * max_units.bit_length() + 8
        return transitions(at, start, start, max_units, calls=calls, per_side=points)

    # Refusals: along the budget of no blocks, and of one.
    empty = asked(blocks_of_one(0, large))
    found.empty_refused = empty == _REFUSED
    for count in (0, 1):
        found.floors.update(walk(_along(asked, count, lambda a, n: a == _REFUSED), 0))
    # The count: lengthen the list while every block is kept.
    spent: dict[int, int] = {}
    for length in _LENGTHS:
        if ask.too_long(length):
            break
        answer = asked(blocks_of_one(length, large))
        kept, left = _kept(answer), _left(answer)
        if kept is not None and left is not None:
            spent.setdefault(kept, large - kept - left)
        if kept is None or kept < length:
            if kept:
                found.counts.add(kept)
            break
    left = _left(empty)
    if left is not None:
        spent.setdefault(0, large - left)
    found.charges |= _from_remaining(spent)
    found.charged = any(spent.values())
    if not found.charged:
        found.charges |= _from_fits(ask, asked, walk, found)
    return found


def _along(
    asked: Callable[[dict[str, Any]], Hashable],
    count: int,
    says: Callable[[Hashable, int], bool],
) -> Callable[[int], Hashable]:
    """Whether the answer to ``count`` blocks of 1 at a budget ``says`` so, by budget."""

    def at(budget: int) -> Hashable:
        return says(asked(blocks_of_one(count, budget)), count)

    return at


def _from_remaining(spent: dict[int, int]) -> set[tuple[Charge, Charge, Charge]]:
    """The charges ``remaining`` shows: 0, 1 and 2 kept blocks cost ``reserve``,
    ``per_item + reserve`` and ``2 per_item + separator + reserve`` beyond their sizes."""
    if 1 not in spent:
        return set()
    if 0 in spent:
        reserve = spent[0]
        per_item = spent[1] - reserve
        separator = spent[2] - 2 * per_item - reserve if 2 in spent else 0
        if min(reserve, per_item, separator) < 0:
            return set()
        return {(per_item, separator, reserve)}
    if 2 in spent:
        per_block = Fraction(spent[2] - spent[1])
        return set(_triples(per_block, spent[1] - per_block))
    return {(spent[1], 0, 0), (0, 0, spent[1])}


def _from_fits(
    ask: Asker,
    asked: Callable[[dict[str, Any]], Hashable],
    walk: Callable[[Callable[[int], Hashable], int, int], list[int]],
    found: Numbers,
) -> set[tuple[Charge, Charge, Charge]]:
    """The charges that where ``k`` blocks of ``k`` start to be kept allow: ``k`` unit
    blocks cost ``k (1 + per_item + separator) + reserve - separator``."""
    points: dict[int, int] = {}
    floor = max(found.floors)
    cap = min((c for c in found.counts if c), default=None)

    def point(k: int) -> bool:
        """Where ``k`` blocks start to be kept, into ``points``; ``False`` past the last."""
        if (cap is not None and k > cap) or ask.too_long(k):
            return False
        start = max(floor, k)
        at = _along(asked, k, lambda a, n: _kept(a) == n)
        ahead = [] if at(start) else [p for p in walk(at, start, 1) if p > start]
        if ahead:
            points[k] = ahead[0]
        return True

    for k in _LADDER:
        if not point(k):
            break
    per_block = _slope(points)
    if per_block is not None and per_block.denominator > 1 and point(_FINEST):
        # Two fractions of denominators up to 64 may differ by 1/4032: a list this long
        # tells them apart.
        per_block = _slope(points)
    if per_block is None:
        return set()
    triples: set[tuple[Charge, Charge, Charge]] = set()
    for late, later in itertools.product((0, 1), (0, 1)):
        # Each point bounds ``reserve - separator``: (point - late - 1, point - late]
        # less what the blocks before it paid; per_item >= 0 bounds it below by -slope.
        # Invariant: a slope needs two points, so that one is past ``later``.
        paid = {k: (k - later) * (1 + per_block) for k in points if k > later}
        low = max(points[k] - late - 1 - paid[k] for k in paid)
        high = min(points[k] - late - paid[k] for k in paid)
        offset = simplest(Fraction(low), Fraction(high))
        if offset is not None and offset < -per_block <= high:
            offset = -per_block
        if offset is not None:
            triples |= set(_triples(per_block, offset))
    return triples


def _slope(points: dict[int, int]) -> Fraction | None:
    """``per_item + separator``: the simplest slope the first and last point allow."""
    if len(points) < 2:
        return None
    first, last = min(points), max(points)
    rise, run = points[last] - points[first], last - first
    found = simplest(Fraction(rise - 1, run) - 1, Fraction(rise + 1, run) - 1)
    return None if found is None or found < 0 else found


def _triples(per_block: Fraction, offset: Fraction) -> Iterable[tuple[Charge, Charge, Charge]]:
    """``(per_item, separator, reserve)`` with ``per_item + separator == per_block`` and
    ``reserve - separator == offset``, all ``>= 0``, with as few of them non-zero as can be."""
    if offset >= 0:
        yield whole(per_block), 0, whole(offset)
    elif per_block + offset >= 0:
        yield whole(per_block + offset), whole(-offset), 0
