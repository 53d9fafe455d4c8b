"""More wrong variants of the rule: the faults real packers have, and capture faults.

:data:`packcheck.verify._causes.CAUSES` holds the one-knob mutants of the rule (a
strict ``<``, an early stop, doubles, ...).  Packers ported from public projects go
wrong in other ways, listed here: they keep the *newest* blocks, evict from the middle
until the rest fits, include the block that crosses the budget, charge a fixed extra
cost per block, sort the blocks by size first, ignore the last block, use only a share
of the budget, or have two simple faults at once.  Packers that capture their
partition get it wrong by putting every skipped block in one bucket, or by leaving a
skipped block whose ID was also kept in no bucket.

A :class:`Variant` is one concrete wrong rule; a family with a parameter (the extra
cost, the share) is one variant per value, named with the value, so that confirming
the variant on a sample finds the parameter too.  ``faults`` counts the simple faults
a variant combines: on equal evidence the simpler explanation is preferred.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any

from .._rule.model import Case
from .._rule.order import sorted_utf16
from ._causes import CAUSES, _nfc, _nfd, _scan, _variant, loosely, skipped_blocks

__all__ = ["ALL", "VARIANTS", "Variant", "partition_of", "rule_output"]

Output = Callable[[Case], dict[str, Any]]
_Kept = tuple[list[int], int]  # indices of kept blocks (scan order), remaining


@dataclass(frozen=True, slots=True)
class Variant:
    """One wrong rule: its name, its output for a readable case, how many faults."""

    name: str
    output: Output
    faults: int = 1


def rule_output(case: Case) -> dict[str, Any]:
    """The declared output, with the partition the rule captures."""
    out = _variant(_scan)(case)
    return {**out, "partition": partition_of(case)}


def partition_of(case: Case) -> dict[str, list[str]]:
    """The rule's partition of ``case``: packed, available, dropped (docs/rule.md)."""
    lists: dict[str, list[str]] = {"packed": _scan(case)[0], "available": [], "dropped": []}
    for block_id, bucket in skipped_blocks(case):
        lists[bucket].append(block_id)
    return lists


def _output(
    case: Case, picked: _Kept, order: Callable[[list[str]], list[str]] = sorted_utf16
) -> dict[str, Any]:
    indices, left = picked
    kept = [case.ids[i] for i in indices]
    present = set(kept)
    missing = order([wanted for wanted in case.required if wanted not in present])
    return {"kept": kept, "remaining": left, "missing": missing}


def _greedy(case: Case, order: Iterable[int], budget: int, cost: int = 0) -> _Kept:
    """The rule's skip-and-continue scan over the blocks in ``order``."""
    left, kept, sizes = budget, [], case.sizes
    for i in order:
        charge = sizes[i] + cost
        if charge <= left:
            kept.append(i)
            left -= charge
    return kept, left


def _suffix(case: Case, *, newest_always: bool = False) -> _Kept:
    """From the last block back, stop at the first that does not fit (a suffix)."""
    left, kept = case.budget, list[int]()
    for i in reversed(range(len(case.sizes))):
        if case.sizes[i] > left and not (newest_always and not kept):
            break
        kept.append(i)
        left -= case.sizes[i]
    return sorted(kept), left


