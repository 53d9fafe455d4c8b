"""packcheck.compiled: the reference's loop compiled by Numba, same answers as the scan.

The loops are checked twice: as plain Python (what coverage traces, and what the hand
mutants in ``docs/mutation/hand_mutants.py --compiled`` edit) and compiled.  Skipped,
with a reason, where the ``numba`` extra is not installed; what happens without it is
checked by hiding it.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from _scan_check import HAVE_NUMBA, NO_NUMBA, assert_same

from packcheck import compiled, pack, pack_many, reference, scan, trace
from packcheck._cli import main
from packcheck._engines import compiled as _compiled
from packcheck._engines.choice import kept_flags

pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason=NO_NUMBA)

INT64_MAX = 2**63 - 1
ORDERS = [
    (7, [4, 3, 2, 1]),
    (10, [5, 6, 5, 1, 4]),
    (5, [6, 5, 1]),
    (0, [1, 1]),
    (3, [3]),
    (INT64_MAX, [INT64_MAX, 1]),
    (INT64_MAX - 1, [INT64_MAX, INT64_MAX - 1, 1]),
    (100, [1, 100, 1, 99, 1, 98, 1, 97] * 3),
]


@pytest.mark.parametrize(("budget", "sizes"), ORDERS)
def test_the_plain_loops_are_the_reference(budget: int, sizes: list[int]) -> None:
    values = np.array(sizes, dtype=np.int64)
    kept = np.zeros(len(sizes), dtype=np.bool_)
    remaining = _compiled.scan_loop(np.int64(budget), values, kept)
    assert (kept.tolist(), int(remaining)) == reference.pack_sizes(budget, sizes)
    # Three cases back to back: each starts from its own budget.
    batch = np.array([budget, budget // 2, budget], dtype=np.int64)
    offsets = np.array([0, len(sizes), 2 * len(sizes), 3 * len(sizes)], dtype=np.intp)
    kept = np.zeros(3 * len(sizes), dtype=np.bool_)
    left = np.empty(3, dtype=np.int64)
    _compiled.batch_loop(batch, np.concatenate([values] * 3), offsets, kept, left)
    for case in range(3):
        mask, expected = reference.pack_sizes(int(batch[case]), sizes)
        assert kept[case * len(sizes) : (case + 1) * len(sizes)].tolist() == mask
        assert int(left[case]) == expected


def test_the_plain_loops_stop_at_a_size_below_1_that_fits() -> None:
    # Only such a block could raise the remaining (and overflow): the loop says so.
    values = np.array([2, 0, 9, -4, 1], dtype=np.int64)
    kept = np.zeros(5, dtype=np.bool_)
    assert _compiled.scan_loop(np.int64(5), values, kept) == -1
    assert _compiled.scan_loop(np.int64(1), values[2:3], kept[:1]) == 1  # 9 never fits
    budgets = np.array([1, 5, -3], dtype=np.int64)
    offsets = np.array([0, 1, 3, 5], dtype=np.intp)
    left = np.empty(3, dtype=np.int64)
    assert _compiled.batch_loop(budgets, values, offsets, kept, left) == 1
    # A negative budget keeps nothing, sizes of 0 included, unless a size below it comes.
    budgets = np.array([-3, -3], dtype=np.int64)
    offsets = np.array([0, 2, 5], dtype=np.intp)
    values = np.array([0, 5, 1, -3, 2], dtype=np.int64)
    kept = np.zeros(5, dtype=np.bool_)
    assert _compiled.batch_loop(budgets, values, offsets, kept, left) == 1
    assert left[0] == -3
    assert not kept.any()


def test_what_is_compiled_is_the_plain_loops() -> None:
    scan_kernel, batch_kernel = _compiled.kernels()
    assert scan_kernel.py_func is _compiled.scan_loop
    assert batch_kernel.py_func is _compiled.batch_loop
    assert _compiled.kernels() == (scan_kernel, batch_kernel)  # compiled once


@pytest.mark.parametrize(("budget", "sizes"), ORDERS)
def test_pack_sizes_is_the_reference_at_any_length(budget: int, sizes: list[int]) -> None:
    assert_same(budget, sizes, engine="numba")
    # Long enough for the NumPy kernel's levels: the same answers as scan's.
    long = sizes * (5000 // len(sizes) + 1)
    assert_same(budget, long, engine="numba")
    kept, remaining = compiled.pack_sizes(budget, long)
    expected = scan.pack_sizes(budget, long)
    assert (kept.tolist(), remaining) == (expected[0].tolist(), expected[1])


@pytest.mark.parametrize(
    ("budget", "sizes", "dtype"),
    [
        (2**64 + 3, [2**62, 2**62, 2**62, 2**62, 5, 1], np.int64),  # a budget past int64
        (2**63, [2**62, 2**62, 1], np.int64),  # just past it
        (10, [2**70, 3, 2**64, 7], object),  # sizes past int64, clipped
        (INT64_MAX, [2**70, 3, 2**64], object),  # not even clipped: exact ints
        (5, [0, -1, 7, 6], np.int64),  # sizes below 1: outside the contract
        (5, [0, -1, 7, 6], np.int32),
        (5, [9, 0], np.int64),  # a size below 1 kept last
        (-3, [1, -2, 4], np.int64),  # a negative budget
        (-3, [1, -4, 4], np.int64),  # a negative budget, and a size below it
        (INT64_MAX, [-5], np.int64),  # past int64 only by a size below 1
        (2**62, [2**64 - 1, 5, 2**63], np.uint64),
        (9, [4.0, 5.0, 1.0], np.float64),
        (9, [], np.int64),
    ],
)
def test_inputs_outside_the_loop_are_answered_exactly(
    budget: int, sizes: list[int], dtype: Any
) -> None:
    assert_same(budget, sizes, np.array(sizes, dtype=dtype), engine="numba")


@pytest.mark.parametrize(
    ("budget", "sizes", "error"),
    [
        (True, [1], TypeError),
        (1.5, [1], TypeError),
        (5, [2.5], ValueError),
        (5, [[1, 2]], ValueError),
        (5, np.array([True]), TypeError),
        (5, np.array(["1"]), TypeError),
        (5, np.array([1, "x"], dtype=object), TypeError),
    ],
)
def test_pack_sizes_refuses_what_scan_refuses(budget: Any, sizes: Any, error: type) -> None:
    with pytest.raises(error):
        scan.pack_sizes(budget, sizes)
    with pytest.raises(error):
        compiled.pack_sizes(budget, sizes)


def test_pack_batch_is_scans_answer() -> None:
    rng = np.random.default_rng(3)
    lengths = rng.integers(0, 200, 500)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    sizes = rng.integers(1, 1000, int(offsets[-1]), dtype=np.int64)
    budgets = rng.integers(-5, 60_000, 500, dtype=np.int64)
    budgets[:3] = [0, INT64_MAX, -1]
    before = sizes.copy()
    kept, remaining = compiled.pack_batch(budgets, sizes, offsets)
    expected = scan.pack_batch(budgets, sizes, offsets)
    assert kept.dtype == np.bool_
    assert remaining.dtype == np.int64
    assert np.array_equal(kept, expected[0])
    assert np.array_equal(remaining, expected[1])
    assert np.array_equal(sizes, before)
    for case in (0, 1, 2, 499):
        lo, hi = int(offsets[case]), int(offsets[case + 1])
        mask, left = reference.pack_sizes(int(budgets[case]), sizes[lo:hi].tolist())
        assert kept[lo:hi].tolist() == mask
        assert int(remaining[case]) == left


@pytest.mark.parametrize("dtype", [np.int64, np.int32, object])
def test_pack_batch_outside_the_contract_and_past_int64(dtype: Any) -> None:
    # An int64 array goes to the loop as it is, which stops at the first size below 1
    # that fits; then every case is answered exactly.
    sizes = np.array([0, 6, 1, 1, 2, 2, -2, 4], dtype=dtype)
    kept, remaining = compiled.pack_batch([5, -1, 3], sizes, [0, 3, 5, 8])
    assert kept.tolist() == [True, False, True, False, False, True, True, False]
    assert remaining.tolist() == [4, -1, 3]
    with pytest.raises(ValueError, match="does not fit int64"):
        compiled.pack_batch([INT64_MAX], np.array([-5], dtype=dtype), [0, 1])
    sizes = np.array([2**70, 3, 2**64, 1, 5, 2**63], dtype=object)
    kept, remaining = compiled.pack_batch([INT64_MAX, 5], sizes, [0, 4, 6])
    assert kept.tolist() == [False, True, False, True, True, False]
    assert remaining.tolist() == [INT64_MAX - 4, 0]
    assert compiled.pack_batch([], [], [0])[1].shape == (0,)


@pytest.mark.parametrize(
    ("budgets", "sizes", "offsets", "error"),
    [
        ([True], [1], [0, 1], TypeError),
        ([2**64], [1], [0, 1], ValueError),
        ([1], [2.5], [0, 1], ValueError),
        ([1], [1], [0, 1, 1], ValueError),
        ([1], [1], [0.0, 1.0], TypeError),
        ([2**63 - 1], [-5], [0, 1], ValueError),  # a remaining past int64
    ],
)
def test_pack_batch_refuses_what_scan_refuses(
    budgets: Any, sizes: Any, offsets: Any, error: type
) -> None:
    with pytest.raises(error):
        scan.pack_batch(budgets, sizes, offsets)
    with pytest.raises(error):
        compiled.pack_batch(budgets, sizes, offsets)


def test_the_numba_engine_answers_cases_calls_and_traces() -> None:
    case = {"budget": 7, "blocks": [{"id": i, "size": 3} for i in "ABC"], "required": ["C"]}
    assert pack(case, engine="numba") == pack(case)
    assert pack_many([case, case], engine="numba") == [pack(case)] * 2
    assert trace(case, engine="numba") == trace(case)
    sizes = [5, 3, 9, 1] * 5000  # past the crossover: the compiled loop
    mask, remaining = kept_flags(20_000, sizes, "numba")
    assert (list(map(bool, mask)), remaining) == kept_flags(20_000, sizes, "reference")
    decimal = {"budget": 4.0, "blocks": [{"id": "A", "size": 4.0}], "required": []}
    assert pack(decimal, engine="numba") == pack(decimal)


@pytest.fixture
def no_numba(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the extra were not installed: ``import numba`` fails, nothing compiled yet."""
    monkeypatch.setitem(sys.modules, "numba", None)
    monkeypatch.setattr(_compiled, "_compiled", None)


@pytest.mark.usefixtures("no_numba")
def test_without_the_extra_a_call_names_it() -> None:
    message = "the compiled engine needs Numba: pip install 'packcheck[numba]'"
    assert message == compiled.MISSING
    for call in (
        lambda: compiled.pack_sizes(3, [1, 2]),
        lambda: compiled.pack_batch([3], [1, 2], [0, 2]),
        lambda: pack({"budget": 1, "blocks": [], "required": []}, engine="numba"),
        lambda: pack_many([], engine="numba"),
    ):
        with pytest.raises(ImportError, match=r"^the compiled engine needs Numba: pip install"):
            call()


@pytest.mark.usefixtures("no_numba")
@pytest.mark.parametrize("command", ["pack", "fixtures"])
def test_without_the_extra_the_cli_says_so_in_one_line(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([command, "--engine", "numba", "-"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"packcheck {command}: error: --engine: {compiled.MISSING}\n"


def test_importing_packcheck_does_not_import_numba() -> None:
    code = (
        "import sys, packcheck, packcheck.compiled, packcheck.scan, packcheck._cli\n"
        "assert 'numba' not in sys.modules, 'numba imported'\n"
        "packcheck.compiled.pack_sizes(3, [1, 2])\n"
        "assert 'numba' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
