"""The reference packer: the declared rule, written to be obviously right.

This module is the specification every other engine is compared with.  It is never
tuned for speed.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["pack_sizes"]


def pack_sizes(budget: int, sizes: Sequence[int]) -> tuple[list[bool], int]:
    """Scan ``sizes`` once in order, keeping every block that fits what is left; one
    ``bool`` per block and the remaining units, exact at any magnitude.

    The caller guarantees valid units (``budget >= 0``, every size ``>= 1``; see
    :func:`packcheck.read_case`).  O(n) time and O(n) extra memory.
    """
    remaining = budget
    kept: list[bool] = []
    for size in sizes:
        fits = size <= remaining
        if fits:
            remaining -= size
        kept.append(fits)
    return kept, remaining
