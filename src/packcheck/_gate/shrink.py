"""Shrinking a failing probe case, greedily: shorter first, then simpler (docs/gate.md,
"Reading a counterexample").  A candidate is kept only if it still fails."""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator
from typing import Any

from .letters import lettered
from .magnitudes import scaled_magnitudes, smaller_magnitudes
from .probes import LADDER, Probe

__all__ = ["SHRINK_TRIES", "polished", "shrink"]

#: Shrinking tries at most this many cases, so a seed gives the same counterexample on a
#: busy machine as on an idle one (unless ``shrink_seconds`` pass first).
SHRINK_TRIES = 2000
# Then at most this many tries scaling, lowering and renaming (:func:`polished`).
_SCALE_TRIES = 60
_MAGNITUDE_TRIES = 200
_LETTER_TRIES = 12

Fails = Callable[[dict[str, Any]], bool]
#: The index of the block past which a failing case's list can go, if known.
Departs = Callable[[dict[str, Any]], "int | None"]
# Delta debugging goes down to single blocks only on lists this short; longer lists are
# cut in at most 64 pieces per pass.
_FINE = 256
_SHORT_LADDER = tuple(range(1, 16))
# Passes of simpler contents: each pass may open the way for another.
_PASSES = 64


class _Out(Exception):
    """The deadline passed, or the tries are spent."""


def shrink(
    case: dict[str, Any],
    fails: Fails,
    *,
    probe: Probe | None = None,
    deadline: float,
    tries: int | None = None,
    departs: Departs | None = None,
) -> dict[str, Any]:
    """The smallest failing case found from ``case`` before ``deadline`` and within
    ``tries`` calls of ``fails`` (``None``: no limit); IDs are left as they are."""
    best = case
    left = tries

    def attempt(candidate: dict[str, Any]) -> bool:
        nonlocal best, left
        if time.monotonic() > deadline or left == 0:
            raise _Out
        if left is not None:
            left -= 1
        if fails(candidate):
            best = candidate
            return True
        return False

    try:
        if probe is not None:
            for shorter in _shorter(probe):
                if attempt(shorter.build()):
                    break
        if len(best["blocks"]) > _FINE:
            attempt_changed(attempt, best, _distinct_ids(best))
            _cut(attempt, best, departs)
            _drop_front(attempt, lambda: best)
        _cut(attempt, best, departs)
        _delta(best, attempt, lambda: best)
        _cut(attempt, best, departs)
        attempt_changed(attempt, best, _whole_floats_as_ints(best))
        _scale_down(attempt, lambda: best)
        _simplify(attempt, lambda: best)
        _cut(attempt, best, departs)
    except _Out:
        pass
    return best


def _simplify(
    attempt: Callable[[dict[str, Any]], bool], current: Callable[[], dict[str, Any]]
) -> None:
    """Simpler blocks, pass after pass while one changes the case."""
    for _ in range(_PASSES):
        before = current()
        for simpler in _simpler(current):
            attempt(simpler)
        if len(current()["blocks"]) <= _FINE:
            # Simpler blocks may do without some of them: smaller ones, say.
            _delta(current(), attempt, current)
        if current() is before:
            break


def _cut(
    attempt: Callable[[dict[str, Any]], bool],
    case: dict[str, Any],
    departs: Departs | None,
) -> None:
    """Try ``case`` cut just past the block where its answer departs."""
    if departs is not None:
        cut = departs(case)
        if cut is not None and cut + 1 < len(case["blocks"]):
            attempt({**case, "blocks": case["blocks"][: cut + 1]})


def _drop_front(
    attempt: Callable[[dict[str, Any]], bool], current: Callable[[], dict[str, Any]]
) -> None:
    """Drop the most leading blocks that can go, by bisection: first with the budget
    lowered to what the rule leaves after them (plain integer units only), then as is."""
    lefts = _rule_lefts(current())
    if lefts is not None:
        _bisect_front(attempt, current(), lefts)
    _bisect_front(attempt, current(), None)


def _bisect_front(
    attempt: Callable[[dict[str, Any]], bool], case: dict[str, Any], lefts: list[int] | None
) -> None:
    """Bisect for the most leading blocks of ``case`` that can go; the budget after
    dropping ``n`` is ``lefts[n]`` (``None``: unchanged)."""
    blocks = case["blocks"]
    fails, passes = 0, len(blocks)  # dropping `fails` blocks fails; `passes`, not tried
    while passes - fails > 1:
        middle = (fails + passes) // 2
        candidate = {**case, "blocks": blocks[middle:]}
        if lefts is not None:
            candidate["budget"] = lefts[middle]
        if attempt(candidate):
            fails = middle
        else:
            passes = middle


def _rule_lefts(case: dict[str, Any]) -> list[int] | None:
    """What the rule has left before each block and after the last; ``None`` unless
    every unit is a plain integer the rule accepts."""
    left = case.get("budget")
    if type(left) is not int or left < 0:
        return None
    lefts = [left]
    for block in case["blocks"]:
        size = block.get("size")
        if type(size) is not int or size < 1:
            return None
        if size <= left:
            left -= size
        lefts.append(left)
    return lefts


