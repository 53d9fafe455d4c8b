"""Steps checked in batches: the audit of a chunk of lines near the cost of reading them.

A line whose record has exactly the shape ``packcheck pack --record`` writes under the
default rule (``budget``, ``blocks`` of ``id`` and ``size``, ``required``,
``partition``, and ``result`` when recorded; ``step`` or ``id`` as its label; nothing
else), in ASCII with no escape, is decoded straight into typed structures
(:class:`_Record`).  The rule's answer for the whole chunk comes from the batch kernel
(:func:`packcheck._engines.levels.pack_batch`), and the recorded partitions and results
are compared with it in bulk: the IDs of every step's bucket back to back, and each
step's count.  A step that differs, and any other line (another shape, a unit that is
not valid, a ``rule`` key, non-ASCII or an escape, not JSON), is checked by
:meth:`Audit.check_line`, the per-step path, which writes its messages: the report is
the one that path gives, byte for byte.

Why such a step needs no round trip: every value in it is an integer of int64 or an
ASCII string without escapes, which packcheck writes back as text that reads again as
the same values.  Memory is bounded by the chunk (:data:`CHUNK` lines).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import chain, compress
from operator import attrgetter
from typing import Annotated

import msgspec
import numpy as np

from .._engines.levels import pack_batch
from .._partition.trace import Reason, reasons
from ._check import Audit
from ._report import Violation

#: Lines checked at a time: the batch kernel's arrays and the decoded records of this
#: many steps are all that is held.
CHUNK = 1024
_INT64_MAX = 2**63 - 1
_Budget = Annotated[int, msgspec.Meta(ge=0, le=_INT64_MAX)]
_Size = Annotated[int, msgspec.Meta(ge=1, le=_INT64_MAX)]


class _Block(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: str
    size: _Size


class _Partition(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    packed: list[str]
    available: list[str]
    dropped: list[str]


class _Result(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    kept: list[str]
    remaining: int
    missing: list[str]


class _Record(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A run record as ``pack --record`` writes it under the default rule."""

    budget: _Budget
    blocks: list[_Block]
    required: list[str]
    partition: _Partition
    result: _Result | None = None
    step: int | str | msgspec.UnsetType = msgspec.UNSET
    id: int | str | msgspec.UnsetType = msgspec.UNSET


_decode = msgspec.json.Decoder(_Record).decode
_BLOCKS = attrgetter("blocks")
_ID = attrgetter("id")
_SIZE = attrgetter("size")
_PARTITION = attrgetter("partition")
_PACKED = attrgetter("packed")
_AVAILABLE = attrgetter("available")
_DROPPED = attrgetter("dropped")


def _read(line: bytes) -> _Record | None:
    """The record on ``line`` when it has the batch's shape, else ``None``."""
    if not line.isascii() or b"\\" in line:
        return None
    try:
        record = _decode(line)
    except msgspec.MsgspecError:
        return None
    return record


def _label(record: _Record) -> int | str | None:
    label = record.step if record.step is not msgspec.UNSET else record.id
    return None if label is msgspec.UNSET else label


def _split(flat: list[str], counts: Sequence[int]) -> list[list[str]]:
    out = []
    at = 0
    for count in counts:
        out.append(flat[at : at + count])
        at += count
    return out


def _same_lists(recorded: list[list[str]], expected: list[str], counts: list[int]) -> list[bool]:
    """Per step, whether its recorded list is the expected one: all at once when the
    lists back to back and every count agree (then each step's agrees), else step by step."""
    if list(map(len, recorded)) == counts and list(chain.from_iterable(recorded)) == expected:
        return [True] * len(counts)
    return [mine == theirs for mine, theirs in zip(recorded, _split(expected, counts), strict=True)]


def check_chunk(
    audit: Audit, lines: Sequence[tuple[int, bytes]], file: str | None
) -> Iterator[Violation]:
    """The violations on ``lines`` (each its 1-based number and its bytes) as
    :meth:`Audit.check_line` gives them, one line after another, and the audit's counts
    and lost IDs as it leaves them."""
    records = [_read(line) if audit.rule is None else None for _, line in lines]
    batched = [record for record in records if record is not None]
    verdicts = iter(_expected(batched) if batched else ())
    for (number, line), record in zip(lines, records, strict=True):
        expected = None if record is None else next(verdicts)
        if expected is None:
            yield from audit.check_line(line, number, file)
            continue
        left_out, why = expected
        audit.steps += 1
        audit.correct += 1
        audit._tally(left_out, why, (number, file), _label(record))


def _expected(
    records: list[_Record],
) -> list[tuple[bool, dict[str, Reason]] | None]:
    """Per record: ``None`` if the per-step path must judge it, else whether it left a
    block out and why each missing ID is missing (its recorded answer being right)."""
    blocks = list(map(_BLOCKS, records))
    counts = list(map(len, blocks))
    flat = list(chain.from_iterable(blocks))
    ids = list(map(_ID, flat))
    sizes = np.fromiter(map(_SIZE, flat), np.int64, len(flat))
    budgets = np.fromiter(map(attrgetter("budget"), records), np.int64, len(records))
    offsets = np.zeros(len(records) + 1, np.intp)
    np.cumsum(counts, out=offsets[1:])
    kept, remaining = pack_batch(budgets, sizes, offsets)
    fits = sizes <= np.repeat(budgets, counts)
    skipped = ~kept
    available = skipped & fits
    dropped = skipped & ~fits
    step_of = np.repeat(np.arange(len(records)), counts)
    packed_ids = list(compress(ids, kept.view(np.uint8).tobytes()))
    available_ids = list(compress(ids, available.view(np.uint8).tobytes()))
    dropped_ids = list(compress(ids, dropped.view(np.uint8).tobytes()))
    packed_counts = np.bincount(step_of[kept], minlength=len(records)).tolist()
    available_counts = np.bincount(step_of[available], minlength=len(records)).tolist()
    dropped_counts = np.bincount(step_of[dropped], minlength=len(records)).tolist()
    partitions = list(map(_PARTITION, records))
    right = _same_lists(list(map(_PACKED, partitions)), packed_ids, packed_counts)
    for bucket, expected, bucket_counts in (
        (_AVAILABLE, available_ids, available_counts),
        (_DROPPED, dropped_ids, dropped_counts),
    ):
        right = [
            a and b
            for a, b in zip(
                right,
                _same_lists(list(map(bucket, partitions)), expected, bucket_counts),
                strict=True,
            )
        ]
    remainders = remaining.tolist()
    packed_per_step = _split(packed_ids, packed_counts)
    available_per_step = _split(available_ids, available_counts)
    dropped_per_step = _split(dropped_ids, dropped_counts)
    out: list[tuple[bool, dict[str, Reason]] | None] = []
    for index, record in enumerate(records):
        if not right[index]:
            out.append(None)
            continue
        packed = packed_per_step[index]
        kept_ids = set(packed)
        missing = sorted(wanted for wanted in record.required if wanted not in kept_ids)
        result = record.result
        if result is not None and (
            result.kept != packed
            or result.remaining != remainders[index]
            or result.missing != missing
        ):
            out.append(None)
            continue
        left_out = counts[index] != len(packed)
        out.append((left_out, reasons(missing, available_per_step[index], dropped_per_step[index])))
    return out
