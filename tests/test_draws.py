"""packcheck.strategies._draws: primitive choices inside a composite, and the public fallback."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from packcheck.strategies._draws import Draws, continue_chance, list_average


@st.composite
def _drawn_directly(draw: st.DrawFn) -> tuple[bool, int, bool, list[int]]:
    draws = Draws(draw)
    direct = getattr(draws.integer, "__self__", None) is getattr(draw, "__self__", object())
    return direct, draws.integer(3, 5), draws.boolean(0.0), list(draws.many(2, 4, 3))


@settings(max_examples=50, database=None)
@given(_drawn_directly())
def test_a_composite_draws_its_choices_directly(drawn: tuple[bool, int, bool, list[int]]) -> None:
    direct, number, never, indices = drawn
    assert direct  # the point of the module: no strategy machinery per choice
    assert 3 <= number <= 5
    assert never is False
    assert indices == list(range(len(indices)))
    assert 2 <= len(indices) <= 4


@settings(max_examples=50, database=None)
@given(st.data())
def test_without_primitive_methods_every_draw_goes_through_a_strategy(data: Any) -> None:
    # st.data()'s draw belongs to an object with no draw_integer: the public fallback.
    draws = Draws(data.draw)
    assert getattr(draws.integer, "__self__", None) is None
    assert 3 <= draws.integer(3, 5) <= 5
    assert draws.boolean(0.0) is False
    assert draws.boolean(1.0) is True
    assert draws.pick("xyz") in "xyz"
    assert 0 <= draws.index(2) <= 1
    assert 2 <= len(list(draws.many(2, 4, 3))) <= 4


def test_list_averages_are_hypothesis_lists_own() -> None:
    assert list_average(0, 12) == 5
    assert list_average(1, 5) == 3
    assert list_average(0, 3) == 1.5
    assert list_average(3, float("inf")) == 8


def test_the_chance_of_one_more_gives_the_average() -> None:
    chance = continue_chance(5, 12)
    expected = sum(min(k, 12) * (1 - chance) * chance**k for k in range(200))
    assert abs(expected - 5) < 0.1
    assert continue_chance(2, float("inf")) == 1 - 1 / 3
