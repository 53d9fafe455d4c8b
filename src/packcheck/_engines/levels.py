"""The NumPy packer: the reference's answers, computed in vectorised levels.

With ``R`` left at a level's start and ``tau = R // K``, blocks up to ``tau`` are kept
by one cumulative sum and fewer than ``K`` larger ones fit per level, so a scan takes
``O(K log budget)`` rounds of NumPy calls whatever the order of the sizes.  Sums stay
exact in int64 at any remaining: docs/performance.md, "How the NumPy packer scans".
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .. import reference
from . import sizes as _sizes
from .rounds import next_round

_INT64_MAX = _sizes.INT64_MAX
_INT64_MIN = int(np.iinfo(np.int64).min)
# Whole-chunk sums below this are taken in one int64 sum, a factor 2 below overflow.
_SUM_LIMIT = 2**62
# Level ratio: fewer than _K large blocks are kept per level; log_K(budget) levels.
_K = 16
# Galloping chunk lengths: short after an event, so an event costs little; long
# while chunks go by without one, so per-call overhead vanishes.
_CHUNK_MIN = 4096
_CHUNK_MAX = 1 << 16
# A round of NumPy calls costs what a Python loop over a few hundred blocks does: chunks
# shorter than _NUMPY_MIN, and the stretch after a level that decided fewer than
# _DENSE blocks per round (events packed closely), are scanned in Python.
_NUMPY_MIN = 1024
_DENSE = 256
# A chunk in which at most 1 block in _SPARSE (or _SPARSE blocks) fits what is left is
# scanned over those blocks alone, in Python: one pass finds them, and the loop over
# them costs about what a NumPy pass over the chunk does, whatever the events.
_SPARSE = 64
# Whether a chunk may be sparse is judged on every _SAMPLE-th block (see _maybe_sparse).
_SAMPLE = 61
# The search for a large block that fits starts with _CHUNK_MIN // 4 blocks and grows
# its steps by this factor, so a hit costs O(its distance).
_GROWTH = 2
_FIRST_STEP = _CHUNK_MIN // 4
# The low 31 bits: halves of an int64 summed over 65,536 values stay exact.
_LOW_BITS = (1 << 31) - 1
#: Where the scan's landmarks lie, for the gate's edge probes to be laid out on (a
#: retuned kernel moves its probes with it): the level ratio, the first chunk's length,
#: the search's first step and its growth.
LANDMARKS = {
    "level_ratio": _K,
    "chunk": _CHUNK_MIN,
    "first_step": _FIRST_STEP,
    "growth": _GROWTH,
}


def pack_input(
    budget: int, sizes: _sizes.KernelInput | list[int]
) -> tuple[npt.NDArray[np.bool_], int]:
    """:func:`packcheck.scan.pack_sizes` on sizes :mod:`packcheck._engines.sizes` has read."""
    if isinstance(sizes, list):
        mask, remaining = reference.pack_sizes(budget, sizes)
        return np.frombuffer(bytes(mask), dtype=np.bool_).copy(), remaining
    kept = np.zeros(sizes.values.shape[0], dtype=np.bool_)
    remaining = _scan(sizes.values, budget, sizes.smallest, kept)
    return kept, remaining


def _scan(
    values: npt.NDArray[np.int64], budget: int, smallest: int, kept: npt.NDArray[np.bool_]
) -> int:
    """Mark the kept blocks of ``values`` (minimum ``smallest`` >= 1) in ``kept``; the
    remaining units."""
    n = values.shape[0]
    remaining = budget
    start = 0
    width = _CHUNK_MIN
    dense = False  # the last level decided fewer than _DENSE blocks per round
    # Bound: a round decides a chunk of >= _CHUNK_MIN blocks, a Python stretch of
    # _NUMPY_MIN, the last blocks, or ends a level (the remaining falls below 1/_K of
    # itself: < log_K(budget) + 1 times), or keeps the fitting prefix past int64 (once).
    bound = 2 * (n // _NUMPY_MIN) + budget.bit_length() + 8
    rounds = 0
    # Invariant: kept[:start] is final and `remaining` is the reference's remaining
    # before block `start`.  Once remaining < smallest nothing else can fit.
    while start < n and remaining >= smallest:
        rounds = next_round("scan", rounds, bound)
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
            if remaining > _INT64_MAX:
                # Every int64 size fits: keep the longest prefix that fits; the block
                # after it leaves the remaining below that block's size, within int64.
                used, remaining = _fitting_prefix(chunk, remaining, kept[start:stop])
                start, width = start + used, _CHUNK_MIN
                continue
        elif int(chunk.min()) > remaining:
            # Nothing fits: one reduction decides the chunk.
            start, width = stop, min(2 * width, _CHUNK_MAX)
            continue
        elif _maybe_sparse(chunk, remaining):
            fitting = np.flatnonzero(chunk <= remaining)
            if fitting.shape[0] <= max(_SPARSE, chunk.shape[0] // _SPARSE):
                # None or few of the blocks fit what is left (rare keeps among runs of
                # too-large blocks): only those can be kept, the remaining never grows.
                remaining = _sparse(chunk, fitting, remaining, kept[start:stop])
                start, width = stop, min(2 * width, _CHUNK_MAX)
                continue
        if dense or stop - start < _NUMPY_MIN:
            # Short stretches (small inputs, events packed closely) go faster in Python.
            stop = start + min(stop - start, _NUMPY_MIN)
            remaining = _exact_chunk(values[start:stop], remaining, kept[start:stop])
            start, width, dense = stop, _CHUNK_MIN, False
            continue
        used, remaining, searches = _level(chunk, remaining, top, kept[start:stop])
        start += used
        # A level that stops short of its chunk ended (remaining < tau), or was cut
        # where its sums would leave int64, which is past its end too.
        dense = used < _DENSE * searches
        width = _CHUNK_MIN if used < chunk.shape[0] else min(2 * width, _CHUNK_MAX)
    return remaining


def _maybe_sparse(chunk: npt.NDArray[np.int64], remaining: int) -> bool:
    """Whether few enough blocks of ``chunk`` may fit ``remaining`` for :func:`_sparse`.

    Judged on every _SAMPLE-th block (a prime, so no short period of the sizes hides),
    allowing twice the sparse share.  Only the path depends on it, never the answer.
    """
    seen = int(np.count_nonzero(chunk[::_SAMPLE] <= remaining))
    return seen * _SAMPLE <= 2 * max(_SPARSE, int(chunk.shape[0]) // _SPARSE)


def _sparse(
    chunk: npt.NDArray[np.int64],
    fitting: npt.NDArray[np.intp],
    remaining: int,
    kept: npt.NDArray[np.bool_],
) -> int:
    """The reference's scan of the blocks ``fitting`` of ``chunk``, the only ones that fit."""
    mask, remaining = reference.pack_sizes(remaining, chunk[fitting].tolist())
    kept[fitting[np.frombuffer(bytes(mask), dtype=np.bool_)]] = True
    return remaining


