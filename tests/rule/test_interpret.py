"""The reference interpreter of a declared rule, key by key and edge by edge.

Each settled edge case of docs/rules.md has its test here.
"""

from __future__ import annotations

from typing import Any

import pytest

from packcheck import MalformedCase, Rule
from packcheck._rule.interpret import interpret, scan_order
from packcheck._rule.outcomes import REASON_BUCKET


def _case(budget: object, blocks: str, required: str = "") -> dict[str, Any]:
    """``"A4 B3"``: block A of size 4, then B of size 3."""
    listed = [{"id": item[0], "size": int(item[1:])} for item in blocks.split()]
    return {"budget": budget, "blocks": listed, "required": required.split()}


def _answer(rule: Rule, budget: object, blocks: str, required: str = "") -> dict[str, Any]:
    return interpret(rule, _case(budget, blocks, required)).result


def test_the_default_rule_is_the_seeds_scan() -> None:
    assert _answer(Rule(), 7, "A4 B3 C2", "B C") == {
        "kept": ["A", "B"],
        "remaining": 0,
        "missing": ["C"],
    }
    assert _answer(Rule(), 3, "A4 C2", "C") == {"kept": ["C"], "remaining": 1, "missing": []}
    invalid = {"budget": 3, "blocks": [{"id": "C", "size": -1}], "required": ["C"]}
    outcome = interpret(Rule(), invalid)
    assert outcome.result == {"error": "size"}
    assert outcome.size_error is not None
    assert outcome.size_error.where == "blocks[0].size"
    assert outcome.events == outcome.buckets == ()


def test_a_malformed_case_raises_whatever_the_rule() -> None:
    with pytest.raises(MalformedCase, match="blocks"):
        interpret(Rule(on_misfit="stop"), {"budget": 1, "required": []})


def test_validation_comes_before_refusals() -> None:
    rule = Rule(refuse_budget_below=10, refuse_empty=True)
    assert _answer(rule, -1, "") == {"error": "size"}
    assert _answer(rule, 9, "A1") == {"error": "refused"}
    assert _answer(rule, 10, "") == {"error": "refused"}
    assert _answer(rule, 10, "A1")["kept"] == ["A"]
    assert _answer(Rule(refuse_empty=True), 0, "A1")["kept"] == []


@pytest.mark.parametrize(
    ("order", "kept"),
    [("given", ["A", "B"]), ("reversed", ["B", "C", "D"]), ("middle-out", ["A", "C", "D"])],
)
def test_order_is_the_scan_order_and_output_input_keeps_input_order(
    order: str, kept: list[str]
) -> None:
    rule = Rule(order=order)  # type: ignore[arg-type]
    assert _answer(rule, 6, "A3 B3 C2 D1")["kept"] == kept


