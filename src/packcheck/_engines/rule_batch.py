"""Many cases under one declared rule: :func:`packcheck.scan.pack_batch` with ``rule=``,
case by case: short cases by the answer-only interpreter, longer ones by the rule
lowered for the kernels (:func:`packcheck._engines.rules.pack_rule`)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from .._rule.answer import kept_blocks
from .._rule.declared import Rule
from .._rule.model import Case
from . import sizes as _sizes
from .rules import pack_rule
from .sizes import Flags, Ints

#: Cases shorter than this go through the interpreter's answer-only loop.
SHORT = 1024


class RuleBatch(NamedTuple):
    """A batch's answers under a rule: ``kept`` (one flag per block, input order),
    ``remaining`` (int64, per case; 0 for a refused case) and ``refused`` (per case)."""

    kept: Flags
    remaining: Ints
    refused: Flags


def pack_rule_batch(
    rule: Rule,
    budgets: npt.ArrayLike,
    sizes: npt.ArrayLike,
    offsets: npt.ArrayLike,
    ids: npt.ArrayLike | None = None,
    wanted: npt.ArrayLike | None = None,
    *,
    compiled: bool = False,
) -> RuleBatch:
    """Case ``i`` (``sizes[offsets[i]:offsets[i + 1]]`` under ``budgets[i]``) packed by
    ``rule``, exactly as :func:`packcheck.pack` packs it (``output = "scan"``: not in its
    order).  ``ids`` (an integer per block) are needed under ``dedup`` and ``pin =
    "required"``, ``wanted`` (a flag per block) under ``pin = "required"``.
    """
    # Checked for every case alike: the interpreter's short cases would not miss them.
    if ids is None and (rule.dedup != "none" or rule.pin == "required"):
        key = f'dedup = "{rule.dedup}"' if rule.dedup != "none" else 'pin = "required"'
        raise ValueError(f"pack_batch under {key} needs ids (an integer per block)")
    if wanted is None and rule.pin == "required":
        raise ValueError('pack_batch under pin = "required" needs wanted (a flag per block)')
    budget_array = _sizes.budgets_of(budgets)
    values = np.asarray(sizes)
    if values.dtype != np.int64 or values.ndim != 1:
        # Read as under the largest budget int64 holds, so that no size past int64 is
        # clipped to the budget as the default rule's batch clips it: an overshoot or a
        # pin keeps its block whatever the size, and charges the whole size.
        read = _sizes.from_array(_sizes.INT64_MAX, values, short=0)
        if isinstance(read, list):
            raise ValueError("pack_batch with a rule takes units (>= 1) that fit int64")
        values = read.values
    elif values.shape[0] and int(values.min()) < 1:
        raise ValueError("pack_batch with a rule takes sizes >= 1 (units)")
    bounds = _sizes.offsets_of(offsets, budget_array.shape[0], values.shape[0])
    names = None if ids is None else np.asarray(ids, dtype=np.int64)
    marks = None if wanted is None else np.asarray(wanted, dtype=np.bool_)
    kept = np.zeros(values.shape[0], dtype=np.bool_)
    remaining = np.zeros(budget_array.shape[0], dtype=np.int64)
    refused = np.zeros(budget_array.shape[0], dtype=np.bool_)
    for case, (lo, hi) in enumerate(pairwise(bounds.tolist())):
        budget = int(budget_array[case])
        if budget < 0:
            raise ValueError(f"case {case}'s budget {budget} is below 0")
        part = values[lo:hi]
        local = None if names is None else _local(names[lo:hi])
        mask = None if marks is None else marks[lo:hi]
        found = (
            _interpreted(rule, budget, part, local, mask)
            if hi - lo < SHORT
            else _kernel(rule, budget, part, local, mask, compiled)
        )
        if found is None:
            refused[case] = True
            continue
        if not -(2**63) <= found[1] < 2**63:
            raise ValueError(f"case {case}'s remaining {found[1]} does not fit int64")
        kept[lo:hi] = found[0]
        remaining[case] = found[1]
    return RuleBatch(kept, remaining, refused)


def _local(ids: Ints) -> Ints:
    """A case's IDs renumbered into ``[0, its length)``, equal IDs equal."""
    return np.unique(ids, return_inverse=True)[1].astype(np.int64).reshape(-1)


def _kernel(
    rule: Rule, budget: int, sizes: Ints, ids: Ints | None, wanted: Flags | None, compiled: bool
) -> tuple[Flags, int] | None:
    found = pack_rule(rule, budget, sizes, ids, wanted, compiled=compiled)
    return None if found is None else (found.flags, found.remaining)


def _interpreted(
    rule: Rule, budget: int, sizes: Ints, ids: Ints | None, wanted: Flags | None
) -> tuple[list[bool], int] | None:
    # Integers stand for the IDs: the interpreter only compares them.
    names: list[Any] = list(range(sizes.shape[0])) if ids is None else ids.tolist()
    required = () if wanted is None else tuple(set(ids[wanted].tolist()) if ids is not None else ())
    found = kept_blocks(rule, Case(budget, tuple(names), tuple(sizes.tolist()), required))
    if found is None:
        return None
    return found.flags, int(found.remaining)
