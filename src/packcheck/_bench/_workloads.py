"""Seeded benchmark workloads: ``(n, seed)`` -> int64 sizes and a budget, typical and
adversarial (orders that make a scan restarting at every skipped block quadratic)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np
import numpy.typing as npt

from .._rule.declared import Rule
from .._rule.model import Case, valid_case

Family = Literal["typical", "adversarial", "recorded"]
Sizes = npt.NDArray[np.int64]
_Make = Callable[[int, np.random.Generator], tuple[Sizes, int]]
#: The required IDs of :func:`as_case`: the first block, the eighth, and one absent.
REQUIRED = ("b0", "b7", "absent")


@dataclass(frozen=True)
class Workload:
    """A named, seeded generator of ``(sizes, budget)``."""

    name: str
    family: Family
    make: _Make

    def generate(self, n: int, seed: int = 0) -> tuple[Sizes, int]:
        """``n`` int64 sizes (every one >= 1) and a budget, from ``seed``."""
        if n < 1:
            raise ValueError(f"n must be >= 1, got {n}")
        return self.make(n, np.random.default_rng(seed))

    def case(self, n: int, seed: int = 0, rule: Rule | None = None) -> dict[str, Any]:
        """:meth:`generate` as a case, its budget fitted to ``rule``."""
        sizes, budget = self.generate(n, seed)
        listed = sizes.tolist()
        return as_case(fitted_budget(budget, listed, rule), listed)

    def cases(self, n: int, seed: int = 0, rule: Rule | None = None) -> list[dict[str, Any]]:
        return [self.case(n, seed, rule)]

    def arrays(self, n: int, seed: int = 0) -> list[tuple[Sizes, int]]:
        return [self.generate(n, seed)]


@dataclass(frozen=True)
class Recorded:
    """Cases a user recorded (``bench --cases``), timed as one workload: a call packs
    every one of them in turn, and ``n`` is how many there are.  Keys of a recorded
    step other than the case's are left as they are: packers ignore them."""

    recorded: tuple[Any, ...]
    name: ClassVar[str] = "recorded"
    family: ClassVar[Family] = "recorded"

    def cases(self, n: int = 0, seed: int = 0, rule: Rule | None = None) -> list[Any]:
        return list(self.recorded)

    def arrays(self, n: int = 0, seed: int = 0) -> list[tuple[Sizes, int]]:
        """The sizes and budget of every recorded case a kernel can pack: valid units
        (no kernel answers ``{"error": "size"}``) within int64."""
        read = (_for_kernel(case) for case in self.recorded)
        return [
            (np.array(case.sizes, dtype=np.int64), case.budget) for case in read if case is not None
        ]

    def packable(self) -> Recorded:
        """The recorded cases a kernel can pack, for a kernel timed against a case packer."""
        kept = tuple(case for case in self.recorded if _for_kernel(case) is not None)
        return Recorded(kept)


def _for_kernel(case: Any) -> Case | None:
    read = valid_case(case)
    if read is None or read.budget >= 2**63 or any(size >= 2**63 for size in read.sizes):
        return None
    return read


def fitted_budget(budget: int, sizes: Sequence[int], rule: Rule | None) -> int:
    """``budget`` raised so that ``rule`` leaves the blocks the room packcheck's own rule
    would (its ``reserve``, the pins' cost, ``refuse_budget_below``), so a workload
    times the rule's scan, never its refusal.  Unchanged for no rule."""
    if rule is None:
        return budget
    pinned = _pinned(sizes, rule)
    cost = rule.reserve + sum(pinned) + len(pinned) * (rule.per_item + rule.separator)
    if pinned and rule.fit == "lt":
        cost += 1
    return max(budget + math.ceil(cost), rule.refuse_budget_below)


def _pinned(sizes: Sequence[int], rule: Rule) -> list[int]:
    if not sizes or rule.pin == "none":
        return []
    if rule.pin == "first":
        return [sizes[0]]
    if rule.pin == "last":
        return [sizes[-1]]
    wanted = {int(block_id[1:]) for block_id in REQUIRED if block_id[1:].isdigit()}
    return [sizes[i] for i in sorted(wanted) if i < len(sizes)]


def as_case(budget: int, sizes: list[int]) -> dict[str, Any]:
    """A case of blocks ``b0``, ``b1``, ... of ``sizes``, requiring :data:`REQUIRED`."""
    blocks = [{"id": f"b{i}", "size": size} for i, size in enumerate(sizes)]
    return {"budget": budget, "blocks": blocks, "required": list(REQUIRED)}


def _share(sizes: Sizes, fraction: float) -> tuple[Sizes, int]:
    return sizes, int(int(sizes.sum()) * fraction)


def _uniform(fraction: float) -> _Make:
    return lambda n, rng: _share(rng.integers(1, 101, n), fraction)


def _pareto(n: int, rng: np.random.Generator) -> tuple[Sizes, int]:
    # Tail index 1.2: a few blocks are thousands of times the median; capped at 10**9.
    sizes = np.minimum(rng.pareto(1.2, n) * 100, 1e9).astype(np.int64) + 1
    return _share(sizes, 0.5)


