"""Hostile input in CI, by name: a bad baseline, a hostile ``--save-failures`` folder,
IDs that hold workflow commands, a command packer out of step, an OLD packer that
hangs, a run asked for too many examples.

Each is refused in one line (exit 2), skipped with a note, escaped, or named as a
packer fault; never a traceback, never a write through a link, never a hang.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from command_line import packer_command

from packcheck import _bench as bench
from packcheck._cli import main
from packcheck._cli.pack import NO_PARTITION
from packcheck._gate.fixtures import save_fixture, saved_fixtures

# --- bench baselines: read with packcheck's reader, every field checked -----------------

# A matrix of one small cell: the baseline is read, and refused, before it is timed.
TIMED = ["bench", "--sizes", "10", "--workload", "pareto", "--repeat", "1", "--min-time", "0"]


def _baseline() -> dict[str, Any]:
    timings = [
        bench.Timing("reference", "pareto", "typical", 10, 5, 0, 1.0, (1.0,) * 3),
        bench.Timing("numpy", "pareto", "typical", 10, 5, 0, 0.5, (0.5,) * 3),
    ]
    where = {"created": "2026-01-01T00:00:00+00:00", "commit": None, "machine": {}}
    report: dict[str, Any] = bench.Report(timings, where).to_json()
    return report


def _numpy(report: dict[str, Any]) -> dict[str, Any]:
    cell: dict[str, Any] = report["results"][1]
    assert cell["engine"] == "numpy"
    return cell


@pytest.mark.parametrize(
    ("spoil", "field"),
    [
        (lambda r: r.update(machine="a string"), "machine: "),
        (lambda r: r["machine"].update(cpus=2), "machine.cpus: "),
        (lambda r: _numpy(r).update(speedup="fast"), "results[1].speedup: "),
        (lambda r: _numpy(r).update(speedup=-5), "results[1].speedup: "),
        (
            lambda r: _numpy(r).update(speedup_interval=["1", "3"]),
            "results[1].speedup_interval[0]: ",
        ),
        (lambda r: _numpy(r).update(speedup_interval=[2.5, 3]), "results[1].speedup_interval: "),
        (lambda r: _numpy(r).update(speedup_interval=[2]), "results[1].speedup_interval: "),
        (lambda r: _numpy(r).pop("speedup"), "results[1].speedup: "),
        (lambda r: _numpy(r).update(n=True), "results[1].n: "),
        (lambda r: _numpy(r).update(seconds=1e400), "results[1].seconds: "),
        (lambda r: r["results"].append([]), "results[2]: "),
        (lambda r: r.update(results={}), "results: "),
        (lambda r: r.update(clock=None), "clock: "),
        (lambda r: r.update(kind=None, timings=[{"engine": 1}]), "timings[0].engine: "),
        (
            lambda r: r.update(kind=None, timings=[{**_numpy(r), "samples": 1}]),
            "timings[0].samples: ",
        ),
        (lambda r: r.update(kind=None), "timings: "),
    ],
)
def test_a_baseline_with_a_bad_field_is_one_line_naming_the_file_and_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], spoil: Any, field: str
) -> None:
    report = _baseline()
    spoil(report)
    # 1e400 is written as such: a float would be written as Infinity, which is not JSON.
    path = tmp_path / "base.json"
    path.write_text(json.dumps(report).replace("Infinity", "1e400"))
    assert main([*TIMED, "--compare", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"packcheck bench: error: {path}: not a packcheck bench report ({field}" in err
    if report.get("kind"):  # --history reads the same way
        assert main(["bench", "--history", str(tmp_path)]) == 2
        assert (
            f"packcheck bench: error: {path}: not a packcheck bench report ({field}"
            in capsys.readouterr().err
        )


def test_a_baseline_nested_deeper_than_python_recurses_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    (tmp_path / "base.json").write_text('{"kind": "packcheck bench", "results": ' + deep + "}")
    assert main(["bench", "--history", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"packcheck bench: error: {tmp_path / 'base.json'}: invalid JSON: nesting too deep\n"
    )


@pytest.mark.parametrize("literal", ["NaN", "Infinity"])
def test_a_baseline_holding_nan_never_passes_the_speed_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], literal: str
) -> None:
    report = _baseline()
    _numpy(report)["speedup_interval"] = [math.nan, math.nan]
    path = tmp_path / "base.json"
    path.write_text(json.dumps(report).replace("NaN", literal))
    assert main([*TIMED, "--compare", str(path)]) == 2
    assert (
        capsys.readouterr().err == f"packcheck bench: error: {path}: {literal} is not valid JSON\n"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_named_like_a_baseline_is_never_waited_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tmp_path / "a-fifo.json")
    (tmp_path / "base.json").write_text(json.dumps(_baseline()))
    (tmp_path / "linked.json").symlink_to(tmp_path / "base.json")  # a link is followed
    # --history skips it as it skips other JSON; --compare reads it as empty.
    assert _within(30, lambda: main(["bench", "--history", str(tmp_path)])) == 0
    assert capsys.readouterr().out.count("2026-01-01") == 2
    fifo = tmp_path / "a-fifo.json"
    assert _within(30, lambda: main([*TIMED, "--compare", str(fifo)])) == 2
    assert capsys.readouterr().err.startswith(f"packcheck bench: error: {fifo}: invalid JSON")
    # A directory so named is no report either: one line naming it.
    (tmp_path / "b-folder.json").mkdir()
    assert main(["bench", "--history", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"packcheck bench: error: {tmp_path / 'b-folder.json'}: cannot read: Is a directory\n"
    )


def test_a_baseline_is_read_no_further_than_the_line_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("packcheck._cli.bench.MAX_LINE_BYTES", 1000, raising=False)
    (tmp_path / "base.json").write_text(json.dumps(_baseline()) + " " * 1000)
    assert main([*TIMED, "--compare", str(tmp_path / "base.json")]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"packcheck bench: error: {tmp_path / 'base.json'}: longer than 1,000 bytes: "
        "not a bench report\n"
    )
    # A device in a --history folder (/dev/zero is endless) is skipped, never read.
    (tmp_path / "base.json").write_text(json.dumps(_baseline()))
    (tmp_path / "device.json").symlink_to(os.devnull)
    assert main(["bench", "--history", str(tmp_path)]) == 0


def test_a_speedup_that_is_not_finite_is_a_fall_in_either_report() -> None:
    good = bench.Report.from_json(_baseline())
    for spoilt in (math.nan, math.inf):
        bad = bench.Report.from_json(_baseline())
        bad.stored["numpy", "pareto", 10] = (spoilt, spoilt, spoilt)
        assert len(bench.compare(good, bad, 0.1)) == 1
        assert len(bench.compare(bad, good, 0.1)) == 1
    spoilt_json = _baseline()
    _numpy(spoilt_json)["speedup"] = math.nan
    with pytest.raises(ValueError, match=r"\(results\[1\]\.speedup: NaN is not a finite"):
        bench.Report.from_json(spoilt_json)


# --- --save-failures: never written through a link, never a hang -------------------------

FIXTURE = {
    "id": "verify-0123456789ab",
    "input": {"budget": 0, "blocks": [], "required": ["A"]},
    "expected": {"kept": [], "remaining": 0, "missing": ["A"]},
}
SAVED = (json.dumps([FIXTURE], separators=(",", ":")) + "\n").encode()


def _within(seconds: float, call: Any) -> Any:
    """``call()``'s value, failing (not hanging) if it takes more than ``seconds``."""
    done: list[Any] = []

    def run() -> None:
        try:
            done.append(call())
        except BaseException as exc:  # handed to the test's thread
            done.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still waiting after {seconds} s"
    if isinstance(done[0], BaseException):
        raise done[0]
    return done[0]


