"""``packcheck.rules.infer`` on the ports of real packers (tests/packers): each port's
declared rule (issue 38's table) is recovered, each one-key regression yields the
regressed rule, and a packer outside the vocabulary gets the nearest rule and a case
against it.

Recovered means equivalent: the canonical forms are equal and the interpreter gives the
same answers on 3,000 drawn cases.  Each port is inferred once, at ``--seed 1``, with a
short ``verify --rule`` check (no long lists: tests/verify/test_verify_ported_rules.py
runs those); the CPU each takes with long lists on is in the changelog.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from packers import lost_middle
from rule.test_ported_rules import DECLARED
from verify.test_rule_causes import REGRESSIONS, refusing

from packcheck import Rule
from packcheck._gate import Settings
from packcheck._packers import Packer as Adapter
from packcheck._rule.interpret import interpret
from packcheck.rules import _infer, infer
from packcheck.rules._search import _drawn

Packer = Callable[[dict[str, Any]], Any]
QUICK = {"seed": 1, "max_examples": 30, "long_lists": False}


def equivalent(one: Rule, other: Rule) -> bool:
    """Equal canonical forms, and the same answers on 3,000 drawn cases."""
    if one.canonical() != other.canonical():
        return False
    rng = random.Random(3000)
    drawn = [_drawn(rng, 12) for _ in range(3000)]
    return all(interpret(one, case).result == interpret(other, case).result for case in drawn)


def test_equivalent_tells_rules_apart() -> None:
    assert equivalent(Rule(pin_overflow="refuse"), Rule())
    assert not equivalent(Rule(fit="lt"), Rule())
    # Unequal canonical forms, though no drawn case (at most 6 blocks) tells them apart.
    assert not equivalent(Rule(max_count=30), Rule())


@pytest.mark.parametrize(
    ("packer", "rule", "max_units"),
    [(packer, rule, units) for packer, _, rule, units in DECLARED],
    ids=[packer.__name__ for packer, *_ in DECLARED],
)
def test_each_port_is_recovered_as_its_declared_rule(
    packer: Packer, rule: Rule, max_units: int
) -> None:
    found = infer(packer, Settings(**QUICK, max_units=max_units))
    assert found.fits, found
    assert equivalent(found.rule, rule), (found.rule.changed(), rule.changed())
    assert found.agreed == found.asked > 300
    assert found.verified > 0


#: Each one-key regression of the ports (issue 38) and the key it changes.
ONE_KEY: dict[str, dict[str, Any]] = {
    "trim_last_extra_4": {"per_item": 4},
    "pack_overhead_6": {"per_item": 6},
    "prune_no_prefix": {"per_item": 0},
    "prune_newest": {"order": "given"},
    "pack_skip": {"on_misfit": "skip"},
    "pack_validated_ge": {"fit": "lt"},
    "pack_validated_limit_zero": {"refuse_budget_below": 0},
    "get_no_last_check": {"pin": "last"},
}


@pytest.mark.parametrize("name", list(ONE_KEY))
def test_each_one_key_regression_yields_the_regressed_rule(name: str) -> None:
    packer, declared = REGRESSIONS[name]
    regressed = Rule(**{**declared.keys(), **ONE_KEY[name]})
    found = infer(packer, Settings(**QUICK))
    assert found.fits
    assert equivalent(found.rule, regressed), (found.rule.changed(), regressed.changed())


def test_a_packer_outside_the_vocabulary_gets_the_nearest_rule_and_a_case() -> None:
    found = infer(lost_middle.rank, Settings(**QUICK))
    assert not found.fits
    # It stops at the first misfit, as the rule says; only the order it lays them out in
    # is not the vocabulary's.
    assert found.rule == Rule(on_misfit="stop")
    assert found.asked > found.agreed > found.asked // 2
    case = found.counterexample
    assert case is not None
    assert len(case["blocks"]) <= 4
    assert found.answer == refusing(lost_middle.rank)(case) != found.expected
    assert found.expected == interpret(found.rule, case).result
    assert [b["id"] for b in case["blocks"]] == ["A", "B", "C"][: len(case["blocks"])]


def _wrong_on_seven(case: dict[str, Any]) -> Any:
    """packcheck's own rule, but nothing is kept of exactly seven blocks: no case the
    search asks has seven blocks; verify's generated cases do."""
    answer = interpret(Rule(), case).result
    if len(case["blocks"]) == 7 and "kept" in answer:
        return {**answer, "kept": [], "remaining": case["budget"]}
    return answer


