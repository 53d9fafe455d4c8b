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
from typing import Annotated, Any, cast

import msgspec

from .._rule.jsonio import dumps
from ._bulk import Chunk, Losses
from ._canonical import Lean, TextChunk
from ._check import Audit
from ._report import StepAt, Violation

#: Lines checked at a time: the batch kernel's arrays and the decoded records of this
#: many steps are all that is held.
CHUNK = 2048
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
    # Absent when not recorded; ``null`` is no result, and goes the per-step path.
    result: _Result | msgspec.UnsetType = msgspec.UNSET
    step: int | str | msgspec.UnsetType = msgspec.UNSET
    id: int | str | msgspec.UnsetType = msgspec.UNSET


_decode = msgspec.json.Decoder(_Record).decode
_decode_lean = msgspec.json.Decoder(Lean).decode


def _read(line: bytes) -> _Record | None:
    """The record on ``line`` when it has the batch's shape, else ``None``."""
    if not line.isascii() or b"\\" in line:
        return None
    try:
        return _decode(line)
    except msgspec.MsgspecError:
        return None


def _label(record: _Record | Lean) -> Any:
    """The step's label as the per-step path keeps it (``step``, else ``id``)."""
    label = record.step if record.step is not msgspec.UNSET else record.id
    if label is msgspec.UNSET:
        return None
    # A long string is kept by its JSON, cut: memory stays flat.
    return label if isinstance(label, int) or len(label) <= 200 else dumps(label)[:200]


def _lean(line: bytes) -> Lean | None:
    """The record on ``line``, its blocks, partition and result as text, when it has
    the batch's shape, else ``None``."""
    if not line.isascii() or b"\\" in line or b"\x7f" in line:
        return None
    try:
        return _decode_lean(line)
    except msgspec.MsgspecError:
        return None


def _leans(lines: list[bytes]) -> list[Lean | None]:
    """:func:`_lean` of each line: read one after another in C when the chunk is ASCII
    with no escape, a line that does not read given ``None`` where it stands."""
    whole = b"".join(lines)
    if not (whole.isascii() and b"\\" not in whole and b"\x7f" not in whole):
        return list(map(_lean, lines))
    found: list[Lean | None] = []
    left = iter(lines)
    while True:
        try:
            # Grows line by line: a line that raises was taken from ``left``, and the
            # lines before it were added.
            found.extend(map(_decode_lean, left))
        except msgspec.MsgspecError:
            found.append(None)
        else:
            return found


#: A judge of a chunk's steps, the records it found right, and their line numbers.
_Judged = tuple[Losses, list[Any], list[int]]


def check_chunk(
    audit: Audit, lines: Sequence[tuple[int, bytes]], file: str | None
) -> Iterator[Violation]:
    """The violations on ``lines`` (each its 1-based number and its bytes) as
    :meth:`Audit.check_line` gives them, one line after another, and the audit's counts
    and lost IDs as it leaves them.

    A line is judged by its text first (:class:`TextChunk`), else by its typed record
    (:class:`Chunk`), else by the per-step path."""
    if audit.rule is not None:
        for number, line in lines:
            yield from audit.check_line(line, number, file)
        return
    judges: list[_Judged] = []
    # Per line: the judge that found it right, and its ordinal among that judge's.
    found: list[tuple[int, int] | None] = [None] * len(lines)
    lean = _leans([line for _, line in lines])
    if None not in lean and lean:
        text = TextChunk(cast(list[Lean], lean))
        if all(text.right):  # the whole chunk as the recorder writes it, and right
            _add(audit, (text, lean, [number for number, _ in lines]), file, 0, len(lines))
            return
        _mark(judges, found, lines, list(enumerate(lean)), text)
    else:
        _judge(judges, found, lines, [(at, r) for at, r in enumerate(lean) if r], TextChunk)
    typed = ((at, _read(lines[at][1])) for at in range(len(lines)) if found[at] is None)
    _judge(judges, found, lines, [(at, r) for at, r in typed if r is not None], Chunk)
    run: tuple[int, int, int] | None = None  # a judge's good steps start to stop, met
    for (number, line), judged in zip(lines, found, strict=True):
        if run is not None and judged is not None and judged[0] == run[0]:
            run = (run[0], run[1], judged[1] + 1)
            continue
        if run is not None:
            _add(audit, judges[run[0]], file, run[1], run[2])
        run = None if judged is None else (judged[0], judged[1], judged[1] + 1)
        if judged is None:
            yield from audit.check_line(line, number, file)
    if run is not None:
        _add(audit, judges[run[0]], file, run[1], run[2])


def _judge(
    judges: list[_Judged],
    found: list[tuple[int, int] | None],
    lines: Sequence[tuple[int, bytes]],
    records: list[tuple[int, Any]],
    judge: Callable[[list[Any]], Losses],
) -> None:
    """``records`` (each with its line's index) judged by ``judge``: those it finds
    right are marked in ``found``."""
    if records:
        _mark(judges, found, lines, records, judge([record for _, record in records]))


def _mark(
    judges: list[_Judged],
    found: list[tuple[int, int] | None],
    lines: Sequence[tuple[int, bytes]],
    records: list[tuple[int, Any]],
    verdict: Losses,
) -> None:
    """The ``records`` (each with its line's index) that ``verdict`` finds right marked
    in ``found``, as the good steps of a new judge."""
    good = [(at, record) for (at, record), ok in zip(records, verdict.right, strict=True) if ok]
    for ordinal, (at, _) in enumerate(good):
        found[at] = (len(judges), ordinal)
    judges.append((verdict, [r for _, r in good], [lines[at][0] for at, _ in good]))


def _add(audit: Audit, judged: _Judged, file: str | None, start: int, stop: int) -> None:
    """The good steps ``start`` to ``stop`` of ``judged`` (in line order) counted, as
    correct steps, and their losses tallied in the order the per-step path meets them."""
    chunk, steps, numbers = judged
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
