"""scan.pack_batch: many cases in one call, each answered as the reference answers it alone."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from packcheck import reference
from packcheck._engines import batch as _batch
from packcheck._engines import numpy_entry as scan


def assert_batch_same(
    budgets: list[int], cases: list[list[int]], sizes: npt.ArrayLike | None = None
) -> None:
    """pack_batch equals the reference on every case alone; its inputs are untouched."""
    offsets = np.cumsum([0, *map(len, cases)])
    flat = np.array([s for case in cases for s in case], dtype=np.int64) if sizes is None else sizes
    given = np.asarray(flat)
    before = given.copy()
    kept, remaining = scan.pack_batch(np.array(budgets, dtype=np.int64), given, offsets)
    assert kept.dtype == np.bool_
    assert remaining.dtype == np.int64
    assert kept.shape == (int(offsets[-1]),)
    assert remaining.shape == (len(cases),)
    for i, (budget, case) in enumerate(zip(budgets, cases, strict=True)):
        mask, left = reference.pack_sizes(budget, case)
        assert kept[offsets[i] : offsets[i + 1]].tolist() == mask, i
        assert int(remaining[i]) == left, i
    assert np.array_equal(given, before)


def _random_cases(
    seed: int, count: int, top: int, most: int = 200
) -> tuple[list[int], list[list[int]]]:
    rng = random.Random(seed)
    cases = [[rng.randint(1, top) for _ in range(rng.randint(0, most))] for _ in range(count)]
    budgets = [rng.randint(0, sum(case) + 1) for case in cases]
    return budgets, cases


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("top", [2, 100, 10**6, 2**40])
def test_random_batches_equal_the_reference_case_by_case(seed: int, top: int) -> None:
    assert_batch_same(*_random_cases(seed, 700, top))


def test_a_batch_bigger_than_one_group_equals_the_reference() -> None:
    # About 3 groups of 65,536 blocks, so cases straddle the group edges.
    assert_batch_same(*_random_cases(9, 2000, 100))


def test_empty_batches_and_empty_cases() -> None:
    assert_batch_same([], [])
    assert_batch_same([5, 0, 3], [[], [1], []])


def test_long_cases_go_through_the_kernel_and_short_ones_still_batch() -> None:
    budgets, cases = _random_cases(3, 50, 100)
    long = [random.Random(1).randint(1, 100) for _ in range(scan._BATCH_LONG + 1)]
    assert_batch_same([*budgets, sum(long) // 2, 7], [*cases, long, [3, 4, 5]])


def test_rounds_stop_at_their_bound_and_the_loop_finishes(monkeypatch: pytest.MonkeyPatch) -> None:
    # 1, B, 1, B-1, ...: every round decides two blocks per case.
    monkeypatch.setattr(_batch, "_ROUNDS", 3)
    monkeypatch.setattr(_batch, "_PYTHON_BELOW", 1)
    case = [1, 100, 1, 99, 1, 98, 1, 97, 1, 96] * 20
    assert_batch_same([100] * 300, [case] * 300)


def test_sums_that_could_wrap_int64_finish_exactly() -> None:
    big = 2**62
    cases = [[big, big, 1, big - 1, 3]] * 400
    assert_batch_same([2**63 - 1, 2**62 + 5] * 200, cases)


def test_outside_the_contract_every_case_is_answered_by_the_reference() -> None:
    assert_batch_same([5, -1, 3], [[0, 6, 1], [1, 2], [2, -2, 4]])
    # A remaining that reaches INT64_MAX exactly still has its int64 slot.
    assert_batch_same([2**63 - 6, 2], [[-5], [-1, 3]])
    assert_batch_same([-1, 4] * 300, [[1, 2, 3], [3, 2, 1]] * 300)


def test_sizes_past_int64_are_clipped_or_answered_exactly() -> None:
    cases = [[2**70, 3, 2**64, 1], [5, 2**63]]
    flat = np.array([s for case in cases for s in case], dtype=object)
    assert_batch_same([10, 2**62], cases, flat)
    assert_batch_same([2**63 - 1, 5], cases, flat)


@pytest.mark.parametrize(
    ("budgets", "sizes", "offsets", "error"),
    [
        ([True], [1], [0, 1], TypeError),
        ([1.5], [1], [0, 1], TypeError),
        ([2**64], [1], [0, 1], ValueError),
        ([[1]], [1], [0, 1], ValueError),
        ([1], [2.5], [0, 1], ValueError),
        ([1], ["1"], [0, 1], TypeError),
        ([1], [1], [0.0, 1.0], TypeError),
        ([1], [1], [0, 1, 1], ValueError),
        ([1], [1, 2], [0, 1], ValueError),
        ([1, 1], [1, 2], [0, 2, 1], ValueError),
        ([1], [1], [1, 1], ValueError),
        # (issue 20) A remaining past int64 has no int64 slot: the contract's ValueError,
        # never a bare OverflowError.
        ([2**63 - 1], [-5], [0, 1], ValueError),
        ([3, 2**63 - 2], [1, 0, -2, -1], [0, 1, 4], ValueError),
    ],
)
def test_bad_inputs_are_refused(budgets: Any, sizes: Any, offsets: Any, error: type) -> None:
    with pytest.raises(error):
        scan.pack_batch(budgets, sizes, offsets)


def test_budgets_of_any_integer_type_are_read() -> None:
    kept, remaining = scan.pack_batch([7, np.int64(3)], [4, 3, 2, 4, 2], [0, 3, 5])
    assert kept.tolist() == [True, True, False, False, True]
    assert remaining.tolist() == [0, 1]
    kept, remaining = scan.pack_batch(np.array([7], dtype=np.uint64), [4, 3, 2], [0, 3])
    assert remaining.tolist() == [0]


@pytest.mark.parametrize("where", [0, 1, 2, 3])
def test_a_long_case_at_any_position_goes_through_the_kernel(where: int) -> None:
    # (issue 12, mutation testing) Each long case is sliced from the offsets by its own
    # index, odd or even: bounds[case + 1], not bounds[case | 1].
    long = [1 + (i * 7919) % 1000 for i in range(5000)]
    budgets: list[int] = [10, 3, 8]
    cases: list[list[int]] = [[4, 3, 2], [4, 2], [5, 1, 1, 1, 1, 1]]
    budgets.insert(where, sum(long) // 3)
    cases.insert(where, long)
    assert_batch_same(budgets, cases)


def test_a_group_edge_in_the_last_case_needs_no_extra_group() -> None:
    # (issue 12) 16 cases of 4,095 blocks end at 65,520, so the group edge 65,536 falls
    # in the last case: the groups already end with it (a branch no other test took).
    cases = [[1 + (i * 31 + j) % 97 for j in range(4095)] for i in range(16)] + [[5] * 100]
    assert_batch_same([sum(case) // 2 for case in cases], cases)


@pytest.mark.parametrize("share", [0, 1, 2])
def test_a_group_past_65536_blocks_is_guarded_by_its_own_length(share: int) -> None:
    # (issue 20, mutation testing) One group of 17 cases of 4,090 blocks: 69,530 blocks,
    # more than _GROUP, since a group ends with the case holding its 65,536th block.  Its
    # largest size lies between INT64_MAX // 69,530 and INT64_MAX // 65,536: the group's
    # cumulative sum would pass int64 (so the loop must finish it), though a guard
    # computed for 65,536 blocks would let the rounds run and their sums wrap.
    count, length = 17, 4090
    blocks = count * length
    assert blocks > _batch._GROUP
    top = [_batch._INT64_MAX // blocks + 1, _batch._INT64_MAX // _batch._GROUP][share > 0]
    rng = random.Random(share)
    cases = [
        [top if share < 2 or rng.random() < 0.98 else rng.randint(1, top) for _ in range(length)]
        for _ in range(count)
    ]
    assert max(map(max, cases)) * blocks > _batch._INT64_MAX >= top * _batch._GROUP
    assert sum(map(sum, cases)) > _batch._INT64_MAX
    # The last cases keep all their blocks, or all but a few: their limits lie past 2**63.
    budgets = [rng.randint(sum(case) // 3, sum(case)) for case in cases[:-3]]
    budgets += [sum(case) - rng.choice((0, 1, top)) for case in cases[-3:]]
    assert_batch_same(budgets, cases)
