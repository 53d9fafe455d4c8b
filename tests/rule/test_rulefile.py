"""Reading a declared rule from a rule file or a pyproject.toml."""

from __future__ import annotations

from pathlib import Path

import pytest

from packcheck import Rule, RuleError

CHAT = """
name = "chat"
order = "reversed"
on_misfit = "stop"
per_item = 4
pin = "first"

[[fixtures]]
id = "pinned-system"
input = {budget = 20, required = ["A"], blocks = [
  {id = "S", size = 3}, {id = "A", size = 5}, {id = "B", size = 2},
]}
expected = {kept = ["S", "B"], remaining = 7, missing = ["A"]}
"""


def _write(tmp_path: Path, text: str, name: str = "rule.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_rule_file_holds_the_keys_at_the_top_level_with_its_fixtures(tmp_path: Path) -> None:
    rule = Rule.load(_write(tmp_path, CHAT))
    assert rule == Rule(name="chat", order="reversed", on_misfit="stop", per_item=4, pin="first")
    assert [fixture.id for fixture in rule.fixtures] == ["pinned-system"]
    assert rule.fixtures[0].expected == {"kept": ["S", "B"], "remaining": 7, "missing": ["A"]}


def test_an_empty_file_is_the_seeds_rule(tmp_path: Path) -> None:
    assert Rule.load(_write(tmp_path, "")).is_default


def test_pyproject_holds_the_rule_in_its_tool_table(tmp_path: Path) -> None:
    text = '[project]\nname = "x"\n[tool.packcheck.rule]\nfit = "lt"\n' + (
        "[[tool.packcheck.rule.fixtures]]\n"
        'id = "exact"\ninput = {budget = 3, blocks = [{id = "A", size = 3}], required = []}\n'
        "expected = {kept = [], remaining = 3, missing = []}\n"
    )
    rule = Rule.load(_write(tmp_path, text, "pyproject.toml"))
    assert rule == Rule(fit="lt")
    assert len(rule.fixtures) == 1


@pytest.mark.parametrize(
    ("text", "name", "message"),
    [
        (
            'ordre = "given"\n',
            "rule.toml",
            "ordre: unknown rule key (did you mean 'order'? the keys: ",
        ),
        ("zzz = 1\n", "rule.toml", "zzz: unknown rule key (the keys: dedup, fit, "),
        ("per_item = 2.0\n", "rule.toml", 'per_item: expected an integer >= 0 or "p/q", got 2.0'),
        (
            'per_item = "1/2"\n',
            "rule.toml",
            'per_item: fractional charge 1/2 needs remaining = "sizes"',
        ),
        (
            "[tool.packcheck.rule]\nmax_count = -1\n",
            "pyproject.toml",
            "tool.packcheck.rule.max_count: expected",
        ),
        (
            "[tool.packcheck.rule]\nbad = 1\n",
            "pyproject.toml",
            "tool.packcheck.rule.bad: unknown rule key",
        ),
        (
            '[tool.packcheck]\nengine = "numpy"\n',
            "pyproject.toml",
            "no [tool.packcheck.rule] table",
        ),
        ("[tool]\npackcheck = 1\n", "pyproject.toml", "no [tool.packcheck.rule] table"),
        ("order = \n", "rule.toml", "not TOML: "),
        (
            "[tool.packcheck.rule]\nper_item = 4\n",
            "rule.toml",
            "rule.toml: tool: a rule file holds its keys at the top level, without the "
            "[tool.packcheck.rule] heading of pyproject.toml",
        ),
        (
            '[[fixture]]\nid = "x"\n',
            "rule.toml",
            "fixture: unknown rule key (did you mean 'fixtures'? the keys: dedup, fit, fixtures, ",
        ),
        (
            '[[fixtures]]\nid = "x"\ninput = {budget = 1, blocks = [], required = []}\n'
            "expected = {kept = [], remaining = 1, missing = []}\n"
            '[[fixtures]]\nid = "x"\ninput = {budget = 2, blocks = [], required = []}\n'
            "expected = {kept = [], remaining = 2, missing = []}\n",
            "rule.toml",
            "rule.toml: fixture 'x': two fixtures have this id",
        ),
        ("fixtures = 3\n", "rule.toml", "fixtures: expected an array of tables ([[fixtures]])"),
        ("fixtures = [3]\n", "rule.toml", "fixtures[0]: expected a table"),
        ("[[fixtures]]\nid = 3\n", "rule.toml", "fixtures[0].id: expected a string"),
        ('[[fixtures]]\nid = "x"\ninput = {}\n', "rule.toml", "fixture 'x': has no 'expected'"),
        (
            '[[fixtures]]\nid = "x"\ninput = {budget = 1}\nexpected = {error = "size"}\n',
            "rule.toml",
            "fixture 'x': input is not a case (blocks: expected an array of blocks, got absent)",
        ),
        (
            'on_misfit = "stop"\n[[fixtures]]\nid = "skip-large-continue"\n'
            'input = {budget = 3, blocks = [{id = "A", size = 4}, {id = "C", size = 2}],'
            ' required = ["C"]}\n'
            'expected = {kept = ["C"], remaining = 1, missing = []}\n',
            "rule.toml",
            'fixture \'skip-large-continue\': expected {"kept":["C"],"remaining":1,"missing":[]}'
            ' but the rule gives {"kept":[],"remaining":3,"missing":["C"]}',
        ),
        (
            '[[fixtures]]\nid = "float"\n'
            "input = {budget = 3, blocks = [], required = []}\n"
            "expected = {kept = [], remaining = 3.0, missing = []}\n",
            "rule.toml",
            "fixture 'float': expected",
        ),
    ],
)
def test_a_malformed_rule_file_is_one_line_naming_the_file_and_the_key(
    tmp_path: Path, text: str, name: str, message: str
) -> None:
    path = _write(tmp_path, text, name)
    with pytest.raises(RuleError) as caught:
        Rule.load(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_file_that_is_not_utf8_is_a_rule_error(tmp_path: Path) -> None:
    path = tmp_path / "rule.toml"
    path.write_bytes(b"name = '\xff'\n")
    with pytest.raises(
        RuleError, match=r"rule.toml: not UTF-8 text \(invalid start byte at byte 8\)"
    ):
        Rule.load(path)


def test_a_missing_file_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        Rule.load(tmp_path / "absent.toml")
