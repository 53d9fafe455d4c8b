"""Input files: JSON Lines (streamed), one pretty-printed case, fixture arrays, CSV."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from packcheck._rule.sources import CSV_COLUMNS, Record, SourceError, read_records

FIXTURES = Path(__file__).parents[1] / "fixtures"
CASE = b'{"budget":7,"blocks":[{"id":"A","size":4}],"required":["A"]}'
VALUE = {"budget": 7, "blocks": [{"id": "A", "size": 4}], "required": ["A"]}


def records(data: bytes, *, csv_hint: bool = False) -> list[Record]:
    return list(read_records(io.BytesIO(data), csv_hint=csv_hint))


def summary(data: bytes, **kwargs: Any) -> list[tuple[str, str]]:
    """(where, "ok" or the error) per record."""
    return [(r.where, r.error or "ok") for r in records(data, **kwargs)]


class Feed:
    """A byte stream fed one line at a time, counting the lines handed out."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = iter(lines)
        self.taken = 0

    def readline(self, size: int = -1) -> bytes:  # lines shorter than any size asked
        line = next(self.lines, b"")
        self.taken += bool(line)
        return line

    def read(self) -> bytes:  # pragma: no cover - a streamed reader must never call it
        raise AssertionError("read() slurps the stream")

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.readline, b"")


def test_json_lines_are_streamed_one_record_per_line() -> None:
    feed = Feed([CASE + b"\n", b"\n", b"[1]\n", CASE + b"\n"])
    stream = read_records(feed)  # type: ignore[arg-type]
    first = next(stream)
    assert (first.where, first.case, feed.taken) == ("line 1", VALUE, 1)
    assert next(stream).where == "line 3"
    assert feed.taken == 3
    assert next(stream).where == "line 4"
    assert list(stream) == []


def test_a_one_line_array_first_peeks_one_more_line() -> None:
    # A one-line array is the whole fixture file only when nothing follows it.
    feed = Feed([b"[1]\n", b"\n", CASE + b"\n", CASE + b"\n"])
    stream = read_records(feed)  # type: ignore[arg-type]
    assert (next(stream).where, feed.taken) == ("line 1", 3)
    assert (next(stream).where, feed.taken) == ("line 3", 3)
    assert (next(stream).where, feed.taken) == ("line 4", 4)


def test_a_malformed_first_line_that_is_complete_does_not_slurp() -> None:
    feed = Feed([b'{"budget": NaN}\n', CASE + b"\n"])
    stream = read_records(feed)  # type: ignore[arg-type]
    assert next(stream).error == "NaN is not valid JSON"
    assert feed.taken == 1
    assert next(stream).case == VALUE


def test_blank_lines_are_skipped_but_counted() -> None:
    assert summary(b"\n  \r\n" + CASE + b"\n\n" + CASE) == [("line 3", "ok"), ("line 5", "ok")]


def test_a_byte_order_mark_and_crlf_are_accepted() -> None:
    assert summary(b"\xef\xbb\xbf" + CASE + b"\r\n" + CASE + b"\r\n") == [
        ("line 1", "ok"),
        ("line 2", "ok"),
    ]


def test_a_line_that_is_not_utf8_is_one_error_and_the_rest_are_read() -> None:
    data = b'{"id": "\xff"}\n' + CASE + b"\n\xc3\n"
    assert summary(data) == [
        ("line 1", "not UTF-8: byte 0xff at offset 8"),
        ("line 2", "ok"),
        ("line 3", "not UTF-8: byte 0xc3 at offset 0"),
    ]


def test_bad_json_lines_say_where_on_their_line() -> None:
    assert summary(CASE + b'\n{"a": 1,,}\r\n') == [
        ("line 1", "ok"),
        ("line 2", "invalid JSON: Expecting property name enclosed in double quotes at column 9"),
    ]


def test_a_pretty_printed_case_is_read_whole() -> None:
    data = b'{\n  "budget": 7,\n  "blocks": [{"id": "A", "size": 4}],\n  "required": ["A"]\n}\n'
    (record,) = records(data)
    assert (record.where, record.case, record.error) == ("case 1", VALUE, None)


def test_a_truncated_first_line_that_is_no_document_falls_back_to_lines() -> None:
    data = b'{"budget": 7,\n' + CASE + b"\n"
    assert summary(data) == [
        (
            "line 1",
            "invalid JSON: Expecting property name enclosed in double quotes at column 14; "
            "read whole: invalid JSON: Expecting property name enclosed in double quotes "
            "at line 2 column 1",
        ),
        ("line 2", "ok"),
    ]


def test_a_truncated_first_line_then_bytes_that_are_not_utf8() -> None:
    assert summary(b"[\n\xff\n") == [
        (
            "line 1",
            "invalid JSON: Expecting value at column 2; "
            "read whole: not UTF-8: byte 0xff at offset 2",
        ),
        ("line 2", "not UTF-8: byte 0xff at offset 0"),
    ]


