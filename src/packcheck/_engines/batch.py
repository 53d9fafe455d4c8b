"""Many short cases packed at once: vectorised rounds over all cases together.

Per round, one cumulative sum over every live case's undecided blocks keeps each case's
fitting prefix; of the blocks after the one that misses, only those no larger than what
is left stay undecided (docs/performance.md, "Reading a case, and batches of steps").  After
:data:`_ROUNDS`, or when few blocks are left, the reference's loop finishes each case.
A round runs only while ``max(size) * blocks`` stays below ``2**63``.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import numpy.typing as npt

from .. import reference
from .sizes import Flags, Ints

_INT64_MAX = int(np.iinfo(np.int64).max)
# Bound on vectorised rounds: each one decides the skipped block of every live case,
# so a case of n blocks needs at most n; adversarial orders finish in Python instead.
_ROUNDS = 48
# Below this many undecided blocks a round of NumPy calls costs more than the loop.
_PYTHON_BELOW = 512
# Cases are packed in groups of about this many blocks: a group's temporaries (about
# ten int64 arrays) stay within a core's cache, and fresh pages are not faulted in.
_GROUP = 1 << 16


def pack_exact_cases(
    budgets: Ints, sizes: list[int], bounds: npt.NDArray[np.intp]
) -> tuple[Flags, Ints]:
    """Case ``i`` (``sizes[bounds[i]:bounds[i + 1]]``, exact ints) by the reference, for
    sizes outside the kernels' contract; a remaining past int64 is a one-line
    ``ValueError``."""
    kept = np.zeros(len(sizes), dtype=np.bool_)
    remaining = budgets.copy()
    for case, (lo, hi) in enumerate(pairwise(bounds.tolist())):
        mask, left = reference.pack_sizes(int(budgets[case]), sizes[lo:hi])
        if left > _INT64_MAX:
            raise ValueError(
                f"case {case}'s remaining {left} does not fit int64 (sizes below 1"
                " add to it); pack such a case alone with pack_sizes"
            )
        kept[lo:hi] = mask
        remaining[case] = left
    return kept, remaining


def pack_short_cases(
    values: Ints,
    counts: npt.NDArray[np.intp],
    budgets: Ints,
    kept: Flags,
    pos: npt.NDArray[np.intp] | None = None,
) -> Ints:
    """Pack case after case: ``counts[i]`` blocks under ``budgets[i]``.

    The blocks are ``values[pos]`` in order (``pos=None``: all); marks ``kept`` (aligned
    with ``values``) and returns each case's remaining.  The caller guarantees values in
    ``[1, 2**63 - 1]`` and budgets in ``[0, 2**63 - 1]``.  ``O(blocks)`` per round.
    """
    remaining = np.empty_like(budgets)
    # Groups of whole cases of about _GROUP blocks: every temporary stays in cache.
    ends = np.cumsum(counts)
    cuts = np.searchsorted(ends, np.arange(_GROUP, int(ends[-1]) if ends.size else 0, _GROUP))
    edges = sorted({0, *(cuts + 1).tolist(), counts.shape[0]})
    for lo, hi in pairwise(edges):
        first = int(ends[lo - 1]) if lo else 0
        last = int(ends[hi - 1])
        if pos is None:
            remaining[lo:hi] = _group(
                values[first:last], counts[lo:hi], budgets[lo:hi], kept[first:last], None
            )
        else:
            remaining[lo:hi] = _group(values, counts[lo:hi], budgets[lo:hi], kept, pos[first:last])
    return remaining


@dataclass(slots=True)
class _Undecided:
    """One group's state between rounds: ``pos`` of the undecided blocks (``None``: all
    of ``values``), ``live`` cases with ``count`` blocks and ``rem`` units left, and the
    answers, ``kept`` and ``remaining``."""

    values: Ints
    kept: Flags
    remaining: Ints
    pos: npt.NDArray[np.intp] | None
    live: npt.NDArray[np.intp]
    count: npt.NDArray[np.intp]
    rem: Ints

    def blocks(self) -> Ints:
        """The undecided blocks' sizes, case after case."""
        return self.values if self.pos is None else self.values[self.pos]


def _group(
    values: Ints,
    counts: npt.NDArray[np.intp],
    budgets: Ints,
    kept: Flags,
    pos: npt.NDArray[np.intp] | None,
) -> Ints:
    remaining = budgets.copy()
    live = np.flatnonzero(counts)
    state = _Undecided(values, kept, remaining, pos, live, counts[live], remaining[live])
    blocks = int(state.count.sum())
    if blocks and int(state.blocks().max()) > _INT64_MAX // blocks:
        # The cumulative sum could wrap: the loop finishes exactly.  Later rounds
        # see fewer blocks, none larger, so one check covers them all.
        blocks = 0
    for _ in range(_ROUNDS):
        if not state.live.size or blocks < _PYTHON_BELOW:
            break
        _round(state)
        blocks = int(state.count.sum())
    _finish(state)
    return remaining


def _round(state: _Undecided) -> None:
    """One round: keep each live case's fitting prefix, then drop what can never fit."""
    v, count, rem = state.blocks(), state.count, state.rem
    # Invariant: v >= 1, so the sums rise strictly and never wrap (checked by caller).
    sums = np.empty(v.shape[0] + 1, dtype=np.int64)
    sums[0] = 0
    np.cumsum(v, out=sums[1:])
    ends = np.cumsum(count)
    starts = ends - count
    base = sums[starts]
    # A case whose budget covers all its undecided blocks keeps them all.
    limit = base + np.minimum(rem, sums[ends] - base)
    # Sums of earlier cases are <= base <= limit, later ones > sums[ends] >= limit.
    fitting = np.searchsorted(sums[1:], limit, "right") - starts
    rem = rem - (sums[starts + fitting] - base)
    pattern = np.zeros(2 * count.shape[0], dtype=np.bool_)
    pattern[0::2] = True
    lengths = np.empty(2 * count.shape[0], dtype=np.intp)
    lengths[0::2] = fitting
    lengths[1::2] = count - fitting
    prefix = np.repeat(pattern, lengths)
    if state.pos is None:
        state.kept |= prefix
    else:
        state.kept[state.pos[prefix]] = True
    # Undecided: after the block that did not fit, and no larger than what is left
    # (the block that did not fit is larger, so it is excluded too).
    undecided = v <= np.repeat(rem, count)
    undecided &= ~prefix
    state.remaining[state.live] = rem
    where = np.flatnonzero(undecided)
    # Per case, the undecided blocks among its [starts, ends): two binary searches.
    count = np.searchsorted(where, ends) - np.searchsorted(where, starts)
    alive = count > 0
    state.pos = where if state.pos is None else state.pos[where]
    state.live, state.count, state.rem = state.live[alive], count[alive], rem[alive]


def _finish(state: _Undecided) -> None:
    """The reference's loop over each live case's undecided blocks, from its ``rem``."""
    if not state.live.size:
        return
    # pos None: no round ran, every block is undecided (empty cases are not live).
    pos = np.arange(state.values.shape[0]) if state.pos is None else state.pos
    flat = state.values[pos].tolist()
    flags: list[bool] = []
    lefts: list[int] = []
    at = 0
    for length, budget in zip(state.count.tolist(), state.rem.tolist(), strict=True):
        mask, left = reference.pack_sizes(budget, flat[at : at + length])
        flags += mask
        lefts.append(left)
        at += length
    # bytes() of a list of bools is 0/1 bytes: one fancy assignment for every case.
    state.kept[pos[np.frombuffer(bytes(flags), dtype=np.bool_)]] = True
    state.remaining[state.live] = lefts
