"""``audit`` under a declared rule (the Python API): every step's partition and result
are checked against the rule's, in its terms; a step recorded under another rule is
one line naming both."""

from __future__ import annotations

import json
import pickle
import re
from fractions import Fraction
from typing import Any

import pytest
from runs import cases

from packcheck import Rule, trace
from packcheck._partition.facts import PartitionError, check_partition, partition_json
from packcheck._partition.invariants import InvariantError, check_output
from packcheck._partition.ruled import RuledExpected, ruled_buckets
from packcheck._rule.model import Case, read_case
from packcheck._rule.recorded import read_recorded, recorded, refuses, same_rule, shown_rule
from packcheck.audit import Audit, RuleMismatch, check_run, record_step

CHAT = Rule(
    name="chat trimmer",
    order="reversed",
    on_misfit="stop",
    per_item=4,
    pin="first",
    pin_overflow="refuse",
)
#: Rules that reach every event and reason: stops, counts, duplicates, pins that
#: overflow, overshoots below 0, refusals, fractional charges.
RULES = [
    CHAT,
    Rule(on_misfit="overshoot", reserve=3, separator=1),
    Rule(dedup="first", max_count=2, order="middle-out"),
    Rule(dedup="kept", pin="required", fit="lt", output="scan"),
    Rule(pin="last", per_item=2, refuse_budget_below=2, refuse_empty=True),
    Rule(per_item=Fraction(1, 2), remaining="sizes", dedup="last", pin="required", max_count=1),
]
CASE = {
    "budget": 30,
    "required": ["q1"],
    "blocks": [
        {"id": "system", "size": 6},
        {"id": "q1", "size": 9},
        {"id": "a1", "size": 5},
        {"id": "q2", "size": 3},
    ],
}


def _lines(steps: list[dict[str, Any]]) -> list[str]:
    return [json.dumps(step, separators=(",", ":")) for step in steps]


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: ", ".join(rule.changed()))
def test_a_run_recorded_under_a_rule_audits_clean_under_it(rule: Rule) -> None:
    steps = [record_step(case, rule=rule) for case in cases(300)]
    assert all(step["rule"] == recorded(rule) for step in steps)
    report = check_run(_lines(steps), rule=rule)
    assert report.violations == ()
    assert report.summary.steps == 300
    assert report.summary.rule == rule.describe()
    # Under the seed's rule the same run is refused at its first line: another rule.
    with pytest.raises(RuleMismatch, match=r"^: line 1: recorded under the rule "):
        check_run(_lines(steps))


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: ", ".join(rule.changed()))
def test_each_wrong_bucket_is_caught_in_the_rules_terms(rule: Rule) -> None:
    caught = 0
    for case in cases(200):
        read = read_case(case)
        if not isinstance(read, Case) or not read.ids:
            continue
        right = partition_json(trace(case, rule=rule).partition)
        check_partition(case, right, rule=rule)
        # One block moved to the next bucket: never the rule's partition.
        lists = {name: list(ids) for name, ids in right.items()}
        name = next(name for name in lists if lists[name])
        moved = lists[name].pop(0)
        lists[{"packed": "available", "available": "dropped", "dropped": "packed"}[name]].insert(
            0, moved
        )
        with pytest.raises(PartitionError) as caught_error:
            check_partition(case, lists, rule=rule)
        assert caught_error.value.check in {"bucket", "merged-by-position"}
        caught += 1
    assert caught > 100


def test_the_seeds_partition_under_a_rule_names_the_rules_reason() -> None:
    seeds = partition_json(trace(CASE).partition)
    with pytest.raises(PartitionError) as caught:
        check_partition(CASE, seeds, rule=CHAT)
    assert caught.value.detail == (
        'blocks[1] (id "q1", size 9) is in packed, but belongs in available: the scan '
        "stopped at it: it did not fit the 4 unit(s) left"
    )
    # The rule's own partition passes; under the seed's rule it is the one that fails.
    ruled = partition_json(trace(CASE, rule=CHAT).partition)
    check_partition(CASE, ruled, rule=CHAT)
    with pytest.raises(PartitionError):
        check_partition(CASE, ruled)


