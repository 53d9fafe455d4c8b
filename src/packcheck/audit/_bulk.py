"""A chunk of typed run records checked in bulk: the rule's answers from the batch kernel,
the recorded partitions and results compared with them as text, and what each step
lost, from one table of steps by required IDs (docs/performance.md, "Audit near its
floor")."""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from itertools import chain, repeat
from operator import attrgetter, itemgetter
from typing import Any

import msgspec
import numpy as np
import numpy.typing as npt

from .._engines.numpy_entry import pack_batch
from ._check import MAX_STEPS_SHOWN
from ._lost import UNKNOWN, Lost

#: Cells of the reasons table made at a time (int8): its rows are cut to fit.
_TABLE_CELLS = 1 << 22
#: A table cell: the best bucket a block of the column's ID reached in the row's step.
_PACKED, _AVAILABLE, _DROPPED, _NONE = 0, 1, 2, 3
#: The reason of a loss in each cell.  A step the bulk judges found right never loses an
#: ID it packed, so the packed cell carries what only the per-step path tallies: a loss
#: of a step that kept other than the rule keeps, for a reason the case does not give.
_REASONS: tuple[Lost, ...] = (UNKNOWN, "evicted", "oversized", "not-retrieved")
#: A reason's bucket cell, as :func:`tally` reads it.
CELLS: dict[Lost, int] = {
    UNKNOWN: _PACKED,
    "evicted": _AVAILABLE,
    "oversized": _DROPPED,
    "not-retrieved": _NONE,
}
# A record's fields, as both judges of a chunk (this one and the text one) read them.
BUDGET = attrgetter("budget")
BLOCKS = attrgetter("blocks")
REQUIRED = attrgetter("required")
PARTITION = attrgetter("partition")
RESULT = attrgetter("result")
_ID = attrgetter("id")
_SIZE = attrgetter("size")
_PACKED_IDS = itemgetter("packed")
_encode = msgspec.json.Encoder().encode


def _split(flat: list[Any], counts: Sequence[int]) -> list[list[Any]]:
    out = []
    at = 0
    for count in counts:
        out.append(flat[at : at + count])
        at += count
    return out