def _six_orders(n: int, rng: np.random.Generator) -> tuple[Sizes, int]:
    return _share(np.exp(rng.uniform(0.0, np.log(1e6), n)).astype(np.int64) + 1, 0.5)


def _chunks(n: int, rng: np.random.Generator) -> tuple[Sizes, int]:
    return _share(rng.integers(50, 5001, n), 0.9)


def _nothing_fits(n: int, rng: np.random.Generator) -> tuple[Sizes, int]:
    return rng.integers(1000, 2001, n), 999


def _alternating(n: int, rng: np.random.Generator) -> tuple[Sizes, int]:
    # 1, B, 1, B-1, 1, B-2, ...: each large block misses by one unit.
    budget = max(1, n // 2)
    sizes = np.ones(n, dtype=np.int64)
    sizes[1::2] = budget - np.arange(sizes[1::2].shape[0])
    return np.maximum(sizes, 1), budget


def _sawtooth(n: int, rng: np.random.Generator) -> tuple[Sizes, int]:
    # Teeth rising 1..1000: every tooth keeps a prefix, then skips the rest of it.
    return np.arange(n, dtype=np.int64) % 1000 + 1, n


def _staircase(n: int, rng: np.random.Generator) -> tuple[Sizes, int]:
    # Long stretches of blocks one unit too large, with a block taking a sixteenth of
    # what remains now and then: many short phases spread over the whole input.
    budget = 10**12
    sizes = np.full(n, budget + 1, dtype=np.int64)
    remaining, steps = budget, []
    while remaining:
        steps.append(remaining // 16 + 1)
        remaining -= steps[-1]
    positions = np.linspace(0, n - 1, min(n, len(steps))).astype(np.int64)
    sizes[positions] = steps[: positions.shape[0]]
    return sizes, budget


def _tiny_and_large(n: int, rng: np.random.Generator) -> tuple[Sizes, int]:
    budget = max(1, n // 4)
    sizes = np.where(rng.random(n) < 0.5, 1, rng.integers(1, budget + 1, n))
    return sizes.astype(np.int64), budget


def _huge_budget_alternating(n: int, rng: np.random.Generator) -> tuple[Sizes, int]:
    # 1, 2**63 - 1, 1, 2**63 - 1, ... with budget 2**63 - 2: every large block misses,
    # and the remaining stays near int64 max, where sums of sizes near it would wrap.
    sizes = np.ones(n, dtype=np.int64)
    sizes[1::2] = 2**63 - 1
    return sizes, 2**63 - 2


#: Every workload by name, typical first.
WORKLOADS: dict[str, Workload] = {
    w.name: w
    for w in (
        Workload("uniform-1%", "typical", _uniform(0.01)),  # sizes 1-100, budget 1% of the total
        Workload("uniform-50%", "typical", _uniform(0.5)),
        Workload("uniform-100%", "typical", _uniform(1.0)),
        Workload("pareto", "typical", _pareto),  # budget 50%
        Workload("six-orders", "typical", _six_orders),  # log-uniform sizes 1-10**6, budget 50%
        Workload("doc-chunks", "typical", _chunks),  # sizes 50-5,000, budget 90%
        Workload("nothing-fits", "typical", _nothing_fits),  # sizes 1,000-2,000, budget 999
        Workload("alternating", "adversarial", _alternating),
        Workload("sawtooth", "adversarial", _sawtooth),
        Workload("staircase", "adversarial", _staircase),
        Workload("tiny-and-large", "adversarial", _tiny_and_large),  # half 1s, half up to B
        Workload("huge-budget-alt", "adversarial", _huge_budget_alternating),
    )
}


def workload(name: str) -> Workload:
    try:
        return WORKLOADS[name]
    except KeyError:
        known = ", ".join(WORKLOADS)
        raise KeyError(f"unknown workload {name!r}; expected one of {known}") from None


@dataclass(frozen=True)
class Batch:
    """Many cases back to back, as :func:`packcheck.scan.pack_batch` takes them."""

    budgets: Sizes
    sizes: Sizes
    offsets: Sizes

    def cases(self) -> list[tuple[int, list[int]]]:
        """Each case as ``(budget, sizes)`` in Python ints."""
        flat = self.sizes.tolist()
        bounds = self.offsets.tolist()
        return [
            (budget, flat[lo:hi])
            for budget, lo, hi in zip(self.budgets.tolist(), bounds, bounds[1:], strict=False)
        ]

    def as_cases(self) -> list[dict[str, Any]]:
        return [as_case(budget, sizes) for budget, sizes in self.cases()]


def batch_of_steps(cases: int, seed: int = 0, *, fewest: int = 10, most: int = 200) -> Batch:
    """``cases`` model steps of ``fewest`` to ``most`` blocks (sizes 1-100), seeded, each
    budget uniform between 0 and the step's total."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(fewest, most + 1, cases)
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    sizes = rng.integers(1, 101, int(offsets[-1])).astype(np.int64)
    totals = np.add.reduceat(sizes, offsets[:-1]) if cases else np.zeros(0, dtype=np.int64)
    budgets = (rng.random(cases) * (totals + 1)).astype(np.int64)
    return Batch(budgets, sizes, offsets)
