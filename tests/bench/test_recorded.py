"""Bench on the user's own terms: recorded cases, a declared rule, and the workloads'
budgets fitted to it, so that no cell times a refusal it did not ask for."""

from __future__ import annotations

from typing import Any

import pytest

from packcheck import Rule, pack
from packcheck import _bench as bench
from packcheck._bench._answers import error_note
from packcheck._bench._workloads import WORKLOADS, Recorded, fitted_budget
from packcheck._engines import numpy_entry as scan

#: A newest-first chat trimmer's rule: the first message pinned, refused when it
#: alone does not fit.
CHAT = Rule(order="reversed", on_misfit="stop", per_item=4, pin="first", pin_overflow="refuse")
RULES = [
    CHAT,
    Rule(pin="required", pin_overflow="refuse", separator=3, reserve=5, fit="lt"),
    Rule(pin="last", pin_overflow="refuse", per_item="1/2", remaining="sizes"),
    Rule(refuse_budget_below=10**7),
    Rule(reserve=10**6),
]
SIZES = (10, 100, 1000)


def _refused(rule: Rule | None) -> list[str]:
    return [
        f"{name} n={n}"
        for name in bench.CASE_WORKLOADS
        for n in SIZES
        if "error" in pack(WORKLOADS[name].case(n, 0, rule), rule=rule)
    ]


def test_unfitted_workloads_time_the_chat_rules_refusal() -> None:
    # What the fitting is for: as packcheck's own rule makes them, six cells refuse.
    refused = [
        f"{name} n={n}"
        for name in bench.CASE_WORKLOADS
        for n in SIZES
        if pack(WORKLOADS[name].case(n, 0), rule=CHAT) == {"error": "refused"}
    ]
    assert len(refused) >= 3


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: str(rule.changed()))
def test_no_workload_is_refused_or_left_without_room_under_a_fitted_rule(rule: Rule) -> None:
    assert _refused(rule) == []
    for name in bench.CASE_WORKLOADS:
        case = WORKLOADS[name].case(100, 0, rule)
        plain = WORKLOADS[name].case(100, 0)
        assert case["blocks"] == plain["blocks"]
        assert case["budget"] >= plain["budget"]


def test_packcheck_s_own_rule_leaves_every_budget_as_it_was() -> None:
    for load in WORKLOADS.values():
        sizes, budget = load.generate(100, 3)
        assert load.case(100, 3, None)["budget"] == budget
        assert fitted_budget(budget, sizes.tolist(), None) == budget


def test_the_fitted_budget_is_the_scans_room_plus_what_comes_before_it() -> None:
    sizes = [10, 20, 30, 40, 50, 60, 70, 80, 90]
    assert fitted_budget(100, sizes, CHAT) == 100 + 10 + 4
    lt = Rule(pin="required", separator=3, reserve=5, fit="lt")  # b0 and b7 pinned
    assert fitted_budget(100, sizes, lt) == 100 + 5 + (10 + 80) + 2 * 3 + 1
    halves = Rule(pin="last", per_item="1/2", remaining="sizes")
    assert fitted_budget(100, sizes, halves) == 100 + 91  # 90 + 1/2, rounded up
    assert fitted_budget(100, sizes, Rule(refuse_budget_below=500)) == 500
    assert fitted_budget(100, [], CHAT) == 100  # nothing to pin


def test_recorded_cases_are_one_workload_and_a_kernel_packs_the_valid_ones() -> None:
    valid = {"budget": 5, "blocks": [{"id": "a", "size": 3}], "required": [], "step": 1}
    invalid = {"budget": 5, "blocks": [{"id": "a", "size": 0}], "required": []}
    malformed = {"budget": 5, "blocks": [{"size": 3}], "required": []}
    huge = {"budget": 2**63, "blocks": [{"id": "a", "size": 1}], "required": []}
    recorded = Recorded((valid, invalid, malformed, huge))
    assert recorded.cases(7, 7, CHAT) == [valid, invalid, malformed, huge]
    ((sizes, budget),) = recorded.arrays()
    assert (sizes.tolist(), budget) == ([3], 5)
    assert (recorded.name, recorded.family) == ("recorded", "recorded")


def test_a_cell_of_mostly_errors_or_refusals_is_said_to_be_one() -> None:
    refused, fine = {"error": "refused"}, {"kept": [], "remaining": 0, "missing": []}
    note = error_note([refused, {"error": "size"}, fine], "on the 3 recorded case(s)")
    assert note == (
        "on the 3 recorded case(s): 2 of 3 answer(s) are errors or refusals: this cell "
        "times mostly their path, not packing"
    )
    assert error_note([refused, fine], "there") is None  # half is not most
    assert error_note(refused, "on x at n=10") is not None  # one case
    assert error_note(([True], 0), "a kernel's") is None


