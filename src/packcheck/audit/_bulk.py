"""A chunk of typed run records checked in bulk: the rule's answers from the batch kernel,
the recorded partitions and results compared with them, and what each step lost.

The partitions and kept lists are compared as text: every step's, as lists sliced from
the IDs in bucket order, written by one compact JSON encode per chunk, against the
recorded texts joined into one JSON array; when the two agree, every step's does, so a
chunk of correct steps costs a few passes in C over its IDs.  The missing IDs and their
reasons come from one table per chunk: each distinct required ID a column, each step a
row, holding the best bucket a block of that ID reached in that step (packed, else
available, else dropped, else none).
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from itertools import chain, repeat
from operator import attrgetter, itemgetter
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt

from .._engines.levels import pack_batch
from .._partition.trace import Reason
from ._check import MAX_STEPS_SHOWN

#: Cells of the reasons table made at a time (int8): its rows are cut to fit.
_TABLE_CELLS = 1 << 22
#: A table cell: the best bucket a block of the column's ID reached in the row's step.
_PACKED, _AVAILABLE, _DROPPED, _NONE = 0, 1, 2, 3
_REASONS: tuple[Reason, ...] = ("evicted", "evicted", "oversized", "not-retrieved")
_BLOCKS = attrgetter("blocks")
_ID = attrgetter("id")
_SIZE = attrgetter("size")
_BUDGET = attrgetter("budget")
_REQUIRED = attrgetter("required")
_PARTITION = attrgetter("partition")
_RESULT = attrgetter("result")
_PACKED_IDS = itemgetter("packed")
_encode = msgspec.json.Encoder().encode


def _split(flat: list[Any], counts: Sequence[int]) -> list[list[Any]]:
    out = []
    at = 0
    for count in counts:
        out.append(flat[at : at + count])
        at += count
    return out


class Chunk:
    """The records of a chunk judged in bulk: :attr:`right` per record, and for the
    records found right (the *good* steps, numbered from 0 in order) what each left out
    and lost, asked for by ranges of good steps."""

    def __init__(self, records: Sequence[Any]) -> None:
        steps = len(records)
        blocks = list(map(_BLOCKS, records))
        counts = list(map(len, blocks))
        flat = list(chain.from_iterable(blocks))
        ids = list(map(_ID, flat))
        sizes = np.fromiter(map(_SIZE, flat), np.int64, len(flat))
        budgets = np.fromiter(map(_BUDGET, records), np.int64, steps)
        offsets = np.zeros(steps + 1, np.intp)
        np.cumsum(counts, out=offsets[1:])
        kept, remaining = pack_batch(budgets, sizes, offsets)
        step_of = np.repeat(np.arange(steps), counts)
        fits = sizes <= budgets[step_of]
        available = ~kept & fits
        dropped = ~kept & ~fits
        packed_counts = np.bincount(step_of[kept], minlength=steps).tolist()
        # Each step's partition and kept list as lists of IDs, written in one encode
        # per chunk and compared with the text recorded: a partition written otherwise
        # (spaced, keys in another order) goes to the per-step path, which judges it
        # as JSON.
        group = step_of * 3 + np.where(kept, 0, np.where(available, 1, 2))
        order = np.argsort(group, kind="stable")
        partitions = _partitions(
            list(map(ids.__getitem__, order.tolist())),
            np.searchsorted(group[order], np.arange(3 * steps + 1)).tolist(),
        )
        packed = list(map(_PACKED_IDS, partitions))
        right = _same_texts(list(map(_PARTITION, records)), partitions)
        required = list(map(_REQUIRED, records))
        wanted = list(chain.from_iterable(required))
        wanted_counts = list(map(len, required))
        wanted_step = np.repeat(np.arange(steps), wanted_counts)
        # Each distinct required ID a code, in the order first met, and a rank in the
        # order missing IDs are listed (all ASCII here: code point order is UTF-16's).
        distinct = list(dict.fromkeys(wanted))
        code_of = dict(zip(distinct, range(len(distinct)), strict=True))
        codes = np.fromiter(map(code_of.__getitem__, wanted), np.intp, len(wanted))
        rank = np.empty(len(distinct), np.intp)
        rank[sorted(range(len(distinct)), key=distinct.__getitem__)] = np.arange(len(distinct))
        block_codes = np.fromiter(map(code_of.get, ids, repeat(-1)), np.intp, len(ids))
        best = _best_buckets(
            (kept, available, dropped),
            block_codes,
            step_of,
            codes,
            wanted_step,
            offsets,
            wanted_counts,
        )
        missing = np.flatnonzero(best != _PACKED)
        missing = missing[np.lexsort((rank[codes[missing]], wanted_step[missing]))]
        missing_counts = np.bincount(wanted_step[missing], minlength=steps).tolist()
        results = list(map(_RESULT, records))
        expected_missing = _split(list(map(wanted.__getitem__, missing.tolist())), missing_counts)
        if None not in results:
            right &= _same_texts([r.kept for r in results], packed)
            right &= remaining == np.fromiter((r.remaining for r in results), np.int64, steps)
            right &= np.fromiter(
                map(operator.eq, (r.missing for r in results), expected_missing), np.bool_, steps
            )
        else:
            right &= _some_results(results, packed, remaining.tolist(), expected_missing)
        self.right: list[bool] = right.tolist()
        # From here on, the good steps only, numbered from 0.
        ordinal = np.cumsum(right) - 1
        left_out = (np.array(counts, np.intp) != np.array(packed_counts, np.intp))[right]
        self._left_out = np.concatenate(([0], np.cumsum(left_out)))
        # A step's losses: its distinct missing IDs, in the order they are listed.
        missing = missing[right[wanted_step[missing]]]
        step, code = wanted_step[missing], codes[missing]
        first = np.ones(len(missing), np.bool_)
        first[1:] = (step[1:] != step[:-1]) | (code[1:] != code[:-1])
        self._step = ordinal[step[first]]
        # Read one by one, per range of good steps: lists, not arrays.
        self._steps: list[int] = self._step.tolist()
        self._codes: list[int] = code[first].tolist()
        self._reasons: list[Reason] = [_REASONS[cell] for cell in best[missing[first]].tolist()]
        self._ids = distinct

    def left_out(self, start: int, stop: int) -> int:
        """How many of the good steps ``start`` to ``stop`` left a block out."""
        return int(self._left_out[stop] - self._left_out[start])

    def losses(
        self, start: int, stop: int
    ) -> Iterator[tuple[str, list[tuple[Reason, int]], list[int]]]:
        """Each ID lost in the good steps ``start`` to ``stop``, in the order first met:
        its reasons with their counts (in the order first met) and the first good steps
        it was lost in (as many as are ever shown).  O(losses in the range)."""
        lo, hi = np.searchsorted(self._step, (start, stop)).tolist()
        shown = MAX_STEPS_SHOWN
        found: dict[int, tuple[dict[Reason, int], list[int]]] = {}
        for step, code, reason in zip(
            self._steps[lo:hi], self._codes[lo:hi], self._reasons[lo:hi], strict=True
        ):
            if code not in found:
                found[code] = ({}, [])
            reasons, ordinals = found[code]
            reasons[reason] = reasons.get(reason, 0) + 1
            if len(ordinals) < shown:
                ordinals.append(step)
        for code, (reasons, ordinals) in found.items():
            yield self._ids[code], list(reasons.items()), ordinals


def _partitions(ordered: list[str], bounds: list[int]) -> list[dict[str, list[str]]]:
    """Every step's partition: ``ordered`` holds the IDs list after list (packed,
    available, dropped), step after step, and list ``k`` of all of them starts at
    ``bounds[k]`` and ends at ``bounds[k + 1]``."""
    return [
        {
            "packed": ordered[bounds[at] : bounds[at + 1]],
            "available": ordered[bounds[at + 1] : bounds[at + 2]],
            "dropped": ordered[bounds[at + 2] : bounds[at + 3]],
        }
        for at in range(0, len(bounds) - 1, 3)
    ]


def _same_texts(recorded: list[Any], expected: list[Any]) -> npt.NDArray[np.bool_]:
    """Per step, whether its recorded text (a :class:`msgspec.Raw`) is its expected
    value as packcheck writes it (compact; every ID here is ASCII with no escape): all
    at once when the texts of the whole chunk, as one JSON array, agree, else step by
    step.  The elements of a JSON array are found in one way only, so when the arrays
    agree every step's text does."""
    if b"[" + b",".join(recorded) + b"]" == _encode(expected):
        return np.ones(len(recorded), np.bool_)
    return np.fromiter(
        map(operator.eq, map(bytes, recorded), map(_encode, expected)), np.bool_, len(recorded)
    )


