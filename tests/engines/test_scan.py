"""The NumPy packer gives the reference's answer, on every path of the kernel."""

from __future__ import annotations

import math
import random
import tracemalloc
from contextlib import AbstractContextManager
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from _scan_check import RoundBoundExceeded, assert_same, bounded_calls, call_bound

from packcheck import reference
from packcheck._bench._workloads import WORKLOADS
from packcheck._engines import levels as scan
from packcheck._engines import numpy_entry
from packcheck._engines.numpy_entry import pack_sizes
from packcheck._engines.rounds import KernelError


@pytest.mark.parametrize(
    ("budget", "sizes"),
    [
        (7, [4, 3, 2]),
        (3, [4, 2]),
        (0, [1, 2, 3]),
        (5, []),
        (0, []),
        (4, [5, 1, 1, 1, 1, 1]),
        (5, [5, 1, 1, 1, 1, 1]),
        (10, [1] * 10),
        (9, [1] * 10),
        (6, [4, 3, 2]),
    ],
)
def test_small_cases_equal_the_reference(budget: int, sizes: list[int]) -> None:
    assert_same(budget, sizes)


@pytest.mark.parametrize("name", sorted(WORKLOADS))
@pytest.mark.parametrize("n", [1, 7, 5_000, 70_000])
def test_every_workload_equals_the_reference(name: str, n: int) -> None:
    sizes, budget = WORKLOADS[name].generate(n, seed=n)
    assert_same(budget, sizes.tolist(), sizes)


def _random_sizes(rng: random.Random, n: int, top: int) -> list[int]:
    return [rng.randint(1, top) for _ in range(n)]


@pytest.mark.parametrize("seed", range(6))
def test_random_orders_and_magnitudes_equal_the_reference(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(60):
        sizes = _random_sizes(rng, rng.randint(0, 400), rng.choice([2, 5, 30, 10**3, 10**6]))
        assert_same(rng.randint(0, sum(sizes) + 1), sizes)


@pytest.mark.parametrize("exponent", [30, 41, 47, 52, 55, 60, 62])
@pytest.mark.parametrize("shape", ["random", "ones-between", "descending"])
def test_long_lists_of_large_values_stay_exact(exponent: int, shape: str) -> None:
    # Budgets from 2**35 to 2**67 with sizes near the budget: the chunk length is cut
    # so that int64 sums stay exact, and past ~2**52 chunks are scanned in Python.
    rng = np.random.default_rng(exponent)
    sizes = rng.integers(1, 2 ** min(exponent + 3, 63) - 1, 60_000, dtype=np.int64)
    if shape == "ones-between":
        sizes[::2] = 1
    elif shape == "descending":
        sizes = np.sort(sizes)[::-1].copy()
    budget = int(rng.integers(1, 2**exponent)) * 37
    assert_same(budget, sizes.tolist(), sizes)


@pytest.mark.parametrize("budget", [2**62, 2**63 - 2, 2**63 - 1, 2**63, 2**64 + 3, 10**40])
def test_budgets_near_and_past_int64(budget: int) -> None:
    sizes = [2**62, 1, 2**63 - 1, 3, 2**61, 2**61, 5] * 3000
    assert_same(budget, sizes)
    assert_same(budget, [1, 2, 3] * 3000)


def test_a_window_whose_sum_needs_more_than_int64_is_summed_exactly() -> None:
    # 4,096 sizes of 2**61 sum to 2**73: all fit a budget of 2**80.
    assert_same(2**80, [2**61] * 10_000)
    assert_same(2**73 + 5, [2**61] * 4096 + [6, 5, 1])


def test_a_chunk_cut_short_for_exact_sums_can_fit_whole() -> None:
    # Budget 2**54 allows int64 sums over only ~4,096 blocks, and those all fit.
    assert_same(2**54, [1] * 2**17 + [2**40] * 70_000)


@pytest.mark.parametrize("budget", [2**54, 2**55 + 12345, 2**56 - 1])
def test_sums_near_the_int64_bound_stay_exact(budget: int) -> None:
    # Sizes about tau = budget // 16, mixed with too-large ones: level sums run up to
    # length * tau, close to the 2**62 the chunk length is cut for.
    rng = np.random.default_rng(budget % 1000)
    tau = budget // 16
    sizes = rng.integers(tau // 2, 2 * tau, 20_000, dtype=np.int64)
    sizes[rng.random(20_000) < 0.3] = budget + 1
    assert_same(budget, sizes.tolist(), sizes)


@pytest.mark.parametrize("budget", [0, 10, 2**40, 2**63 - 2, 2**63 - 1, 2**70, 2**80])
def test_object_arrays_with_sizes_past_int64(budget: int) -> None:
    sizes = [2**70, 3, 2**63, 2**64 - 1, 7, 2**40, 2**69 + 1, 1] * 500
    assert_same(budget, sizes, np.array(sizes, dtype=object))


def test_object_arrays_of_small_integers() -> None:
    sizes = [3, 1, 4, 1, 5, 9, 2, 6] * 100
    assert_same(40, sizes, np.array(sizes, dtype=object))


@pytest.mark.parametrize("budget", [0, 9, 2**62, 2**63 - 2, 2**63, 2**64 + 1])
def test_uint64_sizes_past_int64(budget: int) -> None:
    sizes = [2**64 - 1, 4, 2**63, 5, 2**63 - 1, 1] * 100
    assert_same(budget, sizes, np.array(sizes, dtype=np.uint64))
    assert_same(budget, [4, 5, 1] * 100, np.array([4, 5, 1] * 100, dtype=np.uint64))


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.uint8, np.uint16, np.uint32])
def test_narrow_integer_dtypes(dtype: type[np.integer[Any]]) -> None:
    sizes = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5] * 50
    assert_same(100, sizes, np.array(sizes, dtype=dtype))


