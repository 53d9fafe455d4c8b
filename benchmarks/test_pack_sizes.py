"""pytest-benchmark suites of the hot loop: engine x n x workload.

Timings: ``pytest benchmarks --benchmark-enable --benchmark-group-by=group``.  Under
the project's ``--benchmark-disable`` (CI) every case runs once as a plain test and
its answer is checked against the reference's.  ``packcheck bench`` measures the
same workloads side by side and reports speedups; this suite is for pytest-benchmark's
own comparisons (``--benchmark-autosave``, ``--benchmark-compare``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from packcheck import reference
from packcheck._bench._workloads import WORKLOADS
from packcheck._engines import numpy_entry as scan

SEED = 0
SIZES = (10**3, 10**4, 10**5, 10**6)
# The reference takes ~40 ms a call at 10**6 blocks: above this it would dominate.
REFERENCE_LIMIT = 10**5


@cache
def _case(name: str, n: int) -> tuple[npt.NDArray[np.int64], int, npt.NDArray[np.bool_], int]:
    sizes, budget = WORKLOADS[name].generate(n, SEED)
    mask, remaining = reference.pack_sizes(budget, sizes.tolist())
    return sizes, budget, np.array(mask, dtype=np.bool_), remaining


def _numpy(budget: int, sizes: npt.NDArray[np.int64]) -> tuple[Any, int]:
    return scan.pack_sizes(budget, sizes)


def _reference(budget: int, sizes: list[int]) -> tuple[Any, int]:
    return reference.pack_sizes(budget, sizes)


ENGINES: dict[str, Callable[[int, Any], tuple[Any, int]]] = {
    "reference": _reference,
    "numpy": _numpy,
}


@pytest.mark.parametrize("name", list(WORKLOADS))
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("engine", list(ENGINES))
def test_pack_sizes(benchmark: Any, engine: str, n: int, name: str) -> None:
    if engine == "reference" and n > REFERENCE_LIMIT:
        pytest.skip(f"the reference above {REFERENCE_LIMIT:,} blocks would dominate the suite")
    sizes, budget, expected_mask, expected_remaining = _case(name, n)
    given = sizes.tolist() if engine == "reference" else sizes
    benchmark.group = f"{name} ({WORKLOADS[name].family})"
    benchmark.extra_info.update(n=n, budget=budget, seed=SEED, workload=name)
    mask, remaining = benchmark(ENGINES[engine], budget, given)
    assert remaining == expected_remaining
    assert type(remaining) is int
    assert np.array_equal(np.asarray(mask, dtype=np.bool_), expected_mask)