def _words(rule: Rule, case: dict[str, Any]) -> list[str]:
    read = read_case(case)
    assert isinstance(read, Case)
    return [why() for _, why in ruled_buckets(rule, read)]


def _case(budget: int, *sizes: int, ids: str = "ABCDEFGH") -> dict[str, Any]:
    blocks = [{"id": block_id, "size": size} for block_id, size in zip(ids, sizes, strict=False)]
    return {"budget": budget, "blocks": blocks, "required": []}


def test_why_a_block_is_in_its_bucket_in_the_rules_words() -> None:
    assert _words(CHAT, _case(12, 4, 9, 2)) == [
        "a pin: kept and charged before the scan",
        "larger than the whole budget: it costs 13 of 12 unit(s)",
        "the pins took 8 of 12 unit(s), leaving 4; it costs 6 beside them",
    ]
    assert _words(Rule(on_misfit="stop"), _case(5, 3, 3, 1)) == [
        "it fits the 5 unit(s) left when the scan met it",
        "the scan stopped at it: it did not fit the 2 unit(s) left",
        'the scan had stopped before it, at blocks[1] (id "B", stop)',
    ]
    assert _words(Rule(on_misfit="overshoot", reserve=1), _case(4, 2, 5)) == [
        "it fits the 3 unit(s) left when the scan met it",
        "kept over the 1 unit(s) left, ending the scan (overshoot)",
    ]
    assert _words(Rule(max_count=1, fit="lt"), _case(4, 9, 1, 1)) == [
        "larger than the whole budget: it costs 9 of 4 unit(s)",
        "it fits the 4 unit(s) left when the scan met it",
        "the count was reached (max_count 1) before the scan met it",
    ]
    assert _words(Rule(pin="first", max_count=1), _case(9, 1, 1)) == [
        "a pin: kept and charged before the scan",
        "the pins alone reach max_count 1",
    ]
    assert _words(Rule(pin="first", dedup="kept"), _case(9, 1, 1, ids="AA")) == [
        "a pin: kept and charged before the scan",
        "a duplicate of a pinned block's ID",
    ]
    assert _words(Rule(dedup="first", order="reversed"), _case(3, 2, 2, 2, ids="ABA")) == [
        "it did not fit the 1 unit(s) left when the scan met it",
        "it fits the 3 unit(s) left when the scan met it",
        "a duplicate: dedup kept another block with its ID",
    ]
    assert _words(Rule(refuse_budget_below=5), _case(4, 1)) == ["the rule refused the input"]
    assert _words(Rule(dedup="kept"), _case(4, 1, 1, ids="AA"))[1] == (
        'a duplicate of a kept block (dedup = "kept")'
    )


def test_a_lost_ids_reasons_are_in_the_rules_words_with_their_first_step() -> None:
    steps = [
        {**_case(20, 4, 5, 6, 1), "required": ["B"]},
        {**_case(30, 4, 30, 2), "required": ["B", "Z"]},
        {**_case(3, 4), "required": ["A"]},
    ]
    rule = Rule(order="reversed", on_misfit="stop", per_item=4, pin="first", pin_overflow="refuse")
    report = check_run(_lines([record_step(s, rule=rule) for s in steps]), rule=rule)
    assert report.violations == ()
    lost = {loss.id: loss for loss in report.summary.lost}
    assert lost["B"].why == {
        "stopped": 'the scan had stopped before it, at blocks[2] (id "C", stop)',
        "oversized": "larger than the whole budget: it costs 34 of 30 unit(s)",
    }
    assert str(lost["B"]).splitlines() == [
        'lost "B": missing in 2 steps (stopped 1, oversized 1): line 1, line 2',
        '    stopped: the scan had stopped before it, at blocks[2] (id "C", stop)',
        "    oversized: larger than the whole budget: it costs 34 of 30 unit(s)",
    ]
    assert lost["A"].why == {"refused": "the rule refused the input"}
    assert lost["Z"].why == {"not-retrieved": "no block has it"}
    assert lost["Z"].to_json()["why"] == {"not-retrieved": "no block has it"}
    # The seed's rule words no reason: its losses are as they always were.
    plain = check_run(_lines([record_step(s) for s in steps]))
    assert all(not loss.why and "why" not in loss.to_json() for loss in plain.summary.lost)
    assert "rule" not in plain.summary.to_json()


