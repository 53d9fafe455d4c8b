"""``packcheck pack`` and ``packcheck fixtures``, run in-process."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _scan_check import PACK_ENGINES
from command_line import run

from packcheck import trace
from packcheck._cli import main
from packcheck._partition import trace_text
from packcheck._rule.jsonio import write_json

FIXTURES = Path(__file__).parents[1] / "fixtures"
SEED = json.loads((FIXTURES / "seed.json").read_text())
LINES = "".join(json.dumps(f["input"]) + "\n" for f in SEED)
ANSWERS = [f["expected"] for f in SEED]


def stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize("engine", PACK_ENGINES)
@pytest.mark.parametrize("name", ["seed.json", "seed.csv"])
def test_pack_answers_the_seed_files(
    capsys: pytest.CaptureFixture[str], engine: str, name: str
) -> None:
    status, out, err = run(capsys, "pack", "--engine", engine, str(FIXTURES / name))
    assert (status, err) == (0, [])
    assert [json.loads(line) for line in out] == ANSWERS
    assert out[0] == '{"kept":["A","B"],"remaining":0,"missing":["C"]}'


def test_pack_reads_json_lines_from_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin(monkeypatch, LINES.encode())
    status, out, _ = run(capsys, "pack")
    assert status == 0
    assert [json.loads(line) for line in out] == ANSWERS


def test_pack_reads_a_csv_by_its_name(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # No 'Case' first column: only the .csv name says it is a table.
    table = tmp_path / "cases.CSV"
    table.write_text('Supplied input,Case,Expected structured output\n"{""budget"":1}",,1\n')
    status, out, err = run(capsys, "pack", str(table))
    assert status == 2
    assert out == [
        '{"error":"input","detail":"line 2: blocks: expected an array of blocks, got absent"}'
    ]
    assert err == [
        f"packcheck pack: error: {table}: line 2: blocks: expected an array of blocks, got absent"
    ]


def test_a_malformed_case_is_answered_and_the_rest_still_are(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = '{"budget": 3, "blocks": [{"id": 7, "size": 1}], "required": []}\n{"budget": NaN}\n'
    stdin(monkeypatch, (LINES + bad + "\n" + LINES).encode())
    status, out, err = run(capsys, "pack")
    assert status == 2
    assert [json.loads(line) for line in out] == [
        *ANSWERS,
        {"error": "input", "detail": "line 4: blocks[0].id: expected a string, got number"},
        {"error": "input", "detail": "line 5: NaN is not valid JSON"},
        *ANSWERS,
    ]
    assert err == [
        "packcheck pack: error: <stdin>: line 4: blocks[0].id: expected a string, got number",
        "packcheck pack: error: <stdin>: line 5: NaN is not valid JSON",
    ]


def test_explain_on_distractor_first(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "pack", "--explain", str(FIXTURES / "seed.json"))
    assert status == 0
    assert out[0] == "case 1 (distractor-first):"
    assert (
        "  missing C: evicted - kept ahead of it: A (4), B (3); they used 7 of 7 units,"
        " leaving 0 when C (size 2) was reached"
    ) in out
    assert "  dropped:   A" in out  # skip-large-continue
    assert "  no packing: blocks[0].size: -1 (number) is not an integer >= 1" in out


def test_explain_as_json_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    # --explain is text; JSON of the same trace is --trace. Plain pack's json is its own.
    status, out, err = run(
        capsys, "pack", "--explain", "--format", "json", str(FIXTURES / "seed.json")
    )
    assert (status, out) == (2, [])
    assert err == [
        "packcheck pack: error: --explain prints a readable trace, not JSON: --trace writes it "
        "as JSON"
    ]
    status, out, _ = run(capsys, "pack", "--format", "json", str(FIXTURES / "seed.json"))
    assert (status, [json.loads(line) for line in out]) == (0, ANSWERS)


def test_explain_heads_a_malformed_line_as_it_heads_every_case(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    good = '{"budget": 1, "blocks": [], "required": []}'
    stdin(
        monkeypatch, f'{good}\nnope\n{{"budget": 1, "blocks": [{{"id": 5, "size": 1}}]}}\n'.encode()
    )
    status, out, err = run(capsys, "pack", "--explain")
    assert status == 2
    heads = [line for line in out if not line.startswith("  ")]
    assert heads == ["line 1:", "line 2:", "line 3:"]
    assert out[out.index("line 2:") + 1 :] == [
        '  result: {"error":"input","detail":"line 2: invalid JSON: Expecting value at column 1"}',
        "line 3:",
        '  result: {"error":"input","detail":"line 3: blocks[0].id: expected a string, '
        'got number"}',
    ]
    assert err == [
        "packcheck pack: error: <stdin>: line 2: invalid JSON: Expecting value at column 1",
        "packcheck pack: error: <stdin>: line 3: blocks[0].id: expected a string, got number",
    ]
    # With several files, each case is headed with its file, a malformed one too.
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(good + "\n")
    second.write_text("nope\n")
    status, out, _ = run(capsys, "pack", "--explain", str(first), str(second))
    assert status == 2
    assert f"{second}: line 1:" in out
    assert out[-1].startswith('  result: {"error":"input","detail":')


@pytest.mark.parametrize("engine", PACK_ENGINES)
def test_trace_prints_one_json_line_per_case(
    capsys: pytest.CaptureFixture[str], engine: str
) -> None:
    status, out, _ = run(capsys, "pack", "--trace", "--engine", engine, str(FIXTURES / "seed.json"))
    assert status == 0
    first, second, third = map(json.loads, out)
    assert first["result"] == ANSWERS[0]
    assert first["partition"] == {"packed": ["A", "B"], "available": ["C"], "dropped": []}
    assert first["reasons"] == {"C": "evicted"}
    assert second["partition"] == {"packed": ["C"], "available": [], "dropped": ["A"]}
    assert third == {
        "result": {"error": "size"},
        "steps": [],
        "partition": {"packed": [], "available": [], "dropped": []},
        "reasons": {},
        "size_error": "blocks[0].size: -1 (number) is not an integer >= 1",
    }


def test_a_long_trace_is_written_in_pieces_as_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two steps a piece: a case of five blocks is written as a long one is.
    monkeypatch.setattr(trace_text, "STEPS_AT_ONCE", 2)
    case = {
        "budget": 6,
        "blocks": [
            {"id": name, "size": size} for name, size in zip("ABCDE", [4, 3, 9, 2, 1], strict=True)
        ],
        "required": ["B", "C", "Z"],
    }
    short = {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []}
    path = tmp_path / "cases.jsonl"
    path.write_text(f"{json.dumps(case)}\n{json.dumps(short)}\n")
    status, out, _ = run(capsys, "pack", "--trace", str(path))
    assert status == 0
    assert out == [write_json(trace(case).to_json()), write_json(trace(short).to_json())]


def test_explain_and_trace_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["pack", "--explain", "--trace"])
    assert info.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda p: p / "absent.json", "cannot read: No such file or directory"),
        (lambda p: p, "cannot read: Is a directory"),
    ],
)
def test_an_unreadable_file_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, make: object, why: str
) -> None:
    target = make(tmp_path)  # type: ignore[operator]
    status, out, err = run(capsys, "pack", str(target))
    assert (status, out, err) == (2, [], [f"packcheck pack: error: {target}: {why}"])


def test_an_empty_file_is_one_line_and_status_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    status, out, err = run(capsys, "pack", str(empty))
    assert (status, out, err) == (
        2,
        [],
        [f"packcheck pack: error: {empty}: no cases in input (it is empty)"],
    )


@pytest.mark.parametrize("engine", ["reference", "numpy"])
def test_output_starts_before_the_input_ends(monkeypatch: pytest.MonkeyPatch, engine: str) -> None:
    out = io.StringIO()
    answered: list[int] = []

    def lines() -> Iterator[bytes]:
        for _ in range(3):
            # Every earlier line is answered before this one is even produced.
            answered.append(out.getvalue().count("\n"))
            yield json.dumps(SEED[0]["input"]).encode() + b"\n"
        answered.append(out.getvalue().count("\n"))

    class Stream(io.RawIOBase):
        def __init__(self) -> None:
            self.source = lines()
            self.pending = b""

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: bytearray) -> int:  # type: ignore[override]
            if not self.pending:
                self.pending = next(self.source, b"")
            size = min(len(buffer), len(self.pending))
            buffer[:size], self.pending = self.pending[:size], self.pending[size:]
            return size

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(Stream())))
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["pack", "--engine", engine]) == 0
    assert answered == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("engine", "mode"),
    [
        ("reference", ""),
        ("numpy", ""),
        ("reference", "--trace"),
        ("numpy", "--record"),
    ],
)
def test_answers_are_flushed_to_a_pipe_before_the_next_line_arrives(
    tmp_path: Path, engine: str, mode: str
) -> None:
    # PYTHONUNBUFFERED would hide a missing flush: run without it.  A trace or record
    # is held to be written in large pieces: it too is written before a read waits.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    line = json.dumps(SEED[0]["input"]).encode() + b"\n"
    with subprocess.Popen(
        [sys.executable, "-m", "packcheck", "pack", *mode.split(), "--engine", engine],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
    ) as child:
        assert child.stdin is not None
        assert child.stdout is not None
        try:
            for _ in range(2):
                child.stdin.write(line)
                child.stdin.flush()
                # Blocks forever (until the timeout kills the child) if not flushed.
                answer = json.loads(_readline_within(child, seconds=20))
                assert answer.get("result", answer) == ANSWERS[0]
        finally:
            child.stdin.close()
            child.wait(timeout=20)
    assert child.returncode == 0


def _readline_within(child: subprocess.Popen[bytes], seconds: float) -> bytes:
    import threading

    timer = threading.Timer(seconds, child.kill)
    timer.start()
    try:
        assert child.stdout is not None
        return child.stdout.readline()
    finally:
        timer.cancel()


# ---- fixtures ----------------------------------------------------------------


@pytest.mark.parametrize("engine", PACK_ENGINES)
def test_fixtures_pass_on_the_seed_files(capsys: pytest.CaptureFixture[str], engine: str) -> None:
    status, out, err = run(
        capsys,
        "fixtures",
        "--engine",
        engine,
        str(FIXTURES / "seed.json"),
        str(FIXTURES / "seed.csv"),
    )
    assert (status, out, err) == (0, [f"6 of 6 fixtures passed ({engine} engine)"], [])


def test_a_failing_fixture_prints_input_expected_and_actual(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    wrong = [
        {
            "id": "js-sort",
            "input": {"budget": 0, "blocks": [], "required": ["\uff00", "\U0001f600"]},
            "expected": {"kept": [], "remaining": 0, "missing": ["\uff00", "\U0001f600"]},
        },
        {
            "id": "exact",
            "input": {"budget": 2.5, "blocks": [], "required": []},
            "expected": {"kept": [], "remaining": 2, "missing": []},
        },
        {"id": "input-error", "input": [], "expected": {"error": "input", "detail": "anything"}},
        {
            "id": "not-an-input-error",
            "input": {"budget": 1, "blocks": [], "required": []},
            "expected": {"error": "input"},
        },
    ]
    path = tmp_path / "wrong.json"
    path.write_text(json.dumps(wrong, indent=1))
    status, out, err = run(capsys, "fixtures", str(path))
    assert status == 1
    assert err == []
    assert out == [
        f"FAIL {path}: case 1 (js-sort)",
        '  input:    {"budget":0,"blocks":[],"required":["\\uff00","\\ud83d\\ude00"]}',
        '  expected: {"kept":[],"remaining":0,"missing":["\\uff00","\\ud83d\\ude00"]}',
        '  actual:   {"kept":[],"remaining":0,"missing":["\\ud83d\\ude00","\\uff00"]}',
        f"FAIL {path}: case 2 (exact)",
        '  input:    {"budget":2.5,"blocks":[],"required":[]}',
        '  expected: {"kept":[],"remaining":2,"missing":[]}',
        '  actual:   {"error":"size"}',
        f"FAIL {path}: case 4 (not-an-input-error)",
        '  input:    {"budget":1,"blocks":[],"required":[]}',
        '  expected: {"error":"input"}',
        '  actual:   {"kept":[],"remaining":1,"missing":[]}',
        "1 of 4 fixtures passed (reference engine)",
    ]


def test_unreadable_fixtures_exit_2_and_the_rest_are_checked(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = tmp_path / "cases.jsonl"
    lines.write_text(LINES)
    empty = tmp_path / "empty.json"
    empty.write_text("\n")
    status, out, err = run(
        capsys,
        "fixtures",
        str(lines),
        str(tmp_path / "absent.json"),
        str(empty),
        str(FIXTURES / "seed.json"),
    )
    assert status == 2
    assert out == ["3 of 3 fixtures passed (reference engine)"]
    assert err == [
        f"packcheck fixtures: error: {lines}: line 1: fixture has no 'expected'",
        f"packcheck fixtures: error: {lines}: line 2: fixture has no 'expected'",
        f"packcheck fixtures: error: {lines}: line 3: fixture has no 'expected'",
        f"packcheck fixtures: error: {tmp_path / 'absent.json'}: cannot read: No "
        "such file or directory",
        f"packcheck fixtures: error: {empty}: no cases in input (it is empty)",
    ]


def test_a_broken_fixture_and_a_failing_one_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = '[{"id": "bad", "input": {}, "expected": 1}, 7]'
    stdin(monkeypatch, data.encode())
    status, out, err = run(capsys, "fixtures", "-")
    assert status == 2
    assert out[-1] == "0 of 1 fixture passed (reference engine)"
    assert err == ["packcheck fixtures: error: -: case 2: expected a fixture object, got number"]


@pytest.mark.parametrize("command", ["pack", "fixtures"])
def test_a_closed_pipe_is_not_reported_as_an_unreadable_file(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    command: str,
) -> None:
    class ClosedPipe(io.TextIOWrapper):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    with ClosedPipe(open(tmp_path / "out", "wb")) as out:
        monkeypatch.setattr(sys, "stdout", out)
        wrong = tmp_path / "wrong.json"
        wrong.write_text('[{"input": {"budget": 1, "blocks": [], "required": []}, "expected": 1}]')
        # Quietly; a fixture that failed before the reader went away still fails.
        assert main([command, str(wrong)]) == (1 if command == "fixtures" else 0)
    assert capsys.readouterr().err == ""


def test_text_an_ascii_terminal_cannot_show_is_escaped_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    fixture = tmp_path / "caf\udcff.json"  # a name that is not UTF-8, as the OS gave it
    fixture.write_text(
        '[{"id": "caf\\u00e9", "input": {"budget": 1, "blocks": [{"id": "\\u00e9", "size": 1}],'
        ' "required": []}, "expected": 1}]'
    )
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii", write_through=True)
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["pack", "--explain", str(fixture)]) == 0
    assert main(["fixtures", str(fixture)]) == 1
    text = raw.getvalue().decode("ascii")
    assert "  packed:    \\xe9\n" in text
    # A file name that is not printable is quoted, as a fixture's where is (issue 41).
    assert f'FAIL "{tmp_path}/caf\\udcff.json": case 1 (caf\\xe9)\n' in text


def test_numpy_answers_every_line_as_the_reference_does(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Lines are answered in order, malformed ones and size errors included.
    lines = [json.dumps(fixture["input"]) for fixture in SEED] * 3
    lines[4:4] = ["nope", '{"budget": 3, "blocks": [{"id": 5, "size": 1}], "required": []}']
    lines.append(
        json.dumps({"budget": 2**70, "blocks": [{"id": "A", "size": 2**65}], "required": []})
    )
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines) + "\n")
    expected = run(capsys, "pack", str(path))
    assert expected[0] == 2
    assert run(capsys, "pack", "--engine", "numpy", str(path)) == expected
    path.write_text("\n".join(lines[:3]) + "\n")
    assert run(capsys, "pack", "--engine", "numpy", str(path)) == run(capsys, "pack", str(path))


def test_numpy_answers_the_rows_before_a_table_breaks_off(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # A CSV cell past Python's csv limit stops the table: the rows read before it
    # are answered first, by either engine.
    table = (FIXTURES / "seed.csv").read_text()
    path = tmp_path / "broken.csv"
    path.write_text(table + 'long,"' + "x" * 200_000 + '",1,2\n')
    expected = run(capsys, "pack", str(path))
    assert expected[0] == 2
    assert len(expected[1]) == 3
    assert run(capsys, "pack", "--engine", "numpy", str(path)) == expected


def test_a_closed_pipe_ends_a_numpy_run_quietly(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    class ClosedPipe(io.TextIOWrapper):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    cases = tmp_path / "cases.jsonl"
    cases.write_text(LINES)
    with ClosedPipe(open(tmp_path / "out", "wb")) as out:
        monkeypatch.setattr(sys, "stdout", out)
        assert main(["pack", "--engine", "numpy", str(cases)]) == 0
    assert capsys.readouterr().err == ""
