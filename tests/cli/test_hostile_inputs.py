"""Hostile input, by name: every one is answered or refused in one line, never a traceback.

Each test runs ``packcheck pack`` in-process and checks the exit status (0 or 2), the
answers line by line, and that a malformed case never stops the cases after it.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from packcheck._cli import main
from packcheck._rule.jsonio import loads
from packcheck._rule.units import MAX_DIGITS

OK_CASE = (
    b'{"budget":7,"blocks":[{"id":"A","size":4},{"id":"B","size":3},{"id":"C","size":2}],'
    b'"required":["B","C"]}'
)
OK_ANSWER = {"kept": ["A", "B"], "remaining": 0, "missing": ["C"]}


def pack_bytes(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], data: bytes, *args: str
) -> tuple[int, list[Any], list[str]]:
    """Run ``packcheck pack [args] -`` on ``data``: status, parsed answers, stderr lines."""
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    status = main(["pack", *args, "-"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    # packcheck's own reader: json.loads refuses integers of more than 4300 digits.
    return status, [loads(line) for line in out.splitlines()], err.splitlines()


def input_error(answer: Any, detail: str) -> bool:
    return (
        answer == {"error": "input", "detail": answer.get("detail")} and detail in answer["detail"]
    )


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    return lambda data, *args: pack_bytes(monkeypatch, capsys, data, *args)


@pytest.mark.parametrize(
    "literal", [b"NaN", b"Infinity", b"-Infinity", b"[NaN]", b'{"x": Infinity}']
)
@pytest.mark.parametrize("field", [b"budget", b"note"])
def test_nan_and_infinity_are_malformed_anywhere(run: Any, literal: bytes, field: bytes) -> None:
    bad = b'{"%s": %s, "blocks": [], "required": []}' % (field, literal)
    status, answers, err = run(OK_CASE + b"\n" + bad + b"\n" + OK_CASE + b"\n")
    assert status == 2
    assert answers[0] == answers[2] == OK_ANSWER
    assert input_error(answers[1], "line 2: ")
    assert "is not valid JSON" in answers[1]["detail"]
    assert err == [f"packcheck pack: error: <stdin>: {answers[1]['detail']}"]


def test_200000_deep_nesting_is_malformed(run: Any) -> None:
    deep = (
        b'{"budget": 1, "blocks": [], "required": [], "x": '
        + b"[" * 200_000
        + b"]" * 200_000
        + b"}"
    )
    status, answers, _ = run(deep + b"\n" + OK_CASE + b"\n")
    assert status == 2
    assert answers[0] == {"error": "input", "detail": "line 1: invalid JSON: nesting too deep"}
    assert answers[1] == OK_ANSWER


def test_integers_of_5000_digits_are_exact(run: Any) -> None:
    budget = 10**5000 + 12345
    size = 10**4999 + 1
    text = (
        f'{{"budget": 1{"0" * 4995}12345, "blocks": [{{"id": "A", "size": 1{"0" * 4998}1}},'
        f' {{"id": "B", "size": {"9" * 5001}}}], "required": ["B"]}}'
    )
    status, answers, _ = run(text.encode())
    assert status == 0
    assert answers == [{"kept": ["A"], "remaining": budget - size, "missing": ["B"]}]


def test_a_number_past_the_digit_limit_is_malformed(run: Any) -> None:
    text = b'{"budget": %s, "blocks": [], "required": []}' % (b"1" * (MAX_DIGITS + 1))
    status, answers, _ = run(text + b"\n" + OK_CASE)
    assert status == 2
    assert answers[0]["detail"] == "line 1: number has 100001 digits; the limit is 100000"
    assert answers[1] == OK_ANSWER


def test_1e400_is_an_integer_and_huge_exponents_are_refused(run: Any) -> None:
    data = (
        b'{"budget": 1e400, "blocks": [{"id": "A", "size": 1.0e399}], "required": []}\n'
        b'{"budget": 1e999999999999999999999, "blocks": [], "required": []}\n'
        b'{"budget": 0e999999999999999999999, "blocks": [], "required": []}\n'
        b'{"budget": 1, "blocks": [{"id": "A", "size": 1e-999999999999999999999}],'
        b' "required": []}\n'
    )
    status, answers, _ = run(data)
    assert status == 2
    assert answers[0] == {"kept": ["A"], "remaining": 9 * 10**399, "missing": []}
    assert "exponent out of range" in answers[1]["detail"]
    assert answers[2] == {"kept": [], "remaining": 0, "missing": []}
    # A tiny fraction is still a number, and no integer: the size is invalid.
    assert answers[3] == {"error": "size"}


def test_bytes_that_are_not_utf8(run: Any) -> None:
    data = b'{"budget": 1, "blocks": [{"id": "\xc0\xaf", "size": 1}], "required": []}\n' + OK_CASE
    status, answers, err = run(data)
    assert status == 2
    assert answers[0]["detail"] == "line 1: not UTF-8: byte 0xc0 at offset 33"
    assert answers[1] == OK_ANSWER
    assert err == ["packcheck pack: error: <stdin>: line 1: not UTF-8: byte 0xc0 at offset 33"]


def test_a_byte_order_mark_and_crlf_line_ends(run: Any) -> None:
    status, answers, _ = run(b"\xef\xbb\xbf" + OK_CASE + b"\r\n\r\n" + OK_CASE + b"\r\n")
    assert (status, answers) == (0, [OK_ANSWER, OK_ANSWER])


def test_a_byte_order_mark_after_the_start_is_malformed(run: Any) -> None:
    status, answers, _ = run(OK_CASE + b"\n\xef\xbb\xbf" + OK_CASE)
    assert status == 2
    assert answers[1]["detail"].startswith("line 2: invalid JSON: Expecting value")


def test_duplicate_keys_keep_the_last_like_json_parse(run: Any) -> None:
    # JavaScript's JSON.parse, which the declared evaluator uses, keeps the last value.
    data = (
        b'{"budget": -1, "budget": 5, "blocks": [{"id": "A", "size": 9, "size": 2, "id": "Z"}],'
        b' "required": ["Z"]}'
    )
    status, answers, _ = run(data)
    assert (status, answers) == (0, [{"kept": ["Z"], "remaining": 3, "missing": []}])


def test_lone_surrogates_survive_input_to_output(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    data = (
        b'{"budget": 1, "blocks": [{"id": "\\ud800", "size": 1}],'
        b' "required": ["\\udfff", "\\ud800x"]}'
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["pack"]) == 0
    assert capsys.readouterr().out == (
        '{"kept":["\\ud800"],"remaining":0,"missing":["\\ud800x","\\udfff"]}\n'
    )


def test_a_100_mb_line_within_a_raised_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big_id = "x" * 100_000_000
    path = tmp_path / "big.jsonl"
    with path.open("w") as out:
        out.write('{"budget": 1, "blocks": [{"id": "')
        out.write(big_id)
        out.write('", "size": 1}], "required": ["y"]}\n{"budget": ')
        out.write("9" * 100)  # and a second, truncated line that is 100 bytes of number
        out.write("\n")
    status = main(["pack", "--max-line-bytes", "128M", str(path)])
    out_text, err = capsys.readouterr()
    first, second = out_text.splitlines()
    assert status == 2
    assert first == '{"kept":["' + big_id + '"],"remaining":0,"missing":["y"]}'
    assert json.loads(second)["detail"].startswith("line 2: invalid JSON: Expecting")
    assert err.count("\n") == 1


def test_an_empty_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    assert main(["pack", str(empty)]) == 2
    assert capsys.readouterr() == (
        "",
        f"packcheck pack: error: {empty}: no cases in input (it is empty)\n",
    )


def test_a_missing_file_and_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pack", str(tmp_path / "nope.json")]) == 2
    assert main(["pack", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        f"packcheck pack: error: {tmp_path / 'nope.json'}: cannot read: No such file or directory",
        f"packcheck pack: error: {tmp_path}: cannot read: Is a directory",
    ]


def test_a_pretty_printed_single_case(run: Any) -> None:
    pretty = json.dumps(json.loads(OK_CASE), indent=2).encode()
    assert run(pretty) == (0, [OK_ANSWER], [])


def test_a_fixture_array_with_a_bad_element(run: Any) -> None:
    data = (
        b'[\n {"id": "ok", "input": %s},\n "not a fixture",\n {"id": "bad", "input": []}\n]'
        % OK_CASE
    )
    status, answers, err = run(data)
    assert status == 2
    assert answers == [
        OK_ANSWER,
        {"error": "input", "detail": "case 2: expected a fixture object, got string"},
        {"error": "input", "detail": "case 3 (bad): case: expected an object, got array"},
    ]
    assert len(err) == 2


def test_a_csv_with_missing_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    table = tmp_path / "cases.csv"
    table.write_text('Case,Supplied input\nx,"{}"\n')
    assert main(["pack", str(table)]) == 2
    assert capsys.readouterr() == (
        "",
        f"packcheck pack: error: {table}: CSV table lacks the column(s) 'Expected "
        "structured output'\n",
    )


@pytest.mark.parametrize(
    ("line", "detail"),
    [
        (b"[]", "case: expected an object, got array"),
        (b'"case"', "case: expected an object, got string"),
        (b"7", "case: expected an object, got number"),
        (b"null", "case: expected an object, got null"),
        (
            b'{"budget": 1, "blocks": [null], "required": []}',
            "blocks[0]: expected an object, got null",
        ),
        (
            b'{"budget": 1, "blocks": [], "required": [1]}',
            "required[0]: expected a string, got number",
        ),
        (b"{}}", "invalid JSON: Extra data at column 3"),
        (b"\x00", "invalid JSON: Expecting value at column 1"),
    ],
)
def test_not_a_case_after_a_good_line(run: Any, line: bytes, detail: str) -> None:
    status, answers, _ = run(OK_CASE + b"\n" + line + b"\n" + OK_CASE)
    assert status == 2
    assert answers == [OK_ANSWER, {"error": "input", "detail": f"line 2: {detail}"}, OK_ANSWER]


def test_a_first_line_that_is_an_array_does_not_swallow_the_rest(run: Any) -> None:
    status, answers, _ = run(b"[]\n" + OK_CASE + b"\n")
    assert status == 2
    assert answers == [
        {"error": "input", "detail": "line 1: case: expected an object, got array"},
        OK_ANSWER,
    ]


def test_size_errors_are_results_not_failures(run: Any) -> None:
    data = b'{"budget": 1, "blocks": [{"id": "A", "size": "1"}], "required": []}\n' + OK_CASE
    assert run(data) == (0, [{"error": "size"}, OK_ANSWER], [])
