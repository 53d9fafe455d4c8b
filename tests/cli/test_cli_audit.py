"""``packcheck audit`` and ``packcheck pack --record``, run in-process."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from command_line import run
from runs import clean_run, planted_run, text

from packcheck import audit
from packcheck._cli import audit as cli_audit
from packcheck._cli import main

CASES = (
    '{"budget":7,"blocks":[{"id":"A","size":4},{"id":"B","size":3},{"id":"C","size":2}],'
    '"required":["B","C"]}\n'
    '{"budget":3,"blocks":[{"id":"A","size":4},{"id":"C","size":2}],"required":["C"]}\n'
    '{"budget":3,"blocks":[{"id":"C","size":-1}],"required":["C"]}\n'
)


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, dict[int, str]]:
    """The run with planted defects, written to ``run.jsonl``; the planted lines."""
    steps, lines = planted_run()
    path = tmp_path / "run.jsonl"
    path.write_text(text(steps))
    return path, lines


def test_pack_record_then_audit_works_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(CASES)
    status, out, err = run(capsys, "pack", "--record", str(cases))
    assert (status, err) == (0, [])
    first = json.loads(out[0])
    assert first["partition"] == {"packed": ["A", "B"], "available": ["C"], "dropped": []}
    assert first["result"] == {"kept": ["A", "B"], "remaining": 0, "missing": ["C"]}
    assert {k: first[k] for k in ("budget", "blocks", "required")} == json.loads(
        CASES.split("\n")[0]
    )
    recorded = tmp_path / "run.jsonl"
    recorded.write_text("\n".join(out) + "\n")
    status, out, err = run(capsys, "audit", str(recorded))
    assert (status, err) == (0, [])
    assert out == [
        f"packcheck audit: 3 steps, 3 with a correct partition, 0 violations ({recorded})",
        '  lost "C": missing in 1 step (evicted 1): line 1',
    ]


def test_the_numpy_engine_records_the_same_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    cases = tmp_path / "cases.jsonl"
    cases.write_text(CASES)
    assert run(capsys, "pack", "--record", str(cases)) == run(
        capsys, "pack", "--record", "--engine", "numpy", str(cases)
    )


def test_audit_json_names_exactly_the_planted_lines(
    planted: tuple[Path, dict[int, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, lines = planted
    status, out, err = run(capsys, "audit", "--json", str(path))
    assert (status, err) == (1, [])
    objects = [json.loads(line) for line in out]
    *violations, summary = objects
    assert {v["line"]: v["check"] for v in violations} == lines
    assert all(v["step"] == v["line"] - 1 for v in violations)
    assert summary["steps"] == 300
    assert summary["violations"] == len(lines)
    assert summary["lost"][0]["count"] >= summary["lost"][-1]["count"]
    assert "line" not in summary


def test_format_json_is_what_json_was_and_text_is_the_default(
    planted: tuple[Path, dict[int, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    # --format json is the spelling verify and diff use; --json stays, the same.
    path, _ = planted
    spelled = run(capsys, "audit", "--format", "json", str(path))
    assert spelled == run(capsys, "audit", "--json", str(path))
    assert json.loads(spelled[1][-1])["steps"] == 300
    assert run(capsys, "audit", "--format", "text", str(path)) == run(capsys, "audit", str(path))
    _, out, _ = run(capsys, "audit", str(path))
    assert out[-1].startswith("  lost ")
    assert not out[0].startswith("{")


def test_format_is_one_of_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["audit", "--format", "github", str(tmp_path)])
    assert exit_.value.code == 2
    assert "invalid choice: 'github'" in capsys.readouterr().err


def test_the_same_run_without_defects_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.jsonl"
    path.write_text(text(clean_run()))
    status, out, err = run(capsys, "audit", "--json", "--strict", str(path))
    assert (status, err, len(out)) == (0, [], 1)
    assert json.loads(out[0])["correct"] == 300


def test_text_output_one_line_per_violation_then_the_summary(
    planted: tuple[Path, dict[int, str]], capsys: pytest.CaptureFixture[str]
) -> None:
    path, lines = planted
    status, out, _ = run(capsys, "audit", str(path))
    assert status == 1
    named = [line for line in out if line.startswith("line ")]
    assert [int(line.split()[1]) for line in named] == sorted(lines)
    assert (
        named[0]
        == "line 6 (step 5): no-partition: no partition captured: the step has no 'partition'"
    )
    summary = out[len(named)]
    assert (
        summary
        == f"packcheck audit: 300 steps, 289 with a correct partition, 12 violations ({path})"
    )
    assert out[len(named) + 1].startswith(
        '  lost "I": missing in 44 steps (not-retrieved 44): line 1 (step 0), '
    )


def test_malformed_lines_exit_2_and_the_rest_are_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = clean_run(3)
    path = tmp_path / "run.jsonl"
    path.write_bytes(
        json.dumps(steps[0]).encode()
        + b"\nnot json\n\xff\n"
        + json.dumps(steps[1]).encode()
        + b"\n"
    )
    status, out, err = run(capsys, "audit", "--json", str(path))
    assert (status, err) == (2, [])  # named once, with the other violations
    assert [json.loads(line).get("check") for line in out] == ["malformed", "malformed", None]
    assert [json.loads(line).get("message") for line in out[:2]] == [
        "invalid JSON: Expecting value at column 1",
        "not UTF-8: byte 0xff at offset 0",
    ]
    assert json.loads(out[-1])["malformed"] == 2


def test_a_truncated_last_line_is_reported_once_as_a_malformed_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = [json.dumps(step) for step in clean_run(3)]
    path = tmp_path / "run.jsonl"
    path.write_text(f"{steps[0]}\n{steps[1]}\n{steps[2][:40]}")  # the writer was stopped
    status, out, err = run(capsys, "audit", str(path))
    assert (status, err) == (2, [])
    cut = [line for line in out if "Unterminated string" in line or "line 3" in line]
    assert cut == [out[0]]
    assert out[0].startswith("line 3: malformed: invalid JSON: ")
    assert out[1] == (
        f"packcheck audit: 2 steps, 2 with a correct partition, 0 violations, "
        f"1 malformed line ({path})"
    )
    status, out, err = run(capsys, "audit", "--json", str(path))
    assert (status, err) == (2, [])
    assert json.loads(out[0])["check"] == "malformed"
    assert json.loads(out[-1])["malformed"] == 1


def test_a_100_mb_line_is_one_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("w") as stream:
        stream.write(json.dumps(clean_run(1)[0]) + "\n")
        stream.write(
            '{"budget": 1, "blocks": [], "required": [], "partition": "' + "x" * 100_000_000 + "\n"
        )
    status, out, err = run(capsys, "audit", str(path))
    assert (status, err) == (2, [])
    (message,) = [line for line in out if line.startswith("line 2:")]
    assert message.startswith("line 2: malformed: longer than 67,108,864 bytes, the limit")
    assert all(len(line) < 300 for line in out)
    status, out, err = run(capsys, "audit", "--max-line-bytes", "128M", str(path))
    (message,) = [line for line in out if line.startswith("line 2:")]
    assert message.startswith("line 2: malformed: invalid JSON: Unterminated string starting at")


def test_a_run_with_nothing_left_out_warns_and_strict_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "run.jsonl"
    step = audit.record_step({"budget": 5, "blocks": [{"id": "A", "size": 1}], "required": ["A"]})
    path.write_text(json.dumps(step) + "\n")
    status, out, err = run(capsys, "audit", str(path))
    assert status == 0
    assert out[-1] == "  lost: nothing (every required ID was packed in every step)"
    assert err == [
        "packcheck audit: warning: no step left any block out, so this run cannot show "
        "that available and dropped are captured"
    ]
    assert run(capsys, "audit", "--strict", str(path))[0] == 1
    status, out, _ = run(capsys, "audit", "--json", str(path))
    assert json.loads(out[-1])["warning"].startswith("no step left any block out")


def test_many_lost_ids_are_cut_in_the_text_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(audit.Audit.__init__.__kwdefaults__, "max_tracked", 12)
    required = [f"id-{n:02d}" for n in range(15)]
    step = audit.record_step(
        {"budget": 0, "blocks": [{"id": "A", "size": 1}], "required": required}
    )
    path = tmp_path / "run.jsonl"
    path.write_text(json.dumps(step) + "\n")
    status, out, _ = run(capsys, "audit", str(path))
    assert status == 0
    assert out[-2:] == [
        "  ... and 2 more lost IDs (--json lists them)",
        "  ... and 3 losses of IDs past the first 12",
    ]
    assert len([line for line in out if line.startswith("  lost ")]) == cli_audit.LOST_SHOWN


def test_stdin_and_unreadable_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text(clean_run(2)).encode())))
    status, out, _ = run(capsys, "audit")
    assert status == 0
    assert out[0].endswith("(<stdin>)")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    assert run(capsys, "audit", str(empty)) == (
        2,
        [],
        [f"packcheck audit: error: {empty}: no steps in input (it is empty)"],
    )
    status, out, err = run(capsys, "audit", str(tmp_path / "nope.jsonl"))
    assert (status, out) == (2, [])
    assert err == [
        f"packcheck audit: error: {tmp_path / 'nope.jsonl'}: cannot read: No such file or directory"
    ]
    assert run(capsys, "audit", str(tmp_path))[0] == 2


def test_a_closed_pipe_stops_quietly(
    planted: tuple[Path, dict[int, str]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class ClosedPipe(io.TextIOWrapper):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    path, _ = planted
    with ClosedPipe(open(tmp_path / "out", "wb")) as out:
        monkeypatch.setattr(sys, "stdout", out)
        # Quietly, but the planted defects still fail the audit: a reader that goes
        # away (| head) cannot turn a failed audit into a pass.
        assert main(["audit", str(path)]) == 1
    assert capsys.readouterr().err == ""


def test_a_pipe_closed_after_a_malformed_line_keeps_its_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``audit | head -1``: the reader goes away at the second violation, after a
    malformed line; the audit had bad input, and exits 2 as it would have."""

    class PipeOfOneLine(io.TextIOWrapper):
        def write(self, text: str) -> int:
            if self.written:
                raise BrokenPipeError
            self.written = True
            return len(text)

    lines = text(planted_run()[0]).splitlines(keepends=True)
    path = tmp_path / "run.jsonl"
    path.write_text("not json\n" + "".join(lines))
    with PipeOfOneLine(open(tmp_path / "out", "wb")) as out:
        out.written = False
        monkeypatch.setattr(sys, "stdout", out)
        assert main(["audit", str(path)]) == 2
    assert capsys.readouterr().err == ""
