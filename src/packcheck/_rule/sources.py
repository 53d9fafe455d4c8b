"""Input files: one JSON case, JSON Lines (streamed), a JSON fixture array, or the
seed's CSV table, each case a :class:`Record` naming its line."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import IO, Any, cast

from .jsonio import JSONError, loads, show_text
from .lines import MAX_LINE_BYTES, TooLong, bounded_lines
from .model import json_type

#: The seed's editable table: case name, input JSON, expected JSON, reason.
CSV_COLUMNS = ("Case", "Supplied input", "Expected structured output", "Decision and reason")
_BOM = b"\xef\xbb\xbf"
_MISSING: Any = object()


class SourceError(Exception):
    """The file as a whole cannot be read (missing, empty, bad CSV header); one line."""


@dataclass(frozen=True, slots=True)
class Record:
    """One case as read, or the ``error`` why it is not; a fixture's ``expected``,
    ``name`` and ``rule`` as read."""

    where: str
    case: Any = None
    error: str | None = None
    name: str | None = None
    expected: Any = None
    has_expected: bool = False
    rule: Any = None


def _decode(raw: bytes, where: str) -> str | Record:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start]
        return Record(where, error=f"not UTF-8: byte 0x{bad:02x} at offset {exc.start}")


def read_records(
    stream: IO[bytes], *, csv_hint: bool = False, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[Record]:
    """Yield the records of ``stream``, detecting its format from its first bytes.

    A first line starting ``Case,`` (or ``csv_hint``) is a CSV table; else JSON Lines,
    but a document spread over lines, or a lone one-line array, is read whole.  Past
    ``max_line_bytes`` a line is a record's error, a table a :class:`SourceError`.
    """
    lines = bounded_lines(stream, max_line_bytes)
    first = next(lines, b"")
    if isinstance(first, bytes) and first.startswith(_BOM):
        first = first[len(_BOM) :]
    number = 1
    while isinstance(first, bytes) and first and not first.strip():
        first = next(lines, b"")
        number += 1
    if not first:
        raise SourceError("no cases in input (it is empty)")
    if isinstance(first, TooLong):
        yield Record(f"line {number}", error=str(first))
        yield from _numbered(lines, number + 1)
        return
    head = first.lstrip()
    if not head.startswith(b"[") and (
        csv_hint or head.startswith((b"Case,", b"Case\t", b'"Case"'))
    ):
        yield from _csv_table(first, lines, number - 1, max_line_bytes)
    else:
        yield from _json_lines(first, number, lines, max_line_bytes)


def _line(raw: bytes, number: int) -> Record:
    where = f"line {number}"
    # Without its line end, so a message's column is on this line.
    decoded = _decode(raw.rstrip(b"\r\n"), where)
    if isinstance(decoded, Record):
        return decoded
    try:
        return Record(where, case=loads(decoded))
    except JSONError as exc:
        return Record(where, error=str(exc))


def read_lines(
    stream: IO[bytes], start: int, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[Record]:
    """The records of JSON Lines, numbered from ``start``."""
    return _numbered(bounded_lines(stream, max_line_bytes), start)


def _numbered(lines: Iterable[bytes | TooLong], start: int) -> Iterator[Record]:
    for number, raw in enumerate(lines, start=start):
        if isinstance(raw, TooLong):
            yield Record(f"line {number}", error=str(raw))
        elif raw.strip():
            yield _line(raw, number)


def _gather(lines: Iterator[bytes | TooLong], room: int) -> tuple[list[bytes | TooLong], bool]:
    """The rest of ``lines`` up to the first past ``room`` bytes, and whether that was all."""
    taken: list[bytes | TooLong] = []
    for line in lines:
        taken.append(line)
        if isinstance(line, TooLong) or (room := room - len(line)) < 0:
            return taken, False
    return taken, True


def _json_lines(
    first: bytes, number: int, lines: Iterator[bytes | TooLong], limit: int
) -> Iterator[Record]:
    where = f"line {number}"
    text = _decode(first.rstrip(b"\r\n"), where)
    if isinstance(text, Record):
        yield text
        yield from _numbered(lines, number + 1)
        return
    try:
        value = loads(text)
    except JSONError as exc:
        record = Record(where, error=str(exc))
        if exc.truncated:
            # Perhaps one document spread over lines: try the whole input, if it is
            # within the limit.
            rest, complete = _gather(lines, limit - len(first))
            whole = (
                _whole(first + b"".join(cast(list[bytes], rest)))
                if complete
                else str(TooLong(limit))
            )
            if not isinstance(whole, str):
                yield from whole
                return
            record = Record(where, error=f"{exc}; read whole: {whole}")
            lines = chain(rest, lines)
        yield record
        yield from _numbered(lines, number + 1)
        return
    if isinstance(value, list):
        # One line holding an array: the whole fixture file, unless more lines follow.
        after = number + 1
        later = next(lines, b"")
        while isinstance(later, bytes) and later and not later.strip():
            later = next(lines, b"")
            after += 1
        if not later:
            yield from _fixtures(value, where)
            return
        yield Record(where, case=value)
        yield from _numbered(chain([later], lines), after)
        return
    yield Record(where, case=value)
    yield from _numbered(lines, number + 1)


def _whole(data: bytes) -> list[Record] | str:
    """The records of one document spread over lines, or why it is not one."""
    text = _decode(data, "input")
    if isinstance(text, Record):
        return str(text.error)
    try:
        value = loads(text)
    except JSONError as exc:
        return str(exc)
    # Only a container can span lines: '{' is one case, '[' an array of fixtures.
    if isinstance(value, list):
        return list(_fixtures(value, "input"))
    return [Record("case 1", case=value)]


def _fixture(value: Any, where: str) -> Record:
    if not isinstance(value, dict):
        return Record(where, error=f"expected a fixture object, got {json_type(value)}")
    name = value.get("id")
    if name is not None and not isinstance(name, str):
        return Record(where, error=f"id: expected a string, got {json_type(name)}")
    where = f"{where} ({show_text(name)})" if name is not None else where
    if "input" not in value:
        return Record(where, error="fixture has no 'input'")
    expected = value.get("expected", _MISSING)
    return Record(
        where,
        case=value["input"],
        name=name,
        expected=None if expected is _MISSING else expected,
        has_expected=expected is not _MISSING,
        rule=value.get("rule"),
    )


def _fixtures(values: list[Any], where: str) -> Iterator[Record]:
    if not values:
        # Neither a case nor a fixture to check: answered as an input error, so an
        # input of just "[]" does not pass as zero cases with status 0.
        yield Record(where, error="expected a case or an array of fixtures, got an empty array")
    for number, value in enumerate(values, start=1):
        yield _fixture(value, f"case {number}")


def _csv_table(
    first: bytes, lines: Iterator[bytes | TooLong], skipped: int, limit: int
) -> Iterator[Record]:
    rest, complete = _gather(lines, limit - len(first))
    if not complete:
        raise SourceError(f"CSV table {TooLong(limit)}")
    text = _decode(first + b"".join(cast(list[bytes], rest)), "CSV table")
    if isinstance(text, Record):
        yield text
        return
    header = text.splitlines()[0] if text else ""
    delimiter = "\t" if "\t" in header else ","
    rows = csv.reader(io.StringIO(text), delimiter=delimiter)
    columns = next(rows, [])
    absent = [column for column in CSV_COLUMNS[:3] if column not in columns]
    if absent:
        raise SourceError(f"CSV table lacks the column(s) {', '.join(map(repr, absent))}")
    try:
        # A record is numbered from its first line: a quoted cell may span several.
        start = rows.line_num + 1
        for cells in rows:
            where = f"line {start + skipped}"
            start = rows.line_num + 1
            if any(cell.strip() for cell in cells[: len(columns)]):
                yield _csv_row(dict(zip(columns, cells, strict=False)), where)
    except csv.Error as exc:
        raise SourceError(f"CSV line {rows.line_num + skipped}: {exc}") from None


def _csv_row(row: dict[str, Any], where: str) -> Record:
    name = (row.get("Case") or "").strip() or None
    if name is not None:
        where = f"{where} ({show_text(name)})"
    parsed: list[Any] = []
    for column in CSV_COLUMNS[1:3]:
        try:
            parsed.append(loads(row.get(column) or ""))
        except JSONError as exc:
            return Record(where, error=f"{column}: {exc}")
    return Record(where, case=parsed[0], name=name, expected=parsed[1], has_expected=True)
