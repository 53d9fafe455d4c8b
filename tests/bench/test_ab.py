"""NEW against OLD on a simulated, noisy machine: the decision rule, the sampling and
the checks.  No test here reads a real clock.

The machine's load drifts (a slow random walk between 1x and 3x), every call has its
own lognormal jitter and now and then is preempted (4x): noise much larger than the
differences to detect, as on a shared runner, but seeded, so every run is the same.
"""

from __future__ import annotations

import gc
import itertools
import math
import random
import statistics
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from simulated_time import simulate

import packcheck
from packcheck import _bench as bench
from packcheck import reference
from packcheck._bench import _ab, _timing
from packcheck._bench._workloads import Recorded
from packcheck._cli._options import QUICK_BUDGET, QUICK_CASE_SIZES
from packcheck._cli.bench_show import table_ab
from packcheck._engines import numpy_entry as scan

NS = 1e-9


class NoisyMachine:
    """A simulated clock: it moves only when a kernel works, by a noisy amount."""

    def __init__(self, seed: int) -> None:
        self.now = 0.0
        self.load = 1.0
        self.rng = random.Random(seed)
        self._answers: dict[tuple[int, int], Any] = {}

    def __call__(self) -> float:
        return self.now

    def kernel(self, ns_per_block: float, answer: Any = None) -> bench.Kernel:
        """A kernel costing ``ns_per_block`` (times the noise) and answering as the NumPy
        packer does (computed once per input), or ``answer`` when given."""

        def pack_sizes(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
            self.load = min(3.0, max(1.0, self.load * math.exp(self.rng.gauss(0, 0.05))))
            jitter = math.exp(self.rng.gauss(0, 0.25))
            preempted = 4.0 if self.rng.random() < 0.05 else 1.0
            self.now += ns_per_block * NS * sizes.shape[0] * self.load * jitter * preempted
            if answer is not None:
                return answer
            key = (budget, id(sizes))
            if key not in self._answers:
                self._answers[key] = scan.pack_sizes(budget, sizes)
            return self._answers[key]

        return pack_sizes


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> NoisyMachine:
    """Every clock and the time budget on one simulated machine."""
    return simulate(monkeypatch, NoisyMachine(seed=0))


TWO = ["uniform-50%", "staircase"]
FAST = {"sizes": [1000], "min_time": 0.0, "time_budget": 10.0}


def _verdicts(report: bench.ABReport) -> list[str]:
    return [c.estimate.verdict for c in report.comparisons]


def test_a_one_and_a_half_times_slowdown_in_noisy_samples_is_slower(
    machine: NoisyMachine,
) -> None:
    ratios = []
    for seed in range(10):
        machine.rng.seed(seed)
        old, new = machine.kernel(10.0), machine.kernel(15.0)
        report = bench.ab(new, old, workloads=TWO, threshold=0.2, seed=seed, **FAST)
        assert _verdicts(report) == ["slower", "slower"]
        assert all(c.estimate.low > 1.2 for c in report.comparisons)
        ratios += [c.estimate.ratio for c in report.comparisons]
    # Each run stops as soon as it is sure, so one estimate is rough; together they
    # find the slowdown built in.
    assert statistics.median(ratios) == pytest.approx(1.5, rel=0.1)


def test_no_change_in_noisy_samples_is_never_slower(machine: NoisyMachine) -> None:
    seen: set[str] = set()
    for seed in range(30):
        machine.rng.seed(seed)
        report = bench.ab(
            machine.kernel(10.0), machine.kernel(10.0), workloads=TWO, threshold=0.2,
            seed=seed, **FAST,
        )  # fmt: skip
        seen.update(_verdicts(report))
    assert seen <= {"same", "inconclusive"}
    assert "same" in seen


def test_a_halved_time_is_faster_and_a_small_change_is_the_same(machine: NoisyMachine) -> None:
    faster = bench.ab(machine.kernel(5.0), machine.kernel(10.0), workloads=TWO, **FAST)
    assert _verdicts(faster) == ["faster", "faster"]
    same = bench.ab(
        machine.kernel(10.5), machine.kernel(10.0), workloads=TWO, threshold=0.3, **FAST
    )
    assert _verdicts(same) == ["same", "same"]
    assert faster.counts == {"faster": 2}
    assert same.counts == {"same": 2}


def _undecided(machine: NoisyMachine, seconds: float) -> tuple[bench.Kernel, bench.Kernel]:
    """NEW alternately half and twice OLD's ``seconds`` a call: a ratio of 0.5 or 2 in
    every pair, so every interval spans both and no verdict is ever reached."""
    costs = itertools.cycle([seconds / 2, seconds * 2])

    def timed(cost: Any) -> bench.Kernel:
        def pack_sizes(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
            machine.now += next(cost) if isinstance(cost, itertools.cycle) else cost
            return scan.pack_sizes(budget, sizes)

        return pack_sizes

    return timed(costs), timed(seconds)


def test_sampling_goes_on_while_inconclusive_until_the_pairs_run_out(
    machine: NoisyMachine,
) -> None:
    new, old = _undecided(machine, 1e-3)
    report = bench.ab(new, old, workloads=["pareto"], max_pairs=50, **FAST)
    (comparison,) = report.comparisons
    assert comparison.estimate.verdict == "inconclusive"
    assert comparison.estimate.pairs == 50


def test_sampling_stops_at_the_time_budget_shared_between_cells(machine: NoisyMachine) -> None:
    # A pair costs about 2.25 simulated ms: a 0.5 s budget gives each cell 0.25 s.
    new, old = _undecided(machine, 1e-3)
    report = bench.ab(new, old, workloads=TWO, sizes=[100], min_time=0.0, time_budget=0.5)
    assert _verdicts(report) == ["inconclusive", "inconclusive"]
    assert report.seconds == pytest.approx(0.5, abs=0.01)
    for c in report.comparisons:
        assert 100 < c.estimate.pairs < 120


def test_the_budget_wins_over_the_minimum_pairs_and_leaves_cells_inconclusive(
    machine: NoisyMachine,
) -> None:
    # NEW 1.5x OLD: judged slower with pairs, but no budget leaves no pair to judge.
    report = bench.ab(
        machine.kernel(15.0), machine.kernel(10.0), workloads=TWO, sizes=[1000],
        min_pairs=7, min_time=0.0, time_budget=0.0,
    )  # fmt: skip
    assert [c.estimate.pairs for c in report.comparisons] == [0, 0]
    assert _verdicts(report) == ["inconclusive", "inconclusive"]
    comparison = report.comparisons[0]
    assert math.isnan(comparison.new_seconds)
    assert report.to_json("new", "old")["comparisons"][0]["ratio"] is None


def test_a_cell_cut_short_below_its_minimum_pairs_is_inconclusive_whatever_they_say(
    machine: NoisyMachine,
) -> None:
    # NEW twice OLD in every pair (2 ms and 1 ms a call), but the budget ends the cell
    # after a few pairs: 12 ms of checks, warm-ups and calibration, then 3 ms a pair,
    # each begun only if it ends within the budget (a fourth would end at 24 ms).
    def costing(seconds: float) -> bench.Kernel:
        def pack_sizes(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
            machine.now += seconds
            return scan.pack_sizes(budget, sizes)

        return pack_sizes

    report = bench.ab(costing(2e-3), costing(1e-3), workloads=["pareto"], sizes=[1000],
                      min_time=0.0, time_budget=0.0225)  # fmt: skip
    (comparison,) = report.comparisons
    assert comparison.estimate.pairs == 3
    assert report.seconds <= 0.0225
    assert comparison.estimate.ratio > 1.5
    assert comparison.estimate.verdict == "inconclusive"
    row = table_ab(report, "new", "old").splitlines()[5]
    assert row.split()[-3:] == ["-", str(comparison.estimate.pairs), "inconclusive"]


def test_a_cell_whose_checks_and_warm_up_spend_the_budget_gets_no_pair(
    machine: NoisyMachine,
) -> None:
    def costing(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
        machine.now += 1e-3  # 8 calls before the first pair: 8 ms, past the 5 ms budget
        return scan.pack_sizes(budget, sizes)

    report = bench.ab(costing, costing, workloads=["pareto", "sawtooth"], sizes=[10],
                      min_time=0.0, time_budget=5e-3)  # fmt: skip
    assert [c.estimate.pairs for c in report.comparisons] == [0, 0]  # the second not begun
    assert report.seconds == pytest.approx(8e-3)
    rows = table_ab(report, "new", "old").splitlines()[5:7]
    assert [row.split()[3:] for row in rows] == [["-"] * 4 + ["0", "inconclusive"]] * 2


class Sleeper:
    """A case-level packer that waits ``seconds`` of wall time a call and costs no CPU
    time, on simulated clocks: what it costs is counted, never waited for."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.wall = 0.0
        self.calls = 0

    def __call__(self, case: dict[str, Any]) -> dict[str, Any]:
        self.calls += 1
        self.wall += self.seconds
        return packcheck.pack(case)


def test_a_quick_run_of_a_packer_taking_3_s_a_call_keeps_to_its_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sleeper = Sleeper(3.0)
    monkeypatch.setattr(_timing, "_wall", lambda: sleeper.wall)
    for name in _ab.CLOCKS:
        monkeypatch.setitem(_ab.CLOCKS, name, lambda: 0.0)  # waiting costs no CPU time
    new, old = (bench.CaseSubject(side, sleeper) for side in ("NEW", "OLD"))
    report = bench.ab(
        new, old, workloads=bench.CASE_WORKLOADS, sizes=QUICK_CASE_SIZES,
        time_budget=QUICK_BUDGET, threshold=0.2,
    )  # fmt: skip
    # Within 45 s of the 30 s budget, every call counted: the checks, the one call a
    # side that finds a call slow enough to be a sample, and the pairs.
    assert report.seconds <= 45.0
    assert sleeper.calls * 3.0 == pytest.approx(report.seconds)
    assert len(report.comparisons) == 2 * len(bench.CASE_WORKLOADS)
    assert set(_verdicts(report)) == {"inconclusive"}
    assert report.counts["inconclusive"] == len(report.comparisons)


def test_a_fast_call_is_timed_over_many_calls(machine: NoisyMachine) -> None:
    calls = {"new": 0, "old": 0}

    def counted(name: str, kernel: bench.Kernel) -> bench.Kernel:
        def pack_sizes(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
            calls[name] += 1
            return kernel(budget, sizes)

        return pack_sizes

    # 1,000 blocks at 1 ns: about 1 us a call, so a 100 us sample is about 100 calls.
    new = counted("new", machine.kernel(1.0))
    old = counted("old", machine.kernel(1.0))
    report = bench.ab(new, old, workloads=["pareto"], sizes=[1000], min_time=1e-4, min_pairs=6)
    pairs = report.comparisons[0].estimate.pairs
    assert calls["new"] == calls["old"]  # the same number of calls each
    per_sample = (calls["new"] - 1 - _ab._WARMUP - 1) / pairs  # less check, warm-up, calibration
    assert per_sample == int(per_sample)
    assert 30 < per_sample < 300


def test_a_free_call_is_capped(machine: NoisyMachine, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_timing, "_MAX_CALLS", 7)
    free = machine.kernel(0.0)
    report = bench.ab(free, free, workloads=["pareto"], sizes=[10], max_pairs=6, min_pairs=6)
    (comparison,) = report.comparisons
    # Zero time reads as one clock tick each side: a ratio of exactly 1, "same".
    assert comparison.estimate.ratio == 1.0
    assert comparison.estimate.verdict == "same"
    assert comparison.new_seconds == 0.0


def test_a_slow_call_is_one_call_a_sample(machine: NoisyMachine) -> None:
    # 10**5 blocks at 1 us: 0.1 s a call, past the 5 ms sample.
    slow = machine.kernel(1000.0)
    report = bench.ab(slow, slow, workloads=["pareto"], sizes=[10**5], max_pairs=8)
    assert report.comparisons[0].old_seconds > 0.05


def test_the_order_within_pairs_is_random_and_seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    orders: list[list[str]] = []

    def run(seed: int) -> list[str]:
        order: list[str] = []

        def side(name: str) -> bench.Kernel:
            def pack_sizes(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
                order.append(name)
                return scan.pack_sizes(budget, sizes)

            return pack_sizes

        bench.ab(
            side("new"), side("old"), workloads=["pareto"], sizes=[10], seed=seed,
            min_pairs=20, max_pairs=20, min_time=0.0,
        )  # fmt: skip
        orders.append(order)
        return order[8:]  # after the checks, warm-ups and calibration calls

    first, again, other = run(1), run(1), run(2)
    assert first == again
    assert first != other
    leads = first[::2]
    assert 5 <= leads.count("new") <= 15  # each side leads about half the pairs
    # The checks, warm-ups and calibration in turn: neither side warmed long before.
    assert orders[0][:8] == ["new", "old"] * 4


def _recording(seen: list[object], kernel: bool) -> Any:
    """A packer that keeps every input it is given (alive, so their ids stay apart)."""
    if kernel:

        def pack_sizes(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
            seen.append(sizes)
            return scan.pack_sizes(budget, sizes)

        return pack_sizes

    def pack_case(case: dict[str, Any]) -> Any:
        seen.append(case)
        return packcheck.pack(case)

    return bench.CaseSubject("case", pack_case)


@pytest.mark.parametrize("kernel", [False, True])
def test_both_sides_pack_the_very_same_input_objects(kernel: bool) -> None:
    # Each side's own copy, made one after the other, put one in memory the last cell
    # had freed and the other in fresh memory: a packer against itself was 3-5% slower
    # on the side whose copy was made first.
    new: list[object] = []
    old: list[object] = []
    bench.ab(
        _recording(new, kernel), _recording(old, kernel), workloads=TWO, sizes=[10],
        min_pairs=2, max_pairs=2, min_time=0.0,
    )  # fmt: skip
    assert len({id(one) for one in new}) == len(TWO)
    assert {id(one) for one in new} == {id(one) for one in old}


@pytest.mark.parametrize("kernel", [False, True])
def test_every_packer_of_a_matrix_packs_the_very_same_input_objects(kernel: bool) -> None:
    first: list[object] = []
    second: list[object] = []
    packers = {"first": _recording(first, kernel), "second": _recording(second, kernel)}
    bench.run(packers=packers, workloads=TWO, sizes=[10], repeat=1, min_time=0.0)
    assert len({id(one) for one in first}) == len(TWO)
    assert {id(one) for one in first} == {id(one) for one in second}


def test_the_collector_is_off_while_timing_and_left_as_found(machine: NoisyMachine) -> None:
    states: list[bool] = []

    costly = machine.kernel(1000.0)

    def watched(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
        states.append(gc.isenabled())
        return costly(budget, sizes)

    bench.ab(watched, watched, workloads=["pareto"], sizes=[10], max_pairs=6, min_pairs=6)
    assert gc.isenabled()
    assert set(states[:8]) == {True}  # checks, warm-ups, calibration
    assert set(states[8:]) == {False}
    gc.disable()
    try:
        bench.ab(watched, watched, workloads=["pareto"], sizes=[10], max_pairs=6, min_pairs=6)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_progress_names_every_cell(machine: NoisyMachine) -> None:
    seen: list[tuple[str, int, int | None]] = []
    k = machine.kernel(1.0)
    bench.ab(
        k, k, workloads=["sawtooth"], sizes=[10, 20], min_pairs=6, max_pairs=6, min_time=0.0,
        progress=lambda *state: seen.append(state),
    )  # fmt: skip
    assert seen == [("sawtooth n=10", 1, 2), ("sawtooth n=20", 2, 2)]


def _off_by_one(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
    mask, remaining = scan.pack_sizes(budget, sizes)
    return mask, remaining + 1


def _mutating(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
    answer = scan.pack_sizes(budget, sizes)
    sizes[0] += 1
    return answer


def _raising(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
    raise RuntimeError("boom")


@pytest.mark.parametrize(
    ("new", "old", "message"),
    [
        (_off_by_one, scan.pack_sizes, "NEW and OLD answer differently on pareto at n=100, "
         "seed 0 (--workload pareto --sizes 100 --seed 0); the reference agrees with OLD"),
        (scan.pack_sizes, _off_by_one, "NEW and OLD answer differently on pareto at n=100, "
         "seed 0 (--workload pareto --sizes 100 --seed 0); the reference agrees with NEW"),
        (_mutating, scan.pack_sizes, "NEW changed its input on pareto at n=100"),
        (scan.pack_sizes, _raising, "OLD raised RuntimeError: boom on pareto at n=100"),
        (lambda budget, sizes: None, scan.pack_sizes,
         "NEW did not return (flags, int remaining) on pareto at n=100"),
    ],
)  # fmt: skip
def test_a_wrong_mutating_or_raising_kernel_is_an_error(
    new: bench.Kernel, old: bench.Kernel, message: str
) -> None:
    with pytest.raises(bench.BenchError) as error:
        bench.ab(new, old, workloads=["pareto"], sizes=[100])
    assert str(error.value) == message


def test_answers_that_differ_from_each_other_and_the_reference_say_neither() -> None:
    def off_by_two(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
        mask, remaining = scan.pack_sizes(budget, sizes)
        return mask, remaining + 2

    with pytest.raises(bench.BenchError, match=r"the reference agrees with neither$"):
        bench.ab(_off_by_one, off_by_two, workloads=["pareto"], sizes=[100])


def test_list_answers_equal_to_array_answers_are_the_same_answer(machine: NoisyMachine) -> None:
    def lists(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
        return reference.pack_sizes(budget, sizes.tolist())

    report = bench.ab(
        lists, machine.kernel(1.0), workloads=["pareto"], sizes=[50], min_pairs=6, max_pairs=6,
        min_time=0.0,
    )  # fmt: skip
    assert len(report.comparisons) == 1


def test_impossible_runs_are_rejected() -> None:
    k = scan.pack_sizes
    with pytest.raises(ValueError, match="unknown clock 'sundial'"):
        bench.ab(k, k, clock="sundial")
    for bad in ({"sizes": []}, {"sizes": [0]}, {"workloads": []}, {"min_pairs": 0},
                {"min_pairs": 9, "max_pairs": 8}):  # fmt: skip
        with pytest.raises(ValueError, match="need a workload"):
            bench.ab(k, k, **bad)  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="unknown workload"):
        bench.ab(k, k, workloads=["nope"])


def test_a_report_is_self_describing_json(machine: NoisyMachine) -> None:
    k = machine.kernel(1.0)
    report = bench.ab(
        k, k, workloads=["pareto"], sizes=[50], min_pairs=6, max_pairs=6, threshold=0.2,
        min_time=0.0,
    )  # fmt: skip
    data = report.to_json("new:f", "old.py:f")
    assert data["kind"] == "packcheck bench A/B"
    assert (data["new"], data["old"], data["clock"]) == ("new:f", "old.py:f", "thread")
    assert (data["threshold"], data["confidence"]) == (0.2, 0.95)
    assert set(data) >= {"created", "commit", "machine", "seconds", "comparisons"}
    (row,) = data["comparisons"]
    assert set(row) == {
        "workload", "family", "n", "new_seconds", "old_seconds", "new_median_seconds",
        "old_median_seconds", "ratio", "interval", "pairs", "verdict",
    }  # fmt: skip
    assert row["pairs"] == 6
    assert data["kinds"] == ["kernel", "kernel"]
    # The times shown are the median pair's: their ratio is the ratio.
    assert row["new_seconds"] / row["old_seconds"] == pytest.approx(row["ratio"])


def test_answers_that_differ_name_the_first_recorded_case_they_differ_on() -> None:
    def step(budget: int, *sizes: int) -> dict[str, Any]:
        blocks = [{"id": f"b{k}", "size": size} for k, size in enumerate(sizes)]
        return {"budget": budget, "blocks": blocks, "required": []}

    def off_from_four(budget: int, sizes: npt.NDArray[np.int64]) -> Any:
        mask, remaining = scan.pack_sizes(budget, sizes)
        return mask, remaining + (budget >= 4)

    def case_off_from_four(case: dict[str, Any]) -> Any:
        answer = packcheck.pack(case)
        if "error" in answer:
            return answer
        return {**answer, "remaining": answer["remaining"] + (case["budget"] >= 4)}

    # The second case is no kernel's: a kernel's first difference is still named by
    # its place among the cases given.
    recorded = Recorded((step(3, 1), step(3, 0), step(5, 2), step(4, 1)))
    cases = (bench.CaseSubject("NEW", case_off_from_four), bench.CaseSubject("OLD", packcheck.pack))
    for new, old in ((off_from_four, scan.pack_sizes), cases):
        with pytest.raises(bench.BenchError) as error:
            bench.ab(new, old, workloads=[], sizes=[], recorded=recorded)
        assert str(error.value) == (
            "NEW and OLD answer differently on the 4 recorded case(s), first on recorded "
            "case 3 of 4; the reference agrees with OLD"
        )
    one = Recorded((step(3, 0), step(5, 2)))
    with pytest.raises(bench.BenchError, match=r"first on recorded case 2 of 2;"):
        bench.ab(off_from_four, scan.pack_sizes, workloads=[], sizes=[], recorded=one)
