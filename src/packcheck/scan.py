"""The NumPy cumulative-scan packer: the reference's answers, vectorised.

(First exact version: phase scan with a reference fallback.  Optimised in #4.)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from . import reference

__all__ = ["pack_sizes"]

_INT64_MAX = int(np.iinfo(np.int64).max)


def pack_sizes(budget: int, sizes: npt.ArrayLike) -> tuple[npt.NDArray[np.bool_], int]:
    """Same answer as :func:`packcheck.reference.pack_sizes`, as a boolean array."""
    array = np.asarray(sizes)
    n = array.shape[0]
    kept = np.zeros(n, dtype=np.bool_)
    # Sizes above the budget can never fit; clipping them to budget + 1 keeps every
    # comparison's outcome while bounding the values we sum.
    if array.dtype.kind not in "iu" or budget + 1 > _INT64_MAX // max(n, 1):
        mask, remaining = reference.pack_sizes(budget, [int(s) for s in array.tolist()])
        kept[:] = mask
        return kept, remaining
    clipped = np.minimum(array, budget + 1).astype(np.int64, copy=False)
    remaining = budget
    start = 0
    while start < n and remaining > 0:
        window = clipped[start:]
        candidates = np.flatnonzero(window <= remaining)
        if candidates.size == 0:
            break
        # cumsum of at most n values each <= budget + 1 stays below 2**63 (checked above).
        totals = np.cumsum(window[candidates])
        stop = int(np.searchsorted(totals, remaining, side="right"))
        kept[start + candidates[:stop]] = True
        if stop:
            remaining -= int(totals[stop - 1])
        if stop == candidates.size:
            break
        start += int(candidates[stop]) + 1
    return kept, remaining
