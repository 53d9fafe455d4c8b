"""The scan of a lowered rule (:mod:`packcheck._engines.rules`): kept flags in scan order.

A :class:`Plan` names the blocks met, their order and each one's integer cost
``q * size + step`` against ``left`` (all scaled by ``q``; sizes clipped to
``left // q + 1``, so costs stay below ``2**63``).  ``skip`` runs the level kernel over
the costs; ``stop`` keeps the longest fitting prefix, read in galloping chunks;
``overshoot`` that prefix and the block after it; ``dedup = "kept"`` is a fixed point
(docs/design.md), under ``skip`` chunk by chunk over the blocks that could be kept.
O(n) NumPy passes per round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from .._rule import answer
from . import compiled as _compiled
from . import levels
from .sizes import Flags, Ints, KernelInput

_T = TypeVar("_T", bound=np.generic)
Scanned = slice | npt.NDArray[np.intp]
#: Rounds of the ``dedup = "kept"`` fixed point before the exact loop takes over.
ROUNDS = 8
_CHUNK_MIN = 4096
_CHUNK_MAX = 1 << 16
# An ID's threshold under ``dedup = "kept"`` and ``skip`` before a chunk sets it
# (_distinct_chunk): past any place (places within a chunk stay below _CHUNK_MAX).
_FREE = np.iinfo(np.int32).max


class Scan(NamedTuple):
    """What a scan kept: ``met``, a flag per block it could meet (input order);
    ``fit_cost``, the cost of the blocks kept because they fit (``None``: sum the flags);
    ``overshot``, the index in ``met`` of the block kept over what was left, or -1."""

    met: Flags
    fit_cost: int | None
    overshot: int


@dataclass(frozen=True, slots=True)
class Plan:
    """One lowered scan: see the module."""

    sizes: Ints
    scanned: Scanned
    order: str
    q: int
    step: int
    left: int
    on_misfit: str

    def base(self) -> Ints:
        """The sizes the scan meets, in input order."""
        return self.sizes[self.scanned]

    def cap(self) -> int:
        """Sizes above this never fit: clipped to it, their cost is still too large."""
        return max(self.left, 0) // self.q + 1


def scan(plan: Plan, ids: Ints | None, seen: Flags | None, *, compiled: bool) -> Scan:
    """The scan of ``plan``.  ``seen``: under ``dedup = "kept"``, whether each ID
    (``ids`` of the input) is kept already, by a pin; scratch for the scan after."""
    base = plan.base()
    m = base.shape[0]
    if compiled:
        met = np.zeros(m, dtype=np.bool_)
        names = ids[plan.scanned] if seen is not None and ids is not None else None
        fit_cost, overshot = _compiled.rule_scan(plan, base, names, seen, met)
        return Scan(met, fit_cost, overshot)
    if seen is not None and plan.on_misfit == "skip":
        assert ids is not None
        found = _distinct_skip(plan, base, ids[plan.scanned], seen)
    elif seen is not None:
        assert ids is not None
        names = ordered(ids[plan.scanned], plan.order)
        found = _distinct(plan, costs(plan, ordered(base, plan.order)), names, seen)
    elif plan.on_misfit == "skip":
        found = _skip(costs(plan, ordered(base, plan.order)), plan.left)
    else:
        found = _prefix_scan(lambda lo, hi: costs(plan, window(base, plan.order, lo, hi)), m, plan)
    overshot = found.overshot
    if overshot >= 0:
        overshot = _base_index(overshot, m, plan.order)
    return Scan(in_input_order(found.met, plan.order), found.fit_cost, overshot)


def _base_index(place: int, m: int, order: str) -> int:
    """Which of ``m`` blocks (input order) the scan meets at ``place``."""
    if order == "reversed":
        return m - 1 - place
    if order == "middle-out":
        return place // 2 if place % 2 == 0 else m - 1 - place // 2
    return place


def costs(plan: Plan, sizes: Ints) -> Ints:
    """Each block's scaled cost, sizes above :meth:`Plan.cap` clipped to it."""
    cost = np.minimum(sizes, plan.cap())
    if plan.q != 1:
        cost *= plan.q
    if plan.step:
        cost += plan.step
    return cost


