"""A declared rule lowered for the kernels: the pipeline of docs/rules.md as a scan over
int64 costs, whose answers are the interpreter's exactly.

Dedup, pins, order, charges (scaled to integers by their common denominator), ``fit``
and ``max_count`` become one cost per block and a budget for a kernel of the declared
scan (:mod:`packcheck._engines.rule_scan`); ``remaining`` is summed exactly from the
kept flags.  A case whose scaled numbers int64 cannot hold with room to spare goes to
the interpreter.  How each key lowers: docs/design.md.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from .._rule.answer import kept_blocks
from .._rule.declared import Charge, Rule
from .._rule.model import Case
from . import rule_scan
from .sizes import Flags, Ints

__all__ = ["RuleKept", "pack_rule"]

# Scaled budgets and costs stay below this: a cost clipped just above what is left,
# added to what is left, still fits int64 (see rule_scan.prefix).
_LIMIT = 2**62


class RuleKept(NamedTuple):
    """What a rule keeps: ``flags`` (one per block, input order), the kept positions in
    the order of ``kept`` when that is not input order (``None`` otherwise) and the
    exact ``remaining``."""

    flags: Flags
    order: npt.NDArray[np.intp] | None
    remaining: int


def pack_rule(
    rule: Rule,
    budget: int,
    sizes: Ints,
    ids: Ints | None = None,
    wanted: Flags | None = None,
    *,
    compiled: bool = False,
) -> RuleKept | None:
    """What ``rule`` keeps of ``sizes`` (int64, each ``>= 1``) under ``budget >= 0``: the
    interpreter's answer exactly; ``None`` when the rule refuses.

    ``ids``: each block's ID as an integer in ``[0, n)`` (equal IDs, equal integers;
    tables are indexed by them), needed under ``dedup`` and ``pin = "required"``;
    ``wanted``: whether each ID is required.  ``compiled``: the Numba loop scans.
    O(n) NumPy passes besides the scan.
    """
    n = sizes.shape[0]
    if budget < rule.refuse_budget_below or (rule.refuse_empty and n == 0):
        return None
    q = math.lcm(*(_denominator(c) for c in (rule.per_item, rule.separator, rule.reserve)))
    step = _scaled(rule.per_item + rule.separator, q)
    candidate = candidates(rule.dedup, n, ids)
    pins = pinned(rule, n, candidate, ids, wanted)
    pin_total = _exact_sum(sizes, pins)
    # What is left after the pins, scaled: q * (budget - reserve - their charges).
    charges = pin_total * q + pins.shape[0] * _scaled(rule.per_item, q)
    charges += max(pins.shape[0] - 1, 0) * _scaled(rule.separator, q)
    left = budget * q - _scaled(rule.reserve, q) - charges
    slack = 0 if rule.fit == "le" else 1
    if pins.shape[0] and rule.pin_overflow == "refuse" and left < slack:
        # Costs are positive: every pin fits iff the last one does.
        return None
    if not pins.shape[0]:
        left += _scaled(rule.separator, q)
    left -= slack
    if max(left, step + q) >= _LIMIT:
        return _interpreted(rule, budget, sizes, ids, wanted)
    # Below 0 nothing fits (costs are >= 1) and an overshoot keeps the next block met,
    # whatever the depth; what is left is not read again (remaining is summed).
    left = max(left, -1)
    room = max(rule.max_count - pins.shape[0], 0) if rule.max_count else -1
    scanned = _scan_positions(rule, n, candidate, pins, ids)
    m = _count(scanned, n)
    found = rule_scan.Scan(np.zeros(m, dtype=np.bool_), 0, -1)
    if room:
        plan = rule_scan.Plan(sizes, scanned, rule.order, q, step, left, rule.on_misfit)
        seen = None
        if rule.dedup == "kept":
            assert ids is not None
            seen = np.zeros(n, dtype=np.bool_)
            seen[ids[pins]] = True
        found = rule_scan.scan(plan, ids, seen, compiled=compiled)
        if room > 0:
            found = _cut(found, room, rule.order)
    within = found.met
    if isinstance(scanned, slice) and scanned == slice(0, n):
        flags = within
    else:
        flags = np.zeros(n, dtype=np.bool_)
        if isinstance(scanned, slice):
            flags[scanned] = within
        else:
            flags[scanned[within]] = True
        flags[pins] = True
    order = None
    if rule.output == "scan":
        met = rule_scan.ordered(within, rule.order)
        order = np.concatenate([pins, rule_scan.positions(scanned, n, rule.order)[met]])
    if found.fit_cost is None:
        kept_sizes = _exact_sum(sizes, flags)
    else:
        # Blocks kept because they fit were not clipped: their sizes follow from their
        # costs.  An overshoot's may have been: its own size is added.
        fitted = int(np.count_nonzero(within)) - (found.overshot >= 0)
        kept_sizes = pin_total + (found.fit_cost - fitted * step) // q
        if found.overshot >= 0:
            kept_sizes += int(sizes[rule_scan.position(scanned, n, found.overshot)])
    if rule.remaining == "sizes":
        return RuleKept(flags, order, budget - kept_sizes)
    count = int(np.count_nonzero(flags))
    charged = count * rule.per_item + max(count - 1, 0) * rule.separator + rule.reserve
    remaining = budget - kept_sizes - charged
    # Invariant: charges are whole under "charged" (the rule refuses fractions).
    assert not isinstance(remaining, Fraction), remaining
    return RuleKept(flags, order, int(remaining))


def candidates(dedup: str, n: int, ids: Ints | None) -> Flags | None:
    """Whether each block stays before the scan: one of each ID under ``first`` or
    ``last`` (its first or last block); ``None`` (every block) otherwise.  O(n)."""
    if dedup not in ("first", "last"):
        return None
    assert ids is not None
    where = np.full(n, n, dtype=np.int64)
    if dedup == "first":
        np.minimum.at(where, ids, np.arange(n))
    else:
        where[:] = -1
        np.maximum.at(where, ids, np.arange(n))
    chosen: Flags = where[ids] == np.arange(n)
    return chosen


def pinned(
    rule: Rule, n: int, candidate: Flags | None, ids: Ints | None, wanted: Flags | None
) -> npt.NDArray[np.intp]:
    """The pinned positions, in input order."""
    if rule.pin == "none" or not n:
        return np.zeros(0, dtype=np.intp)
    if rule.pin in ("first", "last"):
        # Every ID has a candidate: there is a first and a last one.
        if candidate is None:
            return np.array([0 if rule.pin == "first" else n - 1], dtype=np.intp)
        at = (
            int(np.argmax(candidate))
            if rule.pin == "first"
            else n - 1 - int(np.argmax(candidate[::-1]))
        )
        return np.array([at], dtype=np.intp)
    assert wanted is not None
    pins = np.flatnonzero(wanted if candidate is None else candidate & wanted)
    if rule.dedup == "kept" and pins.shape[0]:
        assert ids is not None
        # Each required ID's first block.
        first = candidates("first", pins.shape[0], _dense(ids[pins]))
        assert first is not None
        pins = pins[first]
    return pins


def _scan_positions(
    rule: Rule, n: int, candidate: Flags | None, pins: npt.NDArray[np.intp], ids: Ints | None
) -> slice | npt.NDArray[np.intp]:
    """The positions the scan meets, in input order: a slice when they are one."""
    if candidate is None and rule.pin in ("none", "first", "last"):
        if not pins.shape[0]:
            return slice(0, n)
        return slice(1, n) if rule.pin == "first" else slice(0, n - 1)
    keep = np.ones(n, dtype=np.bool_) if candidate is None else candidate.copy()
    keep[pins] = False
    if rule.pin == "required" and rule.dedup == "kept" and pins.shape[0]:
        assert ids is not None
        # The other blocks of a pinned ID are duplicates of a pin, removed before the
        # scan (so they take no place in its order).
        pinned_ids = np.zeros(n, dtype=np.bool_)
        pinned_ids[ids[pins]] = True
        keep &= ~pinned_ids[ids]
    return np.flatnonzero(keep)


def _count(scanned: slice | npt.NDArray[np.intp], n: int) -> int:
    if isinstance(scanned, slice):
        return len(range(*scanned.indices(n)))
    return int(scanned.shape[0])


def _cut(found: rule_scan.Scan, room: int, order: str) -> rule_scan.Scan:
    """The scan cut at its ``room``-th kept block: the same events up to there (what
    it kept is then summed from the flags)."""
    met = rule_scan.ordered(found.met, order)
    kept = np.flatnonzero(met)
    if kept.shape[0] <= room:
        return found
    met = met.copy()
    met[kept[room] :] = False
    return rule_scan.Scan(rule_scan.in_input_order(met, order), None, -1)


def _dense(ids: Ints) -> Ints:
    """``ids`` renumbered into ``[0, len(ids))``, equal IDs equal."""
    return np.unique(ids, return_inverse=True)[1].astype(np.int64)


def _exact_sum(sizes: Ints, which: Flags | npt.NDArray[np.intp]) -> int:
    """The sum of the chosen sizes (a mask, or positions), exactly: in int64 while it
    cannot wrap."""
    if which.dtype == np.bool_:
        count = int(np.count_nonzero(which))
        if not count:
            return 0
        if int(sizes.max()) <= (2**63 - 1) // count:
            # A dot product with the mask: no gather of the kept sizes.
            return int(sizes @ which)
        return sum(sizes[which].tolist())
    return sum(sizes[which].tolist())


def _denominator(charge: Charge) -> int:
    return charge.denominator if isinstance(charge, Fraction) else 1


def _scaled(charge: Charge, q: int) -> int:
    """``q * charge``, whole since ``q`` is a multiple of its denominator."""
    return int(charge * q)


def _interpreted(
    rule: Rule, budget: int, sizes: Ints, ids: Ints | None, wanted: Flags | None
) -> RuleKept:
    """The interpreter's answer, for numbers past what the kernels hold."""
    names = (ids if ids is not None else np.arange(sizes.shape[0])).tolist()
    required = tuple(sorted(set(np.asarray(names)[wanted].tolist()))) if wanted is not None else ()
    found = kept_blocks(rule, Case(budget, tuple(names), tuple(sizes.tolist()), required))
    # Invariant: the refusals (the budget's, the pins') were decided before handing over.
    assert found is not None
    order = None if found.order is None else np.array(found.order, dtype=np.intp)
    return RuleKept(np.array(found.flags, dtype=np.bool_), order, int(found.remaining))