def test_a_saved_failure_is_never_written_through_a_link(tmp_path: Path) -> None:
    folder, outside = tmp_path / "failures", tmp_path / "outside.txt"
    folder.mkdir()
    outside.write_text("not yours")
    path = folder / "verify-0123456789ab.json"
    for target in (outside, tmp_path / "absent.txt"):  # a link, then a dangling one
        path.symlink_to(target)
        with pytest.raises(OSError, match=rf"^{re.escape(str(path))}: exists .* left alone$"):
            save_fixture(FIXTURE, folder)
        assert path.is_symlink()
        path.unlink()
    assert outside.read_text() == "not yours"
    assert not (tmp_path / "absent.txt").exists()
    assert save_fixture(FIXTURE, folder) == path
    assert path.read_bytes() == SAVED
    assert [entry.name for entry in folder.iterdir()] == [path.name]  # no temporary left


def test_an_existing_file_of_the_same_name_is_left_alone_unless_identical(tmp_path: Path) -> None:
    path = tmp_path / "verify-0123456789ab.json"
    path.write_bytes(SAVED)
    assert save_fixture(FIXTURE, tmp_path) == path  # the same bytes: already saved
    path.write_text("[]\n")
    with pytest.raises(OSError, match=rf"^{re.escape(str(path))}: exists .* left alone$"):
        save_fixture(FIXTURE, tmp_path)
    assert path.read_text() == "[]\n"
    path.unlink()
    path.mkdir()
    with pytest.raises(OSError, match=rf"^{re.escape(str(path))}: Is a directory$"):
        save_fixture(FIXTURE, tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_in_the_folder_is_skipped_with_a_note_and_never_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "verify-0123456789ab.json")
    fixtures, notes = _within(30, lambda: saved_fixtures(tmp_path))
    assert fixtures == []
    fifo = tmp_path / "verify-0123456789ab.json"
    assert notes == [f"skipped {fifo}: a FIFO, device or socket, not a file of fixtures"]
    with pytest.raises(OSError, match=rf"^{re.escape(str(fifo))}: exists .* left alone$"):
        _within(30, lambda: save_fixture(FIXTURE, tmp_path))