def test_a_step_that_kept_other_than_the_rule_lost_what_it_did_not_keep() -> None:
    rule = Rule(on_misfit="stop")
    step = {**_case(3, 2, 2), "required": ["A", "B", "Z"]}
    recorded = record_step(step, rule=rule)  # the rule keeps A; B stopped, Z not-retrieved
    wrong = {**recorded, "result": {"kept": ["B"], "remaining": 1, "missing": ["A", "Z"]}}
    report = check_run(_lines([wrong]), rule=rule)
    assert [v.check for v in report.violations] == ["result"]
    lost = {loss.id: loss for loss in report.summary.lost}
    assert sorted(lost) == ["A", "Z"]
    assert lost["A"].why == {
        "unknown": "the step kept other than the rule keeps, so why is unknown"
    }
    assert lost["Z"].why == {"not-retrieved": "no block has it"}


def test_a_duplicates_and_a_pins_losses_are_worded() -> None:
    case = {**_case(3, 2, 2, 2, ids="ABA"), "required": ["A"]}
    rule = Rule(dedup="first", order="reversed")
    words = RuledExpected(read_case(case), rule)
    assert words.reasons() == {"A": "evicted"}
    assert words.why("A", "duplicate") == "a duplicate: dedup kept another block with its ID"
    overflow = {**_case(10, 8, 5), "required": ["B"]}
    pinned = RuledExpected(read_case(overflow), Rule(pin="first"))
    assert pinned.reasons() == {"B": "pin-overflow"}
    assert pinned.why("B", "pin-overflow") == (
        "the pins took 8 of 10 unit(s), leaving 2; it costs 5 beside them"
    )


def test_merged_audits_keep_the_first_words_of_each_reason() -> None:
    rule = Rule(on_misfit="stop")
    first = [record_step({**_case(3, 2, 2), "required": ["B"]}, rule=rule)]
    later = [record_step({**_case(4, 2, 3, 1), "required": ["B", "C"]}, rule=rule)]
    whole = Audit(rule=rule)
    part = Audit(rule=rule, max_tracked=None)
    for number, line in enumerate(_lines(first), start=1):
        whole.check_line(line, number)
    for number, line in enumerate(_lines(later), start=2):
        part.check_line(line, number)
    whole.merge(part)
    lost = {loss.id: loss for loss in whole.summary().lost}
    assert lost["B"].why == {"stopped": "the scan stopped at it: it did not fit the 1 unit(s) left"}
    assert lost["C"].why == {
        "stopped": 'the scan had stopped before it, at blocks[1] (id "B", stop)'
    }