def _best_buckets(
    buckets: tuple[npt.NDArray[np.bool_], ...],
    block_codes: npt.NDArray[np.intp],
    step_of: npt.NDArray[np.intp],
    codes: npt.NDArray[np.intp],
    wanted_step: npt.NDArray[np.intp],
    offsets: npt.NDArray[np.intp],
    wanted_counts: list[int],
) -> npt.NDArray[np.int8]:
    """Per required entry, the best bucket a block of its ID reached in its step, from
    a table of steps by distinct required IDs, made :data:`_TABLE_CELLS` at a time."""
    best = np.empty(len(codes), np.int8)
    columns = int(codes.max()) + 1 if len(codes) else 1
    rows = max(1, _TABLE_CELLS // columns)
    wanted_offsets = np.zeros(len(wanted_counts) + 1, np.intp)
    np.cumsum(wanted_counts, out=wanted_offsets[1:])
    for top in range(0, len(wanted_counts), rows):
        bottom = min(top + rows, len(wanted_counts))
        table = np.full((bottom - top, columns), _NONE, np.int8)
        lo, hi = offsets[top], offsets[bottom]
        known = block_codes[lo:hi] >= 0
        # Lower buckets written last: they win where a step has the ID in several.
        for value, mask in reversed(
            list(zip((_PACKED, _AVAILABLE, _DROPPED), buckets, strict=True))
        ):
            chosen = known & mask[lo:hi]
            table[step_of[lo:hi][chosen] - top, block_codes[lo:hi][chosen]] = value
        first, last = wanted_offsets[top], wanted_offsets[bottom]
        best[first:last] = table[wanted_step[first:last] - top, codes[first:last]]
    return best


def _some_results(
    results: list[Any], kept: list[list[str]], remaining: list[int], missing: list[list[str]]
) -> npt.NDArray[np.bool_]:
    """Per step, whether its recorded result (where one is recorded) is the expected."""
    return np.array(
        [
            result is None
            or (bytes(result.kept) == _encode(k) and result.remaining == r and result.missing == m)
            for result, k, r, m in zip(results, kept, remaining, missing, strict=True)
        ],
        np.bool_,
    )
