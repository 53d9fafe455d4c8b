"""A declared rule's answer alone: the interpreter's pipeline with the scan in one loop,
for ``pack``, the gate's expected answers and the engines' exact path."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from fractions import Fraction
from itertools import compress, count, islice
from typing import Any, NamedTuple

from .declared import Charge, Rule
from .model import Case
from .order import missing_ids
from .stages import candidates_of, pins_of, whole

__all__ = ["REFUSED", "Kept", "answer", "kept_blocks", "walk_distinct"]

#: A declared rule's answer to an input it refuses.
REFUSED: dict[str, Any] = {"error": "refused"}


class Kept(NamedTuple):
    """A kept flag per block in input order, the ``remaining``, and under ``output =
    "scan"`` the kept positions in the order of ``kept`` (else ``None``)."""

    flags: list[bool]
    order: list[int] | None
    remaining: Charge


def answer(rule: Rule, case: Case) -> dict[str, Any]:
    """The declared answer of ``rule`` to ``case`` (units already valid)."""
    found = kept_blocks(rule, case)
    if found is None:
        return dict(REFUSED)
    # Invariant: every charge is whole under "charged" (the rule refuses fractions), and
    # sizes are ints.
    assert isinstance(found.remaining, int), found.remaining
    if found.order is None:
        kept = list(compress(case.ids, found.flags))
    else:
        kept = [case.ids[index] for index in found.order]
    missing = missing_ids(case.required, kept) if case.required else []
    return {"kept": kept, "remaining": found.remaining, "missing": missing}


def kept_blocks(rule: Rule, case: Case) -> Kept | None:
    """What ``rule`` keeps of ``case`` (units already valid); ``None`` when it refuses.
    O(n), plus O(k log k) for ``k`` kept blocks under ``output = "scan"`` or ``dedup``."""
    n = len(case.ids)
    # 2. Refusals.
    if case.budget < rule.refuse_budget_below or (rule.refuse_empty and n == 0):
        return None
    sizes, ids = case.sizes, case.ids
    le = rule.fit == "le"
    # 3-4. Candidates and pins.
    candidates = candidates_of(ids, rule.dedup)
    pins = pins_of(rule, case, candidates)
    # 5-6. What is left, and the pins charged in input order.
    left: Charge = case.budget - rule.reserve
    for charged, index in enumerate(pins):
        cost = sizes[index] + rule.per_item + (rule.separator if charged else 0)
        if rule.pin_overflow == "refuse" and not (cost <= left if le else cost < left):
            return None
        left -= cost
    # 7. The scan, over the candidates left, in input order first.
    where = _scanned(rule, case, candidates, pins)
    whole_range = where == range(n)
    if whole_range:
        base: Sequence[int] = sizes
    elif isinstance(where, range):
        # Unit steps: the sizes are a slice.
        base = sizes[where.start : where.stop]
    else:
        base = [sizes[index] for index in where]
    room = max(rule.max_count - len(pins), 0) if rule.max_count else -1
    # Every charge, and so every cost and what is left, is a whole multiple of 1/q: a
    # cost is below what is left iff it is at most what is left minus 1/q.
    slack = 0 if le else whole(Fraction(1, _denominator(rule)))
    step = rule.per_item + rule.separator
    charge = step if pins else rule.per_item
    met: list[bool] = []
    if room:
        ordered = _ordered(base, rule.order)
        # A block fits iff its size is at most ``limit``: what is left, less the slack
        # and the charge on top of its size.
        limit = left - slack - charge
        if rule.dedup == "kept":
            names = _ordered(ids if whole_range else [ids[index] for index in where], rule.order)
            kept_ids: set[Hashable] = {ids[index] for index in pins}
            met, end = walk_distinct(ordered, names, limit, step, rule.on_misfit, kept_ids)
        else:
            met, end = _walk(ordered, limit, step, rule.on_misfit)
        if 0 < room < met.count(True):
            # The scan ended at its room-th kept block: the same scan, cut there.
            last = next(islice(compress(count(), met), room - 1, None))
            met = met[: last + 1]
            end = limit - sum(compress(ordered, met)) - room * step
        left = end + slack + (step if pins or True in met else charge)
    # 8. The answer.
    met += [False] * (len(base) - len(met))
    scanned = _in_input_order(met, rule.order)
    if whole_range:
        flags = scanned
    else:
        flags = [False] * n
        if isinstance(where, range):
            flags[where.start : where.stop] = scanned
        else:
            for index in compress(where, scanned):
                flags[index] = True
        for index in pins:
            flags[index] = True
    order = None
    if rule.output == "scan":
        order = pins + list(compress(_ordered(list(where), rule.order), met))
    if rule.remaining == "charged":
        return Kept(flags, order, whole(left))
    return Kept(flags, order, case.budget - sum(compress(sizes, flags)))


def _scanned(rule: Rule, case: Case, candidates: Sequence[int], pins: list[int]) -> Sequence[int]:
    """The candidates the scan meets, in input order (a ``range`` when they are one)."""
    if not pins:
        return candidates
    if rule.pin == "required" and rule.dedup == "kept":
        # The other blocks of a pinned ID are duplicates of a pin, removed before the
        # scan (so they take no place in its order).
        pinned_ids = {case.ids[index] for index in pins}
        return [index for index in candidates if case.ids[index] not in pinned_ids]
    if isinstance(candidates, range) and rule.pin != "required":
        # One pin, the first or the last candidate.
        return candidates[1:] if rule.pin == "first" else candidates[:-1]
    pinned = set(pins)
    return [index for index in candidates if index not in pinned]


def _ordered(items: Sequence[Any], order: str) -> Sequence[Any]:
    """``items`` (input order) in scan order, sliced: :func:`scan_order` of a list."""
    if order == "reversed":
        return items[::-1]
    if order == "middle-out":
        # The first half forward at even places, the rest backward at odd places.
        half = (len(items) + 1) // 2
        scan = list(items)
        scan[0::2] = items[:half]
        scan[1::2] = items[: half - 1 : -1]
        return scan
    return items


def _in_input_order(met: list[bool], order: str) -> list[bool]:
    """Flags in scan order (:func:`_ordered` of a list) back in input order."""
    if order == "reversed":
        return met[::-1]
    if order == "middle-out":
        return met[0::2] + met[1::2][::-1]
    return met


def _walk(
    sizes: Sequence[int], limit: Charge, step: Charge, on_misfit: str
) -> tuple[list[bool], Charge]:
    """The scan: a flag for each block it meets, and its final ``limit``; keeping a block
    lowers ``limit`` by its size and ``step``.  ``max_count`` is the caller's."""
    stop, overshoot = on_misfit == "stop", on_misfit == "overshoot"
    met: list[bool] = []
    flag = met.append
    for size in sizes:
        if size <= limit:
            limit -= size + step
            flag(True)
        elif overshoot:
            # Kept over what is left; the scan ends.
            limit -= size + step
            flag(True)
            break
        elif stop:
            break
        else:
            flag(False)
    return met, limit


