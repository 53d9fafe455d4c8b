"""Steps judged by their text: a record written exactly as the recorder writes it.

Under the default rule a record's ``partition`` and ``result`` are a pure function of
its case.  The case's ``blocks`` are kept as raw text (:class:`Lean`) and read with
NumPy from the chunk's bytes; the text must be the compact form the recorder writes,
every byte accounted for, else the typed path takes it.  The batch kernel packs the
chunk, each step's expected ``partition`` and ``result`` are assembled as bytes from
slices of the blocks' own text and compared with the recorded texts: a step whose
every byte agrees is correct.  Why the slices can be trusted is in docs/design.md
("Audit by text").  Memory and time are O(bytes of the chunk).
"""

from __future__ import annotations

from itertools import chain
from typing import Annotated

import msgspec
import numpy as np
import numpy.typing as npt

from .._engines.numpy_entry import pack_batch
from ._bulk import BLOCKS, BUDGET, PARTITION, REQUIRED, RESULT, Losses
from ._words import LOW, PAD
from ._words import keys as word_keys
from ._words import same as same_text
from ._words import sizes as word_sizes
from ._words import words as words_of

#: The longest ID (in bytes) compared here; a step with a longer one takes the typed path.
KEY_BYTES = 32
#: The most required IDs of a step judged here; a step with more takes the typed path.
MOST_REQUIRED = 32
_INT64_MAX = 2**63 - 1
_Budget = Annotated[int, msgspec.Meta(ge=0, le=_INT64_MAX)]
_QUOTE = ord('"')
# Each text a step's expected partition and result are made of, past the IDs.
_PACKED, _AVAILABLE, _DROPPED, _SHUT = b'{"packed":[', b'],"available":[', b'],"dropped":[', b"]}"
_KEPT = b'{"kept":['
_WORDS = _PACKED + _AVAILABLE + _DROPPED + _SHUT + _KEPT
_AT = np.cumsum([0, len(_PACKED), len(_AVAILABLE), len(_DROPPED), len(_SHUT)])
_OPENERS = np.array(_AT[:3])
_OPENER_LENGTHS = np.array([len(_PACKED), len(_AVAILABLE), len(_DROPPED)])
_MIDDLE = b'],"remaining":%d,"missing":['

_OPENING = int.from_bytes(b'{"id":"', "little")
_SIZE_KEY = int.from_bytes(b',"size":', "little")
_NEXT = int.from_bytes(b"},", "little")
_LAST = int.from_bytes(b"}]", "little")


