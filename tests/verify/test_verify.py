"""``packcheck.verify.check``: every deliberately broken packer is caught, and shrunk."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from packers import broken, faults, long

from packcheck import Rule, pack
from packcheck._gate import run as gate_module
from packcheck._gate import show_answer
from packcheck._packers import CallablePacker
from packcheck.verify import (
    Counterexample,
    Finding,
    Fixture,
    Packer,
    Settings,
    Summary,
    check,
    read_fixtures,
    run,
    seed_fixtures,
)
from packcheck.verify._oracle import VERIFY, ReferenceOracle

WIDE = 2**70


def _caught(packer: Any, *, max_units: int = 2**53 - 1, seed: int = 0) -> Finding:
    with pytest.raises(Counterexample) as info:
        check(
            packer, long_lists=False, seed=seed, max_examples=600, max_units=max_units, fixtures=()
        )
    return info.value.finding


#: :func:`_caught`, run once a process for a packer and its settings: the tests of
#: python_sorted_missing's counterexample share its run (seconds, shrinking included), as
#: those of each dedup bug's do.  The tests of a counterexample found and shrunk leave
#: its causes unsought (``no_causes_sought``); those of causes are test_causes.py's.
_caught_once = functools.cache(_caught)


@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize(
    ("name", "max_units", "largest"),
    [
        ("stop_at_first_misfit", 2**53 - 1, 4),
        ("python_sorted_missing", 2**53 - 1, 3),
        ("float_arithmetic", WIDE, 4),
        ("int64_wrap", WIDE, 4),
        ("missing_dedup", 2**53 - 1, 2),
        ("less_than", 2**53 - 1, 2),
        ("skip_validation_when_exhausted", 2**53 - 1, 2),
        ("zero_remaining_as_float", 2**53 - 1, 1),
        ("true_is_one", 2**53 - 1, 3),
    ],
)
def test_each_broken_packer_is_caught_by_generated_cases_and_shrunk(
    name: str, max_units: int, largest: int
) -> None:
    finding = _caught_once(getattr(broken, name), max_units=max_units)
    assert finding.failures
    assert finding.expected == pack(finding.case)
    assert finding.origin.startswith(("generated case (seed 0", "wide-range case (seed 0"))
    case = finding.case
    assert len(case["blocks"]) + len(case["required"]) <= largest, case


@pytest.mark.usefixtures("no_causes_sought")
def test_python_sorted_missing_shrinks_to_the_utf16_boundary() -> None:
    case = _caught_once(broken.python_sorted_missing, max_units=2**53 - 1).case
    assert len(case["blocks"]) <= 1
    assert sorted(case["required"]) != sorted(
        case["required"], key=lambda s: s.encode("utf-16-be", "surrogatepass")
    )


def test_a_correct_packer_in_another_style_passes() -> None:
    summary = check(broken.functional, long_lists=False, seed=1, max_examples=300, max_units=WIDE)
    assert (summary.fixtures, summary.generated, summary.seed) == (3, 300, 1)


def test_the_numpy_engine_passes_beyond_int64() -> None:
    check(
        lambda case: pack(case, engine="numpy"),
        long_lists=False,
        seed=2,
        max_examples=300,
        max_units=WIDE,
    )


def test_the_same_seed_finds_the_same_counterexample() -> None:
    first = _caught(broken.missing_dedup, seed=7)
    again = _caught(broken.missing_dedup, seed=7)
    assert first == again


@pytest.mark.usefixtures("no_causes_sought")
def test_a_seed_is_chosen_and_reported_when_none_is_given() -> None:
    summary = check(broken.correct, long_lists=False, max_examples=20)
    assert 0 <= summary.seed < 2**32
    with pytest.raises(Counterexample, match=r"generated case \(seed \d+"):
        check(broken.less_than, long_lists=False, max_examples=200, fixtures=())


@pytest.mark.usefixtures("no_causes_sought")
def test_seed_fixtures_come_first() -> None:
    with pytest.raises(Counterexample) as info:
        check(broken.stop_at_first_misfit, long_lists=False, seed=0)
    finding = info.value.finding
    assert finding.origin == "fixture seed.json: case 2 (skip-large-continue)"
    assert finding.fixture()["id"] == "skip-large-continue"
    assert [f.name for f in seed_fixtures()] == [
        "distractor-first",
        "skip-large-continue",
        "invalid-size",
    ]


@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize(
    ("name", "check_text", "answer_text"),
    [
        ("tuple_kept", "kept is tuple", "('A', 'B')"),
        ("numpy_remaining", "remaining is numpy.int64", "np.int64(0)"),
        ("float_remaining", "remaining is float", "0.0"),
        ("extra_key", "extra keys ['engine']", '"engine":"mine"'),
        ("mutates_input", "packer fault: modified its input", "no answer"),
        ("raises", "packer fault: raised RuntimeError: packer exploded", "no answer"),
        ("exits", "packer fault: raised SystemExit: 3", "no answer"),
    ],
)
def test_packer_faults_are_failures_with_their_case(
    name: str, check_text: str, answer_text: str
) -> None:
    with pytest.raises(Counterexample) as info:
        check(getattr(broken, name), long_lists=False, seed=0)
    report = str(info.value)
    assert check_text in report
    assert answer_text in report.split("  answer:   ")[1]
    assert '"input":{"budget":7' in report  # the fixture that failed, ready to save


def test_fixtures_from_files_keep_their_numbers_exact(tmp_path: Path) -> None:
    path = tmp_path / "cases.json"
    path.write_text(
        '[{"id": "f", "input": {"budget": 4.0, "blocks": [{"id": "A", "size": 1.5}],'
        ' "required": []}, "expected": {"error": "size"}},'
        ' {"input": {"budget": 1e400, "blocks": [], "required": []},'
        ' "expected": {"kept": [], "remaining": 1e400, "missing": []}}]'
    )
    first, second = read_fixtures(path)
    assert first == Fixture(
        "f",
        {"budget": 4.0, "blocks": [{"id": "A", "size": 1.5}], "required": []},
        {"error": "size"},
        f"fixture {path}: case 1 (f)",
    )
    assert type(first.case["budget"]) is float
    assert str(second.case["budget"]) == "1E+400"  # not a double: kept as a Decimal


@pytest.mark.parametrize(
    "text",
    [
        '[{"input": {}, "expected": {"error": "input"}}, 2]',
        "[1]",
        '[{"input": {"budget": 1, "blocks": [], "required": []}}]',
    ],
)
def test_an_unusable_fixture_is_a_source_error(tmp_path: Path, text: str) -> None:
    from packcheck._rule.sources import SourceError

    path = tmp_path / "bad.json"
    path.write_text(text)
    with pytest.raises(SourceError, match=r"bad\.json"):
        list(read_fixtures(path))


def test_show_answer_uses_json_only_for_plain_json() -> None:
    assert show_answer({"a": [1, "x", None, True]}) == '{"a":[1,"x",null,true]}'
    assert show_answer({"a": (1,)}) == "{'a': (1,)}"
    assert show_answer({1: 2}) == "{1: 2}"
    assert show_answer(2.5) == "2.5"


# Unshrunk, the case is long: seeking its causes was most of this test's time.
@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize("shrink_seconds", [0.0, None])
def test_shrinking_stops_after_its_time_budget(shrink_seconds: float | None) -> None:
    # Every case the packer got wrong, in the order it was asked.
    wrong: list[dict[str, Any]] = []

    def less_than(case: dict[str, Any]) -> Any:
        answer = broken.less_than(case)
        if answer != pack(case):
            wrong.append(case)
        return answer

    budget = {} if shrink_seconds is None else {"shrink_seconds": shrink_seconds}
    with pytest.raises(Counterexample) as info:
        check(less_than, long_lists=False, seed=0, fixtures=(), **budget)
    assert info.value.finding.failures
    if shrink_seconds is None:
        # Shrunk: past the first wrong answer, to a smaller case (so the test can fail).
        assert len(wrong) > 1
        assert info.value.finding.case != wrong[0]
    else:
        # No time to shrink: the first case it got wrong, and no other asked after it
        # (the diagnosis asks that one again).
        assert all(case == info.value.finding.case for case in wrong)


def test_show_answer_writes_a_command_packers_fraction_as_read() -> None:
    assert show_answer({"remaining": Decimal("1.5E+21")}) == '{"remaining":1.5E+21}'


@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize("name", ["casefold_ids", "lower_ids", "stripped_ids", "nfc_ids"])
def test_loose_id_comparison_is_caught_at_seed_1(name: str) -> None:
    with pytest.raises(Counterexample):
        check(getattr(broken, name), long_lists=False, seed=1, fixtures=())


@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_numeric_string_unit_is_caught_on_every_seed(seed: int) -> None:
    with pytest.raises(Counterexample):
        check(broken.digit_string_units, long_lists=False, seed=seed, fixtures=())


@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize("name", ["kept_dedup", "skip_repeated_ids"])
def test_dedup_bugs_shrink_to_a_small_budget(name: str) -> None:
    case = _caught_once(getattr(broken, name), seed=1)
    assert case.case["budget"] < 100, case.case


@pytest.mark.usefixtures("no_causes_sought")
def test_a_shrunk_counterexample_gives_each_block_a_letter_so_kept_says_which_went_where() -> None:
    # Every ID was "A" once: the answer's kept ["A"] did not say the larger block went first.
    finding = _caught(faults.largest_first, seed=1)
    assert finding.case == {
        "budget": 2,
        "blocks": [{"id": "A", "size": 1}, {"id": "B", "size": 2}],
        "required": [],
    }
    assert finding.answer["kept"] == ["B"]


@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize("name", ["kept_dedup", "skip_repeated_ids"])
def test_blocks_keep_sharing_an_id_where_the_failure_needs_it(name: str) -> None:
    ids = [b["id"] for b in _caught_once(getattr(broken, name), seed=1).case["blocks"]]
    assert ids == ["A", "A"]


@pytest.mark.usefixtures("no_causes_sought")
def test_ids_whose_text_the_failure_needs_are_left_as_they_are() -> None:
    # A loose comparison needs "a" beside "A"; a UTF-16 order needs astral characters.
    assert _caught(broken.casefold_ids, seed=1).case["required"] == ["a"]
    required = _caught_once(broken.python_sorted_missing, max_units=2**53 - 1).case["required"]
    assert any(ord(c) > 0xFFFF for want in required for c in want)


def test_a_hypothesis_without_local_constants_is_left_as_it_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hypothesis.internal.conjecture import providers

    from packcheck._gate.hypothesis_compat import same_cases_whatever_is_loaded

    collect = providers._get_local_constants
    with same_cases_whatever_is_loaded():
        assert providers._get_local_constants is not collect
    assert providers._get_local_constants is collect
    monkeypatch.delattr(providers, "_get_local_constants")
    with same_cases_whatever_is_loaded():
        assert not hasattr(providers, "_get_local_constants")


# Long lists: packers that go wrong only past some length fail the default run.


@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize(
    ("name", "threshold"),
    [
        ("skips_chunk_boundary_4096", 4096),
        ("less_than_past_1500", 1500),
        ("int32_past_20000", 20_000),
        ("stops_early_past_99999", 99_999),
    ],
)
def test_a_packer_wrong_only_on_long_lists_fails_and_shrinks_to_the_shortest_length(
    name: str, threshold: int
) -> None:
    summary = run(getattr(long, name), seed=1, max_examples=20, shrink_seconds=2.0)
    finding = summary.finding
    assert finding is not None
    assert finding.origin.startswith("long list (seed 1)")
    assert threshold < len(finding.case["blocks"]) <= 2 * threshold + 4096, finding.origin
    assert finding.expected == pack(finding.case)
    report = finding.report()
    assert "fixture:  too long to show" in report
    assert "blocks, budget" in report  # summarised: length and the blocks around it


@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize("threshold", [1500, 3000])
def test_a_length_threshold_between_ladder_lengths_comes_back_one_block_past_it(
    threshold: int,
) -> None:
    # '<' for '<=' on lists longer than the threshold: the ladder's shortest failing
    # length is some way past it (2,047 or 4,095), the counterexample one block past it.
    packer = long.fast_path(threshold, broken.less_than)
    summary = run(packer, seed=1, max_examples=20, shrink_seconds=3600.0)
    finding = summary.finding
    assert finding is not None
    assert finding.origin.startswith("long list (seed 1)")
    assert len(finding.case["blocks"]) == threshold + 1, finding.origin
    assert finding.expected == pack(finding.case)
    assert finding.departs is not None


def test_a_correct_packer_reading_in_chunks_passes_the_long_lists() -> None:
    summary = check(long.correct_chunked_4096, seed=1, max_examples=20)
    assert summary.long_lists >= 60
    assert summary.conformant


@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_an_unguarded_int64_prefix_sum_is_caught_at_every_seed(seed: int) -> None:
    summary = run(long.int64_sums, seed=seed, max_examples=50, max_units=WIDE, long_lists=False)
    assert summary.finding is not None
    assert len(summary.finding.case["blocks"]) <= 8


@pytest.mark.usefixtures("no_causes_sought")  # "explaining" is said before causes are sought
def test_progress_names_every_phase_in_order() -> None:
    seen: list[str] = []

    def progress(phase: str, done: int, total: int | None) -> None:
        if not seen or seen[-1] != phase:
            seen.append(phase)

    run(long.less_than_past_1500, seed=1, max_examples=5, progress=progress, shrink_seconds=1.0)
    assert seen == [
        "fixtures",
        "generated",
        "transition points",
        "wide ranges",
        "long lists",
        "shrinking",
        "explaining",
    ]


def test_blame_is_by_position_when_every_id_is_the_same() -> None:
    summary = run(broken.skip_repeated_ids, seed=1, long_lists=False, fixtures=())
    finding = summary.finding
    assert finding is not None
    assert len(finding.case["blocks"]) <= 8
    assert finding.departs is not None
    assert finding.departs.startswith("kept[")
    assert finding.causes == ('dedup = "kept" (declared "none")',)


def test_a_summary_counts_every_phase() -> None:
    summary = run(broken.correct, seed=1, max_examples=7, long_lists=False)
    assert summary.cases == summary.fixtures + 7 + summary.wide
    assert summary.conformant
    assert summary.counts() == (
        "3 fixtures, 7 generated cases, 42 transition-point cases, 50 wide-range cases, "
        "0 long lists"
    )


def test_the_api_leaves_no_hypothesis_folder_in_the_working_directory(tmp_path: Path) -> None:
    # A fresh process: Hypothesis writes its Unicode tables when it first needs them.
    code = (
        "import packcheck, packcheck.verify as v; "
        "v.check(packcheck.pack, seed=1, max_examples=20, long_lists=False)"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, check=True)
    assert not (tmp_path / ".hypothesis").exists()
    assert (tmp_path / "cache" / "packcheck" / "hypothesis").is_dir()


def test_a_long_list_comes_back_at_the_shortest_failing_length_blamed_at_its_block() -> None:
    # Chunks of 3,000 blocks, each started from the whole budget: wrong from block 3,000.
    # Shrinking ends by its number of tries, never by the clock on a busy machine.
    summary = run(long.forgets_carry_3000, seed=1, max_examples=20, shrink_seconds=3600.0)
    finding = summary.finding
    assert finding is not None
    assert len(finding.case["blocks"]) == 3001, finding.origin
    assert finding.departs is not None
    assert "blocks[3000]" in finding.departs
    summary_line = next(line for line in finding.report().splitlines() if "  case:" in line)
    assert "[3000] " in summary_line
    assert "[2997] " in summary_line


@pytest.mark.parametrize("crash", [True, False])
def test_a_failure_that_needs_state_says_so_and_shows_the_case_as_first_found(crash: bool) -> None:
    calls = [0]

    def fifth_call_goes_wrong(case: dict[str, Any]) -> Any:
        calls[0] += 1
        if calls[0] == 5:
            if crash:
                raise RuntimeError("out of handles")
            return {"kept": [], "remaining": -1, "missing": []}
        return broken.correct(case)

    summary = run(fifth_call_goes_wrong, seed=1, max_examples=50, long_lists=False)
    finding = summary.finding
    assert finding is not None  # not conformant: exit 1 on the command line
    assert finding.alone is False
    assert finding.before == 4
    assert finding.first is not None
    report = finding.report()
    assert "  alone:    this case passes when asked again on its own" in report
    assert "  first:    found as case 5 of the run, after 4 others passed: {" in report
    assert "consistent with" not in report


@pytest.mark.parametrize("max_units", [1, 255])
def test_a_narrow_unit_range_runs_every_phase(max_units: int) -> None:
    """Below 256 units no run of 4,096 equal blocks sums to 2**20: the run probes take
    the largest size the range allows (they raised ``max()`` of an empty sequence)."""
    summary = run(pack, seed=1, max_examples=20, max_units=max_units)
    assert summary.conformant
    assert summary.long_lists > 150


def test_explaining_a_failure_counts_in_its_phase_and_shows_in_the_progress(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Confirming a cause asks the packer again, for seconds with a slow one: that time
    belongs to the run and to the phase that failed, and the progress says so."""
    real = ReferenceOracle.explained

    def slow(self: ReferenceOracle, finding: Any) -> Any:
        time.sleep(0.3)
        return real(self, finding)

    monkeypatch.setattr(ReferenceOracle, "explained", slow)
    seen: list[tuple[str, int, int | None]] = []
    summary = run(broken.stop_at_first_misfit, seed=1, progress=lambda *a: seen.append(a))
    assert summary.finding is not None
    assert seen[-1] == ("explaining", 0, None)
    failed = list(summary.phase_seconds)[-1]
    assert summary.phase_seconds[failed] >= 0.3
    assert summary.seconds >= sum(summary.phase_seconds.values()) >= 0.3


