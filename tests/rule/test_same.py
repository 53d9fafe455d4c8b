"""``packcheck._rule.same``: the one comparison of answers, exact or as JSON values."""

from __future__ import annotations

import math
from collections import OrderedDict
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from packcheck import diff
from packcheck._rule.same import same


class _Str(str):
    """Equal to a ``str``, but not one."""


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        ({"kept": ["A"], "remaining": 0}, {"remaining": 0, "kept": ["A"]}, True),
        ({"kept": ["A"]}, {"kept": ["B"]}, False),
        ({"kept": ["A"]}, {"kept": ["A"], "x": 1}, False),
        ([1, 2], [1, 2], True),
        ([1, 2], [1, 2, 3], False),
        ([1], (1,), False),
        ((1, "A"), (1, "A"), True),
        (0, 0.0, False),
        (1, True, False),
        (0.5, 0.5, True),
        (math.nan, math.nan, True),
        (0.5, 0.25, False),
        ("\U0001f600", "\ud83d\ude00", True),
        ("A", "B", False),
        (None, None, True),
        (2**70, 2**70, True),
        (Decimal("4.0"), Decimal("4.00"), True),
        (Decimal("4.5"), Decimal("4"), False),
        # A command's number as read, against a Python packer's float of that value.
        (1.0, Decimal("1.0"), True),
        (0.0, Decimal("0.0"), True),
        (1.1, Decimal("1.1"), True),
        (1e300, Decimal("1E+300"), True),
        (1.1, Decimal("1.10000000000000009"), False),
        (1.0, Decimal("1.5"), False),
        (math.inf, Decimal("Infinity"), False),
        (1, Decimal("1.0"), False),
        ({"remaining": 1.0}, {"remaining": Decimal("1.0")}, True),
        (np.int64(3), np.int64(3), True),
        (np.int64(3), np.int64(4), False),
        (np.array([1, 2]), np.array([1, 2]), True),
        (np.array([1, 2]), np.array([1, 3]), False),
        # Any dict is an object: its class is not in its JSON.
        (OrderedDict(kept=["A"]), {"kept": ["A"]}, True),
        # Both sides' types count, each list's entries whatever the other's are.
        (["B", "C"], ["B", _Str("C")], False),
        (["B", _Str("C")], ["B", _Str("C")], True),
        ([1], [1.0], False),
        ([True], [1], False),
        (["\U0001f600", "A"], ["\ud83d\ude00", "A"], True),
        (["\ud83d", "A"], ["\U0001f600", "A"], False),
    ],
)
def test_answers_are_the_same_with_exact_types(left: Any, right: Any, expected: bool) -> None:
    assert same(left, right) is expected
    assert same(right, left) is expected


@pytest.mark.parametrize(
    ("left", "right", "expected"),
    [
        (4, 4.0, True),
        (4, Decimal("4.0"), True),
        ({"remaining": 4.0, "kept": ["A"]}, {"remaining": 4, "kept": ["A"]}, True),
        ([1, 2.0], [1.0, 2], True),
        (4, 4.5, False),
        (1, True, False),
        (0, None, False),
        (math.nan, 0, False),
        ({"remaining": 4.0}, {"remaining": 5}, False),
        (0, 0.0, True),
        (True, True, True),
        (False, 0, False),
        ([1], (1,), True),
        ([1], [1, 2], False),
        ({"a": 1, "b": [2]}, {"b": [2], "a": 1}, True),
        ({"a": 1}, {"a": 2}, False),
        ({"a": 1}, {"b": 1}, False),
        ("a", "a", True),
        ("a", "b", False),
        (None, None, True),
        (None, 0, False),
        ("1", 1, False),
        ({}, [], False),
        # Numbers by their JSON text's value; NaN is NaN; float subclasses are floats.
        (0.1, Decimal("0.1"), True),
        (math.nan, math.nan, True),
        (math.inf, math.inf, True),
        (np.float64(4.0), 4, True),
        (np.int64(3), np.int64(3), True),
        ((1, "A"), ["1", "A"], False),
    ],
)
def test_as_json_values_numbers_compare_by_value(left: Any, right: Any, expected: bool) -> None:
    assert same(left, right, json=True) is expected
    assert same(right, left, json=True) is expected
    # Exact, the types still count.
    if expected and type(left) is not type(right) and not isinstance(left, dict):
        assert not same(left, right) or {type(left), type(right)} == {float, Decimal}


def test_diff_s_same_answer_is_the_one_comparison() -> None:
    assert diff.same_answer is same
