"""``packcheck verify`` end to end, in-process (exit statuses, output, saved fixtures)."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from packcheck._cli import main
from packcheck._cli._progress import LiveLine
from packcheck._cli._values import parse_units

PACKERS = Path(__file__).parents[1] / "packers"
LINES = f"{sys.executable} {PACKERS / 'lines_packer.py'}"


@pytest.fixture(autouse=True)
def _in_packers_dir(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(PACKERS)


def test_the_default_run_verifies_the_numpy_packer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--seed", "1", "--max-examples", "100"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "packcheck verify: conformant: 3 fixtures, 100 generated cases, 89 transition-point "
        "cases, 74 wide-range cases, 188 long lists, seed 1,"
    )
    assert "packcheck's NumPy packer" in out


def test_a_broken_packer_exits_1_with_a_ready_to_save_fixture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "failures"
    args = ["verify", "--packer", "broken:missing_dedup", "--seed", "3", "--save-failures"]
    assert main([*args, str(saved), "--max-examples", "300"]) == 1
    out = capsys.readouterr().out
    assert "FAIL generated case (seed 3, shrunk)" in out
    assert "check:    invariant missing == required - kept" in out
    fixture_line = next(line for line in out.splitlines() if line.startswith("  fixture:"))
    (fixture,) = json.loads(fixture_line.split(":", 1)[1])
    assert set(fixture) == {"id", "input", "expected"}
    rerun = "rerun:    packcheck verify --packer broken:missing_dedup --seed 3 --max-examples 300"
    assert f"{rerun} --save-failures {saved}" in out
    (path,) = saved.glob("*.json")
    assert json.loads(path.read_text()) == [fixture]
    # The saved case replays with `packcheck fixtures` and is checked first next time.
    assert main(["fixtures", str(path)]) == 0
    assert main([*args, str(saved)]) == 1
    out = capsys.readouterr().out
    assert f"FAIL fixture {path}: case 1 ({fixture['id']})" in out
    assert "saved:" not in out


def test_saved_failures_from_another_engineer_are_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "old.json").write_text(
        '[{"id": "old", "input": {"budget": 0, "blocks": [], "required": ["A", "A"]},'
        ' "expected": {"kept": [], "remaining": 0, "missing": ["A", "A"]}}]'
    )
    args = ["verify", "--seed", "1", "--max-examples", "10", "--no-long-lists"]
    args += ["--save-failures", str(tmp_path)]
    assert main(args) == 0
    assert "4 fixtures" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--packer", "no_such_module_xyz:f"], "cannot import 'no_such_module_xyz'"),
        (["--packer", "broken:nope"], "has no function 'nope'"),
        (["--packer-cmd", "/no/such/packer"], "cannot start /no/such/packer"),
        (["--packer-cmd", "sh -c 'exit 2'"], "again when given the empty case: exited with"),
        (["--packer", "broken:nope", "--timeout", "1"], "has no function 'nope'"),
    ],
)
def test_setup_errors_exit_2_on_one_line(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert message in err


def test_an_unreadable_failures_directory_is_a_setup_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "bad.json").write_text("[1]")
    assert main(["verify", "--save-failures", str(tmp_path)]) == 2
    assert "expected a fixture object" in capsys.readouterr().err
    (tmp_path / "bad.json").unlink()
    (tmp_path / "dir.json").mkdir()
    assert main(["verify", "--save-failures", str(tmp_path)]) == 2
    assert f"{tmp_path / 'dir.json'}: Is a directory" in capsys.readouterr().err


def test_an_unknown_option_shows_the_usage_of_verify(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["verify", "--json", "x.json"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: packcheck verify ")
    assert err.endswith("packcheck verify: error: unrecognized arguments: --json x.json\n")


def test_the_largest_max_units_is_accepted() -> None:
    assert parse_units("2**14000") == 2**14000
    assert parse_units("2**14001-2**14000") == 2**14000


def test_max_units_accepts_digits_and_powers() -> None:
    assert parse_units("9007199254740991") == 2**53 - 1
    assert parse_units("2**70") == 2**70
    assert parse_units("2**53 - 1") == 2**53 - 1
    assert parse_units("1_000+2**3") == 1008


def test_a_wide_range_catches_float_arithmetic(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["verify", "--packer", "broken:float_arithmetic", "--seed", "1"]
    assert main([*args, "--max-examples", "200", "--no-long-lists"]) == 0
    assert main([*args, "--max-examples", "200", "--max-units", "2**70"]) == 1
    assert "--max-units '2**70'" in capsys.readouterr().out


def test_a_correct_command_packer_passes(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["verify", "--packer-cmd", LINES, "--seed", "2", "--max-examples", "150"]
    assert main([*args, "--no-long-lists"]) == 0
    assert "(command " in capsys.readouterr().out


def test_a_hanging_command_fails_within_the_timeout(capsys: pytest.CaptureFixture[str]) -> None:
    command = ["verify", "--packer-cmd", f"{LINES} close-stdout", "--timeout", "1", "--seed", "1"]
    assert main(command) == 1
    out = capsys.readouterr().out
    assert "packer fault: closed its stdout" in out
    assert "--timeout 1" in out


def test_a_python_packer_with_a_timeout_runs_in_a_worker(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["verify", "--packer", "broken:hangs", "--timeout", "0.5", "--seed", "1"]
    assert main(args) == 1
    assert "no answer within 0.5 s (timeout)" in capsys.readouterr().out
    args = ["verify", "--timeout", "30", "--seed", "1", "--max-examples", "20"]
    assert main([*args, "--no-long-lists"]) == 0


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_javascript_packer_passes_in_range_and_fails_beyond_2_to_the_53(
    capsys: pytest.CaptureFixture[str],
) -> None:
    command = ["verify", "--packer-cmd", "node packer.js", "--seed", "1", "--max-examples", "200"]
    assert main(command) == 0
    assert main([*command, "--max-units", "2**70"]) == 1
    assert "FAIL generated case" in capsys.readouterr().out


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_shown_only_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["verify", "--seed", "1", "--max-examples", "30", "--no-long-lists"]) == 0
    shown = terminal.getvalue()
    assert "\r\x1b[Kpackcheck verify: fixtures: 1 case, 0 s" in shown
    assert shown.endswith("\r\x1b[K")  # the line is cleared before the summary
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    assert main(["verify", "--seed", "1", "--max-examples", "30", "--no-long-lists"]) == 0
    # A log: whole lines, one as each phase ends (the last one before the report).
    lines = log.getvalue().splitlines(keepends=True)
    assert [line.split(":")[1] for line in lines] == [
        " fixtures",
        " generated",
        " transition points",
        " wide ranges",
    ]
    assert [line.split(",")[0] for line in lines if "transition" not in line] == [
        "packcheck verify: fixtures: 3 cases",
        "packcheck verify: generated: 30/30 cases",
        "packcheck verify: wide ranges: 74/74 cases",
    ]
    assert all(line.endswith(" s\n") for line in lines)
    log.truncate(0)
    args = ["verify", "--seed", "1", "--max-examples", "30", "--no-long-lists", "--quiet"]
    assert main(args) == 0
    assert log.getvalue() == ""
    assert capsys.readouterr().err == ""


def test_the_summary_counts_the_cases_at_transition_points_as_the_progress_does(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    args = ["verify", "--seed", "1", "--max-examples", "30", "--no-long-lists"]
    assert main(args) == 0
    (progress,) = [line for line in log.getvalue().splitlines() if "transition points:" in line]
    near = int(progress.split("transition points: ")[1].split(" ")[0])
    assert near > 0
    summary = capsys.readouterr().out.splitlines()[-1]
    assert summary.startswith(
        f"packcheck verify: conformant: 3 fixtures, 30 generated cases, {near} transition-point "
        "cases, 74 wide-range cases, 0 long lists, seed 1, "
    )
    assert main([*args, "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["phases"][1]["transition_cases"] == near
    assert report["cases"] == 3 + 30 + 74  # counted apart, as diff's report counts them


def test_a_run_without_a_seed_prints_the_one_it_used(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--max-examples", "5", "--no-long-lists"]) == 0
    assert ", seed " in capsys.readouterr().out


def test_the_module_entry_point_runs_the_gate() -> None:
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "packcheck",
            "verify",
            "--packer-cmd",
            f"{LINES} hang",
            "--timeout",
            "1",
            "--seed",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PIDFILE": "/dev/null", "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 1, result.stderr
    assert "no answer within 1 s" in result.stdout


@pytest.mark.parametrize(
    ("units", "text"),
    [
        (2**70, "2**70"),
        (2**53 - 1, "2**53-1"),
        (1000, "1000"),
        (256, "2**8"),
        (255, "2**8-1"),
        (3, "3"),
    ],
)
def test_the_rerun_line_writes_max_units_as_the_user_would(units: int, text: str) -> None:
    from packcheck._cli._values import power_text as _power_text

    assert _power_text(units) == text


_RECORDER = """
import json, os
from packcheck import pack

