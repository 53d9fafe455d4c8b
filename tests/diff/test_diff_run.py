"""``packcheck.diff``: a packer against its previous self, on packers that do not follow
the declared rule (tests/packers/wild.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from packers import broken, ragflow, wild

from packcheck import diff
from packcheck._gate.fixtures import Fixture, seed_fixtures
from packcheck._gate.probes import long_probes
from packcheck._gate.run import _Gate
from packcheck._gate.shrink import SHRINK_TRIES
from packcheck._packers import CallablePacker
from packcheck.diff import DiffFinding, DiffSummary, Divergence, Settings
from packcheck.diff._oracle import DiffOracle
from packcheck.strategies import MAX_SAFE_UNITS

QUICK: dict[str, Any] = {"max_examples": 200, "long_lists": False}


def _found(new: Any, old: Any, **options: Any) -> DiffFinding:
    summary = diff.run(new, old, seed=1, **{**QUICK, **options})
    assert summary.finding is not None, summary
    assert not summary.agree
    return summary.finding


@pytest.mark.parametrize("packer", [wild.keep_newest, wild.dedup_by_id, broken.correct])
def test_a_packer_agrees_with_itself(packer: Any) -> None:
    summary = diff.run(packer, packer, seed=2, **QUICK)
    assert summary.agree
    assert summary.phase is None
    assert summary.shrink_tries == 0
    assert summary.cases["generated"] == 200
    assert summary.cases["fixtures"] == 3
    assert summary.differing == dict.fromkeys(summary.differing, 0)


def test_packers_that_raise_alike_agree() -> None:
    raised = 0

    def counting(case: dict[str, Any]) -> dict[str, Any]:
        nonlocal raised
        try:
            return wild.strict_budget(case)
        except ValueError:
            raised += 1
            raise

    assert diff.run(counting, wild.strict_budget, seed=1, **QUICK).agree
    assert raised > 10  # budgets of 0 were drawn, and raised on both sides


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_threshold_set_by_a_ratio_comes_back_small(seed: int) -> None:
    # RAGFlow's knowledge prompt cuts the chunks at a 0.97 share of the budget; '<=' for
    # '<' differs only where they fill it exactly, as doubles compute it (first found at
    # a budget of 4,503,599,627,370,488): the budget and sizes are scaled down together.
    summary = diff.run(ragflow.kb_prompt_le, ragflow.kb_prompt, seed=seed, **QUICK)
    assert summary.finding is not None
    case = summary.finding.case
    assert case["budget"] == 100
    assert 1 <= len(case["blocks"]) <= 2
    assert [b["id"] for b in case["blocks"]] == ["A", "B"][: len(case["blocks"])]


def test_a_changed_comparison_is_found_on_one_block() -> None:
    finding = _found(wild.keep_newest_lt, wild.keep_newest)
    assert finding.case == {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []}
    assert finding.failures == ("output: NEW and OLD answer differently (exact JSON and types)",)
    assert finding.parts == 'kept[0]: NEW ends after 0 entries; OLD goes on with "A"'
    assert finding.answer == {"kept": [], "remaining": 1, "missing": []}
    assert finding.expected == {"kept": ["A"], "remaining": 0, "missing": []}
    report = finding.report().splitlines()
    assert report[0] == "DIFFERS generated case (seed 1, shrunk)"
    assert '  new:      {"kept":[],"remaining":1,"missing":[]}' in report
    assert '  old:      {"kept":["A"],"remaining":0,"missing":[]}' in report
    assert report[-2] == (
        '  rule:     {"kept":["A"],"remaining":0,"missing":[]} (the declared rule, as context)'
    )
    (fixture,) = json.loads(report[-1].split(":", 1)[1])
    assert fixture["input"] == finding.case
    assert fixture["expected"] == finding.rule
    assert fixture["id"].startswith("diff-")


def test_a_changed_order_is_found_on_a_few_blocks() -> None:
    finding = _found(wild.dedup_by_id_order, wild.dedup_by_id)
    assert finding.blocks() <= 8
    assert not diff.same_answer(finding.answer, finding.expected)
    ids = [block["id"] for block in finding.case["blocks"]]
    assert len(set(ids)) < len(ids)  # the change shows only with a repeated ID


def test_new_raising_where_old_answers_names_new_and_its_exception() -> None:
    finding = _found(wild.strict_budget, wild.keep_newest)
    assert finding.failures == (
        "exception: NEW raised ValueError: budget must be positive (at tests/packers/wild.py:69), "
        "where OLD answers",
    )
    assert finding.case["budget"] == 0
    assert finding.blocks() == 0
    assert (
        "  new:      (raised ValueError: budget must be positive (at tests/packers/wild.py:69))"
        in finding.report()
    )
    assert finding.parts is None
    old_raises = _found(wild.keep_newest, wild.strict_budget)
    assert old_raises.failures[0].startswith("exception: OLD raised ValueError")


def test_another_exception_type_is_a_divergence() -> None:
    finding = _found(wild.strict_budget_as_type_error, wild.strict_budget)
    assert finding.failures == (
        "exception: NEW raised TypeError: budget must be positive (at tests/packers/wild.py:76); "
        "OLD raised ValueError: budget must be positive (at tests/packers/wild.py:69)",
    )


# One seed: seeds 2 and 3 reached no branch of packcheck that seed 1 and the rest of the
# suite do not, and the shrinking to 3,001 blocks is the same work at each.
@pytest.mark.parametrize("seed", [1])
def test_a_change_past_3000_blocks_is_found_on_the_shortest_failing_list(seed: int) -> None:
    # The two differ on lists of more than 3,000 blocks only; the ladder's first such
    # lengths are 4,095 to 4,097 blocks, and shrinking goes on to 3,001.
    summary = diff.run(wild.keep_newest_past_3000, wild.keep_newest, seed=seed, max_examples=50)
    finding = summary.finding
    assert finding is not None
    assert finding.origin.startswith(f"long list (seed {seed}): ")
    assert finding.origin.endswith(", shrunk to 3001 blocks")
    assert finding.blocks() == 3001
    assert summary.differing["long lists"] == 1
    assert summary.differing["generated"] == summary.differing["wide ranges"] == 0
    assert summary.phase == "long lists"
    assert list(summary.phase_seconds) == ["fixtures", "generated", "wide ranges", "long lists"]
    assert 0 < summary.shrink_tries <= 2000
    report = finding.report()
    assert "  case:     3,001 blocks, budget " in report
    assert "fixture:  too long to show; save_failures=DIR saves it whole" in report
    assert finding.parts is not None


@pytest.mark.parametrize(
    ("new", "old"),
    [
        (wild.keep_newest_lt, wild.keep_newest),
        (wild.dedup_by_id_order, wild.dedup_by_id),
        (broken.less_than, broken.correct),
    ],
)
def test_a_one_line_change_met_on_a_long_list_shrinks_to_a_few_blocks(new: Any, old: Any) -> None:
    # What Hypothesis shrinks in the generated phase, packcheck's own shrinker must
    # shrink as well when a long list (or --count) meets the change first.
    oracle = DiffOracle(CallablePacker(new), CallablePacker(old))
    shrunk = []
    for probe in long_probes(1, MAX_SAFE_UNITS):
        if not 256 < probe.length <= 20_000:  # past 256 blocks, IDs become indexes
            continue
        state = _Gate(oracle, Settings(shrink_seconds=60.0))
        finding = state.judge(probe.build(), "long list")
        if finding is not None:
            shrunk.append(state.shrunk(probe, finding, SHRINK_TRIES).blocks())
        if len(shrunk) == 3:
            break
    assert len(shrunk) == 3
    assert all(0 < blocks <= 8 for blocks in shrunk), shrunk


def test_a_long_answer_is_summarised() -> None:
    blocks = [{"id": "A", "size": 1}] * 60
    case = {"budget": 60, "blocks": blocks, "required": []}
    finding = _found(
        wild.keep_newest_lt, wild.keep_newest, fixtures=[Fixture("sixty", case, None, "f")]
    )
    assert finding.name == "sixty"
    assert finding.fixture()["id"] == "sixty"
    report = finding.report()
    assert '  old:      {"kept":["A","A","A",... 60 entries ...,"A","A"],"remaining":0,' in report
    assert "60 blocks, budget 60, required []; blocks [0]" in report


def test_count_runs_every_phase_and_shrinks_the_first_divergence_only() -> None:
    summary = diff.run(wild.keep_newest_lt, wild.keep_newest, seed=1, count=True, **QUICK)
    assert summary.counted
    assert summary.cases["generated"] == 200
    assert 0 < summary.differing["generated"] < 200
    assert summary.differing["fixtures"] == 0
    assert summary.finding is not None
    assert summary.finding.blocks() <= 8
    shares = summary.shares()
    assert shares[0] == "fixtures: 0 of 3 cases differ (0%)"
    assert shares[1].startswith("generated: ")
    assert shares[1].endswith("%)")
    assert shares[3] == "long lists: 0 of 0 cases differ (no cases)"


# One seed: seeds 2 and 3 reached no branch of packcheck that seed 1 and the rest of the
# suite do not.
@pytest.mark.parametrize("seed", [1])
def test_count_shrinks_a_one_line_change_as_far_as_hypothesis_does(seed: int) -> None:
    # With --count Hypothesis does not shrink: packcheck's own shrinker does it all.
    summary = diff.run(wild.keep_newest_lt, wild.keep_newest, seed=seed, count=True, **QUICK)
    assert summary.finding is not None
    assert summary.finding.case == {"budget": 1, "blocks": [{"id": "A", "size": 1}], "required": []}
    summary = diff.run(wild.dedup_by_id_order, wild.dedup_by_id, seed=seed, count=True, **QUICK)
    assert summary.finding is not None
    assert summary.finding.blocks() == 2


def test_count_keeps_the_first_divergence_of_the_run() -> None:
    def other(case: dict[str, Any]) -> object:
        return {"kept": []}

    summary = diff.run(other, wild.keep_newest, seed=1, count=True, **QUICK)
    assert summary.differing["fixtures"] == 3
    assert summary.differing["wide ranges"] > 0
    assert summary.differing["generated"] > 0
    assert summary.finding is not None
    assert summary.finding.origin.startswith("fixture seed.json: case 1")


def test_a_fault_found_while_counting_is_shown_unshrunk() -> None:
    summary = diff.run(
        broken.mutates_input, broken.correct, seed=1, count=True, fixtures=[], **QUICK
    )
    finding = summary.finding
    assert finding is not None
    assert finding.failures[0].startswith("NEW's fault: modified its input")
    assert "  new:      (no answer: modified its input" in finding.report()


def test_the_rule_is_context_even_for_a_malformed_fixture() -> None:
    case = {"budget": 1, "blocks": "x", "required": []}
    finding = _found(lambda c: 1, lambda c: 2, fixtures=[Fixture(None, case, None, "f")])
    assert finding.rule == {
        "error": "input",
        "detail": "blocks: expected an array of blocks, got string",
    }


def test_check_raises_with_the_report_and_returns_the_summary_on_agreement() -> None:
    with pytest.raises(Divergence) as caught:
        diff.check(wild.keep_newest_lt, wild.keep_newest, seed=1, **QUICK)
    assert str(caught.value).startswith("DIFFERS generated case (seed 1, shrunk)")
    assert caught.value.finding.case["budget"] == 1
    summary = diff.check(
        wild.keep_newest, wild.keep_newest, seed=1, max_examples=20, long_lists=False
    )
    assert isinstance(summary, DiffSummary)
    assert summary.agree
    assert summary.cases["generated"] == 20


def test_saved_fixtures_are_replayed_on_both_sides() -> None:
    # Every fixture is given to both packers, whatever it expects.
    fixtures = [
        *seed_fixtures(),
        Fixture("zero", {"budget": 0, "blocks": [], "required": []}, 5, "f"),
    ]
    summary = diff.run(wild.strict_budget, wild.keep_newest, seed=1, fixtures=fixtures, **QUICK)
    assert summary.finding is not None
    assert summary.finding.origin == "f"
    assert summary.cases["fixtures"] == 4
