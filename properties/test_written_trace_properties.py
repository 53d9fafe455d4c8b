"""``pack --trace`` and ``pack --record`` write, line for line, what the walk per block
writes.

Under the default rule the record is built from the kernel's kept mask
(:mod:`packcheck._partition.mask`), and so is the trace of a case that is not plain or
is long; a plain case's trace is read, packed and traced in one loop over its blocks
(:mod:`packcheck._partition.trace_text`).  The oracle here is the walk per block,
:func:`packcheck.trace`: its trace as
:func:`write_json` writes it, and the record the case plus its partition and result.
They are compared on the rule's awkward inputs (invalid units, size errors, repeated
IDs, required IDs no block has, integers past int64 and past the 4,300-digit guard,
IDs above U+FFFF, lone surrogates, IDs that need escapes, extra keys) and on malformed
ones (which must raise alike), with the NumPy kernel's byte mask as well as the
reference's flags, and with the steps written in small pieces; then whole files
through the command line, malformed lines among them.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any
from unittest import mock

from hypothesis import example, given
from hypothesis import strategies as st

from packcheck import MalformedCase, trace
from packcheck._cli import main
from packcheck._engines.choice import Engine
from packcheck._partition import trace_text
from packcheck._partition.facts import partition_json
from packcheck._partition.trace_text import trace_json
from packcheck._rule.jsonio import dumps, loads, write_json
from packcheck.audit import record_step
from packcheck.strategies import block_lists, budgets, cases

ENGINES: tuple[Engine, ...] = ("reference", "numpy")


def _walked_trace(case: object) -> str:
    """The trace the walk per block gives, as ``pack --trace`` writes it."""
    return write_json(trace(case).to_json())


def _walked_record(case: dict[str, Any]) -> str:
    """The run record the walk per block gives, as ``pack --record`` writes it."""
    walked = trace(case)
    return write_json(
        {**case, "partition": partition_json(walked.partition), "result": walked.result}
    )


def _outcome(write: Callable[[], str]) -> tuple[str, str]:
    """What ``write`` gives: its text, or the one line of the :class:`MalformedCase` it
    raises."""
    try:
        return "text", write()
    except MalformedCase as exc:
        return "malformed", str(exc)


def _same_trace(case: object, engine: Engine, at_once: int) -> None:
    with mock.patch.object(trace_text, "STEPS_AT_ONCE", at_once):
        written = _outcome(lambda: "".join(trace_json(case, engine=engine)))
    assert written == _outcome(lambda: _walked_trace(case))


def _same_record(case: Any, engine: Engine) -> None:
    written = _outcome(lambda: write_json(record_step(case, engine=engine)))
    assert written == _outcome(lambda: _walked_record(case))


# Few IDs, all plain ASCII: msgspec's text is kept, and repeats are common.
_PLAIN_IDS = st.sampled_from(["A", "B", "C", "D", "b10", "x y"])
_plain_cases = st.fixed_dictionaries(
    {
        "budget": budgets(max_value=2**70),
        "blocks": block_lists(ids=_PLAIN_IDS, max_units=2**70),
        "required": st.lists(st.sampled_from(["A", "B", "C", "E", "absent"]), max_size=6),
    }
)
# Small units, so that a skipped block's size often equals the budget beside one larger.
_small_cases = st.fixed_dictionaries(
    {
        "budget": st.integers(0, 7),
        "blocks": block_lists(ids=_PLAIN_IDS, max_units=8),
        "required": st.lists(st.sampled_from(["A", "B", "absent"]), max_size=3),
    }
)
# Integers past CPython's 4,300-digit guard: the exact writer's numbers.
_huge_cases = cases(max_blocks=6, max_units=10**4400)
_MALFORMED: tuple[tuple[str, object], ...] = (
    ("case", ["not", "a", "case"]),
    ("blocks", "A"),
    ("block", 3),
    ("id", 5),
    ("id", None),
    ("required", "A"),
    ("required", [1]),
)


@st.composite
def awkward_cases(draw: st.DrawFn) -> object:
    """A case of :func:`packcheck.strategies.cases` (invalid units a third of the time,
    IDs from every awkward range), of plain ASCII IDs, or past the digit guard; with
    extra keys sometimes, or made malformed in one place."""
    case: dict[str, Any] = draw(
        st.one_of(
            cases(max_units=2**70),
            _plain_cases,
            _small_cases,
            _huge_cases,
            cases(max_units=10**30),
        )
    )
    kind = draw(st.integers(0, 9))
    if kind == 0:
        # A recording system's own keys, and a partition or result of its own: kept
        # where they stand, the captured ones written over them.
        case = {"step": 7, "partition": None, **case, "result": "old", "attempt": "\u00e9"}
    elif kind == 1:
        where, value = draw(st.sampled_from(_MALFORMED))
        if where == "case":
            return value
        if where in ("blocks", "required"):
            case[where] = value
        elif case["blocks"]:
            index = draw(st.integers(0, len(case["blocks"]) - 1))
            if where == "block":
                case["blocks"][index] = value
            else:
                case["blocks"][index] = {**case["blocks"][index], "id": value}
    return case


REPEATED = {
    "budget": 3,
    "blocks": [{"id": "A", "size": 4}, {"id": "B", "size": 3}, {"id": "A", "size": 1}],
    "required": ["A", "B", "C", "A"],
}
ASTRAL = {
    "budget": 2**64,
    "blocks": [{"id": "\U0001f600", "size": 2**63}, {"id": "\uff00", "size": 2**64}],
    "required": ["\ud800", "\uff00", "\U0001f600"],
}
# B is skipped at exactly the budget (available), C is larger than it (dropped).
AT_THE_BUDGET = {
    "budget": 5,
    "blocks": [{"id": "A", "size": 1}, {"id": "B", "size": 5}, {"id": "C", "size": 6}],
    "required": ["B", "C"],
}
HUGE = {"budget": 10**4400, "blocks": [{"id": "A", "size": 10**4399}], "required": ["B"]}


@example(REPEATED, "reference", 1)
@example(REPEATED, "numpy", 2)
@example(AT_THE_BUDGET, "reference", 10_000)
@example(ASTRAL, "numpy", 1)
@example(HUGE, "reference", 10_000)
@example({"budget": 0, "blocks": [], "required": []}, "reference", 1)
@example({"budget": 1.5, "blocks": [{"id": "A", "size": 1}], "required": []}, "reference", 1)
@given(awkward_cases(), st.sampled_from(ENGINES), st.sampled_from([1, 2, 3, 10_000]))
def test_the_trace_written_from_the_mask_is_the_walked_trace(
    case: object, engine: Engine, at_once: int
) -> None:
    _same_trace(case, engine, at_once)


@example(REPEATED, "reference")
@example(ASTRAL, "numpy")
@example(AT_THE_BUDGET, "numpy")
@example(HUGE, "numpy")
@example({"budget": 3, "blocks": [{"id": "A", "size": 0}], "required": []}, "reference")
@given(awkward_cases(), st.sampled_from(ENGINES))
def test_the_record_captured_from_the_mask_is_the_walked_record(case: Any, engine: Engine) -> None:
    _same_record(case, engine)


# Lines that are no case: not JSON, truncated, not an object, bytes that are not UTF-8.
_BAD_LINES = st.sampled_from(
    [b"NaN", b'{"budget": 7,', b"[1, 2]", b'"case"', b"\xff\xfe", b"{}", b'{"budget":1e400}']
)
_FIRST = {
    "budget": 7,
    "blocks": [{"id": "A", "size": 4}, {"id": "B", "size": 9}],
    "required": ["B"],
}


def _line(case: object) -> bytes:
    # dumps writes NaN and Infinity as the bare words, which no reader takes: bad lines too.
    return dumps(case).encode()


@contextmanager
def _in_empty_directory() -> Iterator[Path]:
    """A fresh directory as the working one: no pyproject.toml declares a rule there."""
    before = Path.cwd()
    with TemporaryDirectory() as folder:
        os.chdir(folder)
        try:
            yield Path(folder)
        finally:
            os.chdir(before)


def _run(*argv: str) -> tuple[int, list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue().splitlines(), err.getvalue()


def _expected_lines(
    plain: list[str], raw: list[bytes], walked: Callable[[dict[str, Any]], str]
) -> list[str]:
    """Plain ``pack``'s output with each answered case's line replaced by the walk's."""
    expected = []
    for answer, line in zip(plain, raw, strict=True):
        answered = loads(answer)
        if isinstance(answered, dict) and answered.get("error") == "input":
            expected.append(answer)
        else:
            expected.append(walked(loads(line.decode())))
    return expected


@given(
    st.lists(st.one_of(awkward_cases().map(_line), _BAD_LINES), max_size=12),
    st.sampled_from(ENGINES),
)
def test_pack_trace_and_record_write_the_walked_lines_and_report_what_plain_pack_reports(
    lines: list[bytes], engine: Engine
) -> None:
    raw = [_line(_FIRST), *lines]
    with _in_empty_directory() as folder:
        (folder / "cases.jsonl").write_bytes(b"\n".join(raw) + b"\n")
        status, plain, err = _run("pack", "--engine", engine, "cases.jsonl")
        traced = _run("pack", "--trace", "--engine", engine, "cases.jsonl")
        recorded = _run("pack", "--record", "--engine", engine, "cases.jsonl")
    assert traced == (status, _expected_lines(plain, raw, _walked_trace), err)
    assert recorded == (status, _expected_lines(plain, raw, _walked_record), err)
