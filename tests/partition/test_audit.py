"""``packcheck.audit``: a recorded run checked step by step, fed wrong captures."""

from __future__ import annotations

import json
from typing import Any

import pytest
from cases import DISTRACTOR
from runs import DEFECTS, clean_run, planted_run, text

from packcheck import audit
from packcheck.audit import Audit, Violation, check_run, record_step


def _checks(lines: list[str]) -> dict[int, str]:
    return {v.line: v.check for v in check_run(lines).violations}


def test_a_clean_run_passes_and_keeps_its_own_keys() -> None:
    steps = clean_run()
    report = check_run(text(steps).splitlines())
    assert report.violations == ()
    assert report.ok
    summary = report.summary
    assert (summary.steps, summary.correct, summary.violations) == (300, 300, 0)
    assert summary.left_out > 0
    assert summary.warning is None
    assert all({"step", "attempt", "at"} <= set(step) for step in steps)


def test_planted_defects_are_named_on_exactly_their_lines() -> None:
    steps, planted = planted_run()
    assert len(planted) == len(DEFECTS)
    report = check_run(text(steps).splitlines())
    assert {v.line: v.check for v in report.violations} == planted
    assert report.summary.violations == len(planted)
    assert report.summary.correct == 300 - sum(c != "result" for c in planted.values())
    assert report.summary.status() == 1
    for violation in report.violations:
        assert violation.step == violation.line - 1  # the step's own field, 0-based


def test_the_seed_scenario_as_a_recorded_step() -> None:
    case = {
        "budget": 60,
        "blocks": [{"id": f"doc-{n}", "size": s} for n, s in enumerate([10] * 6 + [5, 70, 8, 100])],
        "required": ["doc-6"],
    }
    step = record_step(case)
    assert len(step["partition"]["packed"]) == 6
    assert step["partition"]["dropped"] == ["doc-7", "doc-9"]
    only_packed = {**step, "partition": {**step["partition"], "available": [], "dropped": []}}
    assert _checks([json.dumps(step), json.dumps(only_packed)]) == {2: "merged-by-position"}


def test_a_violation_names_line_step_and_check() -> None:
    step = {**record_step(DISTRACTOR), "id": "turn-7"}
    step["partition"]["available"] = []
    step["partition"]["dropped"] = ["C"]
    (violation,) = check_run(["", json.dumps(step)]).violations
    assert str(violation).startswith('line 2 (step turn-7): bucket: blocks[2] (id "C", size 2)')
    assert violation.to_json() == {
        "line": 2,
        "check": "bucket",
        "message": violation.message,
        "step": "turn-7",
    }
    assert str(Violation(3, "result", "x", {"n": 1})) == 'line 3 (step {"n":1}): result: x'
    assert Violation(3, "result", "x").to_json() == {"line": 3, "check": "result", "message": "x"}


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b"\xff{}", "not UTF-8: byte 0xff at offset 0"),
        (b'{"budget": 1,', "invalid JSON"),
        (b"[1, 2]", "expected a step object, got array"),
        (b'{"budget": 1, "blocks": {}, "required": []}', "blocks: expected an array"),
        (b"[" * 100_000, "nesting too deep"),
        (b"NaN", "NaN is not valid JSON"),
        (
            b'{"error": "input", "detail": "line 3: blocks[0].id: expected a string"}',
            'not a step: the recorded input was malformed ("line 3: blocks[0].id: expected',
        ),
        (b'{"error": "input", "detail": "x", "blocks": []}', "required: expected"),
    ],
)
def test_a_malformed_line_is_named_and_the_rest_still_checked(line: bytes, why: str) -> None:
    good = json.dumps(record_step(DISTRACTOR)).encode()
    report = check_run([good, line, good])
    (violation,) = report.violations
    assert (violation.line, violation.check) == (2, "malformed")
    assert why in violation.message
    summary = report.summary
    assert (summary.steps, summary.correct, summary.malformed, summary.violations) == (2, 2, 1, 0)
    assert summary.status() == 2


def test_a_byte_order_mark_blank_lines_and_crlf_are_accepted() -> None:
    good = json.dumps(record_step(DISTRACTOR))
    report = check_run(["\ufeff" + good + "\r\n", "\n", good.encode() + b"\r\n"])
    assert (report.violations, report.summary.steps) == ((), 2)


def test_a_recorded_result_must_be_the_declared_output() -> None:
    step = record_step(DISTRACTOR)
    wrong = {**step, "result": {**step["result"], "missing": []}}
    (violation,) = check_run([json.dumps(wrong)]).violations
    assert violation.check == "result"
    assert violation.message.startswith("missing == required - kept:")
    no_result = {k: v for k, v in step.items() if k != "result"}
    assert check_run([json.dumps(no_result)]).violations == ()
    null_result = {**step, "result": None}
    assert _checks([json.dumps(null_result)]) == {1: "result"}


