"""The NumPy packer: the reference's answers, computed in vectorised levels.

The scan keeps a block iff ``size <= remaining``.  A plain phase scan (cumsum the
blocks that fit, stop at the first that does not, repeat) costs one NumPy round per
skipped block, so ``1, B, 1, B-1, 1, B-2, ...`` makes it quadratic.  Here the rounds
are bounded by *levels* instead.  With ``R`` the remaining units at the start of a
level and ``tau = R // K``, a block is *small* if ``size <= tau``:

* while the remaining stays ``>= tau``, every small block fits, so the small blocks
  are kept by one cumulative sum ``S`` (their sizes, in order);
* a *large* block ``j`` then fits iff ``size_j + S_j <= c``, where ``c`` is ``R``
  minus the large blocks kept so far in this level.  Each kept large block takes more
  than ``R / K``, so fewer than ``K`` are kept per level;
* the level ends at the first block where the remaining is below ``tau``: one
  ``searchsorted`` on ``S``.  The next level starts from less than ``R / K``.

Every event (a large block kept, a level ended) leaves less than ``1 - 1/K`` of the
remaining, so there are ``O(K log budget)`` events whatever the order.  Blocks are
read in galloping chunks (4,096 doubling to 65,536, back to 4,096 after an event),
so memory stays ``O(chunk)`` and an event costs ``O(4,096)`` amortised; a chunk that fits
whole, or that nothing fits in, costs two reductions.  Where a round of NumPy calls
would cost more than a Python loop (chunks under 1,024 blocks, events packed closer
than 256 blocks), stretches of at most 1,024 blocks go through the reference loop.
"""

from __future__ import annotations

import operator

import numpy as np
import numpy.typing as npt

from . import reference

__all__ = ["pack_sizes"]

_INT64_MAX = int(np.iinfo(np.int64).max)
# Every sum the kernel forms stays at most this, a factor 2 below int64 overflow.
_SUM_LIMIT = 2**62
# Level ratio: fewer than _K large blocks are kept per level; log_K(budget) levels.
_K = 16
# Galloping chunk lengths: short after an event, so an event costs little; long
# while chunks go by without one, so per-call overhead vanishes.
_CHUNK_MIN = 4096
_CHUNK_MAX = 1 << 16
# A round of NumPy calls costs ~10 us, a Python loop over ~200-1,000 blocks: chunks
# shorter than _NUMPY_MIN, and the stretch after a level that decided fewer than
# _DENSE blocks per round (events packed closely), are scanned in Python.
_NUMPY_MIN = 1024
_DENSE = 256
# Floats hold every integer up to 2**53 exactly; beyond that, only some.
_FLOAT_EXACT = 2**53


def pack_sizes(budget: int, sizes: npt.ArrayLike) -> tuple[npt.NDArray[np.bool_], int]:
    """Same answer as :func:`packcheck.reference.pack_sizes`, as a boolean array.

    Returns one kept flag per block and the remaining units (a Python ``int``).  The
    answer is exact at any magnitude: sizes above the budget are clipped to
    ``budget + 1`` (they never fit), and values int64 cannot hold even then (object
    arrays of integers past 2**63 with a budget past 2**63, floats past 2**53) are
    answered by the reference.  So are inputs outside the contract (a negative budget,
    a size below 1), where the vectorised argument does not hold.

    ``O(n + K log(budget) * 4096)`` time with ``K = 16``, whatever the order of the
    sizes; ``O(65,536)`` extra memory besides the result (plus one int64 copy when
    ``sizes`` is not int64 already).  Which path a chunk takes never changes the
    answer, only the speed.

    Raises ``ValueError`` if ``sizes`` is not one-dimensional or holds a float that is
    not a whole number, and ``TypeError`` if its dtype is not numeric.
    """
    budget = operator.index(budget)
    array = np.asarray(sizes)
    if array.ndim != 1:
        raise ValueError(f"sizes must be one-dimensional, got shape {array.shape}")
    values = _as_int64(array, budget)
    smallest = int(values.min()) if values is not None and values.size else 1
    if values is None or budget < 0 or smallest < 1:
        mask, remaining = reference.pack_sizes(budget, _exact_list(array))
        return np.frombuffer(bytes(mask), dtype=np.bool_).copy(), remaining
    kept = np.zeros(values.shape[0], dtype=np.bool_)
    remaining = _scan(values, budget, smallest, kept)
    return kept, remaining


