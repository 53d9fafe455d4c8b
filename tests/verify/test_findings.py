"""``packcheck.verify._findings``: a finding, how it is reported, examined and explained."""

from __future__ import annotations

import collections
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from named_causes import explained
from packers import broken

from packcheck import pack
from packcheck._gate.fixtures import Fixture
from packcheck._packers import CallablePacker, PackerFault
from packcheck._partition.invariants import check_output
from packcheck._rule.jsonio import dumps
from packcheck.verify import _findings
from packcheck.verify._findings import (
    SHOWN_WHOLE,
    Finding,
    examine,
    show_answer,
)
from packcheck.verify._oracle import ReferenceOracle

SHORT = {
    "budget": 3,
    "blocks": [{"id": "A", "size": 4}, {"id": "C", "size": 2}],
    "required": ["C"],
}


def _long_case(blocks: int = 1000) -> dict[str, Any]:
    return {
        "budget": 12,
        "blocks": [{"id": "A", "size": 1, "text": f"t{i}"} for i in range(blocks)],
        "required": ["Z"],
    }


def _found(case: Any, packer: Any) -> Finding:
    finding = examine(CallablePacker(packer), case, pack(case), "probe")
    assert finding is not None
    return finding


def test_a_short_finding_shows_answer_expected_and_fixture() -> None:
    finding = explained(_found(SHORT, broken.stop_at_first_misfit))
    report = finding.report()
    assert report.splitlines() == [
        "FAIL probe",
        "  check:    output: differs from the declared output (exact JSON and types)",
        f"  check:    {finding.failures[1]}",
        '  departs:  kept[0]: the rule keeps blocks[1] (id "C", size 2, 3 left before it); '
        "the answer ends after 0 entries",
        '  cause:    consistent with: on_misfit = "stop" (declared "skip"); ignores the last block',
        '  answer:   {"kept":[],"remaining":3,"missing":["C"]}',
        '  expected: {"kept":["C"],"remaining":1,"missing":[]}',
        f"  fixture:  {dumps([finding.fixture()])}",
    ]
    assert finding.failures[1].startswith("invariant ")
    fixture = finding.fixture()
    assert fixture["input"] == SHORT
    assert fixture["expected"] == pack(SHORT)
    assert fixture["id"].startswith("verify-")
    assert len(fixture["id"]) == len("verify-") + 12


def test_a_named_finding_keeps_its_name_as_fixture_id() -> None:
    finding = Finding(SHORT, pack(SHORT), {}, ("x",), "fixtures", name="skip-large-continue")
    assert finding.fixture()["id"] == "skip-large-continue"
    assert "cause:    no known cause" in finding.report()


def test_a_finding_over_50_blocks_is_summarised_around_its_departure() -> None:
    case = _long_case()
    answer = {"kept": ["A", "A"], "remaining": 10, "missing": ["Z"]}
    finding = explained(Finding(case, pack(case), answer, ("output: differs",), "long list"))
    report = finding.report()
    lines = report.splitlines()
    assert finding.blocks() == 1000 > SHOWN_WHOLE
    assert lines[1:3] == [
        "  check:    output: differs",
        '  departs:  kept[2]: the rule keeps blocks[2] (id "A", size 1, 10 left before it); '
        "the answer ends after 2 entries",
    ]
    summary = next(line for line in lines if line.startswith("  case:"))
    assert summary.startswith('  case:     1,000 blocks, budget 12, required ["Z"]; blocks [0] ')
    # The window: three blocks either side of blocks[2], clipped at the start.
    assert [f"[{i}]" in summary for i in range(7)] == [True] * 6 + [False]
    assert '"text":"t5"' in summary
    assert '"text":"t6"' not in summary
    expected = '{"kept":["A","A","A",... 12 entries ...,"A","A"],"remaining":0,"missing":["Z"]}'
    assert f"  expected: {expected}" in lines
    assert '  answer:   {"kept":["A","A"],"remaining":10,"missing":["Z"]}' in lines
    assert lines[-1] == "  fixture:  too long to show; save_failures=DIR saves it whole"
    # No whole fixture: the report is short, and holds none of the far blocks.
    assert '"t999"' not in report
    assert len(report) < 1000


def test_the_window_sits_at_the_departure_deep_in_the_list() -> None:
    case = _long_case()
    case["budget"] = 1000
    answer = {"kept": ["A"] * 500, "remaining": 500, "missing": ["Z"]}
    finding = explained(Finding(case, pack(case), answer, ("output: differs",), "long list"))
    summary = next(line for line in finding.report().splitlines() if "  case:" in line)
    assert "blocks [497] " in summary
    assert [f'"t{i}"' in summary for i in (496, 497, 503, 504)] == [False, True, True, False]


