"""The numeric keys found by probing (``packcheck.rules._numbers``) and the packer's
answers as ``rule infer`` compares them (``packcheck.rules._asking``)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from packcheck import Rule
from packcheck._packers import CallablePacker, Packer, PackerTimeout
from packcheck._rule.interpret import interpret
from packcheck.rules._asking import FAULT, Asker, comparable
from packcheck.rules._numbers import Numbers, blocks_of_one, probe, simplest


def follows(rule: Rule) -> Asker:
    return Asker(CallablePacker(lambda case: interpret(rule, case).result))


@pytest.mark.parametrize(
    ("rule", "charges"),
    [
        (Rule(per_item=3), (3, 0, 0)),
        (Rule(separator=2), (0, 2, 0)),
        (Rule(reserve=5), (0, 0, 5)),
        (Rule(per_item=1, separator=1, reserve=3), (1, 1, 3)),
        # Refused with no blocks: only per_item + separator and reserve - separator show.
        (Rule(per_item=2, reserve=1, refuse_empty=True), (2, 0, 1)),
        (Rule(separator=4, refuse_empty=True), (0, 4, 0)),
    ],
)
def test_charges_show_in_remaining_under_charged(rule: Rule, charges: tuple[int, ...]) -> None:
    found = probe(follows(rule), 2**40)
    assert found.charged
    assert charges in found.charges


@pytest.mark.parametrize(
    ("rule", "charges"),
    [
        (Rule(separator="5/7", remaining="sizes"), (0, Fraction(5, 7), 0)),
        (Rule(per_item="17/64", remaining="sizes"), (Fraction(17, 64), 0, 0)),
        (Rule(per_item=2, reserve=3, remaining="sizes"), (2, 0, 3)),
        # fit = "lt" is a reserve of one more unit, under "sizes".
        (Rule(fit="lt", remaining="sizes", per_item=1), (1, 0, 1)),
        (Rule(on_misfit="overshoot", per_item=2, remaining="sizes"), (2, 0, 0)),
    ],
)
def test_charges_under_sizes_come_from_where_k_blocks_start_to_fit(
    rule: Rule, charges: tuple[Any, ...]
) -> None:
    found = probe(follows(rule), 2**40)
    assert not found.charged
    assert charges in found.charges, found.charges


def test_the_count_and_the_refusals_are_probed() -> None:
    found = probe(follows(Rule(max_count=5, refuse_budget_below=12)), 2**30)
    assert 5 in found.counts
    assert 12 in found.floors
    assert not found.empty_refused
    empty = probe(follows(Rule(refuse_empty=True)), 2**30)
    assert empty.empty_refused
    assert probe(follows(Rule(max_count=1)), 2**30).charges == {(0, 0, 0)}
    refused = Rule(max_count=1, per_item=2, refuse_empty=True)
    assert probe(follows(refused), 2**30).charges == {(2, 0, 0), (0, 0, 2)}


def test_simplest_takes_the_smallest_denominator_then_numerator() -> None:
    assert simplest(Fraction(-1, 3), Fraction(2, 3)) == 0  # 0 is found, not taken for none
    assert simplest(Fraction(32, 100), Fraction(34, 100)) == Fraction(1, 3)
    assert simplest(Fraction(1, 4), Fraction(1, 4)) is None  # the interval is (low, high]
    assert simplest(Fraction(1, 4), Fraction(3, 10)) == Fraction(2, 7)
    assert simplest(Fraction(1, 10**6), Fraction(2, 10**6)) is None  # needs q > 64


def test_no_charges_without_points() -> None:
    # A packer that keeps nothing, ever: no point, no slope, no charge.
    nothing = Asker(CallablePacker(lambda case: {"kept": [], "remaining": 0, "missing": []}))
    assert probe(nothing, 2**20).charges == set()
    assert Numbers().floors == {0}


def test_answers_are_compared_exactly_and_asked_once() -> None:
    calls: list[dict[str, Any]] = []

    def packer(case: dict[str, Any]) -> Any:
        calls.append(case)
        if case["budget"] == 1:
            raise ValueError("too small")
        if case["budget"] == 2:
            raise RuntimeError("boom")
        return {"kept": [], "remaining": float(case["budget"]), "missing": []}

    ask = Asker(CallablePacker(packer))
    assert ask(blocks_of_one(0, 1)) == ("error", "'refused'")
    assert ask(blocks_of_one(0, 2)) == FAULT
    assert ask(blocks_of_one(0, 3)) == ((), ("not an integer", "3.0"), ())
    assert ask(blocks_of_one(0, 3)) == ((), ("not an integer", "3.0"), ())
    assert len(calls) == 3
    assert ask.calls == 3
    assert ask.faults == 1
    assert ask.said(blocks_of_one(0, 1)) == {"error": "refused"}
    assert comparable({"kept": [], "remaining": 3.0, "missing": []}, json=True) == ((), 3, ())
    assert comparable({"kept": [], "remaining": True, "missing": []})[1] != 1
    assert comparable({"kept": "A", "remaining": 1, "missing": []}) == FAULT
    assert comparable(None) == FAULT


class _Slow(Packer):
    """A packer whose timeout is so short that any list past the shown length is slow,
    and that times out on a list of 500 blocks or more."""

    timeout = 1e-9

    def answer(self, case: dict[str, Any]) -> object:
        if len(case["blocks"]) >= 500:
            raise PackerTimeout("no answer within the timeout")
        return interpret(Rule(), case).result


def test_a_slow_packer_stops_the_lists_lengthening_and_it_is_said() -> None:
    ask = Asker(_Slow())
    found = probe(ask, 2**20)
    assert ask.cut is not None
    assert ask.too_long(ask.cut + 1)
    assert not ask.too_long(ask.cut)
    assert max(len(case["blocks"]) for case in found.asked) == ask.cut
    note = ask.note()
    assert note is not None
    assert note.startswith(f"long lists cut at {ask.cut:,} blocks")
    assert Asker(_Slow()).note() is None
    # A fault is no answer: it cuts nothing.
    faulty = Asker(_Slow())
    faulty(blocks_of_one(600, 10))
    assert faulty.cut is None


def test_answers_no_rule_gives_leave_no_number() -> None:
    def charges_back(case: dict[str, Any]) -> Any:
        # Each kept block gives a unit back: a negative per_item, which no rule has.
        answer = interpret(Rule(), case).result
        return {**answer, "remaining": answer["remaining"] + len(answer["kept"])}

    assert probe(Asker(CallablePacker(charges_back)), 2**20).charges == set()

    def squares(case: dict[str, Any]) -> Any:
        # k blocks cost k * k: the points fit no slope and offset of a rule's.
        k = len(case["blocks"])
        kept = [b["id"] for b in case["blocks"]] if case["budget"] >= k * k else []
        return {"kept": kept, "remaining": case["budget"] - len(kept), "missing": []}

    # What remaining shows (no charge), and nothing from the points.
    assert probe(Asker(CallablePacker(squares)), 2**24).charges == {(0, 0, 0)}
    # Everything refused: no count, no charge.
    refused = probe(follows(Rule(refuse_budget_below=2**40)), 2**30)
    assert refused.counts == {0}
    assert refused.charges == set()
    assert refused.empty_refused
