"""Input files: one JSON case, JSON Lines, a JSON fixture array, or the seed's CSV table.

Each case becomes a :class:`Record` saying where it came from, so every answer and
every error can name its line.  JSON Lines are streamed: a record is yielded as soon
as its line is read, so memory stays flat and output starts before the input ends.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from ._jsonio import JSONError, loads
from ._model import json_type

__all__ = ["CSV_COLUMNS", "Record", "SourceError", "read_records"]

#: The seed's editable table: case name, input JSON, expected JSON, reason.
CSV_COLUMNS = ("Case", "Supplied input", "Expected structured output", "Decision and reason")
_BOM = b"\xef\xbb\xbf"
_MISSING: Any = object()


class SourceError(Exception):
    """The file as a whole cannot be read (missing, empty, bad CSV header); one line."""


@dataclass(frozen=True, slots=True)
class Record:
    """One case as read: ``case`` is the parsed value, or ``error`` says why it is not.

    ``expected`` is set for fixture records (``has_expected``); ``name`` is the
    fixture's id, when it has one.
    """

    where: str
    case: Any = None
    error: str | None = None
    name: str | None = None
    expected: Any = None
    has_expected: bool = False


def _decode(raw: bytes, where: str) -> str | Record:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = raw[exc.start]
        return Record(where, error=f"not UTF-8: byte 0x{bad:02x} at offset {exc.start}")


def _parse(text: str, where: str) -> Record:
    try:
        return Record(where, case=loads(text))
    except JSONError as exc:
        return Record(where, error=str(exc))


def read_records(stream: IO[bytes], *, csv_hint: bool = False) -> Iterator[Record]:
    """Yield the records of ``stream``, detecting its format from its first bytes.

    ``[`` starts a fixture array, a first line starting ``Case,`` (or ``csv_hint``)
    a CSV table, and anything else JSON Lines; a single case pretty-printed over
    several lines is read whole.  Blank lines are ignored; a UTF-8 byte-order mark
    and CRLF line ends are accepted.  Raises :class:`SourceError` for an empty input
    or a CSV table without the seed's columns.
    """
    first = stream.readline()
    if first.startswith(_BOM):
        first = first[len(_BOM) :]
    while first and not first.strip():
        first = stream.readline()
    if not first:
        raise SourceError("no cases in input (it is empty)")
    head = first.lstrip()
    if head.startswith(b"["):
        yield from _fixture_array(first + stream.read())
    elif csv_hint or head.startswith((b"Case,", b"Case\t", b'"Case"')):
        yield from _csv_table(first + stream.read())
    else:
        yield from _json_lines(first, stream)


def _json_lines(first: bytes, stream: IO[bytes]) -> Iterator[Record]:
    text = _decode(first, "line 1")
    if isinstance(text, str):
        record = _parse(text, "line 1")
        if record.error is not None and text.lstrip().startswith("{"):
            # Not a line of JSON on its own: perhaps one case spread over lines.
            rest = stream.read()
            whole = _decode(first + rest, "case 1")
            if isinstance(whole, str):
                single = _parse(whole, "case 1")
                if single.error is None:
                    yield single
                    return
            stream = io.BytesIO(rest)
        yield record
    else:
        yield text
    for number, raw in enumerate(stream, start=2):
        if not raw.strip():
            continue
        where = f"line {number}"
        decoded = _decode(raw, where)
        yield decoded if isinstance(decoded, Record) else _parse(decoded, where)


def _fixture(value: Any, where: str) -> Record:
    if not isinstance(value, dict):
        return Record(where, error=f"expected a fixture object, got {json_type(value)}")
    name = value.get("id")
    if name is not None and not isinstance(name, str):
        return Record(where, error=f"id: expected a string, got {json_type(name)}")
    where = f"{where} ({name})" if name is not None else where
    if "input" not in value:
        return Record(where, error="fixture has no 'input'")
    expected = value.get("expected", _MISSING)
    return Record(
        where,
        case=value["input"],
        name=name,
        expected=None if expected is _MISSING else expected,
        has_expected=expected is not _MISSING,
    )


def _fixture_array(data: bytes) -> Iterator[Record]:
    text = _decode(data, "fixture array")
    if isinstance(text, Record):
        yield text
        return
    try:
        fixtures = loads(text)
    except JSONError as exc:
        yield Record("fixture array", error=str(exc))
        return
    if not isinstance(fixtures, list):  # pragma: no cover - '[' always parses to a list
        raise SourceError("expected a JSON array of fixtures")
    for number, value in enumerate(fixtures, start=1):
        yield _fixture(value, f"case {number}")


def _csv_table(data: bytes) -> Iterator[Record]:
    text = _decode(data, "CSV table")
    if isinstance(text, Record):
        yield text
        return
    header = text.splitlines()[0] if text else ""
    delimiter = "\t" if "\t" in header else ","
    reader = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    absent = [column for column in CSV_COLUMNS[:3] if column not in (reader.fieldnames or ())]
    if absent:
        raise SourceError(f"CSV table lacks the column(s) {', '.join(map(repr, absent))}")
    try:
        for row in reader:
            where = f"line {reader.line_num}"
            if any(isinstance(cell, str) and cell.strip() for cell in row.values()):
                yield _csv_row(row, where)
    except csv.Error as exc:
        raise SourceError(f"CSV line {reader.line_num}: {exc}") from None


def _csv_row(row: dict[str, Any], where: str) -> Record:
    name = (row.get("Case") or "").strip() or None
    if name is not None:
        where = f"{where} ({name})"
    parsed: list[Any] = []
    for column in CSV_COLUMNS[1:3]:
        try:
            parsed.append(loads(row.get(column) or ""))
        except JSONError as exc:
            return Record(where, error=f"{column}: {exc}")
    return Record(where, case=parsed[0], name=name, expected=parsed[1], has_expected=True)

