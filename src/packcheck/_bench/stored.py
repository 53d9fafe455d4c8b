"""A stored report's schema: every field of a baseline checked before a gate reads it
(a NaN would pass every gate), refused with its path (``results[3].seconds``)."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from .._rule.jsonio import show


class StoredError(ValueError):
    def __init__(self, where: str, why: str) -> None:
        super().__init__(f"{where}: {why}")


def mapping(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise StoredError(where, f"{show(value, 40)} is not an object")
    return value


def text(value: Any, where: str, *, optional: bool = False) -> Any:
    """``value`` if it is a string (or, ``optional``, ``None``)."""
    if not (isinstance(value, str) or (optional and value is None)):
        raise StoredError(where, f"{show(value, 40)} is not a string")
    return value


def strings(value: Any, where: str) -> dict[str, str]:
    """An object of strings (the machine and its versions)."""
    for key, item in mapping(value, where).items():
        text(item, f"{where}.{key}")
    return dict(value)


def whole(value: Any, where: str, *, least: int) -> int:
    """An integer ``>= least`` (``true`` is not one)."""
    if type(value) is not int or value < least:
        raise StoredError(where, f"{show(value, 40)} is not an integer >= {least}")
    return value


def number(value: Any, where: str, *, positive: bool = False) -> float:
    """A finite number ``>= 0`` (``> 0`` when ``positive``), as a float."""
    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        point = float(value)
        if math.isfinite(point) and (point > 0 or (point == 0 and not positive)):
            return point
    least = "> 0" if positive else ">= 0"
    raise StoredError(where, f"{show(value, 40)} is not a finite number {least}")


def finite(values: Any, where: str) -> tuple[float, ...]:
    """A list of finite numbers ``>= 0`` (the samples of a cell)."""
    if not isinstance(values, list):
        raise StoredError(where, f"{show(values, 40)} is not a list")
    return tuple(number(item, f"{where}[{i}]") for i, item in enumerate(values))


def interval(
    values: Any, where: str, point: float, *, positive: bool = False
) -> tuple[float, float]:
    """``[low, high]``: two finite numbers with ``low <= point <= high``."""
    if not (isinstance(values, list) and len(values) == 2):
        raise StoredError(where, f"{show(values, 40)} is not a list of two numbers")
    low, high = (number(item, f"{where}[{i}]", positive=positive) for i, item in enumerate(values))
    if not low <= point <= high:
        raise StoredError(where, f"[{low:g}, {high:g}] does not contain its point {point:g}")
    return low, high


def cell(entry: dict[str, Any], at: str) -> tuple[str, str, str, int, int, int, float]:
    """A stored cell's :class:`~._report.Timing` fields, in order."""
    engine, workload, family = (text(entry.get(key), f"{at}.{key}") for key in _NAMES)
    n = whole(entry.get("n"), f"{at}.n", least=1)
    budget = whole(entry.get("budget"), f"{at}.budget", least=0)
    seed = whole(entry.get("seed"), f"{at}.seed", least=0)
    return engine, workload, family, n, budget, seed, number(entry.get("seconds"), f"{at}.seconds")


_NAMES = ("engine", "workload", "family")
