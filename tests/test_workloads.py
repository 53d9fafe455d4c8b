"""Seeded workloads: a batch of model steps, as pack_batch takes it."""

from __future__ import annotations

import numpy as np

from packcheck._workloads import batch_of_steps


def test_a_batch_of_steps_is_seeded_and_shaped_for_pack_batch() -> None:
    batch = batch_of_steps(500, seed=3, fewest=10, most=200)
    again = batch_of_steps(500, seed=3, fewest=10, most=200)
    assert np.array_equal(batch.sizes, again.sizes)
    assert np.array_equal(batch.budgets, again.budgets)
    lengths = np.diff(batch.offsets)
    assert batch.offsets[0] == 0
    assert batch.offsets[-1] == batch.sizes.shape[0]
    assert lengths.min() >= 10
    assert lengths.max() <= 200
    assert batch.sizes.min() >= 1
    assert batch.sizes.max() <= 100
    cases = batch.cases()
    assert len(cases) == 500
    for budget, sizes in cases:
        assert 0 <= budget <= sum(sizes)


def test_an_empty_batch() -> None:
    batch = batch_of_steps(0)
    assert batch.cases() == []
    assert batch.offsets.tolist() == [0]
