"""``packcheck.rules.diff``: the smallest cases on which two rules answer differently."""

from __future__ import annotations

import signal
from typing import Any

import pytest

from packcheck import Rule, _stop
from packcheck._rule.interpret import interpret
from packcheck.rules import Difference, diff
from packcheck.rules import _diff as rule_diff


def answers(rule: Rule, case: dict[str, Any]) -> dict[str, Any]:
    return interpret(rule, case).result


#: One pair per key family, each pair differing in that one key.
ONE_KEY = [
    (Rule(), Rule(order="reversed")),
    (Rule(), Rule(order="middle-out")),
    (Rule(), Rule(fit="lt")),
    (Rule(), Rule(on_misfit="stop")),
    (Rule(), Rule(on_misfit="overshoot")),
    (Rule(per_item=3), Rule(per_item=4)),
    (Rule(per_item="1/3", remaining="sizes"), Rule(per_item="1/2", remaining="sizes")),
    (Rule(separator=1), Rule(separator=2)),
    (Rule(reserve=5), Rule(reserve=6)),
    (Rule(), Rule(pin="first")),
    (Rule(pin="last"), Rule(pin="required")),
    (Rule(pin="first"), Rule(pin="first", pin_overflow="refuse")),
    (Rule(), Rule(dedup="kept")),
    (Rule(dedup="first"), Rule(dedup="last")),
    (Rule(max_count=2), Rule(max_count=3)),
    (Rule(max_count=7), Rule(max_count=8)),
    (Rule(order="reversed"), Rule(order="reversed", output="scan")),
    (Rule(per_item=1), Rule(per_item=1, remaining="sizes")),
    (Rule(refuse_budget_below=5), Rule(refuse_budget_below=6)),
    (Rule(), Rule(refuse_empty=True)),
]


@pytest.mark.parametrize(("old", "new"), ONE_KEY, ids=lambda r: " ".join(r.changed()) or "{}")
def test_a_one_key_change_is_told_apart_by_a_small_case(old: Rule, new: Rule) -> None:
    found = diff(old, new, seed=1)
    assert not found.equivalent
    assert found.cases
    # At most 4 blocks; a max_count pair needs one block more than its count.
    most = max(4, old.max_count + 1, new.max_count + 1)
    for case in found.cases:
        assert len(case.case["blocks"]) <= most, case.case
        assert case.old == answers(old, case.case) != answers(new, case.case) == case.new
    sizes = [rule_diff._size(case.case) for case in found.cases]
    assert sizes == sorted(sizes)
    # Magnitudes shrunk too: the budget and the sizes are a few units each.
    assert sizes[0][1] <= 20, found.cases[0].case


@pytest.mark.parametrize(
    ("old", "new", "smallest"),
    [
        (Rule(per_item=3), Rule(per_item=4), {"budget": 4, "blocks": [{"id": "A", "size": 1}]}),
        (Rule(), Rule(fit="lt"), {"budget": 1, "blocks": [{"id": "A", "size": 1}]}),
        (Rule(), Rule(refuse_empty=True), {"budget": 0, "blocks": []}),
        (
            Rule(),
            Rule(dedup="kept"),
            {"budget": 2, "blocks": [{"id": "A", "size": 1}, {"id": "A", "size": 1}]},
        ),
    ],
)
def test_the_smallest_case_comes_first(old: Rule, new: Rule, smallest: dict[str, Any]) -> None:
    assert diff(old, new, seed=1).cases[0].case == {**smallest, "required": []}


#: Spellings of one rule.
EQUIVALENT = [
    (Rule(order="given", fit="le", on_misfit="skip", pin="none", refuse_empty=False), Rule()),
    (Rule(per_item="4/2"), Rule(per_item=2)),
    (Rule(max_count=1, separator=5), Rule(max_count=1)),
    (Rule(name="old", per_item=3), Rule(name="new", per_item=3)),
    (Rule(pin_overflow="refuse"), Rule()),
    (Rule(remaining="sizes"), Rule()),
    (Rule(pin="first", output="scan"), Rule(pin="first")),
    (Rule(max_count=1, dedup="kept", order="reversed"), Rule(max_count=1, order="reversed")),
    (
        Rule(refuse_empty=True, pin="first", pin_overflow="refuse", refuse_budget_below=1),
        Rule(refuse_empty=True, pin="first", pin_overflow="refuse"),
    ),
]


