"""Where an answer changes along one number of a case (the budget or a size), found by
galloping then bisecting; why a point found is real and its cost: docs/design.md."""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable
from functools import partial
from typing import Any

from .magnitudes import sized, unit

__all__ = ["candidates", "case_candidates", "shape", "transitions"]

_NUMBER = "#"
# Each side of a walk may ask this many values at least: a point up to 2**7 away.
_LEAST_CALLS = 16


class _Spent(Exception):
    """The calls allowed for a walk are used up."""


def shape(answer: object) -> Hashable:
    """``answer`` as a hashable value, every number (not a bool) one marker, so that
    ``remaining`` is no transition."""
    if isinstance(answer, bool) or answer is None or isinstance(answer, str):
        return answer
    if isinstance(answer, int | float):
        return _NUMBER
    if isinstance(answer, dict):
        return tuple(sorted((str(key), shape(value)) for key, value in answer.items()))
    if isinstance(answer, list | tuple):
        return tuple(shape(item) for item in answer)
    return repr(answer)


def _next_point(ask: Callable[[int], Hashable], start: int, end: int) -> int | None:
    """The upper value of a pair between ``start`` and ``end`` that answer differently
    (the nearest where monotonic); ``None`` when every galloping step answered alike."""
    sign = 1 if end > start else -1
    here = ask(start)
    same, step = start, 1
    while True:
        probe = start + sign * min(step, abs(end - start))
        if ask(probe) != here:
            break
        if probe == end:
            return None
        same, step = probe, 2 * step
    # Invariant: ask(same) == here != ask(probe).
    while abs(probe - same) > 1:
        middle = (same + probe) // 2
        if ask(middle) == here:
            same = middle
        else:
            probe = middle
    return max(same, probe)


def transitions(
    answer_at: Callable[[int], Hashable],
    start: int,
    low: int,
    high: int,
    *,
    calls: int = 64,
    per_side: int = 2,
) -> list[int]:
    """Points ``t`` in ``(low, high]`` with ``answer_at(t - 1) != answer_at(t)``,
    sorted: at most ``per_side`` points and ``calls`` new values each way from
    ``start``.  An exception from ``answer_at`` is not caught."""
    if not low <= start <= high:
        raise ValueError(f"start {start} is outside [{low}, {high}]")
    seen: dict[int, Hashable] = {}
    left = calls

    def ask(value: int) -> Hashable:
        """``answer_at``, remembered; at most ``calls`` new values a side."""
        nonlocal left
        if value not in seen:
            if left <= 0:
                raise _Spent
            left -= 1
            seen[value] = answer_at(value)
        return seen[value]

    found: set[int] = set()
    for end in (high, low):
        left = calls
        here = start
        try:
            for _ in range(per_side):
                if here == end:
                    break
                point = _next_point(ask, here, end)
                if point is None:
                    break
                found.add(point)
                here = point if end > here else point - 1
        except _Spent:
            pass
    return sorted(found)


def candidates(points: Iterable[int], low: int, high: int) -> list[int]:
    """Each point and one unit either side, within ``[low, high]``, sorted, once each."""
    return sorted({v for p in points for v in (p - 1, p, p + 1) if low <= v <= high})


def case_candidates(
    answer: Callable[[dict[str, Any]], Hashable],
    case: dict[str, Any],
    *,
    max_units: int,
    calls: int | None = None,
    sizes: Collection[int] | None = None,
    length: bool = False,
) -> list[dict[str, Any]]:
    """The other cases at and beside each point where ``answer`` changes along the
    budget and each size in ``sizes`` (default all), and with ``length`` the number of
    first blocks kept.  ``calls`` bounds each side of a walk (default ``2 * log2(scale)
    + 2``, at least 16)."""
    coordinates: list[tuple[int, int, Callable[[int], dict[str, Any]]]] = []
    if unit(case.get("budget")) and 0 <= case["budget"] <= max_units:
        coordinates.append((case["budget"], 0, lambda v: {**case, "budget": v}))
    listed = case.get("blocks")
    scale = max((value for value, _, _ in coordinates), default=0)
    for index, block in enumerate(listed if isinstance(listed, list) else []):
        if isinstance(block, dict) and unit(block.get("size")) and 1 <= block["size"] <= max_units:
            scale = max(scale, block["size"])
            if sizes is None or index in sizes:
                coordinates.append((block["size"], 1, partial(sized, case, index)))
    per_side = max(2 * scale.bit_length() + 2, _LEAST_CALLS) if calls is None else calls
    found: list[dict[str, Any]] = []
    for value, least, at in coordinates:

        def answer_at(v: int, at: Callable[[int], dict[str, Any]] = at) -> Hashable:
            return answer(at(v))

        points = transitions(answer_at, value, least, max_units, calls=per_side)
        found += [at(v) for v in candidates(points, least, max_units) if v != value]
    if length:
        blocks = case["blocks"]
        n = len(blocks)

        def first(k: int) -> dict[str, Any]:
            return {**case, "blocks": blocks[:k]}

        points = transitions(lambda k: answer(first(k)), 0, 0, n, calls=per_side)
        found += [first(k) for k in candidates(points, 0, n) if k != n]
    return found
