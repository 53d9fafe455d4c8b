"""``packcheck._gate.probe_random``: the probes' own draws, in range, alike, and pinned."""

from __future__ import annotations

from collections import Counter

import pytest

from packcheck._gate.probe_random import ProbeRandom

# Bounds on every side of one and two words, powers of two (half the candidates
# dropped) and just past them, and beyond two words (drawn one at a time).
BOUNDS = [1, 2, 3, 4, 5, 7, 17, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**33 + 5, 2**53]
BOUNDS += [2**63 + 1, 2**64 - 1, 2**64, 2**64 + 1, 2**70 + 12345]
COUNTS = [0, 1, 2, 63, 1000, 20_000]


def test_the_stream_is_pinned() -> None:
    """The draws of one seed, as recorded: a probe builds the case it always built."""
    rng = ProbeRandom("pinned")
    drawn = [rng.below(10) for _ in range(5)], rng.randint(-3, 3), rng.randrange(2, 9)
    assert drawn == ([5, 3, 4, 9, 1], 1, 7)
    assert rng.random() == 0.17881773821321634
    assert rng.randints(1, 6, 8) == [2, 5, 4, 3, 2, 5, 4, 1]
    assert rng.picks("ABC", 6) == ["A", "B", "B", "A", "A", "B"]
    assert rng.randoms(2).tolist() == [0.8136921186158734, 0.8410763204391793]
    assert rng.sample(range(10), 3) == [1, 4, 5]
    assert rng.below_many(2**40 + 3, 2) == [973395937571, 897237618397]
    assert ProbeRandom(7).below(2**70) == 367973167121809454136


@pytest.mark.parametrize("n", BOUNDS)
@pytest.mark.parametrize("count", COUNTS)
def test_below_many_draws_ints_in_range(n: int, count: int) -> None:
    rng = ProbeRandom(f"{n}/{count}")
    for offset in (0, -5, 2**64 + 7):
        drawn = rng.below_many(n, count, offset)
        assert len(drawn) == count
        assert all(type(value) is int and offset <= value < offset + n for value in drawn)
    if n <= 7 and count >= 1000:
        assert set(rng.below_many(n, count)) == set(range(n))


def test_draws_are_spread_evenly_over_a_range() -> None:
    rng = ProbeRandom("even")
    for counts in (
        Counter(rng.below_many(6, 60_000)),
        Counter(rng.below(6) for _ in range(60_000)),
    ):
        assert sorted(counts) == list(range(6))
        assert all(9_500 < counts[value] < 10_500 for value in counts)
    doubles = rng.randoms(60_000)
    assert doubles.min() >= 0.0
    assert doubles.max() < 1.0
    assert 0.49 < doubles.mean() < 0.51


def test_the_same_seed_draws_the_same_and_another_seed_does_not() -> None:
    def draws(seed: int | str) -> list[object]:
        rng = ProbeRandom(seed)
        items = list(range(20))
        rng.shuffle(items)
        return [items, rng.picks(range(50), 30), rng.randoms(3).tolist(), rng.uniform(2, 3)]

    assert draws("a") == draws("a") != draws("b")
    assert draws(1) == draws(1) != draws(2)


def test_scalar_draws_stay_in_their_ranges() -> None:
    rng = ProbeRandom(3)
    for n in BOUNDS:
        assert 1 <= rng.randint(1, n) <= n
        assert -n <= rng.randint(-n, n) <= n
        assert 0 <= rng.randrange(n) < n
        assert 3 <= rng.randrange(3, n + 3) < n + 3
        assert 2 <= rng.uniform(2, 2 + n) <= 2 + n
    assert rng.choice("AB\U0001f600") in "AB\U0001f600"
    assert rng.randints(5, 4, 0) == rng.picks((), 0) == rng.below_many(0, 0) == []
    assert rng.randoms(0).tolist() == []


def test_a_sample_is_distinct_and_a_shuffle_a_permutation() -> None:
    rng = ProbeRandom(4)
    for k in range(11):
        chosen = rng.sample(range(10), k)
        assert len(set(chosen)) == k
        assert set(chosen) <= set(range(10))
    assert rng.sample("AB", 2) in (["A", "B"], ["B", "A"])
    items = list(range(100))
    rng.shuffle(items)
    assert sorted(items) == list(range(100)) != items


@pytest.mark.parametrize(
    "draw",
    [
        lambda rng: rng.below(0),
        lambda rng: rng.randint(5, 4),
        lambda rng: rng.randrange(5, 5),
        lambda rng: rng.choice([]),
        lambda rng: rng.below_many(0, 3),
        lambda rng: rng.below_many(-1, 3),
        lambda rng: rng.picks((), 3),
        lambda rng: rng.sample(range(3), 4),
        lambda rng: rng.sample(range(3), -1),
    ],
)
def test_an_empty_range_or_pool_is_a_value_error(draw: object) -> None:
    with pytest.raises(ValueError, match=r"^(empty range|sample of)"):
        draw(ProbeRandom(0))  # type: ignore[operator]
