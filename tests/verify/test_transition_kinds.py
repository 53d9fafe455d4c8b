"""``verify``'s transition-point cases reach every kind of transition point of a declared
rule: for each key a rule has, the cases that verify itself draws (``verify.run``, its
phase "transition points", told apart by the progress callback) include that key's edge.

The kinds, read from the reference interpreter's outcome of each case:

* ``per_item``, ``reserve``: a block that fits exactly, and one a unit too large;
  ``separator``: the same for a block charged the separator;
* ``pin``: a pin that fits exactly, and one a unit too large (refused under
  ``pin_overflow = "refuse"``, kept over what is left under ``"allow"``);
* ``on_misfit = "stop"``: a block after the one the scan stopped at that would fit;
* ``dedup``: a block removed or skipped as a duplicate of a kept one (under ``"kept"``,
  one that would fit);
* ``max_count``: a block after the count was reached that would fit;
* ``refuse_budget_below``: a budget one below it, and one at it;
* ``refuse_empty``: an empty list, and one block.
"""

from __future__ import annotations

from typing import Any

import pytest

from packcheck import Rule
from packcheck._rule.interpret import REFUSED, interpret
from packcheck._rule.model import SizeError, read_case
from packcheck._rule.outcomes import KEPT_EVENTS
from packcheck.verify import run

NEAR = "transition points"

#: Rules with each key, alone or as the ports and the new user's trimmer have them.
RULES = [
    Rule(per_item=4),
    Rule(separator=2),
    Rule(reserve=3),
    Rule(order="reversed", on_misfit="stop", per_item=3),
    Rule(on_misfit="stop"),
    Rule(order="reversed", on_misfit="stop", per_item=4, pin="first", pin_overflow="refuse"),
    Rule(pin="last", pin_overflow="refuse"),
    Rule(order="reversed", on_misfit="stop", pin="last"),
    Rule(pin="required", separator=1),
    Rule(dedup="first"),
    Rule(dedup="last"),
    Rule(dedup="kept", pin="required"),
    Rule(max_count=3),
    Rule(on_misfit="stop", max_count=3),
    Rule(refuse_budget_below=5),
    Rule(order="middle-out", on_misfit="stop", refuse_budget_below=1),
    Rule(refuse_empty=True),
]


def wanted(rule: Rule) -> set[str]:
    """The kinds of transition point ``rule``'s keys have."""
    kinds = set()
    if rule.per_item or rule.reserve:
        kinds |= {"exact fit", "one over"}
    if rule.separator:
        kinds |= {"exact fit with separator", "one over with separator"}
    if rule.pin != "none":
        kinds |= {"pin exact fit", "pin one over"}
    if rule.on_misfit == "stop":
        kinds.add("stopped before one that fits")
    if rule.dedup != "none":
        kinds.add("duplicate of a kept block")
    if rule.dedup == "kept":
        kinds.add("duplicate of a kept block that fits")
    if rule.max_count:
        kinds.add("count reached before one that fits")
    if rule.refuse_budget_below:
        kinds |= {"budget one below the floor", "budget at the floor"}
    if rule.refuse_empty:
        kinds |= {"no block", "one block"}
    return kinds


def kinds(rule: Rule, case: dict[str, Any]) -> set[str]:
    """The kinds of transition point ``case`` is at under ``rule``."""
    read = read_case(case)
    if isinstance(read, SizeError):
        return set()
    found = set()
    if rule.refuse_budget_below and read.budget == rule.refuse_budget_below - 1:
        found.add("budget one below the floor")
    if rule.refuse_budget_below and read.budget == rule.refuse_budget_below:
        found.add("budget at the floor")
    if rule.refuse_empty:
        found.add({0: "no block", 1: "one block"}.get(len(read.ids), "blocks"))
    if read.budget < rule.refuse_budget_below or (rule.refuse_empty and not read.ids):
        return found
    # A pin that does not fit is seen kept over what is left, where the rule refuses.
    outcome = interpret(Rule(**{**rule.keys(), "pin_overflow": "allow"}), case)
    assert outcome.result == interpret(rule, case).result or (
        interpret(rule, case).result == REFUSED
    )

    def fits(cost: int, left: int) -> bool:
        return cost <= left if rule.fit == "le" else cost < left

    kept = [i for i, event in enumerate(outcome.events) if event in KEPT_EVENTS]
    kept_ids = {read.ids[i] for i in kept}
    for i, event in enumerate(outcome.events):
        left = outcome.left[i]
        assert isinstance(left, int)
        # Every kept block costs at least a unit: those charged before have more left.
        after_first = any(outcome.left[j] > left for j in kept)
        separator = rule.separator if after_first else 0
        cost = read.sizes[i] + rule.per_item + separator
        exact, over = fits(cost, left) and not fits(cost + 1, left), fits(cost - 1, left)
        over = over and not fits(cost, left)
        pin = "pin " if event == "pin" else ""
        if event in ("pin", "kept") and exact:
            found |= {f"{pin}exact fit", *(["exact fit with separator"] * bool(separator))}
        if event in ("pin", "misfit", "stop") and over:
            found |= {f"{pin}one over", *(["one over with separator"] * bool(separator))}
        if event == "stopped" and fits(cost, left):
            found.add("stopped before one that fits")
        if event == "count" and fits(cost, left):
            found.add("count reached before one that fits")
        if event == "duplicate" and read.ids[i] in kept_ids:
            found.add("duplicate of a kept block")
            if rule.dedup == "kept" and fits(cost, left):
                found.add("duplicate of a kept block that fits")
    return found