def attempt_changed(
    attempt: Callable[[dict[str, Any]], bool], case: dict[str, Any], candidate: dict[str, Any]
) -> None:
    """Try ``candidate`` unless it is ``case`` itself."""
    if _types(candidate) != _types(case) or candidate != case:
        attempt(candidate)


def _types(case: dict[str, Any]) -> list[type]:
    return [type(case.get("budget")), *(type(b.get("size")) for b in case["blocks"])]


def _distinct_ids(case: dict[str, Any]) -> dict[str, Any]:
    """``case`` with every block's ID its index: blame by ID is exact."""
    return {**case, "blocks": [{**b, "id": str(i)} for i, b in enumerate(case["blocks"])]}


def _whole_floats_as_ints(case: dict[str, Any]) -> dict[str, Any]:
    """``case`` with every whole float unit (``4.0``) an int."""

    def as_int(value: object) -> object:
        return int(value) if type(value) is float and value.is_integer() else value

    blocks = [{**b, "size": as_int(b["size"])} if "size" in b else b for b in case["blocks"]]
    changed = {**case, "blocks": blocks}
    if "budget" in case:
        changed["budget"] = as_int(case["budget"])
    return changed


def _shorter(probe: Probe) -> Iterator[Probe]:
    if probe.family.startswith("wide"):
        return
    if probe.family == "run":
        lengths: tuple[int, ...] = tuple(4096 * (2**j - 1) for j in range(5))
    else:
        lengths = _SHORT_LADDER + LADDER
    for length in lengths:
        if length >= probe.length:
            return
        yield probe.shorter(length)


def _delta(
    case: dict[str, Any],
    attempt: Callable[[dict[str, Any]], bool],
    current: Callable[[], dict[str, Any]],
) -> None:
    """Drop runs of blocks while the case still fails: halves, quarters, ..."""
    blocks = current()["blocks"]
    chunk = max(1, len(blocks) // 2)
    while blocks:
        start = 0
        while start < len(blocks):
            candidate = blocks[:start] + blocks[start + chunk :]
            if attempt({**current(), "blocks": candidate}):
                blocks = candidate
            else:
                start += chunk
        if chunk == 1:
            return
        finer = max(1, chunk // 2)
        if len(blocks) > _FINE:
            finer = max(finer, len(blocks) // 64)
            if finer >= chunk:
                return
        chunk = finer


def _scale_down(
    attempt: Callable[[dict[str, Any]], bool], current: Callable[[], dict[str, Any]]
) -> None:
    """Divide every unit by a power of two, largest first, while the case fails."""
    units = [current().get("budget"), *(b.get("size") for b in current()["blocks"])]
    if not all(type(u) is int and u >= 0 for u in units):
        return
    for shift in range(max(u.bit_length() for u in units) - 1, 0, -1):
        case = current()
        blocks = [{**b, "size": max(1, b["size"] >> shift)} for b in case["blocks"]]
        attempt({**case, "budget": case["budget"] >> shift, "blocks": blocks})


def _simpler(current: Callable[[], dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Simpler versions of the current best case, one change each."""
    case = current()
    if case.get("required"):
        yield {**case, "required": []}
    for index in range(len(current().get("required", ()))):
        required = list(current()["required"])
        if index < len(required):
            yield {**current(), "required": required[:index] + required[index + 1 :]}
    if len(current()["blocks"]) <= _FINE:
        for index in range(len(current()["blocks"])):
            yield from _simpler_block(current, index)
    budget = current().get("budget")
    if type(budget) is int:
        for smaller in _smaller(budget):
            yield {**current(), "budget": smaller}


def _simpler_block(current: Callable[[], dict[str, Any]], index: int) -> Iterator[dict[str, Any]]:
    """Simpler blocks at ``index``, each built from the case as it is then."""
    for option in range(5):
        case = current()
        if index >= len(case["blocks"]):
            return
        block = case["blocks"][index]
        size = block.get("size")
        smaller = _smaller(size, floor=1) if type(size) is int else []
        if option == 0 and set(block) - {"id", "size"}:
            simpler = {k: v for k, v in block.items() if k in ("id", "size")}
        elif option >= 1 and option - 1 < len(smaller):
            simpler = {**block, "size": smaller[option - 1]}
        else:
            continue
        blocks = copy.copy(case["blocks"])
        blocks[index] = simpler
        yield {**case, "blocks": blocks}


def _smaller(value: int, floor: int = 0) -> list[int]:
    """Smaller units worth a try: ``floor``, 1, half, one less (never below ``floor``,
    which would turn the case into another failure)."""
    tries = (floor, 1, value // 2, value - 1)
    return [v for v in dict.fromkeys(tries) if floor <= v < value]


def polished(case: dict[str, Any], holds: Fails) -> dict[str, Any]:
    """``case`` (which ``holds``) with its units scaled, then lowered, then its IDs
    lettered, each step kept only while ``holds``."""
    case = scaled_magnitudes(case, holds, tries=_SCALE_TRIES)
    case = smaller_magnitudes(case, holds, tries=_MAGNITUDE_TRIES)
    return lettered(case, holds, tries=_LETTER_TRIES)