@pytest.mark.parametrize(("old", "new"), EQUIVALENT)
def test_two_spellings_of_one_rule_are_equivalent_without_a_search(old: Rule, new: Rule) -> None:
    found = diff(old, new, seed=1)
    assert found.equivalent
    assert found.cases == ()
    assert found.tried == 0


def test_rules_that_answer_alike_with_other_canonical_forms_get_no_difference() -> None:
    # One block is kept and the scan ends, whatever fits: the first block met, which
    # both orders meet first.
    old = Rule(max_count=1, on_misfit="overshoot")
    new = Rule(max_count=1, on_misfit="overshoot", order="middle-out")
    assert old.canonical() != new.canonical()
    found = diff(old, new, seed=1, max_examples=20)
    assert not found.equivalent
    assert found.cases == ()
    assert found.tried > 20


def test_the_same_seed_gives_the_same_cases() -> None:
    old, new = Rule(), Rule(order="reversed", on_misfit="stop")
    first = diff(old, new, seed=7)
    assert first == diff(old, new, seed=7)
    assert len(first.cases) <= 3
    assert len(diff(old, new, seed=7, max_cases=1).cases) == 1


def test_a_case_saved_is_a_fixture_of_new_expecting_news_answer() -> None:
    new = Rule(name="newer", per_item="3/2", remaining="sizes")
    case = {"budget": 2, "blocks": [{"id": "A", "size": 1}], "required": ["A"]}
    difference = Difference(case, answers(Rule(), case), answers(new, case), new)
    fixture = difference.fixture()
    assert fixture["id"].startswith("rule-diff-01-")
    assert difference.fixture(7, 120)["id"].startswith("rule-diff-007-")
    assert fixture["rule"] == {"name": "newer", "per_item": "3/2", "remaining": "sizes"}
    assert fixture["input"] == case
    assert fixture["expected"] == {"kept": [], "remaining": 2, "missing": ["A"]}
    assert "rule" not in Difference(case, {}, {}, Rule(name="plain")).fixture()


def test_progress_names_the_walk_and_the_shrinking() -> None:
    seen: list[tuple[str, int, int | None]] = []
    diff(Rule(), Rule(fit="lt"), seed=1, progress=lambda *step: seen.append(step))
    # 200 drawn cases, and two blocks at the thresholds (0, 1, 2) of the rules.
    assert seen[0] == ("walking", 0, 203)
    assert {phase for phase, _, _ in seen} == {"walking", "shrinking cases"}


def test_a_case_that_is_not_one_answers_alike() -> None:
    search = rule_diff._Search(Rule(), Rule(fit="lt"))
    assert not search.differs({"budget": 1, "blocks": [{"size": 1}], "required": []})


def test_a_signal_carries_the_last_difference_found(monkeypatch: pytest.MonkeyPatch) -> None:
    def stopped(self: object, case: dict[str, Any], deadline: float) -> dict[str, Any]:
        raise _stop.Stopped(signal.SIGTERM)

    monkeypatch.setattr(rule_diff._Search, "shrunk", stopped)
    with pytest.raises(_stop.Stopped) as info:
        diff(Rule(), Rule(fit="lt"), seed=1)
    found = info.value.found
    assert isinstance(found, Difference)
    assert found.old != found.new
    assert found.origin == "rule diff"


