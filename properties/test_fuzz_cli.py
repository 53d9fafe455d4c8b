"""Hostile input, fuzzed: the case reader and ``packcheck pack`` never fail unexpectedly.

Whatever the bytes: no traceback, exit status 0 or 2, every non-blank JSON Lines line
answered by exactly one output line in input order, and every declared output passes
the invariants (``sum(kept sizes) + remaining == budget``, ``remaining >= 0``,
``missing`` in UTF-16 order).  Inputs are built as raw JSON *text*, so literals the
standard encoder cannot write (``NaN``, ``1e400``, 5,000-digit integers, exponents
beyond Decimal, lone surrogate escapes, duplicate keys) are in reach.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Iterator

from hypothesis import example, given
from hypothesis import strategies as st

from packcheck import MalformedCase, pack, read_case, trace, utf16_key
from packcheck._cli import main
from packcheck._partition.invariants import check_output, check_trace
from packcheck._rule.jsonio import JSONError, loads

NUMBERS = st.one_of(
    st.integers(min_value=-3, max_value=12).map(str),
    st.integers().map(str),
    st.decimals(allow_nan=False, allow_infinity=False).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(
        [
            "4.0",
            "4.0000000000000000001",
            "-0",
            "-0.0",
            "1e400",
            "1E+2",
            "0e999999999999999999999",
            "1e-999999999999999999999",
            "1e999999999999999999999",
            "NaN",
            "Infinity",
            "-Infinity",
            "9" * 5000,
            "1" * 100_001,
        ]
    ),
)
IDS = st.one_of(
    st.sampled_from(["A", "B", "C", "", "\U0001f600", "\uff00"]),
    st.text(max_size=4),
).map(json.dumps) | st.sampled_from(['"\\ud800"', '"\\udfff"', '"\\ud83d"'])
SCALARS = NUMBERS | IDS | st.sampled_from(["null", "true", "false"])
KEYS = st.sampled_from(["budget", "blocks", "required", "id", "size"]).map(json.dumps) | IDS


def _array(items: list[str]) -> str:
    return "[" + ",".join(items) + "]"


def _object(pairs: list[tuple[str, str]]) -> str:
    return "{" + ",".join(f"{key}:{value}" for key, value in pairs) + "}"


VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4).map(_array)
        | st.lists(st.tuples(KEYS, inner), max_size=4).map(_object)
    ),
    max_leaves=12,
)
UNITS = st.integers(min_value=0, max_value=12).map(str) | NUMBERS | VALUES


@st.composite
def case_texts(draw: st.DrawFn) -> str:
    """One case as compact JSON text on one line: mostly well-formed, sometimes not."""
    blocks = []
    for _ in range(draw(st.integers(0, 6))):
        pairs = [('"id"', draw(IDS | VALUES if draw(st.integers(0, 9)) == 0 else IDS))]
        if draw(st.integers(0, 19)):
            pairs.append(('"size"', draw(UNITS)))
        pairs += draw(st.lists(st.tuples(KEYS, VALUES), max_size=1))  # extra or duplicate keys
        blocks.append(_object(draw(st.permutations(pairs))))
    pairs = [
        ('"budget"', draw(UNITS)),
        ('"blocks"', _array(blocks)),
        ('"required"', _array(draw(st.lists(IDS, max_size=4)))),
    ]
    pairs = [pair for pair in pairs if draw(st.integers(0, 19))]  # sometimes drop a key
    pairs += draw(st.lists(st.tuples(KEYS, VALUES), max_size=1))
    return _object(draw(st.permutations(pairs)))


JUNK = st.one_of(
    VALUES,
    st.text(max_size=20).filter(lambda t: "\n" not in t),
    st.sampled_from(["{", "[", "{}}", '{"budget": 1,', "\ufeff{}", "\x00"]),
)
JUNK_BYTES = st.binary(max_size=20).filter(lambda b: b"\n" not in b)
LINES = st.lists(
    st.one_of(case_texts().map(str.encode), JUNK.map(str.encode), JUNK_BYTES, st.just(b"")),
    max_size=6,
)


@contextlib.contextmanager
def cli_io(data: bytes) -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """Standard input ``data``; captured standard output and error."""
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(data))
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            yield out, err
    finally:
        sys.stdin = saved


def check_answer(line: bytes, answer: object) -> None:
    """One answer against its input line: an input error, or the case's declared output."""
    try:
        case = loads(line.decode("utf-8"))
        read_case(case)
    except (UnicodeDecodeError, JSONError, MalformedCase):
        assert isinstance(answer, dict)
        assert sorted(answer) == ["detail", "error"]
        assert answer["error"] == "input"
        return
    check_output(case, answer)
    assert isinstance(answer, dict)
    if "kept" in answer:
        # The basic invariants, spelled out here as well as in check_output.
        remaining, missing = answer["remaining"], answer["missing"]
        assert type(remaining) is int
        assert remaining >= 0
        assert missing == sorted(missing, key=utf16_key)
        packed = [s for s in trace(case).steps if s.bucket == "packed"]
        assert [s.id for s in packed] == answer["kept"]
        assert sum(s.size for s in packed) + remaining == read_case(case).budget  # type: ignore[union-attr]