def trimmer(case: dict[str, Any]) -> dict[str, Any]:
    """The chat trimmer, refusing with ValueError (as a Python packer may)."""
    answer = pack(case, rule=CHAT)
    if answer == {"error": "refused"}:
        raise ValueError("the system message alone does not fit")
    return answer


def test_a_packer_is_timed_by_its_rule_on_recorded_cases_and_fitted_workloads() -> None:
    step = {"budget": 30, "blocks": [{"id": "s", "size": 5}, {"id": "u", "size": 9}]}
    refusing = {**step, "budget": 3}
    recorded = Recorded(({**step, "required": []}, {**refusing, "required": ["s"]}) * 2)
    subject = bench.CaseSubject("trimmer", trimmer)
    report = bench.run(
        packers={"trimmer": subject}, sizes=[10], workloads=["nothing-fits", "staircase"],
        repeat=1, min_time=0.0, recorded=recorded, rule=CHAT,
    )  # fmt: skip
    assert report.workloads() == ["recorded", "nothing-fits", "staircase"]
    assert report.notes == []  # two of four refused: not most
    mostly = Recorded(({**refusing, "required": []},) * 3 + ({**step, "required": []},))
    ab = bench.ab(
        subject, bench.CaseSubject("again", trimmer), workloads=[], recorded=mostly,
        rule=CHAT, min_time=0.0, min_pairs=1, max_pairs=1,
    )  # fmt: skip
    assert ab.notes == [
        "on the 4 recorded case(s): 3 of 4 answer(s) are errors or refusals: this cell "
        "times mostly their path, not packing"
    ]
    assert ab.to_json("a", "b")["notes"] == ab.notes
    with pytest.raises(bench.BenchError, match="trimmer raised ValueError"):
        bench.run(packers={"trimmer": bench.CaseSubject("trimmer", trimmer)}, sizes=[10],
                  workloads=["nothing-fits"], repeat=1, min_time=0.0)  # fmt: skip


def test_a_kernel_packs_the_valid_recorded_cases_each_in_turn() -> None:
    def step(budget: int, *sizes: int) -> dict[str, Any]:
        blocks = [{"id": f"m{i}", "size": size} for i, size in enumerate(sizes)]
        return {"budget": budget, "blocks": blocks, "required": []}

    recorded = Recorded((step(5, 3, 3, 1), step(4, 0), step(9, 2, 8, 4)))
    report = bench.run(
        packers={"numpy": scan.pack_sizes}, sizes=[10], workloads=[], repeat=1,
        min_time=0.0, recorded=recorded,
    )  # fmt: skip
    assert [(t.engine, t.workload, t.n) for t in report.timings] == [
        ("reference", "recorded", 3),
        ("numpy", "recorded", 3),
    ]
    wrong = bench.KernelSubject("wrong", lambda budget, sizes: ([False] * len(sizes), budget))
    with pytest.raises(bench.BenchError, match="wrong gave a wrong answer on the 3 recorded"):
        bench.run(packers={"wrong": wrong}, workloads=[], repeat=1, recorded=recorded)
    invalid = Recorded((step(4, 0),))
    with pytest.raises(bench.BenchError, match="no recorded case a kernel can pack"):
        bench.run(packers={"numpy": scan.pack_sizes}, workloads=[], recorded=invalid)


def test_the_matrix_notes_a_cell_of_mostly_errors() -> None:
    sized = {"budget": 4, "blocks": [{"id": "a", "size": 0}], "required": []}
    report = bench.run(
        packers={"numpy": bench.CaseSubject("numpy", pack)}, workloads=[], repeat=1,
        min_time=0.0, recorded=Recorded((sized, sized)),
    )  # fmt: skip
    assert report.notes == [
        "on the 2 recorded case(s): 2 of 2 answer(s) are errors or refusals: this cell "
        "times mostly their path, not packing"
    ]
    assert report.to_json()["notes"] == report.notes


def test_a_kernel_against_a_case_level_packer_packs_the_same_recorded_cases() -> None:
    fine = {"budget": 5, "blocks": [{"id": "a", "size": 3}, {"id": "b", "size": 4}]}
    sized = {"budget": 5, "blocks": [{"id": "a", "size": 0}]}
    recorded = Recorded(tuple({**case, "required": []} for case in (fine, sized, fine)))
    seen: list[int] = []

    def case_level(case: dict[str, Any]) -> dict[str, Any]:
        seen.append(case["budget"])
        return pack(case)

    report = bench.ab(
        bench.CaseSubject("case", case_level), scan.pack_sizes, workloads=[],
        recorded=recorded, min_time=0.0, min_pairs=1, max_pairs=1,
    )  # fmt: skip
    (comparison,) = report.comparisons
    assert comparison.n == 2  # the size error left out on both sides
    assert recorded.packable().recorded == (recorded.recorded[0], recorded.recorded[2])
    assert len(seen) % 2 == 0
