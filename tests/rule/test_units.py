"""What counts as a unit: the declared evaluator's integer test, made exact."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

from packcheck._rule.units import MAX_DIGITS, NumberTooLarge, as_unit


@pytest.mark.parametrize(
    ("value", "unit"),
    [
        (4, 4),
        (0, 0),
        (-3, -3),
        (4.0, 4),
        (-0.0, 0),
        (Decimal("4.0"), 4),
        (Decimal("4"), 4),
        (Decimal("1.5E+3"), 1500),
        (Decimal("0E+999999999"), 0),
        (2**70, 2**70),
    ],
)
def test_integral_numbers_are_units(value: object, unit: int) -> None:
    got = as_unit(value)
    assert got == unit
    assert type(got) is int


@pytest.mark.parametrize(
    "value",
    [
        2.5,
        Decimal("2.5"),
        # Not an integer although a double would round it to 4.0.
        Decimal("4.0000000000000000001"),
        Decimal("1E-999999999"),
        True,
        False,
        None,
        "4",
        [],
        {},
        float("nan"),
        float("inf"),
        float("-inf"),
        Decimal("NaN"),
        Decimal("Infinity"),
        Decimal("-Infinity"),
    ],
)
def test_everything_else_is_not_a_unit(value: object) -> None:
    assert as_unit(value) is None


def test_an_int_subclass_other_than_bool_is_read_as_its_value() -> None:
    class Units(int):
        pass

    got = as_unit(Units(7))
    assert got == 7
    assert type(got) is int


@pytest.mark.parametrize(
    ("value", "unit"),
    [
        (np.int64(3), 3),
        (np.uint64(2**64 - 1), 2**64 - 1),
        (np.int8(-2), -2),
        (np.float64(4.0), 4),
        (np.float32(4.0), 4),
        (Fraction(6, 2), 3),
        (np.float32(2.5), None),
        (np.float64("nan"), None),
        (Fraction(5, 2), None),
        (np.bool_(True), None),
    ],
)
def test_other_python_numbers_are_read_by_value(value: object, unit: int | None) -> None:
    # np.int64(3) was no unit while np.float64(3.0) was one: a case built from a
    # NumPy array's items got {"error": "size"}.
    got = as_unit(value)
    assert got == unit
    assert unit is None or type(got) is int


def test_a_decimal_integer_longer_than_the_limit_is_refused_before_it_is_built() -> None:
    at_limit = Decimal(f"1E+{MAX_DIGITS - 1}")
    assert as_unit(at_limit) == 10 ** (MAX_DIGITS - 1)
    with pytest.raises(NumberTooLarge, match=f"{MAX_DIGITS + 1} digits; the limit is"):
        as_unit(Decimal(f"1E+{MAX_DIGITS}"))