def _as_int64(array: npt.NDArray[np.generic], budget: int) -> npt.NDArray[np.int64] | None:
    """``array`` as int64 with sizes above ``budget + 1`` possibly clipped to it.

    ``None`` when that is impossible without rounding or wrapping.
    """
    kind = array.dtype.kind
    if kind not in "biufO":
        raise TypeError(f"sizes must be integers, got dtype {array.dtype}")
    if kind == "f":
        if not bool(np.isfinite(array).all()) or not bool((array == np.floor(array)).all()):
            raise ValueError("sizes must be integral: a float size is a unit only if whole")
        if array.size and float(np.abs(array).max()) > _FLOAT_EXACT:
            return None
        return array.astype(np.int64)
    if kind in "bi" or (kind == "u" and array.dtype.itemsize < 8):
        return array.astype(np.int64, copy=False)
    cap = budget + 1
    try:
        return array.astype(np.int64) if kind == "O" else _uint64_as_int64(array)
    except (OverflowError, TypeError, ValueError):
        # A value past int64: it is a size above any budget int64 holds, so clipping
        # it to budget + 1 keeps every comparison's outcome.
        if not 0 < cap <= _INT64_MAX:
            return None
        try:
            clipped: npt.NDArray[np.generic] = np.minimum(array, cap)
            return clipped.astype(np.int64)
        except (OverflowError, TypeError, ValueError):
            return None


def _uint64_as_int64(array: npt.NDArray[np.generic]) -> npt.NDArray[np.int64]:
    if array.size and int(array.max()) > _INT64_MAX:
        raise OverflowError("uint64 value past int64")
    return array.astype(np.int64)


def _exact_list(array: npt.NDArray[np.generic]) -> list[int]:
    # Python ints from any dtype; floats reaching here are integral or out of contract.
    return [int(value) for value in array.tolist()]