def prefix(chunk: Callable[[int, int], Ints], m: int, left: int) -> tuple[int, int]:
    """How many blocks, from the first, fit in turn, and their cost: ``chunk(lo, hi)``
    gives the costs of blocks ``lo..hi-1`` of ``m``.  O(that many), read in galloping
    chunks."""
    done, width, used = 0, _CHUNK_MIN, 0
    while done < m and left >= 0:
        hi = min(m, done + width)
        sums = np.cumsum(chunk(done, hi))
        # The sums rise; the first above ``left`` comes before any could wrap, as
        # ``left`` and every cost are below 2**62.
        over = sums > left
        first = int(np.argmax(over))
        if over[first]:
            return done + first, used + (int(sums[first - 1]) if first else 0)
        left -= int(sums[-1])
        used += int(sums[-1])
        done, width = hi, min(2 * width, _CHUNK_MAX)
    return done, used


def _prefix_scan(chunk: Callable[[int, int], Ints], m: int, plan: Plan) -> Scan:
    """``stop`` or ``overshoot``: the prefix that fits, and under ``overshoot`` the block
    after it."""
    met = np.zeros(m, dtype=np.bool_)
    fitting, used = prefix(chunk, m, plan.left)
    met[:fitting] = True
    if plan.on_misfit == "overshoot" and fitting < m:
        met[fitting] = True
        return Scan(met, used, fitting)
    return Scan(met, used, -1)


def _skip(cost: Ints, left: int) -> Scan:
    """Packcheck's own rule over ``cost``: the level kernel."""
    if left < 0 or not cost.shape[0]:
        return Scan(np.zeros(cost.shape[0], dtype=np.bool_), 0, -1)
    kept, remaining = levels.pack_input(left, KernelInput(cost, int(cost.min())))
    return Scan(kept, left - remaining, -1)


def _over(cost: Ints, plan: Plan) -> Scan:
    """``stop`` or ``overshoot`` over ``cost`` (scan order), without duplicates."""
    return _prefix_scan(lambda lo, hi: cost[lo:hi], cost.shape[0], plan)


def _distinct(plan: Plan, cost: Ints, names: Ints, seen: Flags) -> Scan:
    """The scan under ``dedup = "kept"`` and ``stop`` or ``overshoot`` (``skip``:
    :func:`_distinct_skip`): the fixed point (docs/design.md).

    Eligibility is kept per ID as a threshold (a block is eligible iff its place is at
    most its ID's), so the fixed point is checked on one entry per ID.
    """
    m = cost.shape[0]
    place = np.arange(m)
    # Invariant: an ID's threshold is m when every block of it is eligible.
    threshold = np.full(seen.shape[0], m, dtype=np.int64)
    np.minimum.at(threshold, names, place)
    free = ~seen[names] if bool(seen.any()) else None
    met = np.zeros(m, dtype=np.bool_)
    for _ in range(ROUNDS):
        eligible = place <= threshold[names]
        if free is not None:
            eligible &= free
        chosen = np.flatnonzero(eligible)
        found = _over(cost[chosen], plan)
        kept = chosen[found.met]
        again = np.full(seen.shape[0], m, dtype=np.int64)
        np.minimum.at(again, names[kept], kept)
        if np.array_equal(again, threshold):
            met[kept] = True
            overshot = int(chosen[found.overshot]) if found.overshot >= 0 else -1
            return Scan(met, found.fit_cost, overshot)
        threshold = again
    flags, _ = answer.walk_distinct(
        cost.tolist(),
        names.tolist(),
        plan.left,
        0,
        plan.on_misfit,
        set(np.flatnonzero(seen).tolist()),
    )
    met[: len(flags)] = flags
    return Scan(met, None, -1)


def _distinct_skip(plan: Plan, base: Ints, names: Ints, seen: Flags) -> Scan:
    """The scan under ``dedup = "kept"`` and ``on_misfit = "skip"``, chunk by chunk.

    Under ``skip`` a block that does not fit is skipped whether its ID was kept or
    not, and what is left only falls: of a chunk, only the blocks at most what is left
    at its start, whose IDs were not kept before, can be kept.  The fixed point
    (docs/design.md) runs over those alone (:func:`_distinct_chunk`), with what is left
    and the IDs kept carried from chunk to chunk.  ``names``: the IDs of ``base``
    (input order).  O(m) NumPy work, plus O(c) per round for the ``c`` blocks that
    could be kept.
    """
    m = base.shape[0]
    met = np.zeros(m, dtype=np.bool_)
    ids = int(names.max(initial=-1)) + 1
    # Updated in place: the IDs kept are added.
    kept_ids = seen[:ids]
    # Per ID, between chunks: _FREE (see _distinct_chunk).
    threshold = np.full(ids, _FREE, dtype=np.int32)
    left, used = plan.left, 0
    lo, width = 0, _CHUNK_MIN
    # Costs are >= 1: nothing fits once what is left is below 1.
    while lo < m and left > 0:
        hi = min(m, lo + width)
        cost = costs(plan, window(base, plan.order, lo, hi))
        who = window(names, plan.order, lo, hi)
        fresh = None
        if int(cost.min()) <= left:
            fresh = np.flatnonzero((cost <= left) & ~kept_ids[who])
        if fresh is not None and fresh.shape[0]:
            kept, spent = _distinct_chunk(cost[fresh], who[fresh], left, threshold)
            kept = fresh[kept]
            met[lo + kept] = True
            kept_ids[who[kept]] = True
            left -= spent
            used += spent
        lo, width = hi, min(2 * width, _CHUNK_MAX)
    return Scan(met, used, -1)


