"""``packcheck pack --record --packer/--packer-cmd``: a user's packer's run, ready for
``packcheck audit``, which passes a correct capture and catches every capture bug."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from packers import capture

from packcheck._cli import main
from packcheck.audit import check_run

PACKERS = Path(__file__).resolve().parents[1] / "packers"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SEED = str(FIXTURES / "seed.json")
# The seed's cases, and one with an ID twice in one bucket and IDs out of sorted order.
CASES = [
    *(json.dumps(f["input"]) for f in json.loads(Path(SEED).read_text())),
    json.dumps(
        {
            "budget": 10,
            "blocks": [{"id": i, "size": s} for i, s in [("z", 1), ("z", 1), ("m", 9), ("a", 3)]],
            "required": ["a"],
        }
    ),
]
CAPTURE_LINES = f"{sys.executable} {PACKERS / 'capture_lines.py'}"


@pytest.fixture(autouse=True)
def _cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cases.jsonl").write_text("\n".join(CASES) + "\n")
    monkeypatch.chdir(tmp_path)


def _record(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[str], str]:
    status = main(["pack", "--record", *argv, "cases.jsonl"])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err


@pytest.mark.parametrize("name", ["correct", "reordered", "partition_first"])
def test_a_correct_capturing_packer_records_a_run_that_audits_clean(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    status, lines, err = _record(capsys, "--packer", f"{PACKERS / 'capture.py'}:{name}")
    assert (status, err) == (0, "")
    report = check_run(lines)
    assert report.summary.steps == len(CASES)
    assert report.violations == ()
    # The record holds the packer's answer and its partition, beside the case.
    first = json.loads(lines[0])
    assert {"budget", "blocks", "required", "partition", "result"} <= set(first)
    assert "partition" not in first["result"]


# Two bugs no record can show, so `verify --partition` catches them, not the audit: a
# size-error step records the empty partition whoever answers (docs/rule.md), and JSON
# writes a tuple as a list.
@pytest.mark.parametrize("name", sorted(set(capture.BUGS) - {"on_error", "tuples"}))
def test_every_capture_bug_recorded_fails_the_audit(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    status, lines, _ = _record(capsys, "--packer", f"{PACKERS / 'capture.py'}:{name}")
    assert status == 0
    assert check_run(lines).violations


@pytest.mark.parametrize("spec", ["--packer", "--packer-cmd"])
def test_a_packer_that_captures_no_partition_is_told_so_once(
    capsys: pytest.CaptureFixture[str], spec: str
) -> None:
    # A packer of answers alone: its run can never pass an audit, which is said on stderr
    # once (at its first such step), and the run is still recorded, exit 0.
    packer = (
        f"{PACKERS / 'broken.py'}:correct"
        if spec == "--packer"
        else f"{sys.executable} {PACKERS / 'lines_packer.py'} correct"
    )
    status, lines, err = _record(capsys, spec, packer)
    assert status == 0
    assert len(lines) == len(CASES)
    assert err == (
        "packcheck pack: note: line 1: the packer's answer holds no partition, so neither "
        "does its record, and packcheck audit reports every such step as no-partition; a "
        "capturing packer returns its partition beside its answer (docs/partition.md, "
        '"What a capturing packer returns")\n'
    )
    assert "no-partition" in {v.check for v in check_run(lines).violations}


def test_what_a_python_packer_prints_goes_to_stderr_not_into_the_record(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "chatty.py").write_text(
        f"import sys\nsys.path.insert(0, {str(PACKERS)!r})\nfrom capture import correct\n\n"
        "def chatty(case):\n    print('packing', len(case['blocks']))\n    return correct(case)\n"
    )
    status, lines, err = _record(capsys, "--packer", "chatty.py:chatty")
    assert status == 0
    assert [json.loads(line)["budget"] for line in lines] == [
        json.loads(case)["budget"] for case in CASES
    ]
    assert check_run(lines).violations == ()
    assert err.splitlines() == [f"packing {len(json.loads(case)['blocks'])}" for case in CASES]


def test_a_command_packer_is_recorded_too(capsys: pytest.CaptureFixture[str]) -> None:
    status, lines, _ = _record(capsys, "--packer-cmd", f"{CAPTURE_LINES} correct")
    assert status == 0
    assert check_run(lines).violations == ()
    status, lines, _ = _record(capsys, "--packer-cmd", f"{CAPTURE_LINES} swapped")
    assert check_run(lines).violations


def test_a_packer_failing_on_a_case_is_named_and_exits_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines_packer = f"{sys.executable} {PACKERS / 'lines_packer.py'} garbage"
    status, lines, err = _record(capsys, "--packer-cmd", lines_packer)
    assert status == 1
    assert "the packer failed: answered 'this is not JSON'" in err
    failed = [json.loads(line) for line in lines if '"error":"packer"' in line]
    assert failed
    assert set(failed[0]) == {"error", "detail"}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["pack", "--explain", "--packer", "packers.capture:correct", SEED],
            "packcheck pack: error: --packer and --packer-cmd need --record (they record "
            "that packer's run, for packcheck audit); drop them to pack, --explain or "
            "--trace with packcheck's own engines\n",
        ),
        (
            ["pack", "--record", "--packer", "no_such_module:f", SEED],
            "packcheck pack: error: --packer 'no_such_module:f': cannot import",
        ),
        (
            ["pack", "--record", "--packer-cmd", f"{sys.executable} -c pass", SEED],
            "ended before answering any case",
        ),
    ],
)
def test_misuse_is_one_line_exit_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