def test_links_in_the_folder_are_skipped_with_a_note_naming_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "failures"
    folder.mkdir()
    (tmp_path / "outside.json").write_text("[1]")  # read, it would stop the run
    (folder / "link.json").symlink_to(tmp_path / "outside.json")
    (folder / "dangling.json").symlink_to(tmp_path / "absent.json")
    (folder / "saved.json").write_bytes(SAVED)
    args = ["verify", "--seed", "1", "--max-examples", "5", "--no-long-lists"]
    assert main([*args, "--save-failures", str(folder)]) == 0
    out = capsys.readouterr().out.splitlines()
    for name in ("dangling.json", "link.json"):
        assert f"note:     skipped {folder / name}: a symbolic link, not a file of fixtures" in out
    assert "4 fixtures" in out[-1]  # the three seed cases and the saved one
    assert (tmp_path / "outside.json").read_text() == "[1]"


def test_every_error_of_the_folder_names_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    nowhere = Path("/proc/packcheck-cannot-be-here")
    with pytest.raises(OSError, match=rf"^{re.escape(str(nowhere))}: "):
        save_fixture(FIXTURE, nowhere)
    (tmp_path / "locked.json").write_bytes(SAVED)

    def refused(path: Any, *args: Any) -> int:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "open", refused)
    with pytest.raises(OSError, match=rf"^{re.escape(str(tmp_path / 'locked.json'))}: Perm"):
        saved_fixtures(tmp_path)


# --- max-examples: bounded, in one place ---------------------------------------------


@pytest.mark.parametrize("count", ["1000001", str(10**12)])
def test_max_examples_past_a_million_is_one_line_from_the_command_line_and_the_config(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    count: str,
) -> None:
    bound = f"{count} is not a count of cases from 1 to 1,000,000"
    with pytest.raises(SystemExit) as info:
        main(["verify", "--max-examples", count, "--packer", "no_such_module:f"])
    assert info.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"packcheck verify: error: argument --max-examples: {bound}"
    (tmp_path / "pyproject.toml").write_text(f"[tool.packcheck]\nmax-examples = {count}\n")
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "--packer", "no_such_module:f"]) == 2  # refused before the import
    err = capsys.readouterr().err
    assert (
        err == f"packcheck verify: error: pyproject.toml [tool.packcheck]: max-examples: {bound}\n"
    )


