"""What counts as a unit: a number whose value is an integer (``4`` and ``4.0``; not
``2.5``, a boolean or a string), tested exactly."""

from __future__ import annotations

import math
import numbers
import operator
from decimal import Decimal

#: The most decimal digits packcheck reads in one number: ``int(text)`` is quadratic.
MAX_DIGITS = 100_000


class NumberTooLarge(ValueError):
    """A number has more than :data:`MAX_DIGITS` digits."""

    def __init__(self, digits: int) -> None:
        super().__init__(f"number has {digits} digits; the limit is {MAX_DIGITS}")


def as_unit(value: object) -> int | None:
    """``value`` as an exact ``int`` if it is a unit, else ``None``; :class:`NumberTooLarge`
    past :data:`MAX_DIGITS` digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value.is_integer() else None
    if isinstance(value, Decimal):
        if not value.is_finite() or value != value.to_integral_value():
            return None
        # Zero is exempt: 0E+999999999 is written short and is exactly 0.
        if value and value.adjusted() >= MAX_DIGITS:
            raise NumberTooLarge(value.adjusted() + 1)
        return int(value)
    # Other Python numbers by value, as JSON would write them: NumPy integers (not
    # NumPy's bool, which is no Integral) and floats, fractions.
    if isinstance(value, numbers.Integral):
        return operator.index(value)
    if isinstance(value, numbers.Rational):
        return int(value.numerator) if value.denominator == 1 else None
    if isinstance(value, numbers.Real):
        return as_unit(float(value))
    return None
