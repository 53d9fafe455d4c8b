"""A rule's canonical form answers every case as the rule does, so two rules with
equal canonical forms answer alike (``packcheck rule diff`` calls them equivalent)."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from test_rule_interpret_properties import rules

from packcheck import Rule
from packcheck._rule.interpret import interpret
from packcheck.strategies import cases

_CHARGES = st.sampled_from([0, 0, 1, 2, "1/2", "4/2"])


def reset_prone_rules() -> st.SearchStrategy[Rule]:
    """Rules drawn where the canonical resets' conditions hold often: ``max_count = 1``,
    a pin of one block, ``overshoot``, a refusing pin beside ``refuse_empty``."""
    return rules(
        charges=_CHARGES,
        max_counts=st.sampled_from([0, 1, 1, 2]),
        refuse_below=st.integers(0, 5),
    )


#: Rules whose refusing pin may make ``refuse_budget_below`` redundant, near its edge.
refusing_pins = st.builds(
    Rule,
    refuse_empty=st.just(True),
    pin=st.sampled_from(["first", "last"]),
    pin_overflow=st.just("refuse"),
    fit=st.sampled_from(["le", "lt"]),
    per_item=st.integers(0, 2),
    reserve=st.integers(0, 1),
    refuse_budget_below=st.integers(0, 5),
)

#: Small cases whose IDs repeat and are required: where pins, duplicates and counts meet.
small_cases = st.fixed_dictionaries(
    {
        "budget": st.integers(0, 12),
        "blocks": st.lists(
            st.fixed_dictionaries({"id": st.sampled_from("ABC"), "size": st.integers(1, 4)}),
            max_size=5,
        ),
        "required": st.lists(st.sampled_from("ABD"), max_size=3),
    }
)


def _grid() -> list[dict[str, Any]]:
    """Every case of at most 3 blocks of sizes 1-2 and IDs A or B, at budgets 0-3 and
    5, with ``required`` empty or ``["A"]``: small enough to try on every rule drawn,
    and where a reset's condition, when it is wrong, shows."""
    found = []
    for n in range(4):
        for sizes in itertools.product((1, 2), repeat=n):
            for ids in itertools.product("AB", repeat=n):
                blocks = [{"id": i, "size": s} for i, s in zip(ids, sizes, strict=True)]
                for budget in (0, 1, 2, 3, 5):
                    for required in ([], ["A"]):
                        found.append({"budget": budget, "blocks": blocks, "required": required})
    return found


GRID = _grid()


def answers_alike(one: Rule, other: Rule, case: dict[str, Any]) -> None:
    assert interpret(one, case).result == interpret(other, case).result, (one, other, case)


@example(
    Rule(refuse_empty=True, pin="first", pin_overflow="refuse", fit="lt", refuse_budget_below=2),
    {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []},
)
@given(
    rules() | reset_prone_rules() | refusing_pins,
    small_cases | cases(max_blocks=5, max_units=6),
)
def test_a_rule_and_its_canonical_form_answer_alike(rule: Rule, case: dict[str, Any]) -> None:
    canonical = rule.canonical()
    answers_alike(rule, canonical, case)
    assert canonical.canonical() == canonical


# Each example tries ~1,700 cases: half the profile's examples.
@settings(max_examples=max(25, settings.default.max_examples // 2))
@given(rules() | reset_prone_rules() | refusing_pins)
def test_a_rule_and_its_canonical_form_answer_alike_on_every_small_case(rule: Rule) -> None:
    canonical = rule.canonical()
    if canonical != rule:
        for case in GRID:
            answers_alike(rule, canonical, case)
