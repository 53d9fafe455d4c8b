"""``packcheck diff`` end to end, in-process (exit statuses, output, saved fixtures)."""

from __future__ import annotations

import io
import json
import math
import re
import shutil
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from command_line import packer_command

from packcheck._cli import _subjects, build_parser, main
from packcheck._cli import gate as cli_gate
from packcheck._cli._subjects import _Side
from packcheck._gate.plain_case import PlainCase
from packcheck._packers import Packer, SetupError

PACKERS = Path(__file__).parents[1] / "packers"
QUICK = ["--seed", "1", "--max-examples", "100", "--no-long-lists"]
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


@pytest.fixture(autouse=True)
def _in_packers_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PACKERS)


#: A packer diffed against itself, in QUICK runs of 20 generated cases (the tests below
#: share one; what they read of it is the report's form: test_diff_run.py draws 200).
ITSELF = ["diff", "--packer", "wild.py:keep_newest", "--against", "wild.py:keep_newest"]
FEW = [*QUICK, "--max-examples", "20"]


@pytest.fixture(scope="module")
def itself() -> tuple[int, str, str]:
    """The exit status, stdout and stderr (a log: not a terminal) of one QUICK run of
    :data:`ITSELF`, for the tests that assert different things on it."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(PACKERS)
        with redirect_stdout(out), redirect_stderr(err):
            status = main([*ITSELF, *FEW])
    return status, out.getvalue(), err.getvalue()


def test_a_packer_against_itself_exits_0(itself: tuple[int, str, str]) -> None:
    status, out, _ = itself
    assert status == 0
    assert out.startswith(
        "packcheck diff: agree: 3 fixtures, 20 generated cases, 68 transition-point cases, "
        "50 wide-range cases, 0 long lists, seed 1, "
    )
    assert out.endswith("(NEW wild.py:keep_newest, OLD wild.py:keep_newest)\n")


def test_the_summary_counts_the_cases_at_transition_points_as_progress_and_json_do(
    itself: tuple[int, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, log = itself
    assert status == 0
    # The line written as the phase ended; on a slow machine a line written every 10 s
    # during the phase comes before it.
    *_, progress = [line for line in log.splitlines() if "transition points:" in line]
    near = int(progress.split("transition points: ")[1].split(" ")[0])
    assert near > 0
    assert out.startswith(
        f"packcheck diff: agree: 3 fixtures, 20 generated cases, {near} transition-point cases, "
        "50 wide-range cases, 0 long lists, seed 1, "
    )
    assert main([*ITSELF, *FEW, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["phases"][1]["transition_cases"] == near


def test_a_one_line_change_exits_1_with_a_saved_divergence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "divergences"
    args = ["diff", "--packer", "wild:keep_newest_lt", "--against", "wild.py:keep_newest"]
    assert main([*args, *QUICK, "--save-failures", str(saved)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "DIFFERS generated case (seed 1, shrunk)"
    assert out[1] == "  differs:  output: NEW and OLD answer differently (exact JSON and types)"
    assert out[2] == '  parts:    kept[0]: NEW ends after 0 entries; OLD goes on with "A"'
    assert out[3] == '  case:     {"budget":1,"blocks":[{"id":"A","size":1}],"required":[]}'
    (path,) = saved.glob("diff-*.json")
    assert out[-3] == f"saved:    {path} (replayed first by the next run with --save-failures)"
    assert out[-2] == (
        "rerun:    packcheck diff --packer wild:keep_newest_lt --against wild.py:keep_newest "
        f"--seed 1 --max-examples 100 --no-long-lists --save-failures {saved}"
    )
    assert out[-1].startswith("packcheck diff: DIFFERENT after 3 fixtures, ")
    (fixture,) = json.loads(path.read_text())
    assert fixture["input"] == json.loads(out[3].split(":", 1)[1])
    # OLD's answer is what it expects (the rule's keeps the block too: no use here).
    assert fixture["rule"] == "OLD"
    assert fixture["expected"] == {"kept": ["A"], "remaining": 0, "missing": []}
    # The saved case is a fixture for every command, and the next diff replays it first.
    assert main(["fixtures", str(path)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "note:     1 fixture of another rule expects that rule's answer: its input was run, not "
        "checked against this rule",
        "0 of 0 fixtures passed (reference engine)",
    ]
    assert main([*args, *QUICK, "--save-failures", str(saved)]) == 1
    out = capsys.readouterr().out
    assert f"DIFFERS fixture {path}: case 1 ({fixture['id']})" in out
    assert "saved:" not in out


def test_count_reports_the_share_of_cases_per_phase(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["diff", "--packer", "wild.py:dedup_by_id_order", "--against", "wild.py:dedup_by_id"]
    assert main([*args, *FEW, "--count"]) == 1
    out = capsys.readouterr().out.splitlines()
    shares = [line for line in out if line.startswith("share:")]
    assert shares[0] == "share:    fixtures: 0 of 3 cases differ (0%)"
    assert shares[1].startswith("share:    generated: ")
    assert shares[1].endswith(" of 20 cases differ (" + shares[1].split("(")[1])
    assert shares[3] == "share:    long lists: 0 of 0 cases differ (no cases)"
    assert "--count" in out[-2]
    args = ["diff", "--packer", "wild.py:dedup_by_id", "--against", "wild.py:dedup_by_id"]
    assert main([*args, *FEW, "--count"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "share:    generated: 0 of 20 cases differ (0%)"
    assert out[-1].startswith("packcheck diff: agree:")


def test_a_timeout_is_that_sides_fault(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["diff", "--packer", "broken:hangs", "--against", "broken:correct", "--timeout", "1"]
    assert main([*args, "--seed", "1", "--no-long-lists"]) == 1
    out = capsys.readouterr().out
    assert "  differs:  NEW's fault: no answer within 1 s (timeout); packer stopped" in out
    assert "--timeout 1" in out


def test_a_python_side_gets_the_default_timeout_against_a_command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A Python function beside a command runs in a worker too: a hang fails its case.
    monkeypatch.setattr(cli_gate, "DEFAULT_TIMEOUT", 1.0)
    command = f"{sys.executable} lines_packer.py"
    args = ["diff", "--packer", "broken:hangs", "--against-cmd", command, "--seed", "1"]
    assert main(args) == 1
    out = capsys.readouterr().out
    assert "  differs:  NEW's fault: no answer within 1 s (timeout); packer stopped" in out
    assert "1 fixture, 0 generated cases" in out


ONE = {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []}


def test_timeout_0_means_no_timeout_for_both_sides_as_in_verify() -> None:
    command = f"{sys.executable} lines_packer.py"
    given = ["diff", "--packer", "wild:keep_newest", "--against-cmd", command, "--timeout", "0"]
    s = cli_gate.spec(vars(build_parser().parse_args(given)), "diff")
    assert s.timeout is None
    assert s.shown["timeout"] is None
    assert "--timeout 0" in s.rerun(1)
    sides = [
        _subjects._side(None, command, None, "--against"),
        _subjects._side("wild:keep_newest", None, None, "--packer"),
    ]
    try:
        assert [side.packer.timeout for side in sides] == [math.inf, math.inf]  # type: ignore[attr-defined]
        assert sides[0].answer(ONE) == {"kept": ["A"], "remaining": 0, "missing": []}
    finally:
        for side in sides:
            side.close()


@needs_node
def test_node_packers_agree_with_themselves_and_raise_alike(
    capsys: pytest.CaptureFixture[str],
) -> None:
    strict = "node wild.js strict_budget"
    # A raise ends a node packer's process, started again for the next case: 20 cases
    # (three raise on both sides), not QUICK's 100, each side's 100 setting aside more.
    few = [*QUICK, "--max-examples", "20"]
    assert main(["diff", "--packer-cmd", strict, "--against-cmd", strict, *few]) == 0
    args = ["diff", "--packer-cmd", strict, "--against-cmd", "node wild.js keep_newest"]
    assert main([*args, *QUICK]) == 1
    out = capsys.readouterr().out
    assert (
        "  differs:  exception: NEW raised RangeError: budget must be positive "
        "(exited with status 1), where OLD answers"
    ) in out


@needs_node
def test_a_python_port_agrees_with_the_node_original(capsys: pytest.CaptureFixture[str]) -> None:
    node = ["--against-cmd", "node wild.js keep_newest"]
    assert main(["diff", "--packer", "wild.py:keep_newest_checked", *node, *QUICK]) == 0
    lt = ["--packer-cmd", "node wild.js keep_newest_lt"]
    assert main(["diff", *lt, "--against", "wild.py:keep_newest_checked", *QUICK]) == 1
    assert "NEW command 'node wild.js keep_newest_lt'" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--packer", "wild.py:keep_newest", "--against", "old/wild.py:keep_newest"],
            "packcheck diff: error: --against 'old/wild.py:keep_newest': "
            "no such file 'old/wild.py'\n",
        ),
        (
            ["--packer", "nosuch:f", "--against", "wild.py:keep_newest"],
            "packcheck diff: error: --packer 'nosuch:f': cannot import 'nosuch': "
            "ModuleNotFoundError: No module named 'nosuch' (it is imported from "
            f"{PACKERS} and the installed packages: install the project, or name the file, "
            "as src/PACKAGE/MODULE.py:FUNCTION)\n",
        ),
        (
            ["--packer", "wild:keep_newest", "--against-cmd", "/nonexistent/packer"],
            "packcheck diff: error: --against-cmd: cannot start /nonexistent/packer: "
            "No such file or directory\n",
        ),
        (
            ["--packer", "wild:keep_newest", "--against-cmd", "'unclosed"],
            'packcheck diff: error: --against-cmd "\'unclosed": No closing quotation\n',
        ),
        (
            # Two workers started and closed: 5 cases show it as well as QUICK's 100.
            [
                *("--packer", "wild:keep_newest", "--against", "wild:keep_newest"),
                *("--timeout", "5", "--max-examples", "5"),
            ],
            None,
        ),
    ],
)
def test_setup_errors_name_the_side_and_exit_2(
    args: list[str], message: str | None, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["diff", *QUICK, *args])
    if message is None:  # two worker processes, started and closed
        assert status == 0
        return
    assert status == 2
    captured = capsys.readouterr()
    assert captured.err == message
    assert captured.out == ""


def test_a_command_that_never_answers_is_a_setup_error_of_its_side(
    capsys: pytest.CaptureFixture[str],
) -> None:
    silent = f"{sys.executable} -c pass"
    args = ["diff", "--packer", "wild:keep_newest", "--against-cmd", silent, *QUICK]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"packcheck diff: error: --against-cmd '{silent}' ended before answering")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("args", "side"),
    [
        (["--packer", "wild:keep_newest"], "OLD is needed: --against or --against-cmd"),
        (["--against", "wild:keep_newest"], "NEW is needed: --packer or --packer-cmd"),
    ],
)
def test_both_sides_are_needed(
    args: list[str], side: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["diff", *args]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"packcheck diff: error: {side} (or ")
    assert captured.err.count("\n") == 1
    assert captured.out == ""


def test_bad_saved_failures_stop_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["diff", "--packer", "wild:keep_newest", "--against", "wild:keep_newest"]
    (tmp_path / "bad.json").write_text("[{}]")
    assert main([*args, "--save-failures", str(tmp_path)]) == 2
    assert "fixture has no 'input'" in capsys.readouterr().err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_shown_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    # 5 cases: the line is drawn as the first phase ends and cleared before the summary.
    args = ["diff", "--packer", "wild:keep_newest", "--against", "wild:keep_newest", *QUICK]
    assert main([*args, "--max-examples", "5"]) == 0
    shown = terminal.getvalue()
    # The seconds count the workers' start (no wall-clock assertion).
    assert re.search(r"\r\x1b\[Kpackcheck diff: fixtures: 1 case, \d+ s", shown)
    assert shown.endswith("\r\x1b[K")


def test_a_run_without_a_seed_prints_the_one_it_used(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["diff", "--packer", "wild:keep_newest", "--against", "wild:keep_newest"]
    assert main([*args, "--max-examples", "5", "--no-long-lists"]) == 0
    assert ", seed " in capsys.readouterr().out


def test_old_reads_its_own_helpers_beside_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The previous release checked out beside the working tree: both packer.py files
    # import `helper`, which differs by one line. OLD must not get NEW's helper.
    packer = (
        "from helper import fits\n\n\ndef pack(case):\n"
        "    left, kept = case['budget'], []\n"
        "    for block in case['blocks']:\n"
        "        if fits(block['size'], left):\n"
        "            kept.append(block['id'])\n"
        "            left -= block['size']\n"
        "    return {'kept': kept, 'remaining': left}\n"
    )
    for folder, comparison in (("new", "<="), ("old", "<")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "packer.py").write_text(packer)
        helper = f"def fits(size, left):\n    return size {comparison} left\n"
        (tmp_path / folder / "helper.py").write_text(helper)
    new, old = tmp_path / "new" / "packer.py", tmp_path / "old" / "packer.py"
    assert main(["diff", "--packer", f"{new}:pack", "--against", f"{old}:pack", *QUICK]) == 1
    assert 'parts:    kept[1]: NEW has "B", OLD has "C"' in capsys.readouterr().out
    # NEW against itself agrees: the difference above is the helpers' (20 cases show it).
    itself = ["diff", "--packer", f"{new}:pack", "--against", f"{new}:pack", *QUICK]
    assert main([*itself, "--max-examples", "20"]) == 0


def test_a_command_may_answer_any_json_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ids = packer_command(
        tmp_path,
        "ids.py",
        "ids = [block['id'] for block in json.loads(line)['blocks']]\n"
        "print(json.dumps(ids), flush=True)\n",
        imports="json, sys",
    )
    # 20 cases: each answer is a list of IDs, any JSON value, from the first case on.
    assert (
        main(["diff", "--packer-cmd", ids, "--against-cmd", ids, *QUICK, "--max-examples", "20"])
        == 0
    )
    assert main(["diff", "--packer-cmd", ids, "--against", "wild:keep_newest", *QUICK]) == 1
    assert '  new:      ["A","B","C"]' in capsys.readouterr().out


def test_python_sides_iterate_sets_in_the_same_order(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--packer", "wild:missing_from_a_set", "--against", "wild.py:missing_from_a_set"]
    # 20 cases, not QUICK's 100: sides in hash orders of their own differ within them.
    few = [*QUICK, "--max-examples", "20"]
    assert main(["diff", *args, *few]) == 0
    assert main(["diff", *args, *few, "--timeout", "30"]) == 0


def test_progress_lines_go_to_a_log_and_quiet_turns_them_off(
    itself: tuple[int, str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, log = itself
    assert status == 0
    assert "packcheck diff: fixtures: 3 cases" in log
    # Quiet writes none of the lines a phase's end writes, however few its cases.
    assert main([*ITSELF, *QUICK, "--max-examples", "5", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_a_side_names_its_option_in_a_setup_error_on_a_built_case_too() -> None:
    class Ends(Packer):
        def answer(self, case: dict[str, Any]) -> object:
            raise SetupError("--packer-cmd 'x' ended before answering any case")

    side = _Side(Ends(), "--old-cmd")
    for ask_side in (lambda: side.answer({}), lambda: side.answer_built(PlainCase(1, [], [], []))):
        with pytest.raises(SetupError, match=r"^--old-cmd 'x' ended before answering any case$"):
            ask_side()


def test_diff_saves_olds_answer_not_the_rules(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # OLD answers as the rule does but on a budget of 1, where it says more: the saved
    # fixture expects OLD's answer (the rule's, `fixtures` would pass whatever NEW does).
    (tmp_path / "sides.py").write_text(
        "from packcheck import pack\n\n"
        "def new(case):\n    return pack(case)\n\n"
        "def old(case):\n"
        "    answer = pack(case)\n"
        "    return {**answer, 'old': True} if case.get('budget') == 1 else answer\n"
    )
    monkeypatch.chdir(tmp_path)
    saved = tmp_path / "divergences"
    args = ["diff", "--packer", "sides.py:new", "--against", "sides.py:old"]
    assert main([*args, *QUICK, "--save-failures", str(saved)]) == 1
    out = capsys.readouterr().out.splitlines()
    (path,) = saved.glob("diff-*.json")
    (fixture,) = json.loads(path.read_text())
    assert fixture["rule"] == "OLD"
    assert fixture["expected"]["old"] is True
    old = json.loads(next(line for line in out if line.startswith("  old:")).split(":", 1)[1])
    assert fixture["expected"] == old
    assert f"  fixture:  {path.read_text().strip()}" in out
    # `fixtures` runs its input only: OLD's answer is no rule's.
    assert main(["fixtures", str(path)]) == 0
    assert capsys.readouterr().out.startswith("note:     1 fixture of another rule expects")


def _tables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    (tmp_path / "pyproject.toml").write_text(text)
    shutil.copy(PACKERS / "wild.py", tmp_path / "wild.py")
    monkeypatch.chdir(tmp_path)


TABLES = """
[tool.packcheck.diff]
packer = "wild.py:keep_newest"
against = "wild.py:keep_newest"
max-examples = 30
no-long-lists = true

