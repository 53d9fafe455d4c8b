"""The NumPy and compiled packers equal the reference: any magnitude, order, length.

Each property runs on both engines (``engine``); the compiled one is skipped, with a
reason, where the ``numba`` extra is not installed.  Settings come from the profile in
``conftest.py`` (``HYPOTHESIS_PROFILE``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from _scan_check import ENGINES, assert_same
from hypothesis import example, given
from hypothesis import strategies as st

from packcheck import compiled
from packcheck._engines import numpy_entry as scan

INT64_MAX = 2**63 - 1


# Magnitudes spread over every scale the kernel treats differently: tiny, around the
# level ratio, around the chunk-length cut (~2**46 to 2**56), and past int64.
def _magnitudes(top: int) -> st.SearchStrategy[int]:
    return st.integers(0, top.bit_length()).flatmap(
        lambda bits: st.integers(max(1, 2 ** max(0, bits - 1)), max(1, min(top, 2**bits)))
    )


budgets = st.one_of(st.integers(0, 50), _magnitudes(2**72), st.sampled_from([INT64_MAX, 2**63]))


@pytest.mark.parametrize("engine", ENGINES)
@given(budget=budgets, sizes=st.lists(_magnitudes(INT64_MAX), max_size=300))
@example(budget=INT64_MAX, sizes=[INT64_MAX, 1])
@example(budget=INT64_MAX - 1, sizes=[INT64_MAX, INT64_MAX - 1, 1])
@example(budget=7, sizes=[4, 3, 2])
@example(budget=4, sizes=[5, 1, 1, 1, 1, 1])
def test_int64_sizes_give_the_reference_answer(engine: str, budget: int, sizes: list[int]) -> None:
    assert_same(budget, sizes, np.array(sizes, dtype=np.int64), engine)


@pytest.mark.parametrize("engine", ENGINES)
@given(budget=budgets, sizes=st.lists(_magnitudes(2**70), max_size=200))
@example(budget=10, sizes=[2**70, 3, 2**64, 7])
@example(budget=2**80, sizes=[2**70, 2**69])
def test_object_arrays_past_int64_give_the_reference_answer(
    engine: str, budget: int, sizes: list[int]
) -> None:
    assert_same(budget, sizes, np.array(sizes, dtype=object), engine)


@pytest.mark.parametrize("engine", ENGINES)
@given(budget=budgets, sizes=st.lists(st.integers(1, 2**64 - 1), max_size=100))
def test_uint64_sizes_give_the_reference_answer(engine: str, budget: int, sizes: list[int]) -> None:
    assert_same(budget, sizes, np.array(sizes, dtype=np.uint64), engine)


@st.composite
def adversarial_orders(draw: st.DrawFn) -> tuple[int, list[int]]:
    """Orders that defeat a scan restarting at each skipped block, with random knobs."""
    budget = draw(st.one_of(st.integers(1, 10**6), _magnitudes(2**60)))
    n = draw(st.integers(1, 3000))
    shape = draw(st.sampled_from(["alternating", "sawtooth", "staircase", "near-misses"]))
    if shape == "alternating":  # tiny, then one unit too large for what is left
        tiny = draw(st.integers(1, 3))
        sizes = [tiny if i % 2 == 0 else max(1, budget - tiny * (i // 2)) for i in range(n)]
    elif shape == "sawtooth":
        period = draw(st.integers(2, 200))
        sizes = [1 + (i % period) * max(1, budget // (4 * period)) for i in range(n)]
    elif shape == "staircase":  # each kept block takes a 16th of what is left
        sizes, remaining = [], budget
        for _ in range(n):
            step = remaining // 16 + 1
            sizes += [remaining + 1, step]
            remaining = max(0, remaining - step)
    else:  # sizes within a few units of the budget, and small ones
        sizes = [
            draw(st.one_of(st.integers(1, 4), st.integers(max(1, budget - 4), budget + 4)))
            for _ in range(min(n, 300))
        ]
    return budget, sizes


@pytest.mark.parametrize("engine", ENGINES)
@given(adversarial_orders())
def test_adversarial_orders_give_the_reference_answer(
    engine: str, case: tuple[int, list[int]]
) -> None:
    budget, sizes = case
    assert_same(budget, sizes, np.array(sizes, dtype=np.int64), engine)


@pytest.mark.parametrize("engine", ENGINES)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 200_000),
    top_bits=st.integers(1, 62),
    share=st.floats(0.0, 1.2),
)
def test_long_lists_give_the_reference_answer(
    engine: str, seed: int, n: int, top_bits: int, share: float
) -> None:
    # Long inputs cross chunk boundaries, galloping and Python stretches.
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 2**top_bits, n, dtype=np.int64, endpoint=True)
    budget = int(float(sizes.sum(dtype=np.float64)) * share)
    assert_same(budget, sizes.tolist(), sizes, engine)


@st.composite
def huge_remainders(draw: st.DrawFn) -> tuple[int, npt.NDArray[np.int64]]:
    """Long int64 inputs whose remaining starts between 2**61 and 2**63 - 1.

    Sizes mix 1s, sizes around tau = budget // 16 (whose sums pass 2**63 within a
    chunk), sizes around the budget and int64 max, so every sum the kernel forms is
    near the edge where int64 would wrap.
    """
    budget = draw(
        st.one_of(
            st.integers(2**61, INT64_MAX),
            st.sampled_from([2**62 - 1, 2**62, 2**62 + 2**60, INT64_MAX - 1, INT64_MAX]),
        )
    )
    n = draw(st.integers(1, 40_000))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    tau = budget // 16
    pools = [
        np.ones(n, dtype=np.int64),
        rng.integers(max(1, tau - 2**30), tau + 2**30, n, dtype=np.int64),
        rng.integers(max(1, budget - 2**20), INT64_MAX, n, dtype=np.int64, endpoint=True),
        rng.integers(1, INT64_MAX, n, dtype=np.int64, endpoint=True),
    ]
    weights = np.array([draw(st.integers(0, 8)) for _ in pools], dtype=np.float64) + 1e-9
    choice = rng.choice(len(pools), n, p=weights / weights.sum())
    sizes = np.choose(choice, pools)
    return budget, sizes


@pytest.mark.parametrize("engine", ENGINES)
@given(huge_remainders())
def test_remainders_near_int64_give_the_reference_answer(
    engine: str, case: tuple[int, npt.NDArray[np.int64]]
) -> None:
    budget, sizes = case
    assert_same(budget, sizes.tolist(), sizes, engine)


non_units = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).filter(lambda x: not float(x).is_integer()),
    st.booleans(),
    st.text(max_size=3),
    st.none(),
    st.fractions().filter(lambda q: q.denominator != 1),
)


@pytest.mark.parametrize("engine", ENGINES)
@given(
    budget=budgets,
    sizes=st.lists(_magnitudes(2**70), max_size=50),
    bad=non_units,
    where=st.integers(0, 50),
)
def test_object_arrays_with_a_non_unit_raise(
    engine: str, budget: int, sizes: list[int], bad: object, where: int
) -> None:
    # Wherever the bad element stands, even after the budget is spent: never rounded,
    # never counted (a bool is not 1).
    values: list[object] = list(sizes)
    values.insert(min(where, len(values)), bad)
    array = np.empty(len(values), dtype=object)
    array[:] = values
    kernel = scan.pack_sizes if engine == "numpy" else compiled.pack_sizes
    with pytest.raises((TypeError, ValueError)):
        kernel(budget, array)
