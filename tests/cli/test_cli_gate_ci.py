"""What ``packcheck verify`` and ``diff`` do alike for CI: --junit-xml, --save-failures
that cannot be used, and a [tool.packcheck] table that is read or cannot be; each test
runs once per command."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import NoReturn

import pytest

from packcheck._cli import main
from packcheck._gate import run as gate_run

PACKERS = Path(__file__).parents[1] / "packers"
WILD = PACKERS / "wild.py"
BROKEN = PACKERS / "broken.py"
# 20 generated cases: a run that passes, or fails at once, is all these tests need of it.
QUICK = ["--seed", "3", "--max-examples", "20", "--no-long-lists", "--quiet"]
#: Each command's run that passes, and the first words it prints.
PASSES = {
    "verify": (["verify", *QUICK], "packcheck verify: conformant: "),
    "diff": (
        ["diff", "--packer", f"{WILD}:keep_newest", "--against", f"{WILD}:keep_newest", *QUICK],
        "packcheck diff: agree: ",
    ),
}
#: Each command's run that fails, and the first words it prints.
FAILS = {
    "verify": (
        ["verify", "--packer", f"{PACKERS / 'broken.py'}:missing_dedup", *QUICK],
        "FAIL generated case (seed 3, shrunk)",
    ),
    "diff": (
        ["diff", "--packer", f"{WILD}:keep_newest_lt", "--against", f"{WILD}:keep_newest", *QUICK],
        "DIFFERS generated case (seed 3, shrunk)",
    ),
}
#: The phases of a run, in the order reports list them.
PHASES = ["fixtures", "generated", "wide ranges", "long lists"]
COMMANDS = pytest.mark.parametrize("command", ["verify", "diff"])


def _full(*args: object) -> NoReturn:
    """A write to a full disk."""
    raise OSError(28, "No space left on device")


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


@COMMANDS
def test_junit_xml_is_written_beside_the_text(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / f"{command}.xml"
    argv, first = PASSES[command]
    assert main([*argv, "--junit-xml", str(report)]) == 0
    assert capsys.readouterr().out.startswith(first)
    suite = ET.parse(report).getroot().find("testsuite")
    assert suite is not None
    assert suite.attrib["failures"] == "0"
    assert [c.attrib["name"] for c in suite.iter("testcase")] == PHASES


@COMMANDS
def test_a_junit_path_that_cannot_be_written_stops_before_the_run(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, _ = PASSES[command]
    assert main([*argv, "--junit-xml", str(tmp_path)]) == 2
    assert (
        capsys.readouterr().err
        == f"packcheck {command}: error: --junit-xml {tmp_path}: is a directory\n"
    )
    missing = tmp_path / "no" / "r.xml"
    assert main([*argv, "--junit-xml", str(missing)]) == 2
    assert capsys.readouterr().err == (
        f"packcheck {command}: error: --junit-xml {missing}: "
        f"{missing.parent} is not a writable directory\n"
    )


@pytest.mark.parametrize("runs", [PASSES, FAILS])
@COMMANDS
def test_a_junit_file_that_fails_to_write_is_exit_2(
    command: str,
    runs: dict[str, tuple[list[str], str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(Path, "write_bytes", _full)
    argv, first = runs[command]
    assert main([*argv, "--junit-xml", str(tmp_path / "r.xml")]) == 2
    captured = capsys.readouterr()
    assert captured.out.startswith(first)
    assert captured.err == (
        f"packcheck {command}: error: --junit-xml {tmp_path / 'r.xml'}: No space left on device\n"
    )


@COMMANDS
def test_a_save_failures_path_that_is_a_file_stops_before_the_run(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "taken"
    a_file.write_text("")
    argv, _ = PASSES[command]
    assert main([*argv, "--save-failures", str(a_file)]) == 2
    assert capsys.readouterr().err == (
        f"packcheck {command}: error: --save-failures {a_file}: exists and is not a directory\n"
    )


@COMMANDS
def test_a_failure_that_cannot_be_saved_is_still_reported(
    command: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(gate_run, "save_fixture", _full)
    argv, first = FAILS[command]
    assert main([*argv, "--save-failures", str(tmp_path), "--max-units", "2**40"]) == 1
    out = capsys.readouterr().out
    assert out.startswith(first)
    assert "saved:    nothing: No space left on device" in out
    assert "--max-units '2**40'" in out


def project(tmp_path: Path, table: str) -> None:
    """Write a project's pyproject.toml in ``tmp_path``, with ``table`` in it."""
    (tmp_path / "pyproject.toml").write_text(f"[project]\nname = 'x'\n\n{table}\n")