class Losses:
    """What the steps of a chunk found right (the *good* steps, numbered from 0 in line
    order) left out and lost."""

    right: list[bool]
    #: Per record, whether its case was read, so that its verdict, right or wrong, is
    #: sure (a wrong one is wrong on every path); by default, those found right.
    read: list[bool]

    def _judged(
        self,
        right: npt.NDArray[np.bool_],
        left_out: npt.NDArray[np.bool_],
        missing: npt.NDArray[np.intp],
        wanted_step: npt.NDArray[np.intp],
        codes: npt.NDArray[np.intp],
        best: npt.NDArray[Any],
        distinct: list[str],
        read: list[bool] | None = None,
    ) -> None:
        """Keep, of the steps ``right``, whether each ``left_out`` a block, and its
        losses: ``missing`` holds the required entries missing, step by step in the
        order they are listed, each of step ``wanted_step[entry]``, ID ``distinct[
        codes[entry]]`` and best bucket ``best[entry]``; ``read``: :attr:`read`."""
        self.right = right.tolist()
        self.read = self.right if read is None else read
        ordinal = np.cumsum(right) - 1
        self._left_out = np.concatenate(([0], np.cumsum(left_out[right])))
        # A step's losses: its distinct missing IDs, in the order they are listed.
        missing = missing[right[wanted_step[missing]]]
        step, code = wanted_step[missing], codes[missing]
        first = np.ones(len(missing), np.bool_)
        first[1:] = (step[1:] != step[:-1]) | (code[1:] != code[:-1])
        self._step = ordinal[step[first]]
        self._code_array = code[first]
        self._cell_array = best[missing[first]].astype(np.intp)
        self._ids = distinct

    def left_out(self, start: int, stop: int) -> int:
        """How many of the good steps ``start`` to ``stop`` left a block out."""
        return int(self._left_out[stop] - self._left_out[start])

    def entries(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """The losses of the good steps, one by one in the order the per-step path meets
        them: each one's good step, its ID's code (in :attr:`ids`) and its bucket cell."""
        return self._step, self._code_array, self._cell_array

    @property
    def ids(self) -> list[str]:
        """The required IDs the codes of :meth:`entries` stand for."""
        return self._ids


def tally(
    steps: npt.NDArray[np.intp],
    codes: npt.NDArray[np.intp],
    cells: npt.NDArray[np.intp],
    ids: Sequence[str],
) -> Iterator[tuple[str, list[tuple[Lost, int]], list[int]]]:
    """Losses, each of step ``steps[k]`` (rising), ID ``ids[codes[k]]`` and bucket cell
    ``cells[k]``, tallied as the per-step path tallies them one by one: each ID in the
    order first met, with its reasons and their counts (in the order first met) and the
    first steps it was lost in (as many as are ever shown).  O(l log l) in the losses."""
    if not len(codes):
        return
    # The losses of each ID together, in the order met; the IDs in the order met.
    by_id = np.argsort(codes, kind="stable")
    grouped = codes[by_id]
    starts = np.flatnonzero(np.concatenate(([True], grouped[1:] != grouped[:-1])))
    counts = np.diff(np.append(starts, len(grouped)))
    met = np.argsort(by_id[starts], kind="stable")
    # Each ID's first steps, as many as are ever shown.
    rank = np.arange(len(grouped)) - np.repeat(starts, counts)
    first_steps = steps[by_id[rank < MAX_STEPS_SHOWN]].tolist()
    taken = np.minimum(counts, MAX_STEPS_SHOWN)
    ends = np.cumsum(taken).tolist()
    shown = [first_steps[end - n : end] for end, n in zip(ends, taken.tolist(), strict=True)]
    # Each ID's reasons (a cell per reason), in the order first met, with counts.
    pairs = codes * 4 + cells
    kinds, first, many = np.unique(pairs, return_index=True, return_counts=True)
    in_order = np.argsort(first, kind="stable")
    reasons: dict[int, list[tuple[Lost, int]]] = {}
    for kind, number in zip(kinds[in_order].tolist(), many[in_order].tolist(), strict=True):
        reasons.setdefault(kind >> 2, []).append((_REASONS[kind & 3], number))
    for at in met.tolist():
        code = int(grouped[starts[at]])
        yield ids[code], reasons[code], shown[at]


class Chunk(Losses):
    """The records of a chunk judged in bulk: :attr:`right` per record, and for the
    records found right what each left out and lost (:class:`Losses`)."""

    def __init__(self, records: Sequence[Any]) -> None:
        steps = len(records)
        blocks = list(map(BLOCKS, records))
        counts = list(map(len, blocks))
        flat = list(chain.from_iterable(blocks))
        ids = list(map(_ID, flat))
        sizes = np.fromiter(map(_SIZE, flat), np.int64, len(flat))
        budgets = np.fromiter(map(BUDGET, records), np.int64, steps)
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
        right = _same_texts(list(map(PARTITION, records)), partitions)
        required = list(map(REQUIRED, records))
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
        results = list(map(RESULT, records))
        expected_missing = _split(list(map(wanted.__getitem__, missing.tolist())), missing_counts)
        if msgspec.UNSET not in results:
            right &= _same_texts([r.kept for r in results], packed)
            right &= remaining == np.fromiter((r.remaining for r in results), np.int64, steps)
            right &= np.fromiter(
                map(operator.eq, (r.missing for r in results), expected_missing), np.bool_, steps
            )
        else:
            right &= _some_results(results, packed, remaining.tolist(), expected_missing)
        left_out = np.array(counts, np.intp) != np.array(packed_counts, np.intp)
        self._judged(right, left_out, missing, wanted_step, codes, best, distinct)


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
    """Per step, whether its recorded text (a :class:`msgspec.Raw`) is its expected value
    as packcheck writes it: all at once when the chunk's texts agree as one JSON array,
    else step by step."""
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
            result is msgspec.UNSET
            or (bytes(result.kept) == _encode(k) and result.remaining == r and result.missing == m)
            for result, k, r, m in zip(results, kept, remaining, missing, strict=True)
        ],
        np.bool_,
    )
