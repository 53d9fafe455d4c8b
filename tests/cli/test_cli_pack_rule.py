"""``packcheck pack --rule FILE`` and ``[tool.packcheck.rule]``: answers, ``--explain``
and ``--trace`` by a declared rule; a rule that cannot be used is one line, exit 2 (of
``pack`` and ``audit`` alike)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from command_line import run

from packcheck._cli import config

RULE = """name = "chat trimmer"
order = "reversed"
on_misfit = "stop"
per_item = 4
pin = "first"
pin_overflow = "refuse"
"""
CASES = (
    '{"budget":30,"required":["q1"],"blocks":[{"id":"system","size":6},{"id":"q1","size":9},'
    '{"id":"a1","size":5},{"id":"q2","size":3}]}\n'
    '{"budget":9,"required":[],"blocks":[{"id":"system","size":6}]}\n'
)
ANSWERS = ['{"kept":["system","a1","q2"],"remaining":4,"missing":["q1"]}', '{"error":"refused"}']
TODAY = [
    '{"kept":["system","q1","a1","q2"],"remaining":7,"missing":[]}',
    '{"kept":["system"],"remaining":3,"missing":[]}',
]
#: Rules that cannot be used (the files written, the arguments), and the start of the
#: one line that says so after ``packcheck COMMAND: error: ``.
UNUSABLE = [
    (
        {"bad.toml": "per_item = 2.0\n"},
        ["--rule", "bad.toml"],
        'bad.toml: per_item: expected an integer >= 0 or "p/q", got 2.0 (float)',
    ),
    ({}, ["--rule", "absent.toml"], "absent.toml: No such file or directory"),
    (
        {"pyproject.toml": '[tool.packcheck.rule]\nordr = "given"\n'},
        [],
        "pyproject.toml: tool.packcheck.rule.ordr: unknown rule key (did you mean 'order'?",
    ),
    (
        {"pyproject.toml": "[tool.packcheck]\nrule = 3\n"},
        [],
        "pyproject.toml [tool.packcheck]: rule: expected a table ([tool.packcheck.rule])",
    ),
]


@pytest.fixture
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rule.toml").write_text(RULE)
    (tmp_path / "cases.jsonl").write_text(CASES)
    return tmp_path


def test_pack_answers_by_the_rule_file(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "pack", "--rule", "rule.toml", "cases.jsonl") == (0, ANSWERS, [])
    assert run(capsys, "pack", "cases.jsonl") == (0, TODAY, [])


def test_pack_takes_the_pyproject_table_and_rule_wins_over_it(
    here: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (here / "pyproject.toml").write_text("[tool.packcheck.rule]\n" + RULE)
    assert run(capsys, "pack", "cases.jsonl") == (0, ANSWERS, [])
    (here / "default.toml").write_text("")
    assert run(capsys, "pack", "--rule", "default.toml", "cases.jsonl") == (0, TODAY, [])
    (here / "pyproject.toml").write_text('[tool.packcheck]\nengine = "numpy"\n')
    assert run(capsys, "pack", "cases.jsonl") == (0, TODAY, [])


def test_explain_and_trace_follow_the_rule(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "pack", "--rule", "rule.toml", "--explain", "cases.jsonl")
    assert status == 0
    assert out[2] == "      0  system     6                30  packed     pin"
    assert out[10] == (
        "  missing q1: stopped - it did not fit what was left, and the scan ended there (index 1)"
    )
    status, out, _ = run(capsys, "pack", "--rule", "rule.toml", "--trace", "cases.jsonl")
    traced = [json.loads(line) for line in out]
    assert traced[0]["reasons"] == {"q1": "stopped"}
    assert traced[0]["steps"][1]["event"] == "stop"
    assert traced[1]["partition"] == {"packed": [], "available": [], "dropped": ["system"]}


@pytest.mark.parametrize("command", ["pack", "audit"])
@pytest.mark.parametrize(("files", "argv", "message"), UNUSABLE)
def test_a_rule_that_cannot_be_used_is_one_line_and_exit_2(
    here: Path,
    capsys: pytest.CaptureFixture[str],
    command: str,
    files: dict[str, str],
    argv: list[str],
    message: str,
) -> None:
    # The rule is read before the input: audit says it of any input.
    for name, text in files.items():
        (here / name).write_text(text)
    status, out, err = run(capsys, command, *argv, "cases.jsonl")
    assert (status, out) == (2, [])
    assert len(err) == 1
    assert err[0].startswith(f"packcheck {command}: error: {message}")


def test_a_default_rule_records_as_today(here: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (here / "default.toml").write_text('name = "mine"\n')
    status, out, _ = run(capsys, "pack", "--rule", "default.toml", "--record", "cases.jsonl")
    assert status == 0
    assert json.loads(out[0])["result"] == json.loads(TODAY[0])


def test_the_rule_table_is_no_key_of_verifys_settings(here: Path) -> None:
    (here / "pyproject.toml").write_text(
        '[tool.packcheck]\nseed = 3\n[tool.packcheck.rule]\nfit = "lt"\n'
    )
    path, settings = config.read({"seed": config.Key("seed", int)}, here)
    assert (path, settings) == (here / "pyproject.toml", {"seed": 3})
