"""Many files audited as one run: in one process, file after file, or in pieces on a
cluster, each piece audited on its own and merged in order (:meth:`Audit.merge`), so
the report is the same either way."""

from __future__ import annotations

from collections.abc import Generator, Iterator, Sequence
from contextlib import closing
from functools import partial

from ._check import Audit
from ._read import (
    PIECE_BYTES,
    READ_ERRORS,
    Piece,
    ReadError,
    Runner,
    piece_lines,
    pieces,
    reason,
    whole,
)
from ._report import Violation


def audit_piece(piece: Piece, audit: Audit, several: bool) -> Iterator[Violation]:
    """The violations on the lines of ``piece``, as ``audit`` checks them (naming the
    file if ``several``); :class:`ReadError` where it cannot be read, after them."""
    file = piece.name if several else None
    try:
        with piece_lines(piece) as stream:
            for number, line in enumerate(stream, start=piece.first_line):
                yield from audit.check_line(line, number, file)
    except READ_ERRORS as exc:
        raise ReadError(piece.name, reason(exc)) from None


def audit_task(piece: Piece, several: bool) -> tuple[list[Violation], Audit, ReadError | None]:
    """``piece`` audited on its own, wherever it runs: its violations, its audit (every
    lost ID tracked, to merge) and the error that ended it, if any."""
    audit = Audit(max_tracked=None)
    found: list[Violation] = []
    try:
        for violation in audit_piece(piece, audit, several):
            found.append(violation)
    except ReadError as exc:
        return found, audit, exc
    return found, audit, None


def audited(
    names: Sequence[str], audit: Audit, run: Runner | None, piece_bytes: int = PIECE_BYTES
) -> Generator[Violation, None, None]:
    """Each violation in the files ``names``, in file then line order, as ``audit``
    (the whole run's) checks them; :class:`ReadError` where a file cannot be read.

    ``run`` ``None``: file after file, in this process, as they are read.  Else the
    files are cut into pieces of about ``piece_bytes`` and each is audited by ``run``.
    """
    several = len(names) > 1
    if run is None:
        for name in names:
            yield from audit_piece(whole(name), audit, several)
        return
    task = partial(audit_task, several=several)
    with closing(run(task, pieces(names, run, piece_bytes))) as results:
        for found, part, error in results:
            yield from found
            audit.merge(part)
            if error is not None:
                raise error
