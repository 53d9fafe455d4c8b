"""``verify`` and ``fixtures`` on the command line with fixtures of several rules: the
rule in use (``[tool.packcheck.rule]``, else the default) checks its own, runs the
others' inputs and says how many; a fixture that contradicts its rule is one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from packcheck import Rule, pack
from packcheck._cli import main

NEWEST = Rule(order="reversed", on_misfit="stop")
TABLE = '[tool.packcheck.rule]\norder = "reversed"\non_misfit = "stop"\n'
#: In input order A alone fits; newest first, B is kept and A then stops the scan.
BOTH = {"budget": 3, "blocks": [{"id": "A", "size": 3}, {"id": "B", "size": 1}], "required": []}
RULE = {"order": "reversed", "on_misfit": "stop"}


def _fixtures(path: Path, *fixtures: dict[str, Any]) -> str:
    path.write_text(json.dumps(list(fixtures)))
    return str(path)


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_fixtures_checks_the_rule_in_use_and_counts_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _fixtures(
        tmp_path / "f.json",
        {"id": "seed", "input": BOTH, "expected": pack(BOTH)},
        {"id": "mine", "rule": RULE, "input": BOTH, "expected": pack(BOTH, rule=NEWEST)},
        {"id": "old", "rule": "OLD", "input": BOTH, "expected": [1]},
    )
    assert main(["fixtures", name]) == 0
    assert capsys.readouterr().out == (
        "note:     2 fixtures of another rule expect that rule's answers: their inputs were run, "
        "not checked against this rule\n"
        "1 of 1 fixture passed (reference engine)\n"
    )
    (tmp_path / "pyproject.toml").write_text(TABLE)
    assert main(["fixtures", name]) == 0
    assert capsys.readouterr().out == (
        "note:     2 fixtures of another rule expect that rule's answers: their inputs were run, "
        "not checked against this rule\n"
        "1 of 1 fixture passed (reference engine)\n"
    )


def test_fixtures_under_the_default_rule_stays_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _fixtures(tmp_path / "f.json", {"id": "seed", "input": BOTH, "expected": pack(BOTH)})
    assert main(["fixtures", name]) == 0
    assert capsys.readouterr().out == "1 of 1 fixture passed (reference engine)\n"


def test_a_fixture_of_another_rule_that_contradicts_it_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = _fixtures(
        tmp_path / "f.json",
        {"id": "mine", "rule": RULE, "input": BOTH, "expected": pack(BOTH)},
        {"id": "bad", "rule": {"order": "newest"}, "input": BOTH, "expected": pack(BOTH)},
        {"id": "seed", "input": BOTH, "expected": pack(BOTH)},
    )
    assert main(["fixtures", name]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        f"packcheck fixtures: error: {name}: case 1 (mine): contradicts its rule "
        '(order = "reversed", '
        'on_misfit = "stop"): expected {"kept":["A"],"remaining":0,"missing":[]} but the '
        'rule gives {"kept":["B"],"remaining":2,"missing":[]}',
        f"packcheck fixtures: error: {name}: case 2 (bad): rule.order: "
        'expected one of "given", "reversed", '
        "\"middle-out\", got 'newest' (str)",
    ]
    assert captured.out.endswith("1 of 1 fixture passed (reference engine)\n")


def test_a_rule_that_cannot_be_read_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.packcheck.rule]\norder = "newest"\n')
    assert main(["fixtures", "f.json"]) == 2
    assert capsys.readouterr().err.startswith(
        "packcheck fixtures: error: pyproject.toml: tool.packcheck.rule.order: expected one of"
    )


def test_verify_stops_on_a_saved_fixture_that_contradicts_its_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    saved = tmp_path / "saved"
    saved.mkdir()
    _fixtures(saved / "x.json", {"id": "x", "rule": RULE, "input": BOTH, "expected": pack(BOTH)})
    assert main(["verify", "--seed", "1", "--save-failures", str(saved)]) == 2
    assert capsys.readouterr().err == (
        f"packcheck verify: error: fixture {saved / 'x.json'}: case 1 (x): contradicts its rule "
        '(order = "reversed", on_misfit = "stop"): expected {"kept":["A"],"remaining":0,'
        '"missing":[]} but the rule gives {"kept":["B"],"remaining":2,"missing":[]}\n'
    )