#: Generated cases per run: the phase walks the same number of them (its bases, evenly
#: spread) whatever the run draws, and a twentieth of the default run's already reaches
#: every kind (30 do not: the pins' edges are missed); a walk that no longer tries a
#: point's neighbours, or the length, or that walks fewer bases, misses kinds at 50 as
#: at 100 and 1,000.
EXAMPLES = 50


def transition_point_cases(rule: Rule) -> list[dict[str, Any]]:
    """The cases of the phase "transition points" of ``verify --rule`` at ``--seed 1``
    and :data:`EXAMPLES` (long lists left out: they come after it), of a packer that is
    the rule."""
    phase: list[str] = [""]
    asked: list[dict[str, Any]] = []

    def progress(name: str, count: int, total: int | None) -> None:
        phase[0] = name

    def packer(case: dict[str, Any]) -> dict[str, Any]:
        if phase[0] == NEAR:
            asked.append(case)
        return interpret(rule, case).result

    summary = run(
        packer, rule=rule, seed=1, max_examples=EXAMPLES, long_lists=False, progress=progress
    )
    assert summary.conformant
    assert len(asked) == summary.checked[NEAR]
    return asked


@pytest.mark.parametrize("rule", RULES, ids=[" ".join(r.changed()) for r in RULES])
def test_every_kind_of_transition_point_of_a_rule_is_reached(rule: Rule) -> None:
    reached = {kind for case in transition_point_cases(rule) for kind in kinds(rule, case)}
    assert wanted(rule) <= reached, sorted(wanted(rule) - reached)


def test_each_kind_is_told_apart() -> None:
    # The classifier itself, on a case of each kind.
    def case(budget: int, sizes: list[int], ids: str = "ABCDEFGH") -> dict[str, Any]:
        blocks = [{"id": i, "size": s} for i, s in zip(ids, sizes, strict=False)]
        return {"budget": budget, "blocks": blocks, "required": []}

    assert kinds(Rule(per_item=4), case(5, [1])) == {"exact fit"}
    assert kinds(Rule(per_item=4), case(4, [1])) == {"one over"}
    assert kinds(Rule(separator=2), case(5, [1, 2])) == {"exact fit", "exact fit with separator"}
    assert kinds(Rule(separator=2), case(4, [1, 2])) == {"one over", "one over with separator"}
    refuse = Rule(pin="first", pin_overflow="refuse", per_item=1)
    assert kinds(refuse, case(1, [1])) == {"pin one over"}
    assert kinds(refuse, case(2, [1])) == {"pin exact fit"}
    assert kinds(Rule(on_misfit="stop"), case(2, [3, 1])) == {
        "one over",
        "stopped before one that fits",
    }
    assert kinds(Rule(max_count=1), case(9, [1, 1])) == {"count reached before one that fits"}
    assert kinds(Rule(dedup="kept"), case(9, [1, 1], "AA")) == {
        "duplicate of a kept block",
        "duplicate of a kept block that fits",
    }
    assert kinds(Rule(dedup="first"), case(9, [1, 1], "AA")) == {"duplicate of a kept block"}
    floor = Rule(refuse_budget_below=3)
    assert kinds(floor, case(2, [])) == {"budget one below the floor"}
    assert kinds(floor, case(3, [])) == {"budget at the floor"}
    assert kinds(Rule(refuse_empty=True), case(1, [])) == {"no block"}
    assert kinds(Rule(refuse_empty=True), case(0, [1])) == {"one block", "one over"}
    assert kinds(Rule(), {"budget": 1, "blocks": [{"id": "A", "size": 0}], "required": []}) == set()
