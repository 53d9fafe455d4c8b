"""Fixtures and their rule: what a saved fixture records, which fixtures a run checks,
and the one-line error of a fixture that contradicts its own rule."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from packcheck import Rule, diff, pack, verify
from packcheck._gate.fixtures import Fixture, read_fixtures, rule_fixtures, saved_fixtures
from packcheck._rule.fixture_rule import OLD, recorded, same_rule
from packcheck._rule.sources import SourceError

QUICK: dict[str, Any] = {"seed": 1, "max_examples": 60, "long_lists": False}
NEWEST = Rule(name="newest", order="reversed", on_misfit="stop")
BUILT_IN = (
    "packcheck's 3 built-in fixtures expect the default rule's answers: their inputs were "
    "run, not checked against this rule"
)
ONE_OTHER = (
    "1 fixture of another rule expects that rule's answer: its input was run, not checked "
    "against this rule"
)
#: The two rules answer it alike (and the seed's invariants hold of that answer).
CASE = {"budget": 3, "blocks": [{"id": "A", "size": 1}, {"id": "B", "size": 1}], "required": []}
#: In input order A alone fits; newest first, B is kept and A then stops the scan.
BOTH = {"budget": 3, "blocks": [{"id": "A", "size": 3}, {"id": "B", "size": 1}], "required": []}


def newest(case: dict[str, Any]) -> dict[str, Any]:
    return pack(case, rule=NEWEST)


def seed_rule(case: dict[str, Any]) -> dict[str, Any]:
    return pack(case)


def _write(path: Path, *fixtures: dict[str, Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(list(fixtures)))
    return path


def test_a_fixture_records_the_keys_that_differ_and_the_name() -> None:
    assert recorded(None) is None
    assert recorded(Rule()) is None
    assert recorded(Rule(name="seed")) is None  # named nowhere, as in the reports
    assert recorded(OLD) == "OLD"
    shared = Rule(name="chat", per_item=Fraction(1, 2), remaining="sizes", pin="first")
    assert recorded(shared) == {
        "name": "chat",
        "per_item": "1/2",
        "pin": "first",
        "remaining": "sizes",
    }


def test_a_fixture_belongs_to_the_rule_it_records(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "f.json",
        {"id": "plain", "input": CASE, "expected": seed_rule(CASE)},
        {"id": "mine", "rule": recorded(NEWEST), "input": BOTH, "expected": newest(BOTH)},
        {"id": "old", "rule": "OLD", "input": CASE, "expected": [1]},
    )
    plain, mine, old = read_fixtures(path)
    assert plain.rule == Rule()
    assert mine.rule == NEWEST
    assert old.rule == OLD
    # The name aside: a rule of the same keys under another name is the same rule.
    assert same_rule(mine.rule, Rule(order="reversed", on_misfit="stop"))
    assert not same_rule(plain.rule, NEWEST)
    assert not same_rule(old.rule, Rule())


@pytest.mark.parametrize(
    ("rule", "said"),
    [
        ({"order": "newest"}, 'f.json: case 1 (x): rule.order: expected one of "given", '),
        ({"orders": "given"}, "f.json: case 1 (x): rule.orders: unknown rule key"),
        (
            "NEW",
            'f.json: case 1 (x): rule: expected an object of rule keys (docs/rules.md) or "OLD"',
        ),
        ({"fixtures": []}, "f.json: case 1 (x): rule: expected an object of rule keys"),
    ],
)
def test_a_rule_that_is_not_one_is_one_line_naming_the_fixture(
    tmp_path: Path, rule: object, said: str
) -> None:
    path = _write(tmp_path / "f.json", {"id": "x", "rule": rule, "input": CASE, "expected": {}})
    with pytest.raises(SourceError) as raised:
        list(read_fixtures(path, "f.json"))
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_fixture_that_contradicts_its_own_rule_is_one_line_naming_it(tmp_path: Path) -> None:
    # Right under the seed's rule, wrong under the one it records.
    wrong = {"id": "x", "rule": recorded(NEWEST), "input": BOTH, "expected": seed_rule(BOTH)}
    with pytest.raises(SourceError) as raised:
        saved_fixtures(_write(tmp_path / "saved" / "x.json", wrong).parent)
    assert str(raised.value) == (
        f"fixture {tmp_path / 'saved' / 'x.json'}: case 1 (x): contradicts its rule (newest "
        '(order = "reversed", on_misfit = "stop")): expected {"kept":["A"],"remaining":0,'
        '"missing":[]} but the rule gives {"kept":["B"],"remaining":2,"missing":[]}'
    )
    # The default rule's fixtures too; an input error expected of a malformed input is
    # that rule's answer, a case expected of one is not.
    seedless = {"id": "d", "input": BOTH, "expected": newest(BOTH)}
    with pytest.raises(SourceError, match=r"^fixture .*\(d\): contradicts its rule \(the default"):
        list(read_fixtures(_write(tmp_path / "d.json", seedless)))
    malformed = {"budget": 1, "blocks": "A", "required": []}
    fine = {"id": "m", "input": malformed, "expected": {"error": "input"}}
    assert [f.name for f in read_fixtures(_write(tmp_path / "m.json", fine))] == ["m"]
    bad = {"id": "m", "input": malformed, "expected": {"kept": []}}
    with pytest.raises(SourceError, match=r"contradicts its rule .*: its input is not a case"):
        list(read_fixtures(_write(tmp_path / "m.json", bad)))
    # OLD's recorded answers belong to no rule: nothing to contradict.
    old = {"id": "o", "rule": "OLD", "input": CASE, "expected": [1]}
    assert [f.name for f in read_fixtures(_write(tmp_path / "o.json", old))] == ["o"]


def test_verify_checks_its_own_rules_fixtures_and_runs_the_others_input(tmp_path: Path) -> None:
    saved = tmp_path / "saved"
    _write(
        saved / "mine.json",
        {"id": "mine", "rule": recorded(NEWEST), "input": CASE, "expected": newest(CASE)},
    )
    asked: list[Any] = []

    def packer(case: dict[str, Any]) -> dict[str, Any]:
        asked.append(case)
        return newest(case)

    def wrong_on_mine(case: dict[str, Any]) -> dict[str, Any]:
        return {"kept": [], "remaining": 3, "missing": []} if case == CASE else newest(case)

    # The seed's three fixtures expect the seed rule's answers: run, not checked.
    summary = verify.run(packer, rule=NEWEST, save_failures=saved, **QUICK)
    assert summary.conformant, summary.finding and summary.finding.report()
    assert summary.fixtures == 4
    assert summary.notes == (BUILT_IN,)
    assert CASE in asked[:4]
    assert seed_rule(asked[0]) != newest(asked[0])  # distractor-first: another rule's
    # Under the seed's rule the saved fixture is another rule's; the seed's are checked.
    summary = verify.run(seed_rule, save_failures=saved, **QUICK)
    assert summary.conformant
    assert summary.notes == (ONE_OTHER,)
    # A packer that breaks a fixture of the rule in use fails on it, by its id.
    failed = verify.run(wrong_on_mine, rule=NEWEST, save_failures=saved, **QUICK)
    assert failed.phase == "fixtures"
    assert failed.finding is not None
    assert failed.finding.name == "mine"


def test_verify_under_the_default_rule_has_no_note() -> None:
    assert verify.run(seed_rule, **QUICK).notes == ()


def test_a_rule_files_fixtures_run_with_it() -> None:
    rule = Rule(order="reversed", on_misfit="stop", fixtures=(("both", CASE, newest(CASE)),))
    (fixture,) = rule_fixtures(rule)
    assert fixture == Fixture("both", CASE, newest(CASE), "fixture of the rule: both", rule)
    assert rule_fixtures(NEWEST) == []
    summary = verify.run(newest, rule=rule, **QUICK)
    assert summary.conformant
    assert summary.fixtures == 4

    def wrong_on_it(case: dict[str, Any]) -> dict[str, Any]:
        return {"kept": [], "remaining": 3, "missing": []} if case == CASE else newest(case)

    failed = verify.run(wrong_on_it, rule=rule, **QUICK)
    assert failed.phase == "fixtures"
    assert failed.finding is not None
    assert failed.finding.origin == "fixture of the rule: both"
    named = Rule(name="chat", fixtures=(("plain", CASE, seed_rule(CASE)),))
    assert rule_fixtures(named)[0].origin == "fixture of the rule 'chat': plain"


def test_verify_saves_a_failure_under_the_declared_rule(tmp_path: Path) -> None:
    summary = verify.run(seed_rule, rule=NEWEST, save_failures=tmp_path, **QUICK)
    assert summary.finding is not None
    assert summary.saved_to is not None
    (fixture,) = json.loads(summary.saved_to.read_text())
    assert list(fixture) == ["id", "rule", "input", "expected"]
    assert fixture["rule"] == {"name": "newest", "order": "reversed", "on_misfit": "stop"}
    assert fixture["expected"] == newest(fixture["input"])
    assert f'"rule":{json.dumps(fixture["rule"], separators=(",", ":"))}' in (
        summary.finding.report()
    )
    # Read back, it is that rule's: under the seed's rule its input only is run.
    (read,), _ = saved_fixtures(tmp_path)
    assert read.rule == NEWEST
    again = verify.run(seed_rule, save_failures=tmp_path, **QUICK)
    assert again.notes == (ONE_OTHER,)


def test_diff_without_a_rule_saves_olds_answer(tmp_path: Path) -> None:
    summary = diff.run(seed_rule, newest, save_failures=tmp_path, fixtures=(), **QUICK)
    assert summary.finding is not None
    assert summary.saved_to is not None
    (fixture,) = json.loads(summary.saved_to.read_text())
    assert fixture["rule"] == "OLD"
    assert fixture["expected"] == newest(fixture["input"])
    assert fixture["expected"] != seed_rule(fixture["input"])
    # Replayed first on both sides by the next run; nobody's rule, so no note.
    again = diff.run(seed_rule, newest, save_failures=tmp_path, **QUICK)
    assert again.phase == "fixtures"
    assert again.notes == ()
    # verify runs its input only.
    assert verify.run(seed_rule, save_failures=tmp_path, **QUICK).notes == (ONE_OTHER,)


def test_diff_with_a_rule_saves_the_rules_answer(tmp_path: Path) -> None:
    summary = diff.run(
        seed_rule, seed_rule_but_b, rule=NEWEST, save_failures=tmp_path, fixtures=(), **QUICK
    )
    assert summary.finding is not None
    assert summary.saved_to is not None
    (fixture,) = json.loads(summary.saved_to.read_text())
    assert fixture["rule"] == {"name": "newest", "order": "reversed", "on_misfit": "stop"}
    assert fixture["expected"] == newest(fixture["input"])
    assert summary.finding.json()["rule"] == newest(fixture["input"])  # the context too
    # The seed's fixtures are another rule's: counted.
    again = diff.run(seed_rule, seed_rule, rule=NEWEST, **QUICK)
    assert again.notes == (BUILT_IN,)
    # A user's fixture of another rule is counted apart from the built-in ones.
    stop = Rule(on_misfit="stop")
    assert diff.run(seed_rule, seed_rule, rule=stop, save_failures=tmp_path, **QUICK).notes == (
        BUILT_IN,
        ONE_OTHER,
    )


def seed_rule_but_b(case: dict[str, Any]) -> dict[str, Any]:
    """The seed's rule, except that a block named B is never kept."""
    answer = seed_rule(case)
    if "kept" in answer:
        answer["kept"] = [block for block in answer["kept"] if block != "B"]
    return answer


def test_diff_saves_what_old_did_when_it_gave_no_json_answer(tmp_path: Path) -> None:
    def raising(case: dict[str, Any]) -> dict[str, Any]:
        if len(case["blocks"]) > 1:
            raise ValueError("too many")
        return seed_rule(case)

    summary = diff.run(seed_rule, raising, save_failures=tmp_path, fixtures=(), **QUICK)
    assert summary.saved_to is not None
    (fixture,) = json.loads(summary.saved_to.read_text())
    at = f"test_fixture_rules.py:{raising.__code__.co_firstlineno + 2}"
    assert fixture["expected"] == {
        "behaviour": f"(raised ValueError: too many (at tests/gate/{at}))"
    }
