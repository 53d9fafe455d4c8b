"""A rule's canonical form: two rules with equal canonical forms answer every case
alike (the converse does not hold)."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from .declared import Rule

__all__ = ["canonical"]


def canonical(rule: Rule) -> Rule:
    """``rule`` with its name, its fixtures and every key that cannot change an answer
    under the others reset (docs/rules.md, "When two rules are the same")."""
    keys = rule.keys()
    keys["name"] = ""
    while True:
        before = dict(keys)
        _reset(keys)
        if keys == before:
            return Rule(**keys)


def _reset(k: dict[str, Any]) -> None:
    pinned_one = k["pin"] in ("first", "last")
    if k["pin"] == "none":
        # Nothing is pinned: no pin can overflow.
        k["pin_overflow"] = "allow"
    if k["max_count"] == 1:
        # At most one block is kept, or only the pins: the order of kept IDs is input order.
        k["output"] = "input"
        if k["pin"] != "required":
            # One block is ever kept: no separator is charged, no kept ID is met again.
            k["separator"] = 0
            if k["dedup"] == "kept":
                k["dedup"] = "none"
        if pinned_one:
            # The pin alone is kept; the scan never starts.
            k["on_misfit"] = "skip"
            k["order"] = "given"
            if k["dedup"] == k["pin"]:
                # The first (last) block is the first (last) candidate either way.
                k["dedup"] = "none"
        no_refusal = k["pin"] == "none" or k["pin_overflow"] == "allow"
        if no_refusal and (k["on_misfit"] == "overshoot" or pinned_one):
            # Whatever fits, exactly the first block met (or the pins) is kept: fit
            # decides nothing, and the charges only what is charged.
            k["fit"] = "le"
            if k["remaining"] == "sizes":
                k["per_item"] = k["separator"] = k["reserve"] = 0
    if k["order"] == "given" and k["pin"] in ("none", "first"):
        # The scan meets the blocks in input order, after the first if pinned.
        k["output"] = "input"
    if k["per_item"] == k["separator"] == k["reserve"] == 0:
        # Every charge is a size: what is charged is what the sizes sum to.
        k["remaining"] = "charged"
    refusing_pin = k["refuse_empty"] and pinned_one and k["pin_overflow"] == "refuse"
    if refusing_pin and k["refuse_budget_below"] <= _pin_refuses_below(k):
        # Every budget below it is refused already: no blocks by refuse_empty, any
        # block by the pin, whose cost is at least 1 + per_item.
        k["refuse_budget_below"] = 0


def _pin_refuses_below(k: dict[str, Any]) -> int:
    """The budget below which a refusing pin's least cost ``1 + per_item`` never fits."""
    least: Fraction = 1 + Fraction(k["per_item"]) + Fraction(k["reserve"])
    # le: refused while budget < least; lt: while budget <= least.
    return math.ceil(least) if k["fit"] == "le" else math.floor(least) + 1
