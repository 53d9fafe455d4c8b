"""Wrong variants of the seed's rule no rule key states, and capture faults."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .._rule.model import Case
from .._rule.order import sorted_utf16
from ._causes import CAUSES, loosely, nfc, nfd, plain_scan, skipped_blocks, variant_of

__all__ = ["ALL", "VARIANTS", "Output", "Variant", "partition_of", "rule_output"]

Output = Callable[[Case], dict[str, Any]]
_Kept = tuple[list[int], int]  # indices of kept blocks (scan order), remaining


@dataclass(frozen=True, slots=True)
class Variant:
    """One wrong rule: its name, its output for a readable case, how many faults (the
    simpler is preferred)."""

    name: str
    output: Output
    faults: int = 1


def rule_output(case: Case) -> dict[str, Any]:
    """The declared output, with its partition."""
    out = variant_of(plain_scan)(case)
    return {**out, "partition": partition_of(case)}


def partition_of(case: Case) -> dict[str, list[str]]:
    """The rule's partition of ``case``: packed, available, dropped (docs/rule.md)."""
    lists: dict[str, list[str]] = {"packed": plain_scan(case)[0], "available": [], "dropped": []}
    for block_id, bucket in skipped_blocks(case):
        lists[bucket].append(block_id)
    return lists


def _output(case: Case, picked: _Kept) -> dict[str, Any]:
    indices, left = picked
    kept = [case.ids[i] for i in indices]
    present = set(kept)
    missing = sorted_utf16([wanted for wanted in case.required if wanted not in present])
    return {"kept": kept, "remaining": left, "missing": missing}


def _middle_left(case: Case) -> dict[str, Any]:
    """All blocks, then the middle one evicted while the total exceeds the budget (the
    evicted blocks are one run ``[start, end)``)."""
    sizes, count = case.sizes, len(case.sizes)
    start = end = max(count - 1, 0) // 2
    total = sum(sizes)
    while total > case.budget:
        left = count - (end - start)  # blocks still kept
        if (left - 1) // 2 < start:
            start -= 1
            total -= sizes[start]
        else:
            total -= sizes[end]
            end += 1
    return _output(case, ([*range(start), *range(end, count)], case.budget - total))


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


def _changed(change: Callable[[dict[str, list[str]]], dict[str, list[str]]]) -> Output:
    def output(case: Case) -> dict[str, Any]:
        out = rule_output(case)
        return {**out, "partition": change(out["partition"])}

    return output


def _capture_variants() -> Iterator[Variant]:
    yield Variant(
        "available and dropped swapped",
        _changed(lambda p: {**p, "available": p["dropped"], "dropped": p["available"]}),
    )
    yield Variant(
        "only packed captured (skipped blocks in no bucket)",
        _changed(lambda p: {**p, "available": [], "dropped": []}),
    )
    yield Variant(
        "each bucket deduplicated (a repeated ID listed once)",
        _changed(lambda p: {k: list(dict.fromkeys(v)) for k, v in p.items()}),
    )
    yield Variant(ONE_DROPPED, _captured(bucket="dropped", by_id=False))
    yield Variant(ONE_AVAILABLE, _captured(bucket="available", by_id=False))
    yield Variant(NO_BUCKET, _captured(bucket=None, by_id=True))
    yield Variant(f"{ONE_DROPPED}; {NO_BUCKET}", _captured(bucket="dropped", by_id=True), 2)
    yield Variant(f"{ONE_AVAILABLE}; {NO_BUCKET}", _captured(bucket="available", by_id=True), 2)


#: The variants of this module, in the order they are tried.
VARIANTS: tuple[Variant, ...] = (
    Variant("evicts blocks from the middle until the rest fits", _middle_left),
    *(
        Variant("IDs compared loosely (case, spaces or Unicode normalisation)", loosely(key))
        for key in (str.casefold, str.lower, str.upper, str.strip, nfc, nfd)
    ),
    *_capture_variants(),
)
#: Every wrong variant a cause can be confirmed for: ``CAUSES`` first.
ALL: tuple[Variant, ...] = (*(Variant(name, output) for name, output in CAUSES), *VARIANTS)
