"""Seeded workloads: a batch of model steps, as pack_batch takes it."""

from __future__ import annotations

import numpy as np

from packcheck import pack, reference
from packcheck._bench._workloads import REQUIRED, WORKLOADS, as_case, batch_of_steps


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


def test_cases_as_pack_takes_them() -> None:
    case = WORKLOADS["doc-chunks"].case(20, seed=5)
    sizes, budget = WORKLOADS["doc-chunks"].generate(20, seed=5)
    assert case["budget"] == budget
    assert [block["size"] for block in case["blocks"]] == sizes.tolist()
    assert [block["id"] for block in case["blocks"]] == [f"b{i}" for i in range(20)]
    assert case["required"] == list(REQUIRED)
    kept, remaining = reference.pack_sizes(budget, sizes.tolist())
    assert pack(case)["remaining"] == remaining
    assert pack(case)["kept"] == [f"b{i}" for i, keep in enumerate(kept) if keep]
    assert "absent" in pack(case)["missing"]
    batch = batch_of_steps(7, seed=1)
    assert batch.as_cases() == [as_case(budget, sizes) for budget, sizes in batch.cases()]
