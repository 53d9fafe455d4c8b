"""Steps checked in batches: the audit of a chunk of lines near the cost of reading them.

A line with exactly the shape ``packcheck pack --record`` writes under the default
rule, in ASCII with no escape, is decoded into typed structures (:class:`_Record`),
answered by the batch kernel and compared in bulk (:mod:`._bulk`).  A step that
differs, and any other line, goes to :meth:`Audit.check_line`, so the report is that
path's byte for byte (docs/performance.md, "Audit near its floor").  Memory is bounded
by :data:`CHUNK` lines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import Annotated, Any

import msgspec

from .._rule.jsonio import dumps
from ._bulk import Chunk
from ._check import Audit
from ._report import StepAt, Violation

#: Lines checked at a time: the batch kernel's arrays and the decoded records of this
#: many steps are all that is held.
CHUNK = 256
_INT64_MAX = 2**63 - 1
_Budget = Annotated[int, msgspec.Meta(ge=0, le=_INT64_MAX)]
_Size = Annotated[int, msgspec.Meta(ge=1, le=_INT64_MAX)]


class _Block(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    id: str
    size: _Size


class _Result(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    kept: msgspec.Raw
    remaining: _Budget
    missing: list[str]


class _Record(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """A run record as ``pack --record`` writes it under the default rule."""

    budget: _Budget
    blocks: list[_Block]
    required: list[str]
    partition: msgspec.Raw
    result: _Result | None = None
    step: int | str | msgspec.UnsetType = msgspec.UNSET
    id: int | str | msgspec.UnsetType = msgspec.UNSET


_decode = msgspec.json.Decoder(_Record).decode


def _read(line: bytes) -> _Record | None:
    """The record on ``line`` when it has the batch's shape, else ``None``."""
    if not line.isascii() or b"\\" in line:
        return None
    try:
        return _decode(line)
    except msgspec.MsgspecError:
        return None


def _label(record: _Record) -> Any:
    """The step's label as the per-step path keeps it (``step``, else ``id``)."""
    label = record.step if record.step is not msgspec.UNSET else record.id
    if label is msgspec.UNSET:
        return None
    # A long string is kept by its JSON, cut: memory stays flat.
    return label if isinstance(label, int) or len(label) <= 200 else dumps(label)[:200]


def check_chunk(
    audit: Audit, lines: Sequence[tuple[int, bytes]], file: str | None
) -> Iterator[Violation]:
    """The violations on ``lines`` (each its 1-based number and its bytes) as
    :meth:`Audit.check_line` gives them, one line after another, and the audit's counts
    and lost IDs as it leaves them."""
    records = [_read(line) for _, line in lines] if audit.rule is None else []
    batched = [record for record in records if record is not None]
    if not batched:
        for number, line in lines:
            yield from audit.check_line(line, number, file)
        return
    chunk = Chunk(batched)
    right = iter(chunk.right)
    good = [record is not None and next(right) for record in records]
    steps = [record for record, ok in zip(records, good, strict=True) if ok and record]
    numbers = [number for (number, _), ok in zip(lines, good, strict=True) if ok]
    done = ahead = 0  # good steps counted, and met
    for (number, line), ok in zip(lines, good, strict=True):
        if ok:
            ahead += 1
            continue
        _add(audit, chunk, steps, numbers, file, done, ahead)
        done = ahead
        yield from audit.check_line(line, number, file)
    _add(audit, chunk, steps, numbers, file, done, ahead)


def _add(
    audit: Audit,
    chunk: Chunk,
    steps: list[_Record],
    numbers: list[int],
    file: str | None,
    start: int,
    stop: int,
) -> None:
    """The good steps ``start`` to ``stop`` (in line order) counted, as correct steps,
    and their losses tallied in the order the per-step path meets them."""
    if start == stop:
        return
    audit.steps += stop - start
    audit.correct += stop - start
    audit.left_out += chunk.left_out(start, stop)

    def shown(ordinals: list[int]) -> list[StepAt]:
        if file is None:
            return [(numbers[at], _label(steps[at])) for at in ordinals]
        return [(numbers[at], _label(steps[at]), file) for at in ordinals]

    for block_id, reasons, ordinals in chunk.losses(start, stop):
        audit.add_losses(block_id, reasons, partial(_first, shown, ordinals))


def _first(
    shown: Callable[[list[int]], list[StepAt]], ordinals: list[int], room: int
) -> list[StepAt]:
    return shown(ordinals[:room])