@given(first=case_texts(), rest=LINES, crlf=st.booleans(), bom=st.booleans())
@example(first='{"budget":1,"blocks":[],"required":[]}', rest=[b"[]", b""], crlf=False, bom=False)
@example(first='{"budget":1e999999999999999999999}', rest=[], crlf=True, bom=True)
@example(
    first='{"budget":2.5,"blocks":[],"required":[]}', rest=[b"{", b"\xff"], crlf=False, bom=False
)
def test_every_json_lines_line_is_answered_once_in_order(
    first: str, rest: list[bytes], crlf: bool, bom: bool
) -> None:
    # The first line is one complete object, so the input is JSON Lines.
    lines = [first.encode(), *rest]
    data = (b"\xef\xbb\xbf" if bom else b"") + (b"\r\n" if crlf else b"\n").join(lines)
    with cli_io(data) as (out, err):
        status = main(["pack", "-"])
    answers = [loads(text) for text in out.getvalue().splitlines()]
    given_lines = [(n, line) for n, line in enumerate(lines, start=1) if line.strip()]
    assert len(answers) == len(given_lines)
    errors = [a for a in answers if isinstance(a, dict) and a.get("error") == "input"]
    assert status == (2 if errors else 0)
    assert len(err.getvalue().splitlines()) == len(errors)
    for (number, line), answer in zip(given_lines, answers, strict=True):
        if answer in errors:
            assert answer["detail"].startswith(f"line {number}: ")
        check_answer(line, answer)


@given(
    data=st.binary(max_size=200) | LINES.map(b"\n".join),
    engine=st.sampled_from(["reference", "numpy"]),
)
@example(data=b"\n\n", engine="reference")
@example(data=b"Case,", engine="reference")
@example(data=b" [ ]\n", engine="reference")
@example(data=b"[\n1,\n", engine="reference")
@example(data=b'[{"input": {"budget": 2.5}, "expected": 1}]', engine="numpy")
def test_any_bytes_get_one_line_answers_and_status_0_or_2(data: bytes, engine: str) -> None:
    for command in (["pack"], ["pack", "--trace"], ["pack", "--explain"], ["fixtures"]):
        with cli_io(data) as (out, err):
            status = main([*command, "--engine", engine, "-"])
        assert status in ((0, 1, 2) if command == ["fixtures"] else (0, 2))
        for line in err.getvalue().splitlines():
            assert line.startswith(f"packcheck {command[0]}: error: ")
        if command[-1] in ("pack", "--trace"):
            for text in out.getvalue().splitlines():
                loads(text)  # every output line is one JSON value
        if not data.strip(b" \t\r\n\x0b\x0c") or data == b"\xef\xbb\xbf":
            assert status == 2
        elif command == ["pack"]:
            # Something was answered, or the whole input was refused in one line, or
            # it is an empty fixture array (no cases at all).
            assert out.getvalue() or err.getvalue() or _is_empty_array(data)


def _is_empty_array(data: bytes) -> bool:
    try:
        return bool(loads(data.removeprefix(b"\xef\xbb\xbf").decode()) == [])
    except (UnicodeDecodeError, JSONError):
        return False


def _refusal(text: str) -> str | None:
    """Why packcheck refuses ``text`` as a case (one message), or None if it reads it."""
    try:
        read_case(loads(text))
    except (JSONError, MalformedCase) as exc:
        return str(exc)
    return None


@given(text=case_texts() | VALUES)
@example(text='{"budget":0e999999999999999999999,"blocks":[],"required":[]}')
def test_the_case_reader_reads_or_refuses_in_one_line(text: str) -> None:
    why = _refusal(text)
    if why is not None:
        assert "\n" not in why
        assert why
        return
    case = loads(text)
    for engine in ("reference", "numpy"):
        check_output(case, pack(case, engine=engine))  # type: ignore[arg-type]
        check_trace(case, trace(case, engine=engine))  # type: ignore[arg-type]