def test_a_long_finding_with_no_block_to_blame_shows_the_first_blocks() -> None:
    case = _long_case(60)
    # Going on past the rule, with a block the rule skips: blamed at that block.
    answer = {"kept": ["A"] * 13, "remaining": -1, "missing": []}
    finding = explained(Finding(case, pack(case), answer, ("output: differs",), "x"))
    summary = next(line for line in finding.report().splitlines() if "  case:" in line)
    assert "blocks [9] " in summary
    assert "[12] " in summary
    assert "[15] " in summary
    for answer in (
        {"kept": ["A"] * 12 + ["Q"], "remaining": -1, "missing": []},  # no such block
        {"error": "size"},  # no kept list at all
    ):
        finding = explained(Finding(case, pack(case), answer, ("output: differs",), "x"))
        summary = next(line for line in finding.report().splitlines() if "  case:" in line)
        assert "blocks [0] " in summary
        assert "[3] " in summary
        assert "[4] " not in summary


def test_a_long_finding_whose_packer_failed_says_so_without_a_cause() -> None:
    fault = PackerFault("raised RuntimeError: boom; stderr:\nTraceback (most recent call last)")
    case = _long_case(60)
    finding = Finding(case, pack(case), fault, (f"packer fault: {fault}",), "long list")
    assert explained(finding) is finding
    report = finding.report()
    assert "cause:" not in report
    assert "  answer:   (no answer: raised RuntimeError: boom)" in report.splitlines()
    odd = Finding(case, pack(case), (1, 2), ("output: differs",), "long list")
    assert "  answer:   (1, 2)" in odd.report().splitlines()


def test_show_answer_shows_json_or_the_python_types() -> None:
    assert show_answer({"kept": ["A"], "remaining": 0, "missing": []}) == (
        '{"kept":["A"],"remaining":0,"missing":[]}'
    )
    assert show_answer({"remaining": Decimal("2.5"), "x": [None, True]}) == (
        '{"remaining":2.5,"x":[null,true]}'
    )
    assert show_answer({"kept": ("A",)}) == "{'kept': ('A',)}"
    assert show_answer({"remaining": np.int64(3)}) == "{'remaining': np.int64(3)}"
    assert show_answer({1: "A"}) == "{1: 'A'}"
    assert show_answer({"remaining": 0.0}) == '{"remaining":0.0}'
    assert show_answer({"remaining": float("nan")}) == "{'remaining': nan}"
    fault = PackerFault("timed out after 5 s; stderr:\nlast line\nmore")
    assert show_answer(fault) == "(no answer: timed out after 5 s)"


def test_a_finding_without_blocks_counts_none() -> None:
    assert Finding([1], None, None, (), "x").blocks() == 0
    assert Finding({"blocks": "AB"}, None, None, (), "x").blocks() == 0
    assert Finding(SHORT, None, None, (), "x").blocks() == 2


def test_examine_passes_the_declared_output_and_nothing_else() -> None:
    packer = CallablePacker(broken.correct)
    assert examine(packer, SHORT, pack(SHORT), "x") is None
    # Every checker is fed a wrong answer: a value, a type, a key, a fault.
    assert examine(CallablePacker(broken.stop_at_first_misfit), SHORT, pack(SHORT), "x")
    for wrong in (
        broken.zero_remaining_as_float,
        broken.float_remaining,
        broken.numpy_remaining,
        broken.tuple_kept,
        broken.extra_key,
    ):
        case = {"budget": 2, "blocks": [{"id": "A", "size": 2}], "required": []}
        finding = examine(CallablePacker(wrong), case, pack(case), "x")
        assert finding is not None, wrong
        assert finding.failures[0].startswith("output: differs"), wrong
        assert len(finding.failures) == 2, wrong


class _Str(str):
    """A string that is not a ``str``: equal to one, and not the same JSON type."""


def test_exact_types_tell_equal_values_apart() -> None:
    case = {"budget": 2, "blocks": [{"id": "A", "size": 1}], "required": ["B", "C"]}
    expected = pack(case)
    for answer in (
        {**expected, "missing": ["B", "C"]},
        {"missing": ["B", "C"], "remaining": 1, "kept": ["A"]},  # key order is free
    ):
        assert examine(CallablePacker(lambda c, a=answer: a), case, expected, "x") is None
    for answer in (
        {**expected, "missing": ["B"]},
        {**expected, "missing": ["C", "B"]},
        {**expected, "kept": [1.0]},
        {**expected, "remaining": 1.0},
        {**expected, "remaining": True},
        {**expected, "kept": ["A"], "extra": 1},
        {**expected, "missing": ["B", _Str("C")]},  # equal, but not a str
        {**expected, "kept": [_Str("A")]},
    ):
        assert examine(CallablePacker(lambda c, a=answer: a), case, expected, "x"), answer
    # 1 == 1.0 == True in a list: equal values, different types.
    assert examine(CallablePacker(lambda c: [1]), case, [1.0], "x") is not None
    assert examine(CallablePacker(lambda c: [True]), case, [1], "x") is not None


def test_a_packer_that_raises_is_a_packer_fault_finding() -> None:
    case = {"budget": 2, "blocks": [{"id": "A", "size": 1}, {"id": "B", "size": 1}], "required": []}
    finding = examine(CallablePacker(broken.raises), case, pack(case), "probe")
    assert finding is not None
    assert isinstance(finding.answer, PackerFault)
    fault = "raised RuntimeError: packer exploded (at tests/packers/broken.py:170)"
    assert finding.failures == (f"packer fault: {fault}",)
    assert explained(finding) is finding
    assert f"(no answer: {fault})" in finding.report()
    assert "cause:" not in finding.report()