@pytest.mark.parametrize(
    "sizes",
    [
        np.ones(5, dtype=np.bool_),
        np.array(["4", "3"], dtype=object),
        np.array([4, "3"], dtype=object),
        np.array([True, 3], dtype=object),
        np.array([3, np.True_], dtype=object),
        np.array([3, 1j], dtype=object),
        np.array([2**70, "3"], dtype=object),
    ],
)
@pytest.mark.parametrize("budget", [10, 2**63 - 1, 2**80])
def test_sizes_that_are_not_numbers_are_rejected(budget: int, sizes: npt.NDArray[Any]) -> None:
    # A bool is never a unit (it is not counted as 1), nor is a string such as "4".
    with pytest.raises(TypeError):
        pack_sizes(budget, sizes)


@pytest.mark.parametrize("budget", [True, False, np.True_])
def test_a_bool_budget_is_rejected(budget: Any) -> None:
    with pytest.raises(TypeError, match="bool"):
        pack_sizes(budget, np.array([1, 2], dtype=np.int64))


@pytest.mark.parametrize(
    "bad", [2.5, math.nan, math.inf, -math.inf, np.float64(0.5), Fraction(5, 2), Decimal("2.5")]
)
@pytest.mark.parametrize("budget", [3, 2**63 - 1, 2**70])
def test_object_arrays_never_round_a_fraction(budget: int, bad: object) -> None:
    # astype(int64) would truncate 2.5 to 2 and keep it: out-of-contract input raises.
    with pytest.raises(ValueError, match="integral"):
        pack_sizes(budget, np.array([bad], dtype=object))
    with pytest.raises(ValueError, match="integral"):
        pack_sizes(budget, np.array([1, 2**70, bad, 4], dtype=object))


@pytest.mark.parametrize("budget", [0, 7, 2**62, 2**63 - 2, 2**63 - 1, 2**70])
def test_object_arrays_of_whole_numbers_of_any_type_are_read_by_value(budget: int) -> None:
    whole = [4.0, np.int64(3), np.uint64(2**64 - 1), Fraction(6, 3), Decimal("5.0"), 7, 2**70]
    values = [4, 3, 2**64 - 1, 2, 5, 7, 2**70] * 700
    assert_same(budget, values, np.array(whole * 700, dtype=object))


def test_whole_floats_are_units() -> None:
    assert_same(7, [4, 3, 2], np.array([4.0, 3.0, 2.0]))
    assert_same(2**60, [2**55, 2**59, 2**60], np.array([2.0**55, 2.0**59, 2.0**60]))
    assert_same(0, [], np.array([], dtype=np.float64))