def _distinct_chunk(
    cost: Ints, names: Ints, left: int, threshold: npt.NDArray[np.int32]
) -> tuple[npt.NDArray[np.intp], int]:
    """The blocks kept of ``cost`` (each at most ``left``, of an ID not kept before;
    ``names`` their IDs) under ``dedup = "kept"`` and ``skip``, and what they cost.

    ``threshold`` is :data:`_FREE` for every ID (so again on return); here it holds
    each ID's threshold, the last place at which its blocks are eligible.  The first
    guess is every ID eligible at its first block alone: if the scan keeps all of
    those, they are the fixed point (so one round where everything fits).
    """
    k = cost.shape[0]
    place = np.arange(k, dtype=np.int32)
    np.minimum.at(threshold, names, place)
    first = threshold[names]
    # The IDs here, one entry each (their first blocks'): what to reset on return.
    chosen = np.flatnonzero(place == first)
    distinct = names[chosen]
    thresholds = first
    for _ in range(ROUNDS):
        found = _skip(cost[chosen], left)
        kept = chosen[found.met]
        # A fixed point: each kept block is at its ID's threshold (so the only one of
        # its ID kept), and every ID with its threshold inside the chunk has its
        # block there kept.
        if kept.shape[0] == int(np.count_nonzero(place == thresholds)) and bool(
            (thresholds[kept] == kept).all()
        ):
            assert found.fit_cost is not None
            spent = found.fit_cost
            break
        # The thresholds the kept blocks give: the first kept block of an ID, or
        # past the chunk (every block eligible) for an ID none of whose is kept.
        threshold[distinct] = k
        np.minimum.at(threshold, names[kept], kept.astype(np.int32))
        thresholds = threshold[names]
        chosen = np.flatnonzero(place <= thresholds)
    else:
        flags, _ = answer.walk_distinct(cost.tolist(), names.tolist(), left, 0, "skip", set())
        kept = np.flatnonzero(np.array(flags, dtype=np.bool_))
        spent = sum(cost[kept].tolist())
    threshold[distinct] = _FREE
    return kept, spent


def ordered(base: npt.NDArray[_T], order: str) -> npt.NDArray[_T]:
    """``base`` (input order) in scan order."""
    return window(base, order, 0, base.shape[0])


def window(base: npt.NDArray[_T], order: str, lo: int, hi: int) -> npt.NDArray[_T]:
    """Blocks ``lo..hi-1`` of the scan of ``base`` (input order); ``lo`` is even."""
    if order == "given":
        return base[lo:hi]
    backward = base[::-1]
    if order == "reversed":
        return backward[lo:hi]
    # Middle-out: place 2j is base[j], place 2j + 1 is base[m - 1 - j].
    out = np.empty(hi - lo, dtype=base.dtype)
    out[0::2] = base[lo // 2 : (hi + 1) // 2]
    out[1::2] = backward[lo // 2 : hi // 2]
    return out


def in_input_order(met: npt.NDArray[_T], order: str) -> npt.NDArray[_T]:
    """Flags in scan order back in input order."""
    if order == "given":
        return met
    if order == "reversed":
        return met[::-1]
    return np.concatenate([met[0::2], met[1::2][::-1]])


def positions(scanned: Scanned, n: int, order: str) -> Ints:
    """The input positions the scan meets, in scan order."""
    where = np.arange(n)[scanned] if isinstance(scanned, slice) else scanned
    return ordered(where, order)


def position(scanned: Scanned, n: int, index: int) -> int:
    """The input position of the ``index``-th block the scan could meet (input order)."""
    if isinstance(scanned, slice):
        return range(n)[scanned][index]
    return int(scanned[index])
