"""Faults alike are not differences (packcheck.diff): a case OLD gives no answer to in
time is not compared, nor one both sides fault on alike, nor one NEW gives no answer to
where OLD took more than half its time; lists as long as one OLD could not answer are
left out; the report's notes count them all."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from packers import broken, message_overhead

from packcheck import diff
from packcheck._gate import text
from packcheck._gate.probes import long_probes
from packcheck._packers import Packer, PackerFault, PackerTimeout
from packcheck.diff._behaviour import alike, outcome
from packcheck.diff._oracle import DiffOracle
from packcheck.strategies import MAX_SAFE_UNITS

Answer = Callable[[dict[str, Any]], object]
STOPPED = "no answer within 1 s (timeout); packer stopped"
QUICK: dict[str, Any] = {"max_examples": 300, "long_lists": False}


class Side(Packer):
    """A packer adapter answering with ``answer``, with the ``timeout`` a worker has."""

    def __init__(self, answer: Answer, timeout: float = 1.0) -> None:
        self.answer_of = answer
        self.timeout = timeout

    def answer(self, case: dict[str, Any]) -> object:
        return self.answer_of(case)


def _case(blocks: int) -> dict[str, Any]:
    return {"budget": blocks, "blocks": [{"id": "A", "size": 1}] * blocks, "required": []}


def _hangs_past(length: int, answer: Answer = broken.correct) -> Answer:
    def packer(case: dict[str, Any]) -> object:
        if len(case["blocks"]) > length:
            raise PackerTimeout(STOPPED)
        return answer(case)

    return packer


def _faults(message: str) -> Answer:
    def packer(case: dict[str, Any]) -> object:
        raise PackerFault(message)

    return packer


def test_a_case_old_gives_no_answer_to_is_not_compared_nor_a_longer_list() -> None:
    asked: list[int] = []

    def new(case: dict[str, Any]) -> object:
        asked.append(len(case["blocks"]))
        return {"kept": "anything"}

    oracle = DiffOracle(Side(new), Side(_hangs_past(100)))
    assert oracle.judge(_case(120), "long list") is None
    assert asked == []  # NEW is not asked: nothing could be compared with its answer
    assert oracle.seen() == "fault"
    assert [oracle.skips(_case(n)) for n in (99, 119, 120, 5000)] == [False, False, True, True]
    assert oracle.judge(_case(3), "generated case") is not None  # shorter cases still differ
    assert oracle.notes() == (
        "1 case where OLD gave no answer within 1 s was not compared",
        "2 long lists of 120 blocks or more were not asked: OLD gave no answer within 1 s "
        "to a list of 120 blocks; a longer timeout raises the limit",
    )


def test_a_short_case_old_gives_no_answer_to_leaves_no_list_out() -> None:
    oracle = DiffOracle(Side(broken.correct), Side(_hangs_past(-1)))
    assert oracle.judge(_case(3), "generated case") is None
    assert not oracle.skips(_case(5000))
    assert oracle.notes() == (
        "1 case where OLD gave no answer within 1 s was not compared; "
        "a longer timeout raises the limit",
    )


def test_a_packer_that_hangs_on_long_lists_agrees_with_itself() -> None:
    hangs = Side(_hangs_past(1000))
    summary = diff.run(hangs, hangs, seed=1, max_examples=20)
    assert summary.agree
    asked = summary.checked["long lists"]
    lengths = [len(p.build()["blocks"]) for p in long_probes(1, MAX_SAFE_UNITS)]
    first = next(n for n in lengths if n > 1000)
    # The lists shorter than the first past 1,000 blocks, and that one, not compared.
    assert asked == sum(n < first for n in lengths) + 1
    assert summary.status == 0
    lines = text(summary).splitlines()
    assert lines[0] == "note:     1 case where OLD gave no answer within 1 s was not compared"
    assert lines[1].startswith("note:     ")
    assert lines[1].endswith(" blocks; a longer timeout raises the limit")
    # A NEW that differs on a short case is still found beside it.
    assert not diff.run(Side(broken.stop_at_first_misfit), hangs, seed=1, max_examples=20).agree


def test_new_giving_no_answer_where_old_was_slow_is_not_compared() -> None:
    timeout = _hangs_past(-1)
    # OLD took more than half of its (zero) seconds on every case.
    slow = DiffOracle(Side(timeout), Side(broken.correct, timeout=0.0))
    assert slow.judge(_case(60), "long list") is None
    assert slow.skips(_case(60))
    first, second = slow.notes()
    assert first == (
        "1 case where NEW gave no answer within 0 s and OLD took more than half of that was not "
        "compared"
    )
    assert second.startswith("1 long list of 60 blocks or more was not asked: OLD took ")
    assert second.endswith(
        " s, more than a quarter of the timeout, on a list of 60 blocks; "
        "a longer timeout raises the limit"
    )
    # On a short case, or where OLD answered in time, NEW giving none is NEW's fault.
    assert slow.judge(_case(3), "generated case") is not None
    prompt = DiffOracle(Side(timeout), Side(broken.correct, timeout=math.inf))
    finding = prompt.judge(_case(60), "long list")
    assert finding is not None
    assert finding.failures == (f"NEW's fault: {STOPPED}",)
    assert not prompt.skips(_case(60))


def test_faults_alike_are_not_compared_and_other_faults_are() -> None:
    died = "exited with status 3 (no exception named); stderr:"
    oracle = DiffOracle(Side(_faults(died)), Side(_faults(died)))
    assert oracle.judge(_case(2), "generated case") is None
    assert oracle.notes() == ("1 case where both sides faulted alike was not compared",)
    # Beside a case OLD gave no answer to, the hint follows the timeout's line.
    oracle.old = Side(_hangs_past(-1))
    assert oracle.judge(_case(2), "generated case") is None
    assert oracle.notes() == (
        "1 case where both sides faulted alike was not compared",
        "1 case where OLD gave no answer within 1 s was not compared; "
        "a longer timeout raises the limit",
    )
    other = DiffOracle(Side(_faults(died)), Side(_faults("exited with status 4")))
    finding = other.judge(_case(2), "generated case")
    assert finding is not None
    assert len(finding.failures) == 2
    assert alike(outcome(Side(_faults("x")), {}), outcome(Side(_faults("x")), {}))
    assert not alike(outcome(Side(_faults("x")), {}), outcome(Side(_hangs_past(-1)), _case(1)))
    assert not alike(
        outcome(Side(broken.correct), _case(1)), outcome(Side(broken.correct), _case(1))
    )


def test_a_walk_old_gives_no_answer_in_stops_and_compares_nothing_more() -> None:
    asked = 0

    def old(case: dict[str, Any]) -> object:
        nonlocal asked
        asked += 1
        budget = case.get("budget")
        # A walk asks the budget beside its own.  The seed fixtures' budgets are all
        # odd: they are answered, or OLD would be given up on (3 in a row) before.
        if asked > 3 and type(budget) is int and budget % 2:
            raise PackerTimeout(STOPPED)
        return message_overhead.pack(case)

    summary = diff.run(message_overhead.pack_ge, Side(old), seed=3, **QUICK)
    assert summary.checked["transition points"] == 0
    assert summary.seen["generated"]["fault"] > 0
    assert summary.agree  # seed 3 draws no case where the two differ: the walk would find one


def test_a_fault_beside_a_transition_point_is_shown_unshrunk() -> None:
    def new(case: dict[str, Any]) -> object:
        if message_overhead.pack_ge(case) != message_overhead.pack(case):
            raise PackerTimeout(STOPPED)
        return message_overhead.pack(case)

    summary = diff.run(Side(new), message_overhead.pack, seed=3, **QUICK)
    finding = summary.finding
    assert finding is not None
    assert finding.origin == (
        "generated case (seed 3, at a transition point, not shrunk: no answer within the timeout)"
    )
    assert summary.failing["transition points"] == 1
    assert summary.shrink_tries == 0


def test_new_giving_no_answer_on_a_long_list_old_answers_is_shown_unshrunk() -> None:
    def new(case: dict[str, Any]) -> object:
        if len(case.get("blocks") or ()) > 5000:
            raise PackerTimeout(STOPPED)
        return broken.correct(case)

    summary = diff.run(Side(new), broken.correct, seed=1, max_examples=20)
    finding = summary.finding
    assert finding is not None
    assert finding.origin == "long list (seed 1, not shrunk: no answer within the timeout)"
    assert finding.blocks() > 5000
    assert summary.shrink_tries == 0


def test_an_old_that_times_out_in_the_transition_walk_ends_the_walk() -> None:
    # The walk asks OLD alone: a timeout there is raised, not taken for an answer.
    class Silent(Packer):
        def answer(self, case: dict[str, Any]) -> object:
            raise PackerTimeout("no answer within 0.1 s")

    class Answers(Packer):
        def answer(self, case: dict[str, Any]) -> object:
            return {"kept": [], "remaining": 0, "missing": []}

    oracle = DiffOracle(Answers(), Silent())
    with pytest.raises(PackerTimeout, match="no answer"):
        oracle.expected_shape({"budget": 0, "blocks": [], "required": []})
