"""pytest-benchmark suites of declared rules on the engines: engine x rule x n x workload.

Timings: ``pytest benchmarks/test_rule_engine_speed.py --benchmark-enable
--benchmark-group-by=group``.  Under the project's ``--benchmark-disable`` (CI) every
case runs once as a plain test and its answer is checked against the interpreter's.
Side-by-side ratios in one run: ``benchmarks/rule_engine_ratios.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from _scan_check import HAVE_NUMBA, NO_NUMBA

from packcheck import Rule
from packcheck._bench._workloads import WORKLOADS
from packcheck._engines.rules import pack_rule
from packcheck._rule.answer import Kept, kept_blocks
from packcheck._rule.model import Case

SEED = 0
SIZES = (10**4, 10**6)
WORKLOAD_NAMES = ("uniform-50%", "doc-chunks", "nothing-fits")
POOL = 10**5
# The interpreter takes ~40-300 ms a call at 10**6 blocks: above this it would dominate.
INTERPRETER_LIMIT = 10**5
RULES = {
    "reversed-stop-per_item": Rule(order="reversed", on_misfit="stop", per_item=4),
    "pin-separator-reserve-lt": Rule(pin="first", separator=1, reserve=3, fit="lt"),
    "dedup-kept": Rule(dedup="kept"),
    "middle-out-stop": Rule(order="middle-out", on_misfit="stop"),
}


@cache
def _case(name: str, n: int) -> tuple[npt.NDArray[np.int64], int, npt.NDArray[np.int64], Case]:
    sizes, budget = WORKLOADS[name].generate(n, SEED)
    numbers = np.random.default_rng(SEED + 1).integers(0, min(POOL, n), n)
    names = [f"b{i}" for i in range(POOL)]
    ids = tuple(names[i] for i in numbers.tolist())
    return sizes, budget, numbers, Case(budget, ids, tuple(sizes.tolist()), ())


@cache
def _expected(rule: str, name: str, n: int) -> Kept:
    found = kept_blocks(RULES[rule], _case(name, n)[3])
    assert found is not None
    return found


def _numpy(rule: Rule, budget: int, sizes: Any, ids: Any) -> tuple[list[bool], int]:
    found = pack_rule(rule, budget, sizes, ids)
    assert found is not None
    return found.flags.tolist(), found.remaining


def _numba(rule: Rule, budget: int, sizes: Any, ids: Any) -> tuple[list[bool], int]:
    found = pack_rule(rule, budget, sizes, ids, compiled=True)
    assert found is not None
    return found.flags.tolist(), found.remaining


def _interpreter(rule: Rule, budget: int, case: Any, ids: Any) -> tuple[list[bool], int]:
    found = kept_blocks(rule, case)
    assert found is not None
    return found.flags, int(found.remaining)


ENGINES: dict[str, Callable[[Rule, int, Any, Any], tuple[list[bool], int]]] = {
    "interpreter": _interpreter,
    "numpy": _numpy,
    "numba": _numba,
}


@pytest.mark.parametrize("name", WORKLOAD_NAMES)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("rule", list(RULES))
@pytest.mark.parametrize("engine", list(ENGINES))
def test_rule_engines(benchmark: Any, engine: str, rule: str, n: int, name: str) -> None:
    if engine == "interpreter" and n > INTERPRETER_LIMIT:
        pytest.skip(f"the interpreter above {INTERPRETER_LIMIT:,} blocks would dominate")
    if engine == "numba" and not HAVE_NUMBA:
        pytest.skip(NO_NUMBA)
    sizes, budget, numbers, case = _case(name, n)
    given = case if engine == "interpreter" else sizes
    ids = numbers if RULES[rule].dedup != "none" else None
    benchmark.group = f"{rule}: {name} ({WORKLOADS[name].family}) n={n}"
    benchmark.extra_info.update(n=n, budget=budget, seed=SEED, workload=name, rule=rule)
    flags, remaining = benchmark(ENGINES[engine], RULES[rule], budget, given, ids)
    expected = _expected(rule, name, n)
    assert remaining == expected.remaining
    assert flags == expected.flags
