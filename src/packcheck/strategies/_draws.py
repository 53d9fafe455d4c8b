"""Hypothesis's primitive choices drawn from a composite's ``ConjectureData`` itself,
without the strategy machinery around each (docs/performance.md, "The gate's own
cost"); where a Hypothesis lacks those methods, through public strategies."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from hypothesis import strategies as st

T = TypeVar("T")


@functools.lru_cache(maxsize=256)
def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


@functools.lru_cache(maxsize=64)
def _booleans(p: float) -> st.SearchStrategy[bool]:
    # Public strategies have no weighted boolean: a roll out of 2**16 stands in for it.
    scale = 2**16
    return st.integers(0, scale - 1).map(lambda roll: roll < p * scale)


@functools.lru_cache(maxsize=64)
def continue_chance(average: float, most: float) -> float:
    """The chance of one more element for lists of ``average`` extra, at most ``most``."""
    try:
        from hypothesis.internal.conjecture.utils import _calc_p_continue
    except ImportError:  # pragma: no cover - depends on the installed Hypothesis
        return 1 - 1 / (1 + average)
    chance: float = _calc_p_continue(average, most)
    return chance


class Draws:
    """Primitive draws for one composite draw (``draw`` is the composite's ``draw``)."""

    __slots__ = ("boolean", "draw", "integer")

    def __init__(self, draw: Callable[[st.SearchStrategy[Any]], Any]) -> None:
        self.draw = draw
        data = getattr(draw, "__self__", None)
        direct_integer = getattr(data, "draw_integer", None)
        direct_boolean = getattr(data, "draw_boolean", None)
        #: ``integer(low, high)``: an int in ``[low, high]``, shrinking towards ``low``.
        self.integer: Callable[[int, int], int]
        #: ``boolean(p)``: ``True`` with probability ``p``, shrinking towards ``False``.
        self.boolean: Callable[[float], bool]
        if callable(direct_integer) and callable(direct_boolean):
            self.integer = direct_integer
            self.boolean = direct_boolean
        else:
            self.integer = lambda low, high: draw(_integers(low, high))
            self.boolean = lambda p: draw(_booleans(p))

    def index(self, count: int) -> int:
        return self.integer(0, count - 1)

    def pick(self, options: Sequence[T]) -> T:
        return options[self.integer(0, len(options) - 1)]

    def many(self, least: int, most: float, average: float) -> Iterator[int]:
        """Indices of a list of ``least`` to ``most`` elements, ``average`` long, each past
        ``least`` one "one more?" choice, as Hypothesis's lists decide."""
        chance = continue_chance(max(0.0, average - least), most - least)
        count = 0
        while count < least:
            yield count
            count += 1
        while count < most and self.boolean(chance):
            yield count
            count += 1


def list_average(least: int, most: float) -> float:
    """Hypothesis's average list size for ``st.lists(min_size=least, max_size=most)``."""
    return min(max(least * 2, least + 5), 0.5 * (least + most))
