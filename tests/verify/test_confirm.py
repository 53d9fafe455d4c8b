"""``packcheck.verify._confirm``: a cause is named only when a sample confirms it."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from cases import DISTRACTOR, blocks
from named_causes import named_causes
from packers import broken, capture, faults

from packcheck import Rule, pack
from packcheck._packers import CallablePacker, PackerFault
from packcheck._rule.model import read_case
from packcheck.verify import run
from packcheck.verify._confirm import (
    AGREEMENT,
    LEAST,
    SAMPLE,
    _closest,
    confirm,
    int64_wrapped,
    variants,
)
from packcheck.verify._findings import Finding, diagnosed, examine
from packcheck.verify._neighbours import Probe, rule_answer
from packcheck.verify._variants import partition_of, rule_output

LESS = 'fit = "lt" (declared "le")'
ALL = variants(Rule())


def _case(budget: int, sizes: list[int], ids: str = "ABCDEFGH") -> dict[str, Any]:
    blocks = [{"id": i, "size": s} for i, s in zip(ids, sizes, strict=False)]
    return {"budget": budget, "blocks": blocks, "required": []}


def _diagnosed(packer: Any, case: dict[str, Any], *, partition: bool = False) -> Finding:
    adapter = CallablePacker(packer)
    found = examine(adapter, case, pack(case), "probe", partition=partition)
    assert found is not None, "the case must show the fault"
    return diagnosed(found, adapter, max_units=2**53 - 1, partition=partition)


# Each fault, with a small case that shows it (the seed fixture where it does).
SHOWN = {
    "newest_suffix": DISTRACTOR,
    "middle_eviction": DISTRACTOR,
    "overshoot": _case(5, [4, 3, 2]),
    "separator_cost": _case(10, [4, 3]),
    "largest_first": _case(5, [2, 4]),
    "smallest_first": _case(5, [4, 2]),
    "ignores_last": _case(5, [2, 2]),
    "budget_share": _case(10, [9]),
    "strict_and_stops": _case(5, [5, 1]),
}


@pytest.mark.parametrize("name", list(faults.FAULTS))
def test_each_real_fault_is_named_alone_with_its_strength(name: str) -> None:
    finding = _diagnosed(getattr(faults, name), SHOWN[name])
    assert len(finding.causes) == 1, finding.report()
    assert faults.FAULTS[name] in finding.causes[0], finding.report()
    # No other variant's name is given, and the strength is said.
    others = {v.name for v in ALL} - {finding.causes[0]}
    assert not any(other in finding.causes for other in others)
    assert finding.support is not None
    assert " sampled cases where it differs from the rule" in finding.support
    assert f"consistent with: {finding.causes[0]} (behaves like it on " in finding.report()


@pytest.mark.parametrize("name", list(faults.CAPTURE_FAULTS))
def test_each_capture_fault_is_named(name: str) -> None:
    case = {"budget": 3, "blocks": blocks(2, 2, 5, 1, ids="AABC"), "required": []}
    finding = _diagnosed(getattr(faults, name), case, partition=True)
    assert len(finding.causes) == 1, finding.report()
    assert faults.CAPTURE_FAULTS[name] in finding.causes[0], finding.report()


def test_a_capture_fault_from_the_partition_tests_is_named_too() -> None:
    case = _case(3, [4, 2, 2])
    finding = _diagnosed(capture.dropped_by_remaining, case, partition=True)
    assert len(finding.causes) == 1, finding.report()
    assert faults.CAPTURE_FAULTS["all_dropped"] in finding.causes[0], finding.report()


def test_a_variant_the_sample_contradicts_is_not_named() -> None:
    # On the seed fixture, evicting the middle block gives the answer of "<" for "<=".
    answer = faults.middle_eviction(DISTRACTOR)
    assert LESS in named_causes(DISTRACTOR, answer, pack(DISTRACTOR))
    finding = _diagnosed(faults.middle_eviction, DISTRACTOR)
    assert LESS not in finding.causes
    # A packer like no variant beyond the case: "<" on this case, something else after.
    tiny = _case(1, [1])

    def odd(case: dict[str, Any]) -> Any:
        return broken.less_than(case) if case == tiny else faults.ignores_last(case)

    assert LESS in named_causes(tiny, odd(tiny), pack(tiny))
    finding = _diagnosed(odd, tiny)
    assert LESS not in finding.causes


def test_a_variant_must_also_give_the_answer_on_the_case_as_first_found() -> None:
    case = _case(3, [3])
    answer = broken.less_than(case)
    first = (DISTRACTOR, {"kept": ["C"], "remaining": 5, "missing": ["B"]})
    packer = CallablePacker(broken.less_than)
    kw: dict[str, Any] = {"seed": 1, "max_units": 2**53 - 1}
    assert confirm(case, answer, packer.answer, **kw).causes == (LESS,)
    unlike = confirm(case, answer, packer.answer, first=first, **kw)
    assert unlike.causes == ()
    # Why, since another seed's first case may agree: the report says it.
    assert unlike.support is not None
    # Each variant's name once: the one-key neighbour and it on top of the others.
    count = len({v.name for v in ALL if v.output(read_case(case)) == answer})
    assert count > 10
    assert unlike.support.startswith(f"not named: {count} variants ({LESS}...) give this answer, ")
    assert unlike.support.endswith(", not the packer's to the case as first found")
    finding = Finding(
        case, pack(case), answer, ("output: differs",), "probe", support=unlike.support
    )
    assert f"  cause:    no known cause (not named: {count} variants " in finding.report()
    # The first case agrees: confirmed as before.
    first = (DISTRACTOR, broken.less_than(DISTRACTOR))
    agrees = confirm(case, answer, packer.answer, first=first, **kw)
    assert agrees.causes == (LESS,)
    assert agrees.support is not None
    assert "not named" not in agrees.support


def test_a_packer_that_agrees_too_rarely_is_given_no_cause() -> None:
    def sometimes(case: dict[str, Any]) -> Any:
        # "<" for "<=" on odd budgets only: agrees on about half the sample.
        budget = case.get("budget")
        odd = isinstance(budget, int) and budget % 2 == 1
        return broken.less_than(case) if odd else broken.correct(case)

    finding = _diagnosed(sometimes, _case(3, [3]))
    assert finding.causes == ()
    assert "cause:    no known cause" in finding.report()
    assert 0 < AGREEMENT < 1
    assert LEAST <= SAMPLE


def test_a_fault_while_sampling_ends_the_sample_with_what_it_has() -> None:
    calls = {"n": 0}

    def tires(case: dict[str, Any]) -> Any:
        calls["n"] += 1
        if calls["n"] > 3:
            raise RuntimeError("out of quota")
        return broken.less_than(case)

    # The case itself is asked twice (found, then again alone), then the probe cases
    # until the first fault, which ends the probe; the sample asks once more.
    finding = _diagnosed(tires, _case(3, [3]))
    assert finding.causes == ()  # too few sampled answers to confirm anything
    assert calls["n"] == 5


def test_the_int64_wrap_is_named_from_the_remaining_alone() -> None:
    case = _case(2**63 + 5, [1])
    wrapped = broken.int64_wrap(case)
    assert wrapped["remaining"] == 2**63 + 5 - 2**64  # nothing fits a negative budget
    assert int64_wrapped(case, wrapped) == (
        f"its remaining {2**63 + 5 - 2**64:,} equals the exact {2**63 + 5:,} modulo 2**64"
    )
    finding = _diagnosed(broken.int64_wrap, case)
    assert finding.causes == ("int64 wrap-around (sums past 2**63)",)
    # The remaining of its own kept blocks counts as well as the rule's.
    answer = {"kept": ["B"], "remaining": 2**51 - 2 + 2**64, "missing": []}
    assert int64_wrapped(_case(2**51, [2**51, 2]), answer) is not None
    # Not a wrap: exact, off by other than 2**64, or no integer to compare.
    assert int64_wrapped(case, pack(case)) is None
    assert int64_wrapped(case, {**wrapped, "remaining": 7}) is None
    assert int64_wrapped(case, {**wrapped, "remaining": 1.0}) is None
    assert int64_wrapped(case, [wrapped]) is None
    assert int64_wrapped({"budget": True, "blocks": [], "required": []}, wrapped) is None
    # Kept blocks that cannot be found: the rule's remaining (it keeps A) still counts.
    assert int64_wrapped(case, {**wrapped, "kept": ["Q"]}) is None
    for kept in (["Q"], "A"):
        answer = {"kept": kept, "remaining": 2**63 + 4 - 2**64, "missing": []}
        assert int64_wrapped(case, answer) is not None


def test_a_case_that_cannot_be_read_or_has_no_candidate_confirms_nothing() -> None:
    packer = CallablePacker(broken.correct)
    kw: dict[str, Any] = {"seed": 1, "max_units": 2**53 - 1}
    assert confirm({"blocks": 3}, {}, packer.answer, **kw).causes == ()
    case = _case(3, [3])
    assert confirm(case, {"kept": ["Q"], "remaining": 0, "missing": []}, packer.answer, **kw) == (
        confirm(case, None, packer.answer, **kw)
    )


def test_numbers_and_shares_are_probed_not_listed_and_the_rule_partition_is_the_rules() -> None:
    def extra(cost: int) -> Any:
        def packer(case: dict[str, Any]) -> Any:
            read = read_case(case)
            return rule_answer(Rule(per_item=cost))(read)

        return packer

    for cost in (1, 17, 250):
        probe = Probe(Rule(), CallablePacker(extra(cost)).answer, 2**53 - 1)
        assert cost in probe.numbers["per_item"]
        assert any(v.name == f"per_item = {cost} (declared 0)" for v in variants(Rule(), probe))
    probe = Probe(Rule(), CallablePacker(faults.budget_share).answer, 2**53 - 1)
    assert probe.shares == [Fraction(4, 5)]
    assert "uses only a share of the budget (80%)" in {v.name for v in variants(Rule(), probe)}
    # Without a probe no numeric key is varied, and no share.
    assert not any("per_item" in v.name or "share" in v.name for v in ALL)
    read = read_case(_case(3, [4, 2, 2]))
    assert partition_of(read) == {"packed": ["B"], "available": ["C"], "dropped": ["A"]}
    assert rule_output(read)["partition"] == partition_of(read)


def test_a_packer_fault_gets_no_cause_and_a_size_error_keeps_its_lenient_reading() -> None:
    finding = _diagnosed(broken.true_is_one, {"budget": True, "blocks": [], "required": []})
    assert finding.causes == ("true read as the unit 1 (a bool is never a unit)",)

    def crashes(case: dict[str, Any]) -> Any:
        raise RuntimeError("boom")

    finding = _diagnosed(crashes, _case(3, [3]))
    assert isinstance(finding.answer, PackerFault)
    assert finding.causes == ()


def test_a_command_packer_in_javascript_is_named_by_its_fault() -> None:
    from pathlib import Path

    from packcheck._packers import CommandPacker

    script = Path(faults.__file__).with_name("faults.js")
    packer = CommandPacker(f"node {script} middle", 10)
    try:
        found = examine(packer, DISTRACTOR, pack(DISTRACTOR), "fixture")
        assert found is not None
        finding = diagnosed(found, packer, max_units=2**53 - 1)
    finally:
        packer.close()
    assert finding.causes == (faults.FAULTS["middle_eviction"] + ' (declared "skip")',)


def test_a_lenient_reading_is_confirmed_on_spoiled_cases_too() -> None:
    # Budget 0 and a size of 0: "a size of 0 accepted" gives the answer on this case,
    # but the packer rejects a size of 0 under any other budget.
    case = {"budget": 0, "blocks": [{"id": "A", "size": 0}], "required": []}
    answer = broken.skip_validation_when_exhausted(case)
    assert "a size of 0 accepted (sizes must be >= 1)" in named_causes(case, answer, pack(case))
    finding = _diagnosed(broken.skip_validation_when_exhausted, case)
    assert finding.causes == ("sizes not checked when the budget is 0",), finding.report()
    finding = _diagnosed(broken.digit_string_units, {"budget": "4", "blocks": [], "required": []})
    assert finding.causes == ("numeric strings read as numbers ('4' is not a unit)",)
    # An answer no reading gives: nothing to confirm.
    wrong = {"kept": ["Q"], "remaining": 0, "missing": []}
    packer = CallablePacker(broken.correct)
    assert confirm(case, wrong, packer.answer, seed=1, max_units=9).causes == ()
    # Malformed: not a case at all.
    bad = {"budget": 1, "blocks": [{"id": 3, "size": 1}], "required": []}
    assert confirm(bad, wrong, packer.answer, seed=1, max_units=9).causes == ()


@pytest.mark.parametrize("name", ["casefold_ids", "stripped_ids", "nfc_ids"])
def test_each_loose_comparison_is_named(name: str) -> None:
    case = {
        "budget": 1,
        "blocks": [{"id": "e\u0301 a", "size": 1}],
        "required": ["E\u0301 A", "e\u0301 a ", "\u00e9 a"],
    }
    finding = _diagnosed(getattr(broken, name), case)
    assert finding.causes == ("IDs compared loosely (case, spaces or Unicode normalisation)",)


@pytest.mark.parametrize(
    ("name", "cause"),
    [
        ("swapped", "available and dropped swapped"),
        ("only_packed", "only packed captured (skipped blocks in no bucket)"),
        ("deduped", "each bucket deduplicated (a repeated ID listed once)"),
    ],
)
def test_the_capture_bugs_of_the_partition_tests_are_named_alone(name: str, cause: str) -> None:
    # Swapped buckets agree with "every skipped block captured as dropped" wherever
    # nothing is dropped: control cases (where that variant is the rule) tell them apart.
    case = {"budget": 3, "blocks": blocks(2, 2, 5, 5, ids="AABB"), "required": []}
    finding = _diagnosed(getattr(capture, name), case, partition=True)
    assert finding.causes == (cause,), finding.report()


WHOLE_FLOATS = "refuses whole floats (1.0) as units"
SIZE_ERROR = {"error": "size"}
# The new user's shrunk case: a whole float, refused by `isinstance(value, int)`.
FLOAT_CASE = {"budget": 0, "blocks": [{"id": "A", "size": 1.0}], "required": []}
README = Path(__file__).parents[2] / "README.md"


def _readme_packer(*, ints_only: bool) -> Any:
    """README's "Write a packer" packer; with ``ints_only``, its unit test made
    ``isinstance(value, int)`` (so 1.0 is refused)."""
    section = README.read_text(encoding="utf-8").split("## Write a packer", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    if ints_only:
        lenient = "not isinstance(value, (int, float, Decimal))"
        assert lenient in code
        code = code.replace(lenient, "not isinstance(value, int)")
    namespace: dict[str, Any] = {}
    exec(compile(code, str(README), "exec"), namespace)
    return namespace["pack_case"]


def test_the_readme_packer_refusing_whole_floats_is_named_precisely() -> None:
    summary = run(_readme_packer(ints_only=True), seed=1, max_examples=200, long_lists=False)
    finding = summary.finding
    assert isinstance(finding, Finding)
    assert finding.answer == SIZE_ERROR
    mirror = [f for f in finding.failures if f.startswith("invariant size error: ")]
    assert len(mirror) == 1
    assert mirror[0].endswith(' is the unit 1, so the output must not be {"error":"size"}')
    assert finding.causes == (WHOLE_FLOATS,)
    assert finding.support is not None
    assert finding.support.startswith("behaves like it on ")
    assert f"consistent with: {WHOLE_FLOATS} (behaves like it on " in finding.report()
    # The README's packer as it is accepts the same case.
    assert _readme_packer(ints_only=False)(finding.case) == pack(finding.case)


def _refuses_budget_zero(case: dict[str, Any]) -> Any:
    """Another fault that answers the size error on the case: not whole floats."""
    return SIZE_ERROR if case["budget"] == 0 else pack(case)


def _refuses_whole_floats(case: dict[str, Any]) -> Any:
    units = [case["budget"], *(block["size"] for block in case["blocks"])]
    return SIZE_ERROR if any(type(unit) is float for unit in units) else pack(case)


def test_refusing_whole_floats_is_a_cause_the_sample_must_confirm() -> None:
    named = _diagnosed(_refuses_whole_floats, FLOAT_CASE)
    assert named.causes == (WHOLE_FLOATS,)
    assert named.failures[-1] == (
        "invariant size error: blocks[0].size: 1.0 is the unit 1, so the output must not be "
        '{"error":"size"}'
    )
    # The same answer on the same case, from a packer the sample contradicts.
    assert _diagnosed(_refuses_budget_zero, FLOAT_CASE).causes == ()
    # Every unit an int: nothing a stricter reading refuses, and the check says so.
    valid = _case(0, [1])
    finding = _diagnosed(_refuses_budget_zero, valid)
    assert finding.causes == ()
    assert finding.failures[-1] == (
        "invariant size error: every unit is valid (the budget an integer >= 0, every size "
        'an integer >= 1), so the output must not be {"error":"size"}'
    )
    budget = {**valid, "budget": 0.0}
    assert (
        _diagnosed(_refuses_budget_zero, budget)
        .failures[-1]
        .startswith("invariant size error: budget: 0.0 is the unit 0, so")
    )


def test_refusing_whole_floats_must_hold_on_the_case_as_first_found() -> None:
    answer_of = CallablePacker(_refuses_whole_floats).answer
    floated = {"budget": 5.0, "blocks": [{"id": "B", "size": 2}], "required": []}

    def confirmed(first: tuple[object, object] | None) -> tuple[str, ...]:
        found = confirm(FLOAT_CASE, SIZE_ERROR, answer_of, first=first, seed=1, max_units=2**53 - 1)
        return found.causes

    assert confirmed(None) == (WHOLE_FLOATS,)
    assert confirmed((floated, SIZE_ERROR)) == (WHOLE_FLOATS,)
    assert confirmed((_case(5, [2]), SIZE_ERROR)) == ()  # no float to refuse there
    assert confirmed((floated, pack(floated))) == ()  # answered otherwise there


@pytest.mark.parametrize("name", ["budget_share", "middle_eviction", "all_available"])
def test_the_same_counterexample_is_given_the_same_cause_on_every_seed(name: str) -> None:
    # The sample is drawn from the counterexample, not the run's seed: a fixture that
    # fails is explained alike at every seed (strength included).
    causes = set()
    for seed in (1, 2, 3):
        summary = run(getattr(faults, name), seed=seed, max_examples=5, long_lists=False)
        assert summary.phase == "fixtures"
        assert isinstance(summary.finding, Finding)
        causes.add((summary.finding.causes, summary.finding.support))
    ((named, support),) = causes
    assert named
    assert support is not None


def test_the_closest_variant_is_named_only_past_half_its_cases() -> None:
    less = next(v for v in ALL if v.name == LESS)
    assert _closest([(0.65, 0, less, 0, 40)]) is None
    assert _closest([]) is None
    shown = _closest([(0.65, 0, less, 0, 40), (0.83, 0, less, 35, 40)])
    assert shown == (
        f"closest: {LESS}, like it on 35 of 40 sampled cases where it differs from the rule "
        "and on 83% of those where either departs (90% and 80% needed)"
    )
