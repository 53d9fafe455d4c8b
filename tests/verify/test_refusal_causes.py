"""Causes at a refusal's edge: a packer whose number is off by one where its rule refuses
(a pin that does not fit under ``pin_overflow = "refuse"``, a budget below
``refuse_budget_below``) is named by that number, whether the rule refuses and the
packer answers or the packer refuses (raising ``ValueError``) where the rule answers.

The packer is a port-like chat trimmer: newest first, a cost per message and a separator
between kept messages, a reserve for the header, its pinned messages charged first and
``ValueError`` raised when one does not fit, or when the budget is below its floor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from packcheck import Rule
from packcheck._packers import CallablePacker, PackerRefusal
from packcheck._rule.interpret import REFUSED, interpret
from packcheck.verify import run
from packcheck.verify._findings import diagnosed, examine

Packer = Callable[[dict[str, Any]], Any]

#: The trimmer's numbers as it declares them.
NUMBERS = {"per_item": 4, "separator": 1, "reserve": 2, "refuse_budget_below": 3}
SHARED = {"order": "reversed", "on_misfit": "stop", "pin_overflow": "refuse"}
#: The pins: the first message (a system message), or every required one.
RULES = {pin: Rule(**SHARED, **NUMBERS, pin=pin) for pin in ("first", "required")}


def trimmer(
    *, pin: str, per_item: int, separator: int, reserve: int, refuse_budget_below: int
) -> Packer:
    """The trimmer with these numbers (its units checked as the seed's rule says)."""

    def trim(case: dict[str, Any]) -> dict[str, Any]:
        budget, blocks = case.get("budget"), case["blocks"]
        sizes = [block.get("size") for block in blocks]
        units = [budget, *sizes]
        if not all(type(u) in (int, float) and u == int(u) for u in units) or budget < 0:
            return {"error": "size"}
        if not all(s >= 1 for s in sizes):
            return {"error": "size"}
        if budget < refuse_budget_below:
            raise ValueError("the budget is below the floor")
        left, kept = int(budget) - reserve, []
        if pin == "first":
            pinned = [0] if blocks else []
        else:
            pinned = [i for i, block in enumerate(blocks) if block["id"] in case["required"]]
        for i in [*pinned, *(i for i in reversed(range(len(blocks))) if i not in pinned)]:
            cost = int(sizes[i]) + per_item + (separator if kept else 0)
            if cost > left:
                if i in pinned:
                    raise ValueError("a pinned message does not fit")
                break
            left -= cost
            kept.append(i)
        ids = [blocks[i]["id"] for i in sorted(kept)]
        missing = [r for r in case["required"] if r not in ids]
        missing.sort(key=lambda s: s.encode("utf-16-be", "surrogatepass"))
        return {"kept": ids, "remaining": left, "missing": missing}

    return trim


def _at_edge(pin: str, key: str, by: int) -> dict[str, Any]:
    """A case at the refusal edge ``key`` moves: the rule answers it and ``by = 1`` more
    refuses it, or the rule refuses it and ``by = -1`` less answers it."""
    if key == "refuse_budget_below":
        return {"budget": NUMBERS[key] - (by < 0), "blocks": [], "required": []}
    blocks = [{"id": "A", "size": 1}, {"id": "B", "size": 1}]
    # The pins fit exactly: 1 + 4 for the first; 1 + 4 + 1 for a second; the reserve.
    exact = 2 + 5 + (6 if pin == "required" else 0)
    required = ["A", "B"] if pin == "required" else []
    return {"budget": exact - (by < 0), "blocks": blocks, "required": required}


OFF_BY_ONE = [
    (pin, key, by)
    for pin in RULES
    for key in NUMBERS
    # Under pin = "first" the separator never meets a pin: no refusal's edge moves.
    if (pin, key) != ("first", "separator")
    for by in (-1, 1)
]


def test_the_trimmer_follows_its_rules_at_each_edge() -> None:
    for pin, key, by in OFF_BY_ONE:
        case = _at_edge(pin, key, by)
        packer = CallablePacker(trimmer(pin=pin, **NUMBERS))
        try:
            answer = packer.answer(case)
        except PackerRefusal:
            answer = REFUSED
        assert answer == interpret(RULES[pin], case).result, (pin, key, by)


@pytest.mark.parametrize(("pin", "key", "by"), OFF_BY_ONE)
def test_a_number_off_by_one_at_a_refusal_edge_is_named(pin: str, key: str, by: int) -> None:
    rule, case = RULES[pin], _at_edge(pin, key, by)
    numbers = {**NUMBERS, key: NUMBERS[key] + by}
    adapter = CallablePacker(trimmer(pin=pin, **numbers))
    expected = interpret(rule, case).result
    found = examine(adapter, case, expected, "generated case", rule=rule)
    assert found is not None
    # At the edge: one of them refuses, the packer by raising.
    assert (expected == REFUSED) != isinstance(found.answer, PackerRefusal)
    finding = diagnosed(found, adapter, max_units=2**20, rule=rule)
    said = f"{key} = {numbers[key]} (declared {NUMBERS[key]})"
    assert finding.causes == (said,), finding.report()
    assert f"cause:    consistent with: {said} (behaves like it on" in finding.report()
    assert finding.json()["cause"] == said


def test_a_refusal_no_neighbour_gives_stays_a_fault_without_a_cause() -> None:
    rule = RULES["first"]
    case = _at_edge("first", "per_item", 1)

    def refuses(case: dict[str, Any]) -> Any:
        raise ValueError("never packs")

    adapter = CallablePacker(refuses)
    found = examine(adapter, case, interpret(rule, case).result, "generated case", rule=rule)
    assert found is not None
    finding = diagnosed(found, adapter, max_units=2**20, rule=rule)
    assert finding.causes == ()
    assert "cause:" not in finding.report()
    assert finding.json()["cause"] is None
    assert "packer fault: raised ValueError: never packs" in finding.report()


def test_verify_names_the_new_users_cost_per_message_at_the_pins_edge() -> None:
    # The new user's trimmer with 3 units a message for 4: shrunk to one message that
    # the rule refuses and the trimmer keeps.
    rule = Rule(name="chat trimmer", **SHARED, per_item=4, pin="first")
    broken = trimmer(pin="first", per_item=3, separator=0, reserve=0, refuse_budget_below=0)
    summary = run(broken, rule=rule, seed=1, max_examples=100, long_lists=False)
    finding = summary.finding
    assert finding is not None
    assert finding.expected == REFUSED or isinstance(finding.answer, PackerRefusal)
    assert finding.causes == ("per_item = 3 (declared 4)",), finding.report()
