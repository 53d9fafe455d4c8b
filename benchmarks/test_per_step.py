"""pytest-benchmark suites at the sizes agents pack: one step, and many steps at once.

``pack(case)`` per engine at 10, 100 and 1,000 blocks (a model step), and 10,000
steps of 10-200 blocks packed by :func:`packcheck.scan.pack_batch` against the
reference called once per step, and as cases by ``pack_many(engine="numpy")``
against ``pack`` case by case.  Under ``--benchmark-disable`` every case runs once
and its answer is checked against the reference's.  ``packcheck bench`` times the
same comparisons side by side in one run (``--steps``).
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest
from _scan_check import PACK_ENGINES

from packcheck import pack, pack_many, reference
from packcheck._bench._workloads import WORKLOADS, Batch, batch_of_steps
from packcheck._engines import numpy_entry as scan

SEED = 0
STEP_SIZES = (10, 100, 1000)
STEPS = 10_000


@cache
def _case(name: str, n: int) -> dict[str, Any]:
    return WORKLOADS[name].case(n, SEED)


@pytest.mark.parametrize("name", ["uniform-50%", "doc-chunks", "alternating"])
@pytest.mark.parametrize("n", STEP_SIZES)
@pytest.mark.parametrize("engine", PACK_ENGINES)
def test_pack_one_step(benchmark: Any, engine: str, n: int, name: str) -> None:
    case = _case(name, n)
    benchmark.group = f"pack one step: {name}, n={n}"
    benchmark.extra_info.update(n=n, seed=SEED, workload=name)
    assert benchmark(pack, case, engine=engine) == pack(case)


@cache
def _batch() -> Batch:
    return batch_of_steps(STEPS, SEED)


def _per_step_reference(steps: list[tuple[int, list[int]]]) -> list[tuple[list[bool], int]]:
    return [reference.pack_sizes(budget, sizes) for budget, sizes in steps]


@pytest.mark.parametrize("packer", ["reference per step", "pack_batch"])
def test_pack_many_steps(benchmark: Any, packer: str) -> None:
    batch = _batch()
    steps = batch.cases()
    benchmark.group = f"{STEPS:,} steps of 10-200 blocks"
    benchmark.extra_info.update(steps=STEPS, blocks=int(batch.offsets[-1]), seed=SEED)
    expected = _per_step_reference(steps)
    if packer == "pack_batch":
        kept, remaining = benchmark(scan.pack_batch, batch.budgets, batch.sizes, batch.offsets)
        bounds = batch.offsets.tolist()
        got = [
            (kept[lo:hi].tolist(), int(left))
            for lo, hi, left in zip(bounds, bounds[1:], remaining, strict=False)
        ]
        assert got == expected
    else:
        assert benchmark(_per_step_reference, steps) == expected
    assert np.array_equal(batch.offsets[1:] - batch.offsets[:-1] >= 10, np.ones(STEPS, bool))


@cache
def _cases() -> list[dict[str, Any]]:
    return _batch().as_cases()


def _case_by_case(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [pack(case) for case in cases]


@pytest.mark.parametrize("packer", ["pack case by case", "pack_many numpy"])
def test_pack_many_cases(benchmark: Any, packer: str) -> None:
    cases = _cases()
    benchmark.group = f"{STEPS:,} steps of 10-200 blocks, as cases"
    benchmark.extra_info.update(steps=STEPS, seed=SEED)
    expected = _case_by_case(cases)
    if packer == "pack_many numpy":
        assert benchmark(pack_many, cases, engine="numpy") == expected
    else:
        assert benchmark(_case_by_case, cases) == expected