@pytest.mark.parametrize("bad", [2.5, math.nan, math.inf])
def test_floats_that_are_not_whole_are_rejected(bad: float) -> None:
    with pytest.raises(ValueError, match="integral"):
        pack_sizes(10, np.array([1.0, bad]))


def test_object_arrays_of_non_numbers_raise_like_the_reference() -> None:
    with pytest.raises(TypeError):
        pack_sizes(10, np.array([1, None], dtype=object))
    with pytest.raises(TypeError):
        reference.pack_sizes(10, [1, None])  # type: ignore[list-item]


def test_non_numeric_and_multidimensional_sizes_are_rejected() -> None:
    with pytest.raises(TypeError, match="dtype"):
        pack_sizes(10, np.array(["4"]))
    with pytest.raises(ValueError, match="one-dimensional"):
        pack_sizes(10, np.ones((2, 2), dtype=np.int64))
    with pytest.raises(TypeError):
        pack_sizes(1.5, np.ones(2, dtype=np.int64))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("budget", "sizes"),
    [(-1, [1, 2]), (3, [0, 4, 0, 3, 0]), (2, [2, 0, 0]), (5, [-2, 6, 1])],
)
def test_outside_the_contract_the_reference_answers(budget: int, sizes: list[int]) -> None:
    # A zero-size block fits even an exhausted budget, and a negative one grows it.
    assert_same(budget, sizes)


@pytest.mark.parametrize("offset", [0, 1, 1023, 1024, 1025, 3071, 3072, 3073, 7168, 60_000])
def test_the_one_block_that_fits_is_found_wherever_it_stands(offset: int) -> None:
    # The search for a fitting large block goes in doubling steps from 1,024: a block
    # on a step's first or last position must be found.
    assert_same(9, [10] * offset + [5] + [10] * 70_000 + [4])
    assert_same(9, [10] * offset + [9] + [10] * 5_000)


def test_list_input_is_accepted() -> None:
    mask, remaining = pack_sizes(7, [4, 3, 2])
    assert mask.tolist() == [True, True, False]
    assert remaining == 0