@pytest.mark.parametrize("count", [10**6 + 1, 10**12])
def test_max_examples_out_of_bounds_is_refused_by_the_python_api(count: int) -> None:
    from packcheck import verify

    with pytest.raises(ValueError, match=rf"^max_examples={count}: must be at most 1,000,000$"):
        verify.run(lambda case: {}, max_examples=count)


# --- strings from data: escaped in every report, never a workflow command ---------------

HOSTILE = "x\n::error file=README.md,line=1::INJECTED\x1b[31m\x07\x00"
# A case on which a packer that drops repeated missing IDs differs from the rule.
TWICE = {"budget": 0, "blocks": [], "required": ["A", "A"]}
BROKEN = str(Path(__file__).parents[1] / "packers" / "broken.py") + ":missing_dedup"


def _clean(text: str, commands: int = 0) -> None:
    """No control character but line breaks in ``text``, and exactly ``commands``
    lines that GitHub Actions would read as a workflow command (packcheck's own)."""
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f]", text), text
    lines = text.splitlines()
    assert sum(line.lstrip().startswith("::") for line in lines) == commands, text


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    """A folder of saved failures holding one whose id and file name are hostile."""
    folder = tmp_path / "failures"
    folder.mkdir()
    fixture = {
        "id": HOSTILE,
        "input": TWICE,
        "expected": {"kept": [], "remaining": 0, "missing": ["A", "A"]},  # the rule's
    }
    (folder / "a\n::warning::NAMED\x1b.json").write_text(json.dumps([fixture]))
    return folder


@pytest.mark.parametrize("form", ["text", "github", "json"])
def test_an_id_from_data_never_injects_a_workflow_command_into_verify(
    hostile: Path, capsys: pytest.CaptureFixture[str], form: str
) -> None:
    junit = hostile.parent / "junit.xml"
    args = ["verify", "--packer", BROKEN, "--seed", "1", "--max-examples", "5"]
    args += ["--no-long-lists", "--quiet", "--format", form, "--junit-xml", str(junit)]
    args += ["--save-failures", str(hostile)]
    assert main(args) == 1
    out, err = capsys.readouterr()
    _clean(out, commands=1 if form == "github" else 0)
    _clean(err)
    if form == "json":
        assert json.loads(out)["failure"]["fixture"]["id"] == HOSTILE  # exact, as JSON
    else:
        assert '\\n::error file=README.md,line=1::INJECTED\\u001b[31m\\u0007\\u0000"' in out
    _clean(junit.read_text(encoding="utf-8"))


