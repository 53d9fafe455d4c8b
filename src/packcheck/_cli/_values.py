"""The types of option values (``64M``, ``1-8``, ``2**70``, ``10%``...), each raising
:class:`argparse.ArgumentTypeError` with a one-line reason."""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable
from typing import TypeVar

from .._rule import limits

#: Seconds a packer under test gets per case unless told (``--timeout``).
DEFAULT_TIMEOUT = 10.0
_N = TypeVar("_N", int, float)
_TERM = r"\d+(?:\*\*\d+)?"
_EXPRESSION = re.compile(rf"{_TERM}(?:[+-]{_TERM})*")
#: The largest ``--max-units`` is ``2**_MAX_BITS``: about 4,200 digits, within what
#: Python (and most JSON readers) will convert between integers and text.
_MAX_BITS = 14_000


def _clip(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:37]}..."


def parse_units(text: str) -> int:
    """``--max-units``: digits or a sum of powers such as ``2**70`` or ``2**53-1``."""
    text = text.replace(" ", "").replace("_", "")
    if not _EXPRESSION.fullmatch(text):
        raise argparse.ArgumentTypeError(
            f"{_clip(text)!r} is not a number such as 9007199254740991 or 2**70"
        )
    too_large = f"is too large (at most 2**{_MAX_BITS})"
    total = 0
    for sign, term in re.findall(rf"([+-]?)({_TERM})", text):
        base, _, power = term.partition("**")
        if max(len(base), len(power)) > 4000:  # int() refuses more than 4300 digits
            raise argparse.ArgumentTypeError(f"{_clip(term)} {too_large}")
        value, exponent = int(base), int(power or 1)
        if value > 1 and exponent * math.log2(value) > _MAX_BITS + 1:
            raise argparse.ArgumentTypeError(f"{_clip(term)} {too_large}")
        total += -(value**exponent) if sign == "-" else value**exponent
    if total < 1:
        raise argparse.ArgumentTypeError(f"{_clip(text)} must be at least 1")
    if total > 2**_MAX_BITS:
        raise argparse.ArgumentTypeError(f"{_clip(text)} {too_large}")
    return total


def power_text(units: int) -> str:
    """``2**70`` or ``2**53-1`` where ``units`` has that form, else its digits."""
    for exact, suffix in ((units, ""), (units + 1, "-1")):
        if exact >= 2**8 and exact & (exact - 1) == 0:
            return f"2**{exact.bit_length() - 1}{suffix}"
    return str(units)


def _number(kind: type[_N], text: str) -> _N:
    try:
        return kind(text)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None


def positive(kind: type[_N]) -> Callable[[str], _N]:
    """A finite number greater than 0."""

    def parse(text: str) -> _N:
        value = _number(kind, text)
        if not value > 0 or value == math.inf:
            raise argparse.ArgumentTypeError(f"{text} must be greater than 0")
        return value

    return parse


_BYTE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def byte_count(text: str) -> int:
    """A number of bytes greater than 0: digits, or with ``K``, ``M`` or ``G``: ``64M``."""
    match = re.fullmatch(r"(\d{1,15})([KMG]?)", text.strip(), re.IGNORECASE)
    if match is None or not int(match[1]):
        raise argparse.ArgumentTypeError(
            f"{_clip(text)!r} is not a number of bytes greater than 0, such as 67108864 or 64M"
        )
    return int(match[1]) * _BYTE_UNITS[match[2].upper()]


def seconds(text: str, zero: str = "") -> float:
    """Seconds, 0 or more (``zero``: what 0 means)."""
    value = float(_number(float, text))
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"{text} must be 0{zero} or more")
    return value


def timeout(text: str) -> float:
    """``--timeout``: seconds, or 0 for none."""
    return seconds(text, " (no timeout)")


def seed(text: str) -> int:
    """``--seed``: a non-negative integer."""
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative integer")
    return int(text)


#: At most this many seeds in one ``--seeds``.
MAX_SEEDS = 100_000


def seeds(text: str) -> tuple[int, ...]:
    """``--seeds``: ``A-B``, ``1,4,9`` or both (``1-4,9``); in increasing order, each once."""
    found: set[int] = set()
    for item in text.replace(" ", "").split(","):
        first, dash, last = item.partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise argparse.ArgumentTypeError(
                f"{_clip(text)!r} is not a range A-B or a list of seeds such as 1,4,9"
            )
        low, high = int(first), int(last or first)
        if low > high:
            raise argparse.ArgumentTypeError(f"{item}: the range ends before it starts")
        if high - low + len(found) >= MAX_SEEDS:
            raise argparse.ArgumentTypeError(f"{_clip(text)}: more than {MAX_SEEDS:,} seeds")
        found.update(range(low, high + 1))
    return tuple(sorted(found))


def examples(text: str) -> int:
    """``--max-examples`` of the gate: a whole number, then the settings' own check of it."""
    try:
        return limits.examples(positive(int)(text))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def fraction(text: str) -> float:
    """``--max-regression``: a percentage (``10%``) or a fraction, from 0 up to 1."""
    try:
        value = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a percentage like 10%") from None
    if not 0 <= value < 1:
        bare = not text.endswith("%") and 1 <= value < 100
        hint = f" (a bare number is a fraction: write {text}%)" if bare else ""
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0% and 100%{hint}")
    return value


def sizes(text: str) -> tuple[int, ...]:
    """``--sizes``: block counts, ``10,1000``."""
    return tuple(positive(int)(part) for part in text.split(","))