def test_middle_out_undoes_removing_the_middle_again_and_again() -> None:
    for n in range(12):
        left = list(range(n))
        removed = []
        while left:
            removed.append(left.pop(len(left) // 2))
        assert scan_order(range(n), "middle-out") == removed[::-1]
    assert scan_order([5, 7, 9], "middle-out") == [5, 9, 7]
    assert scan_order([5, 7, 9], "reversed") == [9, 7, 5]


def test_output_scan_lists_the_pins_then_the_blocks_in_the_order_kept() -> None:
    rule = Rule(order="reversed", output="scan", pin="first")
    assert _answer(rule, 10, "A1 B2 C3")["kept"] == ["A", "C", "B"]
    assert _answer(Rule(order="reversed", pin="first"), 10, "A1 B2 C3")["kept"] == ["A", "B", "C"]


def test_fit_lt_refuses_an_exact_fit() -> None:
    assert _answer(Rule(fit="lt"), 3, "A3 B2")["kept"] == ["B"]
    assert _answer(Rule(), 3, "A3 B2")["kept"] == ["A"]


def test_on_misfit_skip_stop_and_overshoot() -> None:
    assert _answer(Rule(), 5, "A3 B4 C2")["kept"] == ["A", "C"]
    assert _answer(Rule(on_misfit="stop"), 5, "A3 B4 C2") == {
        "kept": ["A"],
        "remaining": 2,
        "missing": [],
    }
    assert _answer(Rule(on_misfit="overshoot"), 5, "A3 B4 C2") == {
        "kept": ["A", "B"],
        "remaining": -2,
        "missing": [],
    }


def test_per_item_separator_and_reserve_are_charged() -> None:
    rule = Rule(per_item=1, separator=2, reserve=3)
    # left 17; A: 4+1 = 5 (12 left); B: 3+1+2 = 6 (6 left); C: 5+1+2 = 8 > 6; D: 3+1+2 = 6.
    assert _answer(rule, 20, "A4 B3 C5 D3") == {
        "kept": ["A", "B", "D"],
        "remaining": 0,
        "missing": [],
    }
    sizes = Rule(per_item=1, separator=2, reserve=3, remaining="sizes")
    assert _answer(sizes, 20, "A4 B3 C5 D3") == {
        "kept": ["A", "B", "D"],
        "remaining": 10,
        "missing": [],
    }


def test_fractional_charges_are_exact() -> None:
    rule = Rule(per_item="1/2", remaining="sizes")
    # 1.5 + 1.5 = 3 fits 4 exactly... and a third 1.5 does not.
    assert _answer(rule, 4, "A1 B1 C1") == {"kept": ["A", "B"], "remaining": 2, "missing": []}
    assert _answer(Rule(per_item="1/3", remaining="sizes"), 4, "A1 B1 C1")["kept"] == [
        "A",
        "B",
        "C",
    ]


def test_a_reserve_above_the_budget_leaves_a_negative_remaining() -> None:
    assert _answer(Rule(reserve=5), 3, "A1") == {"kept": [], "remaining": -2, "missing": []}
    assert _answer(Rule(reserve=5, on_misfit="overshoot"), 3, "A1 B1")["kept"] == ["A"]


def test_pins_first_and_last_are_candidates_whatever_the_order() -> None:
    assert _answer(Rule(pin="first", order="reversed"), 3, "A2 B1 C2")["kept"] == ["A", "B"]
    assert _answer(Rule(pin="last"), 4, "A2 B2 C2")["kept"] == ["A", "C"]
    assert _answer(Rule(pin="last", dedup="first"), 4, "A2 B1 A1")["kept"] == ["A", "B"]
    assert _answer(Rule(pin="first"), 4, "") == {"kept": [], "remaining": 4, "missing": []}


def test_pin_required_pins_every_required_block_in_input_order() -> None:
    rule = Rule(pin="required", output="scan")
    assert _answer(rule, 5, "A2 B2 C2 B1", "B X") == {
        "kept": ["B", "B", "A"],
        "remaining": 0,
        "missing": ["X"],
    }


def test_pin_required_under_dedup_kept_pins_the_first_block_of_each_id() -> None:
    rule = Rule(pin="required", dedup="kept")
    outcome = interpret(rule, _case(9, "A2 B2 B1 C2", "B"))
    assert outcome.result == {"kept": ["A", "B", "C"], "remaining": 3, "missing": []}
    assert outcome.events == ("kept", "pin", "duplicate", "kept")


def test_pin_overflow_allow_keeps_the_pin_and_nothing_else_fits() -> None:
    rule = Rule(pin="last")
    assert _answer(rule, 3, "A1 B5") == {"kept": ["B"], "remaining": -2, "missing": []}
    overshoot = Rule(pin="last", on_misfit="overshoot")
    assert _answer(overshoot, 3, "A1 C1 B5") == {"kept": ["A", "B"], "remaining": -3, "missing": []}


def test_pin_overflow_refuse_refuses_when_a_pin_does_not_fit() -> None:
    rule = Rule(pin="required", pin_overflow="refuse", separator=1)
    assert _answer(rule, 3, "A1 B2", "A B") == {"error": "refused"}
    assert _answer(rule, 4, "A1 B2", "A B") == {"kept": ["A", "B"], "remaining": 0, "missing": []}
    assert _answer(Rule(pin="first", pin_overflow="refuse", fit="lt"), 1, "A1") == {
        "error": "refused"
    }


def test_max_count_caps_the_scan_never_the_pins() -> None:
    assert _answer(Rule(max_count=2), 9, "A1 B1 C1")["kept"] == ["A", "B"]
    pinned = Rule(max_count=1, pin="required")
    outcome = interpret(pinned, _case(9, "A1 B1 C1", "A C"))
    assert outcome.result["kept"] == ["A", "C"]
    assert outcome.events == ("pin", "count", "pin")
    assert _answer(Rule(max_count=2, on_misfit="overshoot"), 1, "A1 B1 C1")["kept"] == ["A", "B"]


def test_dedup_first_last_and_kept() -> None:
    blocks = "A3 B1 A1 C1"
    assert _answer(Rule(dedup="first"), 2, blocks)["kept"] == ["B", "C"]
    assert _answer(Rule(dedup="last"), 2, blocks)["kept"] == ["B", "A"]
    assert _answer(Rule(dedup="kept"), 9, blocks)["kept"] == ["A", "B", "C"]
    # A misfit is no duplicate: the second A is met after the first was skipped.
    assert _answer(Rule(dedup="kept"), 2, blocks)["kept"] == ["B", "A"]
    # A duplicate is skipped without charge and never ends a "stop" scan.
    assert _answer(Rule(dedup="kept", on_misfit="stop"), 5, "A3 A9 B2")["kept"] == ["A", "B"]
    assert _answer(Rule(dedup="kept", pin="last"), 9, "A1 B1 A2")["kept"] == ["B", "A"]


def test_each_block_has_an_event_a_bucket_and_what_was_left() -> None:
    outcome = interpret(Rule(on_misfit="stop", per_item=1), _case(6, "A2 B9 C4 D1", "B C D E"))
    assert outcome.result == {"kept": ["A"], "remaining": 3, "missing": ["B", "C", "D", "E"]}
    assert outcome.events == ("kept", "stop", "stopped", "stopped")
    assert outcome.buckets == ("packed", "dropped", "available", "available")
    assert outcome.left == (6, 3, 3, 3)
    assert outcome.reasons == {
        "B": "oversized",
        "C": "stopped",
        "D": "stopped",
        "E": "not-retrieved",
    }


def test_a_stop_at_an_available_block_is_its_ids_reason() -> None:
    outcome = interpret(Rule(on_misfit="stop"), _case(5, "A3 B3", "B"))
    assert outcome.reasons == {"B": "stopped"}


def test_a_skipped_misfit_is_evicted_and_a_block_the_count_never_met_is_count() -> None:
    outcome = interpret(Rule(max_count=1), _case(5, "A3 B3 C1", "B C"))
    assert outcome.events == ("kept", "count", "count")
    assert outcome.reasons == {"B": "count", "C": "count"}
    assert interpret(Rule(), _case(5, "A3 B3", "B")).reasons == {"B": "evicted"}


def test_blocks_beside_full_pins_are_dropped_by_the_pins() -> None:
    outcome = interpret(Rule(pin="first", max_count=1), _case(9, "A1 B1", "B"))
    assert outcome.buckets == ("packed", "dropped")
    assert outcome.reasons == {"B": "pin-overflow"}
    over = interpret(Rule(pin="first"), _case(5, "A4 B2 C9", "B C"))
    assert over.buckets == ("packed", "dropped", "dropped")
    assert over.reasons == {"B": "pin-overflow", "C": "oversized"}
    assert interpret(
        Rule(pin="first", on_misfit="overshoot", max_count=1), _case(5, "A4 B2", "B")
    ).reasons == {"B": "pin-overflow"}


def test_under_overshoot_nothing_is_dropped_but_by_the_count() -> None:
    outcome = interpret(Rule(on_misfit="overshoot"), _case(1, "A5 B9", "B"))
    assert outcome.buckets == ("packed", "available")
    assert outcome.reasons == {"B": "stopped"}


def test_a_duplicate_removed_before_the_scan_is_its_ids_reason_when_available() -> None:
    # dedup = "last" keeps the second A (too large); the first A would have fit.
    outcome = interpret(Rule(dedup="last"), _case(3, "A1 A5", "A"))
    assert outcome.events == ("duplicate", "misfit")
    assert outcome.buckets == ("available", "dropped")
    assert outcome.reasons == {"A": "duplicate"}
    # The block dedup left speaks first: it is what the scan met.
    stopped = interpret(Rule(dedup="last", on_misfit="stop"), _case(3, "A1 B5 A1", "A"))
    assert stopped.events == ("duplicate", "stop", "stopped")
    assert stopped.reasons == {"A": "stopped"}


def test_a_duplicate_of_a_pin_is_dropped() -> None:
    outcome = interpret(Rule(pin="first", dedup="kept"), _case(9, "A1 A1 B1"))
    assert outcome.buckets == ("packed", "dropped", "packed")


def test_a_refused_case_drops_every_block_and_each_required_id_is_refused() -> None:
    outcome = interpret(Rule(refuse_budget_below=5), _case(4, "A1 B1", "B A B X"))
    assert outcome.result == {"error": "refused"}
    assert outcome.events == ("refused", "refused")
    assert outcome.buckets == ("dropped", "dropped")
    assert outcome.reasons == {"A": "refused", "B": "refused", "X": "refused"}


def test_every_reason_has_one_bucket() -> None:
    assert REASON_BUCKET["evicted"] == "available"
    assert REASON_BUCKET["oversized"] == "dropped"
    assert REASON_BUCKET["not-retrieved"] is None
    assert set(REASON_BUCKET) == {
        "evicted",
        "oversized",
        "not-retrieved",
        "stopped",
        "pin-overflow",
        "duplicate",
        "count",
        "refused",
    }