class Lean(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A run record as ``pack --record`` writes it under the default rule, its blocks,
    partition and result kept as text."""

    budget: _Budget
    blocks: msgspec.Raw
    required: list[str]
    partition: msgspec.Raw
    #: Absent (empty) or ``null``: no text the recorder writes for a result.
    result: msgspec.Raw = msgspec.field(default_factory=msgspec.Raw)
    step: int | str | msgspec.UnsetType = msgspec.UNSET
    id: int | str | msgspec.UnsetType = msgspec.UNSET


class _Blocks:
    """The blocks of a chunk's steps read from their texts (``[{"id":"…","size":…},…]``,
    compact): per step whether it is such a text (:attr:`right`) and its count of
    blocks; per block its size and where its ID's text (quotes included) starts and
    ends in :attr:`text`.  A step whose text is not of that form counts no block."""

    def __init__(self, raw: list[msgspec.Raw]) -> None:
        steps = len(raw)
        lengths = np.fromiter(map(len, raw), np.int64, steps)
        ends = np.cumsum(lengths)
        starts = ends - lengths
        # Padding past the end: a step cut short is read there, never past.
        self.padded = padded = b"".join([*raw, PAD])
        size = len(padded) - len(PAD)
        self.text = text = np.frombuffer(padded, np.uint8)
        quotes = np.flatnonzero(text == _QUOTE)
        per_step = np.diff(np.searchsorted(quotes, np.append(starts, size)))
        # Six quotes a block (two keys, one ID): a step with any other count is no such
        # text; one with none is ``[]``, the only JSON array of two bytes.  (The first
        # block's ``{`` is checked with its key.)
        right = (per_step % 6 == 0) & (text[starts] == ord("["))
        right &= (per_step > 0) | (lengths == 2)
        counts = np.where(right, per_step // 6, 0)
        six = (quotes if right.all() else quotes[np.repeat(right, per_step)]).reshape(-1, 6)
        # A block's first quote, and its ID's two (the others are checked with the keys).
        opening, id_open, id_close = six[:, 0].copy(), six[:, 2].copy(), six[:, 3].copy()
        self.step_of = step_of = np.repeat(np.arange(steps), counts)
        self.offsets = offsets = np.zeros(steps + 1, np.int64)
        np.cumsum(counts, out=offsets[1:])
        many = len(step_of)
        following = np.ones(many, np.bool_)
        last = offsets[1:][counts > 0] - 1
        following[last] = False
        # Where each size's digits end: at the ``}`` before the next block's ``,{"``,
        # or before the text's closing ``}]``.
        close = np.empty(many, np.int64)
        close[:-1] = opening[1:] - 3
        close[last] = ends[step_of[last]] - 2
        close = np.clip(close, 0, size)
        words = words_of(padded)
        # The bytes from a block's ``{`` to its ID, and from the ID's closing quote to
        # the size's digits, are fixed; so are the quotes between them.
        digits = id_close + 9
        widths = close - digits
        good = (
            ((words[np.maximum(opening - 1, 0)] & LOW[7]) == _OPENING)
            & (words[id_close + 1] == _SIZE_KEY)
            & (widths >= 1)
            & (widths <= 18)  # below 10**18: int64, with no check of the value
            & ((words[close] & LOW[2]) == np.where(following, _NEXT, _LAST))
            & (id_close - id_open - 1 <= KEY_BYTES)
        )
        firsts = offsets[:-1][counts > 0]
        good[firsts] &= opening[firsts] == starts[counts > 0] + 2
        sizes, digits_good = word_sizes(text, words, digits, np.where(good, widths, 1))
        good &= digits_good
        sizes[~good] = 1  # any valid size: the step is not right anyway
        self.right = right & (np.bincount(step_of[~good], minlength=steps) == 0)
        self.counts = counts
        self.sizes = sizes
        self.id_start = id_open
        self.words = words
        self.id_length = id_close - id_open - 1


class TextChunk(Losses):
    """The records of a chunk judged by their text: :attr:`right` per record, and for
    the right ones what each left out and lost (:class:`Losses`)."""

    def __init__(self, records: list[Lean]) -> None:
        steps = len(records)
        blocks = _Blocks(list(map(BLOCKS, records)))
        right = blocks.right
        budgets = np.fromiter(map(BUDGET, records), np.int64, steps)
        kept, remaining = pack_batch(budgets, blocks.sizes, blocks.offsets)
        step_of = blocks.step_of
        bucket = np.where(kept, 0, np.where(blocks.sizes <= budgets[step_of], 1, 2)).astype(np.int8)
        group = step_of * 3 + bucket
        order = np.argsort(group, kind="stable")
        in_group = np.bincount(group, minlength=3 * steps)
        sorted_group = group[order]
        # An ID is copied with its quotes, and with the ``,`` after them unless it
        # ends its list.
        ends_list = np.ones(len(order), np.bool_)
        ends_list[:-1] = sorted_group[:-1] != sorted_group[1:]
        id_start = blocks.id_start[order]
        id_length = blocks.id_length[order] + 2 + ~ends_list

        required = list(map(REQUIRED, records))
        wanted = list(chain.from_iterable(required))
        wanted_counts = np.fromiter(map(len, required), np.int64, steps)
        wanted_step = np.repeat(np.arange(steps), wanted_counts)
        wanted_length = np.fromiter(map(len, wanted), np.int64, len(wanted))
        # Each required ID with its quotes and a ``,``: one after another.
        wanted_text = ('"' + '","'.join(wanted) + '",').encode() if wanted else b""
        wanted_start = np.cumsum(wanted_length + 3) - (wanted_length + 3)
        right &= np.bincount(wanted_step[wanted_length > KEY_BYTES], minlength=steps) == 0
        longest = max(
            int(np.clip(blocks.id_length, 0, KEY_BYTES).max(initial=0)),
            int(np.clip(wanted_length, 0, KEY_BYTES).max(initial=0)),
            1,
        )
        width = -(-longest // 8) * 8
        wanted_keys = word_keys(words_of(wanted_text + PAD), wanted_start + 1, wanted_length, width)
        right &= wanted_counts <= MOST_REQUIRED
        best = _best(blocks, bucket, width, wanted_keys, wanted_step, wanted_counts)
        # Missing IDs are listed in the order of their bytes (ASCII: UTF-16's order),
        # a key's first byte first: its words read big-endian.
        missing = np.flatnonzero(best != 0)
        ranked = wanted_keys[:, missing].byteswap()
        missing = missing[np.lexsort((*ranked[::-1], wanted_step[missing]))]
        missing_counts = np.bincount(wanted_step[missing], minlength=steps)
        ends_missing = np.ones(len(missing), np.bool_)
        ends_missing[:-1] = wanted_step[missing][:-1] != wanted_step[missing][1:]

        middles = list(map(_MIDDLE.__mod__, remaining.tolist()))
        middle_length = np.fromiter(map(len, middles), np.int64, steps)
        words = len(blocks.padded) - len(PAD)
        middle_at = words + len(_WORDS)
        wanted_at = middle_at + int(middle_length.sum())
        source = words_of(
            blocks.padded[: -len(PAD)] + _WORDS + b"".join(middles) + wanted_text + PAD
        )

        # The partitions: per step its three lists, each opened by its words.
        pieces = len(order) + 4 * steps
        start = np.empty(pieces, np.int64)
        length = np.empty(pieces, np.int64)
        groups = np.arange(3 * steps)
        opener = np.cumsum(in_group) - in_group + groups + groups // 3
        closer = opener[2::3] + in_group[2::3] + 1
        at = np.arange(len(order)) + sorted_group + sorted_group // 3 + 1
        start[at], length[at] = id_start, id_length
        start[opener] = words + _OPENERS[groups % 3]
        length[opener] = _OPENER_LENGTHS[groups % 3]
        start[closer], length[closer] = words + _AT[3], len(_SHUT)
        read = right.tolist()  # every case it could read: its verdict is sure
        right &= same_text(source, start, length, opener[0::3], list(map(PARTITION, records)))

        # The results: ``kept`` (the packed IDs again), ``remaining`` and ``missing``.
        packed = in_group[0::3]
        per_step = packed + missing_counts + 3
        pieces = int(per_step.sum())
        first = np.cumsum(per_step) - per_step
        start = np.empty(pieces, np.int64)
        length = np.empty(pieces, np.int64)
        start[first], length[first] = words + _AT[4], len(_KEPT)
        kept_ids = sorted_group % 3 == 0
        rank = np.arange(len(order)) - (np.cumsum(in_group) - in_group)[sorted_group]
        at = first[sorted_group[kept_ids] // 3] + 1 + rank[kept_ids]
        start[at], length[at] = id_start[kept_ids], id_length[kept_ids]
        at = first + 1 + packed
        start[at] = middle_at + np.cumsum(middle_length) - middle_length
        length[at] = middle_length
        step = wanted_step[missing]
        rank = np.arange(len(missing)) - (np.cumsum(missing_counts) - missing_counts)[step]
        at = first[step] + 2 + packed[step] + rank
        start[at] = wanted_at + wanted_start[missing]
        length[at] = wanted_length[missing] + 2 + ~ends_missing
        at = first + per_step - 1
        start[at], length[at] = words + _AT[3], len(_SHUT)
        right &= same_text(source, start, length, first, list(map(RESULT, records)))

        wanted_codes, distinct = _codes(wanted, missing)
        self._judged(
            right,
            blocks.counts != packed,
            missing,
            wanted_step,
            wanted_codes,
            best,
            distinct,
            read,
        )


def _codes(
    wanted: list[str], entries: npt.NDArray[np.intp]
) -> tuple[npt.NDArray[np.intp], list[str]]:
    """The required IDs at ``entries`` of ``wanted`` each a code (the others 0), the
    distinct ones in the order first met."""
    named = list(map(wanted.__getitem__, entries.tolist()))
    distinct = list(dict.fromkeys(named))
    code_of = dict(zip(distinct, range(len(distinct)), strict=True))
    codes = np.zeros(len(wanted), np.intp)
    codes[entries] = np.fromiter(map(code_of.__getitem__, named), np.intp, len(named))
    return codes, distinct


def _best(
    blocks: _Blocks,
    bucket: npt.NDArray[np.int8],
    width: int,
    wanted_keys: npt.NDArray[np.uint64],
    wanted_step: npt.NDArray[np.int64],
    wanted_counts: npt.NDArray[np.int64],
) -> npt.NDArray[np.int8]:
    """Per required entry, the best bucket a block of its ID reached in its step (0
    packed, 1 available, 2 dropped, 3 none): the ``j``-th required ID of every step
    against all that step's blocks at once, for each ``j``.  O(blocks x the most
    required IDs of a step), at most :data:`MOST_REQUIRED` of them."""
    best = np.full(len(wanted_step), 3, np.int8)
    some = blocks.counts > 0
    if not len(blocks.step_of) or not len(wanted_step):
        return best
    block_keys = word_keys(blocks.words, blocks.id_start + 1, blocks.id_length, width)
    first = np.cumsum(wanted_counts) - wanted_counts
    for j in range(min(int(wanted_counts.max()), MOST_REQUIRED)):
        has = np.flatnonzero(wanted_counts > j)
        same = np.ones(len(blocks.step_of), np.bool_)
        for block_word, wanted_word in zip(block_keys, wanted_keys, strict=True):
            # A step without a j-th ID: its blocks compared with any key, unread.
            key = np.zeros(len(wanted_counts), np.uint64)
            key[has] = wanted_word[first[has] + j]
            same &= block_word == key[blocks.step_of]
        cell = np.where(same, bucket, np.int8(3))
        found = np.full(len(wanted_counts), 3, np.int8)
        found[some] = np.minimum.reduceat(cell, blocks.offsets[:-1][some])
        best[first[has] + j] = found[has]
    return best