@pytest.mark.usefixtures("no_causes_sought")
@pytest.mark.parametrize("max_units", [2, 10, 1000])
def test_a_unit_range_narrower_than_the_lists_still_finds_a_chunk_boundary_bug(
    max_units: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most ``max_units`` blocks fit a budget of at most ``max_units``: the sparse
    lists put them at the end, past the boundary (4,097 blocks keep block 4,096).  The
    other long lists keep nothing there (the run is left to the sparse ones, for time)."""
    every = gate_module.long_probes

    def sparse(seed: int, units: int) -> Any:
        return (probe for probe in every(seed, units) if probe.family == "sparse")

    monkeypatch.setattr(gate_module, "long_probes", sparse)
    summary = run(long.skips_chunk_boundary_4096, seed=1, max_examples=20, max_units=max_units)
    finding = summary.finding
    assert finding is not None
    assert finding.origin.startswith("long list (seed 1)")
    assert len(finding.case["blocks"]) == 4097


def test_the_declared_rule_is_one_argument_of_the_oracle() -> None:
    """Another rule (newest first) gives the oracle's answers and its transition points."""
    rule = Rule(order="reversed", on_misfit="stop")
    newest = functools.partial(pack, rule=rule)
    quick = Settings(seed=1, max_examples=50, fixtures=(), long_lists=False)
    packer: Packer = CallablePacker(newest)
    oracle = ReferenceOracle(packer, rule=rule)
    assert gate_module.run_gate(oracle, quick, VERIFY, Summary).conformant
    case = {"budget": 3, "blocks": [{"id": "A", "size": 2}, {"id": "B", "size": 2}], "required": []}
    assert oracle.expected_shape(case) != ReferenceOracle(packer).expected_shape(case)
    seed_rule = gate_module.run_gate(ReferenceOracle(packer), quick, VERIFY, Summary).finding
    assert seed_rule is not None
    assert seed_rule.expected == pack(seed_rule.case) != newest(seed_rule.case)