def _exact_sum(chunk: npt.NDArray[np.int64], top: int) -> int:
    """The exact sum of ``chunk`` (positive values, maximum ``top``)."""
    if top <= _SUM_LIMIT // chunk.shape[0]:
        return int(chunk.sum())
    # Halves of at most 31 bits: each half-sum is below 2**31 * 2**16 (chunk length).
    high = int((chunk >> 31).sum())
    low = int((chunk & _LOW_BITS).sum())
    return (high << 31) + low


def _fitting_prefix(
    chunk: npt.NDArray[np.int64], remaining: int, kept: npt.NDArray[np.bool_]
) -> tuple[int, int]:
    """Keep the longest prefix of ``chunk`` whose sum is at most ``remaining``.

    The caller guarantees that the whole chunk does not fit.  Returns the prefix's
    length and the remaining units after it.
    """
    # Exact prefix sums in two halves of at most 31 bits, each exact in int64.
    high = np.cumsum(chunk >> 31)
    low = np.cumsum(chunk & _LOW_BITS)

    def prefix(length: int) -> int:
        return (int(high[length - 1]) << 31) + int(low[length - 1]) if length else 0

    fits, misses = 0, chunk.shape[0]  # prefix(fits) <= remaining < prefix(misses)
    # Bound: bisection halves misses - fits every round, so bit_length rounds end it.
    for _ in range(chunk.shape[0].bit_length()):
        if misses - fits <= 1:
            break
        middle = (fits + misses) // 2
        if prefix(middle) <= remaining:
            fits = middle
        else:
            misses = middle
    kept[:fits] = True
    return fits, remaining - prefix(fits)


def _exact_chunk(chunk: npt.NDArray[np.int64], remaining: int, kept: npt.NDArray[np.bool_]) -> int:
    """The reference's scan of one chunk, in Python integers."""
    mask, remaining = reference.pack_sizes(remaining, chunk.tolist())
    # bytes() of a list of bools is 0/1 bytes: twice as fast as assigning the list.
    kept[:] = np.frombuffer(bytes(mask), dtype=np.bool_)
    return remaining


