"""``packcheck rule diff`` on drawn pairs of rules: every case it reports really tells
the two apart, and where it says "equivalent" the interpreter agrees."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_rule_canonical_properties import GRID, reset_prone_rules, small_cases
from test_rule_interpret_properties import rules

from packcheck import Rule, RuleError
from packcheck._rule.declared import CHOICES
from packcheck._rule.interpret import interpret
from packcheck.rules import diff

_VALUES: dict[str, list[Any]] = {
    **{key: list(choices) for key, choices in CHOICES.items()},
    "per_item": [0, 1, 2, "1/2"],
    "separator": [0, 1, 2, "1/2"],
    "reserve": [0, 1, 3, "1/2"],
    "max_count": [0, 1, 2, 3],
    "refuse_budget_below": [0, 1, 2, 4],
    "refuse_empty": [False, True],
}


@st.composite
def one_key_apart(draw: st.DrawFn) -> tuple[Rule, Rule]:
    """A rule and the same rule with one key changed (``remaining = "sizes"`` beside
    a fractional charge)."""
    old = draw(rules() | reset_prone_rules())
    key = draw(st.sampled_from(sorted(_VALUES)))
    keys = {**old.keys(), key: draw(st.sampled_from(_VALUES[key]))}
    try:
        return old, Rule(**keys)
    except RuleError:  # a fraction under "charged"
        return old, Rule(**{**keys, "remaining": "sizes"})


def answer(rule: Rule, case: dict[str, Any]) -> dict[str, Any]:
    return interpret(rule, case).result


pairs = one_key_apart() | st.tuples(rules(), rules())


# Each example is a whole search (about 0.1 s): an eighth of the profile's examples.
@settings(max_examples=max(25, settings.default.max_examples // 8))
@given(pairs, st.integers(0, 2**32 - 1))
def test_every_case_reported_tells_the_rules_apart(pair: tuple[Rule, Rule], seed: int) -> None:
    old, new = pair
    found = diff(old, new, seed=seed, max_examples=15)
    for case in found.cases:
        assert case.old == answer(old, case.case)
        assert case.new == answer(new, case.case)
        assert case.old != case.new, case.case
    if found.equivalent:
        assert found.cases == ()


@st.composite
def respellings(draw: st.DrawFn) -> tuple[Rule, Rule]:
    """A rule and another spelling of its canonical form: a key the canonical form
    reset given another value (so both may be the same rule, or not, if the value
    matters after all)."""
    rule = draw(rules() | reset_prone_rules())
    canonical = rule.canonical()
    reset = [k for k in _VALUES if getattr(rule, k) != getattr(canonical, k)]
    key = draw(st.sampled_from(reset or sorted(_VALUES)))
    keys = {**canonical.keys(), key: draw(st.sampled_from(_VALUES[key]))}
    try:
        return rule, Rule(**keys)
    except RuleError:  # a fraction under "charged"
        return rule, Rule(**{**keys, "remaining": "sizes"})


@settings(max_examples=max(25, settings.default.max_examples // 2))
@given(respellings() | one_key_apart(), st.data())
def test_rules_said_equivalent_answer_alike(pair: tuple[Rule, Rule], data: st.DataObject) -> None:
    old, new = pair
    if old.canonical() != new.canonical():
        return
    assert diff(old, new, seed=0).equivalent
    drawn = data.draw(st.lists(small_cases, min_size=20, max_size=40))
    for case in GRID[::3] + drawn:
        assert answer(old, case) == answer(new, case), (old, new, case)
