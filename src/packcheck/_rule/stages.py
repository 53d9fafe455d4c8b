"""The stages of a rule's pipeline (docs/rules.md) that both interpreters share."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from .declared import Charge, Rule
from .model import Case

__all__ = ["candidates_of", "pins_of", "scan_order", "whole"]


def scan_order(positions: Sequence[int], order: str) -> list[int]:
    """``positions`` (input order) in the scan order ``order`` names; ``middle-out`` is
    the reverse of removing the middle one (at ``len // 2``) again and again."""
    if order == "reversed":
        return list(reversed(positions))
    if order == "middle-out":
        # The first half forward at even places, the second half backward at odd places.
        listed = list(positions)
        scan = listed[:]
        half = (len(listed) + 1) // 2
        scan[0::2] = listed[:half]
        scan[1::2] = listed[: half - 1 : -1]
        return scan
    return list(positions)


def whole(value: Charge) -> Charge:
    """``value``, an ``int`` when it is whole (a ``Fraction`` sum may be)."""
    if isinstance(value, Fraction) and value.denominator == 1:
        return value.numerator
    return value


def candidates_of(ids: Sequence[str], dedup: str) -> Sequence[int]:
    """The positions that stay before the scan, in input order: one per ID under
    ``first``/``last``, every position (a ``range``) otherwise."""
    if dedup == "first":
        first: dict[str, int] = {}
        for index, block_id in enumerate(ids):
            first.setdefault(block_id, index)
        return [index for index, block_id in enumerate(ids) if first[block_id] == index]
    if dedup == "last":
        last = {block_id: index for index, block_id in enumerate(ids)}
        return [index for index, block_id in enumerate(ids) if last[block_id] == index]
    return range(len(ids))


def pins_of(rule: Rule, case: Case, candidates: Sequence[int]) -> list[int]:
    """The pinned positions, in input order."""
    if rule.pin == "none" or not candidates:
        return []
    if rule.pin == "first":
        return [candidates[0]]
    if rule.pin == "last":
        return [candidates[-1]]
    wanted = set(case.required)
    pins = [i for i in candidates if case.ids[i] in wanted]
    if rule.dedup == "kept":
        # Each ID's first position; first seen first, so still in input order.
        seen: dict[str, int] = {}
        for index in pins:
            seen.setdefault(case.ids[index], index)
        return list(seen.values())
    return pins