def rec(case):
    with open(os.environ["RECORD"], "a") as out:
        out.write(json.dumps(case, sort_keys=True) + "\\n")
    return pack(case)
"""
_CONSTANTS = "NAMES = ['zz-local', 'A', 'a']\nSIZES = [7, 4096, 2**40 + 3, -5]\n"


def test_a_seed_gives_the_same_cases_whatever_was_imported_and_whichever_entry_point(
    tmp_path: Path,
) -> None:
    (tmp_path / "recorder.py").write_text(_RECORDER)
    (tmp_path / "local_constants.py").write_text(_CONSTANTS)
    library = (
        "from packcheck.verify import check; import recorder; "
        "print(check(recorder.rec, seed=1, max_examples=60, long_lists=False).checked"
        "['transition points'])"
    )
    cli = ["-m", "packcheck", "verify", "--packer", "recorder:rec", "--seed", "1"]
    cli += ["--max-examples", "60", "--no-long-lists"]
    runs = {
        "library": ["-c", library],
        "library after imports": [
            "-c",
            "import local_constants, packcheck._cli.explain, packcheck._cli.pack; " + library,
        ],
        "cli": cli,
        "cli worker": [*cli, "--timeout", "30"],
    }
    recorded = {}
    for name, args in runs.items():
        record = tmp_path / f"{name}.jsonl"
        env = {"RECORD": str(record), "PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
        result = subprocess.run(
            [sys.executable, *args],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, (name, result.stdout, result.stderr)
        recorded[name] = record.read_text().splitlines()
        if name == "library":
            near = int(result.stdout)
    # Fixtures, generated cases, those beside transition points, wide ranges.
    assert near > 0
    assert len(recorded["library"]) == 3 + 60 + near + 50
    assert all(cases == recorded["library"] for cases in recorded.values())


@pytest.mark.parametrize(
    "name", ["casefold_ids", "lower_ids", "stripped_ids", "nfc_ids", "digit_string_units"]
)
def test_loose_ids_and_numeric_strings_exit_1_at_seed_1(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--packer", f"broken:{name}", "--seed", "1"]) == 1
    assert "FAIL generated case (seed 1, shrunk)" in capsys.readouterr().out


def test_a_save_failures_path_that_cannot_be_a_directory_stops_before_the_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", "--save-failures", "/proc/packcheck-cannot-be-here"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(
        "packcheck verify: error: --save-failures /proc/packcheck-cannot-be-here: "
    )
    assert err.count("\n") == 1


def test_the_command_leaves_no_hypothesis_folder_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert main(["verify", "--seed", "1", "--max-examples", "20", "--no-long-lists"]) == 0
    assert not (tmp_path / ".hypothesis").exists()
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(tmp_path / "asked-for"))
    assert main(["verify", "--seed", "1", "--max-examples", "20", "--no-long-lists"]) == 0
    assert not (tmp_path / ".hypothesis").exists()


def test_progress_that_never_drew_clears_nothing() -> None:
    terminal = _Terminal()
    LiveLine(terminal).close()
    assert terminal.getvalue() == ""


def test_packcheck_own_packer_packs_under_the_rule_in_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # No --packer: packcheck's own packer packs the declared rule, not the default one.
    rule = tmp_path / "newest.toml"
    rule.write_text('name = "newest"\norder = "reversed"\non_misfit = "stop"\nper_item = 2\n')
    args = ["verify", "--seed", "1", "--max-examples", "50"]
    assert main([*args, "--rule", str(rule)]) == 0
    out = capsys.readouterr().out
    assert "\npackcheck verify: conformant: " in out
    assert (
        "packcheck's NumPy packer under the rule newest "
        '(order = "reversed", on_misfit = "stop", per_item = 2)'
    ) in out
    # The bare command in a project whose pyproject.toml declares the rule: where the
    # rule is read from is what differs, so the long lists (the run above packed them
    # under this rule) are left out.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.packcheck.rule]\n" + rule.read_text())
    assert main([*args, "--no-long-lists"]) == 0
    assert "packcheck's NumPy packer under the rule newest" in capsys.readouterr().out
