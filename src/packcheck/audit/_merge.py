"""Many files audited as one run: in one process, file after file, or in pieces on a
cluster, each piece audited on its own and merged in order (:meth:`Audit.merge`), so
the report is the same either way."""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import closing
from dataclasses import replace
from functools import partial

from .._inputs import (
    PIECE_BYTES,
    READ_ERRORS,
    Piece,
    ReadError,
    Runner,
    piece_lines,
    plan,
    reason,
    whole,
)
from .._rule.declared import Rule
from .._rule.lines import MAX_LINE_BYTES, TooLong, bounded_lines
from ._batch import CHUNK, check_chunk
from ._check import Audit
from ._record import RuleMismatch
from ._report import Violation

#: A piece audited on a worker: its violations, its audit (every lost ID tracked, to
#: merge), the lines it read, and the error that ended it, if any.
PieceAudit = tuple[list[Violation], Audit, int, ReadError | None]


def audit_piece(
    piece: Piece, audit: Audit, several: bool, max_line_bytes: int = MAX_LINE_BYTES
) -> Generator[Violation, None, int]:
    """The violations on the lines of ``piece`` (naming the file if ``several``), checked
    :data:`CHUNK` lines at a time; :class:`ReadError` where it cannot be read, after
    them.  A line past ``max_line_bytes`` is malformed.  Returns the lines read."""
    file = piece.name if several else None
    read = 0
    chunk: list[tuple[int, bytes]] = []
    error = None
    try:
        with piece_lines(piece) as stream:
            for read, line in enumerate(bounded_lines(stream, max_line_bytes), start=1):
                number = piece.first_line + read - 1
                if isinstance(line, TooLong):
                    yield from _named(check_chunk(audit, chunk, file), piece)
                    chunk = []
                    yield audit.refused(number, str(line), file)
                    continue
                chunk.append((number, line))
                if len(chunk) == CHUNK:
                    yield from _named(check_chunk(audit, chunk, file), piece)
                    chunk = []
    except READ_ERRORS as exc:
        error = ReadError(piece.name, reason(exc))
    # The lines read before an error are checked before it is raised.
    yield from _named(check_chunk(audit, chunk, file), piece)
    if error is not None:
        raise error
    return read


def _named(found: Iterator[Violation], piece: Piece) -> Iterator[Violation]:
    """``found``, a :class:`RuleMismatch` from it naming the file of ``piece``."""
    try:
        yield from found
    except RuleMismatch as exc:
        exc.name = piece.name
        raise


def audit_task(
    piece: Piece, several: bool, max_line_bytes: int = MAX_LINE_BYTES, rule: Rule | None = None
) -> PieceAudit:
    """``piece`` audited on its own under ``rule``, wherever it runs (:data:`PieceAudit`)."""
    audit = Audit(max_tracked=None, rule=rule)
    found: list[Violation] = []
    steps = audit_piece(piece, audit, several, max_line_bytes)
    try:
        while True:
            found.append(next(steps))
    except StopIteration as end:
        return found, audit, end.value, None
    except ReadError as exc:
        return found, audit, 0, exc


def audited(
    names: Sequence[str],
    audit: Audit,
    run: Runner | None,
    piece_bytes: int = PIECE_BYTES,
    max_line_bytes: int = MAX_LINE_BYTES,
    unreadable: Callable[[ReadError], None] | None = None,
) -> Generator[Violation, None, None]:
    """Each violation in the files ``names``, in file then line order, as ``audit`` checks
    them; :class:`ReadError` where a file cannot be read.

    ``run`` ``None``: file after file, here.  Else the files are cut into pieces of about
    ``piece_bytes`` (:func:`plan`), each audited by ``run``, line numbers shifted here.
    ``unreadable``, when given, is told of a file that cannot be read (or is cut short)
    after the violations read from it, and the next files are still audited.  A
    :class:`RuleMismatch` ends the audit.
    """
    several = len(names) > 1
    if run is None:
        for name in names:
            try:
                yield from audit_piece(whole(name), audit, several, max_line_bytes)
            except RuleMismatch:
                raise
            except ReadError as exc:
                if unreadable is None:
                    raise
                unreadable(exc)
        return
    if audit.unsettled:
        _settle(audit, names, max_line_bytes)
    planned = [piece for name in names for piece in plan(name, piece_bytes)]
    task = partial(audit_task, several=several, max_line_bytes=max_line_bytes, rule=audit.rule)
    line = 1
    # The file whose rest is skipped: a piece of it could not be read.
    skipped = None
    with closing(run(task, planned)) as results:
        for piece, (found, part, read, error) in zip(planned, results, strict=True):
            if piece.start and piece.path == skipped:
                continue
            line = line if piece.start else 1
            shift = line - piece.first_line
            if shift:
                found = [replace(v, line=v.line + shift) for v in found]
                part.shift(shift)
            yield from found
            audit.merge(part)
            if isinstance(error, RuleMismatch):
                error.line += shift
                raise error
            if error is not None:
                if unreadable is None:
                    raise error
                unreadable(error)
                skipped = piece.path
            line += read


def _settle(audit: Audit, names: Sequence[str], max_line_bytes: int) -> None:
    """Settle the rule of ``audit`` (:attr:`Audit.unsettled`) here, before the pieces
    are audited apart: what it would read from the run's first record.  A file that
    cannot be read, or a rule that cannot, is left to the audit to report."""
    probe = Audit(max_tracked=0, rule_from_run=True)
    for name in names:
        try:
            with piece_lines(whole(name)) as stream:
                for number, line in enumerate(bounded_lines(stream, max_line_bytes), start=1):
                    if not isinstance(line, TooLong):
                        probe.check_line(line, number)
                    if not probe.unsettled:
                        audit.rule, audit.rule_recorded = probe.rule, probe.rule_recorded
                        audit.unsettled = False
                        return
        except READ_ERRORS:
            continue
        except RuleMismatch:
            break
    audit.unsettled = False
