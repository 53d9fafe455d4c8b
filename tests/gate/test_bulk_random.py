"""``packcheck._gate._bulk_random``: the library's draws, the same numbers and state after."""

from __future__ import annotations

import random
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from packcheck._gate._bulk_random import FastRandom, below_many, choices, picks, randints, randoms

# Bounds on every side of one and two 32-bit words, powers of two (half the candidates
# rejected) and just past them, and beyond two words (drawn one at a time).
BOUNDS = [
    1,
    2,
    3,
    4,
    5,
    7,
    17,
    2**31,
    2**32 - 1,
    2**32,
    2**32 + 1,
    2**33 + 5,
    2**44 + 3,
    2**53,
    2**63 - 1,
    2**63 + 1,
    2**64 - 1,
    2**64,
    2**64 + 1,
    2**70 + 12345,
]
COUNTS = [0, 1, 2, 63, 64, 65, 1000, 20_000]


def _pair(seed: object) -> tuple[random.Random, random.Random]:
    """The library's generator and another in the same state."""
    return random.Random(seed), random.Random(seed)


@pytest.mark.parametrize("n", BOUNDS)
@pytest.mark.parametrize("count", COUNTS)
def test_below_many_draws_what_randrange_draws(n: int, count: int) -> None:
    one, many = _pair(f"{n}/{count}")
    drawn = below_many(many, n, count)
    assert drawn == [one.randrange(n) for _ in range(count)]
    assert all(type(value) is int for value in drawn)
    assert many.getstate() == one.getstate()
    assert many.random() == one.random()


@pytest.mark.parametrize("n", BOUNDS)
def test_randints_add_the_low_end_exactly(n: int) -> None:
    for low in (0, 1, -5, 2**63, 2**64 + 7):
        one, many = _pair(f"{n}/{low}")
        drawn = randints(many, low, low + n - 1, 300)
        assert drawn == [one.randint(low, low + n - 1) for _ in range(300)]
        assert all(type(value) is int for value in drawn)
        assert many.getstate() == one.getstate()


@pytest.mark.parametrize("count", COUNTS)
def test_randoms_are_the_library_s_doubles(count: int) -> None:
    one, many = _pair(count)
    assert randoms(many, count).tolist() == [one.random() for _ in range(count)]
    assert many.getstate() == one.getstate()


@pytest.mark.parametrize("size", [1, 2, 3, 5, 6, 7, 8, 1000])
@pytest.mark.parametrize("count", COUNTS)
def test_picks_and_choices_pick_what_the_library_picks(size: int, count: int) -> None:
    pool = tuple(f"id{i}" for i in range(size))
    one, many = _pair(f"{size}/{count}")
    assert picks(many, pool, count) == [one.choice(pool) for _ in range(count)]
    assert many.getstate() == one.getstate()
    assert choices(many, pool, count) == one.choices(pool, k=count)
    assert many.getstate() == one.getstate()
    # The same objects, not equal copies.
    assert all(pick is pool[int(pick[2:])] for pick in picks(many, pool, count))


def _raises(draw: Callable[[], Any]) -> type[BaseException] | None:
    try:
        draw()
    except Exception as exc:
        return type(exc)
    return None


def test_empty_ranges_and_pools_raise_as_the_library_does() -> None:
    one, many = _pair(0)
    for ours, theirs in (
        (lambda: randints(many, 5, 4, 3), lambda: [one.randint(5, 4) for _ in range(3)]),
        (lambda: below_many(many, 0, 3), lambda: [one.randrange(0) for _ in range(3)]),
        (lambda: below_many(many, -1, 3), lambda: [one.randrange(-1) for _ in range(3)]),
        (lambda: picks(many, (), 3), lambda: [one.choice(()) for _ in range(3)]),
        # The library draws a double before it finds the population empty.
        (lambda: choices(many, (), 3), lambda: one.choices((), k=3)),
    ):
        assert _raises(ours) is _raises(theirs) is not None
        assert many.getstate() == one.getstate()
    assert randints(many, 5, 4, 0) == below_many(many, 0, 0) == picks(many, (), 0) == []
    assert choices(many, (), 0) == one.choices((), k=0) == []
    assert randoms(many, 0).tolist() == []
    assert many.getstate() == one.getstate()


def _outcome(draw: Callable[[], Any]) -> object:
    try:
        return draw()
    except Exception as exc:
        return type(exc)


def _calls(rng: random.Random) -> list[Any]:
    """Every way the probes call the scalar draws, and the library's errors."""
    out: list[Any] = []
    for n in BOUNDS:
        out += [rng.randint(1, n), rng.randint(-n, n), rng.randrange(n), rng.randrange(3, n + 3)]
        out += [rng.choice(range(min(n, 2**62))), rng.choice("AB\U0001f600"), rng.random()]
    out += [rng.randrange(5, 4096, 2), rng.randrange(10, 0, -3), rng.sample(range(100), 5)]
    for bad in (
        lambda: rng.randint(3, 2),
        lambda: rng.randrange(0),
        lambda: rng.randrange(5, 5),
        lambda: rng.randrange(5, step=2),
        lambda: rng.randrange(1.5),
        lambda: rng.choice([]),
    ):
        out.append(_raises(bad))
    return out


def test_draws_calls_draw_what_the_library_draws() -> None:
    one, fast = random.Random("calls"), FastRandom("calls")
    assert _calls(fast) == _calls(one)
    assert fast.getstate() == one.getstate()
    # Integral floats as the library reads them (a warning, or an error from 3.12 on).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for args in ((7.0,), (2, 9.0)):
            assert _outcome(lambda a=args: fast.randrange(*a)) == _outcome(
                lambda a=args: one.randrange(*a)
            )
    assert fast.getstate() == one.getstate()


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.lists(
        st.tuples(st.sampled_from(["below", "random", "pick", "int"]), st.integers(1, 2**66)),
        max_size=8,
    ),
)
def test_bulk_and_single_draws_interleave_in_step(seed: int, steps: list[tuple[str, int]]) -> None:
    one, many = random.Random(seed), FastRandom(seed)
    for kind, n in steps:
        count = n % 300
        if kind == "below":
            assert below_many(many, n, count) == [one.randrange(n) for _ in range(count)]
        elif kind == "random":
            assert randoms(many, count).tolist() == [one.random() for _ in range(count)]
        elif kind == "pick":
            pool = range(n % 9 + 1)
            assert picks(many, pool, count) == [one.choice(pool) for _ in range(count)]
        else:
            assert many.randint(-n, n) == one.randint(-n, n)
    assert many.getstate() == one.getstate()