def test_a_fixture_array_over_several_lines() -> None:
    data = (FIXTURES / "seed.json").read_bytes()
    got = records(data)
    assert [(r.where, r.name, r.has_expected) for r in got] == [
        ("case 1 (distractor-first)", "distractor-first", True),
        ("case 2 (skip-large-continue)", "skip-large-continue", True),
        ("case 3 (invalid-size)", "invalid-size", True),
    ]
    assert got[2].expected == {"error": "size"}


def test_a_one_line_fixture_array_with_bad_elements() -> None:
    data = (
        b'[{"input": 1}, 5, {"id": 3, "input": {}}, {"id": "x"}, {"id": "y", "input": {},'
        b' "expected": null}]\n\n'
    )
    got = records(data)
    assert [(r.where, r.error) for r in got] == [
        ("case 1", None),
        ("case 2", "expected a fixture object, got number"),
        ("case 3", "id: expected a string, got number"),
        ("case 4 (x)", "fixture has no 'input'"),
        ("case 5 (y)", None),
    ]
    assert (got[0].case, got[0].has_expected) == (1, False)
    assert (got[4].expected, got[4].has_expected) == (None, True)


def test_a_one_line_array_followed_by_more_lines_is_json_lines() -> None:
    assert summary(b"[]\n\n" + CASE + b"\n") == [("line 1", "ok"), ("line 3", "ok")]
    assert records(b"[]\n" + CASE)[0].case == []


@pytest.mark.parametrize("data", [b"[]", b"[ ]\n\n", b"\xef\xbb\xbf[]\r\n", b"[\n]\n"])
def test_an_empty_array_alone_is_one_error_record(data: bytes) -> None:
    # Neither a case nor any fixture: not zero records (``pack`` printed nothing and
    # exited 0, ``fixtures`` passed "0 of 0").
    ((where, error),) = summary(data)
    assert where in ("line 1", "input")
    assert error == "expected a case or an array of fixtures, got an empty array"


def test_an_empty_input_is_a_source_error() -> None:
    for data in (b"", b"\n \n", b"\xef\xbb\xbf"):
        with pytest.raises(SourceError, match="no cases in input"):
            records(data)


def test_the_seed_csv_table() -> None:
    got = records((FIXTURES / "seed.csv").read_bytes())
    json_got = records((FIXTURES / "seed.json").read_bytes())
    assert [(r.name, r.case, r.expected) for r in got] == [
        (r.name, r.case, r.expected) for r in json_got
    ]
    assert [r.where for r in got] == [
        "line 2 (distractor-first)",
        "line 3 (skip-large-continue)",
        "line 4 (invalid-size)",
    ]


def test_a_tab_separated_table_with_blank_rows_and_no_names() -> None:
    header = "\t".join(CSV_COLUMNS).encode()
    data = b"\n" + header + b"\n\t\t\t\n\t" + CASE + b'\t{"error":"size"}\twhy\n'
    (record,) = records(data)
    assert (record.where, record.name, record.case) == ("line 4", None, VALUE)


def test_a_quoted_header_is_a_table() -> None:
    data = b'"Case","Supplied input","Expected structured output"\nx,1,2\n'
    assert [(r.where, r.case, r.expected) for r in records(data)] == [("line 2 (x)", 1, 2)]


def test_the_csv_hint_reads_a_table_without_the_usual_first_column() -> None:
    data = b"Supplied input,Expected structured output,Case\n1,2,n\n"
    assert [(r.name, r.case) for r in records(data, csv_hint=True)] == [("n", 1)]


def test_a_table_with_a_bad_cell_or_a_short_row() -> None:
    data = b"Case,Supplied input,Expected structured output\na,{,1\nb,1\n"
    assert summary(data) == [
        (
            "line 2 (a)",
            "Supplied input: invalid JSON: Expecting property name enclosed in "
            "double quotes at column 2",
        ),
        ("line 3 (b)", "Expected structured output: invalid JSON: Expecting value at column 1"),
    ]


def test_a_table_without_the_seed_columns_is_a_source_error() -> None:
    with pytest.raises(SourceError, match=r"lacks the column\(s\) 'Expected structured output'$"):
        records(b"Case,Supplied input\na,1\n")
    with pytest.raises(SourceError, match="'Case', 'Supplied input', 'Expected"):
        records(b"x\n", csv_hint=True)


def test_a_table_that_is_not_utf8_or_not_csv() -> None:
    assert summary(b"Case,\xff\n") == [("CSV table", "not UTF-8: byte 0xff at offset 5")]
    head = b"Case,Supplied input,Expected structured output\na,1,2\n"
    huge = head + b"b," + b"1" * 200_000 + b",2\n"
    got = read_records(io.BytesIO(b"\n" + huge))
    assert next(got).where == "line 3 (a)"
    with pytest.raises(SourceError, match=r"^CSV line 4: field larger than field limit"):
        next(got)