def test_negative_remaining_and_refusals_are_the_rules_answers() -> None:
    rule = Rule(on_misfit="overshoot", refuse_budget_below=2)
    over = _case(3, 2, 5)
    refused = _case(1, 1)
    check_output(over, {"kept": ["A", "B"], "remaining": -4, "missing": []}, rule=rule)
    check_output(refused, {"error": "refused"}, rule=rule)
    with pytest.raises(InvariantError, match=r"^remaining >= 0"):
        check_output(over, {"kept": ["A", "B"], "remaining": -4, "missing": []})
    with pytest.raises(
        InvariantError, match=r"^remaining is the rule's: got 0, the rule leaves -4"
    ):
        check_output(over, {"kept": ["A", "B"], "remaining": 0, "missing": []}, rule=rule)
    with pytest.raises(InvariantError, match=re.escape('kept is the rule\'s: got ["A"]')):
        check_output(over, {"kept": ["A"], "remaining": 1, "missing": []}, rule=rule)
    with pytest.raises(InvariantError, match=r"^refusal: the rule refuses this input; got"):
        check_output(refused, {"kept": [], "remaining": 1, "missing": []}, rule=rule)
    with pytest.raises(InvariantError, match=r"^refusal: the rule does not refuse this input"):
        check_output(over, {"error": "refused"}, rule=rule)
    with pytest.raises(PartitionError, match=r"partition: none on a size error: the rule refuses"):
        check_output(refused, {"error": "refused", "partition": None}, rule=rule)
    # A rule never changes validation; missing and a captured partition are checked too.
    bad = _case(3, 0)
    check_output(bad, {"error": "size"}, rule=rule)
    with pytest.raises(InvariantError, match=r"^size error"):
        check_output(bad, {"error": "refused"}, rule=rule)
    with pytest.raises(InvariantError, match=r"^size error: every unit is valid"):
        check_output(over, {"error": "size"}, rule=rule)
    with pytest.raises(InvariantError, match=r"^missing == required - kept"):
        check_output(over, {"kept": ["A", "B"], "remaining": -4, "missing": ["A"]}, rule=rule)
    with pytest.raises(PartitionError, match=r"^partition: bucket .*: the scan had stopped"):
        check_output(
            _case(3, 2, 5, 1),
            {
                "kept": ["A", "B"],
                "remaining": -4,
                "missing": [],
                "partition": {"packed": ["A", "B"], "available": [], "dropped": ["C"]},
            },
            rule=rule,
        )


def test_a_step_recorded_under_another_rule_is_one_line_naming_both() -> None:
    steps = _lines([record_step(CASE, rule=CHAT)])
    other = Rule(order="reversed")
    with pytest.raises(RuleMismatch) as caught:
        check_run(steps, rule=other)
    assert str(caught.value) == (
        ': line 1: recorded under the rule chat trimmer (order = "reversed", on_misfit = '
        '"stop", per_item = 4, pin = "first", pin_overflow = "refuse"), audited under the '
        'rule order = "reversed"'
    )
    # Its name aside, the same rule is the same rule; a record without one is the rule's.
    assert check_run(steps, rule=Rule(**{**CHAT.keys(), "name": "other"})).ok
    assert check_run(_lines([CASE | record_step(CASE, rule=CHAT)]), rule=CHAT).ok
    unnamed = {key: value for key, value in record_step(CASE, rule=CHAT).items() if key != "rule"}
    assert check_run(_lines([unnamed]), rule=CHAT).ok
    for bad, why in [
        (3, "not a recorded rule: rule: expected an object of rule keys, got 3"),
        ({"ordr": "given"}, "not a recorded rule: rule.ordr: unknown rule key"),
        ({"per_item": -1}, "not a recorded rule: rule.per_item: expected a value >= 0"),
    ]:
        with pytest.raises(RuleMismatch, match=f"^: line 1: {why}"):
            check_run(_lines([{**CASE, "rule": bad}]))


def test_a_mismatch_comes_back_from_a_worker_as_it_left() -> None:
    mismatch = RuleMismatch("", 3, "recorded under X, audited under Y")
    mismatch.name = "run.jsonl"
    mismatch.line += 10
    again = pickle.loads(pickle.dumps(mismatch))
    assert (type(again), str(again)) == (
        RuleMismatch,
        "run.jsonl: line 13: recorded under X, audited under Y",
    )


def test_the_recorded_rule() -> None:
    assert recorded(None) is None
    assert recorded(Rule(name="mine")) is None
    half = Rule(per_item=Fraction(1, 2), remaining="sizes")
    assert recorded(half) == {"per_item": "1/2", "remaining": "sizes"}
    assert read_recorded(recorded(half)) == half
    assert same_rule(None, Rule(name="x"))
    assert not same_rule(None, half)
    assert shown_rule(None) == "packcheck's own rule"
    assert shown_rule(half) == 'the rule per_item = "1/2", remaining = "sizes"'
    assert [refuses(r) for r in (None, Rule(), CHAT, Rule(pin_overflow="refuse"))] == [
        False,
        False,
        True,
        False,
    ]
    assert refuses(Rule(refuse_empty=True))
    assert refuses(Rule(refuse_budget_below=1))