def test_rounds_stay_bounded_on_orders_that_make_a_phase_scan_quadratic(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 1, B, 1, B-1, ...: a scan restarting at each skipped block takes n / 2 rounds.
    # The level scheme takes O(K log_K B) events plus one per chunk.
    rounds = 0
    search = scan._first_at_most

    def counting(*args: Any) -> int:
        nonlocal rounds
        rounds += 1
        return search(*args)

    monkeypatch.setattr(scan, "_first_at_most", counting)
    n = 200_000
    sizes, budget = WORKLOADS["alternating"].generate(n)
    assert_same(budget, sizes.tolist(), sizes)
    levels = math.log(budget, scan._K) + 2
    assert 0 < rounds <= scan._K * levels + 2 * n / scan._CHUNK_MIN


def _count_python_blocks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the blocks that go through the Python stretch (_exact_chunk)."""
    counted = [0]
    exact_chunk = scan._exact_chunk

    def counting(chunk: npt.NDArray[np.int64], *args: Any) -> int:
        counted[0] += chunk.shape[0]
        return exact_chunk(chunk, *args)

    monkeypatch.setattr(scan, "_exact_chunk", counting)
    return counted


@pytest.mark.parametrize("budget", [2**62 - 1, 2**62, 2**62 + 2**60, 2**63 - 2, 2**63 - 1])
@pytest.mark.parametrize("large", [2**63 - 1, "budget+1", "budget"])
def test_remainders_past_2_62_stay_vectorised(
    budget: int, large: int | str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Alternating 1 and a block too large for what is left: before, a remaining at or
    # above ~2**62 sent every block through Python, slower than the reference.
    big = (
        min(budget + 1, 2**63 - 1)
        if large == "budget+1"
        else budget
        if large == "budget"
        else large
    )
    assert isinstance(big, int)
    sizes = np.ones(200_000, dtype=np.int64)
    sizes[1::2] = big
    python_blocks = _count_python_blocks(monkeypatch)
    assert_same(budget, sizes.tolist(), sizes)
    assert python_blocks[0] <= 2 * scan._NUMPY_MIN


@pytest.mark.parametrize("budget", [2**62 - 1, 2**62, 2**62 + 1, 2**63 - 2, 2**63 - 1])
@pytest.mark.parametrize("spread", ["at-tau", "tau-and-large", "ones-and-tau", "random"])
def test_small_sums_that_would_wrap_int64_stay_exact(budget: int, spread: str) -> None:
    # Sizes about tau = budget // 16 sum past 2**63 within 17 blocks: the prefix sums
    # are cut before they wrap, and keys size - (R + 1) + S stay inside int64.
    rng = np.random.default_rng(budget % 997)
    tau = budget // 16
    n = 30_000
    sizes = rng.integers(tau - 2**20, tau, n, dtype=np.int64, endpoint=True)
    if spread == "tau-and-large":
        sizes[rng.random(n) < 0.3] = 2**63 - 1
    elif spread == "ones-and-tau":
        sizes[rng.random(n) < 0.9] = 1
        sizes[rng.random(n) < 0.05] = budget - 3
    elif spread == "random":
        sizes = rng.integers(1, 2**63 - 1, n, dtype=np.int64)
        sizes[::3] = rng.integers(1, 2**40, sizes[::3].shape[0])
    assert_same(budget, sizes.tolist(), sizes)


@pytest.mark.parametrize("budget", [2**62, 2**63 - 2, 2**63 - 1])
def test_keys_at_the_int64_edge_find_the_block_that_fits_exactly(budget: int) -> None:
    # The one large block that fits leaves remaining 0: size + S == c to the unit,
    # with size - (R + 1) at its most negative and S at its largest.
    tau = budget // 16
    ones = 50_000
    fits = budget - ones
    sizes = [1] * ones + [fits + 1] * 3000 + [fits] + [1] * 3000 + [tau] * 100
    assert_same(budget, sizes)
    sizes = [tau] * 15 + [2**63 - 1] * 5000 + [budget - 15 * tau] + [1] * 5000
    assert_same(budget, sizes)


@pytest.mark.parametrize("budget", [2**63, 2**63 + 1, 2**64, 2**70 + 12345, 10**30])
def test_budgets_past_int64_keep_the_fitting_prefix_in_numpy(
    budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every int64 size fits such a remaining: the longest fitting prefix is kept at
    # once, and the remaining after it is within int64.
    rng = np.random.default_rng(budget % 1009)
    sizes = rng.integers(2**50, 2**63 - 1, 100_000, dtype=np.int64)
    sizes[::2] = 1
    python_blocks = _count_python_blocks(monkeypatch)
    assert_same(budget, sizes.tolist(), sizes)
    assert python_blocks[0] <= 2 * scan._NUMPY_MIN


def test_object_arrays_past_int64_with_a_negative_budget_go_to_the_reference() -> None:
    assert_same(-1, [2**70, 1, 3], np.array([2**70, 1, 3], dtype=object))


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_extra_memory_stays_within_three_times_the_input(name: str) -> None:
    # The memory target, measured (not timed): NumPy's buffers are traced.
    sizes, budget = WORKLOADS[name].generate(200_000, seed=0)
    tracemalloc.start()
    try:
        kept, _ = pack_sizes(budget, sizes)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert kept.shape == sizes.shape
    assert peak <= 3 * sizes.nbytes, f"{name}: peak {peak / sizes.nbytes:.2f}x the input"


def _bounded(budget: int, n: int) -> AbstractContextManager[list[int]]:
    # The tests' own call bound around a kernel round bound: a mutant that loosens
    # the kernel's bound fails on the call bound rather than hang.
    return bounded_calls(call_bound(budget, n))


#: A workload and its seed.
UNIFORM_HALF = ("uniform-50%", 3)


@pytest.mark.parametrize(
    ("name", "value", "workload", "message"),
    [
        # A level that decides no block would loop for ever: the round bound stops it.
        ("_level", lambda chunk, remaining, *_: (0, remaining, 0), UNIFORM_HALF, "scan: more than"),
        # Fewer than _K large blocks fit a level: a search that always hits breaks that.
        (
            "_first_at_most",
            lambda keys, start, stop, bound: start,
            ("alternating", 0),
            "level: more than 17 rounds",
        ),
        # With a level ratio of 1 a level keeps one block: far more levels than log_K allows.
        ("_K", 1, UNIFORM_HALF, "small levels: more than"),
    ],
    ids=["scan stops advancing", "level keeps finding blocks", "small levels do not shrink"],
)
def test_a_loop_that_breaks_its_invariant_fails_by_its_bound(
    name: str,
    value: object,
    workload: tuple[str, int],
    message: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scan, name, value)
    sizes, budget = WORKLOADS[workload[0]].generate(5000, seed=workload[1])
    with _bounded(budget, len(sizes)), pytest.raises(KernelError, match=message):
        pack_sizes(budget, sizes)


def test_a_search_that_does_not_advance_fails_by_its_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scan, "_GROWTH", 1)  # steps that never grow
    with _bounded(0, 100_000), pytest.raises(KernelError, match="search: more than 18"):
        scan._first_at_most(np.ones(100_000, dtype=np.int64), 0, 100_000, 0)


@pytest.mark.parametrize("length", [1, 2, 3, 5, 7, 8, 9, 4096])
def test_the_fitting_prefix_bisection_ends_within_its_bound(length: int) -> None:
    # Past int64 every prefix is tried by bisection: bit_length(length) rounds suffice.
    chunk = np.full(length, 2**62, dtype=np.int64)
    for fits in range(min(length, 9)):
        kept = np.zeros(length, dtype=np.bool_)
        remaining = 2**62 * fits + 2**61
        assert scan._fitting_prefix(chunk, remaining, kept) == (fits, 2**61)
        assert kept.tolist() == [True] * fits + [False] * (length - fits)


def test_rare_keeps_among_too_large_runs_take_no_level(monkeypatch: pytest.MonkeyPatch) -> None:
    # Staircase: a chunk in which a few blocks fit is scanned over those alone.
    def no_level(*args: Any) -> Any:
        raise AssertionError("a level ran")

    monkeypatch.setattr(scan, "_level", no_level)
    sizes, budget = WORKLOADS["staircase"].generate(300_000)
    assert_same(budget, sizes.tolist(), sizes)


# --- Kernel facts pinned for the mutation harness (docs/mutation) --------------------
# Each test below reaches a fact of the kernel that an optimiser's one-line edit can
# break while every other test still passes; docs/mutation/EQUIVALENT.md lists the
# edits that cannot change an answer.

INT64_MAX = 2**63 - 1


def _runs(*runs: tuple[int, int]) -> list[int]:
    """``[size] * count`` for each ``(count, size)``, concatenated."""
    return [size for count, size in runs for _ in range(count)]


@pytest.mark.parametrize("slack", [-1, 0, 1, 2**62])
def test_a_chunk_summing_to_exactly_2_63_does_not_wrap(slack: int) -> None:
    # Two blocks of 2**62, and 4,096 blocks of 2**51 (one chunk), sum to 2**63: one
    # int64 sum wraps to -2**63, which "fits" any budget.
    assert_same(2**63 + slack, [2**62, 2**62])
    assert_same(2**63 + slack, [2**51] * 4096)
    assert_same(2**63 + slack, [2**51] * 4096 + [1, 2**62, 3])


@pytest.mark.parametrize("slack", [-1, 0, 1])
def test_every_chunk_width_summing_to_exactly_2_63_does_not_wrap(slack: int) -> None:
    # Chunks gallop from 4,096 to 65,536 blocks while they fit whole: each run below
    # fills one chunk of the next width and sums to exactly 2**63, so the bound on a
    # whole-chunk int64 sum must use that chunk's own length, not the first's.
    widths = [4096, 8192, 16_384, 32_768, 65_536, 65_536]
    sizes = _runs(*((width, 2**63 // width) for width in widths))
    assert_same(len(widths) * 2**63 + slack, sizes)


@pytest.mark.parametrize("budget", [2**62, 2**63 - 1, 2**63, 2**64 + 1])
def test_halves_of_a_sum_keep_every_bit(budget: int) -> None:
    # Whole-chunk and prefix sums past 2**62 are taken as high (>> 31) and low 31-bit
    # halves: sizes with every low bit set, bit 31 set, and both, must add up exactly.
    patterns = [2**31 - 1, 2**31, 2**32 - 1, 2**62 + 2**31 - 1, INT64_MAX, 2**61 + 1]
    for pattern in patterns:
        count = max(1, min(5000, budget // pattern + 2))
        assert_same(budget, [pattern] * count + [1, 2, 3])
    rng = np.random.default_rng(budget % 1_000_003)
    sizes = rng.integers(2**40, INT64_MAX, 9000, dtype=np.int64, endpoint=True)
    assert_same(budget, sizes.tolist(), sizes)


@pytest.mark.parametrize("count", [1, 2, 4095, 4096, 4097, 9000])
def test_a_budget_past_int64_that_is_an_exact_prefix_sum_keeps_that_prefix(count: int) -> None:
    # The longest fitting prefix: a budget equal to the sum of the first `count` sizes
    # keeps exactly those and leaves 0; one unit less keeps one fewer.
    sizes = [INT64_MAX, 2**62 + 1, 2**63 - 2**31] * 3000
    total = sum(sizes[:count])
    for budget in (total - 1, total, total + 1):
        assert_same(budget, sizes)


@pytest.mark.parametrize("budget", [16 * 1000, 16 * 2**40 + 15, 2**62, 2**63 - 1])
def test_a_level_that_ends_at_exactly_tau_goes_on_to_the_next_block(budget: int) -> None:
    # tau = R // 16: blocks of exactly tau are small; the remaining after 15 of them
    # is >= tau, so the 16th still fits, and a 17th of size tau + 1 or tau does not
    # once the remaining is below tau.  Each run is long enough for the NumPy levels.
    tau = budget // 16
    rest = budget - 16 * tau
    for tail in (tau, tau + 1, tau - 1, budget - 15 * tau, rest, rest + 1, rest + 2):
        sizes = [tau] * 15 + [max(1, tail)] + [tau + 1, tau, max(1, tau - 1)] * 700
        assert_same(budget, sizes)
        assert_same(budget, [1] * 2000 + sizes)
        assert_same(budget, [min(budget + 1, INT64_MAX), budget] * 600 + sizes)
        # Every block small (none above tau): the levels follow one another on one sum.
        small = [tau] * 15 + [max(1, tail)] + [tau, max(1, tau - 1), 1] * 700
        assert_same(budget, small)
        assert_same(budget, [1] * 2000 + small)


@pytest.mark.parametrize("budget", [1000, 2**40 + 3, 2**62 + 7, 2**63 - 1])
def test_a_level_ends_exactly_where_the_remaining_falls_below_tau(budget: int) -> None:
    # Small blocks summing to R - tau, R - tau + 1 and R - tau - 1, then a small block
    # that fits only within the level, then a large block that fits exactly.
    tau = budget // 16
    unit = max(1, tau // 8)
    for gap in (-1, 0, 1):
        used = budget - tau + gap
        count, rest = divmod(used, unit)
        head = [unit] * count + ([rest] if rest else [])
        if len(head) > 200_000:
            continue
        left = budget - sum(head)
        too_large = [min(budget + 1, INT64_MAX)] * 1500
        for after in (left, left + 1, max(1, left - 1), tau, tau + 1):
            tail = [after, *too_large, max(1, left - after)] + [1] * 1500
            assert_same(budget, head + tail)


@pytest.mark.parametrize("budget", [2**62, 2**63 - 2, 2**63 - 1])
def test_a_large_block_that_fits_to_the_unit_at_the_int64_edge(budget: int) -> None:
    # size - (R + 1) + S <= c - (R + 1) with R at int64's edge: the terms are at their
    # extremes and one unit decides.  The large block comes after small ones.
    tau = budget // 16
    for small in (1, tau, tau - 1):
        head = [small] * min(2000, max(1, (budget - 2 * tau) // small))
        exact = budget - sum(head)
        for size in (exact - 1, exact, exact + 1):
            if size >= 1:
                too_large = [min(budget + 1, INT64_MAX)] * 1200
                assert_same(budget, head + too_large + [size] + [1] * 1200)


def test_the_round_bound_stops_a_kernel_loop_that_never_ends(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The checker of the checker: a search that never returns, compiled as scan.py's
    # own code, must fail the helper on its round bound rather than hang.
    namespace: dict[str, Any] = {}
    source = "def spin(*args):\n    while True:\n        min(0, 1)\n"
    exec(compile(source, scan.__file__, "exec"), namespace)
    monkeypatch.setattr(scan, "_first_at_most", namespace["spin"])
    sizes, budget = WORKLOADS["alternating"].generate(5000, seed=0)
    with pytest.raises(RoundBoundExceeded, match="more than"):
        assert_same(budget, sizes.tolist(), sizes)


def test_the_helper_rejects_a_wrong_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    # A kernel that keeps one block too many, or reports one unit too many, fails.
    def one_more_kept(budget: int, sizes: Any) -> tuple[npt.NDArray[np.bool_], int]:
        mask, remaining = pack_sizes(budget, sizes)
        mask[-1] = not mask[-1]
        return mask, remaining

    def one_unit_more(budget: int, sizes: Any) -> tuple[npt.NDArray[np.bool_], int]:
        mask, remaining = pack_sizes(budget, sizes)
        return mask, remaining + 1

    for wrong in (one_more_kept, one_unit_more):
        monkeypatch.setattr(numpy_entry, "pack_sizes", wrong)
        with pytest.raises(AssertionError):
            assert_same(7, [4, 3, 2])


@pytest.mark.parametrize(
    "sizes",
    [
        np.array([4, 3], dtype="datetime64[ns]"),
        np.array([4, 3], dtype="timedelta64[ns]"),
        np.array([4 + 0j, 3 + 0j]),
        np.array([b"4", b"3"]),
    ],
)
def test_arrays_of_dates_durations_complexes_and_bytes_are_not_units(
    sizes: npt.NDArray[Any],
) -> None:
    # datetime64[ns].tolist() gives plain ints: only the dtype says they are not units.
    with pytest.raises(TypeError, match="dtype"):
        pack_sizes(10, sizes)


@pytest.mark.parametrize("budget", [5, 2**53, 2**63 - 1, 2**64, 2**1100])
def test_whole_floats_past_int64_are_exact_and_never_cast(budget: int) -> None:
    # Floats past 2**53 are whole numbers: past int64 a cast to int64 is invalid (NumPy
    # warns, and the warning is an error here), so they go to the reference.
    values = [2.0**63, 2.0**64, 1e300, 3.0, 2.0**53 + 2, 2.0**62, 1.0]
    assert_same(budget, [int(v) for v in values] * 300, np.array(values * 300))
    assert_same(budget, [2**53 + 2, 2**60, 7] * 500, np.array([2.0**53 + 2, 2.0**60, 7.0] * 500))


@pytest.mark.parametrize("budget", [2**56, 2**56 + 15])
def test_small_prefix_sums_that_pass_2_63_mid_chunk_are_cut(budget: int) -> None:
    # tau = 2**52 and 4,096 blocks: tau * 4096 = 2**64, and 2,048 blocks of tau sum to
    # 2**63.  Sums past that point wrap in int64 (and break the sorted order the level
    # search relies on) unless they are cut as soon as tau * length passes int64.
    tau = budget // 16
    assert_same(budget, [tau] * 5000)
    assert_same(budget, [tau] * 4095 + [2**62] + [tau] * 900)
    assert_same(budget, [2**62] + [tau] * 6000)


@pytest.mark.parametrize("budget", [16 * 1000, 16 * 1000 + 15, 2**62 + 2**58, 2**63 - 1])
def test_a_level_keeps_up_to_k_minus_1_large_blocks_within_its_bound(budget: int) -> None:
    # Large blocks are > tau = R // 16, so at most 15 fit one level: with the search
    # that finds none, that is K rounds, the most a level may take.
    tau = budget // 16
    too_large = min(budget + 1, INT64_MAX)
    assert_same(budget, [tau + 1] * 15 + [too_large] * 4000 + [tau + 1] * 100)
    assert_same(budget, [too_large, tau + 1] * 15 + [too_large] * 4000 + [1] * 50)


@pytest.mark.parametrize("budget", [16 * 1000 + 1, 16 * 1000 + 2, 16 * 2**40 + 15, 2**63 - 1])
def test_a_small_block_that_leaves_exactly_its_size_is_no_large_fit(budget: int) -> None:
    # Keys are shifted by R + 1 so that a small block's key stays above the bound
    # c - (R + 1) < 0.  Shifted by R only, a small block j with size_j + S_j == R
    # (S_j counting j itself) has key 0 == c - R and is taken for a large fit: its
    # size is then counted twice.
    tau = budget // 16
    rest = budget - 16 * tau
    head = [tau] * 14 + ([rest] if rest else []) + [tau]
    too_large = [min(budget + 1, INT64_MAX)] * 1200
    assert_same(budget, head + too_large + [1] * 1200)
    assert_same(budget, head + [1] + too_large + [max(1, tau // 2)] * 1200)


@pytest.mark.parametrize("where", [0, 1, 1023, 1024, 1025, 3071, 3072, 3073, 3074, 4095])
def test_a_large_block_that_fits_is_found_on_every_search_step_edge(where: int) -> None:
    # Half the blocks fit (1s between too-large ones), so the chunk takes a NumPy level,
    # and its one fitting large block is searched for in doubling steps from 1,024:
    # on a step's first or last position it must still be found.
    budget = 10**9
    sizes = [1 if i % 2 == 0 else budget + 1 for i in range(12_000)]
    sizes[where] = budget // 2
    assert_same(budget, sizes)
    sizes[where + 1] = budget // 3
    assert_same(budget, sizes)


@pytest.mark.parametrize("budget", [1000, 2**40 + 3, 2**62, 2**63 - 2])
def test_a_long_uint64_array_past_int64_under_an_int64_budget(budget: int) -> None:
    # (issue 20, mutation testing) A uint64 array holding values past int64 is clipped
    # to budget + 1 and packed by the kernel as int64: long enough for its NumPy levels,
    # with values around tau = budget // 16, values past int64 and 2**63 - 1 among them.
    rng = np.random.default_rng(budget % 1000)
    n = 20_000
    tau = budget // 16
    sizes = rng.integers(max(1, tau // 2), 2 * tau + 2, n, dtype=np.uint64)
    past = rng.integers(0, n, n // 8)
    sizes[past] = rng.integers(2**63, 2**64 - 1, past.shape[0], dtype=np.uint64, endpoint=True)
    sizes[::997] = 2**63 - 1
    sizes[:64] = 1
    assert sizes.dtype == np.uint64
    assert int(sizes.max()) > 2**63 - 1
    assert_same(budget, sizes.tolist(), sizes)


@pytest.mark.parametrize("tau", [1, 2, 7, 15])
def test_blocks_of_exactly_tau_at_a_level_start_are_small(tau: int) -> None:
    # (issue 20, mutation testing) A remaining from 17 * tau to 16 * tau + 15 holds 17
    # blocks of tau = R // 16 in one level: as small blocks they go by one cumulative
    # sum, and a scan that took them for large ones (each a round of its search) would
    # keep more large blocks than a level can (raising KernelError at its bound).
    for budget in (17 * tau, 16 * tau + 15):
        assert budget // 16 == tau
        assert_same(budget, [tau] * 17 + [tau, tau + 1] * 2100)
        assert_same(budget, [tau] * 40 + [tau + 1] * 4200)


@pytest.mark.parametrize("below", [0, 7, 15])
def test_small_sums_passing_2_63_just_after_a_level_end_are_cut_before_it(below: int) -> None:
    # (issue 20, mutation testing) From a remaining within 16 of 2**63 - 1, blocks of
    # tau (or just under) after a few unit blocks: the level ends one or two blocks
    # before their sums pass 2**63.  The level's end is a binary search on those sums;
    # one wrapped sum kept past the cut (it reads negative) sends that search past the
    # level's end on some of the lead lengths.
    budget = INT64_MAX - below
    tau = budget // 16
    for lead in range(24):
        for size in (tau, tau - 1, tau - 3, tau - tau // 64):
            sizes = [1] * lead + [size] * 18 + [tau + 1, tau, 1] * 1000
            assert_same(budget, sizes)


@pytest.mark.parametrize(
    ("budget", "sizes"),
    [
        # A two-block tail past int64 that does not fit whole, after a first chunk kept.
        (4096 + 2**63 + 5, [1] * 4096 + [2**62 + 7, 2**63 - 1]),
        # A small remaining used up early in a 65,536-block chunk of unit blocks: the
        # search for a fitting block runs on to the chunk's end.
        (61_440 + 3, [1] * (61_440 + 65_536)),
        # Half the blocks fit and every chunk is a level scan's (issue 28).
        (2**17, [1, 2**18] * 65_537),
    ],
    ids=["int64-tail", "used-up", "cut-over"],
)
def test_the_kernel_paths_verify_probes_give_the_reference_answer(
    budget: int, sizes: list[int]
) -> None:
    assert_same(budget, sizes)