def test_an_id_from_data_never_injects_a_workflow_command_into_diff(
    hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["diff", "--packer", BROKEN, "--against", "packcheck:pack", "--quiet"]
    args += ["--seed", "1", "--max-examples", "5", "--no-long-lists", "--format", "github"]
    assert main([*args, "--save-failures", str(hostile)]) == 1
    out, err = capsys.readouterr()
    _clean(out, commands=1)
    _clean(err)
    assert "INJECTED\\u001b" in out


def test_an_id_or_a_file_name_from_data_never_injects_a_workflow_command_into_fixtures(
    hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (path,) = hostile.iterdir()
    # packcheck's own packer against an expected answer it does not give (the rule's
    # would be refused as a contradiction): a FAIL line naming the fixture.
    (fixture,) = json.loads(path.read_text())
    path.write_text(json.dumps([{**fixture, "expected": {"kept": [], "remaining": 0}}]))
    assert main(["fixtures", str(path)]) == 1
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    assert out.startswith('FAIL "')
    assert "INJECTED\\u001b" in out
    path.write_text('[{"id": 1}]')  # an error naming the hostile file
    assert main(["fixtures", str(path)]) == 2
    out, err = capsys.readouterr()
    _clean(err)
    assert err.startswith('packcheck fixtures: error: "')
    assert err.count("\n") == 1


def test_a_file_name_from_data_never_injects_a_workflow_command_into_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named = tmp_path / "a\n::warning::NAMED\x1b.jsonl"
    named.write_text(json.dumps({**TWICE, "partition": {}}) + "\n{}\n")
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps(TWICE) + "\n")
    # One file (the summary names it), two (each line names its file), none to read.
    for files, status in (([named], 2), ([named, plain], 2), ([tmp_path / "b\n::x::"], 2)):
        assert main(["audit", *map(str, files)]) == status
        out, err = capsys.readouterr()
        _clean(out)
        _clean(err)
        assert "NAMED" in out or "::x::" in err  # named, escaped


@pytest.mark.parametrize("form", [[], ["--explain"]])
def test_a_file_name_from_data_never_injects_a_workflow_command_into_pack(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], form: list[str]
) -> None:
    named = tmp_path / "a\n::warning::NAMED\x1b.jsonl"
    named.write_text("{}\n" + json.dumps(TWICE) + "\n")
    plain = tmp_path / "plain.jsonl"
    plain.write_text(json.dumps(TWICE) + "\n")
    # Two files: each case's messages and --explain's headings name its file.
    assert main(["pack", *form, str(named), str(plain)]) == 2
    out, err = capsys.readouterr()
    _clean(out)
    _clean(err)
    assert '"' + str(tmp_path) + '/a\\n::warning::NAMED\\u001b.jsonl": line 1: ' in err


def test_a_path_holding_a_line_break_is_one_line_in_setup_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named = tmp_path / "a\n::warning::NAMED\x1b"
    named.mkdir()
    (named / "base.json").write_text('{"kind": "packcheck bench", "results": 1}')
    args = ["--max-examples", "5", "--no-long-lists"]
    for command in (
        ["bench", "--history", str(named)],
        ["verify", *args, "--junit-xml", str(named / "nowhere" / "x.xml")],
        ["verify", *args, "--save-failures", str(named / "base.json")],
    ):
        assert main(command) == 2
        err = capsys.readouterr().err
        _clean(err)
        assert err.count("\n") == 1
        assert "NAMED\\x1b" in err


# --- pack --record --packer-cmd: one answer per case, strictly ---------------------------

# A packer of cases of one block "A" of size 4, then ``after`` once per case.
PACKER = """\
import json, os, sys, time
for number, line in enumerate(sys.stdin, 1):
    budget = json.loads(line)["budget"]
    fits = budget >= 4
    answer = {{"kept": ["A"] * fits, "remaining": budget - 4 * fits, "missing": ["A"] * (not fits)}}
    print(json.dumps(answer) + {suffix!r}, flush=True)  # one write: read whole
    {after}
{at_end}
"""
EMPTY = '{"kept": [], "remaining": 0, "missing": []}'


def _command(tmp_path: Path, after: str = "pass", at_end: str = "", suffix: str = "") -> str:
    script = tmp_path / "packer.py"
    script.write_text(PACKER.format(after=after, at_end=at_end, suffix=suffix))
    return f"{sys.executable} {script}"


def _cases(tmp_path: Path) -> str:
    cases = tmp_path / "cases.jsonl"
    case = '{"budget": %d, "blocks": [{"id": "A", "size": 4}], "required": ["A"]}\n'
    cases.write_text("".join(case % budget for budget in (7, 3, 5)))
    return str(cases)


def test_a_command_packer_printing_an_extra_line_per_case_is_a_named_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = _command(tmp_path, suffix="\n" + EMPTY)
    assert main(["pack", "--record", "--packer-cmd", command, _cases(tmp_path)]) == 1
    out, err = capsys.readouterr()
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 3
    # No answer is recorded against another case: each case is a fault, named.
    assert all(record["error"] == "packer" for record in records)
    assert "a packer answers each case with one line" in records[0]["detail"]
    assert err.count("the packer failed: answered") == 3