def walk_distinct(
    sizes: Sequence[int],
    names: Sequence[Hashable],
    limit: Charge,
    step: Charge,
    on_misfit: str,
    kept_ids: set[Hashable],
) -> tuple[list[bool], Charge]:
    """:func:`_walk` under ``dedup = "kept"``: a block whose ID is in ``kept_ids`` is
    skipped without charge.  The flags may end early (a missing flag is ``False``)."""
    skip, overshoot = on_misfit == "skip", on_misfit == "overshoot"
    met: list[bool] = []
    flag = met.append
    keep = kept_ids.add
    # Only a kept block lowers ``limit``, and it is kept only if it fits (or by an
    # overshoot): once ``limit`` is below every size, no block fits again, so under
    # ``skip`` and ``stop`` every block left is skipped, duplicate or not.
    floor = min(sizes, default=limit) if not overshoot else None
    if floor is not None and limit < floor:
        return met, limit
    for size, name in zip(sizes, names, strict=True):
        # The ID is looked up only where it decides: a block that fits is kept unless
        # it is a duplicate, and under ``skip`` a block that does not fit is skipped
        # either way (a lookup is a cache miss or two on a large set).
        if size <= limit:
            if name in kept_ids:
                flag(False)
            else:
                limit -= size + step
                flag(True)
                keep(name)
                if floor is not None and limit < floor:
                    break
        elif skip or name in kept_ids:
            flag(False)
        elif overshoot:
            limit -= size + step
            flag(True)
            break
        else:
            break
    return met, limit


def _denominator(rule: Rule) -> int:
    """The least common denominator of the rule's charges (1 when all are whole)."""
    return math.lcm(
        *(
            charge.denominator if isinstance(charge, Fraction) else 1
            for charge in (rule.per_item, rule.separator, rule.reserve)
        )
    )
