"""The partition and the running totals of a default-rule scan, read off the kernel's
kept mask in passes that run in C, never by a second walk in Python."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import accumulate, compress
from operator import add, mul, not_, sub
from typing import Any

from .._engines.choice import Engine, kept_flags
from .._engines.pack import SIZE_ERROR, declared_output
from .._rule.model import Case, SizeError, read_case
from .._rule.outcomes import Bucket

__all__ = ["capture", "remaining_before", "split_skipped", "step_buckets"]

#: A kept flag is a ``bool`` (the reference's) or a byte 0/1 (a kernel's mask).
Kept = Sequence[bool] | bytes

# A block's bucket by its kept flag, where every block fits the budget.
_BY_KEPT: tuple[Bucket, Bucket] = ("available", "packed")
# A block's bucket by 2 * kept + fits; a kept block fits, so 2 never occurs.
_BY_KEPT_AND_FIT: tuple[Bucket, ...] = ("dropped", "available", "packed", "packed")


def split_skipped(case: Case, kept: Kept) -> tuple[list[str], list[str]]:
    """The skipped blocks' IDs, in scan order, split into ``available`` and ``dropped``."""
    skipped = list(compress(case.ids, map(not_, kept)))
    if not skipped or max(case.sizes) <= case.budget:
        return skipped, []
    # Some block fits no pack: the skipped ones split by size.
    fits = list(map(case.budget.__ge__, compress(case.sizes, map(not_, kept))))
    return list(compress(skipped, fits)), list(compress(skipped, map(not_, fits)))


def remaining_before(case: Case, kept: Kept) -> Iterator[int]:
    """What was left when the scan met each block, then what is left at the end."""
    # A flag times a size is the size kept (a bool or a byte 0/1 is an int factor).
    return accumulate(map(mul, case.sizes, kept), sub, initial=case.budget)


def step_buckets(case: Case, kept: Kept) -> Iterator[Bucket]:
    """Each block's bucket, in scan order."""
    if not case.sizes or max(case.sizes) <= case.budget:
        return map(_BY_KEPT.__getitem__, kept)
    fits = map(case.budget.__ge__, case.sizes)
    return map(_BY_KEPT_AND_FIT.__getitem__, map(add, map(add, kept, kept), fits))


def capture(
    case: object, *, engine: Engine = "reference"
) -> tuple[dict[str, Any], dict[Bucket, list[str]]]:
    """The declared output of ``case`` and its partition as a packer returns it; raises
    :class:`packcheck.MalformedCase`.  O(n + r log r)."""
    read = read_case(case)
    if isinstance(read, SizeError):
        return dict(SIZE_ERROR), {"packed": [], "available": [], "dropped": []}
    kept, remaining = kept_flags(read.budget, read.sizes, engine)
    result = declared_output(read, kept, remaining)
    available, dropped = split_skipped(read, kept)
    return result, {"packed": list(result["kept"]), "available": available, "dropped": dropped}
