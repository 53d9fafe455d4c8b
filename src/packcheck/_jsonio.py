"""Strict JSON in, compact ASCII JSON out, exact numbers both ways.

Reading: ``NaN``/``Infinity`` literals are rejected (they are not JSON), fractions
arrive as :class:`~decimal.Decimal` so integrality is decided on the written value,
not a rounded double, and a number longer than :data:`~packcheck._units.MAX_DIGITS`
digits is refused before it is converted.  Writing: non-ASCII is escaped, so lone
surrogates survive as ``\\udXXX`` escapes, and integers of any length are printed.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from ._units import MAX_DIGITS, NumberTooLarge

__all__ = ["JSONError", "dumps", "loads", "same_json"]


class JSONError(ValueError):
    """Text that is not strict JSON; the message is one line."""


def _parse_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_DIGITS:
        raise NumberTooLarge(digits)
    # int(str) refuses more than 4300 digits (CPython's DoS guard); Decimal does not,
    # and the length is already bounded above.
    return int(text) if digits <= 4000 else int(Decimal(text))


def _parse_float(text: str) -> Decimal:
    value = Decimal(text)
    if value.is_finite() and value.adjusted() >= MAX_DIGITS:
        raise NumberTooLarge(value.adjusted() + 1)
    return value


def _reject_constant(name: str) -> Any:
    raise JSONError(f"{name} is not valid JSON")


def loads(text: str) -> Any:
    """Parse one JSON document strictly; raise :class:`JSONError` with a one-line reason."""
    try:
        return json.loads(
            text,
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_reject_constant,
        )
    except json.JSONDecodeError as exc:
        raise JSONError(f"invalid JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise JSONError("invalid JSON: nesting too deep") from None
    except NumberTooLarge as exc:
        raise JSONError(str(exc)) from None


def _exact(value: Any) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        # str(int) refuses more than 4300 digits; Decimal prints any length.
        return str(Decimal(value))
    if isinstance(value, dict):
        items = (f"{json.dumps(str(key))}:{_exact(item)}" for key, item in value.items())
        return "{" + ",".join(items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_exact(item) for item in value) + "]"
    return json.dumps(value)


def dumps(value: Any) -> str:
    """Compact, key-order-preserving, ASCII-only JSON for results and error records.

    Integers of any length are written exactly (the slow exact writer runs only when
    one exceeds CPython's 4300-digit ``str(int)`` guard).
    """
    try:
        return json.dumps(value, separators=(",", ":"))
    except ValueError:
        return _exact(value)


def same_json(left: Any, right: Any) -> bool:
    """Equal as JSON values: numbers by value (``0 == 0.0``), but ``true`` is not ``1``.

    Python's ``==`` says ``True == 1`` and ``[1] != (1,)``; JSON says the opposite.
    Object key order does not matter; array order does.
    """
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float | Decimal) and isinstance(right, int | float | Decimal):
        return bool(left == right)
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same_json(left[k], right[k]) for k in left)
    if isinstance(left, list | tuple) and isinstance(right, list | tuple):
        return len(left) == len(right) and all(map(same_json, left, right))
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    return left is None and right is None
