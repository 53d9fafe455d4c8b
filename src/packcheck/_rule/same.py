"""When two answers are the same: one comparison for verify, diff, audit and fixtures."""

from __future__ import annotations

import math
from decimal import Decimal
from operator import countOf

from .order import all_same_utf16, same_utf16

__all__ = ["same"]


def same(left: object, right: object, *, json: bool = False) -> bool:
    """Whether ``left`` and ``right`` are the same answer.

    Exact (the default): the same types at every level (``0`` is not ``0.0``), but a
    ``float`` is the ``Decimal`` its shortest repr spells and any ``dict`` is a dict.
    With ``json``: numbers by value, a tuple is a list.  Either way strings compare as
    JSON text (a surrogate pair is its character) and ``NaN`` is ``NaN``.  O(n).
    """
    if type(left) is list and type(right) is list:
        if len(left) != len(right):
            return False
        size = len(left)
        if countOf(map(type, left), str) == size == countOf(map(type, right), str):
            return left == right or all_same_utf16(left) == all_same_utf16(right)
        return all(same(one, other, json=json) for one, other in zip(left, right, strict=True))
    if json:
        number = _number(left)
        if number is not None and number == _number(right):
            return True
        if isinstance(left, list | tuple) and isinstance(right, list | tuple):
            return len(left) == len(right) and all(
                same(one, other, json=True) for one, other in zip(left, right, strict=True)
            )
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k], json=json) for k in left)
    if type(left) is not type(right):
        return _same_json_number(left, right)
    if isinstance(left, list | tuple):
        assert isinstance(right, list | tuple)
        return len(left) == len(right) and all(
            same(one, other, json=json) for one, other in zip(left, right, strict=True)
        )
    if isinstance(left, str):
        assert isinstance(right, str)
        return left == right or same_utf16(left) == same_utf16(right)
    if isinstance(left, float) and isinstance(right, float):
        return left == right or (math.isnan(left) and math.isnan(right))
    try:
        return bool(left == right)
    except (TypeError, ValueError):  # an array's == is an array: compare what it shows
        return repr(left) == repr(right)


def _number(value: object) -> Decimal | None:
    """A finite JSON number's value, else ``None``."""
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(float(value))) if math.isfinite(value) else None
    if type(value) is Decimal and value.is_finite():
        return value
    return None


def _same_json_number(left: object, right: object) -> bool:
    """A finite ``float`` and a ``Decimal`` of the same value as JSON numbers."""
    if type(left) is Decimal and type(right) is float:
        left, right = right, left
    if type(left) is not float or type(right) is not Decimal or not math.isfinite(left):
        return False
    return right.is_finite() and Decimal(repr(left)) == right
