"""The interpreter of a declared rule: the seed's rule gives today's reference answers
and trace; any rule keeps its accounting, its partition and its reasons straight."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import example, given
from hypothesis import strategies as st

from packcheck import Rule, pack, trace
from packcheck._rule.interpret import interpret
from packcheck._rule.model import Case, read_case
from packcheck._rule.outcomes import KEPT_EVENTS, REASON_BUCKET
from packcheck.strategies import cases

INT64_MAX = 2**63 - 1

_CHARGES = st.integers(0, 3) | st.sampled_from(["1/2", "2/3", "7/3"])
_MAX_COUNTS = st.integers(0, 3)
_REFUSE_BELOW = st.integers(0, 2)


@st.composite
def rules(
    draw: st.DrawFn,
    charges: st.SearchStrategy[int | str] = _CHARGES,
    max_counts: st.SearchStrategy[int] = _MAX_COUNTS,
    refuse_below: st.SearchStrategy[int] = _REFUSE_BELOW,
) -> Rule:
    """Any rule, each key drawn independently (fractional charges with ``sizes``); the
    charges, ``max_count`` and ``refuse_budget_below`` drawn from the strategies given."""
    keys: dict[str, Any] = {
        "order": draw(st.sampled_from(["given", "reversed", "middle-out"])),
        "fit": draw(st.sampled_from(["le", "lt"])),
        "on_misfit": draw(st.sampled_from(["skip", "stop", "overshoot"])),
        "per_item": draw(charges),
        "separator": draw(charges),
        "reserve": draw(charges),
        "pin": draw(st.sampled_from(["none", "first", "last", "required"])),
        "pin_overflow": draw(st.sampled_from(["allow", "refuse"])),
        "dedup": draw(st.sampled_from(["none", "first", "last", "kept"])),
        "max_count": draw(max_counts),
        "output": draw(st.sampled_from(["input", "scan"])),
        "refuse_budget_below": draw(refuse_below),
        "refuse_empty": draw(st.booleans()),
    }
    charged = (keys["per_item"], keys["separator"], keys["reserve"])
    fractional = any(Fraction(charge).denominator != 1 for charge in charged)
    keys["remaining"] = "sizes" if fractional else draw(st.sampled_from(["charged", "sizes"]))
    return Rule(**keys)


@example({"budget": 2**64, "blocks": [{"id": "A", "size": 2**63}] * 3, "required": ["A"]})
@example({"budget": INT64_MAX, "blocks": [{"id": "A", "size": INT64_MAX}], "required": ["B"]})
@example({"budget": 4.0, "blocks": [{"id": "A", "size": 4.0}], "required": []})
@example({"budget": 0, "blocks": [], "required": ["\U0001f600", "\ue000"]})
@given(cases() | cases(max_units=2**70))
def test_the_default_rule_gives_todays_reference_answer_and_trace(case: dict[str, Any]) -> None:
    outcome = interpret(Rule(), case)
    assert outcome.result == pack(case)
    assert type(outcome.result.get("remaining", 0)) is int
    today = trace(case)
    buckets = tuple(step.bucket for step in today.steps)
    assert outcome.buckets == buckets
    assert (outcome.reasons or {}) == today.reasons
    if outcome.events:
        assert outcome.left == tuple(step.remaining_before for step in today.steps)


def _read(case: dict[str, Any]) -> Case | None:
    """The case read, or ``None`` for an invalid unit (the strategy draws no malformed
    case)."""
    read = read_case(case)
    return read if isinstance(read, Case) else None


@given(rules(), cases(max_blocks=12, max_units=20))
def test_any_rule_keeps_its_accounting(rule: Rule, case: dict[str, Any]) -> None:
    outcome = interpret(rule, case)
    read = _read(case)
    if read is None:
        assert outcome.result == {"error": "size"}
        return
    if outcome.result == {"error": "refused"}:
        assert set(outcome.buckets) <= {"dropped"}
        assert set((outcome.reasons or {}).values()) <= {"refused"}
        return
    kept = [i for i, event in enumerate(outcome.events) if event in KEPT_EVENTS]
    # Check the answer: the kept blocks, in the output's order, and what remains.
    assert sorted(outcome.result["kept"]) == sorted(read.ids[i] for i in kept)
    if rule.output == "input":
        assert outcome.result["kept"] == [read.ids[i] for i in kept]
    charges = sum(read.sizes[i] + rule.per_item for i in kept) + rule.separator * max(
        len(kept) - 1, 0
    )
    if rule.remaining == "charged":
        assert outcome.result["remaining"] == read.budget - rule.reserve - charges
    else:
        assert outcome.result["remaining"] == read.budget - sum(read.sizes[i] for i in kept)
    assert type(outcome.result["remaining"]) is int
    # Check the count: pins beyond max_count only.
    pins = outcome.events.count("pin")
    if rule.max_count:
        assert len(kept) <= max(rule.max_count, pins)
    # Check the partition: packed is exactly the kept blocks.
    assert [b == "packed" for b in outcome.buckets] == [e in KEPT_EVENTS for e in outcome.events]
    # Check the reasons: one per distinct missing ID, each in its bucket.
    missing = outcome.result["missing"]
    assert list(outcome.reasons or {}) == list(dict.fromkeys(missing))
    for block_id, reason in (outcome.reasons or {}).items():
        bucket = REASON_BUCKET[reason]
        holders = [b for i, b in zip(read.ids, outcome.buckets, strict=True) if i == block_id]
        assert (bucket in holders) if bucket else not holders


@given(rules(), cases(max_blocks=10, max_units=20, allow_invalid=False), st.data())
def test_dropped_is_a_block_the_rule_could_not_keep_beside_the_pins_alone(
    rule: Rule, case: dict[str, Any], data: st.DataObject
) -> None:
    # Pins that do not depend on the other blocks: none, or the required ones.
    rule = Rule(**{**rule.keys(), "pin": data.draw(st.sampled_from(["none", "required"]))})
    outcome = interpret(rule, case)
    if outcome.result.get("error") or not case["blocks"]:
        return
    required = set(case["required"])
    pins = [i for i, event in enumerate(outcome.events) if event == "pin"]
    index = data.draw(st.integers(0, len(case["blocks"]) - 1))
    block = case["blocks"][index]
    if outcome.buckets[index] == "packed" or (rule.pin == "required" and block["id"] in required):
        return
    alone = [case["blocks"][i] for i in sorted({*pins, index})]
    beside = interpret(rule, {**case, "blocks": alone})
    kept_alone = alone.index(block)
    assert (beside.events[kept_alone] in KEPT_EVENTS) == (outcome.buckets[index] == "available")


@given(rules(), cases(max_blocks=12, max_units=20))
def test_whole_charges_give_int_arithmetic(rule: Rule, case: dict[str, Any]) -> None:
    left = interpret(rule, case).left
    whole = not any(
        isinstance(getattr(rule, k), Fraction) for k in ("per_item", "separator", "reserve")
    )
    if whole:
        assert all(type(value) is int for value in left)
