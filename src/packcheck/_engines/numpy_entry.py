"""The NumPy engine's entry points on arrays (public face: :mod:`packcheck.scan`): input
checked at the kernel's boundary, then to the level kernel, the batch rounds, or the
reference for what int64 cannot hold."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .. import reference
from . import batch as _batch
from . import levels
from . import sizes as _sizes
from .batch_entry import Answers, BatchPacker

# pack_batch: cases longer than this go through the kernel one by one.
_BATCH_LONG = 4096


def pack_sizes(budget: int, sizes: npt.ArrayLike) -> tuple[npt.NDArray[np.bool_], int]:
    """:func:`packcheck.reference.pack_sizes`'s answer, as a boolean array, exact at any
    magnitude.  ``O(n + K log(budget) * 4096)`` time with ``K = 16``, ``O(65,536)`` extra
    memory.  ``ValueError``/``TypeError`` for sizes or a budget that are not units.
    """
    budget = _sizes.budget_of(budget)
    return levels.pack_input(budget, _sizes.from_array(budget, sizes))


def _pack_batch(budgets: npt.ArrayLike, sizes: npt.ArrayLike, offsets: npt.ArrayLike) -> Answers:
    """:func:`pack_sizes`'s answer for each case: up to :data:`_BATCH_LONG` blocks in
    vectorised rounds, longer ones one by one."""
    budget_array = _sizes.budgets_of(budgets)
    cap = max(int(budget_array.max()), 0) if budget_array.size else 0
    # Clipping a size past int64 to the largest budget + 1 keeps it too large for all.
    read = _sizes.from_array(cap, sizes)
    total = len(read) if isinstance(read, list) else read.values.shape[0]
    bounds = _sizes.offsets_of(offsets, budget_array.shape[0], total)
    if isinstance(read, list):
        # Outside the contract, or past int64 even clipped: every case exactly.
        return _batch.pack_exact_cases(budget_array, read, bounds)
    kept = np.zeros(total, dtype=np.bool_)
    remaining = budget_array.copy()
    lengths = np.diff(bounds)
    short = (lengths <= _BATCH_LONG) & (budget_array >= 0)
    if bool(short.all()):
        remaining = _batch.pack_short_cases(read.values, lengths, budget_array, kept)
        return kept, remaining
    chosen = np.flatnonzero(short)
    firsts = np.cumsum(lengths[chosen]) - lengths[chosen]
    pos = np.arange(int(lengths[chosen].sum())) + np.repeat(
        bounds[chosen] - firsts, lengths[chosen]
    )
    remaining[chosen] = _batch.pack_short_cases(
        read.values, lengths[chosen], budget_array[chosen], kept, pos
    )
    for case in np.flatnonzero(~short).tolist():
        lo, hi = int(bounds[case]), int(bounds[case + 1])
        values = read.values[lo:hi]
        budget = int(budget_array[case])
        if budget < 0:
            mask, remaining[case] = reference.pack_sizes(budget, values.tolist())
            kept[lo:hi] = mask
        else:
            kept[lo:hi], remaining[case] = levels.pack_input(
                budget, _sizes.KernelInput(values, int(values.min()))
            )
    return kept, remaining


pack_batch = BatchPacker(_pack_batch, compiled=False)
