"""The compiled engine (the ``numba`` extra) against the reference: batches and cases.

Its ``pack_sizes`` is checked beside the NumPy kernel's in ``test_scan_properties.py``;
here its ``pack_batch`` (against the reference case by case, and the NumPy batch) and
``pack(case, engine="numba")``, which the conftest sends to the compiled loop at every
size.  Skipped, with a reason, where the extra is not installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _scan_check import HAVE_NUMBA, NO_NUMBA
from hypothesis import example, given
from hypothesis import strategies as st

from packcheck import compiled, pack, reference, scan
from packcheck._partition.invariants import check_output
from packcheck._rule.same import same
from packcheck.strategies import cases

pytestmark = pytest.mark.skipif(not HAVE_NUMBA, reason=NO_NUMBA)

INT64_MAX = 2**63 - 1
_sizes = st.one_of(st.integers(1, 50), st.integers(1, INT64_MAX), st.integers(-3, 2**70))
_budgets = st.one_of(st.integers(0, 200), st.integers(-5, INT64_MAX), st.just(INT64_MAX))


@given(st.lists(st.tuples(_budgets, st.lists(_sizes, max_size=60)), max_size=40))
@example([(INT64_MAX, [INT64_MAX, 1]), (-1, [1, 2]), (0, [])])
@example([(5, [2**70, 3, 2**64, 1]), (INT64_MAX, [2**63, 5])])
@example([(INT64_MAX, [-5]), (1, [1])])
def test_pack_batch_equals_the_reference_case_by_case(batch: list[tuple[int, list[int]]]) -> None:
    budgets = [budget for budget, _ in batch]
    flat = [size for _, sizes in batch for size in sizes]
    offsets = np.cumsum([0, *(len(sizes) for _, sizes in batch)])
    lefts = [reference.pack_sizes(budget, sizes)[1] for budget, sizes in batch]
    if max(lefts, default=0) > INT64_MAX:  # a remaining past int64: the one-line error
        for kernel in (scan.pack_batch, compiled.pack_batch):
            with pytest.raises(ValueError, match="does not fit int64"):
                kernel(budgets, np.array(flat, dtype=object), offsets)
        return
    expected = scan.pack_batch(budgets, np.array(flat, dtype=object), offsets)
    kept, remaining = compiled.pack_batch(budgets, np.array(flat, dtype=object), offsets)
    assert kept.dtype == np.bool_
    assert remaining.dtype == np.int64
    assert kept.tolist() == expected[0].tolist()
    assert remaining.tolist() == expected[1].tolist()
    for case, (budget, sizes) in enumerate(batch):
        mask, left = reference.pack_sizes(budget, sizes)
        assert kept[offsets[case] : offsets[case + 1]].tolist() == mask
        assert int(remaining[case]) == left


@example({"budget": 2**64, "blocks": [{"id": "A", "size": 2**63}] * 3, "required": ["A"]})
@example({"budget": 4.0, "blocks": [{"id": "A", "size": 4.0}], "required": []})
@given(cases(max_units=2**70))
def test_the_numba_engine_gives_the_reference_answer(case: dict[str, Any]) -> None:
    actual = pack(case, engine="numba")
    assert same(pack(case), actual, json=True)
    check_output(case, actual)
