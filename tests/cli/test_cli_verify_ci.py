"""``packcheck verify`` for CI: --format, --junit-xml, [tool.packcheck], the default timeout."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from test_cli_gate_ci import PHASES, TABLES, project

from packcheck._cli import _subjects, build_parser, main
from packcheck._cli import gate as cli_gate
from packcheck._cli.gate import Spec
from packcheck._packers import CallablePacker, CommandPacker, WorkerPacker

PACKERS = Path(__file__).parents[1] / "packers"
BROKEN = PACKERS / "broken.py"
LINES = f"{sys.executable} {PACKERS / 'lines_packer.py'}"
QUICK = ["--seed", "3", "--max-examples", "300", "--no-long-lists", "--quiet"]


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_the_json_report_of_a_counterexample(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--packer", f"{BROKEN}:missing_dedup", *QUICK, "--format", "json"]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    report = json.loads(out)
    assert report["verdict"] == "not conformant"
    assert report["seed"] == 3
    assert report["packer"] == f"{BROKEN}:missing_dedup"
    assert report["settings"]["timeout"] == 10.0
    assert [p["name"] for p in report["phases"]] == PHASES
    failure = report["failure"]
    assert failure["phase"] == "generated"
    assert failure["check"] == "output: differs from the declared output (exact JSON and types)"
    assert failure["checks"][1].startswith("invariant missing == required - kept: got ")
    assert failure["rerun"].startswith(f"packcheck verify --packer {BROKEN}:missing_dedup --seed 3")
    assert failure["expected"]["missing"] != failure["answer"]["missing"]


def test_the_github_format_starts_with_an_error_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["verify", "--packer", f"{BROKEN}:missing_dedup", *QUICK, "--format", "github"]
    assert main(args) == 1
    first, *rest = capsys.readouterr().out.splitlines()
    assert first.startswith("::error title=packcheck verify%3A generated%3A output%3A differs ")
    assert "rerun:    packcheck verify" in first
    assert rest[-1].startswith("packcheck verify: NOT conformant after ")


def test_the_command_line_overrides_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project(tmp_path, TABLES["verify"][0])
    # The command line wins: another packer (of the other kind), seed and format.
    assert main(["verify", "--packer-cmd", LINES, "--seed", "4", "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("packcheck verify: conformant: 3 fixtures, 300 generated cases")
    assert ", seed 4, " in out
    args = ["verify", "--long-lists", "--timeout", "0", "--max-examples", "1", "--format", "json"]
    assert main(args) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["settings"]["long_lists"] is True
    assert report["settings"]["timeout"] is None


def test_paths_in_the_table_are_relative_to_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pack.py").write_text(BROKEN.read_text())
    project(
        tmp_path,
        '[tool.packcheck]\npacker = "pack.py:missing_dedup"\nsave-failures = "failures"\n'
        "long-lists = false\nseed = 3\nmax-examples = 300\n",
    )
    (tmp_path / "out").mkdir()
    # pytest's way: below the project, in a folder with a pyproject.toml of its own
    # that has no [tool.packcheck], the project's table still applies.
    below = tmp_path / "src" / "deep"
    below.mkdir(parents=True)
    (below / "pyproject.toml").write_text("[tool.other]\nx = 1\n")
    monkeypatch.chdir(below)
    assert main(["verify", "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "rerun:    packcheck verify --packer ../../pack.py:missing_dedup --seed 3" in out
    assert list((tmp_path / "failures").glob("*.json"))


def test_a_packer_the_table_names_is_blamed_on_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project(tmp_path, '[tool.packcheck]\npacker = "pack.py:nope"')
    (tmp_path / "pack.py").write_text("x = 1\n")
    assert main(["verify"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "packcheck verify: error: pyproject.toml [tool.packcheck]: packer 'pack.py:nope': "
        "'pack.py' has no function 'nope'\n"
    )
    # Given on the command line, the option is named.
    assert main(["verify", "--packer", "pack.py:nope"]) == 2
    assert capsys.readouterr().err.startswith("packcheck verify: error: --packer 'pack.py:nope': ")


def test_a_pyproject_that_cannot_be_read_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_bytes(b"\xff\xfe")
    assert main(["verify"]) == 2
    assert capsys.readouterr().err.startswith("packcheck verify: error: pyproject.toml: ")
    (tmp_path / "pyproject.toml").unlink()
    (tmp_path / "pyproject.toml").mkdir()  # not a file: not a pyproject.toml
    assert main(["verify", *QUICK, "--max-examples", "5"]) == 0


def test_a_table_above_the_current_directory_is_named_by_its_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project(tmp_path, "[tool.packcheck]\nnope = 1")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert main(["verify"]) == 2
    err = capsys.readouterr().err
    assert f"error: {tmp_path / 'pyproject.toml'} [tool.packcheck]: unknown key 'nope'" in err


def _settings(*argv: str) -> Spec:
    return cli_gate.spec(vars(build_parser().parse_args(["verify", *argv])), "verify")


def _packer(s: Spec) -> Any:
    return _subjects.verify_packer(s)


def test_python_packers_get_the_default_timeout_in_a_worker() -> None:
    chosen, _ = _packer(_settings("--packer", f"{BROKEN}:correct"))
    try:
        assert isinstance(chosen, WorkerPacker)
        assert chosen.timeout == cli_gate.DEFAULT_TIMEOUT == 10
    finally:
        chosen.close()
    chosen, _ = _packer(_settings("--packer", f"{BROKEN}:correct", "--timeout", "0"))
    assert isinstance(chosen, CallablePacker)
    chosen, name = _packer(_settings())
    assert isinstance(chosen, CallablePacker)  # packcheck's own: in-process
    assert name == "packcheck's NumPy packer"
    chosen, _ = _packer(_settings("--timeout", "5"))
    try:
        assert isinstance(chosen, WorkerPacker)
    finally:
        chosen.close()


def test_a_command_without_a_timeout_waits_as_long_as_it_takes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    chosen, _ = _packer(_settings("--packer-cmd", LINES, "--timeout", "0"))
    try:
        assert isinstance(chosen, CommandPacker)
        assert chosen.timeout == float("inf")
        answer = chosen.answer({"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []})
        assert answer == {"kept": ["A"], "remaining": 0, "missing": []}
    finally:
        chosen.close()


@pytest.mark.parametrize("timeout", ["0", "10"])
def test_what_a_python_packer_prints_goes_to_stderr_in_either_mode(
    timeout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # In this process (--timeout 0) or in a worker: stdout is the report alone.
    (tmp_path / "noisy.py").write_text(
        "from packcheck import pack\n\n"
        "def pack_case(case):\n"
        "    print('packing', len(case['blocks']))\n"
        "    return pack(case)\n"
    )
    argv = ["verify", "--packer", "noisy.py:pack_case", *QUICK, "--max-examples", "5"]
    assert main([*argv, "--timeout", timeout, "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["verdict"] == "conformant"
    assert "packing 3\n" in captured.err  # the first seed fixture's three blocks
