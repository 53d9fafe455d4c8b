"""``packcheck.pack`` and ``packcheck.trace`` under a declared rule, and the trace's
explanation in the rule's words."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from packcheck import ENGINES, MalformedCase, Rule, pack, pack_many, trace
from packcheck._cli.explain import explain_lines

SEED_CASE = {
    "budget": 7,
    "blocks": [{"id": "A", "size": 4}, {"id": "B", "size": 3}, {"id": "C", "size": 2}],
    "required": ["B", "C"],
}
NEWEST = Rule(order="reversed", on_misfit="stop")


def _case(budget: object, blocks: str, required: str = "") -> dict[str, Any]:
    listed = [{"id": item[0], "size": int(item[1:])} for item in blocks.split()]
    return {"budget": budget, "blocks": listed, "required": required.split()}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_default_rule_takes_todays_path(engine: Any) -> None:
    today = pack(SEED_CASE, engine=engine)
    assert pack(SEED_CASE, engine=engine, rule=Rule()) == today
    assert pack(SEED_CASE, engine=engine, rule=Rule(name="mine")) == today
    assert trace(SEED_CASE, engine=engine, rule=Rule()) == trace(SEED_CASE, engine=engine)
    assert trace(SEED_CASE, rule=Rule()).to_json() == trace(SEED_CASE).to_json()


@pytest.mark.parametrize("engine", ENGINES)
def test_any_other_rule_is_packed_by_its_interpreter_on_every_engine(engine: Any) -> None:
    assert pack(SEED_CASE, engine=engine, rule=NEWEST) == {
        "kept": ["B", "C"],
        "remaining": 2,
        "missing": [],
    }
    assert trace(SEED_CASE, engine=engine, rule=NEWEST).result == pack(SEED_CASE, rule=NEWEST)


def test_pack_many_takes_the_rule() -> None:
    assert pack_many([SEED_CASE, _case(-1, "")], rule=NEWEST) == [
        {"kept": ["B", "C"], "remaining": 2, "missing": []},
        {"error": "size"},
    ]


def test_an_unknown_engine_and_a_malformed_case_fail_under_a_rule_too() -> None:
    with pytest.raises(ValueError, match="unknown engine"):
        pack(SEED_CASE, engine="gpu", rule=NEWEST)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown engine"):
        trace(SEED_CASE, engine="gpu", rule=NEWEST)  # type: ignore[arg-type]
    with pytest.raises(MalformedCase):
        trace({"budget": 1}, rule=NEWEST)


def test_a_rules_trace_carries_each_steps_event_and_the_rules_partition() -> None:
    traced = trace(_case(6, "A2 B9 C4 D1", "A B C E"), rule=Rule(on_misfit="stop", pin="last"))
    assert traced.result == {"kept": ["A", "D"], "remaining": 3, "missing": ["B", "C", "E"]}
    assert [(s.index, s.id, s.remaining_before, s.bucket, s.event) for s in traced.steps] == [
        (0, "A", 5, "packed", "kept"),
        (1, "B", 3, "dropped", "stop"),
        (2, "C", 3, "available", "stopped"),
        (3, "D", 6, "packed", "pin"),
    ]
    assert traced.partition.packed == ("A", "D")
    assert traced.partition.available == ("C",)
    assert traced.partition.dropped == ("B",)
    assert traced.reasons == {"B": "oversized", "C": "stopped", "E": "not-retrieved"}
    assert traced.to_json()["steps"][1] == {
        "index": 1,
        "id": "B",
        "size": 9,
        "remaining_before": 3,
        "bucket": "dropped",
        "event": "stop",
    }


def test_a_size_error_and_a_refusal_under_a_rule() -> None:
    bad = trace(_case(-1, "A1"), rule=NEWEST)
    assert bad.result == {"error": "size"}
    assert bad.size_error == "budget: -1 (number) is not an integer >= 0"
    refused = trace(_case(0, "A1 B1", "B"), rule=Rule(refuse_budget_below=1))
    assert refused.result == {"error": "refused"}
    assert refused.partition.dropped == ("A", "B")
    assert refused.reasons == {"B": "refused"}


def test_fractional_charges_show_what_was_left_exactly() -> None:
    rule = Rule(per_item="1/2", remaining="sizes")
    traced = trace(_case(4, "A1 B1 C1"), rule=rule)
    assert [s.remaining_before for s in traced.steps] == [4, Fraction(5, 2), 1]
    assert [s["remaining_before"] for s in traced.to_json()["steps"]] == [4, "5/2", 1]


def test_the_explanation_names_each_reason_in_the_rules_words() -> None:
    rule = Rule(on_misfit="stop", pin="first", per_item="1/2", remaining="sizes")
    lines = list(explain_lines(trace(_case(7, "P2 A3 B9 C1", "B C X"), rule=rule), "case 1"))
    assert lines == [
        "case 1:",
        "  index  id  size  remaining before  bucket     event",
        "      0  P      2                 7  packed     pin",
        "      1  A      3               9/2  packed     kept",
        "      2  B      9                 1  dropped    stop",
        "      3  C      1                 1  available  stopped",
        "  packed:    P, A",
        "  available: C",
        "  dropped:   B",
        '  result: {"kept":["P","A"],"remaining":2,"missing":["B","C","X"]}',
        "  missing B: oversized - every block with this ID costs more than the whole budget allows",
        "  missing C: stopped - the scan ended before it at B (index 2, stop)",
        "  missing X: not-retrieved - no block has this ID",
    ]


@pytest.mark.parametrize(
    ("rule", "case", "line"),
    [
        (
            Rule(on_misfit="stop"),
            _case(3, "A2 B2", "B"),
            "stopped - it did not fit what was left, and the scan ended there (index 1)",
        ),
        (
            Rule(max_count=1),
            _case(9, "A1 B1", "B"),
            "count - max_count blocks were kept before the scan met it",
        ),
        (
            Rule(pin="first"),
            _case(5, "A4 B2", "B"),
            "pin-overflow - it would fit alone, but not beside the pins",
        ),
        (
            Rule(dedup="last"),
            _case(3, "B1 B5", "B"),
            "duplicate - dedup kept another block with this ID, which was not kept",
        ),
        (
            Rule(fit="lt"),
            _case(3, "A2 B2", "B"),
            "evicted - it did not fit what was left when the scan met it",
        ),
        (Rule(refuse_empty=True), _case(3, "", "B"), "refused - the rule refused the input"),
        (
            Rule(on_misfit="overshoot"),
            _case(3, "A5 B1", "B"),
            "stopped - the scan ended before it at A (index 0, overshoot)",
        ),
    ],
)
def test_every_reason_is_explained(rule: Rule, case: dict[str, Any], line: str) -> None:
    assert list(explain_lines(trace(case, rule=rule), "c"))[-1] == f"  missing B: {line}"