#: Tables each command refuses, and what its one line says of each.
BAD_TABLES = {
    "verify": [
        ("[tool.packcheck]\njson = true", "unknown key 'json' (keys: connect-timeout, long-lists,"),
        (
            "[tool.packcheck]\nno-long-list = true",
            "unknown key 'no-long-list' (did you mean 'no-long-lists'? keys: connect-timeout,",
        ),
        ("[tool.packcheck]\nhelp = true", "unknown key 'help'"),
        ('[tool.packcheck]\nseed = "x"', "seed: 'x' is not a non-negative integer"),
        ('[tool.packcheck]\nmax-units = "2**20000"', "max-units: 2**20000 is too large"),
        ('[tool.packcheck]\npartition = "yes"', 'partition: expected true or false, not "yes"'),
        ("[tool.packcheck]\nseed = true", "seed: expected a string or a number, not true"),
        ("[tool.packcheck]\nseed = [1]", "seed: expected a string or a number, not [1]"),
        (
            '[tool.packcheck]\nseed = {a = 1, b = "x"}',
            'seed: expected a string or a number, not {a = 1, b = "x"}',
        ),
        ('[tool.packcheck]\nformat = "json"', "format: a command-line option only (--format)"),
        ('[tool.packcheck]\njunit-xml = "x.xml"', "junit-xml: a command-line option only"),
        ("[tool.packcheck]\npartition = true\nno-partition = true", "no-partition: set twice"),
        (
            '[tool.packcheck]\npacker = "a:b"\npacker-cmd = "c"',
            "[tool.packcheck]: packer and packer-cmd exclude each other",
        ),
        ("[tool]\npackcheck = 3", "pyproject.toml: [tool.packcheck] must be a table"),
        ("[tool.packcheck\n", "pyproject.toml: Expected ']'"),
        (
            '[tool.packcheck]\ndiff = "x"',
            "pyproject.toml [tool.packcheck]: diff: expected a table "
            "([tool.packcheck.diff]), not 'x'\n",
        ),
    ],
    "diff": [
        (
            "[tool.packcheck.diff]\npartition = true",
            "pyproject.toml [tool.packcheck.diff]: unknown key 'partition' (keys: against, "
            "against-cmd, connect-timeout, count, long-lists, max-examples, max-units, "
            "no-count, no-long-lists, packer, packer-cmd, quiet, save-failures, scheduler, "
            "seed, seeds, timeout, workers)",
        ),
        ("[tool.packcheck.diff]\ntimeout = -1", "[tool.packcheck.diff]: timeout: -1 must be 0"),
        ('[tool.packcheck.diff]\ncount = "yes"', 'count: expected true or false, not "yes"'),
        ('[tool.packcheck.diff]\nformat = "json"', "format: a command-line option only"),
        ("[tool.packcheck.diff]\ncount = true\nno-count = false", "no-count: set twice"),
        (
            '[tool.packcheck.diff]\npacker = "a:b"\npacker-cmd = "c"',
            "[tool.packcheck.diff]: packer and packer-cmd exclude each other",
        ),
        (
            '[tool.packcheck.diff]\nagainst = "a:b"\nagainst-cmd = "c"',
            "[tool.packcheck.diff]: against and against-cmd exclude each other",
        ),
        (
            "[tool.packcheck]\ndiff = 3",
            "pyproject.toml [tool.packcheck]: diff: expected a table ([tool.packcheck.diff]), "
            "not 3",
        ),
    ],
}