def test_a_command_packer_printing_after_its_last_answer_is_a_named_fault(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = _command(tmp_path, at_end=f"print({EMPTY!r}, flush=True)")
    assert main(["pack", "--record", "--packer-cmd", command, _cases(tmp_path)]) == 1
    out, err = capsys.readouterr()
    assert [json.loads(line)["result"]["remaining"] for line in out.splitlines()] == [3, 3, 1]
    assert err == (
        f"packcheck pack: note: line 1: {NO_PARTITION}\n"
        "packcheck pack: error: --packer-cmd: the packer printed "
        f"{EMPTY + chr(10)!r} after its last answer: a packer answers each case with one line\n"
    )


def test_a_line_printed_between_two_cases_is_a_fault_of_the_next(tmp_path: Path) -> None:
    from packcheck._packers import CommandPacker, PackerFault

    go, done = tmp_path / "go", tmp_path / "done"
    after = (
        f"while number == 1 and not os.path.exists({str(go)!r}): time.sleep(0.01)\n"
        f"    print({EMPTY!r}, flush=True) if number == 1 else None\n"
        f"    open({str(done)!r}, 'w').close() if number == 1 else None"
    )
    packer = CommandPacker(_command(tmp_path, after=after), 60)
    try:
        case = {"budget": 7, "blocks": [{"id": "A", "size": 4}], "required": []}
        assert packer.answer(case) == {"kept": ["A"], "remaining": 3, "missing": []}
        go.touch()  # the extra line is printed now, after the answer was taken
        deadline = time.monotonic() + 30  # a guard, not a measure: the packer is slow
        while not done.exists():
            assert time.monotonic() < deadline, "the packer never printed its extra line"
            time.sleep(0.01)
        with pytest.raises(PackerFault, match=r"after its answer to the case before: a packer"):
            packer.answer(case)
    finally:
        packer.close()


def test_a_command_packer_that_lingers_after_its_last_answer_is_not_waited_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = _command(tmp_path, at_end="time.sleep(60)")  # it ignores the end of input
    assert (
        _within(30, lambda: main(["pack", "--record", "--packer-cmd", command, _cases(tmp_path)]))
        == 0
    )
    assert capsys.readouterr().err == f"packcheck pack: note: line 1: {NO_PARTITION}\n"


# --- diff: an OLD packer that hangs on every case is given up on ------------------------


def test_diff_stops_asking_an_old_packer_that_timed_out_on_three_cases_in_a_row(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    asked = tmp_path / "asked.txt"
    hangs = packer_command(
        tmp_path,
        "hangs.py",
        f"open({str(asked)!r}, 'a').write('asked\\n')\ntime.sleep(60)\n",
        imports="sys, time",
    )
    args = ["diff", "--packer", BROKEN, "--against-cmd", hangs]
    args += ["--timeout", "0.2", "--seed", "1", "--max-examples", "5", "--no-long-lists"]
    assert main([*args, "--quiet"]) == 0
    out = capsys.readouterr().out
    assert asked.read_text().count("asked") == 3  # each case cost the whole timeout
    assert (
        "note:     OLD gave no answer within 0.2 s to 3 cases in a row and was not asked "
        "again: 55 cases after them were not compared; --timeout raises the limit"
    ) in out


def test_an_old_packer_given_up_on_is_not_asked_for_a_transition_walk_either() -> None:
    from packcheck._packers import CallablePacker, PackerTimeout
    from packcheck.diff._oracle import GIVE_UP_AFTER, DiffOracle

    asked: list[object] = []
    old = CallablePacker(lambda case: asked.append(case) or {"kept": [], "remaining": 0})
    oracle = DiffOracle(old, old)
    oracle.in_a_row = GIVE_UP_AFTER
    with pytest.raises(PackerTimeout, match="OLD is no longer asked"):
        oracle.expected_shape({"budget": 0, "blocks": [], "required": []})
    assert asked == []