def test_a_signal_before_any_difference_carries_none(monkeypatch: pytest.MonkeyPatch) -> None:
    def stopped(*args: object) -> None:
        raise _stop.Stopped(signal.SIGINT)

    monkeypatch.setattr(rule_diff._Search, "walk", stopped)
    with pytest.raises(_stop.Stopped) as info:
        diff(Rule(), Rule(fit="lt"), seed=1)
    assert info.value.found is None


def test_another_error_is_not_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("broken")

    monkeypatch.setattr(rule_diff._Search, "walk", broken)
    with pytest.raises(RuntimeError):
        diff(Rule(), Rule(fit="lt"), seed=1)


def test_bases_give_each_max_count_a_list_one_longer() -> None:
    old, new = Rule(max_count=2, per_item=1), Rule(max_count=5)
    drawn = list(_bases(old, new))
    thresholds = [base["budget"] for base in drawn[:4]]
    # No refusal (0), one block of 1 (1, 2 with per_item), two (2, 4 with per_item).
    assert thresholds == [0, 1, 2, 4]
    assert [len(base["blocks"]) for base in drawn[4:6]] == [3, 6]
    assert answers(old, drawn[4])["kept"] == ["A0", "B1"]
    assert len(answers(new, drawn[5])["kept"]) == 5
    assert len(drawn) == 10
    assert drawn[6:] == list(rule_diff.bases(Rule(), Rule(), seed=3, count=4))[3:]


def _bases(old: Rule, new: Rule) -> list[dict[str, Any]]:
    return list(rule_diff.bases(old, new, seed=3, count=4))


def test_a_threshold_far_past_the_drawn_cases_is_walked() -> None:
    old, new = Rule(per_item=10**12), Rule(per_item=10**12 + 1)
    (case, *_) = diff(old, new, seed=1).cases
    assert case.case == {"budget": 10**12 + 1, "blocks": [{"id": "A", "size": 1}], "required": []}
    refused = diff(Rule(refuse_budget_below=10**30), Rule(refuse_budget_below=10**30 + 1))
    assert refused.cases[0].case == {"budget": 10**30, "blocks": [], "required": []}


def test_the_search_loads_on_first_use_and_other_names_are_errors() -> None:
    import packcheck.rules

    assert packcheck.rules.diff is diff
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        packcheck.rules.nope  # noqa: B018


def test_a_change_of_two_keys_shows_a_case_for_each_way_the_rules_differ() -> None:
    old = Rule(order="reversed", on_misfit="stop", per_item=4, pin="first", pin_overflow="refuse")
    new = Rule(order="reversed", on_misfit="stop", per_item=5, pin="first")
    cases = [(d.case, d.old, d.new) for d in diff(old, new, seed=1).cases]
    one = [{"id": "A", "size": 1}]
    # The refusal dropped; then the cost raised: what remains, and what is kept.
    assert cases == [
        ({"budget": 0, "blocks": one, "required": []}, {"error": "refused"},
         {"kept": ["A"], "remaining": -6, "missing": []}),
        ({"budget": 5, "blocks": one, "required": []},
         {"kept": ["A"], "remaining": 0, "missing": []},
         {"kept": ["A"], "remaining": -1, "missing": []}),
        ({"budget": 10, "blocks": [*one, {"id": "B", "size": 1}], "required": []},
         {"kept": ["A", "B"], "remaining": 0, "missing": []},
         {"kept": ["A"], "remaining": 4, "missing": []}),
    ]  # fmt: skip


def test_the_cases_shown_are_the_smallest_of_each_kind_first() -> None:
    def kind(case: dict[str, Any]) -> str:
        return case["kind"]

    def case(kind: str, budget: int) -> dict[str, Any]:
        return {"kind": kind, "budget": budget, "blocks": [], "required": []}

    found = [case("a", 1), case("a", 2), case("a", 3), case("b", 9), case("c", 8)]
    assert rule_diff._smallest(found, kind, 2) == [case("a", 1), case("c", 8)]
    assert rule_diff._smallest(found, kind, 4) == [
        case("a", 1),
        case("a", 2),
        case("c", 8),
        case("b", 9),
    ]