[tool.packcheck.diff.release]
packer = "wild.py:keep_newest_lt"
against = "wild.py:keep_newest"
max-examples = 30
no-long-lists = true
"""


def test_a_named_table_is_chosen_with_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _tables(tmp_path, monkeypatch, TABLES)
    assert main(["diff", "--seed", "1"]) == 0  # the unnamed table, as before
    assert main(["diff", "--seed", "1", "--table", "release"]) == 1
    out = capsys.readouterr().out
    assert "rerun:    packcheck diff --packer wild.py:keep_newest_lt --against " in out
    # Its own keys alone: none of the unnamed table's (here, no OLD).
    alone = '[tool.packcheck.diff]\nagainst = "wild.py:keep_newest"\n'
    _tables(tmp_path, monkeypatch, alone + '[tool.packcheck.diff.release]\npacker = "wild.py:x"\n')
    assert main(["diff", "--seed", "1", "--table", "release"]) == 2
    assert capsys.readouterr().err == (
        "packcheck diff: error: OLD is needed: --against or --against-cmd (or against or "
        "against-cmd in [tool.packcheck.diff.release])\n"
    )


def test_an_unknown_table_is_one_line_naming_the_known_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _tables(tmp_path, monkeypatch, TABLES + "\n[tool.packcheck.diff.mine]\n")
    assert main(["diff", "--table", "relase"]) == 2
    assert capsys.readouterr().err == (
        "packcheck diff: error: pyproject.toml [tool.packcheck.diff]: no table 'relase' "
        "([tool.packcheck.diff.relase]; tables: release, mine)\n"
    )
    _tables(tmp_path, monkeypatch, "[tool.packcheck.diff]\nmax-examples = 3\n")
    assert main(["diff", "--table", "release"]) == 2
    assert capsys.readouterr().err.endswith("; it has no named table)\n")
    # A table's key `table` is no key: --table is the command line's.
    _tables(tmp_path, monkeypatch, '[tool.packcheck.diff]\ntable = "release"\n')
    assert main(["diff", "--packer", "a:b", "--against", "a:b"]) == 2
    assert "unknown key 'table'" in capsys.readouterr().err