def test_a_rule_that_fails_verify_is_never_returned() -> None:
    # 50 generated cases (not 200): seed 1 draws seven blocks among them, and verify
    # fails the rule on the first case of seven blocks it meets, however many follow.
    found = infer(_wrong_on_seven, Settings(seed=1, max_examples=50, long_lists=False))
    assert not found.fits
    assert found.verified == 0
    assert found.counterexample is not None
    # The rule verify failed stays the nearest: it missed that one case alone.
    assert found.rule == Rule()
    assert len(found.counterexample["blocks"]) == 7


def test_rules_left_alike_are_told_apart_by_asking_the_packer() -> None:
    # With few drawn cases the probe cases narrow the rules: those they leave alike are
    # told apart by cases asked on purpose.  10 drawn (not 0): a tenth of the CPU, and
    # still wrong without the telling apart (_TOLD = 0), as with none.
    rule = Rule(order="reversed", dedup="kept", pin="first")
    packer = refusing(lambda case: interpret(rule, case).result)
    found = infer(packer, Settings(**QUICK), drawn=10)
    assert found.fits
    assert equivalent(found.rule, rule)
    assert all(a.equivalent or a.case is None for a in found.alternatives)


def test_rules_left_alike_and_unasked_are_listed_with_a_case(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The packer and the 10 drawn cases of the test above: without telling apart, rules
    # are left alike (half the CPU of the default rule's packer with none drawn).
    monkeypatch.setattr(_infer, "_TOLD", 0)
    rule = Rule(order="reversed", dedup="kept", pin="first")
    found = infer(refusing(lambda case: interpret(rule, case).result), Settings(**QUICK), drawn=10)
    assert found.fits
    assert equivalent(found.rule, rule)
    told = [a for a in found.alternatives if not a.equivalent]
    assert told
    assert all(a.case is not None for a in told)
    case = told[0].case
    assert case is not None
    assert interpret(found.rule, case).result != interpret(told[0].rule, case).result


def test_a_seed_is_needed() -> None:
    with pytest.raises(ValueError, match="seed"):
        infer(lost_middle.rank, Settings())


def _bad_partition(case: dict[str, Any]) -> Any:
    """packcheck's own answers, with a captured partition that is never right."""
    answer = interpret(Rule(), case).result
    if "kept" not in answer:
        return answer
    return {**answer, "partition": {"packed": ["?"], "available": [], "dropped": []}}


def test_rules_that_give_every_answer_but_fail_verify_are_said_so() -> None:
    found = infer(_bad_partition, Settings(**QUICK, shrink_seconds=1))
    assert not found.fits
    assert found.rule == Rule()  # the first that gave every answer
    assert found.agreed == found.asked
    assert found.counterexample is not None
    assert found.answer["partition"]["packed"] == ["?"]
    assert found.notes[-1].startswith("every rule that gave every answer failed verify --rule: ")


class _Slow(Adapter):
    """packcheck's own rule, so slow for its timeout that every list longer than a
    report shows whole is slow."""

    timeout = 1e-9

    def answer(self, case: dict[str, Any]) -> object:
        return interpret(Rule(), case).result


def test_a_slow_packer_is_said_to_have_had_its_lists_cut() -> None:
    found = infer(_Slow(), Settings(**QUICK))
    assert found.fits
    assert found.notes[0].startswith("long lists cut at ")
