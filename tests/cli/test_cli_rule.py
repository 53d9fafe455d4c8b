"""``packcheck rule show`` and ``packcheck rule diff``."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from packcheck import Rule, _stop
from packcheck._cli import main
from packcheck._rule.interpret import interpret
from packcheck.rules import _diff as rule_diff

CHAT = 'name = "chat"\norder = "reversed"\non_misfit = "stop"\nper_item = 3\n'


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def ran(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# rule show


def test_show_a_rule_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rule = write(tmp_path / "chat.toml", CHAT)
    status, out, err = ran(capsys, "rule", "show", str(rule))
    assert status == 0
    assert err == ""
    lines = out.splitlines()
    assert lines[0] == f"rule from {rule}"
    assert lines[2].split()[:2] == ["order", '"reversed"']
    assert "newest first" in lines[2]
    assert len(lines) == 16


def test_show_a_pyproject_table(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    project = write(tmp_path / "pyproject.toml", "[tool.packcheck.rule]\nper_item = 2\n")
    status, out, _ = ran(capsys, "rule", "show", str(project), "--format", "json")
    assert status == 0
    report = json.loads(out)
    assert report["source"] == f"{project} [tool.packcheck.rule]"
    assert report["changed"] == ["per_item = 2"]


def test_show_as_json_gives_each_value_as_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    rule = write(tmp_path / "r.toml", f'{CHAT}separator = "1/2"\nremaining = "sizes"\n')
    status, out, _ = ran(capsys, "rule", "show", str(rule), "--format", "json")
    assert status == 0
    values = {key["key"]: key["value"] for key in json.loads(out)["keys"]}
    # Numbers as numbers, strings as strings (not their TOML text); a fraction as the
    # "p/q" a rule file takes.
    assert values["name"] == "chat"
    assert values["order"] == "reversed"
    assert values["per_item"] == 3
    assert values["separator"] == "1/2"
    assert values["refuse_empty"] is False


def test_show_without_a_file_uses_the_table_verify_uses(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "pyproject.toml", "[tool.packcheck.rule]\nfit = 'lt'\n")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    status, out, _ = ran(capsys, "rule", "show")
    assert status == 0
    assert out.splitlines()[0] == f"rule from {tmp_path / 'pyproject.toml'} [tool.packcheck.rule]"
    assert 'fit                  "lt"' in out


def test_show_without_a_table_is_the_default_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, _ = ran(capsys, "rule", "show", "--format", "json")
    assert status == 0
    report = json.loads(out)
    assert report["source"].startswith("the default rule (no [tool.packcheck.rule]")
    assert report["changed"] == []
    assert all(key["default"] for key in report["keys"])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ordr = 'given'\n", "ordr: unknown rule key (did you mean 'order'?"),
        ("per_item = 2.0\n", 'per_item: expected an integer >= 0 or "p/q", got 2.0 (float)'),
        ("per_item = '1/2'\n", 'per_item: fractional charge 1/2 needs remaining = "sizes"'),
        ("order = \n", "not TOML"),
    ],
)
def test_show_a_bad_rule_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    rule = write(tmp_path / "bad.toml", text)
    status, out, err = ran(capsys, "rule", "show", str(rule))
    assert status == 2
    assert out == ""
    (line,) = err.splitlines()
    assert line.startswith(f"packcheck rule show: error: {rule}: ")
    assert message in line


def test_show_a_missing_file_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = ran(capsys, "rule", "show", "no-such-rule.toml")
    assert status == 2
    assert err == "packcheck rule show: error: no-such-rule.toml: No such file or directory\n"


def test_rule_needs_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["rule"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["rule", "diff", "a.toml", "b.toml", "--max-cases", "0"])
    assert info.value.code == 2
    (line,) = capsys.readouterr().err.splitlines()[-1:]
    assert line.startswith("packcheck rule diff: error: argument --max-cases:")


# rule diff


@pytest.fixture
def rules(tmp_path: Path) -> tuple[Path, Path]:
    old = write(tmp_path / "old.toml", CHAT)
    new = write(tmp_path / "new.toml", CHAT.replace("per_item = 3", "per_item = 4"))
    return old, new


def test_diff_prints_each_case_as_a_json_line_and_both_answers(
    capsys: pytest.CaptureFixture[str], rules: tuple[Path, Path]
) -> None:
    old, new = rules
    status, out, _ = ran(capsys, "rule", "diff", str(old), str(new), "--seed", "1", "--quiet")
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == f'OLD: {old}: chat (order = "reversed", on_misfit = "stop", per_item = 3)'
    assert lines[1] == f'NEW: {new}: chat (order = "reversed", on_misfit = "stop", per_item = 4)'
    assert lines[2].startswith("2 cases on which they answer differently, smallest first (")
    # A case for each way they differ: what is kept, and what remains of the same.
    case = json.loads(lines[3])
    assert case == {"budget": 4, "blocks": [{"id": "A", "size": 1}], "required": []}
    assert lines[4] == '  OLD: {"kept":["A"],"remaining":0,"missing":[]}'
    assert lines[5] == '  NEW: {"kept":[],"remaining":4,"missing":[]}'
    assert json.loads(lines[6]) == {"budget": 5, "blocks": [{"id": "A", "size": 1}], "required": []}
    assert lines[7] == '  OLD: {"kept":["A"],"remaining":1,"missing":[]}'
    assert lines[8] == '  NEW: {"kept":["A"],"remaining":0,"missing":[]}'
    assert lines[-1] == f"rerun: packcheck rule diff {old} {new} --seed 1"


def test_diff_of_two_spellings_of_one_rule_is_equivalent(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    old = write(tmp_path / "old.toml", "max_count = 1\nseparator = 5\n")
    new = write(tmp_path / "pyproject.toml", "[tool.packcheck.rule]\nmax_count = 1\n")
    status, out, err = ran(capsys, "rule", "diff", str(old), str(new))
    assert status == 0
    assert out.splitlines()[-1] == "equivalent: the same rule (max_count = 1); no case tried"
    assert err == ""  # nothing searched: no progress


def test_diff_of_rules_that_agree_on_every_case_tried_says_how_many(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    old = write(tmp_path / "old.toml", "max_count = 1\non_misfit = 'overshoot'\n")
    new = write(
        tmp_path / "new.toml", "max_count = 1\non_misfit = 'overshoot'\norder = 'middle-out'\n"
    )
    argv = ["rule", "diff", str(old), str(new), "--seed", "2", "--max-examples", "10", "-q"]
    status, out, _ = ran(capsys, *argv)
    assert status == 0
    lines = out.splitlines()
    assert lines[2].startswith("no difference found in ")
    assert lines[2].endswith(" cases (seed 2); they may still differ on a case not tried")
    assert lines[3] == f"rerun: packcheck rule diff {old} {new} --seed 2 --max-examples 10"
    status, out, _ = ran(capsys, *argv, "--format", "json")
    report = json.loads(out)
    assert report["verdict"] == "agree"
    assert report["tried"] > 10
    assert report["cases"] == []


def test_diff_json_is_one_object(
    capsys: pytest.CaptureFixture[str], rules: tuple[Path, Path]
) -> None:
    old, new = rules
    status, out, _ = ran(
        capsys, "rule", "diff", str(old), str(new), "--seed", "1", "--format", "json", "-q"
    )
    assert status == 1
    report = json.loads(out)
    assert report["verdict"] == "differ"
    assert report["old"] == {
        "source": str(old),
        "name": "chat",
        "rule": ['order = "reversed"', 'on_misfit = "stop"', "per_item = 3"],
    }
    assert report["seed"] == 1
    assert len(report["cases"]) == 2
    for case in report["cases"]:
        assert case["new"] == interpret(Rule.load(new), case["input"]).result
        assert case["old"] == interpret(Rule.load(old), case["input"]).result
    status, out, _ = ran(capsys, "rule", "diff", str(old), str(old), "--format", "json")
    assert json.loads(out)["verdict"] == "equivalent"


def test_diff_shows_progress_on_stderr(
    capsys: pytest.CaptureFixture[str], rules: tuple[Path, Path]
) -> None:
    status, _, err = ran(capsys, "rule", "diff", *map(str, rules), "--seed", "1")
    assert status == 1
    lines = err.splitlines()
    # 200 drawn cases and 5 at the rules' thresholds (0, 4, 5, 8, 10), walked until 16
    # differences are found; then those are shrunk.
    assert re.fullmatch(r"packcheck rule diff: walking: \d+/205 cases, \d+ s", lines[0])
    assert re.fullmatch(r"packcheck rule diff: shrinking cases: \d+/16 cases, \d+ s", lines[-1])


def test_diff_save_writes_fixtures_of_new_that_verify_replays(
    capsys: pytest.CaptureFixture[str], rules: tuple[Path, Path], tmp_path: Path
) -> None:
    old, new = rules
    saved = tmp_path / "saved"
    status, out, _ = ran(
        capsys, "rule", "diff", str(old), str(new), "--seed", "1", "--save", str(saved), "-q"
    )
    assert status == 1
    paths = sorted(saved.glob("*.json"))
    assert [f"saved: {path}" for path in paths] == [
        line for line in out.splitlines() if line.startswith("saved: ")
    ]
    path = next(p for p in paths if 'budget":4' in p.read_text())
    (fixture,) = json.loads(path.read_text())
    assert fixture["rule"] == {
        "name": "chat",
        "order": "reversed",
        "on_misfit": "stop",
        "per_item": 4,
    }
    assert fixture["expected"] == interpret(Rule.load(new), fixture["input"]).result
    # A packer of OLD's rule fails NEW's gate on the saved fixture, before any other case.
    packer = write(
        tmp_path / "old_packer.py",
        f"import packcheck\n\nRULE = packcheck.Rule.load({str(old)!r})\n\n\n"
        "def pack(case):\n    return packcheck.pack(case, rule=RULE)\n",
    )
    verify = ["verify", "--packer", f"{packer}:pack", "--rule", str(new),
              "--save-failures", str(saved), "--seed", "1", "--no-long-lists",
              "--timeout", "0", "--quiet"]  # fmt: skip
    status, out, _ = ran(capsys, *verify)
    assert status == 1
    # The smallest case, the report's first, is the first replayed and reported.
    assert [p.name[: len("rule-diff-01-")] for p in paths] == [
        f"rule-diff-{n:02d}-" for n in range(1, len(paths) + 1)
    ]
    first = json.loads(paths[0].read_text())[0]["id"]
    assert out.startswith(f"FAIL fixture {paths[0]}: case 1 ({first})")


def test_diff_save_into_a_file_is_one_line(
    capsys: pytest.CaptureFixture[str], rules: tuple[Path, Path], tmp_path: Path
) -> None:
    taken = write(tmp_path / "taken", "")
    status, out, err = ran(capsys, "rule", "diff", *map(str, rules), "--save", str(taken))
    assert status == 2
    assert out == ""
    assert err == f"packcheck rule diff: error: --save {taken}: exists and is not a directory\n"


def test_diff_a_fixture_that_cannot_be_written_is_one_line(
    capsys: pytest.CaptureFixture[str], rules: tuple[Path, Path], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    saved = tmp_path / "saved"
    status, _, _ = ran(
        capsys, "rule", "diff", *map(str, rules), "--seed", "1", "--save", str(saved), "-q"
    )
    path = sorted(saved.glob("*.json"))[0]
    path.write_text("[]\n")  # another file under the fixture's name: left alone
    status, out, err = ran(
        capsys, "rule", "diff", *map(str, rules), "--seed", "1", "--save", str(saved), "-q"
    )
    assert status == 2
    assert out == ""
    assert (
        err == f"packcheck rule diff: error: {path}: exists and is not this fixture: left alone\n"
    )


def test_diff_a_bad_rule_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = write(tmp_path / "good.toml", "")
    bad = write(tmp_path / "bad.toml", "max_count = -1\n")
    status, out, err = ran(capsys, "rule", "diff", str(good), str(bad))
    assert status == 2
    assert out == ""
    assert (
        err == f"packcheck rule diff: error: {bad}: max_count: expected an integer >= 0, got -1\n"
    )
    status, _, err = ran(capsys, "rule", "diff", str(tmp_path / "gone.toml"), str(good))
    assert status == 2
    assert (
        err == f"packcheck rule diff: error: {tmp_path / 'gone.toml'}: No such file or directory\n"
    )


def test_diff_stopped_by_a_signal_says_how_to_repeat_it_and_saves_what_it_found(
    capsys: pytest.CaptureFixture[str], rules: tuple[Path, Path], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    def stopped(self: object, case: dict[str, Any], deadline: float) -> dict[str, Any]:
        raise _stop.Stopped(signal.SIGTERM)

    monkeypatch.setattr(rule_diff._Search, "shrunk", stopped)
    old, new = rules
    saved = tmp_path / "saved"
    status, out, err = ran(
        capsys, "rule", "diff", str(old), str(new), "--seed", "5", "--save", str(saved), "-q"
    )
    assert status == 143
    assert out == ""
    (path,) = saved.glob("*.json")
    assert err == (
        f"packcheck rule diff: stopped by SIGTERM; to repeat it: packcheck rule diff {old} {new} "
        f"--seed 5; the failure found so far saved to {path}\n"
    )


def test_diff_another_error_is_not_caught(
    rules: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("broken")

    monkeypatch.setattr(rule_diff._Search, "walk", broken)
    with pytest.raises(RuntimeError):
        main(["rule", "diff", *map(str, rules), "-q"])


def test_diff_a_pyproject_without_a_rule_table_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    project = write(tmp_path / "pyproject.toml", "[tool.packcheck]\nseed = 1\n")
    status, out, err = ran(capsys, "rule", "diff", str(project), str(project))
    assert status == 2
    assert out == ""
    assert err == f"packcheck rule diff: error: {project}: no [tool.packcheck.rule] table\n"


#: ``python -m packcheck`` with a log's progress line written every 0.1 s, not every
#: ``_progress.EVERY`` (10 s): the first line says the walk has begun.
_PROGRESS_EVERY_TENTH = """\
import functools, runpy, sys
from packcheck._cli import _progress
_progress.PlainLines = functools.partial(_progress.PlainLines, every=0.1)
sys.argv[0] = "packcheck"
runpy.run_module("packcheck", run_name="__main__", alter_sys=True)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_diff_ends_on_sigterm_with_the_line_that_repeats_it(tmp_path: Path) -> None:
    # Rules that agree on every case: the walk goes on through all the cases asked for.
    old = write(tmp_path / "old.toml", "max_count = 1\non_misfit = 'overshoot'\n")
    new = write(
        tmp_path / "new.toml", "max_count = 1\non_misfit = 'overshoot'\norder = 'middle-out'\n"
    )
    argv = ["rule", "diff", str(old), str(new), "--seed", "1", "--max-examples", "1000000"]
    with subprocess.Popen(
        [sys.executable, "-c", _PROGRESS_EVERY_TENTH, *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as run:
        assert run.stderr is not None
        assert run.stderr.readline().startswith("packcheck rule diff: walking: ")
        run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=60)
    assert run.returncode == 128 + signal.SIGTERM
    assert out == ""
    assert err.splitlines()[-1] == (
        f"packcheck rule diff: stopped by SIGTERM; to repeat it: packcheck rule diff {old} "
        f"{new} --seed 1 --max-examples 1000000"
    )
