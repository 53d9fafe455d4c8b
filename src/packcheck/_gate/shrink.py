"""Shrinking a failing probe case: shorter first, then simpler, within a time limit.

Probes are laid out by hand, so their failures are shrunk here, greedily, as Hypothesis
would: shorter lengths of the ladder, the list cut past the first departure, leading
blocks dropped, delta debugging, smaller numbers, simpler contents (docs/gate.md,
"Reading a counterexample").  Every candidate is judged by ``fails`` and kept only if
it still fails; shrinking stops at ``deadline`` with the best case so far.  IDs are
left as they are.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Iterator
from typing import Any

from .letters import lettered
from .magnitudes import scaled_magnitudes, smaller_magnitudes
from .probes import LADDER, Probe

__all__ = ["SHRINK_TRIES", "polished", "shrink"]

#: After the first failure, shrinking tries at most this many cases, so the same seed
#: gives the same counterexample on a busy machine as on an idle one (and stops after
#: ``shrink_seconds`` with the best case so far, whichever comes first).
SHRINK_TRIES = 2000
# Then at most this many tries scaling the budget and sizes together, this many lowering
# them, and this many renaming the IDs A, B, C...
_SCALE_TRIES = 60
_MAGNITUDE_TRIES = 200
_LETTER_TRIES = 12

Fails = Callable[[dict[str, Any]], bool]
#: Where a failing case's answer departs from the expected one: the index of the block
#: past which the rest of the list can go, if known.
Departs = Callable[[dict[str, Any]], "int | None"]
# Delta debugging tries every chunk down to single blocks only on lists this short;
# longer lists are cut in at most 64 pieces per pass (each try is a packer call).
_FINE = 256
_SHORT_LADDER = tuple(range(1, 16))
# Passes of simpler contents: each pass may open the way for another.
_PASSES = 64


class _Out(Exception):
    """The deadline passed."""


def shrink(
    case: dict[str, Any],
    fails: Fails,
    *,
    probe: Probe | None = None,
    deadline: float,
    tries: int | None = None,
    departs: Departs | None = None,
) -> dict[str, Any]:
    """The smallest failing case found from ``case`` (which fails) before ``deadline``
    and within ``tries`` calls of ``fails`` (no limit when ``None``); ``departs`` says
    where a failing case departs (no cut without it)."""
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
        # Shrinking may have moved the departure: cut again just past it.
        _cut(attempt, best, departs)
    except _Out:
        pass
    return best


def _simplify(
    attempt: Callable[[dict[str, Any]], bool], current: Callable[[], dict[str, Any]]
) -> None:
    """Simpler blocks, pass after pass while a pass changes the case."""
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
    """Drop the longest run of leading blocks, found by bisection, while the case fails:
    first with the budget lowered to what the rule leaves after them (so the rule decides
    every remaining block as before), then as it is.  The budget is lowered only on plain
    integer units."""
    lefts = _rule_lefts(current())
    if lefts is not None:
        _bisect_front(attempt, current(), lefts)
    _bisect_front(attempt, current(), None)


def _bisect_front(
    attempt: Callable[[dict[str, Any]], bool], case: dict[str, Any], lefts: list[int] | None
) -> None:
    """Bisect for the most leading blocks of ``case`` that can go while it still fails;
    ``lefts``: the budget after dropping ``n`` blocks is ``lefts[n]`` (else unchanged)."""
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
    """What the rule has left before each block (and after the last); ``None`` unless
    the budget and every size are plain integers the rule accepts."""
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
    """``case`` with every block's ID its index: on a long list, blame by ID is exact."""
    return {**case, "blocks": [{**b, "id": str(i)} for i, b in enumerate(case["blocks"])]}


def _whole_floats_as_ints(case: dict[str, Any]) -> dict[str, Any]:
    """``case`` with every whole float unit (``4.0``) written as an int (``4``)."""

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
                # A long list gets no finer than 64 pieces: the pass just made was the last.
                return
        chunk = finer


def _scale_down(
    attempt: Callable[[dict[str, Any]], bool], current: Callable[[], dict[str, Any]]
) -> None:
    """Divide the budget and every size by a power of two while the case still fails,
    largest divisor first."""
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
    """One simpler block at ``index``; each option built from the case as it is then."""
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
    """Smaller valid units worth a try, smallest first: the floor, 1, half, one less.

    Never below ``floor``: an invalid unit would turn the case into another failure.
    """
    tries = (floor, 1, value // 2, value - 1)
    return [v for v in dict.fromkeys(tries) if floor <= v < value]


def polished(case: dict[str, Any], holds: Fails) -> dict[str, Any]:
    """``case`` (which ``holds``) with its budget and sizes scaled down together, then
    lowered, then its IDs renamed A, B, C..., each step kept only while ``holds``."""
    case = scaled_magnitudes(case, holds, tries=_SCALE_TRIES)
    case = smaller_magnitudes(case, holds, tries=_MAGNITUDE_TRIES)
    return lettered(case, holds, tries=_LETTER_TRIES)
