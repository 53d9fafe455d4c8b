"""``packcheck diff`` for CI: --format, --junit-xml and [tool.packcheck.diff]."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_cli_gate_ci import PHASES, TABLES, project

from packcheck._cli import build_parser, main
from packcheck._cli import gate as cli_gate

PACKERS = Path(__file__).parents[1] / "packers"
WILD = PACKERS / "wild.py"
BROKEN = PACKERS / "broken.py"
LINES = f"{sys.executable} {PACKERS / 'lines_packer.py'}"
# 20 generated cases: the one-line change is met, and shrunk, within them at seed 3.
QUICK = ["--seed", "3", "--max-examples", "20", "--no-long-lists", "--quiet"]
CHANGE = ["diff", "--packer", f"{WILD}:keep_newest_lt", "--against", f"{WILD}:keep_newest"]
SAME = ["diff", "--packer", f"{WILD}:keep_newest", "--against", f"{WILD}:keep_newest"]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_the_json_report_of_a_divergence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*CHANGE, *QUICK, "--format", "json"]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    report = json.loads(out)
    assert report["command"] == "diff"
    assert report["verdict"] == "diverge"
    assert report["status"] == 1
    assert report["seed"] == 3
    assert report["new"] == f"{WILD}:keep_newest_lt"
    assert report["old"] == f"{WILD}:keep_newest"
    assert report["settings"] == {
        "max_examples": 20,
        "max_units": "2**53-1",
        "timeout": 10.0,
        "count": False,
        "long_lists": False,
        "save_failures": None,
    }
    assert [p["name"] for p in report["phases"]] == PHASES
    divergence = report["divergence"]
    assert divergence["phase"] == "generated"
    assert divergence["case"] == {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []}
    assert divergence["new"]["answer"] == {"kept": [], "remaining": 1, "missing": []}
    assert divergence["old"]["answer"] == {"kept": ["A"], "remaining": 0, "missing": []}
    assert divergence["rule"] == divergence["old"]["answer"]
    assert divergence["parts"] == 'kept[0]: NEW ends after 0 entries; OLD goes on with "A"'
    assert report["rerun"] == divergence["rerun"]
    assert report["rerun"].startswith(f"packcheck diff --packer {WILD}:keep_newest_lt --against ")


def test_a_timeout_is_an_error_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["diff", "--packer", f"{BROKEN}:hangs", "--against", f"{BROKEN}:correct"]
    assert main([*args, *QUICK, "--timeout", "1", "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["verdict"] == "error"
    assert report["settings"]["timeout"] == 1.0
    assert report["divergence"]["new"]["kind"] == "fault"
    assert report["divergence"]["new"]["fault"].startswith("no answer within 1 s (timeout)")


def test_the_github_format_starts_with_an_error_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main([*CHANGE, *QUICK, "--format", "github"]) == 1
    first, *rest = capsys.readouterr().out.splitlines()
    assert first.startswith(
        "::error title=packcheck diff%3A generated%3A output%3A NEW and OLD answer differently"
    )
    assert "%0Arerun:    packcheck diff --packer " in first
    assert rest[0] == "DIFFERS generated case (seed 3, shrunk)"
    assert rest[-1].startswith("packcheck diff: DIFFERENT after ")
    assert main([*SAME, *QUICK, "--format", "github"]) == 0
    first, last = capsys.readouterr().out.splitlines()
    assert first.startswith("::notice title=packcheck diff%3A agree::packcheck diff: agree: ")
    assert last.startswith("packcheck diff: agree: ")


def test_junit_xml_of_count_has_a_failure_per_failing_phase(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "diff.xml"
    assert main([*SAME, *QUICK, "--junit-xml", str(report)]) == 0
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None
    assert suite.attrib["skipped"] == "1"
    capsys.readouterr()
    assert main([*CHANGE, *QUICK, "--junit-xml", str(report), "--count"]) == 1
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None
    assert suite.attrib["failures"] == "2"  # generated (shown) and wide ranges (counted)
    failure = suite.find("testcase/failure")
    assert failure is not None
    assert failure.text == capsys.readouterr().out.rstrip("\n")


def test_the_command_line_overrides_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project(tmp_path, TABLES["diff"][0])
    # The command line wins: NEW of the other kind, seed, format, and flags undone.
    args = ["diff", "--packer-cmd", LINES, "--seed", "4", "--format", "text", "--no-count"]
    assert main([*args, "--max-examples", "5"]) == 1
    out = capsys.readouterr().out
    assert "share:" not in out
    assert out.splitlines()[-1].startswith("packcheck diff: DIFFERENT after ")
    assert f"(NEW command {LINES!r}, OLD {WILD}:keep_newest)" in out
    assert ", seed 4, " in out
    args = build_parser().parse_args(["diff", "--against-cmd", LINES, "--long-lists"])
    chosen = cli_gate.spec(vars(args), "diff")
    assert (chosen.packer, chosen.against, chosen.against_cmd) == (
        f"{WILD}:keep_newest_lt",
        None,
        LINES,
    )
    assert (chosen.settings.long_lists, chosen.count, chosen.format) == (True, True, "text")
    assert chosen.origins["--packer"] == "pyproject.toml [tool.packcheck.diff]: packer"


def test_paths_in_the_table_are_relative_to_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "new.py").write_text(WILD.read_text())
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "trim.py").write_text(WILD.read_text())
    project(
        tmp_path,
        '[tool.packcheck.diff]\npacker = "new.py:keep_newest_lt"\n'
        'against = "old/trim.py:keep_newest"\nsave-failures = "divergences"\n'
        "long-lists = false\nseed = 3\nmax-examples = 20\n",
    )
    (tmp_path / "out").mkdir()
    below = tmp_path / "src" / "deep"
    below.mkdir(parents=True)
    monkeypatch.chdir(below)
    assert main(["diff", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert (
        "rerun:    packcheck diff --packer ../../new.py:keep_newest_lt "
        "--against ../../old/trim.py:keep_newest --seed 3"
    ) in out
    assert "--save-failures ../../divergences" in out
    assert list((tmp_path / "divergences").glob("diff-*.json"))


def test_each_command_reads_its_own_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # verify's table names a packer; diff does not take it, and verify takes
    # nothing of [tool.packcheck.diff] (here a key verify does not even have).
    project(
        tmp_path,
        f'[tool.packcheck]\npacker = "{BROKEN}:correct"\n'
        f"max-examples = 5\nno-long-lists = true\nquiet = true\n\n"
        f'[tool.packcheck.diff]\nagainst = "{WILD}:keep_newest"\nmax-examples = 7\n',
    )
    assert main(["diff"]) == 2
    assert capsys.readouterr().err == (
        "packcheck diff: error: NEW is needed: --packer or --packer-cmd (or packer or "
        "packer-cmd in [tool.packcheck.diff])\n"
    )
    assert main(["diff", "--packer", f"{WILD}:keep_newest", "--no-long-lists", "-q"]) == 0
    assert capsys.readouterr().out.startswith(
        "packcheck diff: agree: 3 fixtures, 7 generated cases, "
    )
    assert main(["verify", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["settings"]["max_examples"] == 5


def test_a_side_the_table_names_is_blamed_on_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = '[tool.packcheck.diff]\npacker = "pack.py:pack"\nagainst = "pack.py:nope"'
    project(tmp_path, table)
    (tmp_path / "pack.py").write_text("def pack(case):\n    return {}\n")
    assert main(["diff"]) == 2
    assert capsys.readouterr().err == (
        "packcheck diff: error: pyproject.toml [tool.packcheck.diff]: against 'pack.py:nope': "
        "'pack.py' has no function 'nope'\n"
    )