@pytest.mark.parametrize(
    ("command", "table", "message"),
    [(command, *bad) for command, tables in BAD_TABLES.items() for bad in tables],
)
def test_a_bad_table_is_a_one_line_usage_error(
    command: str, table: str, message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project(tmp_path, table)
    assert main([command]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"packcheck {command}: error: pyproject.toml")
    assert message in err
    assert err.count("\n") == 1


#: Each command's table of settings, and what its JSON report shows of them.
TABLES = {
    "verify": (
        f'[tool.packcheck]\npacker = "{BROKEN}:missing_dedup"\nseed = 3\n'
        "max-examples = 300\nno-long-lists = true\nquiet = true\n"
        'max-units = "2**40"\ntimeout = 20\npartition = false\n',
        {
            "seed": 3,
            "settings": {
                "max_examples": 300,
                "max_units": "2**40",
                "timeout": 20.0,
                "partition": False,
                "long_lists": False,
                "save_failures": None,
            },
            "rerun": f"packcheck verify --packer {BROKEN}:missing_dedup --seed 3 "
            "--max-examples 300 --max-units '2**40' --timeout 20 --no-long-lists",
        },
    ),
    "diff": (
        f'[tool.packcheck.diff]\npacker = "{WILD}:keep_newest_lt"\n'
        f'against = "{WILD}:keep_newest"\nseed = 3\nmax-examples = 20\n'
        'no-long-lists = true\nquiet = true\nmax-units = "2**40"\n'
        "timeout = 20\ncount = true\n",
        {
            "seed": 3,
            "counted": True,
            "settings": {
                "max_examples": 20,
                "max_units": "2**40",
                "timeout": 20.0,
                "count": True,
                "long_lists": False,
                "save_failures": None,
            },
            "rerun": f"packcheck diff --packer {WILD}:keep_newest_lt --against "
            f"{WILD}:keep_newest --seed 3 --max-examples 20 --max-units '2**40' --timeout 20 "
            "--count --no-long-lists",
        },
    ),
}


@COMMANDS
def test_settings_come_from_the_commands_table(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table, shown = TABLES[command]
    project(tmp_path, table)
    assert main([command, "--format", "json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert {key: report[key] for key in shown} == shown


#: Option values both commands refuse (the values before the command's own).
BAD_VALUES = [
    ["--max-units", "2**"],
    ["--max-units", "0"],
    ["--max-units", "2**53-2**54"],
    ["--max-units", "9**9999999"],
    ["--max-units", "2**20000"],
    ["--max-units", "2**14000+1"],
    ["--max-units", "1" * 5000],
    ["--max-examples", "0"],
    ["--max-examples", "many"],
    ["--timeout", "-1"],
    ["--timeout", "inf"],
    ["--timeout", "x"],
    ["--seed", "-3"],
    ["--format", "xml"],
    ["--seed"],
]
SIDES = ["--packer", "a:b", "--against", "d:e"]


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [(command, args, "") for command in ["verify", "diff"] for args in BAD_VALUES]
    + [
        (
            "verify",
            ["--packer", "a:b", "--packer-cmd", "c"],
            "argument --packer-cmd: not allowed with argument --packer",
        ),
        (
            "diff",
            ["--packer", "a:b", "--packer-cmd", "c", "--against", "d:e"],
            "argument --packer-cmd: not allowed with argument --packer",
        ),
        (
            "diff",
            ["--packer", "a:b", "--against", "d:e", "--against-cmd", "c"],
            "argument --against-cmd: not allowed with argument --against",
        ),
        ("diff", [*SIDES, "--timeout", "-1"], "-1 must be 0 (no timeout)"),
        ("diff", [*SIDES, "--format", "xml"], "invalid choice: 'xml'"),
    ],
)
def test_a_bad_option_value_is_one_line_naming_the_argument(
    command: str, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit, match=r"^2$"):
        main([command, *args])
    err = capsys.readouterr().err
    assert err.startswith(f"packcheck {command}: error: argument ")
    assert message in err
    assert err.count("\n") == 1
    assert len(err) < 300
