"""Generation that follows OLD (packcheck.diff): cases both sides fail alike on are drawn
seldom but never not at all, OLD's transition points are asked, and what OLD did is
tallied per phase."""

from __future__ import annotations

from typing import Any

import pytest
from packers import broken, message_overhead, wild

from packcheck import diff, verify
from packcheck._engines.pack import pack
from packcheck._gate import Settings
from packcheck._gate import run as _run
from packcheck._gate.shrink import SHRINK_TRIES
from packcheck._packers import CallablePacker
from packcheck.diff._oracle import DiffOracle

QUICK: dict[str, Any] = {"max_examples": 300, "long_lists": False}
PER_ITEM_EXACT_FIT = {"budget": 8, "blocks": [{"id": "A", "size": 1}], "required": []}


def _strict_lt(case: dict[str, Any]) -> dict[str, Any]:
    """:func:`wild.strict_budget` with ``<`` for ``<=``."""
    if case["budget"] == 0:
        raise ValueError("budget must be positive")
    return wild.keep_newest_lt(case)


def test_cases_both_sides_raise_on_are_kept_to_about_a_tenth_and_never_none() -> None:
    summary = diff.run(wild.strict_budget, wild.strict_budget, seed=1, **QUICK)
    assert summary.agree
    seen = summary.seen["generated"]
    assert summary.cases["generated"] == sum(seen.values()) == 300
    alike = seen.get("raise", 0) + seen.get("error", 0)
    assert 0 < alike <= 0.1 * 300 + 1
    assert summary.set_aside > 0
    assert summary.shares()[1] == "generated: 0 of 300 cases differ (0%)"


def test_invalid_units_are_drawn_seldom_by_diff_and_as_often_as_ever_by_verify() -> None:
    errors = diff.run(broken.correct, broken.correct, seed=1, **QUICK).seen["generated"]["error"]
    assert 0 < errors < 0.1 * 300
    declared = verify.run(broken.correct, seed=1, **QUICK).seen["generated"]["error"]
    assert declared > 0.3 * 300


def test_a_new_that_now_raises_where_old_answered_an_error_is_found() -> None:
    def raises(case: dict[str, Any]) -> object:
        if "error" in pack(case):
            raise ValueError("invalid unit")
        return broken.correct(case)

    for seed in (1, 2, 3):
        finding = diff.run(raises, broken.correct, seed=seed, **QUICK).finding
        assert finding is not None
        assert finding.failures[0].startswith("exception: NEW raised ValueError")


def test_a_failing_run_counts_the_generated_cases_it_drew_before_the_failure() -> None:
    summary = diff.run(_strict_lt, wild.strict_budget, seed=1, **QUICK)
    assert summary.finding is not None
    assert 1 <= summary.cases["generated"] <= 300
    assert min(summary.seen["generated"].values()) >= 0


@pytest.mark.parametrize("seed", [3, 8])
def test_a_per_item_cost_off_by_one_is_found_at_a_transition_point_of_old(seed: int) -> None:
    # Seeds 3 and 8 draw no case on which pack_ge and pack differ: the points beside
    # OLD's transitions find it, and the magnitudes are lowered.
    summary = diff.run(message_overhead.pack_ge, message_overhead.pack, seed=seed, **QUICK)
    finding = summary.finding
    assert finding is not None
    assert finding.origin == f"generated case (seed {seed}, at a transition point, shrunk)"
    assert finding.case == PER_ITEM_EXACT_FIT
    assert summary.phase == "generated"
    assert summary.checked["transition points"] > 0
    assert summary.failing["transition points"] == 1
    assert summary.failing["generated"] == 0


def test_without_transition_points_the_per_item_cost_is_missed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(DiffOracle, "transition_bases", 0)
    summary = diff.run(message_overhead.pack_ge, message_overhead.pack, seed=3, **QUICK)
    assert summary.agree
    assert summary.checked["transition points"] == 0


def test_count_reports_what_old_did_per_phase() -> None:
    summary = diff.run(_strict_lt, wild.strict_budget, seed=1, count=True, **QUICK)
    lines = summary.followed()
    assert lines[0] == "fixtures: answered 100%"
    assert lines[1].startswith("generated: answered ")
    assert " raised " in lines[1]
    assert lines[1].endswith(f" ({summary.set_aside} more, failed alike, set aside)")
    assert lines[-1].startswith("transition points: answered ")
    assert summary.failing["transition points"] > 0


def test_a_counterexample_loses_its_magnitudes_with_the_budget_following_a_size() -> None:
    # An exact fit with a per-item cost of 7, near 2**53: lowering the size alone, or
    # the budget alone, or both by the same factor, would lose it.
    big = 9007199254740957
    case = {
        "budget": big + 7 + 20,
        "blocks": [{"id": "B", "size": 13}, {"id": "A", "size": big}],
        "required": ["A"],
    }
    oracle = DiffOracle(
        CallablePacker(message_overhead.pack_ge), CallablePacker(message_overhead.pack)
    )
    state = _run._Gate(oracle, Settings())
    finding = state.judge(case, "a wide-range case")
    assert finding is not None
    assert state.shrunk(None, finding, SHRINK_TRIES).case == PER_ITEM_EXACT_FIT