def test_packed_is_checked_against_the_recorded_kept() -> None:
    case = {"budget": 2, "blocks": [{"id": "A", "size": 1}] * 2, "required": []}
    step = record_step(case)
    step["partition"]["packed"] = ["A"]
    (violation,) = check_run([json.dumps(step)]).violations
    assert violation.check == "packed-is-kept"
    del step["result"]
    assert _checks([json.dumps(step)]) == {1: "merged-by-position"}


def test_a_size_error_step_carries_the_empty_partition() -> None:
    case = {"budget": 3, "blocks": [{"id": "C", "size": -1}], "required": ["C"]}
    step = record_step(case)
    assert step["partition"] == {"packed": [], "available": [], "dropped": []}
    assert step["result"] == {"error": "size"}
    assert check_run([json.dumps(step)]).violations == ()


def test_a_run_that_left_nothing_out_is_a_warning_not_a_pass() -> None:
    case = {"budget": 9, "blocks": [{"id": "A", "size": 1}], "required": ["A"]}
    summary = check_run([json.dumps(record_step(case))]).summary
    assert summary.left_out == 0
    assert summary.warning is not None
    assert "cannot show" in summary.warning
    assert (summary.status(), summary.status(strict=True)) == (0, 1)
    assert Audit().summary().warning is None


def test_what_the_run_lost_most_frequent_first() -> None:
    evicted = {
        "budget": 2,
        "blocks": [{"id": "A", "size": 2}, {"id": "X", "size": 1}],
        "required": ["X", "Y"],
    }
    oversized = {"budget": 2, "blocks": [{"id": "X", "size": 3}], "required": ["X", "X"]}
    lines = [
        json.dumps({**record_step(evicted), "step": "s1"}),
        json.dumps(record_step(oversized)),
        json.dumps({**record_step(evicted), "step": {"turn": 3}}),
    ]
    lost = check_run(lines).summary.lost
    assert [loss.to_json() for loss in lost] == [
        {
            "id": "X",
            "count": 3,
            "reasons": {"evicted": 2, "oversized": 1},
            "steps": [{"line": 1, "step": "s1"}, {"line": 2}, {"line": 3, "step": '{"turn":3}'}],
        },
        {
            "id": "Y",
            "count": 2,
            "reasons": {"not-retrieved": 2},
            "steps": [{"line": 1, "step": "s1"}, {"line": 3, "step": '{"turn":3}'}],
        },
    ]
    assert str(lost[0]) == (
        'lost "X": missing in 3 steps (evicted 2, oversized 1): '
        'line 1 (step s1), line 2, line 3 (step {"turn":3})'
    )


def test_the_tally_stays_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(audit.Audit.__init__.__kwdefaults__, "max_tracked", 1)
    monkeypatch.setattr(audit._check, "MAX_STEPS_SHOWN", 1)
    case: dict[str, Any] = {"budget": 0, "blocks": [], "required": ["A", "B"]}
    summary = check_run([json.dumps(record_step(case))] * 3).summary
    (loss,) = summary.lost
    assert (loss.id, loss.count, loss.steps, summary.untracked) == ("A", 3, ((1, None),), 3)
    assert str(loss).endswith("line 1, ...")


def test_the_round_trip_check_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    line = json.dumps(record_step(DISTRACTOR))
    real = audit._check.write_json
    calls = iter(range(10))
    # A writer that changes a record the second time it writes it.
    monkeypatch.setattr(audit._check, "write_json", lambda value: real(value) + (" " * next(calls)))
    (violation,) = check_run([line]).violations
    assert violation.check == "round-trip"
    monkeypatch.setattr(audit._check, "write_json", lambda value: real(value)[:-1])
    (violation,) = check_run([line]).violations
    assert violation.check == "round-trip"
    assert "unreadable (invalid JSON" in violation.message


def test_a_result_carrying_its_partition_is_judged_by_the_full_checker() -> None:
    # Not the declared output key for key (it has a partition too), yet correct: the
    # shortcut's equality fails and check_output passes it, partition and all.
    record = record_step(DISTRACTOR)
    record["result"] = {**record["result"], "partition": record["partition"]}
    report = check_run([json.dumps(record)])
    assert report.violations == ()
    assert report.summary.correct == 1
    # And with a wrong partition inside the result, the full checker names it.
    record["result"]["partition"] = {"packed": [], "available": [], "dropped": []}
    (violation,) = check_run([json.dumps(record)]).violations
    assert violation.check == "result"