def _prefix_sums(values: npt.NDArray[np.int64], top: int) -> npt.NDArray[np.int64]:
    """Exact prefix sums of ``values`` (each in ``[0, top]``, ``top < 2**62``), cut short.

    The sums are taken in uint64, where wrapping is defined, and the result stops
    before the first sum reaching ``2**63``; every sum returned is exact in int64.
    ``values`` is overwritten.
    """
    unsigned = values.view(np.uint64)
    np.cumsum(unsigned, out=unsigned)
    if top * values.shape[0] <= _INT64_MAX:
        return values
    # Steps are below 2**62, so the first sum at or past 2**63 (below 2**64) reads
    # negative as int64: nothing before it wrapped.
    past = values < 0
    first = int(np.argmax(past))
    return values[:first] if past[first] else values


def _level(
    chunk: npt.NDArray[np.int64], remaining: int, top: int, kept: npt.NDArray[np.bool_]
) -> tuple[int, int, int]:
    """Scan ``chunk`` (maximum ``top``) from ``remaining`` until its level ends or it does.

    Returns the blocks decided, the remaining after them and the rounds of NumPy calls
    spent; fewer blocks than ``len(chunk)`` means the level ended or the small sums were
    cut before ``2**63``.  The caller guarantees ``remaining <= 2**63 - 1``.
    """
    tau = remaining // _K
    if top <= tau:
        return _all_small(chunk, remaining, top, kept)
    # Clipping to remaining + 1 keeps every outcome (such a block never fits) and
    # makes size - (remaining + 1) <= 0.
    sizes = chunk if top <= remaining else np.minimum(chunk, remaining + 1)
    offset = 0
    if int(sizes.min()) > tau:
        # No small block: nothing to sum, a block fits iff its size is at most c.
        small = small_sums = np.zeros(sizes.shape[0], dtype=np.int64)
        keys = sizes
    else:
        # small: -1 where size <= tau, else 0 (the sign of size - tau - 1): branch-free
        # masks, several times faster than np.where on a random mask.
        # Computed in place: at most four chunk-long arrays live at once.
        small = sizes - (tau + 1)
        small >>= 63
        # small_sums[i]: the small sizes in chunk[: i + 1], exact and below 2**63.
        small_sums = _prefix_sums(sizes & small, tau)
        length = small_sums.shape[0]
        sizes, small = sizes[:length], small[:length]
        # A large block j fits iff size_j + (small sizes before j) <= c, the level's
        # remaining minus its kept large blocks.  Shifted by remaining + 1 so that
        # nothing leaves int64: size_j - (remaining + 1) is in [-remaining, 0].
        offset = remaining + 1
        keys = sizes + (-offset)
        keys += small_sums
        # small becomes int64 max where small (its sign bit cleared), -1 elsewhere;
        # and-ed into keys it makes a small block's key >= 0, never <= c - offset < 0.
        small &= _INT64_MIN
        np.invert(small, out=small)
        keys &= small
    length = sizes.shape[0]
    budget = remaining  # c
    at = rounds = 0
    while True:
        # Bound: a round that does not return keeps a large block (> tau), and fewer
        # than _K of them fit what the level started with.
        rounds = next_round("level", rounds, _K + 1)
        # Blocks [at, end) are all within the level: before each of them the remaining
        # is >= tau (so every small one fits); block `end` is the first below tau.
        end = max(at, min(length, int(np.searchsorted(small_sums, budget - tau, "right")) + 1))
        hit = _first_at_most(keys, at, end, budget - offset)
        if hit < 0:
            np.greater(small[at:end], 0, out=kept[at:end])
            # end >= 1: the first block of a level is always within it.
            return end, budget - int(small_sums[end - 1]), rounds
        np.greater(small[at:hit], 0, out=kept[at:hit])
        kept[hit] = True
        budget -= int(sizes[hit])
        at = hit + 1


def _all_small(
    chunk: npt.NDArray[np.int64], remaining: int, top: int, kept: npt.NDArray[np.bool_]
) -> tuple[int, int, int]:
    """:func:`_level` when every block is small: levels follow one another on one cumsum.

    Counts as one round.  Leaves when ``top`` is no longer small, or where the sums would
    reach ``2**63`` (past ``remaining``, so past a level's end).
    """
    sums = _prefix_sums(chunk.copy(), top)
    length = sums.shape[0]
    at = spent = 0  # spent = sums[at - 1]
    # Bound: each level leaves less than 1/_K of the remaining it started with.
    bound, levels = remaining.bit_length() // 4 + 2, 0
    while True:
        levels = next_round("small levels", levels, bound)
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
    step = _FIRST_STEP
    # Bound: the steps double from 1,024 or more, so they cover stop - start in this many.
    rounds, most = 0, (stop - start).bit_length() + 1
    while start < stop:
        rounds = next_round("search", rounds, most)
        upto = min(stop, start + step)
        hits = keys[start:upto] <= bound
        first = int(np.argmax(hits))
        if hits[first]:
            return start + first
        start, step = upto, _GROWTH * step
    return -1