def _scan(
    values: npt.NDArray[np.int64], budget: int, smallest: int, kept: npt.NDArray[np.bool_]
) -> int:
    """Mark the kept blocks of ``values`` (minimum ``smallest`` >= 1) in ``kept``.

    Returns the remaining units.
    """
    n = values.shape[0]
    remaining = budget
    start = 0
    width = _CHUNK_MIN
    dense = False  # the last level decided fewer than _DENSE blocks per round
    # Invariant: kept[:start] is final and `remaining` is the reference's remaining
    # before block `start`.  Once remaining < smallest nothing else can fit.
    while start < n and remaining >= smallest:
        stop = min(n, start + width)
        chunk = values[start:stop]
        top = int(chunk.max())
        if top <= remaining:
            total = _exact_sum(chunk, top)
            if total <= remaining:
                kept[start:stop] = True
                remaining -= total
                start, width = stop, min(2 * width, _CHUNK_MAX)
                continue
        elif int(chunk.min()) > remaining:
            start, width = stop, min(2 * width, _CHUNK_MAX)
            continue
        # Sums in a level are at most remaining + 1 + length * tau (see _level).
        length = min(stop - start, (_SUM_LIMIT - remaining - 1) // max(1, remaining // _K))
        if dense or length < _NUMPY_MIN:
            # Short stretches (small inputs, events packed closely, remainders too
            # large for int64 sums over a useful length) go faster in Python.
            stop = start + min(stop - start, _NUMPY_MIN)
            remaining = _exact_chunk(values[start:stop], remaining, kept[start:stop])
            start, width, dense = stop, _CHUNK_MIN, False
            continue
        used, remaining, rounds = _level(
            chunk[:length], remaining, top, kept[start : start + length]
        )
        start += used
        # Invariant: a level that stops short of its chunk ended (remaining < tau).
        dense = used < _DENSE * rounds
        width = _CHUNK_MIN if used < length else min(2 * width, _CHUNK_MAX)
    return remaining


def _exact_sum(chunk: npt.NDArray[np.int64], top: int) -> int:
    """The exact sum of ``chunk`` (positive values, maximum ``top``)."""
    if top <= _SUM_LIMIT // chunk.shape[0]:
        return int(chunk.sum())
    # Halves of at most 31 bits: each half-sum is below 2**31 * 2**16 (chunk length).
    high = int((chunk >> 31).sum())
    low = int((chunk & ((1 << 31) - 1)).sum())
    return (high << 31) + low


def _exact_chunk(chunk: npt.NDArray[np.int64], remaining: int, kept: npt.NDArray[np.bool_]) -> int:
    """The reference's scan of one chunk, in Python integers."""
    mask, remaining = reference.pack_sizes(remaining, chunk.tolist())
    # bytes() of a list of bools is 0/1 bytes: twice as fast as assigning the list.
    kept[:] = np.frombuffer(bytes(mask), dtype=np.bool_)
    return remaining


def _level(
    chunk: npt.NDArray[np.int64], remaining: int, top: int, kept: npt.NDArray[np.bool_]
) -> tuple[int, int, int]:
    """Scan ``chunk`` (maximum ``top``) from ``remaining`` until its level ends or it does.

    Returns the number of blocks decided, the remaining units after them, and the
    rounds of NumPy calls spent.  Fewer blocks than ``len(chunk)`` means the level
    ended: the remaining fell below ``tau = remaining // _K``.  The caller guarantees
    ``remaining + 1 + len(chunk) * tau <= 2**62``, which bounds every sum here.
    """
    tau = remaining // _K
    if top <= tau:
        return _all_small(chunk, remaining, top, kept)
    length = chunk.shape[0]
    # Clipping to remaining + 1 keeps every outcome (such a block never fits) and
    # bounds each value: keys <= remaining + 1 + length * tau, small_sums less.
    sizes = chunk if top <= remaining else np.minimum(chunk, remaining + 1)
    if int(sizes.min()) > tau:
        # No small block: nothing to sum, a block fits iff its size is at most c.
        small = small_sums = np.zeros(length, dtype=np.int64)
        keys = sizes
    else:
        # small: -1 where size <= tau, else 0 (the sign of size - tau - 1): branch-free
        # masks, several times faster than np.where on a random mask.
        # Computed in place: at most four chunk-long arrays live at once.
        small = sizes - (tau + 1)
        small >>= 63
        # small_sums[i]: the small sizes in chunk[: i + 1]; below length * tau.
        small_sums = sizes & small
        np.cumsum(small_sums, out=small_sums)
        # small becomes int64 max where small (a logical shift of -1), still 0 elsewhere.
        np.right_shift(small.view(np.uint64), 1, out=small.view(np.uint64))
        # A large block j fits iff size_j + (small sizes before j) <= c, the level's
        # remaining minus its kept large blocks; small blocks get int64 max, never <= c.
        keys = sizes + small_sums
        keys |= small
    budget = remaining  # c
    at = rounds = 0
    while True:
        rounds += 1
        # Blocks [at, end) are all within the level: before each of them the remaining
        # is >= tau (so every small one fits); block `end` is the first below tau.
        end = max(at, min(length, int(np.searchsorted(small_sums, budget - tau, "right")) + 1))
        hit = _first_at_most(keys, at, end, budget)
        if hit < 0:
            np.not_equal(small[at:end], 0, out=kept[at:end])
            # end >= 1: the first block of a level is always within it.
            return end, budget - int(small_sums[end - 1]), rounds
        np.not_equal(small[at:hit], 0, out=kept[at:hit])
        kept[hit] = True
        budget -= int(sizes[hit])
        at = hit + 1


def _all_small(
    chunk: npt.NDArray[np.int64], remaining: int, top: int, kept: npt.NDArray[np.bool_]
) -> tuple[int, int, int]:
    """:func:`_level` when every block is small: levels follow one another on one cumsum.

    Counts as one round: each further level costs one ``searchsorted``.

    The scan leaves as soon as ``top`` is no longer small for the current level.
    """
    # sums[i] <= length * top <= length * tau: inside the caller's bound.
    sums = np.cumsum(chunk)
    length = chunk.shape[0]
    at = spent = 0  # spent = sums[at - 1]
    while True:
        tau = remaining // _K
        if top > tau:
            return at, remaining, 1
        # Invariant: spent <= spent + remaining - tau, so the level covers block `at`.
        end = min(length, int(np.searchsorted(sums, spent + remaining - tau, "right")) + 1)
        kept[at:end] = True
        total = int(sums[end - 1])
        remaining -= total - spent
        at, spent = end, total
        if end == length:
            return length, remaining, 1


def _first_at_most(keys: npt.NDArray[np.int64], start: int, stop: int, bound: int) -> int:
    """The first index in ``[start, stop)`` with ``keys[i] <= bound``, or -1.

    Searched in doubling steps, so finding a hit costs O(its distance), not O(stop).
    """
    step = _CHUNK_MIN // 4
    while start < stop:
        upto = min(stop, start + step)
        hits = keys[start:upto] <= bound
        first = int(np.argmax(hits))
        if hits[first]:
            return start + first
        start, step = upto, 2 * step
    return -1