def _middle_out(case: Case, *, upper: bool) -> _Kept:
    """All blocks, then the middle one evicted while the total exceeds the budget.

    The evicted blocks are always one run, ``[start, end)``, around the middle: the
    middle of what is left is the last block before the run or the first after it
    (``kept.pop(middle)`` on a list of 100,000 blocks would copy half of it each time).
    """
    sizes, count = case.sizes, len(case.sizes)
    start = end = count // 2 if upper else max(count - 1, 0) // 2
    total = sum(sizes)
    while total > case.budget:
        left = count - (end - start)  # blocks still kept
        if (left // 2 if upper else (left - 1) // 2) < start:
            start -= 1
            total -= sizes[start]
        else:
            total -= sizes[end]
            end += 1
    return [*range(start), *range(end, count)], case.budget - total


def _overshoot(case: Case, *, check_first: bool) -> _Kept:
    """Blocks taken until the total reaches the budget: the crossing block included."""
    used, kept = 0, []
    for i, size in enumerate(case.sizes):
        if check_first and used >= case.budget:
            break
        kept.append(i)
        used += size
        if not check_first and used > case.budget:
            break
    return kept, case.budget - used


def _by_size(case: Case, *, largest: bool, scan_order: bool) -> _Kept:
    # Stable either way: reverse=True keeps equal sizes in scan order, as -size would.
    order = sorted(range(len(case.sizes)), key=case.sizes.__getitem__, reverse=largest)
    kept, left = _greedy(case, order, case.budget)
    return (sorted(kept) if scan_order else kept), left


def _charged(
    case: Case, *, share: Fraction = Fraction(1), cost: int = 0, report_sizes: bool
) -> _Kept:
    """The scan on ``share`` of the budget, each block charged ``cost`` more; the
    remaining as scanned, or with ``report_sizes`` the budget less the kept sizes."""
    kept, left = _greedy(case, range(len(case.sizes)), int(case.budget * share), cost)
    return kept, (case.budget - sum(map(case.sizes.__getitem__, kept))) if report_sizes else left


def _simple(
    fits: Callable[[int, int], bool] = lambda size, left: size <= left,
    *,
    stop: bool = False,
    last: bool = True,
    once: bool = False,
) -> Callable[[Case], _Kept]:
    """The scan with some of the simple faults: strict fit, early stop, last block
    ignored, each ID kept at most once."""

    def scan(case: Case) -> _Kept:
        left, kept, seen = case.budget, [], set()
        for i in range(len(case.sizes) - (0 if last else 1)):
            if once and case.ids[i] in seen:
                continue
            if fits(case.sizes[i], left):
                kept.append(i)
                seen.add(case.ids[i])
                left -= case.sizes[i]
            elif stop:
                break
        return kept, left

    return scan


def _on(
    scan: Callable[[Case], _Kept], order: Callable[[list[str]], list[str]] = sorted_utf16
) -> Output:
    return lambda case: _output(case, scan(case), order)


SUFFIX = "keeps the newest blocks (the longest suffix that fits, scanning from the end)"
REVERSED = "scans from the last block back (skipping what does not fit)"
MIDDLE = "evicts blocks from the middle until the rest fits"
OVERSHOOT = "includes the block that crosses the budget (overshoots it)"
LARGEST = "takes the blocks largest first (reordered by size)"
SMALLEST = "takes the blocks smallest first (reordered by size)"
LAST = "ignores the last block"
LESS = "'<' for '<='"
STOPS = "stops at the first block that does not fit"
ONCE = "each ID kept at most once"
SHARES = tuple(
    map(
        Fraction,
        ("1/2", "2/3", "3/4", "4/5", "17/20", "9/10", "19/20", "1/3", "1/4", "3/5", "7/10"),
    )
)
COSTS = tuple(range(1, 17))


def cost_name(cost: int) -> str:
    return f"a fixed extra cost of {cost} unit{'s' if cost != 1 else ''} per block"


def share_name(share: Fraction) -> str:
    return f"uses only a share of the budget ({float(share):.0%})"


def _pairs() -> Iterator[Variant]:
    """Two simple faults at once."""
    lt = lambda size, left: size < left  # noqa: E731
    simple = {
        STOPS: {"stop": True},
        LESS: {"fits": lt},
        LAST: {"last": False},
        ONCE: {"once": True},
    }
    for (first, one), (second, two) in itertools.combinations(simple.items(), 2):
        yield Variant(f"{first} and {second}", _on(_simple(**one, **two)), 2)  # type: ignore[arg-type]
    orders = {
        "missing sorted by code points": sorted,
        "missing not sorted": list,
    }
    for (first, knob), (second, order) in itertools.product(simple.items(), orders.items()):
        yield Variant(f"{first} and {second}", _on(_simple(**knob), order), 2)  # type: ignore[arg-type]


def _scan_variants() -> Iterator[Variant]:
    yield Variant(SUFFIX, _on(_suffix))
    yield Variant(f"{SUFFIX}, the newest always kept", _on(partial(_suffix, newest_always=True)), 2)
    yield Variant(REVERSED, _on(lambda c: _greedy(c, reversed(range(len(c.sizes))), c.budget)))
    for upper in (True, False):
        yield Variant(MIDDLE, _on(partial(_middle_out, upper=upper)))
    for first in (True, False):
        yield Variant(OVERSHOOT, _on(partial(_overshoot, check_first=first)))
    for largest, scan_order in itertools.product((True, False), (False, True)):
        scan = partial(_by_size, largest=largest, scan_order=scan_order)
        yield Variant(LARGEST if largest else SMALLEST, _on(scan))
    yield Variant(LAST, _on(_simple(last=False)))
    for cost, sizes in itertools.product(COSTS, (False, True)):
        yield Variant(cost_name(cost), _on(partial(_charged, cost=cost, report_sizes=sizes)))
    for share, sizes in itertools.product(SHARES, (False, True)):
        yield Variant(share_name(share), _on(partial(_charged, share=share, report_sizes=sizes)))


LOOSE = "IDs compared loosely (case, spaces or Unicode normalisation)"


# Capture faults: a correct result, a wrong partition.

ONE_DROPPED = "every skipped block captured as dropped (available never used)"
ONE_AVAILABLE = "every skipped block captured as available (dropped never used)"
NO_BUCKET = "a skipped block whose ID was also kept is in no bucket"


def _captured(*, bucket: str | None, by_id: bool) -> Output:
    def output(case: Case) -> dict[str, Any]:
        out = rule_output(case)
        rule = out["partition"]
        kept = set(rule["packed"])
        lists = {"packed": rule["packed"], "available": [], "dropped": []}
        for block_id, name in skipped_blocks(case):
            if by_id and block_id in kept:
                continue
            lists[bucket or name].append(block_id)
        return {**out, "partition": lists}

    return output


SWAPPED = "available and dropped swapped"
ONLY_PACKED = "only packed captured (skipped blocks in no bucket)"
DEDUPED = "each bucket deduplicated (a repeated ID listed once)"


def _changed(change: Callable[[dict[str, list[str]]], dict[str, list[str]]]) -> Output:
    def output(case: Case) -> dict[str, Any]:
        out = rule_output(case)
        return {**out, "partition": change(out["partition"])}

    return output


def _capture_variants() -> Iterator[Variant]:
    yield Variant(
        SWAPPED, _changed(lambda p: {**p, "available": p["dropped"], "dropped": p["available"]})
    )
    yield Variant(ONLY_PACKED, _changed(lambda p: {**p, "available": [], "dropped": []}))
    yield Variant(DEDUPED, _changed(lambda p: {k: list(dict.fromkeys(v)) for k, v in p.items()}))
    yield Variant(ONE_DROPPED, _captured(bucket="dropped", by_id=False))
    yield Variant(ONE_AVAILABLE, _captured(bucket="available", by_id=False))
    yield Variant(NO_BUCKET, _captured(bucket=None, by_id=True))
    yield Variant(f"{ONE_DROPPED}; {NO_BUCKET}", _captured(bucket="dropped", by_id=True), 2)
    yield Variant(f"{ONE_AVAILABLE}; {NO_BUCKET}", _captured(bucket="available", by_id=True), 2)


#: The variants of this module, in the order they are tried.
VARIANTS: tuple[Variant, ...] = (
    *_scan_variants(),
    *_pairs(),
    *(
        Variant(LOOSE, loosely(key))
        for key in (str.casefold, str.lower, str.upper, str.strip, _nfc, _nfd)
    ),
    *_capture_variants(),
)
#: Every wrong variant a cause can be confirmed for: ``CAUSES`` first.
ALL: tuple[Variant, ...] = (*(Variant(name, output) for name, output in CAUSES), *VARIANTS)
