"""How sizes become the kernel's int64 input, or stay exact Python ints."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from packcheck._engines.sizes import (
    INT64_MAX,
    KernelInput,
    budget_of,
    from_array,
    from_ints,
    unit_of,
)


def test_plain_ints_become_int64_with_their_minimum() -> None:
    read = from_ints(10, [3, 1, 4])
    assert isinstance(read, KernelInput)
    assert read.values.dtype == np.int64
    assert read.values.tolist() == [3, 1, 4]
    assert read.smallest == 1


def test_sizes_past_int64_are_clipped_to_budget_plus_one_or_kept_exact() -> None:
    read = from_ints(5, [2**70, 2, 2**64])
    assert isinstance(read, KernelInput)
    assert read.values.tolist() == [6, 2, 6]
    # No int64 holds budget + 1: the exact ints go to the reference.
    assert from_ints(INT64_MAX, [2**70, 2]) == [2**70, 2]
    assert from_array(INT64_MAX, np.array([2**64 - 1, 2], dtype=np.uint64)) == [2**64 - 1, 2]


def test_outside_the_contract_the_sizes_stay_exact() -> None:
    assert from_ints(-1, [1, 2]) == [1, 2]
    assert from_array(3, np.array([0, 4], dtype=np.int32)) == [0, 4]
    assert from_array(3, np.array([2.0, -1.0])) == [2, -1]


def test_a_list_mixing_negative_and_huge_integers_is_never_rounded() -> None:
    # np.asarray reads [-1, 2**63 + 1] as float64, where 2**63 + 1 becomes 2**63.
    assert from_array(5, [-1, 2**63 + 1, 3]) == [-1, 2**63 + 1, 3]
    read = from_array(5, [4.0, 3.0])
    assert isinstance(read, KernelInput)
    assert read.values.tolist() == [4, 3]


def test_floats_past_2_53_stay_exact() -> None:
    big = 2.0**60
    assert from_array(2**61, np.array([big, 1.0])) == [2**60, 1]


def test_empty_sizes_are_kernel_input() -> None:
    read = from_array(0, np.array([], dtype=np.uint64))
    assert isinstance(read, KernelInput)
    assert read.values.shape == (0,)


@pytest.mark.parametrize(
    ("value", "unit"),
    [(4, 4), (4.0, 4), (np.int64(3), 3), (Fraction(6, 3), 2), (Decimal("5.0"), 5)],
)
def test_whole_numbers_of_any_type_are_units(value: object, unit: int) -> None:
    got = unit_of(value)
    assert got == unit
    assert type(got) is int


@pytest.mark.parametrize("value", [True, np.True_, "4", None, 1j])
def test_non_numbers_are_type_errors(value: object) -> None:
    with pytest.raises(TypeError, match="numbers"):
        unit_of(value)


@pytest.mark.parametrize("value", [2.5, float("nan"), Fraction(5, 2), Decimal("2.5")])
def test_fractions_are_value_errors(value: object) -> None:
    with pytest.raises(ValueError, match="integral"):
        unit_of(value)


def test_a_bool_budget_is_refused() -> None:
    assert budget_of(np.int64(7)) == 7
    with pytest.raises(TypeError, match="bool"):
        budget_of(True)


@pytest.mark.parametrize(
    "sizes",
    [
        np.array([3, 1, 4], dtype=np.int32),
        np.array([3, 1, 4], dtype=np.uint16),
        np.array([3, 1, 4], dtype=np.uint64),
        np.array([3, 2**64 - 1, 4], dtype=np.uint64),
        np.array([3.0, 1.0, 4.0]),
        np.array([3, 1, 4], dtype=object),
        np.array([3, 2**70, 4], dtype=object),
        [3, 1, 4],
    ],
)
def test_kernel_input_is_int64_whatever_the_input_dtype(sizes: object) -> None:
    # (issue 20, mutation testing) The kernel's arithmetic (sign shifts, uint64 views,
    # shifted keys) is int64 arithmetic: a uint64 or int32 array must not reach it as is.
    read = from_array(10, sizes)  # type: ignore[arg-type]
    assert isinstance(read, KernelInput)
    assert read.values.dtype == np.int64
    assert read.values.tolist() == [min(int(size), 11) for size in np.asarray(sizes).tolist()]
    assert read.smallest == int(read.values.min())