def test_explained_adds_causes_and_departure() -> None:
    finding = _found(SHORT, broken.stop_at_first_misfit)
    assert (finding.causes, finding.departs) == ((), None)
    done = explained(finding)
    # Unconfirmed: every simplest variant that gives this answer on this case.
    assert done.causes == ('on_misfit = "stop" (declared "skip")', "ignores the last block")
    assert done.departs is not None
    assert done.departs.startswith("kept[0]: the rule keeps blocks[1]")
    assert (done.case, done.answer, done.failures) == (
        finding.case,
        finding.answer,
        finding.failures,
    )


def test_a_partition_is_checked_when_carried_and_required_when_asked() -> None:
    expected = pack(SHORT)
    partition = {"packed": ["C"], "available": [], "dropped": ["A"]}
    carried = CallablePacker(lambda c: {**broken.correct(c), "partition": partition})
    assert examine(carried, SHORT, expected, "x", partition=True) is None
    bare = CallablePacker(broken.correct)
    assert examine(bare, SHORT, expected, "x") is None
    finding = examine(bare, SHORT, expected, "x", partition=True)
    assert finding is not None
    assert len(finding.failures) == 1
    assert "no partition captured" in finding.failures[0]
    wrong = {"packed": ["C"], "available": ["A"], "dropped": []}
    liar = CallablePacker(lambda c: {**broken.correct(c), "partition": wrong})
    finding = examine(liar, SHORT, expected, "x")
    assert finding is not None
    assert [f.split(" ", 1)[0] for f in finding.failures] == ["invariant"]
    error = CallablePacker(broken.correct)
    case = {**SHORT, "budget": -1}
    assert examine(error, case, pack(case), "x", partition=True) is None


def test_a_finding_that_passes_alone_shows_its_first_case_or_says_only_that() -> None:
    finding = Finding(SHORT, pack(SHORT), {}, ("x",), "probe", alone=False)
    lines = finding.report().splitlines()
    assert lines[2].startswith("  alone:    this case passes when asked again on its own")
    assert not any(line.startswith("  first:") for line in lines)
    assert not any("consistent with" in line for line in lines)
    case = _long_case(60)
    first = Finding(case, pack(case), {}, ("x",), "long list")
    finding = Finding(SHORT, pack(SHORT), {}, ("x",), "probe", alone=False, first=first, before=9)
    assert (
        "  first:    found as case 10 of the run, after 9 others passed: 60 blocks "
        "(save_failures=DIR saves the shrunk case)"
    ) in finding.report()


def test_the_checker_runs_unless_the_answer_is_exactly_the_reference_s_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    checked: list[object] = []

    def counted(case: object, output: object) -> None:
        checked.append(output)
        check_output(case, output)

    monkeypatch.setattr(_findings, "check_output", counted)
    expected = pack(SHORT)
    # The reference's output, answered exactly: the checker could only agree.
    assert examine(CallablePacker(broken.correct), SHORT, expected, "x", declared=True) is None
    assert checked == []
    # Not declared (a fixture's recorded output), a partition asked for or carried, an
    # answer that differs or is no plain dict: the checker runs.
    assert examine(CallablePacker(broken.correct), SHORT, expected, "x") is None
    partition = {"packed": ["C"], "available": [], "dropped": ["A"]}
    carried = CallablePacker(lambda c: {**broken.correct(c), "partition": partition})
    assert examine(carried, SHORT, expected, "x", declared=True) is None
    finding = examine(
        CallablePacker(broken.correct), SHORT, expected, "x", partition=True, declared=True
    )
    assert finding is not None
    assert "no partition captured" in finding.failures[0]
    ordered = CallablePacker(lambda c: collections.OrderedDict(broken.correct(c)))
    assert examine(ordered, SHORT, expected, "x", declared=True) is None
    wrong = CallablePacker(broken.stop_at_first_misfit)
    finding = examine(wrong, SHORT, expected, "x", declared=True)
    assert finding is not None
    assert finding.failures[1].startswith("invariant every skip is forced")
    assert len(checked) == 5


def test_a_fixture_s_recorded_output_is_checked_even_when_answered_exactly() -> None:
    # A fixture whose recorded output breaks the rule: answering it is no pass.
    wrong = broken.stop_at_first_misfit(SHORT)
    fixture = Fixture("bad", SHORT, wrong, "fixture bad.json")
    oracle = ReferenceOracle(CallablePacker(broken.stop_at_first_misfit))
    finding = oracle.judge(SHORT, fixture.origin, fixture)
    assert finding is not None
    assert len(finding.failures) == 1
    assert finding.failures[0].startswith("invariant every skip is forced")
    assert examine(CallablePacker(broken.stop_at_first_misfit), SHORT, wrong, "x") is not None
    # The same answer judged against the reference's output fails as it always did.
    finding = oracle.judge(SHORT, "generated")
    assert finding is not None
    assert len(finding.failures) == 2
