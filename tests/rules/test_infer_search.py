"""The candidate rules of ``rule infer`` and how they are narrowed
(``packcheck.rules._search``)."""

from __future__ import annotations

from fractions import Fraction

from packcheck import Rule
from packcheck._rule.interpret import interpret
from packcheck.rules._asking import comparable
from packcheck.rules._numbers import Numbers
from packcheck.rules._search import Candidates, candidates, simplicity, tell_apart


def test_simplicity_counts_keys_then_follows_the_table() -> None:
    ranked = sorted(
        [Rule(per_item=3, order="reversed"), Rule(reserve=1), Rule(fit="lt"), Rule()],
        key=simplicity,
    )
    assert ranked == [Rule(), Rule(fit="lt"), Rule(reserve=1), Rule(per_item=3, order="reversed")]
    assert simplicity(Rule(per_item=Fraction(1, 3), remaining="sizes"))[1][0] == (3, 1)


def test_candidates_are_every_discrete_choice_with_the_numbers_found() -> None:
    plain = candidates(Numbers(charges={(0, 0, 0)}))
    assert len(plain) == 3 * 2 * 3 * 4 * 2 * 4 * 2 * 2
    assert plain[0] == Rule()
    # Charges that remaining showed: only remaining = "charged"; a fraction: only "sizes".
    charged = candidates(Numbers(charges={(2, 0, 0)}, charged=True))
    assert {r.remaining for r in charged} == {"charged"}
    fractional = candidates(Numbers(charges={(Fraction(1, 3), 0, 0)}))
    assert {r.remaining for r in fractional} == {"sizes"}
    refusing = candidates(Numbers(charges={(0, 0, 0)}, empty_refused=True, floors={0, 5}))
    assert len(refusing) == 4 * len(plain)


def test_rules_are_dropped_past_the_slack_and_the_nearest_kept() -> None:
    case = {"budget": 3, "blocks": [{"id": "A", "size": 2}, {"id": "B", "size": 1}], "required": []}
    rules = Candidates([Rule(), Rule(on_misfit="stop"), Rule(fit="lt")])
    answer = comparable(interpret(Rule(fit="lt"), case).result)
    rules.check(case, answer)
    assert rules.fitting() == [Rule(fit="lt")]
    assert rules.nearest() == (Rule(fit="lt"), 0)
    for _ in range(3):
        rules.check(case, answer)
    assert set(rules.misses) == {Rule(fit="lt")}  # 4 misses: past the slack
    rules = Candidates([Rule(fit="lt"), Rule(), Rule(on_misfit="stop")])
    rules.check(case, ("error", "'refused'"))
    assert rules.fitting() == []
    assert rules.nearest() == (Rule(), 1)  # every rule missed it: the simplest
    rules.drop(Rule())
    rules.drop(Rule(on_misfit="stop"))
    rules.drop(Rule(fit="lt"))
    rules.drop(Rule(fit="lt"))  # twice: nothing
    assert rules.nearest() is None


def test_tell_apart_finds_a_case_or_says_none() -> None:
    case = tell_apart(Rule(), Rule(fit="lt"), [], 1)
    assert case is not None
    assert interpret(Rule(), case).result != interpret(Rule(fit="lt"), case).result
    # No drawn case has a budget this high: the walk along the budget finds one.
    high, higher = Rule(refuse_budget_below=400), Rule(refuse_budget_below=500)
    case = tell_apart(high, higher, [], 1)
    assert case is not None
    assert 400 <= case["budget"] < 500
    # The same rule spelled otherwise, and rules no small case tells apart.
    assert tell_apart(Rule(), Rule(pin_overflow="refuse"), [], 1) is None
    assert tell_apart(Rule(), Rule(max_count=9), [], 1, drawn=20) is None
