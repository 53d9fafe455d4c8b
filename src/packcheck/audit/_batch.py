"""Steps checked in batches: the audit of a chunk of lines near the cost of reading them.

A line ``packcheck pack --record`` wrote under the default rule is judged by its text
(:mod:`._canonical`); one of that shape written otherwise, in ASCII with no escape, is
decoded into typed structures (:class:`_Record`), answered by the batch kernel and
compared in bulk (:mod:`._bulk`).  A step neither vouches for, and any other line, goes
to :meth:`Audit.check_line`, so the report is that path's byte for byte; the chunk's
losses, that path's included, are tallied at once in line order (docs/performance.md,
"Audit near its floor").  Memory is bounded by :data:`CHUNK` lines.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from itertools import compress
from operator import methodcaller
from typing import Annotated, Any

import msgspec
import numpy as np
import numpy.typing as npt

from .._rule.jsonio import dumps
from ._bulk import CELLS, Chunk, Losses, tally
from ._canonical import Lean, TextChunk
from ._check import Audit, HeldLosses
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


def check_chunk(
    audit: Audit, lines: Sequence[tuple[int, bytes]], file: str | None
) -> Iterator[Violation]:
    """The violations on ``lines`` (each its 1-based number and its bytes) as
    :meth:`Audit.check_line` gives them, one line after another, and the audit's counts
    and lost IDs as it leaves them.

    A line is judged by its text first (:class:`TextChunk`), else by its typed record
    (:class:`Chunk`), else by the per-step path, which checks only the lines neither
    vouches for; the chunk's losses are then tallied at once, in line order.  While
    the rule is to be read from the run (:attr:`Audit.unsettled`), line by line."""
    settled = 0
    while audit.unsettled and settled < len(lines):
        number, line = lines[settled]
        settled += 1
        yield from audit.check_line(line, number, file)
    lines = lines[settled:]
    if audit.rule is not None:
        for number, line in lines:
            yield from audit.check_line(line, number, file)
        return
    lean = _leans([line for _, line in lines])
    if None in lean:
        where = [at for at, record in enumerate(lean) if record is not None]
        text = _Judge(TextChunk, [lean[at] for at in where], where)
    else:
        text = _Judge(TextChunk, lean, list(range(len(lean))))
    judges = [text]
    vouched = np.zeros(len(lines), np.bool_)
    vouched[text.lines] = True
    if not vouched.all():
        # A step whose case the text path read, and found wrong, is wrong on every path:
        # the per-step path says why.
        read = vouched.copy()
        read[text.read] = True
        typed = [(at, _read(lines[at][1])) for at in np.flatnonzero(~read).tolist()]
        typed = [(at, record) for at, record in typed if record is not None]
        judges.append(_Judge(Chunk, [record for _, record in typed], [at for at, _ in typed]))
        vouched[judges[1].lines] = True
    held: dict[int, list[HeldLosses]] = {}
    for at in np.flatnonzero(~vouched).tolist():
        number, line = lines[at]
        held[at] = []
        yield from audit.check_held(line, number, file, held[at])
    _tally(audit, judges, held, lines, file)


class _Judge:
    """A judge's verdict (:class:`TextChunk` or :class:`Chunk`) on ``records``, those at
    the line indexes ``where`` of a chunk: :attr:`lines`, the line indexes of the records
    it found right (:attr:`records`), and :attr:`read`, of those whose case it read."""

    def __init__(
        self, judge: Callable[[list[Any]], Losses], records: list[Any], where: list[int]
    ) -> None:
        self.verdict = judge(records) if records else None
        self.lines, self.records, self.read = where, records, where
        if self.verdict is not None and not all(self.verdict.right):
            right = self.verdict.right
            self.lines = list(compress(where, right))
            self.records = list(compress(records, right))
            self.read = list(compress(where, self.verdict.read))

    def record(self, at: int) -> Any:
        """The record it found right at line index ``at``, or ``None``."""
        found = bisect_left(self.lines, at)
        return self.records[found] if self.lines[found : found + 1] == [at] else None


def _tally(
    audit: Audit,
    judges: list[_Judge],
    held: dict[int, list[HeldLosses]],
    lines: Sequence[tuple[int, bytes]],
    file: str | None,
) -> None:
    """The steps the ``judges`` found right counted as correct, and every loss of the
    chunk, theirs and those ``held`` by the per-step path (by line index), tallied in
    the order the per-step path meets them."""
    ids: dict[str, int] = {}
    steps: list[npt.NDArray[np.intp]] = []
    codes: list[npt.NDArray[np.intp]] = []
    cells: list[npt.NDArray[np.intp]] = []
    for judge in judges:
        if judge.verdict is None:
            continue
        good = len(judge.lines)
        audit.steps += good
        audit.correct += good
        audit.left_out += judge.verdict.left_out(0, good)
        step, code, cell = judge.verdict.entries()
        steps.append(np.array(judge.lines, np.intp)[step])
        remap = [ids.setdefault(block_id, len(ids)) for block_id in judge.verdict.ids]
        codes.append(np.array(remap, np.intp)[code] if len(code) else code)
        cells.append(cell)
    shown: dict[int, StepAt] = {}
    for at, losses in held.items():
        for reasons, step_at in losses:
            shown[at] = step_at
            steps.append(np.full(len(reasons), at, np.intp))
            codes.append(np.array([ids.setdefault(i, len(ids)) for i in reasons], np.intp))
            cells.append(np.array([CELLS[reason] for reason in reasons.values()], np.intp))
    if not steps:
        return
    where = np.concatenate(steps)
    order = np.argsort(where, kind="stable")
    for block_id, counted, first in tally(
        where[order], np.concatenate(codes)[order], np.concatenate(cells)[order], list(ids)
    ):
        audit.add_losses(block_id, counted, partial(_shown, judges, shown, lines, file, first))


def _shown(
    judges: list[_Judge],
    shown: dict[int, StepAt],
    lines: Sequence[tuple[int, bytes]],
    file: str | None,
    first: list[int],
    room: int,
) -> list[StepAt]:
    """The steps at the first ``room`` line indexes of ``first`` as a lost ID names them."""
    named: list[StepAt] = []
    for at in first[:room]:
        if at in shown:
            named.append(shown[at])
            continue
        record = next(r for r in map(methodcaller("record", at), judges) if r is not None)
        number = lines[at][0]
        named.append((number, _label(record)) if file is None else (number, _label(record), file))
    return named
